// src/codec.js
var MAGIC = "AWP1";
var FULL_SCALE = { u16: 65535, i16: 32767 };
function asBytes(data) {
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  throw new TypeError("expected a DataView, ArrayBuffer or typed array");
}
var ARRAY_TYPES = { f32: Float32Array, u16: Uint16Array, i16: Int16Array, u32: Uint32Array };
function decodeEnvelope(data) {
  let bytes = asBytes(data);
  if (bytes.byteOffset % 4 !== 0) bytes = bytes.slice();
  if (bytes.byteLength < 8) throw new Error("attn_widget payload is truncated");
  const magic = String.fromCharCode(bytes[0], bytes[1], bytes[2], bytes[3]);
  if (magic !== MAGIC) throw new Error(`not an attn_widget payload (magic ${JSON.stringify(magic)})`);
  const headerLength = new DataView(bytes.buffer, bytes.byteOffset, 8).getUint32(4, true);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength)));
  if (header.version !== 1) throw new Error(`unsupported payload version ${header.version}`);
  const dataStart = bytes.byteOffset + 8 + headerLength;
  const sections = {};
  for (const [name, spec] of Object.entries(header.sections)) {
    const Type = ARRAY_TYPES[
      /** @type {keyof typeof ARRAY_TYPES} */
      spec.dtype
    ];
    if (!Type) throw new Error(`unknown dtype ${spec.dtype}`);
    sections[name] = new Type(
      /** @type {ArrayBuffer} */
      bytes.buffer,
      dataStart + spec.offset,
      spec.length
    );
  }
  const shape = header.shape;
  const rows = shape[shape.length - 2];
  const cols = shape[shape.length - 1];
  const slices = shape.slice(0, -2).reduce((a, b) => a * b, 1);
  const signed = header.sections.values.dtype === "i16";
  if (header.layout === "rows") Object.assign(sections, denseRows(sections, slices * rows, cols, signed));
  else if (sections.slices) Object.assign(sections, allSlices(sections, slices, rows, header.k));
  return {
    layout: header.layout === "rows" ? "dense" : header.layout,
    shape,
    slices,
    rows,
    cols,
    k: header.k,
    signed,
    scale: sections.scale,
    values: sections.values,
    indices: sections.indices ?? null,
    coverage: sections.coverage ?? null
  };
}
function denseRows(sections, total, cols, signed) {
  const scale = new Float32Array(total);
  const values = signed ? new Int16Array(total * cols) : new Uint16Array(total * cols);
  sections.rows.forEach((row, t) => {
    scale[row] = sections.scale[t];
    values.set(sections.values.subarray(t * cols, (t + 1) * cols), row * cols);
  });
  return { scale, values };
}
function allSlices(sections, slices, rows, k) {
  const out = {};
  for (const [name, per] of [
    ["scale", 1],
    ["coverage", 1],
    ["values", k],
    ["indices", k]
  ]) {
    const part = sections[name];
    if (!part) continue;
    const perSlice = rows * /** @type {number} */
    per;
    const whole = new part.constructor(slices * perSlice);
    sections.slices.forEach((slice, t) => {
      whole.set(part.subarray(t * perSlice, (t + 1) * perSlice), slice * perSlice);
    });
    out[name] = whole;
  }
  return out;
}
function rowEntries(env, slice, row) {
  const r = slice * env.rows + row;
  const scale = env.scale[r] / FULL_SCALE[env.signed ? "i16" : "u16"];
  const start = r * env.k;
  const codes = env.values.subarray(start, start + env.k);
  const values = new Float64Array(env.k);
  for (let i = 0; i < env.k; i++) values[i] = codes[i] * scale;
  const cols = env.indices ? env.indices.subarray(start, start + env.k) : identity(env.k);
  return { cols, values };
}
var identities = /* @__PURE__ */ new Map();
function identity(n) {
  let out = identities.get(n);
  if (!out) {
    out = new Uint16Array(n);
    for (let i = 0; i < n; i++) out[i] = i;
    identities.set(n, out);
  }
  return out;
}
function rowCoverage(env, slice, row) {
  if (!env.coverage) return 1;
  return env.coverage[slice * env.rows + row] / 65535;
}
function sliceMax(env, slice) {
  let max = 0;
  for (let r = slice * env.rows; r < (slice + 1) * env.rows; r++) max = Math.max(max, env.scale[r]);
  return max;
}

// src/edges.js
function sliceEdges(env, slice, only) {
  const [first, end] = only === void 0 ? [0, env.rows] : [only, only + 1];
  const capacity = (end - first) * env.k;
  const source = new Uint16Array(capacity);
  const target = new Uint16Array(capacity);
  const weight = new Float64Array(capacity);
  let count2 = 0;
  for (let row = first; row < end; row++) {
    const { cols, values } = rowEntries(env, slice, row);
    for (let i = 0; i < values.length; i++) {
      if (values[i] === 0) continue;
      source[count2] = cols[i];
      target[count2] = row;
      weight[count2] = values[i];
      count2++;
    }
  }
  return {
    source: source.subarray(0, count2),
    target: target.subarray(0, count2),
    weight: weight.subarray(0, count2),
    count: count2,
    max: sliceMax(env, slice)
  };
}
function edgesOfNode(edges, node) {
  const ends = node.side === "source" ? edges.source : edges.target;
  const out = [];
  for (let e = 0; e < edges.count; e++) if (ends[e] === node.index) out.push(e);
  return out.sort((a, b) => Math.abs(edges.weight[b]) - Math.abs(edges.weight[a]));
}
function focusScaleOf(edges, nodes) {
  let low = 0;
  let high = 0;
  for (const node of nodes) {
    if (!node) continue;
    for (const e of edgesOfNode(edges, node)) {
      const w = edges.weight[e];
      if (w < 0) low = Math.max(low, -w);
      else high = Math.max(high, w);
    }
  }
  if (low === 0 && high === 0) return null;
  return { low: low || high, high: high || low };
}
function widerScale(a, b) {
  if (!a || !b) return a ?? b ?? null;
  return { low: Math.max(a.low, b.low), high: Math.max(a.high, b.high) };
}
function filterEdges(edges, { topK, threshold, specials, special }) {
  const { count: count2, source, target, weight } = edges;
  let rows = 0;
  for (let e = 0; e < count2; e++) rows = Math.max(rows, target[e] + 1);
  const rowStart = new Uint32Array(rows + 1);
  for (let e = 0; e < count2; e++) rowStart[target[e] + 1]++;
  for (let r = 0; r < rows; r++) rowStart[r + 1] += rowStart[r];
  const order = new Uint32Array(count2);
  const fill = rowStart.slice(0, rows);
  for (let e = 0; e < count2; e++) order[fill[target[e]]++] = e;
  const kept = new Uint32Array(count2);
  const factor = new Float64Array(count2);
  let keptCount = 0;
  let stored = 0;
  const selfOnly = new Uint8Array(rows);
  for (let r = 0; r < rows; r++) {
    selfOnly[r] = rowStart[r + 1] - rowStart[r] === 1 && source[order[rowStart[r]]] === r ? 1 : 0;
    const rowFirst = keptCount;
    let total = 0;
    let remaining = 0;
    for (let i = rowStart[r]; i < rowStart[r + 1]; i++) {
      const e = order[i];
      const w = weight[e];
      stored += Math.abs(w);
      total += w;
      if (Math.abs(w) < threshold || specials !== "show" && (special[source[e]] || special[target[e]])) continue;
      remaining += w;
      if (topK > 0) {
        const full = keptCount - rowFirst === topK;
        if (full && Math.abs(w) <= Math.abs(weight[kept[keptCount - 1]])) continue;
        if (full) keptCount--;
        let slot = keptCount;
        for (; slot > rowFirst && Math.abs(weight[kept[slot - 1]]) < Math.abs(w); slot--) kept[slot] = kept[slot - 1];
        kept[slot] = e;
      } else kept[keptCount] = e;
      keptCount++;
    }
    const scale = specials === "renormalise" && remaining !== 0 ? total / remaining : 1;
    factor.fill(scale, rowFirst, keptCount);
  }
  const out = {
    source: new Uint16Array(keptCount),
    target: new Uint16Array(keptCount),
    weight: new Float64Array(keptCount),
    count: keptCount,
    max: 0,
    selfOnly: 0,
    drawnShare: 0
  };
  let drawn = 0;
  for (let k = 0; k < keptCount; k++) {
    const e = kept[k];
    out.source[k] = source[e];
    out.target[k] = target[e];
    out.weight[k] = weight[e] * factor[k];
    const size = Math.abs(out.weight[k]);
    if (selfOnly[target[e]]) out.selfOnly = Math.max(out.selfOnly, size);
    else out.max = Math.max(out.max, size);
    drawn += Math.abs(weight[e]);
  }
  if (out.max === 0) [out.max, out.selfOnly] = [out.selfOnly, 0];
  else if (out.selfOnly <= out.max) out.selfOnly = 0;
  out.drawnShare = stored > 0 ? drawn / stored : 1;
  return out;
}
function degreesOf(edges, n, kind) {
  const values = new Float64Array(n);
  const ends = kind === "in" ? edges.target : edges.source;
  for (let e = 0; e < edges.count; e++) values[ends[e]] += edges.weight[e];
  let max = 0;
  for (const v of values) max = Math.max(max, Math.abs(v));
  return { values, max, kind };
}

// src/colormap.js
var LIGHT = ["#c6dbef", "#6baed6", "#2171b5", "#08306b", "#2d004b"];
var DARK = ["#1f4e5a", "#2a9d8f", "#8ac926", "#e9c46a", "#fff3b0"];
var DIVERGING = ["#2166ac", "#92c5de", "#bdbdbd", "#f4a582", "#b2182b"];
var HEAT = ["#000004", "#3b0f70", "#8c2981", "#de4968", "#fe9f6d", "#fcfdbf"];
function rgb(hex) {
  const v = parseInt(hex.slice(1), 16);
  return [v >> 16 & 255, v >> 8 & 255, v & 255];
}
function interpolate(anchors, size = 256) {
  const stops3 = anchors.map(rgb);
  const out = [];
  for (let i = 0; i < size; i++) {
    const t = i / (size - 1) * (stops3.length - 1);
    const lo = Math.min(Math.floor(t), stops3.length - 2);
    const f = t - lo;
    const c = stops3[lo].map((a, ch) => Math.round(a + (stops3[lo + 1][ch] - a) * f));
    out.push(`rgb(${c[0]}, ${c[1]}, ${c[2]})`);
  }
  return out;
}
var tables = {
  light: interpolate(LIGHT),
  dark: interpolate(DARK),
  diverging: interpolate(DIVERGING),
  heat: interpolate(HEAT)
};
function colormap(name) {
  return tables[name];
}
function isSigned(method, env) {
  return Boolean(method?.signed || env?.signed);
}
function edgeTable(signed, dark) {
  return colormap(signed ? "diverging" : dark ? "dark" : "light");
}
function colorAt(table, t, signed = false) {
  const u = signed ? (t + 1) / 2 : t;
  const i = Math.max(0, Math.min(table.length - 1, Math.round(u * (table.length - 1))));
  return table[i];
}
function prefersDarkTable(textColor) {
  return lightness(textColor) > 0.5;
}
function lightness(color) {
  const [space, ...rest] = color.trim().toLowerCase().split(/[\s(),/]+/).filter(Boolean);
  const numbers = rest.map((part) => part.endsWith("%") ? parseFloat(part) / 100 : parseFloat(part));
  const luminance = ([r, g, b]) => 0.2126 * r + 0.7152 * g + 0.0722 * b;
  let value = NaN;
  if (space === "rgb" || space === "rgba")
    value = luminance(rest.map((part, i) => part.endsWith("%") ? numbers[i] : numbers[i] / 255));
  else if (space === "color" && (rest[0] === "srgb" || rest[0] === "display-p3")) value = luminance(numbers.slice(1));
  else if (space === "oklch" || space === "oklab") value = numbers[0];
  else if (space === "lab" || space === "lch") value = rest[0].endsWith("%") ? numbers[0] : numbers[0] / 100;
  return Number.isFinite(value) ? value : 0;
}

// src/layout.js
var LABEL_WIDTH = 120;
var HEADER_HEIGHT = 22;
var LABEL_GAP = 6;
var MAX_PLOT_HEIGHT = 560;
var MIN_PLOT_HEIGHT = 120;
var ROW_HEIGHT = 20;
var LEGIBLE_ROW = 15;
var FOCUS_LABEL = 18;
var FOCUS_CLEARANCE = (FOCUS_LABEL + LEGIBLE_ROW) / 2;
var BAND = 18;
function computeLayout(width, n, window = { start: 0, size: 0 }) {
  const size = window.size > 0 ? Math.min(window.size, n) : n;
  const first = Math.max(0, Math.min(window.start, n - size));
  const plotHeight = Math.max(MIN_PLOT_HEIGHT, Math.min(MAX_PLOT_HEIGHT, size * ROW_HEIGHT));
  const rowHeight = plotHeight / Math.max(size, 1);
  const labelWidth = Math.min(LABEL_WIDTH, Math.max(40, width * 0.22));
  const band = size < n ? BAND : 0;
  return {
    width,
    height: HEADER_HEIGHT + plotHeight + 2 * band + 4,
    n,
    // Rows before the window sit above the plot (and are clipped): indices stay the token's own.
    top: HEADER_HEIGHT + band - first * rowHeight,
    rowHeight,
    leftX: labelWidth,
    rightX: width - labelWidth,
    first,
    last: first + size - 1,
    band,
    labelEvery: Math.max(1, Math.ceil(LEGIBLE_ROW / rowHeight - 1e-9))
  };
}
function rowCenter(layout, index) {
  return layout.top + (index + 0.5) * layout.rowHeight;
}
function edgeEndY(layout, index) {
  if (index < layout.first) return HEADER_HEIGHT + layout.band / 2;
  if (index > layout.last) return layout.top + (layout.last + 1) * layout.rowHeight + layout.band / 2;
  return layout.top + (index + 0.5) * layout.rowHeight;
}
function isDrawn(layout, source, target) {
  return source >= layout.first && source <= layout.last || target >= layout.first && target <= layout.last;
}
function isLabelled(layout, index) {
  return index % layout.labelEvery === 0;
}
function nodeAt(layout, x, y) {
  const index = rowAt(layout, y);
  if (index === null) return null;
  const middle = (layout.leftX + layout.rightX) / 2;
  return { side: x < middle ? "source" : "target", index };
}
function rowAt(layout, y) {
  const index = Math.floor((y - layout.top) / layout.rowHeight);
  return index < layout.first || index > layout.last || y < HEADER_HEIGHT ? null : index;
}

// src/locale/zh.json
var zh_default = {
  " (blue and red each to their own end; width by size)": "\uFF08\u84DD\u8272\u548C\u7EA2\u8272\u5404\u81EA\u6309\u81EA\u5DF1\u7684\u4E00\u7AEF\u5B9A\u8272\u9636\uFF1B\u7EBF\u5BBD\u8868\u793A\u5927\u5C0F\uFF09",
  " (not counting {value}: a token that sees only itself)": "\uFF08\u4E0D\u8BA1\u5165 {value}\uFF1A\u53EA\u770B\u5F97\u5230\u81EA\u5DF1\u7684 token\uFF09",
  " (the data keeps {mean}% per row on average, least {least}%)": "\uFF08\u6570\u636E\u5E73\u5747\u6BCF\u884C\u4FDD\u7559 {mean}%\uFF0C\u6700\u5C11 {least}%\uFF09",
  " Empty boxes: {n} layers not computed yet (click one to open it and compute it there).": " \u7A7A\u6846\uFF1A{n} \u5C42\u5C1A\u672A\u8BA1\u7B97\uFF08\u70B9\u51FB\u4E00\u4E2A\u5373\u53EF\u6253\u5F00\u5E76\u5728\u90A3\u91CC\u8BA1\u7B97\uFF09\u3002",
  " Only the {k} strongest entries of each row are stored at this length; the rest show as 0.": " \u5728\u8FD9\u4E2A\u957F\u5EA6\u4E0B\u6BCF\u884C\u53EA\u4FDD\u5B58\u6700\u5F3A\u7684 {k} \u4E2A\u503C\uFF0C\u5176\u4F59\u663E\u793A\u4E3A 0\u3002",
  " Rows of a cell: receiving tokens; columns: sending tokens.": " \u6BCF\u683C\u7684\u884C\uFF1A\u63A5\u6536\u4FE1\u606F\u7684 token\uFF1B\u5217\uFF1A\u53D1\u51FA\u4FE1\u606F\u7684 token\u3002",
  " {n} tokens in {pixels} pixels: each pixel shows the strongest entry of its block.": " {n} \u4E2A token \u6324\u5728 {pixels} \u4E2A\u50CF\u7D20\u91CC\uFF1A\u6BCF\u4E2A\u50CF\u7D20\u663E\u793A\u5B83\u90A3\u4E00\u5757\u4E2D\u6700\u5F3A\u7684\u503C\u3002",
  "0 \u2192 largest": "0 \u2192 \u6700\u5927",
  "1 token in {k} labelled: hover a row for its token": "\u6BCF {k} \u4E2A token \u6807\u6CE8\u4E00\u4E2A\uFF1A\u6307\u5411\u4E00\u884C\u53EF\u770B\u5B83\u7684 token",
  ": each cell is scaled to its own largest value, so a cell shows its pattern, not its strength against the others.": "\uFF1A\u6BCF\u683C\u6309\u81EA\u5DF1\u7684\u6700\u5927\u503C\u5B9A\u8272\u9636\uFF0C\u6240\u4EE5\u4E00\u683C\u663E\u793A\u7684\u662F\u5B83\u7684\u6A21\u5F0F\uFF0C\u800C\u4E0D\u662F\u4E0E\u5176\u4ED6\u683C\u76F8\u6BD4\u7684\u5F3A\u5F31\u3002",
  "? About this method": "? \u5173\u4E8E\u8FD9\u4E2A\u65B9\u6CD5",
  ALTI: "ALTI",
  "ALTI (aggregation of layer-wise token-to-token interactions) asks how close each token's contribution is to the right token's output: a contribution close to the output counts much. An edge means: that share of the right token's block output is made by the left token; the colour goes from pale (little) to dark (the most; the legend gives the scale). Definition: M[i, j] = max(0, \u2016y_i\u2016\u2081 \u2212 \u2016y_i \u2212 T_i(x_j)\u2016\u2081), rows normalised, with T_i(x_j) token j's transformed vector and y_i the output.": "ALTI\uFF08\u9010\u5C42 token \u95F4\u76F8\u4E92\u4F5C\u7528\u7684\u805A\u5408\uFF09\u770B\u6BCF\u4E2A token \u7684\u8D21\u732E\u4E0E\u53F3\u8FB9 token \u7684\u8F93\u51FA\u6709\u591A\u63A5\u8FD1\uFF1A\u8D8A\u63A5\u8FD1\u8F93\u51FA\uFF0C\u8D21\u732E\u8D8A\u5927\u3002\u4E00\u6761\u8FB9\u8868\u793A\uFF1A\u53F3\u8FB9 token \u7684\u5757\u8F93\u51FA\u4E2D\u6709\u8FD9\u4E48\u5927\u7684\u4EFD\u989D\u7531\u5DE6\u8FB9\u7684 token \u6784\u6210\uFF1B\u989C\u8272\u4ECE\u6D45\uFF08\u5C11\uFF09\u5230\u6DF1\uFF08\u6700\u591A\uFF1B\u8272\u9636\u89C1\u56FE\u4F8B\uFF09\u3002\u5B9A\u4E49\uFF1AM[i, j] = max(0, \u2016y_i\u2016\u2081 \u2212 \u2016y_i \u2212 T_i(x_j)\u2016\u2081)\uFF0C\u6309\u884C\u5F52\u4E00\u5316\uFF0C\u5176\u4E2D T_i(x_j) \u662F token j \u53D8\u6362\u540E\u7684\u5411\u91CF\uFF0Cy_i \u662F\u8F93\u51FA\u3002",
  "ALTI composed: the maps multiplied through the layers, with no added identity (the residual is inside each map). How much of each input token reaches each position after this layer.": "ALTI\u7684\u7EC4\u5408\uFF1A\u628A\u5404\u5C42\u6620\u5C04\u9010\u5C42\u76F8\u4E58\uFF0C\u4E0D\u53E6\u52A0\u5355\u4F4D\u77E9\u9635\uFF08\u6B8B\u5DEE\u5DF2\u5728\u6BCF\u4E2A\u6620\u5C04\u4E4B\u5185\uFF09\u3002\u6BCF\u4E2A\u8F93\u5165 token \u6709\u591A\u5C11\u5230\u8FBE\u8FD9\u4E00\u5C42\u4E4B\u540E\u7684\u6BCF\u4E2A\u4F4D\u7F6E\u3002",
  "ALTI, rolled out": "ALTI\uFF0C\u5C55\u5F00",
  "ALTI-Logit (signed)": "ALTI-Logit\uFF08\u6709\u6B63\u8D1F\uFF09",
  "Abnar & Zuidema (2020): 0.5\xB7A + 0.5\xB7I multiplied through the layers. How much of each input token reaches each position after this layer (heads averaged).": "Abnar \u4E0E Zuidema\uFF082020\uFF09\uFF1A\u628A 0.5\xB7A + 0.5\xB7I \u9010\u5C42\u76F8\u4E58\u3002\u6BCF\u4E2A\u8F93\u5165 token \u6709\u591A\u5C11\u5230\u8FBE\u8FD9\u4E00\u5C42\u4E4B\u540E\u7684\u6BCF\u4E2A\u4F4D\u7F6E\uFF08\u5404\u5934\u53D6\u5E73\u5747\uFF09\u3002",
  "Abnar & Zuidema (2020): the maximum flow from each position after this layer to each input token, with 0.5\xB7A + 0.5\xB7I as capacities, normalised per row. Exact.": "Abnar \u4E0E Zuidema\uFF082020\uFF09\uFF1A\u4EE5 0.5\xB7A + 0.5\xB7I \u4E3A\u5BB9\u91CF\uFF0C\u4ECE\u8FD9\u4E00\u5C42\u4E4B\u540E\u7684\u6BCF\u4E2A\u4F4D\u7F6E\u5230\u6BCF\u4E2A\u8F93\u5165 token \u7684\u6700\u5927\u6D41\uFF0C\u6309\u884C\u5F52\u4E00\u5316\u3002\u7CBE\u786E\u8BA1\u7B97\u3002",
  "Abnar & Zuidema's exact attention flow on the joint graph whose capacities are the layer maps: the maximum flow from each input token (source and target) to each position after this layer, normalised per row (docs/methods.md \xA72.7).": "Abnar \u4E0E Zuidema \u7684\u7CBE\u786E\u6CE8\u610F\u529B\u6D41\uFF0C\u5728\u4EE5\u5C42\u6620\u5C04\u4E3A\u5BB9\u91CF\u7684\u8054\u5408\u56FE\u4E0A\u8BA1\u7B97\uFF1A\u4ECE\u6BCF\u4E2A\u8F93\u5165 token\uFF08\u6E90\u548C\u76EE\u6807\uFF09\u5230\u8FD9\u4E00\u5C42\u4E4B\u540E\u6BCF\u4E2A\u4F4D\u7F6E\u7684\u6700\u5927\u6D41\uFF0C\u6309\u884C\u5F52\u4E00\u5316\uFF08docs/methods.md \xA72.7\uFF09\u3002",
  "About \u201C{method}\u201D": "\u5173\u4E8E\u201C{method}\u201D",
  "An edge exists where the head-mean attention exceeds this": "\u5404\u5934\u5E73\u5747\u6CE8\u610F\u529B\u8D85\u8FC7\u8FD9\u4E2A\u503C\u7684\u5730\u65B9\u624D\u6709\u8FB9",
  "An edge from a token on the left to a token on the right means: the right token pays more than the threshold (the box \u201CEdge if weight >\u201D) of its attention, averaged over the heads, to the left token. Every edge has weight 1, so every edge has the same colour; no edge means at most the threshold. Definition: B = 1[\u0100 > threshold], with \u0100 the head-averaged attention of the layer and 1[\xB7] equal to 1 where the condition holds, else 0.": "\u4ECE\u5DE6\u8FB9\u4E00\u4E2A token \u5230\u53F3\u8FB9\u4E00\u4E2A token \u7684\u8FB9\u8868\u793A\uFF1A\u53F3\u8FB9\u7684 token \u628A\u8D85\u8FC7\u9608\u503C\uFF08\u201C\u6709\u8FB9\uFF0C\u82E5\u6743\u91CD >\u201D\u4E00\u680F\uFF09\u7684\u6CE8\u610F\u529B\uFF08\u5404\u5934\u5E73\u5747\uFF09\u7ED9\u4E86\u5DE6\u8FB9\u7684 token\u3002\u6BCF\u6761\u8FB9\u7684\u6743\u91CD\u90FD\u662F 1\uFF0C\u6240\u4EE5\u989C\u8272\u90FD\u4E00\u6837\uFF1B\u6CA1\u6709\u8FB9\u8868\u793A\u4E0D\u8D85\u8FC7\u9608\u503C\u3002\u5B9A\u4E49\uFF1AB = 1[\u0100 > \u9608\u503C]\uFF0C\u5176\u4E2D \u0100 \u662F\u8FD9\u4E00\u5C42\u5404\u5934\u5E73\u5747\u7684\u6CE8\u610F\u529B\uFF0C\u6761\u4EF6\u6210\u7ACB\u65F6 1[\xB7] \u4E3A 1\uFF0C\u5426\u5219\u4E3A 0\u3002",
  "An edge from a token on the left to a token on the right means: when computing its new vector in this layer, the right token takes that share of its information from the left token. Each right token's edges add up to 1; the colour goes from pale (little) to dark (the most; the legend gives the scale). The head menu shows one head, the heads' mean or their max. Definition: A = softmax(Q\xB7K\u1D40 / \u221Ad) per head, with Q, K the queries and keys and d the head dimension.": "\u4ECE\u5DE6\u8FB9\u4E00\u4E2A token \u5230\u53F3\u8FB9\u4E00\u4E2A token \u7684\u8FB9\u8868\u793A\uFF1A\u53F3\u8FB9\u7684 token \u5728\u8FD9\u4E00\u5C42\u8BA1\u7B97\u65B0\u5411\u91CF\u65F6\uFF0C\u6709\u8FD9\u4E48\u5927\u7684\u4EFD\u989D\u7684\u4FE1\u606F\u53D6\u81EA\u5DE6\u8FB9\u7684 token\u3002\u53F3\u8FB9\u6BCF\u4E2A token \u7684\u8FB9\u52A0\u8D77\u6765\u7B49\u4E8E 1\uFF1B\u989C\u8272\u4ECE\u6D45\uFF08\u5C11\uFF09\u5230\u6DF1\uFF08\u6700\u591A\uFF1B\u8272\u9636\u89C1\u56FE\u4F8B\uFF09\u3002\u201C\u5934\u201D\u83DC\u5355\u53EF\u663E\u793A\u4E00\u4E2A\u5934\u3001\u5404\u5934\u7684\u5E73\u5747\u6216\u6700\u5927\u503C\u3002\u5B9A\u4E49\uFF1A\u6BCF\u4E2A\u5934 A = softmax(Q\xB7K\u1D40 / \u221Ad)\uFF0C\u5176\u4E2D Q\u3001K \u662F\u67E5\u8BE2\u548C\u952E\uFF0Cd \u662F\u5934\u7684\u7EF4\u5EA6\u3002",
  "An edge joins a source token after an encoder layer (right) and the source tokens it read (left); its colour is how strongly one attends to the other, its attention weight (pale: little, dark: the most; the legend gives the scale). Definition: A = softmax(Q\xB7K\u1D40/\u221Ad) of this layer's self-attention.": "\u4E00\u6761\u8FB9\u8FDE\u63A5\u7F16\u7801\u5668\u5C42\u4E4B\u540E\u7684\u4E00\u4E2A\u6E90 token\uFF08\u53F3\uFF09\u548C\u5B83\u8BFB\u53D6\u7684\u6E90 token\uFF08\u5DE6\uFF09\uFF1B\u989C\u8272\u8868\u793A\u524D\u8005\u5BF9\u540E\u8005\u7684\u5173\u6CE8\u7A0B\u5EA6\uFF0C\u5373\u6CE8\u610F\u529B\u6743\u91CD\uFF08\u6D45\uFF1A\u5C11\uFF0C\u6DF1\uFF1A\u6700\u591A\uFF1B\u8272\u9636\u89C1\u56FE\u4F8B\uFF09\u3002\u5B9A\u4E49\uFF1A\u8FD9\u4E00\u5C42\u81EA\u6CE8\u610F\u529B\u7684 A = softmax(Q\xB7K\u1D40/\u221Ad)\u3002",
  "An edge joins a source token after an encoder layer (right) and the source tokens it read (left); its colour is the attention weights with the part that changes nothing in the head's output removed (signed: blue edges are negative). Definition: A_eff = A \u2212 (the part of each row in the left null space of the values); equal to A where a row has no more keys than the head dimension.": "\u4E00\u6761\u8FB9\u8FDE\u63A5\u7F16\u7801\u5668\u5C42\u4E4B\u540E\u7684\u4E00\u4E2A\u6E90 token\uFF08\u53F3\uFF09\u548C\u5B83\u8BFB\u53D6\u7684\u6E90 token\uFF08\u5DE6\uFF09\uFF1B\u989C\u8272\u662F\u53BB\u6389\u4E86\u5BF9\u8BE5\u5934\u8F93\u51FA\u6BEB\u65E0\u5F71\u54CD\u7684\u90E8\u5206\u4E4B\u540E\u7684\u6CE8\u610F\u529B\u6743\u91CD\uFF08\u6709\u6B63\u8D1F\uFF1A\u84DD\u8272\u7684\u8FB9\u4E3A\u8D1F\uFF09\u3002\u5B9A\u4E49\uFF1AA_eff = A \u2212\uFF08\u6BCF\u4E00\u884C\u5728\u503C\u5411\u91CF\u5DE6\u96F6\u7A7A\u95F4\u4E2D\u7684\u90E8\u5206\uFF09\uFF1B\u4E00\u884C\u7684\u952E\u4E0D\u591A\u4E8E\u5934\u7EF4\u5EA6\u65F6\u7B49\u4E8E A\u3002",
  "An edge joins a target position (right, the decoder's query) and the source tokens it read (left, the encoder output); its colour is how strongly one attends to the other, its attention weight (pale: little, dark: the most; the legend gives the scale). Definition: A = softmax(Q\xB7K\u1D40/\u221Ad) of this layer's cross-attention: queries from the decoder, keys from the encoder's output.": "\u4E00\u6761\u8FB9\u8FDE\u63A5\u4E00\u4E2A\u76EE\u6807\u4F4D\u7F6E\uFF08\u53F3\uFF0C\u89E3\u7801\u5668\u7684\u67E5\u8BE2\uFF09\u548C\u5B83\u8BFB\u53D6\u7684\u6E90 token\uFF08\u5DE6\uFF0C\u7F16\u7801\u5668\u8F93\u51FA\uFF09\uFF1B\u989C\u8272\u8868\u793A\u524D\u8005\u5BF9\u540E\u8005\u7684\u5173\u6CE8\u7A0B\u5EA6\uFF0C\u5373\u6CE8\u610F\u529B\u6743\u91CD\uFF08\u6D45\uFF1A\u5C11\uFF0C\u6DF1\uFF1A\u6700\u591A\uFF1B\u8272\u9636\u89C1\u56FE\u4F8B\uFF09\u3002\u5B9A\u4E49\uFF1A\u8FD9\u4E00\u5C42\u4EA4\u53C9\u6CE8\u610F\u529B\u7684 A = softmax(Q\xB7K\u1D40/\u221Ad)\uFF1A\u67E5\u8BE2\u6765\u81EA\u89E3\u7801\u5668\uFF0C\u952E\u6765\u81EA\u7F16\u7801\u5668\u7684\u8F93\u51FA\u3002",
  "An edge joins a target position (right, the decoder's query) and the source tokens it read (left, the encoder output); its colour is the attention weights with the part that changes nothing in the head's output removed (signed: blue edges are negative). Definition: A_eff = A \u2212 (the part of each row in the left null space of the values); equal to A where a row has no more keys than the head dimension.": "\u4E00\u6761\u8FB9\u8FDE\u63A5\u4E00\u4E2A\u76EE\u6807\u4F4D\u7F6E\uFF08\u53F3\uFF0C\u89E3\u7801\u5668\u7684\u67E5\u8BE2\uFF09\u548C\u5B83\u8BFB\u53D6\u7684\u6E90 token\uFF08\u5DE6\uFF0C\u7F16\u7801\u5668\u8F93\u51FA\uFF09\uFF1B\u989C\u8272\u662F\u53BB\u6389\u4E86\u5BF9\u8BE5\u5934\u8F93\u51FA\u6BEB\u65E0\u5F71\u54CD\u7684\u90E8\u5206\u4E4B\u540E\u7684\u6CE8\u610F\u529B\u6743\u91CD\uFF08\u6709\u6B63\u8D1F\uFF1A\u84DD\u8272\u7684\u8FB9\u4E3A\u8D1F\uFF09\u3002\u5B9A\u4E49\uFF1AA_eff = A \u2212\uFF08\u6BCF\u4E00\u884C\u5728\u503C\u5411\u91CF\u5DE6\u96F6\u7A7A\u95F4\u4E2D\u7684\u90E8\u5206\uFF09\uFF1B\u4E00\u884C\u7684\u952E\u4E0D\u591A\u4E8E\u5934\u7EF4\u5EA6\u65F6\u7B49\u4E8E A\u3002",
  "An edge joins a target position after a decoder layer (right) and the target positions up to it that it read (left); its colour is how strongly one attends to the other, its attention weight (pale: little, dark: the most; the legend gives the scale). Definition: A = softmax(Q\xB7K\u1D40/\u221Ad) of this layer's self-attention.": "\u4E00\u6761\u8FB9\u8FDE\u63A5\u89E3\u7801\u5668\u5C42\u4E4B\u540E\u7684\u4E00\u4E2A\u76EE\u6807\u4F4D\u7F6E\uFF08\u53F3\uFF09\u548C\u5B83\u8BFB\u53D6\u7684\u3001\u5230\u5B83\u4E3A\u6B62\u7684\u76EE\u6807\u4F4D\u7F6E\uFF08\u5DE6\uFF09\uFF1B\u989C\u8272\u8868\u793A\u524D\u8005\u5BF9\u540E\u8005\u7684\u5173\u6CE8\u7A0B\u5EA6\uFF0C\u5373\u6CE8\u610F\u529B\u6743\u91CD\uFF08\u6D45\uFF1A\u5C11\uFF0C\u6DF1\uFF1A\u6700\u591A\uFF1B\u8272\u9636\u89C1\u56FE\u4F8B\uFF09\u3002\u5B9A\u4E49\uFF1A\u8FD9\u4E00\u5C42\u81EA\u6CE8\u610F\u529B\u7684 A = softmax(Q\xB7K\u1D40/\u221Ad)\u3002",
  "An edge joins a target position after a decoder layer (right) and the target positions up to it that it read (left); its colour is the attention weights with the part that changes nothing in the head's output removed (signed: blue edges are negative). Definition: A_eff = A \u2212 (the part of each row in the left null space of the values); equal to A where a row has no more keys than the head dimension.": "\u4E00\u6761\u8FB9\u8FDE\u63A5\u89E3\u7801\u5668\u5C42\u4E4B\u540E\u7684\u4E00\u4E2A\u76EE\u6807\u4F4D\u7F6E\uFF08\u53F3\uFF09\u548C\u5B83\u8BFB\u53D6\u7684\u3001\u5230\u5B83\u4E3A\u6B62\u7684\u76EE\u6807\u4F4D\u7F6E\uFF08\u5DE6\uFF09\uFF1B\u989C\u8272\u662F\u53BB\u6389\u4E86\u5BF9\u8BE5\u5934\u8F93\u51FA\u6BEB\u65E0\u5F71\u54CD\u7684\u90E8\u5206\u4E4B\u540E\u7684\u6CE8\u610F\u529B\u6743\u91CD\uFF08\u6709\u6B63\u8D1F\uFF1A\u84DD\u8272\u7684\u8FB9\u4E3A\u8D1F\uFF09\u3002\u5B9A\u4E49\uFF1AA_eff = A \u2212\uFF08\u6BCF\u4E00\u884C\u5728\u503C\u5411\u91CF\u5DE6\u96F6\u7A7A\u95F4\u4E2D\u7684\u90E8\u5206\uFF09\uFF1B\u4E00\u884C\u7684\u952E\u4E0D\u591A\u4E8E\u5934\u7EF4\u5EA6\u65F6\u7B49\u4E8E A\u3002",
  "Asks the model directly, with gradients: how strongly does each input token's embedding move the right token's hidden vector after this layer? An edge means: the input token's share of that sensitivity; each row adds up to 1; the colour goes from pale (little) to dark (the most; the legend gives the scale). Definition: H_l[i, j] = \u2016\u2202e_i/\u2202x_j\u2016 / \u03A3_k \u2016\u2202e_i/\u2202x_k\u2016, with e_i the hidden vector of token i after layer l and x_j the input embedding of token j.": "\u7528\u68AF\u5EA6\u76F4\u63A5\u95EE\u6A21\u578B\uFF1A\u6BCF\u4E2A\u8F93\u5165 token \u7684\u8BCD\u5411\u91CF\u5BF9\u53F3\u8FB9 token \u5728\u8FD9\u4E00\u5C42\u4E4B\u540E\u7684\u9690\u5411\u91CF\u5F71\u54CD\u6709\u591A\u5927\uFF1F\u4E00\u6761\u8FB9\u8868\u793A\uFF1A\u8FD9\u4E2A\u8F93\u5165 token \u5728\u8FD9\u79CD\u654F\u611F\u5EA6\u4E2D\u6240\u5360\u7684\u4EFD\u989D\uFF1B\u6BCF\u884C\u52A0\u8D77\u6765\u7B49\u4E8E 1\uFF1B\u989C\u8272\u4ECE\u6D45\uFF08\u5C11\uFF09\u5230\u6DF1\uFF08\u6700\u591A\uFF1B\u8272\u9636\u89C1\u56FE\u4F8B\uFF09\u3002\u5B9A\u4E49\uFF1AH_l[i, j] = \u2016\u2202e_i/\u2202x_j\u2016 / \u03A3_k \u2016\u2202e_i/\u2202x_k\u2016\uFF0C\u5176\u4E2D e_i \u662F\u7B2C l \u5C42\u4E4B\u540E token i \u7684\u9690\u5411\u91CF\uFF0Cx_j \u662F token j \u7684\u8F93\u5165\u8BCD\u5411\u91CF\u3002",
  "Attention flow": "\u6CE8\u610F\u529B\u6D41",
  "Attention flow corrected for position: RF-B (receptive-field baseline) divides by the flow of content-free attention (every visible key equally weighted) with the same causal mask, so that early tokens get no weight just for being visible to everyone. An edge means: flow above what position alone gives; the colour goes from pale (little) to dark (the most; the legend gives the scale). Definition: rownormalise(F \u2298 F\u2080), with F the attention flow, F\u2080 the flow of uniform attention.": "\u6309\u4F4D\u7F6E\u6821\u6B63\u7684\u6CE8\u610F\u529B\u6D41\uFF1ARF-B\uFF08\u611F\u53D7\u91CE\u57FA\u7EBF\uFF09\u9664\u4EE5\u540C\u4E00\u56E0\u679C\u63A9\u7801\u4E0B\u65E0\u5185\u5BB9\u6CE8\u610F\u529B\uFF08\u6BCF\u4E2A\u53EF\u89C1\u7684\u952E\u6743\u91CD\u76F8\u540C\uFF09\u7684\u6D41\uFF0C\u8FD9\u6837\u9760\u524D\u7684 token \u4E0D\u4F1A\u4EC5\u4EC5\u56E0\u4E3A\u4EBA\u4EBA\u90FD\u770B\u5F97\u89C1\u800C\u83B7\u5F97\u6743\u91CD\u3002\u4E00\u6761\u8FB9\u8868\u793A\uFF1A\u8D85\u51FA\u4EC5\u7531\u4F4D\u7F6E\u6240\u7ED9\u7684\u90A3\u90E8\u5206\u6D41\uFF1B\u989C\u8272\u4ECE\u6D45\uFF08\u5C11\uFF09\u5230\u6DF1\uFF08\u6700\u591A\uFF1B\u8272\u9636\u89C1\u56FE\u4F8B\uFF09\u3002\u5B9A\u4E49\uFF1Arownormalise(F \u2298 F\u2080)\uFF0C\u5176\u4E2D F \u662F\u6CE8\u610F\u529B\u6D41\uFF0CF\u2080 \u662F\u5747\u5300\u6CE8\u610F\u529B\u7684\u6D41\u3002",
  "Attention flow through cross-attention": "\u7ECF\u4EA4\u53C9\u6CE8\u610F\u529B\u7684\u6CE8\u610F\u529B\u6D41",
  "Attention flow with effective attention (attention without the part that changes nothing in the output; negatives set to 0, rows re-normalised: variant E1) as pipe widths. An edge means: the largest amount that can flow from the input token to the right token, as a share of its row; the colour goes from pale (little) to dark (the most; the legend gives the scale). Definition: maxflow with capacities 0.5\xB7E + 0.5\xB7I, E = rownormalise(max(\u0100_eff, 0)), rows normalised.": "\u4EE5\u6709\u6548\u6CE8\u610F\u529B\uFF08\u53BB\u6389\u5BF9\u8F93\u51FA\u6BEB\u65E0\u5F71\u54CD\u7684\u90E8\u5206\u7684\u6CE8\u610F\u529B\uFF1B\u8D1F\u503C\u7F6E 0\uFF0C\u5404\u884C\u91CD\u65B0\u5F52\u4E00\u5316\uFF1A\u53D8\u4F53 E1\uFF09\u4E3A\u7BA1\u9053\u5BBD\u5EA6\u7684\u6CE8\u610F\u529B\u6D41\u3002\u4E00\u6761\u8FB9\u8868\u793A\uFF1A\u4ECE\u8F93\u5165 token \u5230\u53F3\u8FB9 token \u6700\u591A\u80FD\u6D41\u8FC7\u591A\u5C11\uFF0C\u5360\u8BE5\u884C\u7684\u4EFD\u989D\uFF1B\u989C\u8272\u4ECE\u6D45\uFF08\u5C11\uFF09\u5230\u6DF1\uFF08\u6700\u591A\uFF1B\u8272\u9636\u89C1\u56FE\u4F8B\uFF09\u3002\u5B9A\u4E49\uFF1A\u4EE5 0.5\xB7E + 0.5\xB7I \u4E3A\u5BB9\u91CF\u7684\u6700\u5927\u6D41\uFF0CE = rownormalise(max(\u0100_eff, 0))\uFF0C\u6309\u884C\u5F52\u4E00\u5316\u3002",
  "Attention flow with the clipped, re-normalised effective attention (E1) as capacities.": "\u4EE5\u622A\u65AD\u8D1F\u503C\u5E76\u91CD\u65B0\u5F52\u4E00\u5316\u7684\u6709\u6548\u6CE8\u610F\u529B\uFF08E1\uFF09\u4E3A\u5BB9\u91CF\u7684\u6CE8\u610F\u529B\u6D41\u3002",
  "Attention flow. Receptive-field normalised (RF-B, our interpretation of Abnar & Zuidema's advice): divided by the same quantity on content-free attention with the same causal mask, so that position alone gives uniform rows.": "\u6CE8\u610F\u529B\u6D41\u3002\u611F\u53D7\u91CE\u5F52\u4E00\u5316\uFF08RF-B\uFF0C\u6211\u4EEC\u5BF9 Abnar \u4E0E Zuidema \u5EFA\u8BAE\u7684\u89E3\u8BFB\uFF09\uFF1A\u9664\u4EE5\u540C\u4E00\u56E0\u679C\u63A9\u7801\u4E0B\u65E0\u5185\u5BB9\u6CE8\u610F\u529B\u7684\u540C\u4E00\u91CF\uFF0C\u4F7F\u4EC5\u7531\u4F4D\u7F6E\u9020\u6210\u7684\u90E8\u5206\u7ED9\u51FA\u5747\u5300\u7684\u884C\u3002",
  "Attention graph. Arrow keys move between tokens and columns, Enter pins a token, Escape unpins. Long texts: the wheel, Page Up, Page Down, Home and End scroll the rows; Ctrl or \u2318 with the wheel, or + and -, zoom.": "\u6CE8\u610F\u529B\u56FE\u3002\u65B9\u5411\u952E\u5728 token \u548C\u5217\u4E4B\u95F4\u79FB\u52A8\uFF0CEnter \u56FA\u5B9A\u4E00\u4E2A token\uFF0CEsc \u53D6\u6D88\u56FA\u5B9A\u3002\u957F\u6587\u672C\uFF1A\u9F20\u6807\u6EDA\u8F6E\u3001Page Up\u3001Page Down\u3001Home \u548C End \u6EDA\u52A8\u5404\u884C\uFF1B\u6309\u4F4F Ctrl \u6216 \u2318 \u6EDA\u52A8\u6EDA\u8F6E\uFF0C\u6216\u6309 + \u548C -\uFF0C\u53EF\u4EE5\u7F29\u653E\u3002",
  "Self- and cross-attention": "\u81EA\u6CE8\u610F\u529B\u4E0E\u4EA4\u53C9\u6CE8\u610F\u529B",
  "Attention rollout": "\u6CE8\u610F\u529B\u5C55\u5F00\uFF08rollout\uFF09",
  "Attention rollout built on effective attention (attention without the part that changes nothing in the output). Negative entries are set to 0 and rows re-normalised (variant E1 of docs/methods.md), then multiplied through the layers like rollout. An edge means: that share of the right token traces back to the input token; the colour goes from pale (little) to dark (the most; the legend gives the scale). Definition: R_l = (0.5\xB7E_l + 0.5\xB7I) \xB7 \u2026 \xB7 (0.5\xB7E_1 + 0.5\xB7I), with E = rownormalise(max(\u0100_eff, 0)).": "\u5EFA\u7ACB\u5728\u6709\u6548\u6CE8\u610F\u529B\uFF08\u53BB\u6389\u5BF9\u8F93\u51FA\u6BEB\u65E0\u5F71\u54CD\u7684\u90E8\u5206\u7684\u6CE8\u610F\u529B\uFF09\u4E0A\u7684\u6CE8\u610F\u529B\u5C55\u5F00\u3002\u8D1F\u503C\u7F6E 0\u3001\u5404\u884C\u91CD\u65B0\u5F52\u4E00\u5316\uFF08docs/methods.md \u7684\u53D8\u4F53 E1\uFF09\uFF0C\u518D\u50CF\u5C55\u5F00\u4E00\u6837\u9010\u5C42\u76F8\u4E58\u3002\u4E00\u6761\u8FB9\u8868\u793A\uFF1A\u53F3\u8FB9 token \u6709\u8FD9\u4E48\u5927\u7684\u4EFD\u989D\u53EF\u8FFD\u6EAF\u5230\u8FD9\u4E2A\u8F93\u5165 token\uFF1B\u989C\u8272\u4ECE\u6D45\uFF08\u5C11\uFF09\u5230\u6DF1\uFF08\u6700\u591A\uFF1B\u8272\u9636\u89C1\u56FE\u4F8B\uFF09\u3002\u5B9A\u4E49\uFF1AR_l = (0.5\xB7E_l + 0.5\xB7I) \xB7 \u2026 \xB7 (0.5\xB7E_1 + 0.5\xB7I)\uFF0CE = rownormalise(max(\u0100_eff, 0))\u3002",
  "Attention rollout corrected for position: in a decoder the first tokens are seen by every later token and collect weight for that reason alone. RF-B (receptive-field baseline) divides by the rollout of content-free attention (every visible key equally weighted) with the same causal mask. An edge means: how much more than position alone would give the input token reaches the right token; the colour goes from pale (little) to dark (the most; the legend gives the scale). Definition: rownormalise(R \u2298 R\u2080), with R the rollout, R\u2080 the rollout of uniform attention, \u2298 division entry by entry.": "\u6309\u4F4D\u7F6E\u6821\u6B63\u7684\u6CE8\u610F\u529B\u5C55\u5F00\uFF1A\u5728\u89E3\u7801\u5668\u4E2D\uFF0C\u6700\u524D\u9762\u7684 token \u88AB\u540E\u9762\u6BCF\u4E2A token \u770B\u5230\uFF0C\u4EC5\u56E0\u6B64\u5C31\u4F1A\u79EF\u7D2F\u6743\u91CD\u3002RF-B\uFF08\u611F\u53D7\u91CE\u57FA\u7EBF\uFF09\u9664\u4EE5\u540C\u4E00\u56E0\u679C\u63A9\u7801\u4E0B\u65E0\u5185\u5BB9\u6CE8\u610F\u529B\uFF08\u6BCF\u4E2A\u53EF\u89C1\u7684\u952E\u6743\u91CD\u76F8\u540C\uFF09\u7684\u5C55\u5F00\u3002\u4E00\u6761\u8FB9\u8868\u793A\uFF1A\u8FD9\u4E2A\u8F93\u5165 token \u5230\u8FBE\u53F3\u8FB9 token \u7684\u91CF\u6BD4\u4EC5\u7531\u4F4D\u7F6E\u6240\u7ED9\u7684\u591A\u591A\u5C11\uFF1B\u989C\u8272\u4ECE\u6D45\uFF08\u5C11\uFF09\u5230\u6DF1\uFF08\u6700\u591A\uFF1B\u8272\u9636\u89C1\u56FE\u4F8B\uFF09\u3002\u5B9A\u4E49\uFF1Arownormalise(R \u2298 R\u2080)\uFF0C\u5176\u4E2D R \u662F\u5C55\u5F00\uFF0CR\u2080 \u662F\u5747\u5300\u6CE8\u610F\u529B\u7684\u5C55\u5F00\uFF0C\u2298 \u662F\u9010\u5143\u7D20\u76F8\u9664\u3002",
  "Attention rollout. Receptive-field normalised (RF-B, our interpretation of Abnar & Zuidema's advice): divided by the same quantity on content-free attention with the same causal mask, so that position alone gives uniform rows.": "\u6CE8\u610F\u529B\u5C55\u5F00\u3002\u611F\u53D7\u91CE\u5F52\u4E00\u5316\uFF08RF-B\uFF0C\u6211\u4EEC\u5BF9 Abnar \u4E0E Zuidema \u5EFA\u8BAE\u7684\u89E3\u8BFB\uFF09\uFF1A\u9664\u4EE5\u540C\u4E00\u56E0\u679C\u63A9\u7801\u4E0B\u65E0\u5185\u5BB9\u6CE8\u610F\u529B\u7684\u540C\u4E00\u91CF\uFF0C\u4F7F\u4EC5\u7531\u4F4D\u7F6E\u9020\u6210\u7684\u90E8\u5206\u7ED9\u51FA\u5747\u5300\u7684\u884C\u3002",
  "Attention weights of one layer: each token on the right draws on the tokens on the left.": "\u4E00\u5C42\u7684\u6CE8\u610F\u529B\u6743\u91CD\uFF1A\u53F3\u8FB9\u7684\u6BCF\u4E2A token \u4ECE\u5DE6\u8FB9\u7684 token \u83B7\u53D6\u4FE1\u606F\u3002",
  "Attention weights of the cross-attention: each target position (right, a decoder query) reads the source tokens (left, the encoder's output).": "\u4EA4\u53C9\u6CE8\u610F\u529B\u7684\u6743\u91CD\uFF1A\u6BCF\u4E2A\u76EE\u6807\u4F4D\u7F6E\uFF08\u53F3\uFF0C\u89E3\u7801\u5668\u7684\u67E5\u8BE2\uFF09\u8BFB\u53D6\u6E90 token\uFF08\u5DE6\uFF0C\u7F16\u7801\u5668\u7684\u8F93\u51FA\uFF09\u3002",
  "Attention weights of the decoder self-attention: each target position (right) reads the target positions up to itself (left).": "\u89E3\u7801\u5668\u81EA\u6CE8\u610F\u529B\u7684\u6743\u91CD\uFF1A\u6BCF\u4E2A\u76EE\u6807\u4F4D\u7F6E\uFF08\u53F3\uFF09\u8BFB\u53D6\u5B83\u81EA\u5DF1\u53CA\u4E4B\u524D\u7684\u76EE\u6807\u4F4D\u7F6E\uFF08\u5DE6\uFF09\u3002",
  "Attention weights of the encoder self-attention: each source token (right) reads every source token (left).": "\u7F16\u7801\u5668\u81EA\u6CE8\u610F\u529B\u7684\u6743\u91CD\uFF1A\u6BCF\u4E2A\u6E90 token\uFF08\u53F3\uFF09\u8BFB\u53D6\u6240\u6709\u6E90 token\uFF08\u5DE6\uFF09\u3002",
  "Bars: {name} of {target}; longest {max}": "\u6761\u5F62\uFF1A{target} \u7684{name}\uFF1B\u6700\u957F {max}",
  "positive: pushes the target up": "\u6B63\u503C\uFF1A\u63A8\u9AD8\u76EE\u6807",
  "negative: pushes it down": "\u8D1F\u503C\uFF1A\u538B\u4F4E\u5B83",
  "bar length: the score's size": "\u6761\u5F62\u957F\u5EA6\uFF1A\u5206\u6570\u7684\u5927\u5C0F",
  "bar length: the score (never negative)": "\u6761\u5F62\u957F\u5EA6\uFF1A\u5206\u6570\uFF08\u4E0D\u4F1A\u4E3A\u8D1F\uFF09",
  "Largest score:": "\u6700\u5927\u7684\u5206\u6570\uFF1A",
  "Largest {n} scores:": "\u6700\u5927\u7684 {n} \u4E2A\u5206\u6570\uFF1A",
  "Binarisation threshold": "\u4E8C\u503C\u5316\u9608\u503C",
  "Binarised attention graph (0/1)": "\u4E8C\u503C\u5316\u6CE8\u610F\u529B\u56FE\uFF080/1\uFF09",
  "Brunner et al. (2020): each attention row without its part in the left null space of V\xB7W_O, which changes nothing in the head's output. Signed: blue is negative. Equal to raw attention for rows that see no more keys than the head dimension.": "Brunner \u7B49\uFF082020\uFF09\uFF1A\u6BCF\u4E00\u884C\u6CE8\u610F\u529B\u53BB\u6389\u5B83\u5728 V\xB7W_O \u5DE6\u96F6\u7A7A\u95F4\u4E2D\u7684\u90E8\u5206\uFF0C\u8FD9\u90E8\u5206\u5BF9\u8BE5\u5934\u7684\u8F93\u51FA\u6CA1\u6709\u4EFB\u4F55\u5F71\u54CD\u3002\u6709\u6B63\u8D1F\uFF1A\u84DD\u8272\u4E3A\u8D1F\u3002\u5BF9\u4E8E\u80FD\u770B\u5230\u7684\u952E\u4E0D\u591A\u4E8E\u5934\u7EF4\u5EA6\u7684\u884C\uFF0C\u5B83\u7B49\u4E8E\u539F\u59CB\u6CE8\u610F\u529B\u3002",
  "Brunner et al. (2020): each row without its part in the left null space of the values, which changes nothing in the head's output (signed: blue is negative). Equal to the weights where a row sees no more keys than the head dimension. Here: each source token (right) reads every source token (left).": "Brunner \u7B49\uFF082020\uFF09\uFF1A\u6BCF\u4E00\u884C\u53BB\u6389\u5B83\u5728\u503C\u5411\u91CF\u5DE6\u96F6\u7A7A\u95F4\u4E2D\u7684\u90E8\u5206\uFF0C\u8FD9\u90E8\u5206\u5BF9\u8BE5\u5934\u7684\u8F93\u51FA\u6CA1\u6709\u4EFB\u4F55\u5F71\u54CD\uFF08\u6709\u6B63\u8D1F\uFF1A\u84DD\u8272\u4E3A\u8D1F\uFF09\u3002\u4E00\u884C\u80FD\u770B\u5230\u7684\u952E\u4E0D\u591A\u4E8E\u5934\u7EF4\u5EA6\u65F6\uFF0C\u5B83\u7B49\u4E8E\u539F\u6743\u91CD\u3002\u8FD9\u91CC\uFF1A\u6BCF\u4E2A\u6E90 token\uFF08\u53F3\uFF09\u8BFB\u53D6\u6240\u6709\u6E90 token\uFF08\u5DE6\uFF09\u3002",
  "Brunner et al. (2020): each row without its part in the left null space of the values, which changes nothing in the head's output (signed: blue is negative). Equal to the weights where a row sees no more keys than the head dimension. Here: each target position (right) reads the target positions up to itself (left).": "Brunner \u7B49\uFF082020\uFF09\uFF1A\u6BCF\u4E00\u884C\u53BB\u6389\u5B83\u5728\u503C\u5411\u91CF\u5DE6\u96F6\u7A7A\u95F4\u4E2D\u7684\u90E8\u5206\uFF0C\u8FD9\u90E8\u5206\u5BF9\u8BE5\u5934\u7684\u8F93\u51FA\u6CA1\u6709\u4EFB\u4F55\u5F71\u54CD\uFF08\u6709\u6B63\u8D1F\uFF1A\u84DD\u8272\u4E3A\u8D1F\uFF09\u3002\u4E00\u884C\u80FD\u770B\u5230\u7684\u952E\u4E0D\u591A\u4E8E\u5934\u7EF4\u5EA6\u65F6\uFF0C\u5B83\u7B49\u4E8E\u539F\u6743\u91CD\u3002\u8FD9\u91CC\uFF1A\u6BCF\u4E2A\u76EE\u6807\u4F4D\u7F6E\uFF08\u53F3\uFF09\u8BFB\u53D6\u5B83\u81EA\u5DF1\u53CA\u4E4B\u524D\u7684\u76EE\u6807\u4F4D\u7F6E\uFF08\u5DE6\uFF09\u3002",
  "Brunner et al. (2020): each row without its part in the left null space of the values, which changes nothing in the head's output (signed: blue is negative). Equal to the weights where a row sees no more keys than the head dimension. Here: each target position (right, a decoder query) reads the source tokens (left, the encoder's output).": "Brunner \u7B49\uFF082020\uFF09\uFF1A\u6BCF\u4E00\u884C\u53BB\u6389\u5B83\u5728\u503C\u5411\u91CF\u5DE6\u96F6\u7A7A\u95F4\u4E2D\u7684\u90E8\u5206\uFF0C\u8FD9\u90E8\u5206\u5BF9\u8BE5\u5934\u7684\u8F93\u51FA\u6CA1\u6709\u4EFB\u4F55\u5F71\u54CD\uFF08\u6709\u6B63\u8D1F\uFF1A\u84DD\u8272\u4E3A\u8D1F\uFF09\u3002\u4E00\u884C\u80FD\u770B\u5230\u7684\u952E\u4E0D\u591A\u4E8E\u5934\u7EF4\u5EA6\u65F6\uFF0C\u5B83\u7B49\u4E8E\u539F\u6743\u91CD\u3002\u8FD9\u91CC\uFF1A\u6BCF\u4E2A\u76EE\u6807\u4F4D\u7F6E\uFF08\u53F3\uFF0C\u89E3\u7801\u5668\u7684\u67E5\u8BE2\uFF09\u8BFB\u53D6\u6E90 token\uFF08\u5DE6\uFF0C\u7F16\u7801\u5668\u7684\u8F93\u51FA\uFF09\u3002",
  "Brunner et al. (2020): the share of input token j in token i's hidden vector after this layer, measured by the size of the Jacobian \u2016\u2202e_i/\u2202x_j\u2016 and normalised over j. Exact gradients, costly: all layers at once.": "Brunner \u7B49\uFF082020\uFF09\uFF1A\u8F93\u5165 token j \u5728\u8FD9\u4E00\u5C42\u4E4B\u540E token i \u7684\u9690\u5411\u91CF\u4E2D\u6240\u5360\u7684\u4EFD\u989D\uFF0C\u7528\u96C5\u53EF\u6BD4\u77E9\u9635\u7684\u5927\u5C0F \u2016\u2202e_i/\u2202x_j\u2016 \u8861\u91CF\uFF0C\u5E76\u5BF9 j \u5F52\u4E00\u5316\u3002\u7CBE\u786E\u68AF\u5EA6\uFF0C\u4EE3\u4EF7\u9AD8\uFF1A\u4E00\u6B21\u7B97\u51FA\u6240\u6709\u5C42\u3002",
  Cancel: "\u53D6\u6D88",
  "Cancelled.": "\u5DF2\u53D6\u6D88\u3002",
  "Cannot draw the image: {problem}.": "\u65E0\u6CD5\u7ED8\u5236\u56FE\u50CF\uFF1A{problem}\u3002",
  "Cannot draw this view: {reason}. Make the widget again, e.g. AttentionWidget(model, text).": "\u65E0\u6CD5\u7ED8\u5236\u8FD9\u4E2A\u89C6\u56FE\uFF1A{reason}\u3002\u8BF7\u91CD\u65B0\u521B\u5EFA\u90E8\u4EF6\uFF0C\u4F8B\u5982 AttentionWidget(model, text)\u3002",
  "Chefer et al. (2021): rollout of the positive part of A \u2299 \u2202y/\u2202A; row t of the last layer, minus the identity.": "Chefer \u7B49\uFF082021\uFF09\uFF1A\u5BF9 A \u2299 \u2202y/\u2202A \u7684\u6B63\u90E8\u505A\u5C55\u5F00\uFF1B\u53D6\u6700\u540E\u4E00\u5C42\u7684\u7B2C t \u884C\uFF0C\u51CF\u53BB\u5355\u4F4D\u77E9\u9635\u3002",
  "Click a cell to list the texts where that head is most extreme.": "\u70B9\u51FB\u4E00\u4E2A\u683C\u5B50\uFF0C\u5217\u51FA\u8BE5\u5934\u6700\u6781\u7AEF\u7684\u6587\u672C\u3002",
  "Compare as": "\u6BD4\u8F83\u65B9\u5F0F",
  "Compare with": "\u6BD4\u8F83\u5BF9\u8C61",
  "Comparisons are drawn in the single-layer view only": "\u53EA\u6709\u5355\u5C42\u89C6\u56FE\u4E2D\u624D\u753B\u6BD4\u8F83",
  "Compute all layers": "\u8BA1\u7B97\u6240\u6709\u5C42",
  "Compute layer {layer}": "\u8BA1\u7B97\u7B2C {layer} \u5C42",
  "Computing {name}\u2026": "\u6B63\u5728\u8BA1\u7B97{name}\u2026",
  "Context mixing (values, residual, norms)": "\u4E0A\u4E0B\u6587\u6DF7\u5408\uFF08\u503C\u5411\u91CF\u3001\u6B8B\u5DEE\u3001\u8303\u6570\uFF09",
  "Cross-attention": "\u4EA4\u53C9\u6CE8\u610F\u529B",
  "Decoder self-attention": "\u89E3\u7801\u5668\u81EA\u6CE8\u610F\u529B",
  "Dot size": "\u5706\u70B9\u5927\u5C0F",
  "Dots sized by degree": "\u6309\u5EA6\u6570\u51B3\u5B9A\u5706\u70B9\u5927\u5C0F",
  "Download the current view as a PNG picture": "\u628A\u5F53\u524D\u89C6\u56FE\u4E0B\u8F7D\u4E3A PNG \u56FE\u7247",
  "Download the current view as an SVG drawing (labels as text)": "\u628A\u5F53\u524D\u89C6\u56FE\u4E0B\u8F7D\u4E3A SVG \u77E2\u91CF\u56FE\uFF08\u6807\u7B7E\u4E3A\u6587\u5B57\uFF09",
  "Draw a second method of the same graph beside this one (off: one method)": "\u5728\u65C1\u8FB9\u753B\u51FA\u540C\u4E00\u5F20\u56FE\u7684\u7B2C\u4E8C\u79CD\u65B9\u6CD5\uFF08\u5173\uFF1A\u53EA\u753B\u4E00\u79CD\uFF09",
  "Draw at most this many edges into each token (0: all)": "\u6BCF\u4E2A token \u6700\u591A\u753B\u8FD9\u4E48\u591A\u6761\u8FDB\u5165\u7684\u8FB9\uFF080\uFF1A\u5168\u90E8\uFF09",
  "Each cell: {what}, averaged over up to {count} texts (rows: layers, columns: heads).": "\u6BCF\u683C\uFF1A{what}\uFF0C\u6700\u591A {count} \u4E2A\u6587\u672C\u7684\u5E73\u5747\uFF08\u884C\uFF1A\u5C42\uFF0C\u5217\uFF1A\u5934\uFF09\u3002",
  "Each cell: {what}, averaged over {count} texts (rows: layers, columns: heads).": "\u6BCF\u683C\uFF1A{what}\uFF0C{count} \u4E2A\u6587\u672C\u7684\u5E73\u5747\uFF08\u884C\uFF1A\u5C42\uFF0C\u5217\uFF1A\u5934\uFF09\u3002",
  "Each layer's mixing as rollout composes it (head means, residual share 0.5): an encoder layer mixes the source tokens, a decoder layer gives each target position half from the source through cross-attention and half from the target through self-attention plus residual. Tokens a layer does not touch keep their state (horizontal edges).": "\u5C55\u5F00\u6240\u7EC4\u5408\u7684\u6BCF\u5C42\u6DF7\u5408\uFF08\u5404\u5934\u5E73\u5747\uFF0C\u6B8B\u5DEE\u5360 0.5\uFF09\uFF1A\u7F16\u7801\u5668\u5C42\u6DF7\u5408\u6E90 token\uFF1B\u89E3\u7801\u5668\u5C42\u7ED9\u6BCF\u4E2A\u76EE\u6807\u4F4D\u7F6E\u4E00\u534A\u6765\u81EA\u6E90\uFF08\u7ECF\u4EA4\u53C9\u6CE8\u610F\u529B\uFF09\uFF0C\u4E00\u534A\u6765\u81EA\u76EE\u6807\uFF08\u7ECF\u81EA\u6CE8\u610F\u529B\u52A0\u6B8B\u5DEE\uFF09\u3002\u4E00\u5C42\u4E0D\u89E6\u53CA\u7684 token \u4FDD\u6301\u539F\u72B6\uFF08\u6C34\u5E73\u7684\u8FB9\uFF09\u3002",
  "Edge if weight >": "\u6709\u8FB9\uFF0C\u82E5\u6743\u91CD >",
  "Edges per token": "\u6BCF\u4E2A token \u7684\u8FB9\u6570",
  "Edges per token, 0 for all": "\u6BCF\u4E2A token \u7684\u8FB9\u6570\uFF0C0 \u8868\u793A\u5168\u90E8",
  "Edges to tokens outside the rows shown. Click to scroll to the strongest one.": "\u901A\u5F80\u6240\u663E\u793A\u5404\u884C\u4E4B\u5916 token \u7684\u8FB9\u3002\u70B9\u51FB\u53EF\u6EDA\u52A8\u5230\u6700\u5F3A\u7684\u90A3\u4E00\u4E2A\u3002",
  "Effective attention": "\u6709\u6548\u6CE8\u610F\u529B",
  "Effective cross-attention": "\u6709\u6548\u4EA4\u53C9\u6CE8\u610F\u529B",
  "Effective decoder self-attention": "\u6709\u6548\u89E3\u7801\u5668\u81EA\u6CE8\u610F\u529B",
  "Effective encoder self-attention": "\u6709\u6548\u7F16\u7801\u5668\u81EA\u6CE8\u610F\u529B",
  "Effective flow": "\u6709\u6548\u6CE8\u610F\u529B\u6D41",
  "Effective rollout": "\u6709\u6548\u6CE8\u610F\u529B\u5C55\u5F00",
  "Encoder output": "\u7F16\u7801\u5668\u8F93\u51FA",
  "Encoder self-attention": "\u7F16\u7801\u5668\u81EA\u6CE8\u610F\u529B",
  "Encoder {n}": "\u7F16\u7801\u5668 {n}",
  "Every attention weight of a layer (head means): encoder self-attention among the source tokens; in a decoder layer, cross-attention to the source and self-attention to the target together. Tokens a layer does not touch carry their state unchanged (horizontal edges of weight 1).": "\u4E00\u5C42\u7684\u6240\u6709\u6CE8\u610F\u529B\u6743\u91CD\uFF08\u5404\u5934\u5E73\u5747\uFF09\uFF1A\u7F16\u7801\u5668\u5C42\u662F\u6E90 token \u4E4B\u95F4\u7684\u81EA\u6CE8\u610F\u529B\uFF1B\u89E3\u7801\u5668\u5C42\u662F\u5BF9\u6E90\u7684\u4EA4\u53C9\u6CE8\u610F\u529B\u548C\u5BF9\u76EE\u6807\u7684\u81EA\u6CE8\u610F\u529B\u5408\u5728\u4E00\u8D77\u3002\u4E00\u5C42\u4E0D\u89E6\u53CA\u7684 token \u539F\u6837\u4F20\u9012\u72B6\u6001\uFF08\u6743\u91CD\u4E3A 1 \u7684\u6C34\u5E73\u8FB9\uFF09\u3002",
  "Failed: {error}": "\u5931\u8D25\uFF1A{error}",
  "Ferrando et al. (2022): how close each token's transformed vector T_i(x_j) (attention, residual and layer norm) is to the block's output y_i in L1 distance, max(0, \u2016y_i\u2016\u2081 \u2212 \u2016y_i \u2212 T_i(x_j)\u2016\u2081), rows normalised.": "Ferrando \u7B49\uFF082022\uFF09\uFF1A\u6BCF\u4E2A token \u53D8\u6362\u540E\u7684\u5411\u91CF T_i(x_j)\uFF08\u6CE8\u610F\u529B\u3001\u6B8B\u5DEE\u548C\u5C42\u5F52\u4E00\u5316\uFF09\u4E0E\u8BE5\u5757\u8F93\u51FA y_i \u7684 L1 \u8DDD\u79BB\u6709\u591A\u8FD1\uFF0Cmax(0, \u2016y_i\u2016\u2081 \u2212 \u2016y_i \u2212 T_i(x_j)\u2016\u2081)\uFF0C\u6309\u884C\u5F52\u4E00\u5316\u3002",
  "Ferrando et al. (2023): each input token's signed contribution to the target logit, through every layer's attention, tracked back to the input tokens with the ALTI rollout. Decoders with a language-model head.": "Ferrando \u7B49\uFF082023\uFF09\uFF1A\u6BCF\u4E2A\u8F93\u5165 token \u5BF9\u76EE\u6807 logit \u7684\u5E26\u7B26\u53F7\u8D21\u732E\uFF0C\u7ECF\u8FC7\u6BCF\u5C42\u7684\u6CE8\u610F\u529B\uFF0C\u7528 ALTI \u5C55\u5F00\u8FFD\u6EAF\u56DE\u8F93\u5165 token\u3002\u9002\u7528\u4E8E\u5E26\u8BED\u8A00\u6A21\u578B\u5934\u7684\u89E3\u7801\u5668\u3002",
  "First token row shown": "\u663E\u793A\u7684\u7B2C\u4E00\u884C token",
  "Flow, receptive-field normalised": "\u6CE8\u610F\u529B\u6D41\uFF0C\u611F\u53D7\u91CE\u5F52\u4E00\u5316",
  "Follows attention through all layers up to this one, counting the residual connection as half of each step. An edge from an input token on the left to a token on the right after this layer means: that share of the right token traces back to the input token; the colour goes from pale (little) to dark (the most; the legend gives the scale). Definition: R_l = (0.5\xB7\u0100_l + 0.5\xB7I) \xB7 \u2026 \xB7 (0.5\xB7\u0100_1 + 0.5\xB7I), with \u0100 the head-averaged attention and I the identity.": "\u6CBF\u7740\u6CE8\u610F\u529B\u7A7F\u8FC7\u5230\u8FD9\u4E00\u5C42\u4E3A\u6B62\u7684\u6240\u6709\u5C42\uFF0C\u628A\u6B8B\u5DEE\u8FDE\u63A5\u7B97\u4F5C\u6BCF\u4E00\u6B65\u7684\u4E00\u534A\u3002\u4ECE\u5DE6\u8FB9\u4E00\u4E2A\u8F93\u5165 token \u5230\u8FD9\u4E00\u5C42\u4E4B\u540E\u53F3\u8FB9\u4E00\u4E2A token \u7684\u8FB9\u8868\u793A\uFF1A\u53F3\u8FB9\u7684 token \u6709\u8FD9\u4E48\u5927\u7684\u4EFD\u989D\u53EF\u8FFD\u6EAF\u5230\u8FD9\u4E2A\u8F93\u5165 token\uFF1B\u989C\u8272\u4ECE\u6D45\uFF08\u5C11\uFF09\u5230\u6DF1\uFF08\u6700\u591A\uFF1B\u8272\u9636\u89C1\u56FE\u4F8B\uFF09\u3002\u5B9A\u4E49\uFF1AR_l = (0.5\xB7\u0100_l + 0.5\xB7I) \xB7 \u2026 \xB7 (0.5\xB7\u0100_1 + 0.5\xB7I)\uFF0C\u5176\u4E2D \u0100 \u662F\u5404\u5934\u5E73\u5747\u7684\u6CE8\u610F\u529B\uFF0CI \u662F\u5355\u4F4D\u77E9\u9635\u3002",
  "Follows the layer maps from the input through the encoder and across cross-attention into the decoder. An edge from an input token (left: source and target tokens) to a token after this layer (right) is the share of that token tracing back to the input token; dark is the most. Definition: J_l = M_l \xB7 \u2026 \xB7 M_1, the product of the layer maps (docs/methods.md \xA72.7).": "\u4ECE\u8F93\u5165\u5F00\u59CB\u6CBF\u7740\u5C42\u6620\u5C04\u7A7F\u8FC7\u7F16\u7801\u5668\uFF0C\u518D\u7ECF\u4EA4\u53C9\u6CE8\u610F\u529B\u8FDB\u5165\u89E3\u7801\u5668\u3002\u4ECE\u4E00\u4E2A\u8F93\u5165 token\uFF08\u5DE6\uFF1A\u6E90\u548C\u76EE\u6807 token\uFF09\u5230\u8FD9\u4E00\u5C42\u4E4B\u540E\u4E00\u4E2A token\uFF08\u53F3\uFF09\u7684\u8FB9\uFF0C\u662F\u540E\u8005\u53EF\u8FFD\u6EAF\u5230\u8FD9\u4E2A\u8F93\u5165 token \u7684\u4EFD\u989D\uFF1B\u8D8A\u6DF1\u8D8A\u591A\u3002\u5B9A\u4E49\uFF1AJ_l = M_l \xB7 \u2026 \xB7 M_1\uFF0C\u5C42\u6620\u5C04\u7684\u4E58\u79EF\uFF08docs/methods.md \xA72.7\uFF09\u3002",
  GlobEnc: "GlobEnc",
  "GlobEnc (global encoder attribution) extends the norm-based view over the whole encoder block: attention, residual and both layer norms (the feed-forward network is skipped). An edge means: that share of the right token's block output comes from the left token; the colour goes from pale (little) to dark (the most; the legend gives the scale). Definition: M[i, j] = \u2016LN2_i(LN1_i(\u03A3_h A^h[i, j]\xB7f^h(x_j) + 1[i = j]\xB7x_i) + \u2026)\u2016, rows normalised.": "GlobEnc\uFF08\u5168\u5C40\u7F16\u7801\u5668\u5F52\u56E0\uFF09\u628A\u57FA\u4E8E\u8303\u6570\u7684\u89C6\u89D2\u6269\u5C55\u5230\u6574\u4E2A\u7F16\u7801\u5668\u5757\uFF1A\u6CE8\u610F\u529B\u3001\u6B8B\u5DEE\u548C\u4E24\u4E2A\u5C42\u5F52\u4E00\u5316\uFF08\u7565\u53BB\u524D\u9988\u7F51\u7EDC\uFF09\u3002\u4E00\u6761\u8FB9\u8868\u793A\uFF1A\u53F3\u8FB9 token \u7684\u5757\u8F93\u51FA\u4E2D\u6709\u8FD9\u4E48\u5927\u7684\u4EFD\u989D\u6765\u81EA\u5DE6\u8FB9\u7684 token\uFF1B\u989C\u8272\u4ECE\u6D45\uFF08\u5C11\uFF09\u5230\u6DF1\uFF08\u6700\u591A\uFF1B\u8272\u9636\u89C1\u56FE\u4F8B\uFF09\u3002\u5B9A\u4E49\uFF1AM[i, j] = \u2016LN2_i(LN1_i(\u03A3_h A^h[i, j]\xB7f^h(x_j) + 1[i = j]\xB7x_i) + \u2026)\u2016\uFF0C\u6309\u884C\u5F52\u4E00\u5316\u3002",
  "GlobEnc composed: the maps multiplied through the layers, with no added identity (the residual is inside each map). How much of each input token reaches each position after this layer.": "GlobEnc\u7684\u7EC4\u5408\uFF1A\u628A\u5404\u5C42\u6620\u5C04\u9010\u5C42\u76F8\u4E58\uFF0C\u4E0D\u53E6\u52A0\u5355\u4F4D\u77E9\u9635\uFF08\u6B8B\u5DEE\u5DF2\u5728\u6BCF\u4E2A\u6620\u5C04\u4E4B\u5185\uFF09\u3002\u6BCF\u4E2A\u8F93\u5165 token \u6709\u591A\u5C11\u5230\u8FBE\u8FD9\u4E00\u5C42\u4E4B\u540E\u7684\u6BCF\u4E2A\u4F4D\u7F6E\u3002",
  "GlobEnc, rolled out": "GlobEnc\uFF0C\u5C55\u5F00",
  "Gradient or blank-out scores of each token for the chosen target": "\u6BCF\u4E2A token \u5BF9\u6240\u9009\u76EE\u6807\u7684\u68AF\u5EA6\u5206\u6570\u6216\u906E\u76D6\u5206\u6570",
  Gradients: "\u68AF\u5EA6",
  Head: "\u5934",
  "Hidden-state attribution (gradients)": "\u9690\u72B6\u6001\u5F52\u56E0\uFF08\u68AF\u5EA6\uFF09",
  "Hide edges whose weight is below this": "\u9690\u85CF\u6743\u91CD\u4F4E\u4E8E\u8FD9\u4E2A\u503C\u7684\u8FB9",
  "How much of each input token (source and target) reaches each position after this layer: the layer maps multiplied from the input (docs/methods.md \xA72.7). After the last decoder layer, a target row splits between the source tokens and the target tokens before it.": "\u6BCF\u4E2A\u8F93\u5165 token\uFF08\u6E90\u548C\u76EE\u6807\uFF09\u6709\u591A\u5C11\u5230\u8FBE\u8FD9\u4E00\u5C42\u4E4B\u540E\u7684\u6BCF\u4E2A\u4F4D\u7F6E\uFF1A\u4ECE\u8F93\u5165\u5F00\u59CB\u628A\u5C42\u6620\u5C04\u76F8\u4E58\uFF08docs/methods.md \xA72.7\uFF09\u3002\u6700\u540E\u4E00\u4E2A\u89E3\u7801\u5668\u5C42\u4E4B\u540E\uFF0C\u4E00\u4E2A\u76EE\u6807\u884C\u7684\u4EFD\u989D\u5206\u5728\u6E90 token \u548C\u5B83\u4E4B\u524D\u7684\u76EE\u6807 token \u4E4B\u95F4\u3002",
  "Input (layer 0)": "\u8F93\u5165\uFF08\u7B2C 0 \u5C42\uFF09",
  "Keep only the attention edges above the threshold (the box \u201CEdge if weight >\u201D) and forget their weights. An edge from an input token on the left to a token on the right after this layer means: at least one path of such edges, one per layer, leads from the input to it; the number (a whole number) is how many paths there are, and the colour grows with it. The whole-model view draws the 0/1 graph being counted. Definition: P_l = B_l \xB7 B_(l\u22121) \xB7 \u2026 \xB7 B_1, with B_k = 1[\u0100_k > threshold] the binarised head-averaged attention of layer k.": "\u53EA\u4FDD\u7559\u8D85\u8FC7\u9608\u503C\uFF08\u201C\u6709\u8FB9\uFF0C\u82E5\u6743\u91CD >\u201D\u4E00\u680F\uFF09\u7684\u6CE8\u610F\u529B\u8FB9\uFF0C\u5E76\u5FD8\u6389\u5B83\u4EEC\u7684\u6743\u91CD\u3002\u4ECE\u5DE6\u8FB9\u4E00\u4E2A\u8F93\u5165 token \u5230\u8FD9\u4E00\u5C42\u4E4B\u540E\u53F3\u8FB9\u4E00\u4E2A token \u7684\u8FB9\u8868\u793A\uFF1A\u81F3\u5C11\u6709\u4E00\u6761\u7531\u8FD9\u79CD\u8FB9\u7EC4\u6210\u3001\u6BCF\u5C42\u4E00\u6761\u7684\u8DEF\u5F84\u4ECE\u8F93\u5165\u901A\u5411\u5B83\uFF1B\u6570\u5B57\uFF08\u6574\u6570\uFF09\u662F\u8DEF\u5F84\u7684\u6761\u6570\uFF0C\u989C\u8272\u968F\u4E4B\u52A0\u6DF1\u3002\u6574\u4E2A\u6A21\u578B\u89C6\u56FE\u753B\u7684\u5C31\u662F\u88AB\u8BA1\u6570\u7684 0/1 \u56FE\u3002\u5B9A\u4E49\uFF1AP_l = B_l \xB7 B_(l\u22121) \xB7 \u2026 \xB7 B_1\uFF0C\u5176\u4E2D B_k = 1[\u0100_k > \u9608\u503C] \u662F\u7B2C k \u5C42\u4E8C\u503C\u5316\u7684\u5404\u5934\u5E73\u5747\u6CE8\u610F\u529B\u3002",
  "Kobayashi et al. (2020): \u2016\u03A3_h A^h_ij f^h(x_j)\u2016, the size of what token j's value vectors actually add to token i through the heads and the output projection, rows normalised. Accounts for values; no residual.": "Kobayashi \u7B49\uFF082020\uFF09\uFF1A\u2016\u03A3_h A^h_ij f^h(x_j)\u2016\uFF0C\u5373 token j \u7684\u503C\u5411\u91CF\u7ECF\u8FC7\u5404\u5934\u548C\u8F93\u51FA\u6295\u5F71\u5B9E\u9645\u52A0\u5230 token i \u4E0A\u7684\u91CF\u7684\u5927\u5C0F\uFF0C\u6309\u884C\u5F52\u4E00\u5316\u3002\u8003\u8651\u4E86\u503C\u5411\u91CF\uFF1B\u4E0D\u542B\u6B8B\u5DEE\u3002",
  "Kobayashi et al. (2021): the norm of each token's share of the attention block's output with the residual connection and the first layer norm (linearised at the receiving token's own scale), rows normalised. The residual keeps much of each token in place.": "Kobayashi \u7B49\uFF082021\uFF09\uFF1A\u6BCF\u4E2A token \u5728\u6CE8\u610F\u529B\u5757\u8F93\u51FA\uFF08\u542B\u6B8B\u5DEE\u8FDE\u63A5\u548C\u7B2C\u4E00\u4E2A\u5C42\u5F52\u4E00\u5316\uFF0C\u5728\u63A5\u6536 token \u81EA\u8EAB\u7684\u5C3A\u5EA6\u4E0A\u7EBF\u6027\u5316\uFF09\u4E2D\u6240\u5360\u4EFD\u989D\u7684\u8303\u6570\uFF0C\u6309\u884C\u5F52\u4E00\u5316\u3002\u6B8B\u5DEE\u8BA9\u6BCF\u4E2A token \u7684\u5F88\u5927\u4E00\u90E8\u5206\u7559\u5728\u539F\u5904\u3002",
  Layer: "\u5C42",
  "Layer maps (attention + residual)": "\u5C42\u6620\u5C04\uFF08\u6CE8\u610F\u529B + \u6B8B\u5DEE\uFF09",
  "Like norm-based attention, but also counts the residual connection (each token keeps itself) and the layer norm (LN) after it. An edge means: that share of the right token's output of the attention block comes from the left token; the diagonal is usually large; the colour goes from pale (little) to dark (the most; the legend gives the scale). Definition: M[i, j] = \u2016LN_i(\u03A3_h A^h[i, j]\xB7f^h(x_j) + 1[i = j]\xB7x_i)\u2016, rows normalised, LN linearised at token i.": "\u4E0E\u57FA\u4E8E\u8303\u6570\u7684\u6CE8\u610F\u529B\u76F8\u4F3C\uFF0C\u4F46\u8FD8\u8BA1\u5165\u6B8B\u5DEE\u8FDE\u63A5\uFF08\u6BCF\u4E2A token \u4FDD\u7559\u81EA\u8EAB\uFF09\u548C\u5B83\u4E4B\u540E\u7684\u5C42\u5F52\u4E00\u5316\uFF08LN\uFF09\u3002\u4E00\u6761\u8FB9\u8868\u793A\uFF1A\u53F3\u8FB9 token \u7684\u6CE8\u610F\u529B\u5757\u8F93\u51FA\u4E2D\u6709\u8FD9\u4E48\u5927\u7684\u4EFD\u989D\u6765\u81EA\u5DE6\u8FB9\u7684 token\uFF1B\u5BF9\u89D2\u7EBF\u901A\u5E38\u5F88\u5927\uFF1B\u989C\u8272\u4ECE\u6D45\uFF08\u5C11\uFF09\u5230\u6DF1\uFF08\u6700\u591A\uFF1B\u8272\u9636\u89C1\u56FE\u4F8B\uFF09\u3002\u5B9A\u4E49\uFF1AM[i, j] = \u2016LN_i(\u03A3_h A^h[i, j]\xB7f^h(x_j) + 1[i = j]\xB7x_i)\u2016\uFF0C\u6309\u884C\u5F52\u4E00\u5316\uFF0CLN \u5728 token i \u5904\u7EBF\u6027\u5316\u3002",
  Method: "\u65B9\u6CD5",
  "Min weight": "\u6700\u5C0F\u6743\u91CD",
  "Modarressi et al. (2022): the norm of each token's share of the whole encoder block's output (attention, residual and both layer norms; the feed-forward network skipped), rows normalised.": "Modarressi \u7B49\uFF082022\uFF09\uFF1A\u6BCF\u4E2A token \u5728\u6574\u4E2A\u7F16\u7801\u5668\u5757\u8F93\u51FA\uFF08\u6CE8\u610F\u529B\u3001\u6B8B\u5DEE\u548C\u4E24\u4E2A\u5C42\u5F52\u4E00\u5316\uFF1B\u7565\u53BB\u524D\u9988\u7F51\u7EDC\uFF09\u4E2D\u6240\u5360\u4EFD\u989D\u7684\u8303\u6570\uFF0C\u6309\u884C\u5F52\u4E00\u5316\u3002",
  "Mohebbi et al. (2023): re-run each layer with token j's value vectors set to zero (attention weights kept) and measure how far each token's output moves, 1 \u2212 cos; rows normalised.": "Mohebbi \u7B49\uFF082023\uFF09\uFF1A\u628A token j \u7684\u503C\u5411\u91CF\u7F6E\u96F6\uFF08\u6CE8\u610F\u529B\u6743\u91CD\u4E0D\u53D8\uFF09\u540E\u91CD\u65B0\u8FD0\u884C\u6BCF\u4E00\u5C42\uFF0C\u7528 1 \u2212 cos \u8861\u91CF\u6BCF\u4E2A token \u7684\u8F93\u51FA\u79FB\u52A8\u4E86\u591A\u5C11\uFF1B\u6309\u884C\u5F52\u4E00\u5316\u3002",
  "No explanation is available for this method.": "\u8FD9\u4E2A\u65B9\u6CD5\u6CA1\u6709\u8BF4\u660E\u3002",
  "Norm-based attention": "\u57FA\u4E8E\u8303\u6570\u7684\u6CE8\u610F\u529B",
  "Norm-based attention composed: 0.5\xB7M + 0.5\xB7I multiplied through the layers (the map holds no residual). How much of each input token reaches each position after this layer.": "\u57FA\u4E8E\u8303\u6570\u7684\u6CE8\u610F\u529B\u7684\u7EC4\u5408\uFF1A\u628A 0.5\xB7M + 0.5\xB7I \u9010\u5C42\u76F8\u4E58\uFF08\u6620\u5C04\u4E2D\u4E0D\u542B\u6B8B\u5DEE\uFF09\u3002\u6BCF\u4E2A\u8F93\u5165 token \u6709\u591A\u5C11\u5230\u8FBE\u8FD9\u4E00\u5C42\u4E4B\u540E\u7684\u6BCF\u4E2A\u4F4D\u7F6E\u3002",
  "Norm-based attention, rolled out": "\u57FA\u4E8E\u8303\u6570\u7684\u6CE8\u610F\u529B\uFF0C\u5C55\u5F00",
  "Norm: attention + residual + LN": "\u8303\u6570\uFF1A\u6CE8\u610F\u529B + \u6B8B\u5DEE + LN",
  "Norm: attention + residual + LN composed: the maps multiplied through the layers, with no added identity (the residual is inside each map). How much of each input token reaches each position after this layer.": "\u8303\u6570\uFF1A\u6CE8\u610F\u529B + \u6B8B\u5DEE + LN\u7684\u7EC4\u5408\uFF1A\u628A\u5404\u5C42\u6620\u5C04\u9010\u5C42\u76F8\u4E58\uFF0C\u4E0D\u53E6\u52A0\u5355\u4F4D\u77E9\u9635\uFF08\u6B8B\u5DEE\u5DF2\u5728\u6BCF\u4E2A\u6620\u5C04\u4E4B\u5185\uFF09\u3002\u6BCF\u4E2A\u8F93\u5165 token \u6709\u591A\u5C11\u5230\u8FBE\u8FD9\u4E00\u5C42\u4E4B\u540E\u7684\u6BCF\u4E2A\u4F4D\u7F6E\u3002",
  "Norm: attention + residual + LN, rolled out": "\u8303\u6570\uFF1A\u6CE8\u610F\u529B + \u6B8B\u5DEE + LN\uFF0C\u5C55\u5F00",
  "One colour scale for both panes: the largest edge is {largest} ({a}: {max}, {b}: {maxB})": "\u4E24\u680F\u5171\u7528\u4E00\u4E2A\u8272\u9636\uFF1A\u6700\u5927\u7684\u8FB9\u662F {largest}\uFF08{a}\uFF1A{max}\uFF0C{b}\uFF1A{maxB}\uFF09",
  "Path counts (binarised graph)": "\u8DEF\u5F84\u8BA1\u6570\uFF08\u4E8C\u503C\u5316\u56FE\uFF09",
  "Pinned \xB7 ": "\u5DF2\u56FA\u5B9A \xB7 ",
  "Point at a cell to name it; click it to open that layer and head.": "\u6307\u5411\u4E00\u683C\u53EF\u770B\u5B83\u7684\u540D\u5B57\uFF1B\u70B9\u51FB\u5B83\u5373\u53EF\u6253\u5F00\u90A3\u4E00\u5C42\u548C\u90A3\u4E2A\u5934\u3002",
  "Products of the 0/1 matrices 1[\u0100 > threshold] (threshold set in the view): how many paths lead from each input token to each token after this layer. Only binary matrices count paths; products of weighted attention matrices have no such meaning.": "0/1 \u77E9\u9635 1[\u0100 > \u9608\u503C] \u7684\u4E58\u79EF\uFF08\u9608\u503C\u5728\u89C6\u56FE\u4E2D\u8BBE\u7F6E\uFF09\uFF1A\u4ECE\u6BCF\u4E2A\u8F93\u5165 token \u5230\u8FD9\u4E00\u5C42\u4E4B\u540E\u7684\u6BCF\u4E2A token \u6709\u591A\u5C11\u6761\u8DEF\u5F84\u3002\u53EA\u6709\u4E8C\u503C\u77E9\u9635\u7684\u4E58\u79EF\u624D\u662F\u8DEF\u5F84\u8BA1\u6570\uFF1B\u52A0\u6743\u6CE8\u610F\u529B\u77E9\u9635\u7684\u4E58\u79EF\u6CA1\u6709\u8FD9\u79CD\u542B\u4E49\u3002",
  "Raw attention": "\u539F\u59CB\u6CE8\u610F\u529B",
  "Raw attention with the part removed that has no effect on the layer's output: some weight patterns are cancelled by the value vectors and change nothing. An edge means: that much of the right token's attention to the left token actually reaches its output. Red edges are positive, blue negative. Definition: A_eff = A \u2212 (the projection of each row of A onto the null space of (V\xB7W_O)\u1D40), with V the values and W_O the head's output projection.": "\u53BB\u6389\u4E86\u5BF9\u8FD9\u4E00\u5C42\u8F93\u51FA\u6CA1\u6709\u5F71\u54CD\u7684\u90E8\u5206\u7684\u539F\u59CB\u6CE8\u610F\u529B\uFF1A\u6709\u4E9B\u6743\u91CD\u6A21\u5F0F\u4F1A\u88AB\u503C\u5411\u91CF\u62B5\u6D88\uFF0C\u4EC0\u4E48\u4E5F\u4E0D\u6539\u53D8\u3002\u4E00\u6761\u8FB9\u8868\u793A\uFF1A\u53F3\u8FB9 token \u5BF9\u5DE6\u8FB9 token \u7684\u6CE8\u610F\u529B\u4E2D\u6709\u8FD9\u4E48\u591A\u771F\u6B63\u5230\u8FBE\u4E86\u5B83\u7684\u8F93\u51FA\u3002\u7EA2\u8272\u7684\u8FB9\u4E3A\u6B63\uFF0C\u84DD\u8272\u4E3A\u8D1F\u3002\u5B9A\u4E49\uFF1AA_eff = A \u2212\uFF08A \u7684\u6BCF\u4E00\u884C\u5728 (V\xB7W_O)\u1D40 \u96F6\u7A7A\u95F4\u4E0A\u7684\u6295\u5F71\uFF09\uFF0C\u5176\u4E2D V \u662F\u503C\u5411\u91CF\uFF0CW_O \u662F\u8BE5\u5934\u7684\u8F93\u51FA\u6295\u5F71\u3002",
  "Re-runs the layer with the left token's value vectors set to zero (the attention weights kept) and measures how much the right token's output changes. An edge means: that share of the right token's change comes from removing the left token; the colour goes from pale (little) to dark (the most; the legend gives the scale). Definition: M[i, j] = 1 \u2212 cos(y_i, y_i with the values of j zeroed), rows normalised.": "\u628A\u5DE6\u8FB9 token \u7684\u503C\u5411\u91CF\u7F6E\u96F6\uFF08\u6CE8\u610F\u529B\u6743\u91CD\u4E0D\u53D8\uFF09\u540E\u91CD\u65B0\u8FD0\u884C\u8FD9\u4E00\u5C42\uFF0C\u770B\u53F3\u8FB9 token \u7684\u8F93\u51FA\u53D8\u5316\u591A\u5C11\u3002\u4E00\u6761\u8FB9\u8868\u793A\uFF1A\u53F3\u8FB9 token \u7684\u53D8\u5316\u4E2D\u6709\u8FD9\u4E48\u5927\u7684\u4EFD\u989D\u6765\u81EA\u53BB\u6389\u5DE6\u8FB9\u7684 token\uFF1B\u989C\u8272\u4ECE\u6D45\uFF08\u5C11\uFF09\u5230\u6DF1\uFF08\u6700\u591A\uFF1B\u8272\u9636\u89C1\u56FE\u4F8B\uFF09\u3002\u5B9A\u4E49\uFF1AM[i, j] = 1 \u2212 cos(y_i, \u628A j \u7684\u503C\u5411\u91CF\u7F6E\u96F6\u540E\u7684 y_i)\uFF0C\u6309\u884C\u5F52\u4E00\u5316\u3002",
  "Red: {a} is larger; blue: {b} is larger; grey: equal (0 at the centre)": "\u7EA2\u8272\uFF1A{a}\u66F4\u5927\uFF1B\u84DD\u8272\uFF1A{b}\u66F4\u5927\uFF1B\u7070\u8272\uFF1A\u76F8\u7B49\uFF08\u4E2D\u5FC3\u4E3A 0\uFF09",
  "Rollout on effective attention: head-averaged, negative entries clipped, rows re-normalised (E1), then 0.5\xB7\u0100 + 0.5\xB7I multiplied through the layers. Clipping gives up exact output preservation.": "\u5728\u6709\u6548\u6CE8\u610F\u529B\u4E0A\u505A\u5C55\u5F00\uFF1A\u5404\u5934\u5E73\u5747\uFF0C\u8D1F\u503C\u622A\u65AD\uFF0C\u5404\u884C\u91CD\u65B0\u5F52\u4E00\u5316\uFF08E1\uFF09\uFF0C\u518D\u628A 0.5\xB7\u0100 + 0.5\xB7I \u9010\u5C42\u76F8\u4E58\u3002\u622A\u65AD\u4F1A\u5931\u53BB\u5BF9\u8F93\u51FA\u7684\u7CBE\u786E\u4FDD\u6301\u3002",
  "Rollout through cross-attention": "\u7ECF\u4EA4\u53C9\u6CE8\u610F\u529B\u7684\u5C55\u5F00",
  "Rollout, receptive-field normalised": "\u5C55\u5F00\uFF0C\u611F\u53D7\u91CE\u5F52\u4E00\u5316",
  "Row t (the target position) of the last layer's head-averaged A \u2299 \u2202y/\u2202A.": "\u6700\u540E\u4E00\u5C42\u5404\u5934\u5E73\u5747\u7684 A \u2299 \u2202y/\u2202A \u7684\u7B2C t \u884C\uFF08\u76EE\u6807\u4F4D\u7F6E\uFF09\u3002",
  "Selected: layer {layer}, head {head}. The {count} texts where its {statistic} is largest (each line: its value \xB7 the text); choose one to open it.": "\u5DF2\u9009\uFF1A\u7B2C {layer} \u5C42\uFF0C\u5934 {head}\u3002\u5B83\u7684 {statistic} \u6700\u5927\u7684 {count} \u4E2A\u6587\u672C\uFF08\u6BCF\u884C\uFF1A\u5B83\u7684\u503C \xB7 \u6587\u672C\uFF09\uFF1B\u9009\u4E00\u4E2A\u5373\u53EF\u6253\u5F00\u3002",
  "Selected: layer {layer}, head {head}. The {count} texts where its {statistic} is smallest (each line: its value \xB7 the text); choose one to open it.": "\u5DF2\u9009\uFF1A\u7B2C {layer} \u5C42\uFF0C\u5934 {head}\u3002\u5B83\u7684 {statistic} \u6700\u5C0F\u7684 {count} \u4E2A\u6587\u672C\uFF08\u6BCF\u884C\uFF1A\u5B83\u7684\u503C \xB7 \u6587\u672C\uFF09\uFF1B\u9009\u4E00\u4E2A\u5373\u53EF\u6253\u5F00\u3002",
  "Show or hide what the selected method draws, in plain words": "\u7528\u901A\u4FD7\u7684\u8BDD\u663E\u793A\u6216\u9690\u85CF\u6240\u9009\u65B9\u6CD5\u753B\u7684\u662F\u4EC0\u4E48",
  "Side by side on one colour scale, or the difference of the two per edge": "\u4EE5\u540C\u4E00\u8272\u9636\u5E76\u6392\u663E\u793A\uFF0C\u6216\u663E\u793A\u4E24\u8005\u5728\u6BCF\u6761\u8FB9\u4E0A\u7684\u5DEE",
  "Smallest weight drawn": "\u753B\u51FA\u7684\u6700\u5C0F\u6743\u91CD",
  "Special tokens": "\u7279\u6B8A token",
  Statistic: "\u7EDF\u8BA1\u91CF",
  "Sundararajan et al. (2017): gradients integrated from a [MASK] baseline to each embedding, times the difference, summed over its dimensions; steps doubled until the completeness error is below 5%.": "Sundararajan \u7B49\uFF082017\uFF09\uFF1A\u6CBF\u4ECE [MASK] \u57FA\u7EBF\u5230\u6BCF\u4E2A\u8BCD\u5411\u91CF\u7684\u8DEF\u5F84\u79EF\u5206\u68AF\u5EA6\uFF0C\u4E58\u4EE5\u4E24\u8005\u4E4B\u5DEE\uFF0C\u518D\u5BF9\u5404\u7EF4\u6C42\u548C\uFF1B\u6B65\u6570\u52A0\u500D\u76F4\u5230\u5B8C\u5907\u6027\u8BEF\u5DEE\u4F4E\u4E8E 5%\u3002",
  Target: "\u76EE\u6807",
  "Target to explain": "\u8981\u89E3\u91CA\u7684\u76EE\u6807",
  "Teaching overlay: size each token's dot by its in-degree (the right column's row sums) or out-degree (the left column's column sums)": "\u6559\u5B66\u53E0\u52A0\uFF1A\u6309\u5165\u5EA6\uFF08\u53F3\u5217\u7684\u884C\u548C\uFF09\u6216\u51FA\u5EA6\uFF08\u5DE6\u5217\u7684\u5217\u548C\uFF09\u51B3\u5B9A\u6BCF\u4E2A token \u5706\u70B9\u7684\u5927\u5C0F",
  "Text {index} at layer {layer}, head {head}.": "\u6587\u672C {index}\uFF0C\u7B2C {layer} \u5C42\uFF0C\u5934 {head}\u3002",
  Texts: "\u6587\u672C",
  "The 0/1 matrix 1[\u0100 > threshold] of each layer (threshold set in the view): an edge where the head-averaged attention exceeds the threshold. The graph whose paths the path counts count.": "\u6BCF\u5C42\u7684 0/1 \u77E9\u9635 1[\u0100 > \u9608\u503C]\uFF08\u9608\u503C\u5728\u89C6\u56FE\u4E2D\u8BBE\u7F6E\uFF09\uFF1A\u5404\u5934\u5E73\u5747\u6CE8\u610F\u529B\u8D85\u8FC7\u9608\u503C\u7684\u5730\u65B9\u6709\u4E00\u6761\u8FB9\u3002\u8DEF\u5F84\u8BA1\u6570\u6570\u7684\u5C31\u662F\u8FD9\u5F20\u56FE\u4E0A\u7684\u8DEF\u5F84\u3002",
  "The L2 norm of the gradient of the target with respect to each token's word embedding.": "\u76EE\u6807\u5BF9\u6BCF\u4E2A token \u8BCD\u5411\u91CF\u7684\u68AF\u5EA6\u7684 L2 \u8303\u6570\u3002",
  "The gradient with respect to each word embedding times the embedding, summed over its dimensions.": "\u5BF9\u6BCF\u4E2A\u8BCD\u5411\u91CF\u7684\u68AF\u5EA6\u4E58\u4EE5\u8BE5\u8BCD\u5411\u91CF\uFF0C\u518D\u5BF9\u5404\u7EF4\u6C42\u548C\u3002",
  "Every attention weight of a layer as one graph: in an encoder layer, the source tokens' attention to each other; in a decoder layer, each target position's cross-attention to the source and self-attention to the target before it, together. Tokens a layer does not touch keep their state: a horizontal edge of weight 1. Definition: encoder layer \u0100_enc on the source rows; decoder layer [C\u0304 | \u0100_self] on the target rows (head means).": "\u628A\u4E00\u5C42\u7684\u5168\u90E8\u6CE8\u610F\u529B\u6743\u91CD\u753B\u6210\u4E00\u5F20\u56FE\uFF1A\u7F16\u7801\u5668\u5C42\u4E2D\u662F\u6E90 token \u4E4B\u95F4\u7684\u6CE8\u610F\u529B\uFF1B\u89E3\u7801\u5668\u5C42\u4E2D\u662F\u6BCF\u4E2A\u76EE\u6807\u4F4D\u7F6E\u5BF9\u6E90\u7684\u4EA4\u53C9\u6CE8\u610F\u529B\u4E0E\u5BF9\u5B83\u4E4B\u524D\u76EE\u6807\u7684\u81EA\u6CE8\u610F\u529B\u5408\u5728\u4E00\u8D77\u3002\u4E00\u5C42\u4E0D\u89E6\u53CA\u7684 token \u4FDD\u6301\u539F\u72B6\uFF1A\u4E00\u6761\u6743\u91CD\u4E3A 1 \u7684\u6C34\u5E73\u8FB9\u3002\u5B9A\u4E49\uFF1A\u7F16\u7801\u5668\u5C42\u5728\u6E90\u7684\u884C\u4E0A\u4E3A \u0100_enc\uFF1B\u89E3\u7801\u5668\u5C42\u5728\u76EE\u6807\u7684\u884C\u4E0A\u4E3A [C\u0304 | \u0100_self]\uFF08\u5404\u5934\u5E73\u5747\uFF09\u3002",
  "The input image, {rows}\xD7{cols} patches, coloured by {what}": "\u8F93\u5165\u56FE\u50CF\uFF0C{rows}\xD7{cols} \u4E2A\u56FE\u5757\uFF0C\u7740\u8272\u4F9D\u636E\uFF1A{what}",
  "The number the token scores explain: a logit, a similarity, or your own (w.set_target)": "token \u5206\u6570\u6240\u89E3\u91CA\u7684\u6570\uFF1A\u4E00\u4E2A logit\u3001\u4E00\u4E2A\u76F8\u4F3C\u5EA6\uFF0C\u6216\u4F60\u81EA\u5DF1\u7684\u76EE\u6807\uFF08w.set_target\uFF09",
  "The per-layer map (ALTI) followed through all layers up to this one. An edge from an input token on the left to a token on the right after this layer means: that share of the right token traces back to the input token; the colour goes from pale (little) to dark (the most; the legend gives the scale). Definition: R_l = M_l \xB7 \u2026 \xB7 M_1, with M the per-layer map (the residual is already inside it). The per-layer map: ALTI (aggregation of layer-wise token-to-token interactions) asks how close each token's contribution is to the right token's output: a contribution close to the output counts much. In one layer's map, an edge means: that share of the right token's block output is made by the left token. Definition: M[i, j] = max(0, \u2016y_i\u2016\u2081 \u2212 \u2016y_i \u2212 T_i(x_j)\u2016\u2081), rows normalised, with T_i(x_j) token j's transformed vector and y_i the output.": "\u6CBF\u7740\u6BCF\u5C42\u7684\u6620\u5C04\uFF08ALTI\uFF09\u7A7F\u8FC7\u5230\u8FD9\u4E00\u5C42\u4E3A\u6B62\u7684\u6240\u6709\u5C42\u3002\u4ECE\u5DE6\u8FB9\u4E00\u4E2A\u8F93\u5165 token \u5230\u8FD9\u4E00\u5C42\u4E4B\u540E\u53F3\u8FB9\u4E00\u4E2A token \u7684\u8FB9\u8868\u793A\uFF1A\u53F3\u8FB9\u7684 token \u6709\u8FD9\u4E48\u5927\u7684\u4EFD\u989D\u53EF\u8FFD\u6EAF\u5230\u8FD9\u4E2A\u8F93\u5165 token\uFF1B\u989C\u8272\u4ECE\u6D45\uFF08\u5C11\uFF09\u5230\u6DF1\uFF08\u6700\u591A\uFF1B\u8272\u9636\u89C1\u56FE\u4F8B\uFF09\u3002\u5B9A\u4E49\uFF1AR_l = M_l \xB7 \u2026 \xB7 M_1\uFF0C\u5176\u4E2D M \u662F\u6BCF\u5C42\u7684\u6620\u5C04\uFF08\u6B8B\u5DEE\u5DF2\u5728\u5176\u4E2D\uFF09\u3002 \u6BCF\u5C42\u7684\u6620\u5C04\uFF1AALTI\uFF08\u9010\u5C42 token \u95F4\u76F8\u4E92\u4F5C\u7528\u7684\u805A\u5408\uFF09\u770B\u6BCF\u4E2A token \u7684\u8D21\u732E\u4E0E\u53F3\u8FB9 token \u7684\u8F93\u51FA\u6709\u591A\u63A5\u8FD1\uFF1A\u8D8A\u63A5\u8FD1\u8F93\u51FA\uFF0C\u8D21\u732E\u8D8A\u5927\u3002\u5728\u5355\u5C42\u7684\u6620\u5C04\u4E2D\uFF0C\u4E00\u6761\u8FB9\u8868\u793A\uFF1A\u53F3\u8FB9 token \u7684\u5757\u8F93\u51FA\u4E2D\u6709\u8FD9\u4E48\u5927\u7684\u4EFD\u989D\u7531\u5DE6\u8FB9\u7684 token \u6784\u6210\u3002\u5B9A\u4E49\uFF1AM[i, j] = max(0, \u2016y_i\u2016\u2081 \u2212 \u2016y_i \u2212 T_i(x_j)\u2016\u2081)\uFF0C\u6309\u884C\u5F52\u4E00\u5316\uFF0C\u5176\u4E2D T_i(x_j) \u662F token j \u53D8\u6362\u540E\u7684\u5411\u91CF\uFF0Cy_i \u662F\u8F93\u51FA\u3002",
  "The per-layer map (GlobEnc) followed through all layers up to this one. An edge from an input token on the left to a token on the right after this layer means: that share of the right token traces back to the input token; the colour goes from pale (little) to dark (the most; the legend gives the scale). Definition: R_l = M_l \xB7 \u2026 \xB7 M_1, with M the per-layer map (the residual is already inside it). The per-layer map: GlobEnc (global encoder attribution) extends the norm-based view over the whole encoder block: attention, residual and both layer norms (the feed-forward network is skipped). In one layer's map, an edge means: that share of the right token's block output comes from the left token. Definition: M[i, j] = \u2016LN2_i(LN1_i(\u03A3_h A^h[i, j]\xB7f^h(x_j) + 1[i = j]\xB7x_i) + \u2026)\u2016, rows normalised.": "\u6CBF\u7740\u6BCF\u5C42\u7684\u6620\u5C04\uFF08GlobEnc\uFF09\u7A7F\u8FC7\u5230\u8FD9\u4E00\u5C42\u4E3A\u6B62\u7684\u6240\u6709\u5C42\u3002\u4ECE\u5DE6\u8FB9\u4E00\u4E2A\u8F93\u5165 token \u5230\u8FD9\u4E00\u5C42\u4E4B\u540E\u53F3\u8FB9\u4E00\u4E2A token \u7684\u8FB9\u8868\u793A\uFF1A\u53F3\u8FB9\u7684 token \u6709\u8FD9\u4E48\u5927\u7684\u4EFD\u989D\u53EF\u8FFD\u6EAF\u5230\u8FD9\u4E2A\u8F93\u5165 token\uFF1B\u989C\u8272\u4ECE\u6D45\uFF08\u5C11\uFF09\u5230\u6DF1\uFF08\u6700\u591A\uFF1B\u8272\u9636\u89C1\u56FE\u4F8B\uFF09\u3002\u5B9A\u4E49\uFF1AR_l = M_l \xB7 \u2026 \xB7 M_1\uFF0C\u5176\u4E2D M \u662F\u6BCF\u5C42\u7684\u6620\u5C04\uFF08\u6B8B\u5DEE\u5DF2\u5728\u5176\u4E2D\uFF09\u3002 \u6BCF\u5C42\u7684\u6620\u5C04\uFF1AGlobEnc\uFF08\u5168\u5C40\u7F16\u7801\u5668\u5F52\u56E0\uFF09\u628A\u57FA\u4E8E\u8303\u6570\u7684\u89C6\u89D2\u6269\u5C55\u5230\u6574\u4E2A\u7F16\u7801\u5668\u5757\uFF1A\u6CE8\u610F\u529B\u3001\u6B8B\u5DEE\u548C\u4E24\u4E2A\u5C42\u5F52\u4E00\u5316\uFF08\u7565\u53BB\u524D\u9988\u7F51\u7EDC\uFF09\u3002\u5728\u5355\u5C42\u7684\u6620\u5C04\u4E2D\uFF0C\u4E00\u6761\u8FB9\u8868\u793A\uFF1A\u53F3\u8FB9 token \u7684\u5757\u8F93\u51FA\u4E2D\u6709\u8FD9\u4E48\u5927\u7684\u4EFD\u989D\u6765\u81EA\u5DE6\u8FB9\u7684 token\u3002\u5B9A\u4E49\uFF1AM[i, j] = \u2016LN2_i(LN1_i(\u03A3_h A^h[i, j]\xB7f^h(x_j) + 1[i = j]\xB7x_i) + \u2026)\u2016\uFF0C\u6309\u884C\u5F52\u4E00\u5316\u3002",
  "The per-layer map (Norm-based attention) followed through all layers up to this one. An edge from an input token on the left to a token on the right after this layer means: that share of the right token traces back to the input token; the colour goes from pale (little) to dark (the most; the legend gives the scale). Definition: R_l = (0.5\xB7M_l + 0.5\xB7I) \xB7 \u2026 \xB7 (0.5\xB7M_1 + 0.5\xB7I), with M the per-layer map and I the identity (half of each step is the residual, which the map leaves out). The per-layer map: Weighs attention by the size of what is actually passed: a large weight on a token with a tiny value vector moves little. In one layer's map, an edge means: that share of what this layer's attention adds to the right token comes from the left token. Definition: M[i, j] = \u2016\u03A3_h A^h[i, j] \xB7 f^h(x_j)\u2016, rows normalised, with f^h(x) = x\xB7W_V^h\xB7W_O^h the head's value and output projection.": "\u6CBF\u7740\u6BCF\u5C42\u7684\u6620\u5C04\uFF08\u57FA\u4E8E\u8303\u6570\u7684\u6CE8\u610F\u529B\uFF09\u7A7F\u8FC7\u5230\u8FD9\u4E00\u5C42\u4E3A\u6B62\u7684\u6240\u6709\u5C42\u3002\u4ECE\u5DE6\u8FB9\u4E00\u4E2A\u8F93\u5165 token \u5230\u8FD9\u4E00\u5C42\u4E4B\u540E\u53F3\u8FB9\u4E00\u4E2A token \u7684\u8FB9\u8868\u793A\uFF1A\u53F3\u8FB9\u7684 token \u6709\u8FD9\u4E48\u5927\u7684\u4EFD\u989D\u53EF\u8FFD\u6EAF\u5230\u8FD9\u4E2A\u8F93\u5165 token\uFF1B\u989C\u8272\u4ECE\u6D45\uFF08\u5C11\uFF09\u5230\u6DF1\uFF08\u6700\u591A\uFF1B\u8272\u9636\u89C1\u56FE\u4F8B\uFF09\u3002\u5B9A\u4E49\uFF1AR_l = (0.5\xB7M_l + 0.5\xB7I) \xB7 \u2026 \xB7 (0.5\xB7M_1 + 0.5\xB7I)\uFF0C\u5176\u4E2D M \u662F\u6BCF\u5C42\u7684\u6620\u5C04\uFF0CI \u662F\u5355\u4F4D\u77E9\u9635\uFF08\u6BCF\u4E00\u6B65\u7684\u4E00\u534A\u662F\u6B8B\u5DEE\uFF0C\u6620\u5C04\u4E2D\u6CA1\u6709\u5B83\uFF09\u3002 \u6BCF\u5C42\u7684\u6620\u5C04\uFF1A\u6309\u5B9E\u9645\u4F20\u9012\u7684\u91CF\u7684\u5927\u5C0F\u6765\u8861\u91CF\u6CE8\u610F\u529B\uFF1A\u7ED9\u4E00\u4E2A\u503C\u5411\u91CF\u5F88\u5C0F\u7684 token \u518D\u5927\u7684\u6743\u91CD\u4E5F\u4F20\u4E0D\u4E86\u591A\u5C11\u3002\u5728\u5355\u5C42\u7684\u6620\u5C04\u4E2D\uFF0C\u4E00\u6761\u8FB9\u8868\u793A\uFF1A\u8FD9\u4E00\u5C42\u6CE8\u610F\u529B\u52A0\u5230\u53F3\u8FB9 token \u4E0A\u7684\u91CF\u4E2D\u6709\u8FD9\u4E48\u5927\u7684\u4EFD\u989D\u6765\u81EA\u5DE6\u8FB9\u7684 token\u3002\u5B9A\u4E49\uFF1AM[i, j] = \u2016\u03A3_h A^h[i, j] \xB7 f^h(x_j)\u2016\uFF0C\u6309\u884C\u5F52\u4E00\u5316\uFF0C\u5176\u4E2D f^h(x) = x\xB7W_V^h\xB7W_O^h \u662F\u8BE5\u5934\u7684\u503C\u6295\u5F71\u548C\u8F93\u51FA\u6295\u5F71\u3002",
  "The per-layer map (Norm: attention + residual + LN) followed through all layers up to this one. An edge from an input token on the left to a token on the right after this layer means: that share of the right token traces back to the input token; the colour goes from pale (little) to dark (the most; the legend gives the scale). Definition: R_l = M_l \xB7 \u2026 \xB7 M_1, with M the per-layer map (the residual is already inside it). The per-layer map: Like norm-based attention, but also counts the residual connection (each token keeps itself) and the layer norm (LN) after it. In one layer's map, an edge means: that share of the right token's output of the attention block comes from the left token; the diagonal is usually large. Definition: M[i, j] = \u2016LN_i(\u03A3_h A^h[i, j]\xB7f^h(x_j) + 1[i = j]\xB7x_i)\u2016, rows normalised, LN linearised at token i.": "\u6CBF\u7740\u6BCF\u5C42\u7684\u6620\u5C04\uFF08\u8303\u6570\uFF1A\u6CE8\u610F\u529B + \u6B8B\u5DEE + LN\uFF09\u7A7F\u8FC7\u5230\u8FD9\u4E00\u5C42\u4E3A\u6B62\u7684\u6240\u6709\u5C42\u3002\u4ECE\u5DE6\u8FB9\u4E00\u4E2A\u8F93\u5165 token \u5230\u8FD9\u4E00\u5C42\u4E4B\u540E\u53F3\u8FB9\u4E00\u4E2A token \u7684\u8FB9\u8868\u793A\uFF1A\u53F3\u8FB9\u7684 token \u6709\u8FD9\u4E48\u5927\u7684\u4EFD\u989D\u53EF\u8FFD\u6EAF\u5230\u8FD9\u4E2A\u8F93\u5165 token\uFF1B\u989C\u8272\u4ECE\u6D45\uFF08\u5C11\uFF09\u5230\u6DF1\uFF08\u6700\u591A\uFF1B\u8272\u9636\u89C1\u56FE\u4F8B\uFF09\u3002\u5B9A\u4E49\uFF1AR_l = M_l \xB7 \u2026 \xB7 M_1\uFF0C\u5176\u4E2D M \u662F\u6BCF\u5C42\u7684\u6620\u5C04\uFF08\u6B8B\u5DEE\u5DF2\u5728\u5176\u4E2D\uFF09\u3002 \u6BCF\u5C42\u7684\u6620\u5C04\uFF1A\u4E0E\u57FA\u4E8E\u8303\u6570\u7684\u6CE8\u610F\u529B\u76F8\u4F3C\uFF0C\u4F46\u8FD8\u8BA1\u5165\u6B8B\u5DEE\u8FDE\u63A5\uFF08\u6BCF\u4E2A token \u4FDD\u7559\u81EA\u8EAB\uFF09\u548C\u5B83\u4E4B\u540E\u7684\u5C42\u5F52\u4E00\u5316\uFF08LN\uFF09\u3002\u5728\u5355\u5C42\u7684\u6620\u5C04\u4E2D\uFF0C\u4E00\u6761\u8FB9\u8868\u793A\uFF1A\u53F3\u8FB9 token \u7684\u6CE8\u610F\u529B\u5757\u8F93\u51FA\u4E2D\u6709\u8FD9\u4E48\u5927\u7684\u4EFD\u989D\u6765\u81EA\u5DE6\u8FB9\u7684 token\uFF1B\u5BF9\u89D2\u7EBF\u901A\u5E38\u5F88\u5927\u3002\u5B9A\u4E49\uFF1AM[i, j] = \u2016LN_i(\u03A3_h A^h[i, j]\xB7f^h(x_j) + 1[i = j]\xB7x_i)\u2016\uFF0C\u6309\u884C\u5F52\u4E00\u5316\uFF0CLN \u5728 token i \u5904\u7EBF\u6027\u5316\u3002",
  "The per-layer map (Value zeroing) followed through all layers up to this one. An edge from an input token on the left to a token on the right after this layer means: that share of the right token traces back to the input token; the colour goes from pale (little) to dark (the most; the legend gives the scale). Definition: R_l = M_l \xB7 \u2026 \xB7 M_1, with M the per-layer map (the residual is already inside it). The per-layer map: Re-runs the layer with the left token's value vectors set to zero (the attention weights kept) and measures how much the right token's output changes. In one layer's map, an edge means: that share of the right token's change comes from removing the left token. Definition: M[i, j] = 1 \u2212 cos(y_i, y_i with the values of j zeroed), rows normalised.": "\u6CBF\u7740\u6BCF\u5C42\u7684\u6620\u5C04\uFF08\u503C\u7F6E\u96F6\uFF09\u7A7F\u8FC7\u5230\u8FD9\u4E00\u5C42\u4E3A\u6B62\u7684\u6240\u6709\u5C42\u3002\u4ECE\u5DE6\u8FB9\u4E00\u4E2A\u8F93\u5165 token \u5230\u8FD9\u4E00\u5C42\u4E4B\u540E\u53F3\u8FB9\u4E00\u4E2A token \u7684\u8FB9\u8868\u793A\uFF1A\u53F3\u8FB9\u7684 token \u6709\u8FD9\u4E48\u5927\u7684\u4EFD\u989D\u53EF\u8FFD\u6EAF\u5230\u8FD9\u4E2A\u8F93\u5165 token\uFF1B\u989C\u8272\u4ECE\u6D45\uFF08\u5C11\uFF09\u5230\u6DF1\uFF08\u6700\u591A\uFF1B\u8272\u9636\u89C1\u56FE\u4F8B\uFF09\u3002\u5B9A\u4E49\uFF1AR_l = M_l \xB7 \u2026 \xB7 M_1\uFF0C\u5176\u4E2D M \u662F\u6BCF\u5C42\u7684\u6620\u5C04\uFF08\u6B8B\u5DEE\u5DF2\u5728\u5176\u4E2D\uFF09\u3002 \u6BCF\u5C42\u7684\u6620\u5C04\uFF1A\u628A\u5DE6\u8FB9 token \u7684\u503C\u5411\u91CF\u7F6E\u96F6\uFF08\u6CE8\u610F\u529B\u6743\u91CD\u4E0D\u53D8\uFF09\u540E\u91CD\u65B0\u8FD0\u884C\u8FD9\u4E00\u5C42\uFF0C\u770B\u53F3\u8FB9 token \u7684\u8F93\u51FA\u53D8\u5316\u591A\u5C11\u3002\u5728\u5355\u5C42\u7684\u6620\u5C04\u4E2D\uFF0C\u4E00\u6761\u8FB9\u8868\u793A\uFF1A\u53F3\u8FB9 token \u7684\u53D8\u5316\u4E2D\u6709\u8FD9\u4E48\u5927\u7684\u4EFD\u989D\u6765\u81EA\u53BB\u6389\u5DE6\u8FB9\u7684 token\u3002\u5B9A\u4E49\uFF1AM[i, j] = 1 \u2212 cos(y_i, \u628A j \u7684\u503C\u5411\u91CF\u7F6E\u96F6\u540E\u7684 y_i)\uFF0C\u6309\u884C\u5F52\u4E00\u5316\u3002",
  "The whole text, one tick per token (colour: weight for the focused token, else attention received); the box is the rows shown. Click or drag to move it.": "\u6574\u6BB5\u6587\u672C\uFF0C\u6BCF\u4E2A token \u4E00\u4E2A\u523B\u5EA6\uFF08\u989C\u8272\uFF1A\u805A\u7126 token \u7684\u6743\u91CD\uFF0C\u5426\u5219\u4E3A\u6536\u5230\u7684\u6CE8\u610F\u529B\uFF09\uFF1B\u65B9\u6846\u662F\u6240\u663E\u793A\u7684\u884C\u3002\u70B9\u51FB\u6216\u62D6\u52A8\u53EF\u79FB\u52A8\u5B83\u3002",
  "This model has no output head: choose a target from Python, e.g. w.set_target(attn_widget.targets.similarity(...))": "\u8FD9\u4E2A\u6A21\u578B\u6CA1\u6709\u8F93\u51FA\u5934\uFF1A\u8BF7\u5728 Python \u4E2D\u9009\u62E9\u76EE\u6807\uFF0C\u4F8B\u5982 w.set_target(attn_widget.targets.similarity(...))",
  "Through the whole model (encoder \u2192 decoder)": "\u8D2F\u7A7F\u6574\u4E2A\u6A21\u578B\uFF08\u7F16\u7801\u5668 \u2192 \u89E3\u7801\u5668\uFF09",
  "Token rows": "token \u884C",
  "Token rows shown: 'fit' shows as many as have legible labels; the wheel and + / - over the graph change it too": "\u663E\u793A\u7684 token \u884C\u6570\uFF1A\u201C\u9002\u914D\u201D\u663E\u793A\u6807\u7B7E\u6E05\u6670\u53EF\u8BFB\u65F6\u80FD\u653E\u4E0B\u7684\u884C\u6570\uFF1B\u5728\u56FE\u4E0A\u6EDA\u52A8\u6EDA\u8F6E\u6216\u6309 + / - \u4E5F\u53EF\u4EE5\u6539\u53D8\u5B83",
  "Token scores": "token \u5206\u6570",
  "Token scores ({name}) failed: {message}": "token \u5206\u6570\uFF08{name}\uFF09\u5931\u8D25\uFF1A{message}",
  "Treats the layer maps as pipes with capacities and asks how much can flow from an input token (left) to a token after this layer (right) at once, through every path together; each row is then scaled to sum to 1. Unlike rollout it is not a sum over paths: shared bottlenecks limit it. Definition: max-flow from input j to token t in the layered graph of the layer maps, normalised per row.": "\u628A\u5C42\u6620\u5C04\u770B\u4F5C\u6709\u5BB9\u91CF\u7684\u7BA1\u9053\uFF0C\u95EE\u4ECE\u4E00\u4E2A\u8F93\u5165 token\uFF08\u5DE6\uFF09\u5230\u8FD9\u4E00\u5C42\u4E4B\u540E\u7684\u4E00\u4E2A token\uFF08\u53F3\uFF09\u540C\u65F6\u7ECF\u8FC7\u6240\u6709\u8DEF\u5F84\u6700\u591A\u80FD\u6D41\u8FC7\u591A\u5C11\uFF1B\u7136\u540E\u628A\u6BCF\u884C\u7F29\u653E\u5230\u548C\u4E3A 1\u3002\u4E0E\u5C55\u5F00\u4E0D\u540C\uFF0C\u5B83\u4E0D\u662F\u5BF9\u8DEF\u5F84\u6C42\u548C\uFF1A\u5171\u4EAB\u7684\u74F6\u9888\u4F1A\u9650\u5236\u5B83\u3002\u5B9A\u4E49\uFF1A\u5728\u5C42\u6620\u5C04\u6784\u6210\u7684\u5206\u5C42\u56FE\u4E2D\u4ECE\u8F93\u5165 j \u5230 token t \u7684\u6700\u5927\u6D41\uFF0C\u6309\u884C\u5F52\u4E00\u5316\u3002",
  "Treats the layers as a network of pipes whose widths are the attention weights (plus the residual) and asks how much can flow from each input token to each token after this layer. An edge means: the largest amount that can flow from the input token to the right token, as a share of its row; the colour goes from pale (little) to dark (the most; the legend gives the scale). Definition: F_l[i, j] = maxflow(input j \u2192 token i after layer l) with capacities 0.5\xB7\u0100 + 0.5\xB7I, rows normalised.": "\u628A\u5404\u5C42\u770B\u4F5C\u4E00\u4E2A\u7BA1\u9053\u7F51\u7EDC\uFF0C\u7BA1\u9053\u5BBD\u5EA6\u662F\u6CE8\u610F\u529B\u6743\u91CD\uFF08\u52A0\u4E0A\u6B8B\u5DEE\uFF09\uFF0C\u95EE\u4ECE\u6BCF\u4E2A\u8F93\u5165 token \u5230\u8FD9\u4E00\u5C42\u4E4B\u540E\u7684\u6BCF\u4E2A token \u6700\u591A\u80FD\u6D41\u8FC7\u591A\u5C11\u3002\u4E00\u6761\u8FB9\u8868\u793A\uFF1A\u4ECE\u8F93\u5165 token \u5230\u53F3\u8FB9 token \u6700\u591A\u80FD\u6D41\u8FC7\u7684\u91CF\uFF0C\u5360\u8BE5\u884C\u7684\u4EFD\u989D\uFF1B\u989C\u8272\u4ECE\u6D45\uFF08\u5C11\uFF09\u5230\u6DF1\uFF08\u6700\u591A\uFF1B\u8272\u9636\u89C1\u56FE\u4F8B\uFF09\u3002\u5B9A\u4E49\uFF1AF_l[i, j] = maxflow(\u8F93\u5165 j \u2192 \u7B2C l \u5C42\u4E4B\u540E\u7684 token i)\uFF0C\u5BB9\u91CF\u4E3A 0.5\xB7\u0100 + 0.5\xB7I\uFF0C\u6309\u884C\u5F52\u4E00\u5316\u3002",
  "Value zeroing": "\u503C\u7F6E\u96F6",
  "Value zeroing composed: the maps multiplied through the layers, with no added identity (the residual is inside each map). How much of each input token reaches each position after this layer.": "\u503C\u7F6E\u96F6\u7684\u7EC4\u5408\uFF1A\u628A\u5404\u5C42\u6620\u5C04\u9010\u5C42\u76F8\u4E58\uFF0C\u4E0D\u53E6\u52A0\u5355\u4F4D\u77E9\u9635\uFF08\u6B8B\u5DEE\u5DF2\u5728\u6BCF\u4E2A\u6620\u5C04\u4E4B\u5185\uFF09\u3002\u6BCF\u4E2A\u8F93\u5165 token \u6709\u591A\u5C11\u5230\u8FBE\u8FD9\u4E00\u5C42\u4E4B\u540E\u7684\u6BCF\u4E2A\u4F4D\u7F6E\u3002",
  "Value zeroing, rolled out": "\u503C\u7F6E\u96F6\uFF0C\u5C55\u5F00",
  "Values: {a} | {b} \xB7 ": "\u6570\u503C\uFF1A{a} | {b} \xB7 ",
  View: "\u89C6\u56FE",
  "Weighs attention by the size of what is actually passed: a large weight on a token with a tiny value vector moves little. An edge means: that share of what this layer's attention adds to the right token comes from the left token; the colour goes from pale (little) to dark (the most; the legend gives the scale). Definition: M[i, j] = \u2016\u03A3_h A^h[i, j] \xB7 f^h(x_j)\u2016, rows normalised, with f^h(x) = x\xB7W_V^h\xB7W_O^h the head's value and output projection.": "\u6309\u5B9E\u9645\u4F20\u9012\u7684\u91CF\u7684\u5927\u5C0F\u6765\u8861\u91CF\u6CE8\u610F\u529B\uFF1A\u7ED9\u4E00\u4E2A\u503C\u5411\u91CF\u5F88\u5C0F\u7684 token \u518D\u5927\u7684\u6743\u91CD\u4E5F\u4F20\u4E0D\u4E86\u591A\u5C11\u3002\u4E00\u6761\u8FB9\u8868\u793A\uFF1A\u8FD9\u4E00\u5C42\u6CE8\u610F\u529B\u52A0\u5230\u53F3\u8FB9 token \u4E0A\u7684\u91CF\u4E2D\u6709\u8FD9\u4E48\u5927\u7684\u4EFD\u989D\u6765\u81EA\u5DE6\u8FB9\u7684 token\uFF1B\u989C\u8272\u4ECE\u6D45\uFF08\u5C11\uFF09\u5230\u6DF1\uFF08\u6700\u591A\uFF1B\u8272\u9636\u89C1\u56FE\u4F8B\uFF09\u3002\u5B9A\u4E49\uFF1AM[i, j] = \u2016\u03A3_h A^h[i, j] \xB7 f^h(x_j)\u2016\uFF0C\u6309\u884C\u5F52\u4E00\u5316\uFF0C\u5176\u4E2D f^h(x) = x\xB7W_V^h\xB7W_O^h \u662F\u8BE5\u5934\u7684\u503C\u6295\u5F71\u548C\u8F93\u51FA\u6295\u5F71\u3002",
  "What rollout multiplies, one layer at a time. An edge says what share of a token after this layer comes from a token before it, counting the residual connection as half of each attention step. Definition: encoder layer 0.5\xB7\u0100 + 0.5\xB7I on the source; decoder layer: half from the source through cross-attention (0.5\xB7C\u0304), half from the target through self-attention plus residual (0.5\xB7(0.5\xB7\u0100 + 0.5\xB7I)).": "\u5C55\u5F00\u6240\u76F8\u4E58\u7684\u4E1C\u897F\uFF0C\u4E00\u6B21\u4E00\u5C42\u3002\u4E00\u6761\u8FB9\u8868\u793A\u8FD9\u4E00\u5C42\u4E4B\u540E\u7684\u4E00\u4E2A token \u6709\u591A\u5927\u4EFD\u989D\u6765\u81EA\u8FD9\u4E00\u5C42\u4E4B\u524D\u7684\u4E00\u4E2A token\uFF0C\u628A\u6B8B\u5DEE\u8FDE\u63A5\u7B97\u4F5C\u6BCF\u4E2A\u6CE8\u610F\u529B\u6B65\u9AA4\u7684\u4E00\u534A\u3002\u5B9A\u4E49\uFF1A\u7F16\u7801\u5668\u5C42\u5728\u6E90\u4E0A\u4E3A 0.5\xB7\u0100 + 0.5\xB7I\uFF1B\u89E3\u7801\u5668\u5C42\uFF1A\u4E00\u534A\u7ECF\u4EA4\u53C9\u6CE8\u610F\u529B\u6765\u81EA\u6E90\uFF080.5\xB7C\u0304\uFF09\uFF0C\u4E00\u534A\u7ECF\u81EA\u6CE8\u610F\u529B\u52A0\u6B8B\u5DEE\u6765\u81EA\u76EE\u6807\uFF080.5\xB7(0.5\xB7\u0100 + 0.5\xB7I)\uFF09\u3002",
  "after {layer}": "{layer}\u4E4B\u540E",
  all: "\u5168\u90E8",
  "all heads": "\u6240\u6709\u5934",
  "all {layers} layers \xD7 1 matrix": "\u5168\u90E8 {layers} \u5C42 \xD7 1 \u4E2A\u77E9\u9635",
  "all {layers} layers \xD7 {heads} heads": "\u5168\u90E8 {layers} \u5C42 \xD7 {heads} \u4E2A\u5934",
  "all {n} heads combined": "\u5168\u90E8 {n} \u4E2A\u5934\u5408\u5728\u4E00\u8D77",
  "attention entropy in nats, mean over query tokens": "\u6CE8\u610F\u529B\u71B5\uFF08\u5355\u4F4D\uFF1A\u5948\u7279\uFF09\uFF0C\u5BF9\u67E5\u8BE2 token \u53D6\u5E73\u5747",
  "attention mass a token keeps on itself": "token \u7559\u7ED9\u81EA\u8EAB\u7684\u6CE8\u610F\u529B\u8D28\u91CF",
  "attention mass on occurrences of the query's own token": "\u67E5\u8BE2 token \u81EA\u8EAB\u5404\u6B21\u51FA\u73B0\u4E0A\u7684\u6CE8\u610F\u529B\u8D28\u91CF",
  "attention mass on special tokens ([CLS], [SEP], <s>, ...)": "\u7279\u6B8A token\uFF08[CLS]\u3001[SEP]\u3001<s> \u7B49\uFF09\u4E0A\u7684\u6CE8\u610F\u529B\u8D28\u91CF",
  "attention mass on the first token": "\u7B2C\u4E00\u4E2A token \u4E0A\u7684\u6CE8\u610F\u529B\u8D28\u91CF",
  "attention mass on the previous token": "\u524D\u4E00\u4E2A token \u4E0A\u7684\u6CE8\u610F\u529B\u8D28\u91CF",
  "attention \xD7 gradient": "\u6CE8\u610F\u529B \xD7 \u68AF\u5EA6",
  "blank-out |y \u2212 y\xACj|": "\u906E\u76D6 |y \u2212 y\xACj|",
  "colour from": "\u989C\u8272\u8D77\u70B9",
  "colours scaled per layer": "\u989C\u8272\u6309\u5C42\u5206\u522B\u5B9A\u8272\u9636",
  "colour: all edges drawn, {low} to {high}": "\u989C\u8272\uFF1A\u6240\u6709\u753B\u51FA\u7684\u8FB9\uFF0C{low} \u5230 {high}",
  "colour: each layer's own range (the largest: {low} to {high})": "\u989C\u8272\uFF1A\u6BCF\u5C42\u6309\u81EA\u5DF1\u7684\u8303\u56F4\uFF08\u6700\u5927\u7684\u4E00\u5C42\uFF1A{low} \u5230 {high}\uFF09",
  "colour: this token's edges, {low} to {high}": "\u989C\u8272\uFF1A\u8FD9\u4E2A token \u7684\u8FB9\uFF0C{low} \u5230 {high}",
  "{method}: this head of layer {layer} is not in this file (a long input's file holds the head shown when it was exported).": "{method}\uFF1A\u7B2C {layer} \u5C42\u7684\u8FD9\u4E2A\u5934\u4E0D\u5728\u6B64\u6587\u4EF6\u4E2D\uFF08\u957F\u8F93\u5165\u7684\u6587\u4EF6\u53EA\u4FDD\u5B58\u5BFC\u51FA\u65F6\u663E\u793A\u7684\u5934\uFF09\u3002",
  "not read yet for this head: layers {layers} (open one to read it)": "\u6B64\u5934\u5C1A\u672A\u8BFB\u53D6\u7684\u5C42\uFF1A{layers}\uFF08\u6253\u5F00\u5176\u4E2D\u4E00\u5C42\u5373\u53EF\u8BFB\u53D6\uFF09",
  "decoder (causal)": "\u89E3\u7801\u5668\uFF08\u56E0\u679C\uFF09",
  "decoder input": "\u89E3\u7801\u5668\u8F93\u5165",
  "decoder {n}": "\u89E3\u7801\u5668 {n}",
  difference: "\u5DEE",
  "dots: in-degree of the right column (row sums), largest {max}": "\u5706\u70B9\uFF1A\u53F3\u5217\u7684\u5165\u5EA6\uFF08\u884C\u548C\uFF09\uFF0C\u6700\u5927 {max}",
  "dots: out-degree of the left column (column sums, attention received), largest {max}": "\u5706\u70B9\uFF1A\u5DE6\u5217\u7684\u51FA\u5EA6\uFF08\u5217\u548C\uFF0C\u5373\u6536\u5230\u7684\u6CE8\u610F\u529B\uFF09\uFF0C\u6700\u5927 {max}",
  "edges: {graph} of each layer ({heads}); dots: its values between the focused token and the input": "\u8FB9\uFF1A\u6BCF\u5C42\u7684{graph}\uFF08{heads}\uFF09\uFF1B\u5706\u70B9\uFF1A\u5B83\u5728\u805A\u7126\u7684 token \u4E0E\u8F93\u5165\u4E4B\u95F4\u7684\u503C",
  "traced paths coloured on each layer's own range": "\u8FFD\u8E2A\u5230\u7684\u8DEF\u5F84\u5728\u6BCF\u5C42\u6309\u81EA\u5DF1\u7684\u8303\u56F4\u7740\u8272",
  "colour: the traced paths' edges, each layer's own range (the largest: {low} to {high})": "\u989C\u8272\uFF1A\u8FFD\u8E2A\u5230\u7684\u8DEF\u5F84\u4E0A\u7684\u8FB9\uFF0C\u6BCF\u5C42\u6309\u81EA\u5DF1\u7684\u8303\u56F4\uFF08\u6700\u5927\u7684\u4E00\u5C42\uFF1A{low} \u5230 {high}\uFF09",
  "{method}: edge colour of the traced paths (each layer's own range; the largest layer's)": "{method}\uFF1A\u8FFD\u8E2A\u5230\u7684\u8DEF\u5F84\u4E0A\u8FB9\u7684\u989C\u8272\uFF08\u6BCF\u5C42\u6309\u81EA\u5DF1\u7684\u8303\u56F4\uFF1B\u53D6\u8303\u56F4\u6700\u5927\u7684\u4E00\u5C42\uFF09",
  "Attention step 0.5\xB7\u0100 + 0.5\xB7I": "\u6CE8\u610F\u529B\u6B65 0.5\xB7\u0100 + 0.5\xB7I",
  "Effective attention step 0.5\xB7E + 0.5\xB7I": "\u6709\u6548\u6CE8\u610F\u529B\u6B65 0.5\xB7E + 0.5\xB7I",
  "Each layer's step of rollout and the capacities of flow: half the head-averaged attention \u0100 (rows re-normalised), half the identity I (the residual connection).": "\u6BCF\u5C42\u7684\u5C55\u5F00\uFF08rollout\uFF09\u4E00\u6B65\uFF0C\u4E5F\u662F\u6CE8\u610F\u529B\u6D41\u7684\u5BB9\u91CF\uFF1A\u4E00\u534A\u662F\u5404\u5934\u5E73\u5747\u7684\u6CE8\u610F\u529B \u0100\uFF08\u5404\u884C\u91CD\u65B0\u5F52\u4E00\u5316\uFF09\uFF0C\u4E00\u534A\u662F\u5355\u4F4D\u77E9\u9635 I\uFF08\u6B8B\u5DEE\u8FDE\u63A5\uFF09\u3002",
  "Each layer's step of effective rollout and the capacities of effective flow: half E, the head-averaged effective attention with negative entries set to 0 and rows re-normalised (E1), half the identity I (the residual connection).": "\u6BCF\u5C42\u7684\u6709\u6548\u5C55\u5F00\u4E00\u6B65\uFF0C\u4E5F\u662F\u6709\u6548\u6CE8\u610F\u529B\u6D41\u7684\u5BB9\u91CF\uFF1A\u4E00\u534A\u662F E\uFF0C\u5373\u5404\u5934\u5E73\u5747\u7684\u6709\u6548\u6CE8\u610F\u529B\uFF0C\u8D1F\u503C\u7F6E 0\u3001\u5404\u884C\u91CD\u65B0\u5F52\u4E00\u5316\uFF08E1\uFF09\uFF0C\u4E00\u534A\u662F\u5355\u4F4D\u77E9\u9635 I\uFF08\u6B8B\u5DEE\u8FDE\u63A5\uFF09\u3002",
  encoder: "\u7F16\u7801\u5668",
  "encoder {n}": "\u7F16\u7801\u5668 {n}",
  fit: "\u9002\u914D",
  from: "\u8D77\u59CB",
  "gradient \xD7 input": "\u68AF\u5EA6 \xD7 \u8F93\u5165",
  "gradient-weighted rollout": "\u68AF\u5EA6\u52A0\u6743\u5C55\u5F00",
  "head importance |\u2202y/\u2202\u03BE_h|": "\u5934\u91CD\u8981\u6027 |\u2202y/\u2202\u03BE_h|",
  "head {n}": "\u5934 {n}",
  hide: "\u9690\u85CF",
  "hide, renormalise rows": "\u9690\u85CF\uFF0C\u5E76\u91CD\u65B0\u5F52\u4E00\u5316\u5404\u884C",
  "in-degree": "\u5165\u5EA6",
  input: "\u8F93\u5165",
  "input token": "\u8F93\u5165 token",
  "integrated gradients": "\u79EF\u5206\u68AF\u5EA6",
  "its own patch ({value}) is above the scale": "\u5B83\u81EA\u5DF1\u7684\u56FE\u5757\uFF08{value}\uFF09\u8D85\u51FA\u8272\u9636",
  largest: "\u6700\u5927",
  "layer \\ head": "\u5C42 \\ \u5934",
  "layer {layer} of {n}": "\u7B2C {layer} \u5C42\uFF0C\u5171 {n} \u5C42",
  "layer {layer}, head {head}: no text has a value": "\u7B2C {layer} \u5C42\uFF0C\u5934 {head}\uFF1A\u6CA1\u6709\u6587\u672C\u6709\u503C",
  "layer {layer}, head {head}: {mean} \xB1 {std} over {count} texts": "\u7B2C {layer} \u5C42\uFF0C\u5934 {head}\uFF1A{mean} \xB1 {std}\uFF08{count} \u4E2A\u6587\u672C\uFF09",
  "layer {n}": "\u7B2C {n} \u5C42",
  max: "\u6700\u5927",
  "max over {n} heads": "{n} \u4E2A\u5934\u7684\u6700\u5927\u503C",
  mean: "\u5E73\u5747",
  "mean attention distance in tokens": "\u5E73\u5747\u6CE8\u610F\u529B\u8DDD\u79BB\uFF08\u4EE5 token \u8BA1\uFF09",
  "mean of {n} heads": "{n} \u4E2A\u5934\u7684\u5E73\u5747",
  "mean, max, then each head": "\u5E73\u5747\u3001\u6700\u5927\uFF0C\u7136\u540E\u662F\u6BCF\u4E2A\u5934",
  "negative \u2190 0 \u2192 positive": "\u8D1F \u2190 0 \u2192 \u6B63",
  "no edges": "\u6CA1\u6709\u8FB9",
  nothing: "\u65E0",
  off: "\u5173",
  "one layer": "\u5355\u5C42",
  "only the pinned token's row is computed for this layer": "\u8FD9\u4E00\u5C42\u53EA\u8BA1\u7B97\u4E86\u56FA\u5B9A token \u7684\u90A3\u4E00\u884C",
  "out-degree": "\u51FA\u5EA6",
  "saliency (\u2016\u2202y/\u2202e\u2016)": "\u663E\u8457\u6027\uFF08\u2016\u2202y/\u2202e\u2016\uFF09",
  show: "\u663E\u793A",
  "side by side": "\u5E76\u6392",
  smallest: "\u6700\u5C0F",
  source: "\u6E90",
  "stored edges carry {share}% of this row": "\u4FDD\u5B58\u7684\u8FB9\u627F\u8F7D\u4E86\u8FD9\u4E00\u884C\u7684 {share}%",
  target: "\u76EE\u6807",
  "the stored entries carry {share} of it": "\u4FDD\u5B58\u7684\u503C\u627F\u8F7D\u4E86\u5176\u4E2D\u7684 {share}",
  "to {value}": "\u81F3 {value}",
  "token score": "token \u5206\u6570",
  "tokens #{first}\u2013#{last} of {n}": "token #{first}\u2013#{last}\uFF0C\u5171 {n} \u4E2A",
  "whole model": "\u6574\u4E2A\u6A21\u578B",
  "whole model, {n} layers": "\u6574\u4E2A\u6A21\u578B\uFF0C{n} \u5C42",
  "{a} (left) and {b} (right)": "{a}\uFF08\u5DE6\uFF09\u4E0E{b}\uFF08\u53F3\uFF09",
  "{a} and {b} (one scale)": "{a}\u4E0E{b}\uFF08\u540C\u4E00\u8272\u9636\uFF09",
  "{a} \u2212 {b}": "{a} \u2212 {b}",
  "{b}: needed for the difference": "{b}\uFF1A\u8BA1\u7B97\u5DEE\u503C\u6240\u9700",
  "{column} draws on:": "{column}\u53D6\u81EA\uFF1A",
  "{column} feeds:": "{column}\u6D41\u5411\uFF1A",
  "{counts} tokens": "{counts} \u4E2A token",
  "{heads}: one matrix per layer (this method is not per head)": "{heads}\uFF1A\u6BCF\u5C42\u4E00\u4E2A\u77E9\u9635\uFF08\u8FD9\u4E2A\u65B9\u6CD5\u4E0D\u5206\u5934\uFF09",
  "{label}: {value} per row on average": "{label}\uFF1A\u5E73\u5747\u6BCF\u884C {value}",
  "{layer}, {head}: click to open it": "{layer}\uFF0C{head}\uFF1A\u70B9\u51FB\u6253\u5F00",
  "{method} at layer {layer} is not computed yet.": "\u7B2C {layer} \u5C42\u7684{method}\u5C1A\u672A\u8BA1\u7B97\u3002",
  "{method} averages the heads": "{method}\u5BF9\u5404\u5934\u53D6\u5E73\u5747",
  "{method} for layer {layer} is computed on request.": "\u7B2C {layer} \u5C42\u7684{method}\u6309\u9700\u8BA1\u7B97\u3002",
  "{method} for layer {layer} is computed on request: {cost}": "\u7B2C {layer} \u5C42\u7684{method}\u6309\u9700\u8BA1\u7B97\uFF1A{cost}",
  '{method} for layer {layer} was not computed before this view was exported; in the notebook, call w.compute("{id}") before exporting.': '\u7B2C {layer} \u5C42\u7684{method}\u5728\u5BFC\u51FA\u8FD9\u4E2A\u89C6\u56FE\u4E4B\u524D\u6CA1\u6709\u8BA1\u7B97\uFF1B\u8BF7\u5728\u7B14\u8BB0\u672C\u4E2D\u5148\u8C03\u7528 w.compute("{id}") \u518D\u5BFC\u51FA\u3002',
  "{method}, all {layers} layers as columns: {edges} edges between {n} tokens per layer": "{method}\uFF0C\u5168\u90E8 {layers} \u5C42\u5404\u4E3A\u4E00\u5217\uFF1A\u6BCF\u5C42 {n} \u4E2A token \u4E4B\u95F4\u5171 {edges} \u6761\u8FB9",
  "{method}, {layer}, {heads}: {edges} edges between {n} tokens": "{method}\uFF0C{layer}\uFF0C{heads}\uFF1A{n} \u4E2A token \u4E4B\u95F4\u5171 {edges} \u6761\u8FB9",
  "{method}: computing more layers\u2026": "{method}\uFF1A\u6B63\u5728\u8BA1\u7B97\u66F4\u591A\u5C42\u2026",
  "{method}: only the pinned token's row is computed for layer {layer}.": "{method}\uFF1A\u7B2C {layer} \u5C42\u53EA\u8BA1\u7B97\u4E86\u56FA\u5B9A token \u7684\u90A3\u4E00\u884C\u3002",
  "{method}: computing\u2026": "{method}\uFF1A\u6B63\u5728\u8BA1\u7B97\u2026",
  "{method}: computing the pinned token's row for layer {layer}\u2026": "{method}\uFF1A\u6B63\u5728\u8BA1\u7B97\u56FA\u5B9A token \u5728\u7B2C {layer} \u5C42\u7684\u90A3\u4E00\u884C\u2026",
  "{method}: edge colour": "{method}\uFF1A\u8FB9\u7684\u989C\u8272",
  "{method}: edge colour (scaled per layer; largest layer's range)": "{method}\uFF1A\u8FB9\u7684\u989C\u8272\uFF08\u6309\u5C42\u5B9A\u8272\u9636\uFF1B\u53D6\u8303\u56F4\u6700\u5927\u7684\u4E00\u5C42\uFF09",
  "{method}: edge colour of the focused token's edges (their own range)": "{method}\uFF1A\u6240\u9009 token \u7684\u8FB9\u7684\u989C\u8272\uFF08\u6309\u5B83\u4EEC\u81EA\u5DF1\u7684\u8303\u56F4\uFF09",
  "{method}: what {token} draws from each patch": "{method}\uFF1A{token} \u4ECE\u6BCF\u4E2A\u56FE\u5757\u83B7\u53D6\u591A\u5C11",
  "{method}: {edges} edges between {n} tokens": "{method}\uFF1A{n} \u4E2A token \u4E4B\u95F4\u5171 {edges} \u6761\u8FB9",
  "{method}: {rows} layers \xD7 {columns} heat maps, one per head": "{method}\uFF1A{rows} \u5C42 \xD7 {columns} \u5F20\u70ED\u56FE\uFF0C\u6BCF\u4E2A\u5934\u4E00\u5F20",
  "{method}: {rows} layers \xD7 {columns} heat maps, one per layer": "{method}\uFF1A{rows} \u5C42 \xD7 {columns} \u5F20\u70ED\u56FE\uFF0C\u6BCF\u5C42\u4E00\u5F20",
  "{names} (not on the image) hold {share} of this row": "{names}\uFF08\u4E0D\u5728\u56FE\u50CF\u4E0A\uFF09\u5360\u8FD9\u4E00\u884C\u7684 {share}",
  "{names} (not on the image) holds {share} of this row": "{names}\uFF08\u4E0D\u5728\u56FE\u50CF\u4E0A\uFF09\u5360\u8FD9\u4E00\u884C\u7684 {share}",
  "{n} edges carrying {share}% of the attention": "{n} \u6761\u8FB9\uFF0C\u627F\u8F7D {share}% \u7684\u6CE8\u610F\u529B",
  "{n} edges carrying {share}% of the rows' total size": "{n} \u6761\u8FB9\uFF0C\u627F\u8F7D\u5404\u884C\u603B\u5927\u5C0F\u7684 {share}%",
  "{n} edges carrying {share}% of the rows' totals": "{n} \u6761\u8FB9\uFF0C\u627F\u8F7D\u5404\u884C\u603B\u548C\u7684 {share}%",
  "{n} edges of the difference": "\u5DEE\u503C\u7684 {n} \u6761\u8FB9",
  "{n} edges, all of the attention drawn": "{n} \u6761\u8FB9\uFF0C\u753B\u51FA\u4E86\u5168\u90E8\u6CE8\u610F\u529B",
  "{n} edges, all of each row drawn": "{n} \u6761\u8FB9\uFF0C\u753B\u51FA\u4E86\u6BCF\u884C\u7684\u5168\u90E8",
  "{title}, {method} from the input,": "{title}\uFF0C\u4ECE\u8F93\u5165\u8D77\u7684{method}\uFF0C",
  "{token} at layer {layer}": "\u7B2C {layer} \u5C42\u7684 {token}",
  "|y \u2212 y\xACj|: the change of the target when token j is replaced by the mask token (else unk, else pad).": "|y \u2212 y\xACj|\uFF1A\u628A token j \u6362\u6210\u63A9\u7801 token\uFF08\u6CA1\u6709\u5219\u7528 unk\uFF0C\u518D\u6CA1\u6709\u5219\u7528 pad\uFF09\u65F6\u76EE\u6807\u7684\u53D8\u5316\u3002",
  "\u2026 and {n} more": "\u2026\u2026\u8FD8\u6709 {n} \u4E2A",
  "\u2191 {n} more": "\u2191 \u53E6\u6709 {n} \u6761",
  "\u2193 {n} more": "\u2193 \u53E6\u6709 {n} \u6761",
  "{b}: {n} edges drawn": "{b}\uFF1A\u753B\u51FA {n} \u6761\u8FB9",
  "Does nothing in the view \u201C{view}\u201D: it applies to {views}": "\u5728\u201C{view}\u201D\u89C6\u56FE\u4E2D\u4E0D\u8D77\u4F5C\u7528\uFF1A\u5B83\u53EA\u7528\u4E8E{views}",
  ", ": "\u3001",
  negative: "\u8D1F",
  positive: "\u6B63",
  "{method}: the colour of each cell": "{method}\uFF1A\u6BCF\u683C\u7684\u989C\u8272",
  "A local, first-order measure: exact for small changes of the input, not for removing a token, and small where the model saturates. A check on the attention pictures rather than ground truth.": "\u5C40\u90E8\u7684\u4E00\u9636\u91CF\uFF1A\u5BF9\u8F93\u5165\u7684\u5FAE\u5C0F\u53D8\u5316\u662F\u7CBE\u786E\u7684\uFF0C\u5BF9\u53BB\u6389\u4E00\u4E2A token \u5219\u4E0D\u7136\uFF1B\u5728\u6A21\u578B\u9971\u548C\u5904\u6570\u503C\u4F1A\u5F88\u5C0F\u3002\u5B83\u662F\u5BF9\u6CE8\u610F\u529B\u56FE\u7684\u4E00\u79CD\u68C0\u9A8C\uFF0C\u800C\u4E0D\u662F\u6807\u51C6\u7B54\u6848\u3002",
  "A teaching picture: it changes with the threshold you choose and forgets how strong each edge was. Read degrees and paths from it, not which token matters most.": "\u8FD9\u662F\u4E00\u5F20\u6559\u5B66\u7528\u56FE\uFF1A\u5B83\u968F\u4F60\u9009\u7684\u9608\u503C\u800C\u53D8\uFF0C\u5E76\u4E14\u4E22\u6389\u4E86\u6BCF\u6761\u8FB9\u7684\u5F3A\u5F31\u3002\u7528\u5B83\u6765\u8BFB\u5EA6\u548C\u8DEF\u5F84\uFF0C\u800C\u4E0D\u662F\u5224\u65AD\u54EA\u4E2A token \u6700\u91CD\u8981\u3002",
  "ALTI through the layers: how much of each input token reaches each token.": "\u8DE8\u5C42\u7684ALTI\uFF1A\u6BCF\u4E2A\u8F93\u5165 token \u6709\u591A\u5C11\u5230\u8FBE\u6BCF\u4E2A token\u3002",
  "Accounts for value vectors (Kobayashi et al. 2020) but not the residual, layer norm or feed-forward block: a better guide than raw weights to what a layer's heads add.": "\u8003\u8651\u4E86\u503C\u5411\u91CF\uFF08Kobayashi \u7B49\uFF0C2020\uFF09\uFF0C\u4F46\u6CA1\u6709\u8003\u8651\u6B8B\u5DEE\u3001\u5C42\u5F52\u4E00\u5316\u548C\u524D\u9988\u5757\uFF1A\u8981\u770B\u4E00\u5C42\u7684\u5404\u4E2A\u5934\u5B9E\u9645\u52A0\u5165\u4E86\u4EC0\u4E48\uFF0C\u5B83\u6BD4\u539F\u59CB\u6743\u91CD\u66F4\u53EF\u9760\u3002",
  "Adds the residual and the layer norm (Kobayashi et al. 2021) but leaves out the feed-forward block; tokens mostly keep themselves, which is what the model does.": "\u52A0\u5165\u4E86\u6B8B\u5DEE\u548C\u5C42\u5F52\u4E00\u5316\uFF08Kobayashi \u7B49\uFF0C2021\uFF09\uFF0C\u4F46\u4E0D\u542B\u524D\u9988\u5757\uFF1Btoken \u5927\u591A\u4FDD\u7559\u81EA\u8EAB\uFF0C\u8FD9\u6B63\u662F\u6A21\u578B\u7684\u5B9E\u9645\u884C\u4E3A\u3002",
  "An intervention (Mohebbi et al. 2023): it re-runs the layer, so it measures what the layer does with each token. Zeroed values are unlike any real input: compare sizes within a picture, not across models.": "\u8FD9\u662F\u4E00\u79CD\u5E72\u9884\uFF08Mohebbi \u7B49\uFF0C2023\uFF09\uFF1A\u5B83\u91CD\u65B0\u8FD0\u884C\u8BE5\u5C42\uFF0C\u56E0\u6B64\u6D4B\u91CF\u7684\u662F\u8BE5\u5C42\u5BF9\u6BCF\u4E2A token \u5B9E\u9645\u505A\u4E86\u4EC0\u4E48\u3002\u7F6E\u96F6\u7684\u503C\u4E0D\u540C\u4E8E\u4EFB\u4F55\u771F\u5B9E\u8F93\u5165\uFF1A\u53EA\u5728\u540C\u4E00\u5F20\u56FE\u5185\u6BD4\u8F83\u5927\u5C0F\uFF0C\u4E0D\u8981\u8DE8\u6A21\u578B\u6BD4\u8F83\u3002",
  "An intervention, one re-run per token; the replacement is unlike real text, and tokens that matter only together are missed.": "\u8FD9\u662F\u4E00\u79CD\u5E72\u9884\uFF0C\u6BCF\u4E2A token \u91CD\u65B0\u8FD0\u884C\u4E00\u6B21\uFF1B\u66FF\u6362\u540E\u7684\u8F93\u5165\u4E0D\u540C\u4E8E\u771F\u5B9E\u6587\u672C\uFF0C\u800C\u4E14\u53EA\u5728\u4E00\u8D77\u65F6\u624D\u8D77\u4F5C\u7528\u7684 token \u4F1A\u88AB\u6F0F\u6389\u3002",
  "Assumes each layer mixes tokens linearly with the residual as exactly half, and ignores value vectors and feed-forward blocks. In a decoder it favours the first tokens (see the receptive-field normalised variant). Check it on your input with compare() against gradient-based scores.": "\u5B83\u5047\u8BBE\u6BCF\u4E00\u5C42\u7EBF\u6027\u5730\u6DF7\u5408 token\u3001\u6B8B\u5DEE\u6070\u597D\u5360\u4E00\u534A\uFF0C\u5E76\u5FFD\u7565\u503C\u5411\u91CF\u548C\u524D\u9988\u5757\u3002\u5728\u89E3\u7801\u5668\u4E2D\u5B83\u504F\u5411\u6700\u524D\u9762\u7684 token\uFF08\u89C1\u611F\u53D7\u91CE\u5F52\u4E00\u5316\u7684\u7248\u672C\uFF09\u3002\u8BF7\u5728\u4F60\u7684\u8F93\u5165\u4E0A\u7528 compare() \u4E0E\u57FA\u4E8E\u68AF\u5EA6\u7684\u5206\u6570\u5BF9\u7167\u68C0\u9A8C\u3002",
  "Assumes each layer mixes tokens linearly with the residual as half, and ignores value vectors and feed-forward blocks.": "\u5B83\u5047\u8BBE\u6BCF\u4E00\u5C42\u7EBF\u6027\u5730\u6DF7\u5408 token\u3001\u6B8B\u5DEE\u5360\u4E00\u534A\uFF0C\u5E76\u5FFD\u7565\u503C\u5411\u91CF\u548C\u524D\u9988\u5757\u3002",
  "Assumes each layer mixes tokens linearly with the residual as half, and ignores value vectors and feed-forward blocks. Flow measures a bottleneck, not an amount: it often spreads evenly.": "\u5B83\u5047\u8BBE\u6BCF\u4E00\u5C42\u7EBF\u6027\u5730\u6DF7\u5408 token\u3001\u6B8B\u5DEE\u5360\u4E00\u534A\uFF0C\u5E76\u5FFD\u7565\u503C\u5411\u91CF\u548C\u524D\u9988\u5757\u3002\u6D41\u91CF\u8861\u91CF\u7684\u662F\u74F6\u9888\u800C\u4E0D\u662F\u6570\u91CF\uFF1A\u5B83\u5E38\u5E38\u5206\u5E03\u5F97\u5F88\u5747\u5300\u3002",
  "Attention as a 0/1 graph: an edge wherever the head-mean weight exceeds the threshold.": "\u628A\u6CE8\u610F\u529B\u770B\u4F5C 0/1 \u56FE\uFF1A\u5934\u5E73\u5747\u6743\u91CD\u8D85\u8FC7\u9608\u503C\u7684\u5730\u65B9\u5C31\u6709\u4E00\u6761\u8FB9\u3002",
  "Attention as a graph": "\u4F5C\u4E3A\u56FE\u7684\u6CE8\u610F\u529B",
  "Attention weighted by how much each token's value vector actually adds.": "\u6309\u6BCF\u4E2A token \u7684\u503C\u5411\u91CF\u5B9E\u9645\u52A0\u5165\u591A\u5C11\u6765\u52A0\u6743\u7684\u6CE8\u610F\u529B\u3002",
  "Attention without the part the layer's values cannot pass on (can be negative).": "\u53BB\u6389\u8BE5\u5C42\u7684\u503C\u65E0\u6CD5\u4F20\u9012\u7684\u90A3\u90E8\u5206\u4E4B\u540E\u7684\u6CE8\u610F\u529B\uFF08\u53EF\u80FD\u4E3A\u8D1F\uFF09\u3002",
  "Cheap and signed, but a straight-line estimate: noisy on deep models.": "\u8BA1\u7B97\u4FBF\u5B9C\u4E14\u6709\u6B63\u8D1F\uFF0C\u4F46\u53EA\u662F\u7EBF\u6027\u4F30\u8BA1\uFF1A\u5728\u6DF1\u5C42\u6A21\u578B\u4E0A\u566A\u58F0\u8F83\u5927\u3002",
  "Clipping negatives gives up the exactness of effective attention; read it as flow's assumptions applied to effective attention.": "\u622A\u53BB\u8D1F\u503C\u5C31\u653E\u5F03\u4E86\u6709\u6548\u6CE8\u610F\u529B\u7684\u7CBE\u786E\u6027\uFF1B\u8BF7\u628A\u5B83\u7406\u89E3\u4E3A\u628A\u6CE8\u610F\u529B\u6D41\u7684\u5047\u8BBE\u7528\u5728\u6709\u6548\u6CE8\u610F\u529B\u4E0A\u3002",
  "Clipping negatives gives up the exactness of effective attention; read it as rollout's assumptions applied to effective attention.": "\u622A\u53BB\u8D1F\u503C\u5C31\u653E\u5F03\u4E86\u6709\u6548\u6CE8\u610F\u529B\u7684\u7CBE\u786E\u6027\uFF1B\u8BF7\u628A\u5B83\u7406\u89E3\u4E3A\u628A rollout \u7684\u5047\u8BBE\u7528\u5728\u6709\u6548\u6CE8\u610F\u529B\u4E0A\u3002",
  "Composing the layers assumes they combine linearly. The per-layer map: Accounts for value vectors (Kobayashi et al. 2020) but not the residual, layer norm or feed-forward block: a better guide than raw weights to what a layer's heads add.": "\u628A\u5404\u5C42\u7EC4\u5408\u8D77\u6765\uFF0C\u5C31\u5047\u8BBE\u4E86\u5B83\u4EEC\u7EBF\u6027\u5730\u5408\u5E76\u3002\u9010\u5C42\u7684\u56FE\uFF1A\u8003\u8651\u4E86\u503C\u5411\u91CF\uFF08Kobayashi \u7B49\uFF0C2020\uFF09\uFF0C\u4F46\u6CA1\u6709\u8003\u8651\u6B8B\u5DEE\u3001\u5C42\u5F52\u4E00\u5316\u548C\u524D\u9988\u5757\uFF1A\u8981\u770B\u4E00\u5C42\u7684\u5404\u4E2A\u5934\u5B9E\u9645\u52A0\u5165\u4E86\u4EC0\u4E48\uFF0C\u5B83\u6BD4\u539F\u59CB\u6743\u91CD\u66F4\u53EF\u9760\u3002",
  "Composing the layers assumes they combine linearly. The per-layer map: Adds the residual and the layer norm (Kobayashi et al. 2021) but leaves out the feed-forward block; tokens mostly keep themselves, which is what the model does.": "\u628A\u5404\u5C42\u7EC4\u5408\u8D77\u6765\uFF0C\u5C31\u5047\u8BBE\u4E86\u5B83\u4EEC\u7EBF\u6027\u5730\u5408\u5E76\u3002\u9010\u5C42\u7684\u56FE\uFF1A\u52A0\u5165\u4E86\u6B8B\u5DEE\u548C\u5C42\u5F52\u4E00\u5316\uFF08Kobayashi \u7B49\uFF0C2021\uFF09\uFF0C\u4F46\u4E0D\u542B\u524D\u9988\u5757\uFF1Btoken \u5927\u591A\u4FDD\u7559\u81EA\u8EAB\uFF0C\u8FD9\u6B63\u662F\u6A21\u578B\u7684\u5B9E\u9645\u884C\u4E3A\u3002",
  "Composing the layers assumes they combine linearly. The per-layer map: An intervention (Mohebbi et al. 2023): it re-runs the layer, so it measures what the layer does with each token. Zeroed values are unlike any real input: compare sizes within a picture, not across models.": "\u628A\u5404\u5C42\u7EC4\u5408\u8D77\u6765\uFF0C\u5C31\u5047\u8BBE\u4E86\u5B83\u4EEC\u7EBF\u6027\u5730\u5408\u5E76\u3002\u9010\u5C42\u7684\u56FE\uFF1A\u8FD9\u662F\u4E00\u79CD\u5E72\u9884\uFF08Mohebbi \u7B49\uFF0C2023\uFF09\uFF1A\u5B83\u91CD\u65B0\u8FD0\u884C\u8BE5\u5C42\uFF0C\u56E0\u6B64\u6D4B\u91CF\u7684\u662F\u8BE5\u5C42\u5BF9\u6BCF\u4E2A token \u5B9E\u9645\u505A\u4E86\u4EC0\u4E48\u3002\u7F6E\u96F6\u7684\u503C\u4E0D\u540C\u4E8E\u4EFB\u4F55\u771F\u5B9E\u8F93\u5165\uFF1A\u53EA\u5728\u540C\u4E00\u5F20\u56FE\u5185\u6BD4\u8F83\u5927\u5C0F\uFF0C\u4E0D\u8981\u8DE8\u6A21\u578B\u6BD4\u8F83\u3002",
  "Composing the layers assumes they combine linearly. The per-layer map: Covers the block except the feed-forward network's own mixing; Modarressi et al. (2022) found it closer to gradient and blank-out scores than attention.": "\u628A\u5404\u5C42\u7EC4\u5408\u8D77\u6765\uFF0C\u5C31\u5047\u8BBE\u4E86\u5B83\u4EEC\u7EBF\u6027\u5730\u5408\u5E76\u3002\u9010\u5C42\u7684\u56FE\uFF1A\u6DB5\u76D6\u6574\u4E2A\u5757\uFF0C\u53EA\u662F\u4E0D\u542B\u524D\u9988\u7F51\u7EDC\u81EA\u8EAB\u7684\u6DF7\u5408\uFF1BModarressi \u7B49\uFF082022\uFF09\u53D1\u73B0\u5B83\u6BD4\u6CE8\u610F\u529B\u66F4\u63A5\u8FD1\u68AF\u5EA6\u5206\u6570\u548C\u906E\u6321\u5206\u6570\u3002",
  "Composing the layers assumes they combine linearly. The per-layer map: Ferrando et al. (2022) found its rollout more faithful than attention rollout in their tests; it is a distance-based measure, not an intervention.": "\u628A\u5404\u5C42\u7EC4\u5408\u8D77\u6765\uFF0C\u5C31\u5047\u8BBE\u4E86\u5B83\u4EEC\u7EBF\u6027\u5730\u5408\u5E76\u3002\u9010\u5C42\u7684\u56FE\uFF1AFerrando \u7B49\uFF082022\uFF09\u5728\u4ED6\u4EEC\u7684\u6D4B\u8BD5\u4E2D\u53D1\u73B0\u5B83\u7684 rollout \u6BD4\u6CE8\u610F\u529B rollout \u66F4\u5FE0\u5B9E\uFF1B\u5B83\u662F\u57FA\u4E8E\u8DDD\u79BB\u7684\u5EA6\u91CF\uFF0C\u800C\u4E0D\u662F\u5E72\u9884\u3002",
  "Counts say which connections exist through the layers, not how much information moves along them; they grow with depth and with a lower threshold.": "\u8BA1\u6570\u8BF4\u660E\u8DE8\u5C42\u5B58\u5728\u54EA\u4E9B\u8FDE\u63A5\uFF0C\u800C\u4E0D\u662F\u6CBF\u8FD9\u4E9B\u8FDE\u63A5\u4F20\u9012\u4E86\u591A\u5C11\u4FE1\u606F\uFF1B\u5C42\u8D8A\u6DF1\u3001\u9608\u503C\u8D8A\u4F4E\uFF0C\u8BA1\u6570\u8D8A\u5927\u3002",
  "Covers the block except the feed-forward network's own mixing; Modarressi et al. (2022) found it closer to gradient and blank-out scores than attention.": "\u6DB5\u76D6\u6574\u4E2A\u5757\uFF0C\u53EA\u662F\u4E0D\u542B\u524D\u9988\u7F51\u7EDC\u81EA\u8EAB\u7684\u6DF7\u5408\uFF1BModarressi \u7B49\uFF082022\uFF09\u53D1\u73B0\u5B83\u6BD4\u6CE8\u610F\u529B\u66F4\u63A5\u8FD1\u68AF\u5EA6\u5206\u6570\u548C\u906E\u6321\u5206\u6570\u3002",
  "Each input token's signed contribution to the target logit, through every layer.": "\u6BCF\u4E2A\u8F93\u5165 token \u7ECF\u8FC7\u6240\u6709\u5C42\u5BF9\u76EE\u6807 logit \u7684\u6709\u6B63\u8D1F\u7684\u8D21\u732E\u3002",
  "Each layer's step as rollout composes it: attention, with the residual as half.": "rollout \u6240\u7EC4\u5408\u7684\u6BCF\u4E00\u5C42\u7684\u4E00\u6B65\uFF1A\u6CE8\u610F\u529B\uFF0C\u6B8B\u5DEE\u5360\u4E00\u534A\u3002",
  "Each source token (right) reads every source token (left).": "\u6BCF\u4E2A\u6E90 token\uFF08\u53F3\uFF09\u8BFB\u53D6\u6240\u6709\u6E90 token\uFF08\u5DE6\uFF09\u3002",
  "Each target position (right) reads the target positions up to itself (left).": "\u6BCF\u4E2A\u76EE\u6807\u4F4D\u7F6E\uFF08\u53F3\uFF09\u8BFB\u53D6\u5B83\u81EA\u5DF1\u53CA\u4E4B\u524D\u7684\u76EE\u6807\u4F4D\u7F6E\uFF08\u5DE6\uFF09\u3002",
  "Each target position (right, a decoder query) reads the source tokens (left, the encoder's output).": "\u6BCF\u4E2A\u76EE\u6807\u4F4D\u7F6E\uFF08\u53F3\uFF0C\u89E3\u7801\u5668\u7684\u67E5\u8BE2\uFF09\u8BFB\u53D6\u6E90 token\uFF08\u5DE6\uFF0C\u7F16\u7801\u5668\u7684\u8F93\u51FA\uFF09\u3002",
  "Each token's share of the attention block's output, residual and layer norm included.": "\u6BCF\u4E2A token \u5728\u6CE8\u610F\u529B\u5757\u8F93\u51FA\u4E2D\u6240\u5360\u7684\u4EFD\u989D\uFF0C\u5305\u62EC\u6B8B\u5DEE\u548C\u5C42\u5F52\u4E00\u5316\u3002",
  "Each token's share of the block's output, measured by how close its part is to the whole.": "\u6BCF\u4E2A token \u5728\u5757\u8F93\u51FA\u4E2D\u6240\u5360\u7684\u4EFD\u989D\uFF0C\u4EE5\u5B83\u90A3\u4E00\u90E8\u5206\u4E0E\u6574\u4F53\u6709\u591A\u63A5\u8FD1\u6765\u8861\u91CF\u3002",
  "Each token's share of the whole encoder block's output, residual and both norms included.": "\u6BCF\u4E2A token \u5728\u6574\u4E2A\u7F16\u7801\u5668\u5757\u8F93\u51FA\u4E2D\u6240\u5360\u7684\u4EFD\u989D\uFF0C\u5305\u62EC\u6B8B\u5DEE\u548C\u4E24\u4E2A\u5F52\u4E00\u5316\u3002",
  "Every attention weight of a layer: in a decoder layer, cross- and self-attention together.": "\u4E00\u5C42\u7684\u5168\u90E8\u6CE8\u610F\u529B\u6743\u91CD\uFF1A\u5728\u89E3\u7801\u5668\u5C42\u4E2D\uFF0C\u4EA4\u53C9\u6CE8\u610F\u529B\u548C\u81EA\u6CE8\u610F\u529B\u5408\u5728\u4E00\u8D77\u3002",
  "Exact for the head's own output (Brunner et al. 2020), but it still leaves out the residual and the feed-forward block. Negative edges are real: they cancel positive ones. Equal to raw attention while a row sees no more tokens than a head's dimension.": "\u5BF9\u5934\u81EA\u8EAB\u7684\u8F93\u51FA\u662F\u7CBE\u786E\u7684\uFF08Brunner \u7B49\uFF0C2020\uFF09\uFF0C\u4F46\u4ECD\u4E0D\u542B\u6B8B\u5DEE\u548C\u524D\u9988\u5757\u3002\u8D1F\u7684\u8FB9\u662F\u771F\u5B9E\u5B58\u5728\u7684\uFF1A\u5B83\u4EEC\u62B5\u6D88\u6B63\u7684\u8FB9\u3002\u5F53\u4E00\u884C\u770B\u5230\u7684 token \u6570\u4E0D\u8D85\u8FC7\u5934\u7684\u7EF4\u5EA6\u65F6\uFF0C\u5B83\u7B49\u4E8E\u539F\u59CB\u6CE8\u610F\u529B\u3002",
  "Ferrando et al. (2022) found its rollout more faithful than attention rollout in their tests; it is a distance-based measure, not an intervention.": "Ferrando \u7B49\uFF082022\uFF09\u5728\u4ED6\u4EEC\u7684\u6D4B\u8BD5\u4E2D\u53D1\u73B0\u5B83\u7684 rollout \u6BD4\u6CE8\u610F\u529B rollout \u66F4\u5FE0\u5B9E\uFF1B\u5B83\u662F\u57FA\u4E8E\u8DDD\u79BB\u7684\u5EA6\u91CF\uFF0C\u800C\u4E0D\u662F\u5E72\u9884\u3002",
  "Ferrando et al. (2023): exact for the attention blocks' linear part, a proxy through the rest.": "Ferrando \u7B49\uFF082023\uFF09\uFF1A\u5BF9\u6CE8\u610F\u529B\u5757\u7684\u7EBF\u6027\u90E8\u5206\u662F\u7CBE\u786E\u7684\uFF0C\u5BF9\u5176\u4F59\u90E8\u5206\u662F\u8FD1\u4F3C\u3002",
  "Fewer \u25B4": "\u6536\u8D77 \u25B4",
  "Flow above what position alone gives: for decoders, where early tokens are seen by all.": "\u8D85\u51FA\u4EC5\u7531\u4F4D\u7F6E\u5E26\u6765\u7684\u90A3\u90E8\u5206\u7684\u6D41\u91CF\uFF1A\u7528\u4E8E\u89E3\u7801\u5668\uFF0C\u56E0\u4E3A\u9760\u524D\u7684 token \u88AB\u6240\u6709 token \u770B\u5230\u3002",
  "Flow with effective attention (negatives set to 0, rows re-normalised) as pipe widths.": "\u4EE5\u6709\u6548\u6CE8\u610F\u529B\uFF08\u8D1F\u503C\u7F6E 0\u3001\u5404\u884C\u91CD\u65B0\u5F52\u4E00\u5316\uFF09\u4F5C\u4E3A\u7BA1\u9053\u5BBD\u5EA6\u7684\u6CE8\u610F\u529B\u6D41\u3002",
  "GlobEnc through the layers: how much of each input token reaches each token.": "\u8DE8\u5C42\u7684GlobEnc\uFF1A\u6BCF\u4E2A\u8F93\u5165 token \u6709\u591A\u5C11\u5230\u8FBE\u6BCF\u4E2A token\u3002",
  "Gradient times embedding: a signed first-order estimate of each token's contribution.": "\u68AF\u5EA6\u4E58\u5D4C\u5165\uFF1A\u5BF9\u6BCF\u4E2A token \u8D21\u732E\u7684\u6709\u6B63\u8D1F\u7684\u4E00\u9636\u4F30\u8BA1\u3002",
  "Gradients summed from a [MASK] baseline to each token: signed shares of the target's change.": "\u4ECE [MASK] \u57FA\u7EBF\u5230\u6BCF\u4E2A token \u7D2F\u79EF\u7684\u68AF\u5EA6\uFF1A\u76EE\u6807\u53D8\u5316\u4E2D\u6709\u6B63\u8D1F\u7684\u4EFD\u989D\u3002",
  "How far each token's output moves when another token's values are set to zero.": "\u628A\u53E6\u4E00\u4E2A token \u7684\u503C\u7F6E\u96F6\u65F6\uFF0C\u6BCF\u4E2A token \u7684\u8F93\u51FA\u79FB\u52A8\u4E86\u591A\u8FDC\u3002",
  "How many paths of 0/1 edges lead from each input token to each token after this layer.": "\u4ECE\u6BCF\u4E2A\u8F93\u5165 token \u5230\u8FD9\u4E00\u5C42\u4E4B\u540E\u7684\u6BCF\u4E2A token\uFF0C\u6709\u591A\u5C11\u6761\u7531 0/1 \u8FB9\u7EC4\u6210\u7684\u8DEF\u5F84\u3002",
  "How much each input token shapes each token's hidden vector after this layer (gradients).": "\u6BCF\u4E2A\u8F93\u5165 token \u5BF9\u8FD9\u4E00\u5C42\u4E4B\u540E\u6BCF\u4E2A token \u7684\u9690\u85CF\u5411\u91CF\u5F71\u54CD\u6709\u591A\u5927\uFF08\u68AF\u5EA6\uFF09\u3002",
  "How much each token (right) reads from each token (left) in this one layer.": "\u5728\u8FD9\u4E00\u5C42\u4E2D\uFF0C\u6BCF\u4E2A token\uFF08\u53F3\uFF09\u4ECE\u6BCF\u4E2A token\uFF08\u5DE6\uFF09\u8BFB\u53D6\u4E86\u591A\u5C11\u3002",
  "How much of each input token reaches each token after this layer, layers multiplied together.": "\u6BCF\u4E2A\u8F93\u5165 token \u6709\u591A\u5C11\u5230\u8FBE\u8FD9\u4E00\u5C42\u4E4B\u540E\u7684\u6BCF\u4E2A token\uFF1A\u628A\u5404\u5C42\u76F8\u4E58\u3002",
  "How much of each source and target token reaches each token after this layer.": "\u6BCF\u4E2A\u6E90 token \u548C\u76EE\u6807 token \u6709\u591A\u5C11\u5230\u8FBE\u8FD9\u4E00\u5C42\u4E4B\u540E\u7684\u6BCF\u4E2A token\u3002",
  "How much the target changes when one token is replaced by the mask token.": "\u628A\u4E00\u4E2A token \u6362\u6210\u63A9\u7801 token \u65F6\uFF0C\u76EE\u6807\u53D8\u5316\u4E86\u591A\u5C11\u3002",
  "How sensitive the target is to each token's embedding (the size of the gradient).": "\u76EE\u6807\u5BF9\u6BCF\u4E2A token \u7684\u5D4C\u5165\u6709\u591A\u654F\u611F\uFF08\u68AF\u5EA6\u7684\u5927\u5C0F\uFF09\u3002",
  "Keeps only positive gradient-weighted attention (Chefer et al. 2021); shares rollout's assumptions.": "\u53EA\u4FDD\u7559\u68AF\u5EA6\u52A0\u6743\u540E\u4E3A\u6B63\u7684\u6CE8\u610F\u529B\uFF08Chefer \u7B49\uFF0C2021\uFF09\uFF1B\u4E0E rollout \u6709\u76F8\u540C\u7684\u5047\u8BBE\u3002",
  "More ({n} set) \u25BE": "\u66F4\u591A\uFF08{n} \u9879\u5DF2\u8BBE\u7F6E\uFF09\u25BE",
  "More \u25BE": "\u66F4\u591A \u25BE",
  "Norm-based attention through the layers: how much of each input token reaches each token.": "\u8DE8\u5C42\u7684\u57FA\u4E8E\u8303\u6570\u7684\u6CE8\u610F\u529B\uFF1A\u6BCF\u4E2A\u8F93\u5165 token \u6709\u591A\u5C11\u5230\u8FBE\u6BCF\u4E2A token\u3002",
  "Norm: attention + residual + LN through the layers: how much of each input token reaches each token.": "\u8DE8\u5C42\u7684\u8303\u6570\uFF1A\u6CE8\u610F\u529B + \u6B8B\u5DEE + LN\uFF1A\u6BCF\u4E2A\u8F93\u5165 token \u6709\u591A\u5C11\u5230\u8FBE\u6BCF\u4E2A token\u3002",
  "Our reading of Abnar & Zuidema's advice for decoders (RF-B), not a published definition: a high value means more than a uniform reader would give. Compare it with plain flow before drawing conclusions.": "\u8FD9\u662F\u6211\u4EEC\u5BF9 Abnar \u548C Zuidema \u9488\u5BF9\u89E3\u7801\u5668\u7684\u5EFA\u8BAE\u7684\u7406\u89E3\uFF08RF-B\uFF09\uFF0C\u4E0D\u662F\u5DF2\u53D1\u8868\u7684\u5B9A\u4E49\uFF1A\u503C\u9AD8\u610F\u5473\u7740\u6BD4\u5747\u5300\u8BFB\u53D6\u65F6\u66F4\u591A\u3002\u4E0B\u7ED3\u8BBA\u4E4B\u524D\u8BF7\u4E0E\u666E\u901A\u7684\u6CE8\u610F\u529B\u6D41\u5BF9\u7167\u3002",
  "Our reading of Abnar & Zuidema's advice for decoders (RF-B), not a published definition: a high value means more than a uniform reader would give. Compare it with plain rollout before drawing conclusions.": "\u8FD9\u662F\u6211\u4EEC\u5BF9 Abnar \u548C Zuidema \u9488\u5BF9\u89E3\u7801\u5668\u7684\u5EFA\u8BAE\u7684\u7406\u89E3\uFF08RF-B\uFF09\uFF0C\u4E0D\u662F\u5DF2\u53D1\u8868\u7684\u5B9A\u4E49\uFF1A\u503C\u9AD8\u610F\u5473\u7740\u6BD4\u5747\u5300\u8BFB\u53D6\u65F6\u66F4\u591A\u3002\u4E0B\u7ED3\u8BBA\u4E4B\u524D\u8BF7\u4E0E\u666E\u901A\u7684 rollout \u5BF9\u7167\u3002",
  "Rollout above what position alone gives: for decoders, where early tokens are seen by all.": "\u8D85\u51FA\u4EC5\u7531\u4F4D\u7F6E\u5E26\u6765\u7684\u90A3\u90E8\u5206\u7684 rollout\uFF1A\u7528\u4E8E\u89E3\u7801\u5668\uFF0C\u56E0\u4E3A\u9760\u524D\u7684 token \u88AB\u6240\u6709 token \u770B\u5230\u3002",
  "Rollout of effective attention, negatives set to 0 and rows re-normalised.": "\u6709\u6548\u6CE8\u610F\u529B\u7684 rollout\uFF1A\u8D1F\u503C\u7F6E 0\uFF0C\u5404\u884C\u91CD\u65B0\u5F52\u4E00\u5316\u3002",
  "Rollout of the attention edges that raise the target (positive attention \xD7 gradient).": "\u4F7F\u76EE\u6807\u5347\u9AD8\u7684\u6CE8\u610F\u529B\u8FB9\u7684 rollout\uFF08\u6CE8\u610F\u529B \xD7 \u68AF\u5EA6\u7684\u6B63\u90E8\u5206\uFF09\u3002",
  "Sees the last layer only; gradients are local.": "\u53EA\u770B\u6700\u540E\u4E00\u5C42\uFF1B\u68AF\u5EA6\u662F\u5C40\u90E8\u7684\u3002",
  "Shares rollout's assumptions and measures a bottleneck, not an amount, so it often spreads importance evenly over many tokens. In a decoder it favours the first tokens. Check it on your input with compare().": "\u5B83\u4E0E rollout \u6709\u76F8\u540C\u7684\u5047\u8BBE\uFF0C\u8861\u91CF\u7684\u662F\u74F6\u9888\u800C\u4E0D\u662F\u6570\u91CF\uFF0C\u56E0\u6B64\u5E38\u628A\u91CD\u8981\u6027\u5747\u5300\u5730\u5206\u7ED9\u8BB8\u591A token\u3002\u5728\u89E3\u7801\u5668\u4E2D\u5B83\u504F\u5411\u6700\u524D\u9762\u7684 token\u3002\u8BF7\u5728\u4F60\u7684\u8F93\u5165\u4E0A\u7528 compare() \u68C0\u9A8C\u3002",
  "Show every control. Set behind it: {names}": "\u663E\u793A\u6240\u6709\u63A7\u4EF6\u3002\u5176\u4E2D\u5DF2\u8BBE\u7F6E\uFF1A{names}",
  "Show every control: edge filters, special tokens, token scores, comparison, downloads": "\u663E\u793A\u6240\u6709\u63A7\u4EF6\uFF1A\u8FB9\u7684\u7B5B\u9009\u3001\u7279\u6B8A token\u3001token \u5206\u6570\u3001\u5BF9\u6BD4\u3001\u4E0B\u8F7D",
  "Show the basic controls only": "\u53EA\u663E\u793A\u57FA\u672C\u63A7\u4EF6",
  "The last layer's attention times its gradient: the attention edges the target uses.": "\u6700\u540E\u4E00\u5C42\u7684\u6CE8\u610F\u529B\u4E58\u4EE5\u5B83\u7684\u68AF\u5EA6\uFF1A\u76EE\u6807\u6240\u7528\u5230\u7684\u6CE8\u610F\u529B\u8FB9\u3002",
  "The most that can flow from each input token to each token, with layers as pipes.": "\u628A\u5404\u5C42\u5F53\u4F5C\u7BA1\u9053\uFF0C\u4ECE\u6BCF\u4E2A\u8F93\u5165 token \u5230\u6BCF\u4E2A token \u6700\u591A\u80FD\u6D41\u8FC7\u591A\u5C11\u3002",
  "The most that can flow from each source and target token to each token, with layers as pipes.": "\u628A\u5404\u5C42\u5F53\u4F5C\u7BA1\u9053\uFF0C\u4ECE\u6BCF\u4E2A\u6E90 token \u548C\u76EE\u6807 token \u5230\u6BCF\u4E2A token \u6700\u591A\u80FD\u6D41\u8FC7\u591A\u5C11\u3002",
  "The scores add up to the target's change from the baseline (the widget checks it to 5%); the baseline is a choice that shapes the answer.": "\u5404\u5206\u6570\u4E4B\u548C\u7B49\u4E8E\u76EE\u6807\u76F8\u5BF9\u57FA\u7EBF\u7684\u53D8\u5316\uFF08\u63A7\u4EF6\u4EE5 5% \u4E3A\u9650\u68C0\u67E5\uFF09\uFF1B\u57FA\u7EBF\u662F\u4E00\u79CD\u9009\u62E9\uFF0C\u4F1A\u5F71\u54CD\u7ED3\u679C\u3002",
  "Through the layers": "\u8DE8\u5C42",
  "Trust it for where a head looks, not for what the prediction depends on: a large weight on a token whose value vector is small adds little (compare Norm-based attention), and the residual carries much of each token past the layer (Jain & Wallace 2019; Kobayashi et al. 2020).": "\u7528\u5B83\u6765\u770B\u4E00\u4E2A\u5934\u5728\u770B\u54EA\u91CC\uFF0C\u800C\u4E0D\u662F\u9884\u6D4B\u4F9D\u8D56\u4EC0\u4E48\uFF1A\u503C\u5411\u91CF\u5F88\u5C0F\u7684 token \u5373\u4F7F\u6743\u91CD\u5F88\u5927\u4E5F\u52A0\u5165\u5F97\u5F88\u5C11\uFF08\u5BF9\u7167\u57FA\u4E8E\u8303\u6570\u7684\u6CE8\u610F\u529B\uFF09\uFF0C\u800C\u4E14\u6B8B\u5DEE\u628A\u6BCF\u4E2A token \u7684\u5927\u90E8\u5206\u76F4\u63A5\u5E26\u8FC7\u8FD9\u4E00\u5C42\uFF08Jain \u548C Wallace\uFF0C2019\uFF1BKobayashi \u7B49\uFF0C2020\uFF09\u3002",
  "Unsigned and local: a token that matters can still have a small gradient where the model saturates.": "\u65E0\u6B63\u8D1F\u4E14\u662F\u5C40\u90E8\u7684\uFF1A\u5728\u6A21\u578B\u9971\u548C\u5904\uFF0C\u91CD\u8981\u7684 token \u68AF\u5EA6\u4E5F\u53EF\u80FD\u5F88\u5C0F\u3002",
  "Value zeroing through the layers: how much of each input token reaches each token.": "\u8DE8\u5C42\u7684\u503C\u7F6E\u96F6\uFF1A\u6BCF\u4E2A\u8F93\u5165 token \u6709\u591A\u5C11\u5230\u8FBE\u6BCF\u4E2A token\u3002",
  "When to trust it": "\u4F55\u65F6\u53EF\u4EE5\u4FE1\u4EFB\u5B83",
  basic: "\u57FA\u672C",
  "{n} other methods draw another graph (other sources or layers): not listed": "\u53E6\u6709 {n} \u79CD\u65B9\u6CD5\u753B\u7684\u662F\u53E6\u4E00\u5F20\u56FE\uFF08\u6765\u6E90\u6216\u5C42\u4E0D\u540C\uFF09\uFF1A\u672A\u5217\u51FA"
};

// src/i18n.js
var TABLES = { zh: zh_default };
var LANGUAGES = (
  /** @type {Array<[string, string]>} */
  [
    ["en", "English"],
    ["zh", "\u4E2D\u6587"]
  ]
);
function tr(lang, text2, params) {
  const translated = TABLES[lang]?.[text2] ?? text2;
  return params ? translated.replace(/\{(\w+)\}/g, (whole, name) => name in params ? String(params[name]) : whole) : translated;
}
function speaker(lang) {
  return (text2, params) => tr(lang, text2, params);
}
function trName(lang, name) {
  const numbered = /^(.*\S) (\d+)$/.exec(name);
  if (TABLES[lang]?.[name] || !numbered) return tr(lang, name);
  return tr(lang, `${numbered[1]} {n}`, { n: numbered[2] });
}

// src/navigate.js
function navigateWords(lang) {
  const say = speaker(lang);
  return {
    /** A marker of edges to tokens above or below the window. @param {boolean} up @param {number} count */
    more: (up, count2) => say(up ? "\u2191 {n} more" : "\u2193 {n} more", { n: count2 }),
    markerTitle: say("Edges to tokens outside the rows shown. Click to scroll to the strongest one."),
    minimap: say(
      "The whole text, one tick per token (colour: weight for the focused token, else attention received); the box is the rows shown. Click or drag to move it."
    ),
    windowTitle: say(
      "Token rows shown: 'fit' shows as many as have legible labels; the wheel and + / - over the graph change it too"
    ),
    windowAuto: say("fit"),
    windowAll: say("all"),
    plotHelp: say(
      "Attention graph. Arrow keys move between tokens and columns, Enter pins a token, Escape unpins. Long texts: the wheel, Page Up, Page Down, Home and End scroll the rows; Ctrl or \u2318 with the wheel, or + and -, zoom."
    ),
    /** @param {number} k */
    thinned: (k) => say("1 token in {k} labelled: hover a row for its token", { k }),
    /** The rows shown, numbered as the value list numbers tokens (#0 first). @param {number} first @param {number} last @param {number} n */
    rows: (first, last, n) => say("tokens #{first}\u2013#{last} of {n}", { first, last, n })
  };
}
var MIN_ROWS = 8;
var ZOOM_STEP = 1.5;
function legibleRows() {
  return Math.floor(MAX_PLOT_HEIGHT / LEGIBLE_ROW);
}
function shownWindow(n, window) {
  const size = Math.max(1, Math.min(n, window.size > 0 ? window.size : legibleRows()));
  return { start: Math.max(0, Math.min(window.start, n - size)), size };
}
function traitOf(window) {
  return [window.start, window.size];
}
function scrolled(n, window, rows) {
  return { start: Math.max(0, Math.min(n - window.size, window.start + Math.round(rows))), size: window.size };
}
function revealed(n, window, index) {
  if (index < window.start) return scrolled(n, window, index - window.start);
  if (index >= window.start + window.size) return scrolled(n, window, index - (window.start + window.size - 1));
  return window;
}
function centredOn(n, window, index) {
  return scrolled(n, window, index - Math.floor(window.size / 2) - window.start);
}
function zoomed(n, window, steps, anchor = null) {
  const fit = Math.min(n, legibleRows());
  let size = window.size;
  for (let s = 0; s < Math.abs(steps); s++) {
    const next = steps > 0 ? Math.floor(size / ZOOM_STEP) : Math.ceil(size * ZOOM_STEP);
    const crossesFit = size < fit && next > fit || size > fit && next < fit;
    size = crossesFit ? fit : next;
  }
  size = Math.max(Math.min(MIN_ROWS, n), Math.min(n, size));
  const inside = anchor !== null && anchor >= window.start && anchor < window.start + window.size;
  const at = inside ? (
    /** @type {number} */
    anchor
  ) : window.start + Math.floor(window.size / 2);
  const share = (at - window.start + 0.5) / window.size;
  const start = Math.round(at + 0.5 - share * size);
  return revealed(n, { start: Math.max(0, Math.min(n - size, start)), size }, at);
}
function resized(n, window, size, anchor) {
  if (anchor === null || anchor < 0 || anchor >= n) return { start: window.start, size };
  const rows = shownWindow(n, { start: 0, size }).size;
  const inside = anchor >= window.start && anchor < window.start + window.size;
  const share = inside ? (anchor - window.start + 0.5) / window.size : 0.5;
  const start = Math.round(anchor + 0.5 - share * rows);
  return { start: revealed(n, { start: Math.max(0, Math.min(n - rows, start)), size: rows }, anchor).start, size };
}
function wheelRows(event, rowHeight, size) {
  if (event.deltaMode === 1) return event.deltaY;
  if (event.deltaMode === 2) return event.deltaY * Math.max(1, size - 1);
  return event.deltaY / rowHeight;
}
function wheelScroll(n, window, rows) {
  if (window.size >= n || rows === 0) return null;
  if (rows < 0 && window.start === 0 || rows > 0 && window.start + window.size >= n) return null;
  const whole = Math.trunc(rows);
  return { window: scrolled(n, window, whole), left: rows - whole };
}
function keyWindow(n, window, key, focused) {
  switch (key) {
    case "PageDown":
      return scrolled(n, window, Math.max(1, window.size - 1));
    case "PageUp":
      return scrolled(n, window, -Math.max(1, window.size - 1));
    case "Home":
      return scrolled(n, window, -n);
    case "End":
      return scrolled(n, window, n);
    case "+":
    case "=":
      return zoomed(n, window, 1, focused);
    case "-":
    case "_":
      return zoomed(n, window, -1, focused);
    default:
      return null;
  }
}
function offWindowMarkers(edges, window, only = null) {
  const first = window.start;
  const last = window.start + window.size - 1;
  const found = /* @__PURE__ */ new Map();
  const add = (side, outside, e) => {
    const direction = outside < first ? "up" : "down";
    const key = `${direction} ${side}`;
    const weight = edges.weight[e];
    const marker = found.get(key);
    if (!marker) found.set(key, { side, direction, count: 1, index: outside, weight });
    else {
      marker.count++;
      if (Math.abs(weight) > Math.abs(marker.weight)) Object.assign(marker, { index: outside, weight });
    }
  };
  const visit = (e) => {
    const s = edges.source[e];
    const t = edges.target[e];
    const sIn = s >= first && s <= last;
    const tIn = t >= first && t <= last;
    if (sIn && !tIn) add("target", t, e);
    else if (tIn && !sIn) add("source", s, e);
  };
  if (only) for (const e of only) visit(e);
  else for (let e = 0; e < edges.count; e++) visit(e);
  return ["up source", "up target", "down source", "down target"].flatMap((key) => found.get(key) ?? []);
}
function minimapValues(edges, n, focus) {
  const values = new Float64Array(n);
  for (let e = 0; e < edges.count; e++) {
    if (!focus) values[edges.source[e]] += Math.abs(edges.weight[e]);
    else if (focus.side === "target" && edges.target[e] === focus.index)
      values[edges.source[e]] += Math.abs(edges.weight[e]);
    else if (focus.side === "source" && edges.source[e] === focus.index)
      values[edges.target[e]] += Math.abs(edges.weight[e]);
  }
  return values;
}

// src/probes.js
function probe(node, values) {
  const win = (
    /** @type {(Window & { attnwProbes?: boolean }) | null} */
    node.ownerDocument.defaultView
  );
  if (win?.attnwProbes === true) Object.assign(node.dataset, values);
}

// src/text.js
var UNSAFE = (
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this must find, to show them as escapes
  /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufffe\uffff\ud800-\udfff]/gu
);
var WHITESPACE = /* @__PURE__ */ new Map([
  ["\n", "\u21B5"],
  ["	", "\u21E5"]
]);
function visible(char) {
  const code = (
    /** @type {number} */
    char.codePointAt(0)
  );
  const shown = WHITESPACE.get(char);
  if (shown) return shown;
  if (code >= 55296 && code <= 57343 || code >= 65534) return "\uFFFD";
  return code < 256 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}
function displayToken(text2) {
  return text2 === "" ? "\u2205" : text2.replace(UNSAFE, visible);
}
var NOT_XML = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;
function xmlText(text2) {
  return text2.replace(NOT_XML, "\uFFFD");
}
function clippedToken(token, max) {
  const chars = Array.from(displayToken(token));
  return chars.length > max ? `${chars.slice(0, max - 1).join("")}\u2026` : chars.join("");
}
function wrapText(text2, width, measure) {
  const lines = [];
  let line = "";
  for (const word of text2.split(/(?<= )/)) {
    if (measure(line + word.trimEnd()) <= width) {
      line += word;
      continue;
    }
    if (line.trim()) lines.push(line.trimEnd());
    line = "";
    for (const char of Array.from(word)) {
      if (line && measure((line + char).trimEnd()) > width) {
        lines.push(line.trimEnd());
        line = "";
      }
      line += char;
    }
  }
  if (line.trim() || lines.length === 0) lines.push(line.trimEnd());
  return lines;
}
function textMeasure(doc, font = "12px sans-serif") {
  const ctx = doc.defaultView?.navigator.userAgent.includes("jsdom") ? null : (
    /** @type {HTMLCanvasElement} */
    doc.createElement("canvas").getContext("2d")
  );
  if (ctx) {
    ctx.font = font;
    return (text2) => ctx.measureText(text2).width;
  }
  return (text2) => Array.from(text2).reduce((sum, char) => sum + ((char.codePointAt(0) ?? 0) >= 11904 ? 12 : 7), 0);
}
var SVG = "http://www.w3.org/2000/svg";
function svgDrawing(doc, width, height, background) {
  const svg = doc.createElementNS(SVG, "svg");
  const size = { width, height, viewBox: `0 0 ${width} ${height}`, "font-family": "sans-serif", "font-size": 12 };
  for (const [name, value] of Object.entries(size)) svg.setAttribute(name, String(value));
  const add = (tag, attributes, parent = svg) => {
    const node = doc.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, xmlText(String(value)));
    parent.append(node);
    return node;
  };
  add("rect", { width: "100%", height: "100%", fill: background });
  return { svg, add };
}

// src/overlay.js
var TOOLTIP_ROWS = 10;
var TOOLTIP_TOKEN = 48;
function element(doc, tag, className, text2) {
  const node = doc.createElement(tag);
  node.className = className;
  if (text2 !== void 0) node.textContent = text2;
  return node;
}
function renderLabels(container, layout, tokens, special, side) {
  container.replaceChildren();
  const box = layout.rowHeight * layout.labelEvery;
  placedIn.set(container, { layout, tokens, special, side });
  for (let i = layout.first; i <= Math.min(layout.last, tokens.length - 1); i++) {
    if (isLabelled(layout, i)) container.append(tokenLabel(container, i, box));
  }
}
var placedIn = /* @__PURE__ */ new WeakMap();
function tokenLabel(container, i, box) {
  const { layout, tokens, special, side } = (
    /** @type {NonNullable<ReturnType<typeof placedIn.get>>} */
    placedIn.get(container)
  );
  const label = element(container.ownerDocument, "div", "attnw-token", displayToken(tokens[i]));
  if (special[i]) label.classList.add("attnw-special");
  label.dataset.index = String(i);
  label.style.top = `${rowCenter(layout, i) - box / 2}px`;
  label.style.height = `${box}px`;
  label.style.lineHeight = `${box}px`;
  label.style.width = `${layout.leftX - LABEL_GAP}px`;
  label.style.left = side === "source" ? "0px" : `${layout.rightX + LABEL_GAP}px`;
  label.title = `\u2068${displayToken(tokens[i])}\u2069 (#${i})`;
  return label;
}
function focusLabel(column, index) {
  const placed = placedIn.get(column);
  if (!placed || index < placed.layout.first || index > placed.layout.last) return null;
  const label = tokenLabel(column, index, FOCUS_LABEL);
  label.classList.add("attnw-token-focus");
  const centre = rowCenter(placed.layout, index);
  for (
    const other of
    /** @type {NodeListOf<HTMLElement>} */
    column.querySelectorAll(".attnw-token:not(.attnw-token-focus)")
  ) {
    const middle = Number.parseFloat(other.style.top) + Number.parseFloat(other.style.height) / 2;
    if (Math.abs(middle - centre) < FOCUS_CLEARANCE) other.classList.add("attnw-covered");
  }
  column.append(label);
  return label;
}
function markHovered(root, node, pinned = null) {
  for (const name of ["attnw-hovered", "attnw-pinned", "attnw-covered"]) {
    for (const label of root.querySelectorAll(`.attnw-token.${name}`)) label.classList.remove(name);
  }
  for (const label of root.querySelectorAll(".attnw-token-focus")) label.remove();
  const mark = (at, name) => {
    if (!at) return;
    if (!Number.isInteger(at.index)) return;
    const column = (
      /** @type {HTMLElement | null} */
      root.querySelector(at.side === "source" ? ".attnw-labels-left" : ".attnw-labels-right")
    );
    if (!column) return;
    const label = column.querySelector(`[data-index="${at.index}"]`) ?? focusLabel(column, at.index);
    label?.classList.add(name);
  };
  mark(pinned, "attnw-pinned");
  mark(node, "attnw-hovered");
}
function markIdle(left, right, edges) {
  for (
    const [column, ends] of
    /** @type {const} */
    [
      [left, edges?.source],
      [right, edges?.target]
    ]
  ) {
    const used = ends ? new Set(ends.subarray(
      0,
      /** @type {import("./edges.js").EdgeList} */
      edges.count
    )) : null;
    for (
      const label of
      /** @type {NodeListOf<HTMLElement>} */
      column.querySelectorAll(".attnw-token")
    ) {
      label.classList.toggle("attnw-idle", used !== null && !used.has(Number(label.dataset.index)));
    }
  }
}
function tokenColumns(left, right) {
  let key = "";
  let tokens = null;
  let idleOf = null;
  return {
    /** @param {import("./layout.js").Layout} layout @param {{ tokens: string[], special: boolean[] }} state */
    render(layout, state) {
      const now = `${layout.width} ${layout.n} ${layout.first} ${layout.last}`;
      if (now === key && state.tokens === tokens) return;
      [key, tokens, idleOf] = [now, state.tokens, null];
      renderLabels(left, layout, state.tokens, state.special, "source");
      renderLabels(right, layout, state.tokens, state.special, "target");
    },
    /** Fade the rows no edge of ``edges`` touches (null: none faded). @param {import("./edges.js").EdgeList | null} edges */
    markIdle(edges) {
      if (edges !== idleOf) {
        idleOf = edges;
        markIdle(left, right, idleOf);
      }
    }
  };
}
function markTarget(column, position) {
  for (const label of column.querySelectorAll(".attnw-target-row")) label.classList.remove("attnw-target-row");
  if (!Number.isInteger(position)) return;
  column.querySelector(`[data-index="${position}"]`)?.classList.add("attnw-target-row");
}
function renderTitles(left, right, titles) {
  left.textContent = titles[0];
  right.textContent = titles[1];
  left.style.height = right.style.height = `${HEADER_HEIGHT}px`;
}
function renderTooltip(tooltip, {
  node,
  tokens,
  edges,
  touching,
  columnTitle,
  coverage,
  rowNote = null,
  scoreNote = null,
  pinned = false,
  integer = false,
  lang = "en",
  compare = null
}) {
  const doc = tooltip.ownerDocument;
  tooltip.replaceChildren();
  const title = element(
    doc,
    "div",
    "attnw-tooltip-title",
    `${compare?.title ?? ""}${pinned ? tr(lang, "Pinned \xB7 ") : ""}`
  );
  const says = tr(lang, node.side === "target" ? "{column} draws on:" : "{column} feeds:", { column: columnTitle });
  title.append(...quotedToken(doc, tokens[node.index], node.index), ` \xB7 ${says}`);
  tooltip.append(title);
  const list = element(doc, "table", "attnw-tooltip-list");
  for (const e of touching.slice(0, TOOLTIP_ROWS)) {
    const other = node.side === "target" ? edges.source[e] : edges.target[e];
    const row = element(doc, "tr", "");
    row.dataset.index = String(other);
    const token = element(doc, "td", "attnw-tooltip-token");
    token.append(...quotedToken(doc, tokens[other], other));
    row.append(token, element(doc, "td", "attnw-tooltip-value", formatValue(edges.weight[e], integer)));
    const second = compare?.second?.get(other);
    if (compare?.second)
      row.append(
        element(
          doc,
          "td",
          "attnw-tooltip-value attnw-tooltip-compare",
          second === void 0 ? "\u2013" : compare.format(second)
        )
      );
    list.append(row);
  }
  tooltip.append(list);
  if (touching.length > TOOLTIP_ROWS) {
    tooltip.append(
      element(doc, "div", "attnw-tooltip-more", tr(lang, "\u2026 and {n} more", { n: touching.length - TOOLTIP_ROWS }))
    );
  }
  if (touching.length === 0) tooltip.append(element(doc, "div", "attnw-tooltip-more", tr(lang, "no edges")));
  if (rowNote) tooltip.append(element(doc, "div", "attnw-tooltip-more", `${rowNote[0]}: ${formatValue(rowNote[1])}`));
  if (scoreNote)
    tooltip.append(element(doc, "div", "attnw-tooltip-more", `${scoreNote[0]}: ${formatValue(scoreNote[1])}`));
  if (node.side === "target" && coverage < 0.9995) {
    tooltip.append(
      element(
        doc,
        "div",
        "attnw-tooltip-more",
        tr(lang, "stored edges carry {share}% of this row", { share: (coverage * 100).toFixed(1) })
      )
    );
  }
  tooltip.hidden = false;
}
function quotedToken(doc, token, index) {
  return ["\u201C", element(doc, "bdi", "attnw-tooltip-text", clippedToken(token, TOOLTIP_TOKEN)), `\u201D #${index}`];
}
function formatValue(value, integer = false) {
  if (integer) return String(Math.round(value));
  if (value === 0) return "0";
  const abs = Math.abs(value);
  if (abs >= 1e-3) return value.toFixed(4);
  return value.toExponential(2);
}
function scaleText(scale, signed, integer, lang) {
  const short = (v) => integer ? String(Math.round(v)) : String(Number(v.toPrecision(2)));
  const range = { low: signed ? short(-scale.low) : "0", high: short(scale.high) };
  if (scale.of === "focus") {
    const text2 = tr(lang, "colour: this token's edges, {low} to {high}", range);
    return signed && scale.low !== scale.high ? text2 + tr(lang, " (blue and red each to their own end; width by size)") : text2;
  }
  if (scale.of === "paths") {
    const text2 = tr(
      lang,
      "colour: the traced paths' edges, each layer's own range (the largest: {low} to {high})",
      range
    );
    return signed && scale.low !== scale.high ? text2 + tr(lang, " (blue and red each to their own end; width by size)") : text2;
  }
  if (scale.of === "layers") return tr(lang, "colour: each layer's own range (the largest: {low} to {high})", range);
  const all = tr(lang, "colour: all edges drawn, {low} to {high}", range);
  return scale.selfOnly > 0 ? all + tr(lang, " (not counting {value}: a token that sees only itself)", { value: short(scale.selfOnly) }) : all;
}
function renderLegend(legend, {
  table,
  signed,
  max,
  meanCoverage,
  minCoverage,
  edgeCount,
  drawnShare = 1,
  rowLabel = "",
  rowMean = null,
  integer = false,
  attention = false,
  lang = "en",
  compare = null,
  scale = null
}) {
  const doc = legend.ownerDocument;
  legend.replaceChildren();
  const stops3 = table.filter((_, i) => i % 32 === 0 || i === table.length - 1);
  const bar = element(doc, "span", "attnw-legend-bar");
  bar.style.background = `linear-gradient(to right, ${stops3.join(", ")})`;
  const [low, high] = scale ? [scale.low, scale.high] : [max, max];
  legend.append(
    element(doc, "span", "attnw-legend-label", signed ? formatValue(-low, integer) : "0"),
    bar,
    element(doc, "span", "attnw-legend-label", `${compare?.plusHigh ? "+" : ""}${formatValue(high, integer)}`)
  );
  if (scale) {
    const line = element(
      doc,
      "span",
      "attnw-legend-coverage attnw-legend-scale",
      scaleText(scale, signed, integer, lang)
    );
    probe(line, { scale: scale.of, low: String(signed ? -low : 0), high: String(high) });
    legend.append(line);
  }
  const share = meanCoverage * drawnShare;
  const percent2 = (x) => (x * 100).toFixed(1);
  const coverageText = minCoverage >= 0.9995 && drawnShare >= 0.9995 ? tr(lang, attention ? "{n} edges, all of the attention drawn" : "{n} edges, all of each row drawn", {
    n: edgeCount
  }) : tr(
    lang,
    attention ? "{n} edges carrying {share}% of the attention" : signed ? "{n} edges carrying {share}% of the rows' total size" : "{n} edges carrying {share}% of the rows' totals",
    { n: edgeCount, share: percent2(share) }
  ) + (minCoverage < 0.9995 ? tr(lang, " (the data keeps {mean}% per row on average, least {least}%)", {
    mean: percent2(meanCoverage),
    least: percent2(minCoverage)
  }) : "");
  legend.append(
    element(
      doc,
      "span",
      "attnw-legend-coverage",
      compare?.coverage ?? `${compare?.coveragePrefix ?? ""}${coverageText}`
    )
  );
  if (rowLabel && rowMean !== null) {
    legend.append(
      element(
        doc,
        "span",
        "attnw-legend-coverage",
        tr(lang, "{label}: {value} per row on average", { label: rowLabel, value: formatValue(rowMean) })
      )
    );
  }
  for (const note of compare?.notes ?? [])
    legend.append(element(doc, "span", "attnw-legend-coverage attnw-legend-compare", note));
  probe(legend, { max: String(max), mid: colorAt(table, 0.5, false), share: String(share) });
}

// src/minimap.js
var MINIMAP_ROOM = 18;
var STRIP = 10;
function createMinimap(doc, lang) {
  const root = element(doc, "div", "attnw-minimap");
  root.title = navigateWords(lang).minimap;
  root.setAttribute("aria-hidden", "true");
  const canvas = (
    /** @type {HTMLCanvasElement} */
    element(doc, "canvas", "attnw-minimap-ticks")
  );
  const box = element(doc, "div", "attnw-minimap-window");
  root.append(canvas, box);
  root.hidden = true;
  let shown = null;
  return {
    root,
    /**
     * Show the strip for the whole text, or hide it (args null: the input fits, or no graph).
     * @param {{ layout: import("./layout.js").Layout, values: Float64Array, table: string[], ink: string } | null} args
     */
    paint(args) {
      root.hidden = !args;
      if (!args) {
        shown = null;
        return;
      }
      const { layout, values, table, ink } = args;
      const n = values.length;
      const top = HEADER_HEIGHT;
      const height = layout.height - HEADER_HEIGHT - 4;
      shown = { top, height, n };
      Object.assign(root.style, {
        left: `${layout.width + (MINIMAP_ROOM - STRIP) / 2}px`,
        top: `${top}px`,
        width: `${STRIP}px`,
        height: `${height}px`
      });
      const dpr = doc.defaultView?.devicePixelRatio || 1;
      const [w, h] = [Math.round(STRIP * dpr), Math.round(height * dpr)];
      if (canvas.width !== w || canvas.height !== h) [canvas.width, canvas.height] = [w, h];
      canvas.style.width = `${STRIP}px`;
      canvas.style.height = `${height}px`;
      const ctx = canvas.getContext("2d");
      if (ctx) {
        ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
        ctx.clearRect(0, 0, STRIP, height);
        let max = 0;
        for (const v of values) max = Math.max(max, v);
        const tick = height / n;
        for (let i = 0; i < n; i++) {
          const t = max > 0 && values[i] > 0 ? 0.3 + 0.7 * Math.sqrt(values[i] / max) : 0;
          ctx.globalAlpha = t > 0 ? 0.5 + 0.5 * t : 0.12;
          ctx.fillStyle = t > 0 ? table[Math.round(t * (table.length - 1))] : ink;
          ctx.fillRect(0, i * tick, STRIP, Math.max(tick, 0.75));
        }
        ctx.globalAlpha = 1;
      }
      const size = layout.last - layout.first + 1;
      box.style.top = `${layout.first / n * height}px`;
      box.style.height = `${size / n * height}px`;
      probe(root, { first: String(layout.first), last: String(layout.last), n: String(n) });
    },
    /** The token at a page height on the strip (clamped to the text), or null when hidden. @param {number} clientY */
    rowAt(clientY) {
      if (!shown) return null;
      const y = clientY - root.getBoundingClientRect().top;
      return Math.max(0, Math.min(shown.n - 1, Math.floor(y / shown.height * shown.n)));
    }
  };
}

// src/model_view.js
function modelLayout(base, nLayers) {
  const columns = Array.from(
    { length: nLayers + 1 },
    (_, c) => base.leftX + (base.rightX - base.leftX) * c / nLayers
  );
  return { ...base, columns };
}
function modelNodeAt(layout, x, y) {
  const index = rowAt(layout, y);
  if (index === null) return null;
  const step = layout.columns.length > 1 ? layout.columns[1] - layout.columns[0] : 1;
  const layer = Math.round((x - layout.columns[0]) / step);
  return { layer: Math.max(0, Math.min(layout.columns.length - 1, layer)), index };
}
function transition(layout, layer) {
  return { ...layout, leftX: layout.columns[layer - 1], rightX: layout.columns[layer] };
}
function pathShares(perLayer, node) {
  const n = Math.max(node.index + 1, ...perLayer.map((edges) => rowTotals(edges).length));
  const shares = perLayer.map((edges) => new Float64Array(edges.count));
  const step = (layer, mass2, near) => {
    const edges = perLayer[layer - 1];
    const { source, target, weight, count: count2 } = edges;
    const [from, to] = near === "target" ? [target, source] : [source, target];
    const totals = rowTotals(edges);
    const next = new Float64Array(n);
    for (let e = 0; e < count2; e++) {
      const carried = mass2[from[e]];
      if (carried === 0 || weight[e] === 0) continue;
      const share = carried * Math.abs(weight[e]) / totals[target[e]];
      shares[layer - 1][e] = share;
      next[to[e]] += share;
    }
    return next;
  };
  const start = () => {
    const mass2 = new Float64Array(n);
    mass2[node.index] = 1;
    return mass2;
  };
  let mass = start();
  for (let layer = node.layer; layer >= 1; layer--) mass = step(layer, mass, "target");
  mass = start();
  for (let layer = node.layer + 1; layer <= perLayer.length; layer++) mass = step(layer, mass, "source");
  return shares;
}
var totalsOf = /* @__PURE__ */ new WeakMap();
function rowTotals(edges) {
  let totals = totalsOf.get(edges);
  if (!totals) {
    let largest = -1;
    for (let e = 0; e < edges.count; e++) largest = Math.max(largest, edges.source[e], edges.target[e]);
    totals = new Float64Array(largest + 1);
    for (let e = 0; e < edges.count; e++) totals[edges.target[e]] += Math.abs(edges.weight[e]);
    totalsOf.set(edges, totals);
  }
  return totals;
}
function tracePaths(perLayer, node, { most = 16, cover = 0.8 } = {}) {
  const shares = pathShares(perLayer, node);
  const traced = perLayer.map(() => /* @__PURE__ */ new Set());
  const step = (layer, reached2, near) => {
    const edges = perLayer[layer - 1];
    const share = shares[layer - 1];
    const ends = edges[near];
    let total = 0;
    const largest = [];
    for (let e = 0; e < share.length; e++) {
      if (share[e] === 0 || !reached2.has(ends[e])) continue;
      total += share[e];
      if (largest.length === most && share[e] <= share[largest[most - 1]]) continue;
      let at = largest.length;
      while (at > 0 && share[largest[at - 1]] < share[e]) at--;
      largest.splice(at, 0, e);
      if (largest.length > most) largest.pop();
    }
    let held = 0;
    for (const e of largest) {
      if (held >= cover * total) break;
      traced[layer - 1].add(e);
      held += share[e];
    }
    const far = near === "target" ? edges.source : edges.target;
    return new Set([...traced[layer - 1]].map((e) => far[e]));
  };
  let reached = /* @__PURE__ */ new Set([node.index]);
  for (let layer = node.layer; layer >= 1 && reached.size; layer--) reached = step(layer, reached, "target");
  reached = /* @__PURE__ */ new Set([node.index]);
  for (let layer = node.layer + 1; layer <= perLayer.length && reached.size; layer++)
    reached = step(layer, reached, "source");
  return traced;
}

// src/image_fact.js
function readImage(value, n) {
  if (typeof value !== "object" || value === null || !("rgb" in value)) return null;
  const { rgb: rgb2, size, grid, prefix } = (
    /** @type {Record<string, any>} */
    value
  );
  const whole = (v) => Number.isInteger(v) && /** @type {number} */
  v > 0;
  const [height, width] = Array.isArray(size) && size.every(whole) ? size : [0, 0];
  const [rows, cols] = Array.isArray(grid) && grid.every(whole) ? grid : [0, 0];
  const bytes = ArrayBuffer.isView(rgb2) ? new Uint8Array(rgb2.buffer, rgb2.byteOffset, rgb2.byteLength) : new Uint8Array(0);
  const problem = !height || !rows || size.length !== 2 || grid.length !== 2 ? "the image's size or patch grid is not two whole numbers" : bytes.length !== height * width * 3 ? `the image has ${bytes.length} bytes, not ${height}\xD7${width}\xD73` : !Number.isInteger(prefix) || prefix < 0 || prefix + rows * cols !== n ? `its ${rows}\xD7${cols} patches after ${prefix} other tokens are not the ${n} tokens` : "";
  return { width, height, rgb: bytes, rows, cols, prefix: problem ? 0 : prefix, problem };
}

// src/options.js
var EDGE_VIEWS = ["layer", "model"];
var MEAN_HEAD = -1;
var MAX_HEAD = -2;
function choice(trait, choices, key = trait, control2 = void 0) {
  const values = choices.map(([value]) => value);
  return {
    trait,
    key,
    kind: "choice",
    choices,
    control: control2,
    read: (value) => values.find((v) => v === value) ?? values[0]
  };
}
function count(trait, key, low, high, fallback, control2 = void 0) {
  return { trait, key, kind: "count", low, control: control2, read: (value, facts) => clamp(value, low, high(facts), fallback) };
}
function finite(trait, key, low, high, fallback, control2 = void 0) {
  const read = (value) => typeof value === "number" && Number.isFinite(value) && value >= low && value <= high ? value : fallback;
  return { trait, key, kind: "number", low, high, control: control2, read };
}
function text(trait, key = trait, control2 = void 0) {
  return { trait, key, kind: "text", control: control2, read: (value) => String(value ?? "") };
}
var VIEW_OPTIONS = [
  choice(
    "view",
    [
      ["layer", "one layer"],
      ["model", "whole model"],
      ["heads", "all heads"]
    ],
    "view",
    { label: "View" }
  ),
  text("method", "method", "own"),
  { ...count("layer", "layer", 1, (facts) => facts.nLayers, 1, "own"), views: ["layer"] },
  finite("binarize_threshold", "binarizeThreshold", 0, 1, 0.05, {
    label: "Edge if weight >",
    name: "Binarisation threshold",
    title: "An edge exists where the head-mean attention exceeds this",
    max: 0.99,
    step: 0.01,
    methodSetting: true
  }),
  {
    trait: "head",
    key: "head",
    kind: "other",
    control: "own",
    views: EDGE_VIEWS,
    read: (value, facts) => Number.isInteger(value) && /** @type {number} */
    value >= MAX_HEAD && /** @type {number} */
    value < facts.nHeads ? value : MEAN_HEAD
  },
  {
    ...count("top_k", "topK", 0, () => Infinity, 0, {
      label: "Edges per token",
      name: "Edges per token, 0 for all",
      title: "Draw at most this many edges into each token (0: all)"
    }),
    views: EDGE_VIEWS,
    more: "Edges per token"
  },
  {
    ...finite("threshold", "threshold", 0, Infinity, 0, {
      label: "Min weight",
      name: "Smallest weight drawn",
      title: "Hide edges whose weight is below this",
      step: 0.01
    }),
    views: EDGE_VIEWS,
    more: "Min weight"
  },
  {
    ...choice(
      "specials",
      [
        ["show", "show"],
        ["hide", "hide"],
        ["renormalise", "hide, renormalise rows"]
      ],
      "specials",
      { label: "Special tokens" }
    ),
    views: EDGE_VIEWS,
    more: "Special tokens"
  },
  {
    ...choice(
      "node_size",
      [
        ["", "off"],
        ["in", "in-degree"],
        ["out", "out-degree"]
      ],
      "nodeSize",
      {
        label: "Dot size",
        name: "Dots sized by degree",
        title: "Teaching overlay: size each token's dot by its in-degree (the right column's row sums) or out-degree (the left column's column sums)"
      }
    ),
    views: ["layer"],
    // the whole-model view draws no dots sized by degree
    more: "Dot size"
  },
  {
    trait: "window",
    key: "window",
    kind: "other",
    control: "own",
    views: EDGE_VIEWS,
    more: "Token rows",
    isSet: (window) => window.size !== 0,
    // a size chosen; where the window scrolled to is navigation, not a setting
    read: (value, facts) => ({
      start: clamp(Array.isArray(value) ? value[0] : 0, 0, Math.max(0, facts.n - 1), 0),
      size: clamp(Array.isArray(value) ? value[1] : 0, 0, Infinity, 0)
    })
  },
  { ...text("attribution", "attribution", "own"), views: ["layer"], more: "Token scores" },
  // only the one-layer view draws the bars
  { ...text("compare_method", "compareMethod"), more: "Compare with" },
  choice(
    "compare_mode",
    [
      ["side", "side by side"],
      ["difference", "difference"]
    ],
    "compareMode"
  ),
  choice("lang", LANGUAGES),
  // The bar's size: the basic controls, or all of them (controls.js: the More button).
  choice("controls", [
    ["basic", "basic"],
    ["all", "all"]
  ])
];
var PICKS = ["target", "selected"];
var FACTS = [
  "tokens",
  "special",
  "methods",
  "graphs",
  "attributions",
  "n_layers",
  "n_heads",
  "causal",
  "model_name",
  "layer_names",
  "column_names",
  "segments",
  "ready",
  "ready_row",
  "slices_ready",
  "targets",
  "image"
];
var REDRAW_ON = [
  ...FACTS,
  ...VIEW_OPTIONS.map((option2) => option2.trait),
  ...PICKS,
  "job",
  "heads_job",
  "attribution_data"
];
function choicesOf(trait) {
  return VIEW_OPTIONS.find((option2) => option2.trait === trait)?.choices ?? [];
}
function readOptions(model, facts) {
  return Object.fromEntries(VIEW_OPTIONS.map((option2) => [option2.key, option2.read(model.get(option2.trait), facts)]));
}
function clamp(value, low, high, fallback) {
  return typeof value === "number" && Number.isFinite(value) ? Math.min(high, Math.max(low, Math.round(value))) : fallback;
}

// src/state.js
var NO_METHOD = { id: "", label: "", per_head: false, cumulative: false, description: "" };
function readState(model) {
  const rawTokens = model.get("tokens");
  const tokens = !Array.isArray(rawTokens) ? [] : rawTokens.every((t) => typeof t === "string") ? rawTokens : rawTokens.map(String);
  const n = tokens.length;
  const rawSpecial = model.get("special");
  const special = Array.isArray(rawSpecial) && rawSpecial.length === n && rawSpecial.every((s) => typeof s === "boolean") ? rawSpecial : tokens.map((_, i) => Array.isArray(rawSpecial) && rawSpecial[i] === true);
  const metas = (raw) => Array.isArray(raw) ? raw.filter((m) => isObject(m) && typeof m.id === "string" && typeof m.label === "string") : [];
  const methods = metas(model.get("methods"));
  const nLayers = model.get("n_layers");
  const nHeads = model.get("n_heads");
  const problem = [
    n === 0 ? "the widget lists no tokens" : "",
    isCount(nLayers) && nLayers > 0 ? "" : `n_layers is ${JSON.stringify(nLayers)}, not a number of layers`,
    isCount(nHeads) && nHeads > 0 ? "" : `n_heads is ${JSON.stringify(nHeads)}, not a number of heads`,
    methods.length === 0 ? "the widget offers no methods" : ""
  ].filter(Boolean).join("; ");
  const L = problem ? 1 : nLayers;
  const H = problem ? 1 : nHeads;
  const options = readOptions(model, { n, nLayers: L, nHeads: H });
  const lang = options.lang;
  const shownMethods = methods.map((m) => translatedMethod(m, lang));
  const method = shownMethods.find((m) => m.id === options.method) ?? methods[0] ?? NO_METHOD;
  const rawNames = model.get("layer_names");
  const rawColumns = model.get("column_names");
  const rawSegments = model.get("segments");
  const segments = Array.isArray(rawSegments) ? rawSegments.filter((s) => isObject(s) && typeof s.label === "string" && isCount(s.size)) : [];
  const ready = model.get("ready");
  const readyRow = model.get("ready_row");
  const job = model.get("job");
  const slicesReady = model.get("slices_ready");
  const headsJob = model.get("heads_job");
  const targets = model.get("targets");
  const attributions = model.get("attributions");
  return (
    /** @type {ViewState} */
    {
      ...options,
      problem,
      tokens,
      special,
      nLayers: L,
      nHeads: H,
      causal: model.get("causal") === true,
      modelName: String(model.get("model_name") ?? ""),
      layerNames: Array.isArray(rawNames) && rawNames.length === L ? rawNames.map(String) : [],
      columnNames: Array.isArray(rawColumns) && rawColumns.length === L + 1 && rawColumns.every(Array.isArray) ? rawColumns.map((names) => names.map(String)) : [],
      segments: segments.reduce((sum, s) => sum + s.size, 0) === n ? segments : [],
      methods: shownMethods,
      graphs: metas(model.get("graphs")).map((m) => translatedMethod(m, lang)),
      method,
      layer: nearestLayer(method, options.layer),
      ready: isObject(ready) ? Object.fromEntries(Object.entries(ready).filter(([, layers]) => Array.isArray(layers))) : {},
      readyRow: isObject(readyRow) ? Object.fromEntries(Object.entries(readyRow).filter(([, row]) => isPinnedRow(row, n))) : {},
      job: isJob(job) ? job : {},
      slicesReady: isObject(slicesReady) ? Object.fromEntries(Object.entries(slicesReady).filter(([, slices]) => Array.isArray(slices))) : {},
      headsJob: isJob(headsJob) ? headsJob : {},
      targets: Array.isArray(targets) ? targets.filter((t) => isObject(t) && typeof t.id === "string" && typeof t.label === "string").map((t) => ({ ...t, position: isCount(t.position) && t.position < n ? t.position : null })) : [],
      target: String(model.get("target") ?? ""),
      attributions: Array.isArray(attributions) ? attributions.filter((a) => isObject(a) && typeof a.id === "string" && typeof a.label === "string").map((a) => ({
        ...a,
        label: tr(lang, a.label),
        description: tr(lang, a.description),
        hint: a.hint ? tr(lang, a.hint) : "",
        trust: a.trust ? tr(lang, a.trust) : ""
      })) : [],
      attributionData: isObject(model.get("attribution_data")) ? model.get("attribution_data") : {},
      offline: model.get("offline") === true,
      selected: selection(model.get("selected"), n, L),
      image: readImage(model.get("image"), n)
    }
  );
}
function translatedMethod(method, lang) {
  const words = (text2) => typeof text2 === "string" ? tr(lang, text2) : text2;
  return {
    ...method,
    label: tr(lang, method.label),
    group: words(method.group),
    description: tr(lang, method.description),
    explain: words(method.explain),
    hint: words(method.hint),
    trust: words(method.trust)
  };
}
function nearestLayer(method, layer) {
  const layers = Array.isArray(method.layers) && method.layers.length ? method.layers : null;
  if (!layers || layers.includes(layer)) return layer;
  return layers.reduce((best, l) => Math.abs(l - layer) < Math.abs(best - layer) ? l : best, layers[0]);
}
function layerName(state, layer) {
  if (layer === 0) return tr(state.lang, "input");
  const name = state.layerNames[layer - 1];
  return name ? trName(state.lang, name) : tr(state.lang, "layer {n}", { n: layer });
}
function layerMark(state, layer) {
  const match = /^(\p{L})\p{L}* (\d+)$/u.exec(state.layerNames[layer - 1] ?? "");
  return match ? `${match[1].toUpperCase()}${match[2]}` : String(layer);
}
function isObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
function isJob(job) {
  return isObject(job) && (job.total === void 0 || Number.isFinite(job.total)) && (job.done === void 0 || Number.isFinite(job.done));
}
function isCount(value) {
  return Number.isInteger(value) && /** @type {number} */
  value >= 0;
}
function selection(value, n, nLayers) {
  if (!isObject(value) || !isCount(value.index) || value.index >= n) return {};
  if (value.side === "source" || value.side === "target") return { side: value.side, index: value.index };
  if (isCount(value.layer) && value.layer <= nLayers) return { layer: value.layer, index: value.index };
  return {};
}
function isAvailable(state) {
  return hasLayer(state, state.layer) || hasPinnedRow(state);
}
function hasPinnedRow(state) {
  const row = pinnedRowOf(state);
  return !hasLayer(state, state.layer) && row !== null && row.layers.includes(state.layer);
}
function isPinnedRowComing(state) {
  const row = pinnedRowOf(state);
  return !hasLayer(state, state.layer) && row !== null && row.computing && !row.layers.includes(state.layer);
}
function pinnedRowOf(state) {
  const pinned = pinnedNode(state);
  const row = state.readyRow[state.method.id];
  return row !== void 0 && pinned?.side === "target" && row.index === pinned.index ? row : null;
}
function isPinnedRow(row, n) {
  return isObject(row) && isCount(row.index) && row.index < n && Array.isArray(row.layers) && row.layers.every(isCount) && typeof row.computing === "boolean";
}
function hasLayer(state, layer) {
  const layers = state.ready[state.method.id];
  return (layers === void 0 || layers.includes(layer)) && hasSlice(state, state.method.id, sliceIndex({ ...state, layer }));
}
function hasSlice(state, methodId, slice) {
  const slices = state.slicesReady[methodId];
  return slices === void 0 || slices.includes(slice);
}
function graphMethod(state) {
  const { graph } = state.method;
  if (!graph) return state.method;
  return [...state.methods, ...state.graphs ?? []].find((m) => m.id === graph) ?? state.method;
}
function hasGraphData(state) {
  const layers = state.ready[state.method.graph || state.method.id];
  return layers === void 0 || layers.length > 0;
}
function sliceIndex(state) {
  const layerIndex = state.layer - 1;
  if (!state.method.per_head) return layerIndex;
  const slot = state.head >= 0 ? state.head : state.head === MEAN_HEAD ? state.nHeads : state.nHeads + 1;
  return layerIndex * (state.nHeads + 2) + slot;
}
function headChoices(state) {
  return [MEAN_HEAD, MAX_HEAD, ...Array.from({ length: state.nHeads }, (_, h) => h)];
}
function neighbourStates(state) {
  if (state.view === "heads") return [];
  const others = state.methods.filter((m) => m.id !== state.method.id).map((method) => ({ ...state, method }));
  if (state.view === "model")
    return [{ ...state, view: (
      /** @type {const} */
      "layer"
    ) }, ...others.filter(hasWholeModel)];
  const out = [];
  for (const layer of [state.layer + 1, state.layer - 1]) {
    if (layer >= 1 && layer <= state.nLayers && hasLayer(state, layer) && nearestLayer(state.method, layer) === layer)
      out.push({ ...state, layer });
  }
  if (state.method.per_head && isAvailable(state)) {
    const heads = headChoices(state);
    const at = heads.indexOf(state.head);
    for (const i of [at + 1, at - 1]) if (i >= 0 && i < heads.length) out.push({ ...state, head: heads[i] });
  }
  if (hasWholeModel(state)) out.push({ ...state, view: (
    /** @type {const} */
    "model"
  ) });
  return [...out, ...others.filter(isAvailable)];
}
function hasWholeModel(state) {
  const layers = state.ready[state.method.id];
  return layers === void 0 || layers.length === state.nLayers;
}
function headLabel(state) {
  const n = state.nHeads;
  if (!state.method.per_head)
    return tr(state.lang, state.method.heads === "combined" ? "all {n} heads combined" : "mean of {n} heads", { n });
  if (state.head === MEAN_HEAD) return tr(state.lang, "mean of {n} heads", { n });
  if (state.head === MAX_HEAD) return tr(state.lang, "max over {n} heads", { n });
  return tr(state.lang, "head {n}", { n: state.head });
}
function columnTitles(state) {
  if (state.view === "model") return [columnName(state, 0), columnName(state, state.nLayers)];
  const [left, right] = layerColumns(state);
  const title = (layer) => state.columnNames[layer]?.map((name) => trName(state.lang, name)).join(" \xB7 ") ?? columnName(state, layer);
  return [title(left), title(right)];
}
function titleAtEdge(state) {
  return state.columnNames.length > 0 && state.view === "layer";
}
function layerColumns(state) {
  return [state.method.cumulative ? 0 : state.layer - 1, state.layer];
}
function columnName(state, layer) {
  return layer === 0 ? tr(state.lang, "Input (layer 0)") : capitalised(layerName(state, layer));
}
function rowTitle(state, side, index) {
  const column = layerColumns(state)[side === "source" ? 0 : 1];
  const names = state.columnNames[column];
  if (!names || names.length !== state.segments.length) return columnTitles(state)[side === "source" ? 0 : 1];
  let end = 0;
  const k = state.segments.findIndex((segment) => {
    end += segment.size;
    return index < end;
  });
  return capitalised(trName(state.lang, names[Math.max(0, k)]));
}
function capitalised(text2) {
  return text2.charAt(0).toUpperCase() + text2.slice(1);
}
function pinnedNode(state) {
  const { side, layer, index } = state.selected;
  if (typeof index !== "number" || index < 0 || index >= state.tokens.length) return null;
  if (side === "source" || side === "target") return { side, index };
  if (typeof layer === "number") return { side: layer === 0 ? "source" : "target", index };
  return null;
}
function pinnedModelNode(state) {
  const { side, index } = state.selected;
  let { layer } = state.selected;
  if (typeof index !== "number" || index < 0 || index >= state.tokens.length) return null;
  if (side === "target") layer = state.layer;
  if (side === "source") layer = state.method.cumulative ? 0 : state.layer - 1;
  if (typeof layer !== "number" || layer < 0 || layer > state.nLayers) return null;
  return { layer, index };
}

// src/frames.js
function envelopeCache(model) {
  const cache = /* @__PURE__ */ new Map();
  return (trait) => {
    const raw = model.get(trait);
    const hit = cache.get(trait);
    if (hit && hit.raw === raw) return hit.env;
    const env = decodeEnvelope(raw);
    cache.set(trait, { raw, env });
    return env;
  };
}
function dataOf(state, envelopeOf, method, rows = false) {
  const trait = `data_${method.id}${rows ? "_rows" : ""}`;
  const env = envelopeOf(trait);
  const n = state.tokens.length;
  if (env.slices !== state.nLayers * (method.per_head ? state.nHeads + 2 : 1) || env.rows !== n || env.cols !== (rows ? 1 : n)) {
    throw new Error(
      `${trait} has shape [${env.shape}], which does not fit ${n} tokens, ${state.nLayers} layers and ${state.nHeads} heads`
    );
  }
  return env;
}
var filteredOf = /* @__PURE__ */ new WeakMap();
var FILTERED_KEPT = 256;
function filteredSlice(env, slice, filter) {
  let kept = filteredOf.get(env);
  if (!kept) {
    kept = /* @__PURE__ */ new Map();
    filteredOf.set(env, kept);
  }
  const { topK, threshold, specials, special } = filter;
  const key = `${slice} ${topK} ${threshold} ${specials} ${specials === "show" ? "" : special.map(Number).join("")}`;
  let edges = kept.get(key);
  if (!edges) {
    edges = filterEdges(sliceEdges(env, slice), filter);
    if (kept.size >= FILTERED_KEPT) kept.delete(
      /** @type {string} */
      kept.keys().next().value
    );
    kept.set(key, edges);
  }
  return edges;
}
var NO_EDGES = {
  source: new Uint16Array(0),
  target: new Uint16Array(0),
  weight: new Float64Array(0),
  count: 0,
  max: 0
};
function layerFrame(state, width, envelopeOf, hovered) {
  const layout = windowLayout(state, width);
  const slice = sliceIndex(state);
  const pinned = pinnedNode(state);
  const focus = (hovered && "side" in hovered ? hovered : null) ?? pinned;
  const base = { kind: (
    /** @type {const} */
    "layer"
  ), state, slice, layout, pinned, focus };
  if (!isAvailable(state)) {
    return {
      ...base,
      available: false,
      env: null,
      edges: NO_EDGES,
      meanCoverage: 1,
      minCoverage: 1,
      rows: null,
      degrees: null
    };
  }
  const env = dataOf(state, envelopeOf, state.method);
  const edges = filteredSlice(env, slice, edgeFilter(state));
  let sum = 0;
  let min = 1;
  for (let r = 0; r < env.rows; r++) {
    const c = rowCoverage(env, slice, r);
    sum += c;
    min = Math.min(min, c);
  }
  let rows = null;
  if (state.method.row_label) {
    const rowEnv = dataOf(state, envelopeOf, state.method, true);
    rows = Float64Array.from({ length: rowEnv.rows }, (_, r) => rowEntries(rowEnv, slice, r).values[0]);
  }
  const degrees = state.nodeSize ? degreesOf(sliceEdges(env, slice), layout.n, state.nodeSize) : null;
  const signed = isSigned(state.method, env);
  const focusScale = focus ? focusScaleOf(edges, [pinned, focus]) : null;
  return {
    ...base,
    available: true,
    env,
    edges,
    meanCoverage: sum / env.rows,
    minCoverage: min,
    rows,
    degrees,
    signed,
    focusScale
  };
}
function modelFrame(state, width, envelopeOf, hovered) {
  const layout = modelLayout(windowLayout(state, width), state.nLayers);
  const { cumulative } = state.method;
  const drawn = graphMethod(state);
  const graphState = { ...state, method: drawn, head: cumulative ? MEAN_HEAD : state.head };
  const env = dataOf(state, envelopeOf, drawn);
  const filter = edgeFilter(state);
  const perLayer = Array.from(
    { length: state.nLayers },
    (_, l) => filteredSlice(env, sliceIndex({ ...graphState, layer: l + 1 }), filter)
  );
  const layers = Array.from({ length: state.nLayers }, (_, l) => l + 1);
  const unsent = layers.filter((layer) => !hasSlice(state, drawn.id, sliceIndex({ ...graphState, layer })));
  const pinned = pinnedModelNode(state);
  const focus = (hovered && "layer" in hovered ? hovered : null) ?? pinned;
  const reachEnv = cumulative && state.ready[state.method.id]?.length !== 0 ? dataOf(state, envelopeOf, state.method) : null;
  const shade = reachEnv && focus ? reachShading(state, reachEnv, focus) : null;
  const reachable = reachEnv && focus && focus.layer > 0 && hasLayer(state, focus.layer);
  const reach = reachable ? sliceEdges(reachEnv, focus.layer - 1, focus.index) : null;
  const signed = isSigned(drawn, env);
  return { kind: "model", state, layout, env, perLayer, shade, reach, pinned, focus, unsent, signed };
}
function windowLayout(state, width) {
  const n = state.tokens.length;
  return computeLayout(isLong(n) ? width - MINIMAP_ROOM : width, n, shownWindow(n, state.window));
}
function isLong(n) {
  return n > legibleRows();
}
function edgeFilter(state) {
  return { topK: state.topK, threshold: state.threshold, specials: state.specials, special: state.special };
}
function reachShading(state, cumulative, focus) {
  const n = state.tokens.length;
  const shade = Array.from({ length: state.nLayers + 1 }, () => new Array(n).fill(0));
  const scaled = (column) => {
    const max = Math.max(0, ...column.map(Math.abs));
    return max > 0 ? column.map((v) => Math.abs(v) / max) : column;
  };
  if (focus.layer === 0) {
    shade[0][focus.index] = 1;
    for (let layer = 1; layer <= state.nLayers; layer++) {
      if (!hasLayer(state, layer)) continue;
      for (let i = 0; i < n; i++) {
        const { cols, values } = rowEntries(cumulative, layer - 1, i);
        for (let k = 0; k < values.length; k++) if (cols[k] === focus.index) shade[layer][i] = values[k];
      }
      shade[layer] = scaled(shade[layer]);
    }
  } else if (hasLayer(state, focus.layer)) {
    shade[focus.layer][focus.index] = 1;
    const { cols, values } = rowEntries(cumulative, focus.layer - 1, focus.index);
    for (let k = 0; k < values.length; k++) shade[0][cols[k]] = values[k];
    shade[0] = scaled(shade[0]);
  }
  return shade;
}

// src/compare.js
function compareWords(lang) {
  const say = speaker(lang);
  return {
    compareWith: say("Compare with"),
    compareWithTitle: say("Draw a second method of the same graph beside this one (off: one method)"),
    off: say("off"),
    mode: say("Compare as"),
    modeTitle: say("Side by side on one colour scale, or the difference of the two per edge"),
    /** @param {number} n */
    notListed: (n) => say("{n} other methods draw another graph (other sources or layers): not listed", { n }),
    singleLayerOnly: say("Comparisons are drawn in the single-layer view only"),
    /** @param {string} a @param {string} b */
    difference: (a, b) => say("{a} \u2212 {b}", { a, b }),
    /** @param {string} a @param {string} b */
    bothColumns: (a, b) => say("Values: {a} | {b} \xB7 ", { a, b }),
    /** @param {string} a @param {string} b */
    besides: (a, b) => say("{a} (left) and {b} (right)", { a, b }),
    /** @param {string} a @param {number} max @param {string} b @param {number} maxB @param {(v: number) => string} f */
    sharedScale: (a, max, b, maxB, f) => say("One colour scale for both panes: the largest edge is {largest} ({a}: {max}, {b}: {maxB})", {
      largest: f(Math.max(max, maxB)),
      a,
      max: f(max),
      b,
      maxB: f(maxB)
    }),
    /** The second pane's drawn edges, beside the first pane's coverage line. @param {string} b @param {number} count */
    paneEdges: (b, count2) => say("{b}: {n} edges drawn", { b, n: count2 }),
    /** @param {string} a @param {string} b */
    differenceScale: (a, b) => say("Red: {a} is larger; blue: {b} is larger; grey: equal (0 at the centre)", { a, b }),
    /** @param {number} count */
    differenceEdges: (count2) => say("{n} edges of the difference", { n: count2 }),
    /** @param {string} b */
    neededFor: (b) => say("{b}: needed for the difference", { b }),
    /** @param {string} b @param {number} edges @param {number} n */
    paneLabel: (b, edges, n) => say("{method}: {edges} edges between {n} tokens", { method: b, edges, n }),
    /** @param {string} a @param {string} b */
    bothOnOneScale: (a, b) => say("{a} and {b} (one scale)", { a, b })
  };
}
var NO_EDGES2 = { ...NO_EDGES, drawnShare: 1 };
var PANE_GAP = 16;
function comparable(a, b) {
  return a.cumulative === b.cumulative && JSON.stringify(a.layers ?? null) === JSON.stringify(b.layers ?? null);
}
function compareMeta(state) {
  return state.view === "layer" ? comparedMethod(state) : null;
}
function comparedMethod(state) {
  const other = state.compareMethod ? state.methods.find((m) => m.id === state.compareMethod) : void 0;
  return other && comparable(other, state.method) ? other : null;
}
function sharedScale(a, b) {
  const max = Math.max(a.max, b.max);
  return [
    { ...a, max },
    { ...b, max }
  ];
}
function differenceEdges(a, b, n) {
  const values = new Float64Array(n * n);
  const stored = new Uint8Array(n * n);
  for (let e2 = 0; e2 < a.count; e2++) {
    const key = a.target[e2] * n + a.source[e2];
    values[key] += a.weight[e2];
    stored[key] = 1;
  }
  for (let e2 = 0; e2 < b.count; e2++) {
    const key = b.target[e2] * n + b.source[e2];
    values[key] -= b.weight[e2];
    stored[key] = 1;
  }
  let count2 = 0;
  for (let key = 0; key < n * n; key++) if (stored[key] && values[key] !== 0) count2++;
  const out = {
    source: new Uint16Array(count2),
    target: new Uint16Array(count2),
    weight: new Float64Array(count2),
    count: count2,
    max: 0
  };
  let e = 0;
  for (let key = 0; key < n * n; key++) {
    if (!stored[key] || values[key] === 0) continue;
    out.target[e] = Math.floor(key / n);
    out.source[e] = key % n;
    out.weight[e] = values[key];
    out.max = Math.max(out.max, Math.abs(values[key]));
    e++;
  }
  return out;
}
var differencesOf = /* @__PURE__ */ new WeakMap();
function filteredDifference(state, envA, envB, sliceA, sliceB) {
  const { topK, threshold, specials, special } = state;
  const key = `${sliceA} ${sliceB} ${topK} ${threshold} ${specials} ${special.map(Number).join("")}`;
  let kept = differencesOf.get(envA)?.get(envB);
  if (!kept) {
    if (!differencesOf.has(envA)) differencesOf.set(envA, /* @__PURE__ */ new WeakMap());
    kept = /* @__PURE__ */ new Map();
    differencesOf.get(envA).set(envB, kept);
  }
  let edges = kept.get(key);
  if (!edges) {
    const rows = (env, slice) => specials === "renormalise" ? filterEdges(sliceEdges(env, slice), { topK: 0, threshold: 0, specials, special }) : sliceEdges(env, slice);
    const difference = differenceEdges(rows(envA, sliceA), rows(envB, sliceB), state.tokens.length);
    edges = {
      ...filterEdges(difference, {
        topK,
        threshold,
        specials: specials === "renormalise" ? "hide" : specials,
        special
      }),
      drawnShare: 1
    };
    kept.set(key, edges);
  }
  return edges;
}
function compareFrames(state, other, width, envelopeOf, hovered) {
  const otherState = { ...state, method: other };
  if (state.compareMode === "difference") {
    const main2 = layerFrame(state, width, envelopeOf, hovered);
    const second2 = layerFrame(otherState, width, envelopeOf, hovered);
    if (!main2.available || !main2.env || !second2.available || !second2.env) {
      return {
        mode: "difference",
        other,
        main: { ...main2, edges: NO_EDGES2, signed: true, rows: null, degrees: null },
        second: second2,
        maxMain: 0,
        maxOther: 0
      };
    }
    const envB = dataOf(otherState, envelopeOf, other);
    const edges = filteredDifference(state, main2.env, envB, main2.slice, sliceIndex(otherState));
    const difference = {
      ...main2,
      edges,
      signed: true,
      focusScale: main2.focus ? focusScaleOf(edges, [main2.pinned, main2.focus]) : null,
      rows: null,
      degrees: null,
      meanCoverage: 1,
      minCoverage: 1
    };
    return { mode: "difference", other, main: difference, second: second2, maxMain: main2.edges.max, maxOther: second2.edges.max };
  }
  const paneWidth = Math.max(0, (width - PANE_GAP) / 2);
  const main = layerFrame(state, paneWidth, envelopeOf, hovered);
  const second = layerFrame(otherState, paneWidth, envelopeOf, hovered);
  const [edgesMain, edgesOther] = sharedScale(main.edges, second.edges);
  const shared = {
    signed: Boolean(main.signed || second.signed),
    focusScale: widerScale(main.focusScale, second.focusScale)
  };
  return {
    mode: "side",
    other,
    main: { ...main, ...shared, edges: edgesMain },
    second: { ...second, ...shared, edges: edgesOther },
    maxMain: main.edges.max,
    maxOther: second.edges.max
  };
}

// src/image.js
var PANEL_GAP = 16;
var BESIDE_FROM = 560;
var SIDE_MIN = 160;
var SIDE_MAX = 280;
function panelLayout(total, image) {
  if (!image) return { graphWidth: total, beside: false, width: 0, box: { width: 0, height: 0 } };
  const beside = total >= BESIDE_FROM;
  const side = beside ? Math.max(SIDE_MIN, Math.min(SIDE_MAX, Math.round(total * 0.3))) : Math.min(SIDE_MAX, total);
  const scale = image.problem ? 0 : side / Math.max(image.width, image.height);
  return {
    graphWidth: beside ? total - side - PANEL_GAP : total,
    beside,
    width: side,
    box: { width: Math.round(image.width * scale), height: Math.round(image.height * scale) }
  };
}
function rowHeat(row, prefix, rows, cols) {
  const heat = new Float64Array(rows * cols);
  let max = 0;
  let total = 0;
  let before = 0;
  for (let i = 0; i < row.length; i++) {
    const magnitude = Math.abs(row[i]);
    total += magnitude;
    if (i < prefix) before += magnitude;
    else if (i - prefix < heat.length) {
      heat[i - prefix] = row[i];
      max = Math.max(max, magnitude);
    }
  }
  return { heat, max, prefixShare: total > 0 ? before / total : 0 };
}
function inkContour(image) {
  const { width, height, rgb: rgb2 } = image;
  const light = new Float64Array(width * height);
  let low = Infinity;
  let high = -Infinity;
  for (let p = 0; p < light.length; p++) {
    light[p] = 0.2126 * rgb2[3 * p] + 0.7152 * rgb2[3 * p + 1] + 0.0722 * rgb2[3 * p + 2];
    low = Math.min(low, light[p]);
    high = Math.max(high, light[p]);
  }
  if (!(high - low >= 64)) return new Float64Array(0);
  const level = (low + high) / 2;
  const at = (x, y) => light[Math.min(height - 1, Math.max(0, y)) * width + Math.min(width - 1, Math.max(0, x))];
  const out = [];
  for (let y = -1; y < height; y++) {
    for (let x = -1; x < width; x++) {
      const corners = [
        [x, y],
        [x + 1, y],
        [x + 1, y + 1],
        [x, y + 1]
      ];
      const values = corners.map(([cx, cy]) => at(cx, cy));
      const points = [];
      for (let k = 0; k < 4; k++) {
        const a = values[k];
        const b = values[(k + 1) % 4];
        if (a >= level === b >= level) continue;
        const t = (level - a) / (b - a);
        const [ax, ay] = corners[k];
        const [bx, by] = corners[(k + 1) % 4];
        points.push(ax + 0.5 + t * (bx - ax), ay + 0.5 + t * (by - ay));
      }
      out.push(...points);
    }
  }
  return Float64Array.from(out);
}
function patchAt(box, rows, cols, x, y) {
  if (!(x >= 0 && y >= 0 && x < box.width && y < box.height)) return null;
  const r = Math.min(rows - 1, Math.floor(y / box.height * rows));
  const c = Math.min(cols - 1, Math.floor(x / box.width * cols));
  return r * cols + c;
}
function patchNode(state, image, patch) {
  const index = image.prefix + patch;
  return state.view === "model" ? { layer: state.layer, index } : { side: "target", index };
}
var HEAT_ALPHA = 0.6;
var HEAT_ALPHA_LOW = 0.3;
function heatAlpha(share) {
  return HEAT_ALPHA_LOW + (HEAT_ALPHA - HEAT_ALPHA_LOW) * Math.min(1, Math.max(0, share));
}
function imageScene(state, frame, envelopeOf, layout) {
  const { image } = state;
  if (!image) return null;
  const token = frame.focus?.index ?? 0;
  const layer = frame.focus?.layer !== void 0 && frame.focus.layer >= 1 ? frame.focus.layer : state.layer;
  const patch = (i) => i !== void 0 && i >= image.prefix ? i - image.prefix : null;
  const name = `\u201C${displayToken(state.tokens[token] ?? "")}\u201D`;
  const say = speaker(state.lang);
  const base = {
    image,
    layout,
    token,
    layer,
    heat: null,
    max: 0,
    signed: false,
    table: colormap("heat"),
    outline: patch(frame.focus?.index),
    pinned: patch(frame.pinned?.index),
    title: say("{token} at layer {layer}", { token: name, layer }),
    scaleText: "",
    note: ""
  };
  if (image.problem)
    return { ...base, title: "", note: say("Cannot draw the image: {problem}.", { problem: image.problem }) };
  if (!hasLayer(state, layer))
    return {
      ...base,
      note: say("{method} at layer {layer} is not computed yet.", { method: state.method.label, layer })
    };
  const env = dataOf(state, envelopeOf, state.method);
  const slice = sliceIndex({ ...state, layer });
  const row = new Float64Array(state.tokens.length);
  const { cols, values } = rowEntries(env, slice, token);
  for (let k = 0; k < values.length; k++) row[cols[k]] = values[k];
  const { heat, max, prefixShare } = rowHeat(row, image.prefix, image.rows, image.cols);
  const signed = isSigned(state.method);
  const own = base.outline;
  const others = own === null ? max : Math.max(0, ...Array.from(heat, (v, k) => k === own ? 0 : Math.abs(v)));
  const above = own !== null && others > 0 && Math.abs(heat[own]) > others;
  const names = state.tokens.slice(0, image.prefix).map(displayToken).join(", ");
  const coverage = rowCoverage(env, slice, token);
  const notes = [
    above ? say("its own patch ({value}) is above the scale", { value: formatValue(heat[
      /** @type {number} */
      own
    ]) }) : "",
    image.prefix ? say(
      image.prefix === 1 ? "{names} (not on the image) holds {share} of this row" : "{names} (not on the image) hold {share} of this row",
      { names, share: percent(prefixShare) }
    ) : "",
    coverage < 0.9995 ? say("the stored entries carry {share} of it", { share: percent(coverage) }) : ""
  ];
  return {
    ...base,
    heat,
    max: above ? others : max,
    signed,
    table: colormap(signed ? "diverging" : "heat"),
    scaleText: say("{method}: what {token} draws from each patch", { method: state.method.label, token: name }),
    note: notes.filter(Boolean).join("; ").replace(/^[a-z]/, (first) => first.toUpperCase())
  };
}
function percent(share) {
  return `${(share * 100).toFixed(1)}%`;
}

// src/dock.js
var DOCK_BESIDE_FROM = 600;
var DOCK_MIN = 200;
var DOCK_MAX = 260;
function dockLayout(total, panel, image) {
  if (image)
    return { graphWidth: panel.graphWidth, beside: panel.beside, width: panel.beside ? panel.width : 0, image };
  if (total < DOCK_BESIDE_FROM) return { graphWidth: total, beside: false, width: 0, image };
  const width = Math.max(DOCK_MIN, Math.min(DOCK_MAX, Math.round(total * 0.28)));
  return { graphWidth: total - width - PANEL_GAP, beside: true, width, image };
}

// src/draw.js
var BUCKETS = 24;
var CONTEXT_OPACITY = 0.12;
var CONTEXT_FILTER = "grayscale(1)";
var STRONG_WIDTH = 1.5;
var FOCUS_ALPHA = 0.8;
var HAIRLINE = 1;
var STROKE_EDGES = 256;
function* edgeStrokes(ctx, layout, edges, options) {
  if (edges.count === 0 || edges.max <= 0) return;
  ctx.save();
  ctx.beginPath();
  ctx.rect(0, HEADER_HEIGHT, layout.width, layout.height - HEADER_HEIGHT);
  ctx.clip();
  const { highlight } = options;
  const buckets = Array.from({ length: BUCKETS }, () => []);
  const strong = Array.from({ length: BUCKETS }, () => []);
  const windowed = layout.first > 0 || layout.last < layout.n - 1;
  for (let e = 0; e < edges.count; e++) {
    if (windowed && !isDrawn(layout, edges.source[e], edges.target[e])) continue;
    const focused = highlight?.has(e) ?? false;
    const end = focused ? scaleEnd(options.focusScale, edges.weight[e], edges.max) : edges.max;
    (focused ? strong : buckets)[bucketOf(edges.weight[e], end)].push(e);
  }
  ctx.lineCap = "round";
  if (options.unhighlighted ?? true)
    yield* strokeBuckets(ctx, layout, edges, buckets, options, highlight ? "context" : "plain");
  if (highlight && (options.highlighted ?? true)) yield* strokeBuckets(ctx, layout, edges, strong, options, "focus");
  ctx.restore();
}
function bucketStyle(b, sign, options, role = "plain") {
  const t = (b + 0.5) / BUCKETS;
  const wide = b >= (options.wideFrom ?? BUCKETS);
  const color = colorAt(options.table, sign * t, options.signed);
  const alpha = 0.15 + 0.85 * t;
  const width = wide ? 1 + 5.2 * (t - 0.5) : HAIRLINE;
  if (role === "context") return { color: greyOf(color), alpha: alpha * (options.contextOpacity ?? 1), width };
  if (role === "focus") {
    const size = t * sideShare(options.focusScale, sign);
    const wideFocus = size < t ? Math.floor(size * BUCKETS) >= (options.wideFrom ?? BUCKETS) : wide;
    const focusWidth = wideFocus ? (1 + 5.2 * (size - 0.5)) * STRONG_WIDTH : STRONG_WIDTH;
    return { color, alpha: Math.max(FOCUS_ALPHA, alpha), width: focusWidth };
  }
  return { color, alpha, width };
}
function sideShare(scale, sign) {
  if (!scale) return 1;
  const larger = Math.max(scale.low, scale.high);
  return larger > 0 ? (sign < 0 ? scale.low : scale.high) / larger : 1;
}
function greyOf(color) {
  const channels = color.startsWith("#") ? [1, 3, 5].map((i) => parseInt(color.slice(i, i + 2), 16)) : (color.match(/[\d.]+/g) ?? ["0", "0", "0"]).slice(0, 3).map(Number);
  const [r, g, b] = channels;
  const y = Math.round(Math.min(255, 0.2126 * r + 0.7152 * g + 0.0722 * b));
  return `rgb(${y}, ${y}, ${y})`;
}
function edgeStyle(weight, max, options, highlighted) {
  const role = options.highlight === null ? "plain" : highlighted ? "focus" : "context";
  const end = role === "focus" ? scaleEnd(options.focusScale, weight, max) : max;
  return bucketStyle(bucketOf(weight, end), Math.sign(weight) || 1, options, role);
}
function scaleEnd(scale, weight, max) {
  if (!scale) return max;
  const end = weight < 0 ? scale.low : scale.high;
  return end > 0 ? end : max;
}
function wideFrom(edges, limit) {
  const counts = new Array(BUCKETS).fill(0);
  if (edges.max > 0) for (let e = 0; e < edges.count; e++) counts[bucketOf(edges.weight[e], edges.max)]++;
  let from = BUCKETS;
  let total = 0;
  for (let b = BUCKETS - 1; b >= BUCKETS / 2; b--) {
    total += counts[b];
    if (total > limit) break;
    from = b;
  }
  return from;
}
function bucketOf(weight, max) {
  return Math.min(BUCKETS - 1, Math.floor(Math.abs(weight) / max * BUCKETS));
}
function* strokeBuckets(ctx, layout, edges, buckets, options, role) {
  const midX = (layout.leftX + layout.rightX) / 2;
  const scale = ctx.getTransform?.().a || 1;
  for (let b = 0; b < BUCKETS; b++) {
    for (const sign of options.signed ? [-1, 1] : [1]) {
      const members = options.signed ? buckets[b].filter((e) => Math.sign(edges.weight[e]) === sign) : buckets[b];
      const style = bucketStyle(b, sign, options, role);
      const most = style.width === HAIRLINE ? STROKE_EDGES : members.length;
      for (let from = 0; from < members.length; from += most) {
        const count2 = Math.min(most, members.length - from);
        ctx.beginPath();
        for (let i = from; i < from + count2; i++) {
          const y0 = edgeEndY(layout, edges.source[members[i]]);
          const y1 = edgeEndY(layout, edges.target[members[i]]);
          ctx.moveTo(layout.leftX, y0);
          ctx.bezierCurveTo(midX, y0, midX, y1, layout.rightX, y1);
        }
        yield count2;
        ctx.strokeStyle = style.color;
        ctx.globalAlpha = style.alpha;
        ctx.lineWidth = style.width === HAIRLINE ? HAIRLINE / scale : style.width;
        ctx.stroke();
      }
    }
  }
  ctx.globalAlpha = 1;
}

// src/export_legend.js
var LEGEND_HEIGHT = 26;
var BAR_WIDTH = 160;
var BAR_HEIGHT = 10;
var STEP = 32;
function legendOf(scene, method, lang = "en", label = "") {
  const maxima = scene.bundles.map((b) => b.edges.max).filter((m) => m > 0);
  if (maxima.length === 0) return null;
  const perLayer = scene.bundles.length > 1;
  const paths = scene.scale?.of === "paths";
  const focus = scene.scale?.of === "focus" || paths;
  return {
    label: label || method.label,
    title: tr(
      lang,
      paths ? "{method}: edge colour of the traced paths (each layer's own range; the largest layer's)" : perLayer ? "{method}: edge colour (scaled per layer; largest layer's range)" : focus ? "{method}: edge colour of the focused token's edges (their own range)" : "{method}: edge colour",
      { method: label || method.label }
    ),
    table: scene.table,
    signed: scene.signed,
    max: focus ? scene.scale.high : Math.max(...maxima),
    low: focus ? scene.scale.low : void 0,
    integer: Boolean(method.integer),
    perLayer
  };
}
function texts(spec) {
  const low = spec.signed ? formatValue(-(spec.low ?? spec.max), spec.integer) : "0";
  const high = formatValue(spec.max, spec.integer);
  return { low, high, title: spec.title };
}
function stops(spec) {
  const n = spec.table.length;
  return spec.table.map((color, i) => ({ offset: n > 1 ? i / (n - 1) : 0, color })).filter((_, i) => i % STEP === 0 || i === n - 1);
}
function svgLegend(add, svg, spec, x, y, text2) {
  const { low, high, title } = texts(spec);
  const defs = add("defs", {}, svg);
  const gradient = add("linearGradient", { id: "attnw-legend-ramp", x1: 0, x2: 1, y1: 0, y2: 0 }, defs);
  for (const stop of stops(spec)) add("stop", { offset: stop.offset.toFixed(4), "stop-color": stop.color }, gradient);
  const middle = y + LEGEND_HEIGHT / 2;
  text2(low, x, middle, "start");
  const barX = x + 8 * low.length + 6;
  add(
    "rect",
    {
      class: "attnw-legend-bar",
      x: barX,
      y: middle - BAR_HEIGHT / 2,
      width: BAR_WIDTH,
      height: BAR_HEIGHT,
      fill: "url(#attnw-legend-ramp)"
    },
    svg
  );
  text2(high, barX + BAR_WIDTH + 6, middle, "start");
  text2(title, barX + BAR_WIDTH + 14 + 8 * high.length, middle, "start");
}
function paintLegend(ctx, spec, x, y, foreground) {
  const { low, high, title } = texts(spec);
  const middle = y + LEGEND_HEIGHT / 2;
  ctx.fillStyle = foreground;
  ctx.font = "12px sans-serif";
  ctx.textAlign = "left";
  ctx.textBaseline = "middle";
  ctx.fillText(low, x, middle);
  const barX = x + 8 * low.length + 6;
  const ramp = ctx.createLinearGradient(barX, 0, barX + BAR_WIDTH, 0);
  for (const stop of stops(spec)) ramp.addColorStop(stop.offset, stop.color);
  ctx.fillStyle = ramp;
  ctx.fillRect(barX, middle - BAR_HEIGHT / 2, BAR_WIDTH, BAR_HEIGHT);
  ctx.fillStyle = foreground;
  ctx.fillText(high, barX + BAR_WIDTH + 6, middle);
  ctx.fillText(title, barX + BAR_WIDTH + 14 + 8 * high.length, middle);
}
function legendWidth(spec, measure) {
  const { low, high, title } = texts(spec);
  return 8 * low.length + 6 + BAR_WIDTH + 14 + 8 * high.length + measure(title);
}

// src/image_draw.js
var sources = /* @__PURE__ */ new WeakMap();
function sourceOf(doc, image) {
  const hit = sources.get(image.rgb.buffer);
  if (hit && hit.offset === image.rgb.byteOffset && hit.doc === doc) return hit.canvas;
  const canvas = (
    /** @type {HTMLCanvasElement} */
    doc.createElement("canvas")
  );
  canvas.width = image.width;
  canvas.height = image.height;
  const ctx = canvas.getContext("2d");
  if (ctx) {
    const data = ctx.createImageData(image.width, image.height);
    for (let p = 0; p < image.width * image.height; p++) {
      data.data[4 * p] = image.rgb[3 * p];
      data.data[4 * p + 1] = image.rgb[3 * p + 1];
      data.data[4 * p + 2] = image.rgb[3 * p + 2];
      data.data[4 * p + 3] = 255;
    }
    ctx.putImageData(data, 0, 0);
  }
  sources.set(image.rgb.buffer, { offset: image.rgb.byteOffset, doc, canvas });
  return canvas;
}
var contours = /* @__PURE__ */ new WeakMap();
function contourOf(image) {
  const hit = contours.get(image.rgb.buffer);
  if (hit && hit.offset === image.rgb.byteOffset) return hit.segments;
  const segments = inkContour(image);
  contours.set(image.rgb.buffer, { offset: image.rgb.byteOffset, segments });
  return segments;
}
var CONTOUR_COLOR = "#00ffff";
function drawImageRaster(ctx, scene, x, y, doc) {
  const { image, layout, heat, max, signed, table } = scene;
  const { width, height } = layout.box;
  if (!width || !height) return;
  const coarse = width / image.width >= 3;
  ctx.imageSmoothingEnabled = !coarse;
  ctx.drawImage(sourceOf(doc, image), x, y, width, height);
  const cell = (k) => {
    const r = Math.floor(k / image.cols);
    const c = k % image.cols;
    const x0 = x + Math.round(c * width / image.cols);
    const y0 = y + Math.round(r * height / image.rows);
    return [
      x0,
      y0,
      x + Math.round((c + 1) * width / image.cols) - x0,
      y + Math.round((r + 1) * height / image.rows) - y0
    ];
  };
  if (heat) {
    for (let k = 0; k < heat.length; k++) {
      const share = max > 0 ? heat[k] / max : 0;
      ctx.globalAlpha = heatAlpha(signed ? Math.abs(share) : share);
      ctx.fillStyle = colorAt(table, share, signed);
      const [cx, cy, cw, ch] = cell(k);
      ctx.fillRect(cx, cy, cw, ch);
    }
    ctx.globalAlpha = 1;
    const segments = coarse ? contourOf(image) : null;
    if (segments?.length) {
      const sx = width / image.width;
      const sy = height / image.height;
      ctx.save();
      ctx.beginPath();
      ctx.rect(x, y, width, height);
      ctx.clip();
      ctx.beginPath();
      for (let s = 0; s < segments.length; s += 4) {
        ctx.moveTo(x + segments[s] * sx, y + segments[s + 1] * sy);
        ctx.lineTo(x + segments[s + 2] * sx, y + segments[s + 3] * sy);
      }
      ctx.lineCap = "round";
      for (
        const [color, lineWidth] of
        /** @type {const} */
        [
          ["#000000", 3.5],
          [CONTOUR_COLOR, 1.5]
        ]
      ) {
        ctx.strokeStyle = color;
        ctx.lineWidth = lineWidth;
        ctx.stroke();
      }
      ctx.restore();
    }
  }
  const outline = (k, dash) => {
    const [cx, cy, cw, ch] = cell(k);
    ctx.setLineDash(dash);
    for (
      const [color, lineWidth] of
      /** @type {const} */
      [
        ["#000000", 4],
        ["#ffffff", 2]
      ]
    ) {
      ctx.strokeStyle = color;
      ctx.lineWidth = lineWidth;
      ctx.strokeRect(cx + 1, cy + 1, cw - 2, ch - 2);
    }
    ctx.setLineDash([]);
  };
  if (scene.pinned !== null && scene.pinned !== scene.outline) outline(scene.pinned, [4, 3]);
  if (scene.outline !== null) outline(scene.outline, []);
}
var stopsOf = (table) => table.filter((_, i) => i % 32 === 0 || i === table.length - 1);
var scaleEnds = (scene) => [scene.signed ? formatValue(-scene.max) : "0", formatValue(scene.max)];
function createImagePanel(doc, lang) {
  const root = element(doc, "div", "attnw-image");
  root.hidden = true;
  const title = element(doc, "div", "attnw-image-title");
  const canvas = (
    /** @type {HTMLCanvasElement} */
    element(doc, "canvas", "attnw-image-canvas")
  );
  canvas.setAttribute("role", "img");
  const scale = element(doc, "div", "attnw-image-scale");
  const low = element(doc, "span", "attnw-image-scale-label");
  const bar = element(doc, "span", "attnw-image-scale-bar");
  const high = element(doc, "span", "attnw-image-scale-label");
  scale.append(low, bar, high);
  const scaleText2 = element(doc, "div", "attnw-image-scale-text");
  const note = element(doc, "div", "attnw-image-note");
  root.append(title, canvas, scale, scaleText2, note);
  let shown = null;
  const paint = (scene) => {
    shown = scene;
    root.hidden = !scene;
    if (!scene) return;
    const { box } = scene.layout;
    root.style.width = `${scene.layout.width}px`;
    const dpr = doc.defaultView?.devicePixelRatio || 1;
    canvas.style.width = `${box.width}px`;
    canvas.style.height = `${box.height}px`;
    canvas.width = Math.round(box.width * dpr);
    canvas.height = Math.round(box.height * dpr);
    canvas.hidden = !box.width;
    const ctx = canvas.getContext("2d");
    if (ctx) {
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      drawImageRaster(ctx, scene, 0, 0, doc);
    }
    title.textContent = scene.title;
    scale.hidden = scaleText2.hidden = !scene.heat;
    [low.textContent, high.textContent] = scaleEnds(scene);
    bar.style.background = `linear-gradient(to right, ${stopsOf(scene.table).join(", ")})`;
    scaleText2.textContent = scene.scaleText;
    note.textContent = scene.note;
    canvas.setAttribute(
      "aria-label",
      tr(lang, "The input image, {rows}\xD7{cols} patches, coloured by {what}", {
        rows: scene.image.rows,
        cols: scene.image.cols,
        what: scene.scaleText || tr(lang, "nothing")
      })
    );
    probe(canvas, {
      token: String(scene.token),
      layer: String(scene.layer),
      outline: String(scene.outline ?? ""),
      pinned: String(scene.pinned ?? ""),
      max: String(scene.max)
    });
  };
  return { root, canvas, paint, scene: () => shown };
}
var LINE = 16;
var TITLE_FONT = "bold 12px sans-serif";
var FONT = "12px sans-serif";
var CHAR_WIDTH = 6.6;
function panelPicture(scene) {
  const { width, box } = scene.layout;
  const wrap = (text2) => {
    const lines = [""];
    for (const word of text2.split(" ")) {
      const last = lines[lines.length - 1];
      if (last && (last.length + 1 + word.length) * CHAR_WIDTH > width) lines.push(word);
      else lines[lines.length - 1] = last ? `${last} ${word}` : word;
    }
    return text2 ? lines : [];
  };
  const texts2 = [{ text: scene.title, x: 0, y: 10, bold: true }];
  const imageY = 22;
  let y = imageY + box.height + 8;
  const bar = scene.heat ? { x: 0, y, width: Math.min(width, 140), height: 10 } : null;
  if (bar) {
    const [low, high] = scaleEnds(scene);
    texts2.push({ text: low, x: 0, y: y + 20 }, { text: high, x: bar.width, y: y + 20, anchor: "end" });
    y += 32;
  }
  for (const line of [...wrap(scene.scaleText), ...wrap(scene.note)]) {
    texts2.push({ text: line, x: 0, y: y + 6 });
    y += LINE;
  }
  return { texts: texts2, imageY, bar, height: y + 4 };
}
function paintImagePanel(ctx, scene, x, y, foreground) {
  const { texts: texts2, imageY, bar } = panelPicture(scene);
  drawImageRaster(ctx, scene, x, y + imageY, ctx.canvas.ownerDocument);
  if (bar) {
    const stops3 = scene.table;
    for (let i = 0; i < stops3.length; i++) {
      ctx.fillStyle = stops3[i];
      ctx.fillRect(x + bar.x + i * bar.width / stops3.length, y + bar.y, bar.width / stops3.length + 0.5, bar.height);
    }
  }
  ctx.fillStyle = foreground;
  ctx.textBaseline = "middle";
  for (const t of texts2) {
    ctx.font = t.bold ? TITLE_FONT : FONT;
    ctx.textAlign = t.anchor === "end" ? "right" : "left";
    ctx.fillText(t.text, x + t.x, y + t.y);
  }
  ctx.textAlign = "left";
}
function svgImagePanel(add, svg, scene, x, y, text2) {
  const { texts: texts2, imageY, bar } = panelPicture(scene);
  const { box } = scene.layout;
  const doc = svg.ownerDocument;
  const raster = (
    /** @type {HTMLCanvasElement} */
    doc.createElement("canvas")
  );
  raster.width = box.width * 2;
  raster.height = box.height * 2;
  const ctx = raster.getContext("2d");
  let url = "";
  if (ctx && box.width) {
    ctx.setTransform(2, 0, 0, 2, 0, 0);
    drawImageRaster(ctx, scene, 0, 0, doc);
    try {
      url = raster.toDataURL("image/png");
    } catch {
      url = "";
    }
  }
  if (url) add("image", { x, y: y + imageY, width: box.width, height: box.height, href: url }, svg);
  if (bar) {
    const gradient = add("linearGradient", { id: "attnw-heat" }, add("defs", {}, svg));
    const stops3 = stopsOf(scene.table);
    stops3.forEach((color, i) => {
      add("stop", { offset: (i / (stops3.length - 1)).toFixed(3), "stop-color": color }, gradient);
    });
    add("rect", { x: x + bar.x, y: y + bar.y, width: bar.width, height: bar.height, fill: "url(#attnw-heat)" }, svg);
  }
  for (const t of texts2) text2(t.text, x + t.x, y + t.y, t.anchor ?? "start", t.bold ? "bold" : "normal");
}

// src/scene.js
var WIDE_EDGES = 32;
var WIDE_EDGES_DENSE = 8;
var DENSE = 300;
var inkOf = (dark) => dark ? "#e6e6e6" : "#333333";
function layerScene(frame, dark) {
  const { layout, edges, pinned, focus, degrees } = frame;
  const signed = frame.signed ?? isSigned(frame.state.method, frame.env);
  const ink = inkOf(dark);
  const highlight = focus ? /* @__PURE__ */ new Set([...pinned ? edgesOfNode(edges, pinned) : [], ...edgesOfNode(edges, focus)]) : null;
  const dots = [];
  if (degrees) {
    const x = degrees.kind === "in" ? layout.rightX : layout.leftX;
    const largest = Math.max(2, Math.min(LABEL_GAP, layout.rowHeight * 0.45));
    for (let i = layout.first; i <= layout.last; i++) {
      const radius = degrees.max > 0 ? largest * Math.sqrt(Math.abs(degrees.values[i]) / degrees.max) : 0;
      dots.push({ x, y: rowCenter(layout, i), radius, color: ink, alpha: 0.55 });
    }
  }
  const focusScale = highlight && highlight.size > 0 ? frame.focusScale ?? null : null;
  const wide = wideFrom(edges, edges.count > DENSE ? WIDE_EDGES_DENSE : WIDE_EDGES);
  const bundles = [{ layout, edges, highlight, wideFrom: wide, focusScale }];
  const scale = focusScale ? { of: "focus", low: signed ? focusScale.low : 0, high: focusScale.high, selfOnly: 0 } : { of: "all", low: signed ? edges.max : 0, high: edges.max, selfOnly: edges.selfOnly ?? 0 };
  return {
    layout,
    bundles,
    dots,
    marks: [],
    rules: segmentRules(layout, frame.state.segments),
    table: edgeTable(signed, dark),
    signed,
    scale,
    ink
  };
}
function modelScene(frame, dark) {
  const { layout, perLayer, focus, shade } = frame;
  const ink = inkOf(dark);
  const traced = focus ? tracePaths(perLayer, focus) : null;
  const scales = traced ? perLayer.map((edges, l) => tracedScale(edges, traced[l])) : null;
  const wide = Math.floor(WIDE_EDGES / Math.max(1, perLayer.length));
  const bundles = perLayer.map((edges, l) => ({
    layout: transition(layout, l + 1),
    edges,
    highlight: traced ? traced[l] : null,
    wideFrom: wideFrom(edges, wide),
    focusScale: scales?.[l] ?? null
  }));
  const traceScales = (scales ?? []).filter((s) => s !== null);
  const nodeTable = colormap(dark ? "dark" : "light");
  const radius = Math.max(1, Math.min(LABEL_GAP / 2, layout.rowHeight * 0.25));
  const dots = [];
  layout.columns.forEach((x, c) => {
    for (let i = layout.first; i <= layout.last; i++) {
      const y = rowCenter(layout, i);
      if (!shade) {
        dots.push({ x, y, radius, color: ink, alpha: 0.6 });
        continue;
      }
      const value = shade[c][i];
      dots.push({
        x,
        y,
        radius: radius * (1 + value),
        color: nodeTable[Math.round(value * (nodeTable.length - 1))],
        alpha: 0.25 + 0.75 * value
      });
    }
  });
  const marks = layout.columns.slice(1, -1).map((x, c) => ({ text: layerMark(frame.state, c + 1), x, y: HEADER_HEIGHT / 2 }));
  const rules = segmentRules(layout, frame.state.segments);
  const signed = frame.signed ?? frame.env.signed;
  const max = Math.max(0, ...perLayer.map((e) => e.max));
  return {
    layout,
    bundles,
    dots,
    marks,
    rules,
    table: edgeTable(signed, dark),
    signed,
    scale: traceScales.length ? {
      of: "paths",
      low: signed ? Math.max(...traceScales.map((s) => s.low)) : 0,
      high: Math.max(...traceScales.map((s) => s.high)),
      selfOnly: 0
    } : { of: "layers", low: signed ? max : 0, high: max, selfOnly: 0 },
    ink
  };
}
function tracedScale(edges, traced) {
  let low = 0;
  let high = 0;
  let lone = 0;
  for (const e of traced) {
    const w = edges.weight[e];
    if (edges.source[e] === edges.target[e] && inDegrees(edges)[edges.target[e]] === 1)
      lone = Math.max(lone, Math.abs(w));
    else if (w < 0) low = Math.max(low, -w);
    else high = Math.max(high, w);
  }
  if (low === 0 && high === 0) return lone > 0 ? { low: lone, high: lone } : null;
  return { low: low || high, high: high || low };
}
var inDegreesOf = /* @__PURE__ */ new WeakMap();
function inDegrees(edges) {
  let degrees = inDegreesOf.get(edges);
  if (!degrees) {
    let rows = 0;
    for (let e = 0; e < edges.count; e++) rows = Math.max(rows, edges.target[e] + 1);
    degrees = new Uint32Array(rows);
    for (let e = 0; e < edges.count; e++) degrees[edges.target[e]]++;
    inDegreesOf.set(edges, degrees);
  }
  return degrees;
}
function segmentRules(layout, segments) {
  const rules = [];
  let start = 0;
  for (const { size } of segments.slice(0, -1)) {
    start += size;
    if (start > layout.first && start <= layout.last) rules.push(rowCenter(layout, start) - layout.rowHeight / 2);
  }
  return rules;
}
function drawBase(ctx, scene) {
  drain(baseStrokes(ctx, scene));
}
function baseStrokes(ctx, scene) {
  return bundleStrokes(ctx, scene, { highlighted: false, unhighlighted: true });
}
function drawOverlay(ctx, scene) {
  drain(bundleStrokes(ctx, scene, { highlighted: true, unhighlighted: false }));
  drawMarks(ctx, scene);
}
function isHighlighted(scene) {
  return scene.bundles.some((b) => b.highlight !== null);
}
function drawScene(ctx, scene) {
  if (!isHighlighted(scene)) drain(bundleStrokes(ctx, scene, { highlighted: false, unhighlighted: true }));
  else {
    const context = contextLayer(ctx);
    if (context) {
      drain(bundleStrokes(context, scene, { highlighted: false, unhighlighted: true, role: "context" }));
      ctx.save();
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.globalAlpha = CONTEXT_OPACITY;
      ctx.drawImage(context.canvas, 0, 0);
      ctx.restore();
    } else {
      drain(
        bundleStrokes(ctx, scene, {
          highlighted: false,
          unhighlighted: true,
          role: "context",
          contextOpacity: CONTEXT_OPACITY
        })
      );
    }
    drain(bundleStrokes(ctx, scene, { highlighted: true, unhighlighted: false }));
  }
  drawMarks(ctx, scene);
}
function contextLayer(ctx) {
  const target = ctx.canvas;
  const doc = target?.ownerDocument;
  if (!doc || typeof ctx.drawImage !== "function") return null;
  const layer = (
    /** @type {HTMLCanvasElement} */
    doc.createElement("canvas")
  );
  layer.width = target.width;
  layer.height = target.height;
  const layered = layer.getContext("2d");
  layered?.setTransform(ctx.getTransform());
  return layered;
}
function* bundleStrokes(ctx, scene, { highlighted, unhighlighted, role, contextOpacity }) {
  for (const { layout, edges, highlight, wideFrom: wideFrom2, focusScale } of scene.bundles) {
    const shown = highlighted || role === "context" ? highlight ?? /* @__PURE__ */ new Set() : null;
    const options = {
      table: scene.table,
      signed: scene.signed,
      highlight: shown,
      wideFrom: wideFrom2,
      focusScale,
      unhighlighted,
      highlighted,
      contextOpacity
    };
    yield* edgeStrokes(ctx, layout, edges, options);
  }
}
function drain(strokes) {
  while (!strokes.next().done) ;
}
function drawRules(ctx, scene) {
  ctx.globalAlpha = 0.5;
  ctx.strokeStyle = scene.ink;
  ctx.lineWidth = 1;
  ctx.setLineDash([4, 4]);
  for (const y of scene.rules) {
    ctx.beginPath();
    ctx.moveTo(0, y);
    ctx.lineTo(scene.layout.width, y);
    ctx.stroke();
  }
  ctx.setLineDash([]);
}
function drawMarks(ctx, scene) {
  for (const dot of scene.dots) {
    if (dot.radius <= 0) continue;
    ctx.globalAlpha = dot.alpha;
    ctx.fillStyle = dot.color;
    ctx.beginPath();
    ctx.arc(dot.x, dot.y, dot.radius, 0, 2 * Math.PI);
    ctx.fill();
  }
  if (scene.rules.length) drawRules(ctx, scene);
  ctx.globalAlpha = 1;
  ctx.fillStyle = scene.ink;
  ctx.font = "11px sans-serif";
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  for (const mark of scene.marks) ctx.fillText(mark.text, mark.x, mark.y);
  ctx.textAlign = "left";
}

// src/exporter.js
var CAPTION_HEIGHT = 24;
var CAPTION_LINE = 16;
var HEADING_HEIGHT = 20;
function panesOf(picture) {
  const panes = [
    {
      scene: picture.scene,
      titles: picture.titles,
      titleAtEdge: picture.titleAtEdge ?? false,
      heading: picture.heading ?? "",
      notes: picture.notes ?? [],
      pinned: picture.pinned ?? null,
      x: 0
    }
  ];
  if (picture.compare) {
    const { scene, titles, heading, titleAtEdge: titleAtEdge2 } = picture.compare;
    const x = picture.scene.layout.width + PANE_GAP;
    panes.push({ scene, titles, titleAtEdge: titleAtEdge2, heading, notes: [], pinned: picture.pinned ?? null, x });
  }
  return panes;
}
function frameOf(picture) {
  const { scene, image, legend } = picture;
  const panel = image ? panelPicture(image) : null;
  const top = picture.heading ? HEADING_HEIGHT : 0;
  const graphWidth = picture.compare ? picture.scene.layout.width + PANE_GAP + picture.compare.scene.layout.width : scene.layout.width;
  const body = Math.max(
    top + Math.max(scene.layout.height, picture.compare?.scene.layout.height ?? 0),
    panel?.height ?? 0
  );
  const panelX = graphWidth + PANEL_GAP;
  return {
    width: image ? panelX + image.layout.width : graphWidth,
    body,
    height: body + CAPTION_HEIGHT + (legend ? LEGEND_HEIGHT : 0),
    panelX,
    top
  };
}
function framedCaption(picture, measure) {
  const frame = frameOf(picture);
  const width = Math.ceil(Math.max(frame.width, picture.legend ? legendWidth(picture.legend, measure) : 0));
  const lines = wrapText(picture.caption, width, measure);
  const extra = (lines.length - 1) * CAPTION_LINE;
  return { ...frame, width, height: frame.height + extra, lines, legendY: frame.body + CAPTION_HEIGHT + extra };
}
var HALO_WIDTH = 4;
function labelsOf({ scene, tokens, notes = [], pinned = null }) {
  const { layout } = scene;
  const at = pinned && pinned.index >= layout.first && pinned.index <= layout.last ? pinned : null;
  const shown = (i, side) => at?.side !== side ? isLabelled(layout, i) : i === at.index || isLabelled(layout, i) && Math.abs(i - at.index) * layout.rowHeight >= FOCUS_CLEARANCE;
  const labels = [];
  for (let i = layout.first; i <= layout.last; i++) {
    const text2 = displayToken(tokens[i]);
    const y = rowCenter(layout, i);
    const bold = i === at?.index && !isLabelled(layout, i);
    if (shown(i, "source"))
      labels.push({ text: text2, x: layout.leftX - LABEL_GAP, y, anchor: (
        /** @type {const} */
        "end"
      ), bold });
    if (shown(i, "target"))
      labels.push({ text: text2, x: layout.rightX + LABEL_GAP, y, anchor: (
        /** @type {const} */
        "start"
      ), bold });
  }
  return [...labels, ...notes.map((note) => ({ ...note, halo: true }))];
}
function svgOf(doc, picture) {
  const { width, height, body, panelX, top, lines, legendY } = framedCaption(picture, textMeasure(doc));
  const { svg, add } = svgDrawing(doc, width, height, picture.background);
  const text2 = (content, x, y, anchor, weight = "normal", parent = svg, halo = false) => {
    const outline = halo ? { stroke: picture.background, "stroke-width": HALO_WIDTH, "paint-order": "stroke", "stroke-linejoin": "round" } : {};
    const node = add(
      "text",
      {
        x,
        y,
        "text-anchor": anchor,
        "dominant-baseline": "middle",
        fill: picture.foreground,
        "font-weight": weight,
        ...outline
      },
      parent
    );
    node.textContent = xmlText(content);
  };
  panesOf(picture).forEach((pane, p) => {
    if (pane.heading) text2(pane.heading, pane.x, HEADING_HEIGHT / 2, "start", "bold");
    const g = top || pane.x ? add("g", { transform: `translate(${pane.x} ${top})` }, svg) : svg;
    svgPane(
      add,
      g,
      { ...pane, tokens: picture.tokens },
      `attnw-band${p ? `-${p}` : ""}`,
      picture.foreground,
      (content, x, y, anchor, weight, halo) => text2(content, x, y, anchor, weight, g, halo)
    );
  });
  if (picture.image) svgImagePanel(add, svg, picture.image, panelX, 0, text2);
  lines.forEach((line, i) => {
    text2(line, 0, body + 12 + i * CAPTION_LINE, "start");
    svg.lastElementChild?.setAttribute("class", "attnw-caption-line");
  });
  if (picture.legend) svgLegend(add, svg, picture.legend, 0, legendY, text2);
  return new (doc.defaultView ?? globalThis).XMLSerializer().serializeToString(svg);
}
function svgPane(add, parent, pane, clipId, foreground, text2) {
  const { scene } = pane;
  const { layout } = scene;
  const clip = add("clipPath", { id: clipId }, add("defs", {}, parent));
  add("rect", { x: 0, y: HEADER_HEIGHT, width: layout.width, height: layout.height - HEADER_HEIGHT }, clip);
  const group = add("g", { fill: "none", "stroke-linecap": "round", "clip-path": `url(#${clipId})` }, parent);
  const options = { table: scene.table, signed: scene.signed };
  const highlighted = isHighlighted(scene);
  const context = highlighted ? add("g", { opacity: CONTEXT_OPACITY }, group) : group;
  for (const bundle of scene.bundles) {
    const { edges, wideFrom: wideFrom2, focusScale } = bundle;
    const highlight = highlighted ? bundle.highlight ?? /* @__PURE__ */ new Set() : null;
    const { leftX, rightX } = bundle.layout;
    const midX = (leftX + rightX) / 2;
    if (edges.max <= 0) continue;
    for (const strong of [false, true]) {
      for (let e = 0; e < edges.count; e++) {
        if ((highlight?.has(e) ?? false) !== strong) continue;
        const style = edgeStyle(edges.weight[e], edges.max, { ...options, highlight, wideFrom: wideFrom2, focusScale }, strong);
        if (!isDrawn(bundle.layout, edges.source[e], edges.target[e])) continue;
        const y0 = edgeEndY(bundle.layout, edges.source[e]);
        const y1 = edgeEndY(bundle.layout, edges.target[e]);
        const d = `M${leftX} ${y0}C${midX} ${y0} ${midX} ${y1} ${rightX} ${y1}`;
        const stroke = {
          d,
          stroke: style.color,
          "stroke-opacity": style.alpha.toFixed(3),
          "stroke-width": style.width.toFixed(2)
        };
        add("path", stroke, strong ? group : context);
      }
    }
  }
  for (const dot of scene.dots) {
    if (dot.radius > 0)
      add(
        "circle",
        { cx: dot.x, cy: dot.y, r: dot.radius.toFixed(2), fill: dot.color, "fill-opacity": dot.alpha },
        parent
      );
  }
  for (const y of scene.rules)
    add(
      "line",
      { x1: 0, x2: layout.width, y1: y, y2: y, stroke: foreground, "stroke-opacity": 0.5, "stroke-dasharray": "4 4" },
      parent
    );
  for (const mark of scene.marks) text2(mark.text, mark.x, mark.y, "middle");
  text2(pane.titles[0], 0, 10, "start", "bold");
  if (pane.titleAtEdge) text2(pane.titles[1], layout.width, 10, "end", "bold");
  else text2(pane.titles[1], layout.rightX + LABEL_GAP, 10, "start", "bold");
  for (const label of labelsOf(pane))
    text2(label.text, label.x, label.y, label.anchor, label.bold ? "bold" : "normal", label.halo);
}
function paintPng(canvas, picture, scale = 2) {
  const ctx = canvas.getContext("2d");
  if (!ctx) return;
  ctx.font = "12px sans-serif";
  const { width, height, body, panelX, top, lines, legendY } = framedCaption(
    picture,
    (text2) => ctx.measureText(text2).width
  );
  canvas.width = Math.round(width * scale);
  canvas.height = Math.round(height * scale);
  ctx.setTransform(scale, 0, 0, scale, 0, 0);
  ctx.fillStyle = picture.background;
  ctx.fillRect(0, 0, width, height);
  for (const pane of panesOf(picture)) {
    const { layout } = pane.scene;
    ctx.fillStyle = picture.foreground;
    ctx.textBaseline = "middle";
    ctx.textAlign = "left";
    ctx.font = "bold 12px sans-serif";
    if (pane.heading) ctx.fillText(pane.heading, pane.x, HEADING_HEIGHT / 2);
    ctx.setTransform(scale, 0, 0, scale, pane.x * scale, top * scale);
    drawScene(ctx, pane.scene);
    ctx.fillStyle = picture.foreground;
    ctx.textBaseline = "middle";
    ctx.font = "bold 12px sans-serif";
    ctx.fillText(pane.titles[0], 0, 10);
    ctx.textAlign = pane.titleAtEdge ? "right" : "left";
    ctx.fillText(pane.titles[1], pane.titleAtEdge ? layout.width : layout.rightX + LABEL_GAP, 10);
    ctx.textAlign = "left";
    ctx.font = "12px sans-serif";
    for (const label of labelsOf({ ...pane, tokens: picture.tokens })) {
      ctx.textAlign = label.anchor === "end" ? "right" : "left";
      ctx.font = label.bold ? "bold 12px sans-serif" : "12px sans-serif";
      if (label.halo) {
        Object.assign(ctx, { strokeStyle: picture.background, lineWidth: HALO_WIDTH, lineJoin: "round" });
        ctx.strokeText(label.text, label.x, label.y);
      }
      ctx.fillText(label.text, label.x, label.y);
    }
    ctx.setTransform(scale, 0, 0, scale, 0, 0);
  }
  ctx.textAlign = "left";
  if (picture.image) paintImagePanel(ctx, picture.image, panelX, 0, picture.foreground);
  ctx.fillStyle = picture.foreground;
  ctx.font = "12px sans-serif";
  ctx.textBaseline = "middle";
  lines.forEach((line, i) => {
    ctx.fillText(line, 0, body + 12 + i * CAPTION_LINE);
  });
  if (picture.legend) paintLegend(ctx, picture.legend, 0, legendY, picture.foreground);
}
function download(container, blob, name) {
  const url = URL.createObjectURL(blob);
  const link = container.ownerDocument.createElement("a");
  link.href = url;
  link.download = name;
  link.hidden = true;
  container.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1e3);
}

// src/heads_export.js
var MIN_WIDTH = 480;
var PAD = 8;
var LINE2 = 16;
var BAR_WIDTH2 = 160;
var BAR_HEIGHT2 = 10;
var FONT2 = "12px sans-serif";
function framed(picture, caption, measure) {
  const width = Math.max(picture.width, MIN_WIDTH - 2 * PAD);
  const [low, high] = picture.ends;
  const barX = PAD + measure(low) + 6;
  const captionLines = wrapText(caption, width, measure);
  const keyLines = [
    ...wrapText(picture.title, width - (barX - PAD) - BAR_WIDTH2 - measure(high) - 12, measure),
    ...wrapText(picture.key, width, measure)
  ];
  const captionY = PAD + picture.height + LINE2;
  const keyY = captionY + captionLines.length * LINE2 + LINE2 / 2;
  const lines = [
    ...captionLines.map((text2, i) => ({ text: text2, x: PAD, y: captionY + i * LINE2 })),
    { text: low, x: PAD, y: keyY },
    { text: high, x: barX + BAR_WIDTH2 + 6, y: keyY },
    ...keyLines.map((text2, i) => ({
      text: text2,
      x: i === 0 ? barX + BAR_WIDTH2 + measure(high) + 12 : PAD,
      y: keyY + i * LINE2
    }))
  ];
  return {
    width: width + 2 * PAD,
    height: keyY + keyLines.length * LINE2 + PAD,
    lines,
    captionLines: captionLines.length,
    bar: { x: barX, y: keyY - BAR_HEIGHT2 / 2 }
  };
}
function stops2(table) {
  const n = table.length;
  return table.flatMap((color, i) => i % 32 === 0 || i === n - 1 ? [{ offset: n > 1 ? i / (n - 1) : 0, color }] : []);
}
function paintHeadsPng(canvas, picture, { caption, foreground, background }, scale) {
  const ctx = canvas.getContext("2d");
  if (!ctx) return;
  ctx.font = FONT2;
  const { width, height, lines, bar } = framed(picture, caption, (text2) => ctx.measureText(text2).width);
  canvas.width = Math.round(width * scale);
  canvas.height = Math.round(height * scale);
  ctx.setTransform(scale, 0, 0, scale, 0, 0);
  ctx.fillStyle = background;
  ctx.fillRect(0, 0, width, height);
  ctx.drawImage(picture.grid, PAD, PAD, picture.width, picture.height);
  const ramp = ctx.createLinearGradient(bar.x, 0, bar.x + BAR_WIDTH2, 0);
  for (const stop of stops2(picture.table)) ramp.addColorStop(stop.offset, stop.color);
  ctx.fillStyle = ramp;
  ctx.fillRect(bar.x, bar.y, BAR_WIDTH2, BAR_HEIGHT2);
  ctx.fillStyle = foreground;
  ctx.font = FONT2;
  ctx.textAlign = "left";
  ctx.textBaseline = "middle";
  for (const line of lines) ctx.fillText(line.text, line.x, line.y);
}
function headsSvg(doc, picture, { caption, foreground, background }) {
  const { width, height, lines, bar, captionLines } = framed(picture, caption, textMeasure(doc, FONT2));
  const { svg, add } = svgDrawing(doc, width, height, background);
  const text2 = (content, attributes, parent = svg) => {
    const node = add("text", { fill: foreground, ...attributes }, parent);
    node.textContent = xmlText(content);
    return node;
  };
  const grid = add("g", { transform: `translate(${PAD} ${PAD})`, class: "attnw-heads-grid" }, svg);
  const cut = (
    /** @type {HTMLCanvasElement} */
    doc.createElement("canvas")
  );
  const cutCtx = cut.getContext("2d");
  for (const cell of picture.cells) {
    const attributes = { x: cell.x, y: cell.y, width: cell.size, height: cell.size };
    if (!cell.ready) {
      add("rect", { ...attributes, fill: "none", stroke: foreground, "stroke-width": 1 }, grid);
      continue;
    }
    const side = Math.round(cell.size * picture.scale);
    cut.width = cut.height = side;
    let href = "";
    if (cutCtx) {
      cutCtx.imageSmoothingEnabled = false;
      const [sx, sy] = [Math.round(cell.x * picture.scale), Math.round(cell.y * picture.scale)];
      cutCtx.drawImage(picture.grid, sx, sy, side, side, 0, 0, side, side);
      try {
        href = cut.toDataURL("image/png");
      } catch {
        href = "";
      }
    }
    const image = add("image", { ...attributes, href, "image-rendering": "pixelated" }, grid);
    add("title", {}, image).textContent = xmlText(cell.name);
  }
  for (const label of picture.labels) {
    text2(
      label.text,
      { x: label.x, y: label.y, "text-anchor": label.anchor, "dominant-baseline": label.baseline, "font-size": 11 },
      grid
    );
  }
  const gradient = add("linearGradient", { id: "attnw-heads-ramp", x1: 0, x2: 1, y1: 0, y2: 0 }, add("defs", {}, svg));
  for (const stop of stops2(picture.table))
    add("stop", { offset: stop.offset.toFixed(4), "stop-color": stop.color }, gradient);
  add("rect", { x: bar.x, y: bar.y, width: BAR_WIDTH2, height: BAR_HEIGHT2, fill: "url(#attnw-heads-ramp)" }, svg);
  lines.forEach((line, i) => {
    const node = text2(line.text, { x: line.x, y: line.y, "dominant-baseline": "middle" });
    if (i < captionLines) node.setAttribute("class", "attnw-caption-line");
  });
  return new (doc.defaultView ?? globalThis).XMLSerializer().serializeToString(svg);
}

// src/heads_grid.js
var CELL_MIN = 40;
var CELL_MAX = 72;
var GAP = 4;
var MARGIN_LEFT = 28;
var MARGIN_TOP = 16;
function gridHeads(state) {
  if (!state.method.per_head) return [MEAN_HEAD];
  return [MEAN_HEAD, MAX_HEAD, ...Array.from({ length: state.nHeads }, (_, h) => h)];
}
function headName(head) {
  return head === MEAN_HEAD ? "mean" : head === MAX_HEAD ? "max" : String(head);
}
function gridLayout(width, rows, columns) {
  const fit = Math.floor((width - MARGIN_LEFT) / columns) - GAP;
  const cell = Math.max(CELL_MIN, Math.min(CELL_MAX, fit));
  return { cell, rows, columns, width: MARGIN_LEFT + columns * (cell + GAP), height: MARGIN_TOP + rows * (cell + GAP) };
}
function cellOrigin(layout, row, column) {
  return { x: MARGIN_LEFT + column * (layout.cell + GAP), y: MARGIN_TOP + row * (layout.cell + GAP) };
}
function cellAt(layout, x, y) {
  const step = layout.cell + GAP;
  const column = Math.floor((x - MARGIN_LEFT) / step);
  const row = Math.floor((y - MARGIN_TOP) / step);
  if (column < 0 || row < 0 || column >= layout.columns || row >= layout.rows) return null;
  const origin = cellOrigin(layout, row, column);
  if (x - origin.x >= layout.cell || y - origin.y >= layout.cell) return null;
  return { row, column };
}
function headsFrame(state, width, envelopeOf) {
  const heads = gridHeads(state);
  const ready = Array.from(
    { length: state.nLayers },
    (_, l) => heads.every((head) => hasLayer({ ...state, head }, l + 1))
  );
  const env = ready.some(Boolean) ? dataOf(state, envelopeOf, state.method) : null;
  const signed = isSigned(state.method);
  return { kind: "heads", state, layout: gridLayout(width, state.nLayers, heads.length), heads, env, ready, signed };
}
function cellSlice(frame, row, column) {
  return sliceIndex({ ...frame.state, layer: row + 1, head: frame.heads[column] });
}
function tableBytes(table) {
  const out = new Uint8Array(table.length * 3);
  table.forEach((css, i) => {
    const [r, g, b] = (css.match(/\d+/g) ?? ["0", "0", "0"]).map(Number);
    out.set([r, g, b], i * 3);
  });
  return out;
}
function slicePixels(env, slice, table, size = Infinity, diverging = env.signed) {
  const top = table.length / 3 - 1;
  const middle = diverging ? Math.round(top / 2) : 0;
  const full = env.signed ? 32767 : 65535;
  const max = sliceMax(env, slice);
  const side = Math.min(env.rows, Math.max(1, Math.floor(size)));
  const index = new Uint8Array(side * side).fill(middle);
  const strength = new Float64Array(side * side).fill(-1);
  for (let i = 0; i < env.rows; i++) {
    const r = slice * env.rows + i;
    const step = max > 0 ? env.scale[r] / full / max : 0;
    const start = r * env.k;
    const y = Math.floor(i * side / env.rows) * side;
    for (let k = 0; k < env.k; k++) {
      const v = env.values[start + k] * step;
      const u = diverging ? (v + 1) / 2 : Math.max(0, v);
      const j = env.indices ? env.indices[start + k] : k;
      const p = y + Math.floor(j * side / env.cols);
      const far = diverging ? Math.abs(v) : Math.max(0, v);
      if (far > strength[p]) {
        strength[p] = far;
        index[p] = Math.round(u * top);
      }
    }
  }
  const pixels = new Uint8ClampedArray(side * side * 4);
  for (let p = 0; p < index.length; p++) {
    const c = index[p] * 3;
    pixels[p * 4] = table[c];
    pixels[p * 4 + 1] = table[c + 1];
    pixels[p * 4 + 2] = table[c + 2];
    pixels[p * 4 + 3] = 255;
  }
  return { pixels, side };
}

// src/keyboard.js
function keyAction(state, focused, key, home = 0) {
  const n = state.tokens.length;
  const inModel = state.view === "model";
  const mine = focused && inModel === "layer" in focused ? focused : null;
  const at = (
    /** @type {any} */
    mine ?? (inModel ? pinnedModelNode(state) : pinnedNode(state)) ?? (inModel ? { layer: state.nLayers, index: home } : { side: "target", index: home })
  );
  const step = mine ? 1 : 0;
  const across = (direction) => inModel ? { layer: Math.max(0, Math.min(state.nLayers, at.layer + direction * step)), index: at.index } : { side: direction < 0 ? "source" : "target", index: at.index };
  switch (key) {
    case "ArrowDown":
      return { type: "move", node: { ...at, index: Math.min(n - 1, at.index + step) } };
    case "ArrowUp":
      return { type: "move", node: { ...at, index: Math.max(0, at.index - step) } };
    case "ArrowLeft":
      return { type: "move", node: across(-1) };
    case "ArrowRight":
      return { type: "move", node: across(1) };
    case "Enter":
    case " ":
      return { type: "toggle", node: at };
    case "Escape":
      return { type: "unpin" };
    default:
      return null;
  }
}
function toggledSelection(state, node) {
  const pinned = state.view === "model" ? pinnedModelNode(state) : pinnedNode(state);
  return sameNode(pinned, node) ? {} : node;
}
function sameNode(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

// src/navigate_events.js
function createNavigation(model, navigation, currentFrame, focusedRow) {
  let leftOver = 0;
  let dragging = false;
  const current = () => {
    const frame = currentFrame();
    if (!frame || frame.kind === "heads") return null;
    const { layout } = (
      /** @type {{ layout: import("./layout.js").Layout }} */
      /** @type {unknown} */
      frame
    );
    const n = layout.n;
    return { n, window: shownWindow(n, readState(model).window), rowHeight: layout.rowHeight };
  };
  const commit = (before, after) => {
    if (before.start === after.start && before.size === after.size) return;
    model.set("window", traitOf(after));
    model.save_changes();
  };
  const onWheel = (event) => {
    const now = current();
    if (!now) return;
    if (event.ctrlKey || event.metaKey) {
      if (now.n <= legibleRows()) return;
      event.preventDefault();
      if (event.deltaY !== 0) commit(now.window, zoomed(now.n, now.window, event.deltaY < 0 ? 1 : -1, focusedRow()));
      return;
    }
    const rows = wheelRows(event, now.rowHeight, now.window.size);
    if (Math.sign(rows) !== Math.sign(leftOver)) leftOver = 0;
    const step = wheelScroll(now.n, now.window, rows + leftOver);
    if (!step) {
      leftOver = 0;
      return;
    }
    event.preventDefault();
    leftOver = step.left;
    commit(now.window, step.window);
  };
  const onKey = (event) => {
    const now = current();
    if (!now || event.altKey || event.ctrlKey || event.metaKey) return false;
    const next = keyWindow(now.n, now.window, event.key, focusedRow());
    if (!next) return false;
    commit(now.window, next);
    return true;
  };
  const reveal = (index) => {
    const now = current();
    if (now) commit(now.window, revealed(now.n, now.window, index));
  };
  const centreOn = (index) => {
    const now = current();
    if (now) commit(now.window, centredOn(now.n, now.window, index));
  };
  const onMinimapDown = (event) => {
    dragging = true;
    navigation.minimap.root.setPointerCapture?.(event.pointerId);
    onMinimapMove(event);
  };
  const onMinimapMove = (event) => {
    event.stopPropagation();
    if (!dragging) return;
    event.preventDefault();
    const row = navigation.minimap.rowAt(event.clientY);
    if (row !== null) centreOn(row);
  };
  const onMinimapUp = () => {
    dragging = false;
  };
  const onMarker = (event) => {
    const button = (
      /** @type {HTMLElement | null} */
      /** @type {HTMLElement} */
      event.target.closest?.(".attnw-marker")
    );
    if (!button) return;
    event.stopPropagation();
    centreOn(Number(button.dataset.index));
  };
  const { minimap, markers } = navigation;
  const listeners = [
    [minimap.root, "pointerdown", onMinimapDown],
    [minimap.root, "pointermove", onMinimapMove],
    [minimap.root, "pointerup", onMinimapUp],
    [minimap.root, "pointercancel", onMinimapUp],
    [minimap.root, "click", (event) => event.stopPropagation()],
    [markers.root, "click", onMarker],
    [markers.root, "pointermove", (event) => event.stopPropagation()],
    [markers.root, "keydown", (event) => event.stopPropagation()]
    // Enter on a marker is the button's
  ];
  const firstRow = () => current()?.window.start ?? 0;
  return { onWheel, onKey, reveal, firstRow, listeners };
}

// src/controls.js
function enterCommits(commit) {
  return (event) => {
    if (event.key !== "Enter" || event.isComposing) return;
    event.preventDefault();
    event.stopPropagation();
    commit();
  };
}
function createControls(doc, model, lang, options = VIEW_OPTIONS) {
  const bar = {
    doc,
    lang,
    say: speaker(lang),
    set: (name, value) => model.set(name, value),
    commit: (name, value) => {
      model.set(name, value);
      model.save_changes();
    }
  };
  const withControls = options.filter((option2) => option2.control);
  const built = withControls.map((option2) => {
    const build = option2.control === "own" ? OWN_CONTROLS[option2.trait] : optionControl;
    if (!build) throw new Error(`controls.js builds no control of its own for the option ${option2.trait}`);
    return inViews(bar, option2, build(bar, option2));
  });
  const toggle = moreToggle(bar, options);
  const actions = element(doc, "span", "attnw-actions");
  actions.append(...toggle.nodes);
  const basic = element(doc, "div", "attnw-controls");
  const more = element(doc, "div", "attnw-controls attnw-more");
  basic.append(...built.flatMap((part, i) => withControls[i].more ? [] : part.nodes), actions);
  more.append(...built.flatMap((part, i) => withControls[i].more ? part.nodes : []));
  const root = element(doc, "div", "attnw-control-bar");
  root.append(basic, more);
  const parts = [...built, toggle];
  const listeners = parts.flatMap((part) => part.listeners);
  for (const [node, type, callback] of listeners) node.addEventListener(type, callback);
  const readsFrom = [...options.map((option2) => option2.key), ...OWN_CONTROLS_READ];
  let last = null;
  return {
    root,
    actions,
    more,
    update(state) {
      const previous = last;
      if (previous && readsFrom.every((name) => same(stateValue(previous, name), stateValue(state, name)))) return;
      last = state;
      more.hidden = state.controls !== "all";
      for (const part of parts) part.update(state);
    },
    destroy() {
      for (const [node, type, callback] of listeners) node.removeEventListener(type, callback);
    }
  };
}
function moreToggle({ doc, say, commit }, options) {
  const button = (
    /** @type {HTMLButtonElement} */
    element(doc, "button", "attnw-save attnw-more-toggle")
  );
  button.type = "button";
  const behind = options.filter((option2) => option2.more);
  return {
    nodes: [button],
    listeners: [
      [button, "click", () => commit("controls", button.getAttribute("aria-expanded") === "true" ? "basic" : "all")]
    ],
    update(state) {
      const open = state.controls === "all";
      const facts = { n: state.tokens.length, nLayers: state.nLayers, nHeads: state.nHeads };
      const changed = behind.filter((option2) => {
        const value = stateValue(state, option2.key);
        return option2.isSet ? option2.isSet(value) : !same(value, option2.read(void 0, facts));
      }).map((option2) => say(
        /** @type {string} */
        option2.more
      ));
      button.setAttribute("aria-expanded", String(open));
      button.textContent = open ? say("Fewer \u25B4") : changed.length ? say("More ({n} set) \u25BE", { n: changed.length }) : say("More \u25BE");
      button.title = open ? say("Show the basic controls only") : changed.length ? say("Show every control. Set behind it: {names}", { names: changed.join(say(", ")) }) : say("Show every control: edge filters, special tokens, token scores, comparison, downloads");
    }
  };
}
function inViews({ say }, option2, part) {
  const { views } = option2;
  if (!views) return part;
  const fields = part.nodes.flatMap((node) => [
    ...node.matches("select, input") ? [
      /** @type {HTMLInputElement | HTMLSelectElement} */
      node
    ] : [],
    ...node.querySelectorAll("select"),
    ...node.querySelectorAll("input")
  ]);
  const names = Object.fromEntries(choicesOf("view"));
  let saved = [];
  return {
    ...part,
    update(state) {
      for (const [node, disabled, title] of saved) {
        if (disabled !== null) node.disabled = disabled;
        if (title) node.title = title;
        else node.removeAttribute("title");
      }
      saved = [];
      part.update(state);
      if (views.includes(state.view)) return;
      const why = say("Does nothing in the view \u201C{view}\u201D: it applies to {views}", {
        view: say(names[state.view] ?? state.view),
        views: views.map((view) => `\u201C${say(names[view] ?? view)}\u201D`).join(say(", "))
      });
      for (const node of part.nodes) {
        saved.push([node, null, node.title]);
        node.title = why;
      }
      for (const field of fields) {
        saved.push([field, field.disabled, field.title]);
        field.disabled = true;
        field.title = why;
      }
    }
  };
}
function optionControl({ doc, say, commit }, option2) {
  const spec = (
    /** @type {import("./options.js").ControlSpec} */
    option2.control
  );
  const className = `attnw-${option2.trait.replaceAll("_", "-")}`;
  const name = say(spec.name ?? spec.label);
  const properties = spec.title ? { title: say(spec.title) } : {};
  const hidden = (state) => Boolean(spec.methodSetting) && !state.method.settings?.includes(option2.trait);
  if (option2.kind === "choice") {
    const entries = (
      /** @type {Array<[string, string]>} */
      option2.choices.map(
        ([value, text2]) => (
          /** @type {[string, string]} */
          [value, say(text2)]
        )
      )
    );
    const menu = (
      /** @type {HTMLSelectElement} */
      control(doc, "select", className, name, properties, entries)
    );
    const node2 = labelled(doc, say(spec.label), menu);
    return {
      nodes: [node2],
      listeners: [[menu, "change", () => commit(option2.trait, menu.value)]],
      update(state) {
        node2.hidden = hidden(state);
        menu.value = String(stateValue(state, option2.key));
      }
    };
  }
  if (option2.kind !== "count" && option2.kind !== "number")
    throw new Error(`the option ${option2.trait} (${option2.kind}) has no control of its kind`);
  const low = option2.low ?? -Infinity;
  const high = Math.min(spec.max ?? Infinity, option2.high ?? Infinity);
  const bounds = { type: "number", step: String(spec.step ?? 1), ...properties };
  if (Number.isFinite(low)) bounds.min = String(low);
  if (Number.isFinite(high)) bounds.max = String(high);
  const field = (
    /** @type {HTMLInputElement} */
    control(doc, "input", className, name, bounds)
  );
  const node = labelled(doc, say(spec.label), field);
  const onCommit = () => {
    const value = Math.min(high, Math.max(low, Number(field.value) || 0));
    commit(option2.trait, option2.kind === "count" ? Math.round(value) : value);
  };
  return {
    nodes: [node],
    // Enter commits a number field. Notebook hosts bind Enter (JupyterLab: edit the cell, or run it with
    // Shift): the key stops here, so it reaches neither them nor the plot.
    listeners: [
      [field, "change", onCommit],
      [field, "keydown", enterCommits(onCommit)]
    ],
    update(state) {
      node.hidden = hidden(state);
      if (doc.activeElement !== field) field.value = String(stateValue(state, option2.key));
    }
  };
}
var OWN_CONTROLS_READ = [
  "methods",
  "attributions",
  "nHeads",
  "nLayers",
  "layerNames",
  "targets",
  "target",
  "tokens",
  "selected"
  // the window keeps the pinned token in view
];
var OWN_CONTROLS = {
  method({ doc, say, set, commit }) {
    const method = (
      /** @type {HTMLSelectElement} */
      control(doc, "select", "attnw-method", say("Method"))
    );
    let last = null;
    let menuKey = "";
    const onMethod = () => {
      const chosen = last?.methods.find((m) => m.id === method.value);
      if (chosen && last) set("layer", nearestLayer(chosen, last.layer));
      commit("method", method.value);
    };
    return {
      nodes: [labelled(doc, say("Method"), method)],
      listeners: [[method, "change", onMethod]],
      update(state) {
        last = state;
        const key = JSON.stringify(state.methods.map((m) => [m.id, m.label, m.group, m.hint]));
        if (key !== menuKey) {
          menuKey = key;
          method.replaceChildren(...methodOptions(doc, state.methods));
        }
        method.value = state.method.id;
        method.title = state.method.hint || state.method.description;
      }
    };
  },
  layer({ doc, say, commit }) {
    const layer = (
      /** @type {HTMLInputElement} */
      control(doc, "input", "attnw-layer", say("Layer"), { type: "range", min: "1", step: "1" })
    );
    const layerValue = element(doc, "output", "attnw-layer-value");
    return {
      nodes: [labelled(doc, say("Layer"), layer, layerValue)],
      listeners: [[layer, "input", () => commit("layer", Number(layer.value))]],
      update(state) {
        const layers = state.method.layers?.length ? state.method.layers : null;
        layer.min = String(layers ? layers[0] : 1);
        layer.max = String(layers ? layers[layers.length - 1] : state.nLayers);
        layer.value = String(state.layer);
        layerValue.textContent = state.layerNames.length ? layerName(state, state.layer) : `${state.layer} / ${state.nLayers}`;
      }
    };
  },
  head({ doc, say, commit }) {
    const head = (
      /** @type {HTMLSelectElement} */
      control(doc, "select", "attnw-head", say("Head"))
    );
    let menuKey = "";
    return {
      nodes: [labelled(doc, say("Head"), head)],
      listeners: [[head, "change", () => commit("head", Number(head.value))]],
      update(state) {
        if (String(state.nHeads) !== menuKey) {
          menuKey = String(state.nHeads);
          const names = { [MEAN_HEAD]: say("mean"), [MAX_HEAD]: say("max") };
          head.replaceChildren(
            ...headChoices(state).map((h) => option(doc, String(h), names[h] ?? say("head {n}", { n: h })))
          );
        }
        head.value = String(state.method.per_head ? state.head : MEAN_HEAD);
        head.disabled = !state.method.per_head || state.view === "model" && state.method.cumulative;
        head.title = state.method.per_head ? "" : say("{method} averages the heads", { method: state.method.label });
      }
    };
  },
  /** The token rows shown: how many, and from which. */
  window({ doc, say, lang, commit }) {
    const nav = navigateWords(lang);
    const rows = (
      /** @type {HTMLSelectElement} */
      control(doc, "select", "attnw-window-size", nav.windowTitle)
    );
    const from = (
      /** @type {HTMLInputElement} */
      control(doc, "input", "attnw-window-start", say("First token row shown"), { type: "number", min: "0", step: "1" })
    );
    const node = labelled(doc, say("Token rows"), rows, element(doc, "span", "attnw-control-name", say("from")), from);
    const onWindow = () => commit("window", [Math.max(0, Math.round(Number(from.value) || 0)), Number(rows.value)]);
    let now = { n: 0, shown: { start: 0, size: 1 }, pinned: (
      /** @type {number | null} */
      null
    ) };
    const onSize = () => commit("window", traitOf(resized(now.n, now.shown, Number(rows.value), now.pinned)));
    return {
      nodes: [node],
      listeners: [
        [rows, "change", onSize],
        [from, "change", onWindow],
        [from, "keydown", enterCommits(onWindow)]
      ],
      update(state) {
        const n = state.tokens.length;
        node.hidden = n <= 32;
        const zoomed2 = state.window.size ? Math.min(state.window.size, n) : 0;
        const sizes = [.../* @__PURE__ */ new Set([0, ...[16, 32, 64, 128].filter((s) => s < n), n, zoomed2])].sort((a, b) => a - b);
        const labels = sizes.map((s) => [String(s), s === 0 ? nav.windowAuto : s === n ? nav.windowAll : String(s)]);
        if (JSON.stringify(labels) !== JSON.stringify([...rows.options].map((o) => [o.value, o.text]))) {
          rows.replaceChildren(...labels.map(([value, text2]) => option(doc, value, text2)));
        }
        rows.value = String(zoomed2);
        const shown = shownWindow(n, state.window);
        now = { n, shown, pinned: pinnedNode(state)?.index ?? null };
        from.max = String(Math.max(0, n - shown.size));
        if (doc.activeElement !== from) from.value = String(shown.start);
        from.disabled = shown.size >= n;
      }
    };
  },
  /** Token scores, and the target they explain (a pick, not a view option: it belongs with them). */
  attribution({ doc, say, commit }) {
    const attribution = (
      /** @type {HTMLSelectElement} */
      control(doc, "select", "attnw-attribution", say("Token scores"))
    );
    const target = (
      /** @type {HTMLSelectElement} */
      control(doc, "select", "attnw-target", say("Target to explain"), {
        title: say("The number the token scores explain: a logit, a similarity, or your own (w.set_target)")
      })
    );
    const targetControl = labelled(doc, say("Target"), target);
    let menuKey = "";
    let targetsKey = "";
    return {
      nodes: [labelled(doc, say("Token scores"), attribution), targetControl],
      listeners: [
        [attribution, "change", () => commit("attribution", attribution.value)],
        [target, "change", () => commit("target", target.value)]
      ],
      update(state) {
        const key = JSON.stringify(state.attributions.map((a) => [a.id, a.label, a.hint]));
        if (key !== menuKey) {
          menuKey = key;
          attribution.replaceChildren(
            option(doc, "", say("off")),
            ...state.attributions.map((a) => option(doc, a.id, a.label, a.hint))
          );
        }
        const targetKey = JSON.stringify(state.targets);
        if (targetKey !== targetsKey) {
          targetsKey = targetKey;
          target.replaceChildren(...state.targets.map((t) => option(doc, t.id, t.label)));
        }
        target.value = state.target;
        targetControl.hidden = state.targets.length === 0 || !state.attribution;
        attribution.value = state.attribution;
        attribution.disabled = state.targets.length === 0;
        attribution.title = state.targets.length ? say("Gradient or blank-out scores of each token for the chosen target") : say(
          "This model has no output head: choose a target from Python, e.g. w.set_target(attn_widget.targets.similarity(...))"
        );
      }
    };
  }
};
function stateValue(state, key) {
  return (
    /** @type {Record<string, unknown>} */
    /** @type {unknown} */
    state[key]
  );
}
function same(a, b) {
  return a === b || typeof a === "object" && JSON.stringify(a) === JSON.stringify(b);
}
function control(doc, tag, className, label, properties = {}, options = []) {
  const node = element(doc, tag, className);
  Object.assign(node, properties);
  node.setAttribute("aria-label", label);
  node.dataset.lmSuppressShortcuts = "true";
  if (options.length) node.replaceChildren(...options.map(([value, text2]) => option(doc, value, text2)));
  return node;
}
function labelled(doc, text2, ...children) {
  const label = element(doc, "label", "attnw-control");
  label.append(element(doc, "span", "attnw-control-name", text2), ...children);
  return label;
}
function methodOptions(doc, methods) {
  const groups = /* @__PURE__ */ new Map();
  for (const m of methods) {
    const heading = typeof m.group === "string" ? m.group : "";
    groups.set(heading, [...groups.get(heading) ?? [], option(doc, m.id, m.label, m.hint)]);
  }
  const ordered = [...groups].sort(([a], [b]) => Number(!a) - Number(!b));
  return ordered.flatMap(([heading, options]) => {
    if (!heading) return options;
    const group = (
      /** @type {HTMLOptGroupElement} */
      element(doc, "optgroup", "", "")
    );
    group.label = heading;
    group.append(...options);
    return [group];
  });
}
function option(doc, value, text2, hint = "") {
  const node = (
    /** @type {HTMLOptionElement} */
    element(doc, "option", "", text2)
  );
  node.value = value;
  if (hint) node.title = hint;
  return node;
}

// src/pending.js
function createPending(doc, model, lang) {
  const say = speaker(lang);
  const root = element(doc, "div", "attnw-pending");
  root.setAttribute("role", "status");
  const message = element(doc, "p", "attnw-pending-message");
  const buttons = element(doc, "div", "attnw-pending-buttons");
  const computeLayer = (
    /** @type {HTMLButtonElement} */
    element(doc, "button", "attnw-compute")
  );
  const computeAll = (
    /** @type {HTMLButtonElement} */
    element(doc, "button", "attnw-compute-all", say("Compute all layers"))
  );
  const cancel = (
    /** @type {HTMLButtonElement} */
    element(doc, "button", "attnw-cancel", say("Cancel"))
  );
  const bar = (
    /** @type {HTMLProgressElement} */
    element(doc, "progress", "attnw-progress")
  );
  const error = element(doc, "p", "attnw-pending-error");
  buttons.append(computeLayer, computeAll, bar, cancel);
  root.append(message, buttons, error);
  root.hidden = true;
  let method = "";
  let layer = 1;
  let nLayers = 1;
  const onLayer = () => model.send({ type: "compute", method, layers: [layer] });
  const onAll = () => model.send({ type: "compute", method, layers: Array.from({ length: nLayers }, (_, i) => i + 1) });
  const onCancel = () => model.send({ type: "cancel" });
  computeLayer.addEventListener("click", onLayer);
  computeAll.addEventListener("click", onAll);
  cancel.addEventListener("click", onCancel);
  return {
    root,
    /**
     * @param {import("./state.js").ViewState} state
     * @param {boolean} available  whether the selected layer's data is present
     * @param {Job} job
     */
    update(state, available, job) {
      method = state.method.id;
      layer = state.layer;
      nLayers = state.nLayers;
      const running = job.method !== void 0 && !job.error;
      const mine = job.method === method;
      const partial = hasPinnedRow(state) && !state.offline && !(running && mine);
      root.hidden = available && !(running && mine) && !partial;
      if (root.hidden) return;
      const shown = shownWindow(state.tokens.length, state.window);
      const low = (pinnedNode(state)?.index ?? -1) >= shown.start + shown.size / 2;
      root.classList.toggle("attnw-pending-docked", available);
      root.classList.toggle("attnw-pending-top", available && low);
      const words = { method: state.method.label, layer, id: method, cost: state.method.on_request ?? "" };
      message.textContent = say(
        partial ? "{method}: only the pinned token's row is computed for layer {layer}." : available ? "{method}: computing more layers\u2026" : running && mine && job.layers?.includes(layer) ? "{method}: computing\u2026" : isPinnedRowComing(state) ? "{method}: computing the pinned token's row for layer {layer}\u2026" : state.offline && (state.ready[method] ?? []).includes(layer) ? "{method}: this head of layer {layer} is not in this file (a long input's file holds the head shown when it was exported)." : state.offline ? '{method} for layer {layer} was not computed before this view was exported; in the notebook, call w.compute("{id}") before exporting.' : state.method.on_request ? "{method} for layer {layer} is computed on request: {cost}" : "{method} for layer {layer} is computed on request.",
        words
      );
      computeLayer.textContent = say("Compute layer {layer}", { layer });
      computeLayer.hidden = computeAll.hidden = running || available && !partial || state.offline;
      bar.hidden = cancel.hidden = !running;
      if (running && job.total) {
        bar.max = job.total;
        bar.value = job.done ?? 0;
        bar.textContent = `${Math.round((job.done ?? 0) / job.total * 100)}%`;
      }
      error.textContent = job.error && mine ? job.error === "cancelled" ? say("Cancelled.") : say("Failed: {error}", { error: job.error }) : "";
    },
    destroy() {
      computeLayer.removeEventListener("click", onLayer);
      computeAll.removeEventListener("click", onAll);
      cancel.removeEventListener("click", onCancel);
    }
  };
}

// src/raster.js
var BUDGET = 48 * 1024 * 1024;
var SLICE = 8;
var IDLE_ASK = 40;
var FIRST_RATE = 0.015;
var MAX_SKIPS = 50;
function pixelSize(layout, scale) {
  return { width: Math.round(layout.width * scale), height: Math.round(layout.height * scale) };
}
function fitCanvases(canvas, overlay, layout, edgeLayer) {
  const dpr = canvas.ownerDocument.defaultView?.devicePixelRatio || 1;
  const { width, height } = pixelSize(layout, dpr);
  for (const c of [canvas, overlay]) {
    c.style.width = `${layout.width}px`;
    c.style.height = `${layout.height}px`;
    if (c.width !== width || c.height !== height) {
      c.width = width;
      c.height = height;
      if (c === canvas) edgeLayer.invalidate();
    }
  }
  probe(canvas, {
    leftX: String(layout.leftX),
    rightX: String(layout.rightX),
    top: String(layout.top),
    rowHeight: String(layout.rowHeight)
  });
  return dpr;
}
function createPictureCache(budget) {
  const kept = /* @__PURE__ */ new Map();
  let bytes = 0;
  const forget = (key) => {
    const entry = kept.get(key);
    if (!entry) return;
    kept.delete(key);
    bytes -= entry.copy.width * entry.copy.height * 4;
    entry.copy.width = 0;
  };
  return {
    /** The kept picture of these edges, now the most recently used. @param {string} key @param {import("./scene.js").Bundle[]} bundles */
    take(key, bundles) {
      const hit = this.find(key, bundles);
      if (hit) {
        kept.delete(key);
        kept.set(key, hit);
      }
      return hit;
    },
    /** @param {string} key @param {import("./scene.js").Bundle[]} bundles */
    find(key, bundles) {
      const hit = kept.get(key);
      return hit && sameEdges(hit.bundles, bundles) ? hit : null;
    },
    /** @param {string} key */
    has: (key) => kept.has(key),
    /** Keep a picture, freeing the least recently used beyond the budget. @param {Shown & { copy: HTMLCanvasElement }} entry */
    put(entry) {
      kept.set(entry.key, { key: entry.key, bundles: entry.bundles, copy: entry.copy });
      bytes += entry.copy.width * entry.copy.height * 4;
      for (const key of kept.keys()) {
        if (bytes <= budget || key === entry.key) break;
        forget(key);
      }
    },
    clear() {
      for (const key of [...kept.keys()]) forget(key);
    }
  };
}
function createIdleLoop(win, work) {
  let idle = 0;
  let periodEnd = 0;
  let continuing = false;
  const channel = win.MessageChannel ? new win.MessageChannel() : null;
  const scheduling = (
    /** @type {{ scheduling?: { isInputPending?: () => boolean } }} */
    win.navigator.scheduling
  );
  const after = ({ worked, more }) => {
    if (!more) return;
    if (channel && worked && periodEnd - win.performance.now() >= 1) {
      continuing = true;
      channel.port2.postMessage(null);
    } else {
      periodEnd = 0;
      loop.request();
    }
  };
  const onIdle = (deadline) => {
    idle = 0;
    const room = deadline?.timeRemaining() ?? SLICE;
    periodEnd = win.performance.now() + room;
    after(work(room, true));
  };
  const onMessage = () => {
    continuing = false;
    const room = periodEnd - win.performance.now();
    if (room >= 1 && !loop.inputPending()) after(work(room, false));
    else after({ worked: false, more: true });
  };
  if (channel) channel.port1.onmessage = onMessage;
  const loop = {
    /** Ask for the next idle period, unless one is asked for or the work goes on in this one. */
    request() {
      if (!idle && !continuing)
        idle = win.requestIdleCallback ? win.requestIdleCallback(onIdle) : win.setTimeout(onIdle, 100);
    },
    /** The page is busy (a paint is coming): the work waits for the next idle period. */
    yieldToPage() {
      periodEnd = 0;
    },
    /** Is user input waiting (Chromium; elsewhere unknown, so no)? */
    inputPending: () => scheduling?.isInputPending?.() ?? false,
    cancel() {
      periodEnd = 0;
      channel?.port1.close();
      if (!idle) return;
      if (win.cancelIdleCallback) win.cancelIdleCallback(idle);
      else win.clearTimeout(idle);
      idle = 0;
    }
  };
  return loop;
}
function measured(rate, ms, edges) {
  return { ms: 0.9 * rate.ms + ms, edges: 0.9 * rate.edges + edges };
}
function strokeStarts(rate, edges, left, first, roomy) {
  return edges * rate.ms / rate.edges <= left || first && roomy;
}
function createEdgeLayer(canvas, budget = BUDGET) {
  const doc = canvas.ownerDocument;
  const win = (
    /** @type {Window & typeof globalThis} */
    doc.defaultView
  );
  const pictures = createPictureCache(budget);
  const state = {
    /** @type {Shown | null} the picture on the canvas */
    shown: null,
    /** @type {Shown | null} the picture on the canvas, to copy aside when idle */
    toKeep: null,
    /** @type {Array<() => import("./scene.js").Scene | null>} scenes to draw ahead, made when their turn comes */
    ahead: [],
    /** @type {Shown | null} the picture shown when `ahead` was queued */
    aheadFor: null,
    /** @type {Job | null} the picture being drawn ahead */
    job: null,
    scale: 1,
    // device pixels per CSS pixel of the last picture shown
    onScreen: true,
    // a widget scrolled out of view draws nothing ahead: a notebook may hold many
    skips: 0,
    // idle periods in a row too short for the next stroke
    /** @type {StrokeRate} */
    rate: { ms: FIRST_RATE, edges: 1 }
  };
  const pending = () => Boolean(state.toKeep || state.job || state.ahead.length);
  const isShown = (key, bundles) => state.shown?.key === key && sameEdges(state.shown.bundles, bundles);
  const newCanvas = (width, height) => {
    const copy = (
      /** @type {HTMLCanvasElement} */
      doc.createElement("canvas")
    );
    copy.width = width;
    copy.height = height;
    return copy;
  };
  const startJob = () => {
    while (state.ahead.length) {
      const scene = (
        /** @type {() => import("./scene.js").Scene | null} */
        state.ahead.shift()()
      );
      if (!scene) continue;
      const { width, height } = pixelSize(scene.layout, state.scale);
      const key = keyOf(scene, width, height, state.scale);
      if (pictures.find(key, scene.bundles) || isShown(key, scene.bundles)) continue;
      const copy = newCanvas(width, height);
      const ctx = copy.getContext("2d");
      if (!ctx) continue;
      ctx.setTransform(state.scale, 0, 0, state.scale, 0, 0);
      const strokes = baseStrokes(ctx, scene);
      const next = strokes.next();
      if (!next.done) return { key, bundles: scene.bundles, copy, ctx, strokes, next };
      copy.width = 0;
    }
    return null;
  };
  const dropJob = () => {
    if (state.job) state.job.copy.width = 0;
    state.job = null;
  };
  const keepShown = () => {
    const keeping = state.toKeep;
    state.toKeep = null;
    if (keeping && state.shown === keeping && !pictures.has(keeping.key)) {
      const copy = newCanvas(canvas.width, canvas.height);
      copy.getContext("2d")?.drawImage(canvas, 0, 0);
      pictures.put({ ...keeping, copy });
    }
    return keeping !== null;
  };
  const slice = (room, periodStart) => {
    if (!state.onScreen) return { worked: false, more: false };
    const started = win.performance.now();
    const left = () => Math.min(room, SLICE) - (win.performance.now() - started);
    const keeping = keepShown();
    let strokes = 0;
    if (!state.job && !keeping && room >= SLICE) state.job = startJob();
    while (state.job && left() > 0) {
      const job = state.job;
      if (strokes > 0 && loop.inputPending()) break;
      const edges = (
        /** @type {number} */
        job.next.value
      );
      if (!strokeStarts(state.rate, edges, left(), strokes === 0, periodStart && room >= IDLE_ASK)) break;
      const before = win.performance.now();
      job.next = job.strokes.next();
      job.ctx.getImageData(0, 0, 1, 1);
      state.rate = measured(state.rate, win.performance.now() - before, edges);
      strokes++;
      if (job.next.done) {
        pictures.put(job);
        state.job = null;
      }
    }
    if (strokes > 0) state.skips = 0;
    else if (periodStart && (state.job || state.ahead.length) && ++state.skips > MAX_SKIPS) {
      dropJob();
      state.ahead = [];
    }
    return { worked: strokes > 0 || keeping, more: pending() };
  };
  const loop = createIdleLoop(win, slice);
  return {
    /**
     * Show the scene's edges; nothing is drawn when the canvas already holds them.
     * @param {import("./scene.js").Scene} scene
     * @param {number} pixelScale  device pixels per CSS pixel
     * @returns {"unchanged" | "copy" | "strokes"}  how the canvas got its picture
     */
    show(scene, pixelScale) {
      loop.yieldToPage();
      state.scale = pixelScale;
      const { width, height } = canvas;
      const key = keyOf(scene, width, height, pixelScale);
      if (isShown(key, scene.bundles)) return "unchanged";
      const ctx = canvas.getContext("2d");
      if (!ctx) return "unchanged";
      state.ahead = [];
      dropJob();
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.clearRect(0, 0, width, height);
      const hit = pictures.take(key, scene.bundles);
      state.shown = { key, bundles: scene.bundles };
      if (hit) {
        ctx.drawImage(hit.copy, 0, 0);
        return "copy";
      }
      ctx.setTransform(pixelScale, 0, 0, pixelScale, 0, 0);
      drawBase(ctx, scene);
      state.toKeep = state.shown;
      loop.request();
      return "strokes";
    },
    /**
     * Draw these scenes ahead while the page is idle, at the scale of the last one shown
     * (replacing any not drawn yet).
     * @param {Array<() => import("./scene.js").Scene | null>} scenes  made only when their turn comes
     */
    drawAhead(scenes) {
      if (state.aheadFor === state.shown) return;
      state.aheadFor = state.shown;
      const room = Math.floor(budget / (canvas.width * canvas.height * 4)) - 1;
      state.ahead = scenes.slice(0, Math.max(0, room));
      if (state.ahead.length) loop.request();
    },
    /** A paint is coming (the page is busy): idle work waits for the next idle period. */
    paintComing: () => loop.yieldToPage(),
    /** The widget came into view or left it. @param {boolean} value */
    setOnScreen(value) {
      state.onScreen = value;
      if (value && pending()) loop.request();
    },
    /** The canvas was cleared (resized): draw again on the next show. */
    invalidate() {
      state.shown = null;
    },
    destroy() {
      loop.cancel();
      state.ahead = [];
      dropJob();
      state.toKeep = null;
      pictures.clear();
      state.shown = null;
    }
  };
}
function keyOf(scene, width, height, scale) {
  const bundles = scene.bundles.map(({ layout: l, edges, wideFrom: wideFrom2 }) => [
    l.width,
    l.height,
    l.top,
    l.rowHeight,
    l.leftX,
    l.rightX,
    l.first,
    l.last,
    wideFrom2,
    edges.count,
    edges.max,
    hashOf(edges)
  ]);
  return JSON.stringify([width, height, scale, scene.signed, scene.table, bundles]);
}
function hashOf(edges) {
  let hash = 2166136261;
  for (let e = 0; e < edges.count; e++) {
    hash = Math.imul(hash ^ edges.source[e], 16777619);
    hash = Math.imul(hash ^ edges.target[e], 16777619);
    hash = Math.imul(hash ^ Math.round(edges.weight[e] * 1e9), 16777619);
  }
  return hash >>> 0;
}
function sameEdges(a, b) {
  return a.length === b.length && a.every((bundle, i) => equalEdges(bundle.edges, b[i].edges));
}
function equalEdges(a, b) {
  if (a === b) return true;
  if (a.count !== b.count || a.max !== b.max) return false;
  for (let e = 0; e < a.count; e++) {
    if (a.source[e] !== b.source[e] || a.target[e] !== b.target[e] || a.weight[e] !== b.weight[e]) return false;
  }
  return true;
}

// src/compare_pane.js
function createComparePane(doc, model, plot, lang) {
  const words = compareWords(lang);
  const row = element(doc, "div", "attnw-panes");
  const mainPane = element(doc, "div", "attnw-pane attnw-pane-main");
  const mainHeading = element(doc, "div", "attnw-pane-heading");
  const otherPane = element(doc, "div", "attnw-pane attnw-pane-compare");
  const otherHeading = element(doc, "div", "attnw-pane-heading");
  const otherPlot = element(doc, "div", "attnw-compare-plot");
  const canvas = (
    /** @type {HTMLCanvasElement} */
    element(doc, "canvas", "attnw-compare-canvas")
  );
  canvas.setAttribute("role", "img");
  const overlay = (
    /** @type {HTMLCanvasElement} */
    element(doc, "canvas", "attnw-compare-overlay")
  );
  overlay.setAttribute("aria-hidden", "true");
  const titleLeft = element(doc, "div", "attnw-title attnw-title-left");
  const titleRight = element(doc, "div", "attnw-title attnw-title-right");
  const labelsLeft = element(doc, "div", "attnw-labels attnw-labels-left");
  const labelsRight = element(doc, "div", "attnw-labels attnw-labels-right");
  const pending = createPending(
    doc,
    /** @type {any} */
    model,
    lang
  );
  pending.root.addEventListener("click", (event) => event.stopPropagation());
  mainPane.append(mainHeading, plot);
  otherPane.append(otherHeading, otherPlot);
  row.append(mainPane, otherPane);
  const edgeLayer = createEdgeLayer(canvas);
  mainHeading.hidden = otherPane.hidden = true;
  const columns = tokenColumns(labelsLeft, labelsRight);
  let shown = null;
  let mainHeadingText = "";
  const fill = () => {
    if (!otherPlot.firstChild)
      otherPlot.append(canvas, overlay, titleLeft, titleRight, labelsLeft, labelsRight, pending.root);
  };
  const drawPane = (frame, scene) => {
    const { layout, state } = frame;
    fill();
    const dpr = fitCanvases(canvas, overlay, layout, edgeLayer);
    otherPlot.style.height = `${layout.height}px`;
    otherPlot.style.width = `${layout.width}px`;
    columns.render(layout, state);
    const wide = titleAtEdge(state);
    titleRight.style.left = wide ? "" : `${layout.rightX + LABEL_GAP}px`;
    titleRight.style.right = wide ? "0px" : "";
    columns.markIdle(state.segments.length > 1 && frame.available ? frame.edges : null);
    renderTitles(titleLeft, titleRight, columnTitles(state));
    probe(canvas, { edgesFrom: edgeLayer.show(scene, dpr) });
    const highlighted = isHighlighted(scene);
    canvas.style.opacity = highlighted ? String(CONTEXT_OPACITY) : "";
    canvas.style.filter = highlighted ? CONTEXT_FILTER : "";
    const ctx = overlay.getContext("2d");
    if (ctx) {
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.clearRect(0, 0, layout.width, layout.height);
      drawOverlay(ctx, scene);
    }
    markHovered(otherPlot, frame.focus, frame.pinned);
  };
  return {
    row,
    otherPlot,
    /**
     * Show a comparison's second pane and headings (frames from compare.js) or none (null); what it adds
     * to the view's legend, caption and value list is ``compareExtras``, which the view paints with them.
     * @param {import("./compare.js").CompareFrames | null} frames
     * @param {boolean} dark
     */
    paint(frames, dark) {
      mainPane.classList.toggle("attnw-pane-side", frames?.mode === "side");
      if (!frames) {
        mainHeading.hidden = otherPane.hidden = true;
        mainPane.style.width = "";
        shown = null;
        mainHeadingText = "";
        return;
      }
      const { state } = frames.main;
      const a = state.method.label;
      const b = frames.other.label;
      mainHeading.hidden = false;
      mainHeadingText = mainHeading.textContent = frames.mode === "side" ? a : words.difference(a, b);
      const second = frames.second;
      const otherShown = frames.mode === "side" || !second.available;
      otherPane.hidden = !otherShown;
      mainPane.style.width = frames.mode === "side" ? `${frames.main.layout.width}px` : "";
      const otherSt = second.state;
      fill();
      pending.update(otherSt, second.available, state.job);
      otherHeading.textContent = frames.mode === "side" ? b : words.neededFor(b);
      if (otherShown) {
        const scene = layerScene(second, dark);
        drawPane(second, scene);
        probe(canvas, { edges: String(second.edges.count), method: frames.other.id });
        canvas.setAttribute("aria-label", words.paneLabel(b, second.edges.count, state.tokens.length));
        shown = frames.mode === "side" ? { scene, titles: columnTitles(otherSt), heading: b, titleAtEdge: titleAtEdge(otherSt) } : null;
      } else shown = null;
    },
    /** What a downloaded picture's legend is named: both methods on one scale, or their difference ("": one method). */
    legendLabel() {
      return shown ? words.bothOnOneScale(mainHeadingText, shown.heading) : mainHeadingText;
    },
    /** The heading of the first pane and the second pane, for a downloaded picture (null: none shown). */
    picture() {
      return { heading: mainHeadingText, compare: shown };
    },
    /**
     * Draw the second pane's neighbouring pictures ahead while the page is idle (raster.js).
     * @param {Array<() => import("./frames.js").LayerFrame>} frames  computed when their turn comes
     * @param {boolean} dark
     */
    drawAhead(frames, dark) {
      edgeLayer.drawAhead(
        frames.map((next) => () => {
          try {
            const frame = next();
            return frame.available ? layerScene(frame, dark) : null;
          } catch {
            return null;
          }
        })
      );
    },
    paintComing: edgeLayer.paintComing,
    setOnScreen: edgeLayer.setOnScreen,
    destroy() {
      pending.destroy();
      edgeLayer.destroy();
    }
  };
}
function compareExtras(frames) {
  const { state, focus, edges } = frames.main;
  const words = compareWords(state.lang);
  const a = state.method.label;
  const b = frames.other.label;
  const integer = Boolean(state.method.integer && frames.other.integer);
  const f = (v) => formatValue(v, integer);
  if (frames.mode !== "side") {
    const name = words.difference(a, b);
    return {
      name,
      legend: {
        coverage: words.differenceEdges(edges.count),
        notes: [words.differenceScale(a, b)],
        plusHigh: edges.max > 0,
        hidden: !frames.second.available
      },
      list: { title: `${name}: `, second: null, format: f }
    };
  }
  const second = frames.second.edges;
  const values = /* @__PURE__ */ new Map();
  if (focus) {
    const ends = focus.side === "target" ? second.source : second.target;
    for (const e of edgesOfNode(second, focus)) values.set(ends[e], second.weight[e]);
  }
  return {
    name: words.besides(a, b),
    legend: {
      coveragePrefix: `${a}: `,
      notes: [words.sharedScale(a, frames.maxMain, b, frames.maxOther, f), words.paneEdges(b, second.count)]
    },
    list: { title: words.bothColumns(a, b), second: values, format: f }
  };
}
function createCompareControls(doc, model, lang) {
  const words = compareWords(lang);
  const menu = (
    /** @type {HTMLSelectElement} */
    element(doc, "select", "attnw-compare")
  );
  const mode = (
    /** @type {HTMLSelectElement} */
    element(doc, "select", "attnw-compare-mode")
  );
  for (
    const [node, label, title] of
    /** @type {const} */
    [
      [menu, words.compareWith, words.compareWithTitle],
      [mode, words.mode, words.modeTitle]
    ]
  ) {
    node.setAttribute("aria-label", label);
    node.title = title;
    node.dataset.lmSuppressShortcuts = "true";
  }
  mode.replaceChildren(...choicesOf("compare_mode").map(([value, text2]) => option(doc, value, tr(lang, text2))));
  const menuControl = labelled(doc, words.compareWith, menu);
  const modeControl = labelled(doc, words.mode, mode);
  const commit = (name, value) => {
    model.set(name, value);
    model.save_changes();
  };
  const onMenu = () => commit("compare_method", menu.value);
  const onMode = () => commit("compare_mode", mode.value);
  menu.addEventListener("change", onMenu);
  mode.addEventListener("change", onMode);
  let key = "";
  return {
    nodes: [menuControl, modeControl],
    /** @param {import("./state.js").ViewState} state */
    update(state) {
      const listed = state.methods.filter((m) => comparable(m, state.method));
      const now = JSON.stringify([state.methods.map((m) => [m.id, m.label]), state.method.id]);
      if (now !== key) {
        key = now;
        menu.replaceChildren(option(doc, "", words.off), ...methodOptions(doc, listed));
      }
      const left = state.methods.length - listed.length;
      menu.value = comparedMethod(state)?.id ?? "";
      menu.disabled = state.view !== "layer";
      menu.title = state.view !== "layer" ? words.singleLayerOnly : left ? `${words.compareWithTitle}. ${words.notListed(left)}` : words.compareWithTitle;
      mode.value = state.compareMode;
      modeControl.hidden = menu.value === "";
    },
    destroy() {
      menu.removeEventListener("change", onMenu);
      mode.removeEventListener("change", onMode);
    }
  };
}

// src/explain.js
function createExplain(doc, lang = "en") {
  const button = (
    /** @type {HTMLButtonElement} */
    element(doc, "button", "attnw-save attnw-explain-toggle", tr(lang, "? About this method"))
  );
  button.type = "button";
  button.title = tr(lang, "Show or hide what the selected method draws, in plain words");
  button.setAttribute("aria-expanded", "false");
  const panel = element(doc, "div", "attnw-explain");
  panel.hidden = true;
  const heading = element(doc, "div", "attnw-explain-title");
  const body = element(doc, "div", "attnw-explain-text");
  const trustHeading = element(doc, "div", "attnw-explain-title", tr(lang, "When to trust it"));
  const trust = element(doc, "div", "attnw-explain-text attnw-explain-trust");
  panel.append(heading, body, trustHeading, trust);
  const hint = element(doc, "div", "attnw-hint");
  const panelId = `attnw-explain-${Math.random().toString(36).slice(2)}`;
  panel.id = panelId;
  button.setAttribute("aria-controls", panelId);
  button.addEventListener("click", () => {
    panel.hidden = !panel.hidden;
    button.setAttribute("aria-expanded", String(!panel.hidden));
  });
  const update = (method) => {
    heading.textContent = method.label ? tr(lang, "About \u201C{method}\u201D", { method: method.label }) : "";
    body.textContent = explanationOf(method, lang);
    trust.textContent = method.trust ?? "";
    trustHeading.hidden = trust.hidden = !method.trust;
    hint.textContent = method.hint ?? "";
    hint.hidden = !method.hint;
  };
  return { button, panel, hint, update };
}
function explanationOf(method, lang = "en") {
  return method.explain || method.description || tr(lang, "No explanation is available for this method.");
}

// src/heads_draw.js
function createHeadsGrid(doc, lang) {
  const say = speaker(lang);
  const win = (
    /** @type {Window} */
    doc.defaultView
  );
  const root = element(doc, "div", "attnw-heads");
  root.hidden = true;
  const hover = element(doc, "div", "attnw-heads-hover");
  const canvas = (
    /** @type {HTMLCanvasElement} */
    element(doc, "canvas", "attnw-heads-canvas")
  );
  canvas.setAttribute("role", "img");
  canvas.style.cursor = "pointer";
  const key = element(doc, "div", "attnw-heads-key");
  const bar = element(doc, "span", "attnw-heads-bar");
  const keyText = element(doc, "span", "attnw-heads-key-text");
  Object.assign(bar.style, {
    display: "inline-block",
    width: "80px",
    height: "10px",
    marginRight: "6px",
    verticalAlign: "middle"
  });
  key.append(bar, keyText);
  root.append(hover, canvas, key);
  let shown = null;
  const scratch = (
    /** @type {HTMLCanvasElement} */
    doc.createElement("canvas")
  );
  const cellUnder = (event) => {
    if (!shown) return null;
    const box = canvas.getBoundingClientRect();
    const at = cellAt(shown.layout, event.clientX - box.left, event.clientY - box.top);
    return at && { layer: at.row + 1, head: shown.heads[at.column] };
  };
  const showHover = (cell) => {
    if (!shown) return;
    const { state } = shown;
    hover.textContent = cell ? say("{layer}, {head}: click to open it", {
      layer: capitalised2(layerName(state, cell.layer)),
      head: headLabel({ ...state, head: cell.head })
    }) : say("Point at a cell to name it; click it to open that layer and head.");
  };
  const drawGrid = (frame, target, scale, ink) => {
    const { state, layout, heads, env } = frame;
    const dpr = scale;
    target.width = Math.round(layout.width * dpr);
    target.height = Math.round(layout.height * dpr);
    const table = tableBytes(colormap(frame.signed ? "diverging" : "heat"));
    const cells = [];
    const labels = [];
    const ctx = target.getContext("2d");
    if (!ctx) return { cells, labels };
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, layout.width, layout.height);
    ctx.fillStyle = ink;
    ctx.font = "11px sans-serif";
    ctx.textAlign = "center";
    ctx.textBaseline = "alphabetic";
    if (state.method.per_head) {
      heads.forEach((head, column) => {
        const label = { text: say(headName(head)), x: cellOrigin(layout, 0, column).x + layout.cell / 2 };
        labels.push({ ...label, y: MARGIN_TOP - 4, anchor: "middle", baseline: "alphabetic" });
        ctx.fillText(label.text, label.x, MARGIN_TOP - 4);
      });
    }
    ctx.textAlign = "right";
    ctx.textBaseline = "middle";
    for (let row = 0; row < layout.rows; row++) {
      const label = { text: layerMark(state, row + 1), y: cellOrigin(layout, row, 0).y + layout.cell / 2 };
      labels.push({ ...label, x: MARGIN_LEFT - 6, anchor: "end", baseline: "middle" });
      ctx.fillText(label.text, MARGIN_LEFT - 6, label.y);
    }
    if (env) {
      const size = Math.round(layout.cell * dpr);
      const side = Math.min(env.rows, size);
      scratch.width = scratch.height = side;
      const sctx = scratch.getContext("2d");
      if (!sctx) return { cells, labels };
      const image = sctx.createImageData(side, side);
      ctx.imageSmoothingEnabled = false;
      for (let row = 0; row < layout.rows; row++) {
        for (let column = 0; column < heads.length; column++) {
          const { x, y } = cellOrigin(layout, row, column);
          const ready = frame.ready[row];
          const name = `${capitalised2(layerName(state, row + 1))}, ${headLabel({ ...state, head: heads[column] })}`;
          cells.push({ x, y, size: layout.cell, name, ready });
          if (!ready) {
            ctx.strokeStyle = ink;
            ctx.strokeRect(x + 0.5, y + 0.5, layout.cell - 1, layout.cell - 1);
            continue;
          }
          image.data.set(slicePixels(env, cellSlice(frame, row, column), table, size, frame.signed).pixels);
          sctx.putImageData(image, 0, 0);
          ctx.drawImage(scratch, x, y, layout.cell, layout.cell);
        }
      }
    }
    return { cells, labels };
  };
  const paint = (frame) => {
    shown = frame;
    const { state, layout, env } = frame;
    const dpr = win.devicePixelRatio || 1;
    canvas.style.width = `${layout.width}px`;
    canvas.style.height = `${layout.height}px`;
    const { signed } = frame;
    const name = signed ? "diverging" : "heat";
    probe(canvas, {
      rows: String(layout.rows),
      columns: String(layout.columns),
      cells: "0",
      cell: String(layout.cell)
    });
    canvas.setAttribute(
      "aria-label",
      say(
        state.method.per_head ? "{method}: {rows} layers \xD7 {columns} heat maps, one per head" : "{method}: {rows} layers \xD7 {columns} heat maps, one per layer",
        { method: state.method.label, rows: layout.rows, columns: layout.columns }
      )
    );
    const { cells } = drawGrid(frame, canvas, dpr, win.getComputedStyle(root).color || "#888");
    probe(canvas, { cells: String(cells.filter((cell) => cell.ready).length) });
    const stops3 = colormap(name);
    bar.style.background = `linear-gradient(to right, ${stops3[0]}, ${stops3[128]}, ${stops3[255]})`;
    const missing = frame.ready.filter((r) => !r).length;
    const pixels = Math.round(layout.cell * dpr);
    keyText.textContent = say(signed ? "negative \u2190 0 \u2192 positive" : "0 \u2192 largest") + say(
      ": each cell is scaled to its own largest value, so a cell shows its pattern, not its strength against the others."
    ) + say(" Rows of a cell: receiving tokens; columns: sending tokens.") + (env && env.rows > pixels ? say(" {n} tokens in {pixels} pixels: each pixel shows the strongest entry of its block.", {
      n: env.rows,
      pixels
    }) : "") + (env?.indices ? say(" Only the {k} strongest entries of each row are stored at this length; the rest show as 0.", {
      k: env.k
    }) : "") + (missing ? say(" Empty boxes: {n} layers not computed yet (click one to open it and compute it there).", { n: missing }) : "");
    showHover(null);
  };
  const picture = (scale, ink) => {
    if (!shown) return null;
    const grid = (
      /** @type {HTMLCanvasElement} */
      doc.createElement("canvas")
    );
    const { cells, labels } = drawGrid(shown, grid, scale, ink);
    const { signed } = shown;
    return {
      grid,
      scale,
      cells,
      labels,
      width: shown.layout.width,
      height: shown.layout.height,
      table: colormap(signed ? "diverging" : "heat"),
      ends: signed ? [say("negative"), say("positive")] : ["0", say("largest")],
      title: say("{method}: the colour of each cell", { method: shown.state.method.label }),
      key: keyText.textContent ?? ""
    };
  };
  return { root, canvas, paint, picture, cellUnder, showHover };
}
function capitalised2(text2) {
  return text2.charAt(0).toUpperCase() + text2.slice(1);
}

// src/markers.js
var TOKEN_CHARS = 12;
function shortValue(w, integer) {
  return integer || Math.abs(w) < 0.01 ? formatValue(w, integer) : w.toFixed(2);
}
function createMarkers(doc, lang) {
  const words = navigateWords(lang);
  const root = element(doc, "div", "attnw-markers");
  let labels = [];
  return {
    root,
    /** The markers shown, as labels for the downloaded pictures (exporter.js). */
    labels: () => labels,
    clear() {
      root.replaceChildren();
      labels = [];
    },
    /**
     * @param {import("./navigate.js").Marker[]} markers
     * @param {import("./layout.js").Layout} layout
     * @param {string[]} tokens
     * @param {boolean} integer  the weights are whole numbers
     */
    render(markers, layout, tokens, integer) {
      root.replaceChildren();
      labels = [];
      root.style.width = `${layout.width}px`;
      for (const marker of markers) {
        const up = marker.direction === "up";
        const button = (
          /** @type {HTMLButtonElement} */
          element(doc, "button", `attnw-marker attnw-marker-${marker.direction} attnw-marker-${marker.side}`)
        );
        button.type = "button";
        button.title = words.markerTitle;
        const token = element(doc, "bdi", "attnw-marker-token", clippedToken(tokens[marker.index] ?? "", TOKEN_CHARS));
        button.append(`${words.more(up, marker.count)}: \u201C`, token, `\u201D ${shortValue(marker.weight, integer)}`);
        Object.assign(button.dataset, {
          count: String(marker.count),
          index: String(marker.index),
          side: marker.side,
          direction: marker.direction
        });
        const y = up ? layout.top + layout.first * layout.rowHeight - layout.band : layout.top + (layout.last + 1) * layout.rowHeight;
        button.style.top = `${y}px`;
        button.style.height = `${layout.band}px`;
        if (marker.side === "source") button.style.left = "0px";
        else button.style.right = "0px";
        root.append(button);
        const [x, anchor] = marker.side === "source" ? [
          2,
          /** @type {const} */
          "start"
        ] : [
          layout.width - 2,
          /** @type {const} */
          "end"
        ];
        labels.push({ text: button.textContent ?? "", x, y: y + layout.band / 2, anchor });
      }
    }
  };
}

// src/navigate_view.js
function windowOf(layout) {
  return { start: layout.first, size: layout.last - layout.first + 1 };
}
function createNavigationView(doc, lang) {
  const minimap = createMinimap(doc, lang);
  const markers = createMarkers(doc, lang);
  return {
    minimap,
    markers,
    /** Elements to place in the plot. */
    roots: [markers.root, minimap.root],
    /**
     * @param {import("./frames.js").LayerFrame} frame @param {import("./scene.js").Scene} scene @param {boolean} dark
     */
    paintLayer(frame, scene, dark) {
      const { layout, edges, state, focus } = frame;
      const highlight = scene.bundles[0]?.highlight ?? null;
      const shown = layout.band > 0 && frame.available ? offWindowMarkers(edges, windowOf(layout), highlight) : [];
      markers.render(shown, layout, state.tokens, Boolean(state.method.integer));
      const values = isLong(layout.n) ? minimapValues(edges, layout.n, focus) : null;
      minimap.paint(values && { layout, values, table: colormap(dark ? "dark" : "light"), ink: scene.ink });
    },
    /**
     * The whole-model view: one marker above and one below for every layer's edges leaving the
     * window (the traced paths' under a highlight), at the left; the strongest relative to its
     * layer's largest weight (colours are scaled per layer). The minimap shows the last layer's
     * column mass.
     * @param {import("./frames.js").ModelFrame} frame @param {import("./scene.js").Scene} scene @param {boolean} dark
     */
    paintModel(frame, scene, dark) {
      const { layout, perLayer } = frame;
      const merged = /* @__PURE__ */ new Map();
      if (layout.band > 0) {
        const highlighted = isHighlighted(scene);
        const shown = windowOf(layout);
        perLayer.forEach((edges, l) => {
          const bundle = scene.bundles[l];
          for (const m of offWindowMarkers(edges, shown, highlighted ? bundle?.highlight ?? /* @__PURE__ */ new Set() : null)) {
            const share = edges.max > 0 ? Math.abs(m.weight) / edges.max : 0;
            const seen = merged.get(m.direction);
            if (!seen) merged.set(m.direction, { ...m, side: "source", share });
            else {
              seen.count += m.count;
              if (share > seen.share) Object.assign(seen, { index: m.index, weight: m.weight, share });
            }
          }
        });
      }
      markers.render([...merged.values()], layout, frame.state.tokens, false);
      const last = perLayer[perLayer.length - 1];
      const values = isLong(layout.n) && last ? minimapValues(last, layout.n, null) : null;
      minimap.paint(values && { layout, values, table: colormap(dark ? "dark" : "light"), ink: scene.ink });
    },
    hide() {
      minimap.paint(null);
      markers.clear();
    }
  };
}

// src/strip.js
var RANKED = 5;
function currentScores(data, target, method, n) {
  if (!method || data.status !== "done" || data.target !== target || data.method !== method || !data.values) {
    return null;
  }
  const env = decodeEnvelope(data.values);
  if (env.slices !== 1 || env.rows !== 1 || env.cols !== n) {
    throw new Error(`the token scores have shape [${env.shape}], not one score for each of the ${n} tokens`);
  }
  const { cols, values } = rowEntries(env, 0, 0);
  const out = new Float64Array(env.cols);
  for (let i = 0; i < values.length; i++) out[cols[i]] = values[i];
  return out;
}
function renderStrip(container, layout, scores) {
  container.replaceChildren();
  container.hidden = scores === null;
  if (!scores) return;
  const doc = container.ownerDocument;
  let max = 0;
  for (const v of scores) max = Math.max(max, Math.abs(v));
  const room = layout.leftX - 8;
  scores.forEach((value, i) => {
    if (i < layout.first || i > layout.last) return;
    const bar = element(doc, "div", value < 0 ? "attnw-bar attnw-bar-negative" : "attnw-bar");
    const height = Math.max(1, layout.rowHeight * 0.7);
    bar.style.top = `${rowCenter(layout, i) - height / 2}px`;
    bar.style.height = `${height}px`;
    bar.style.width = `${max > 0 ? Math.abs(value) / max * room : 0}px`;
    bar.style.left = `${layout.leftX - 4 - (max > 0 ? Math.abs(value) / max * room : 0)}px`;
    bar.dataset.value = String(value);
    container.append(bar);
  });
}
function rankedTokens(scores, signed, count2 = RANKED) {
  const size = (i) => signed ? Math.abs(scores[i]) : scores[i];
  return Array.from(scores, (_, i) => i).filter((i) => scores[i] !== 0).sort((a, b) => size(b) - size(a) || a - b).slice(0, count2);
}
function keyAndRanking(doc, scores, signed, tokens, lang) {
  const say = speaker(lang);
  const entry = (negative, words) => {
    const pair = element(doc, "span", "attnw-strip-pair");
    if (negative !== null)
      pair.append(element(doc, "span", negative ? "attnw-strip-swatch attnw-bar-negative" : "attnw-strip-swatch"));
    pair.append(words);
    return pair;
  };
  const key = element(doc, "div", "attnw-strip-key");
  if (signed) {
    key.append(
      entry(false, say("positive: pushes the target up")),
      " ",
      // the line may break between entries only
      entry(true, say("negative: pushes it down")),
      " ",
      entry(null, say("bar length: the score's size"))
    );
  } else key.append(entry(false, say("bar length: the score (never negative)")));
  const ranking = element(doc, "div", "attnw-strip-rank");
  const ranked = rankedTokens(scores, signed);
  const label = element(doc, "span", "attnw-strip-pair");
  label.textContent = say(ranked.length === 1 ? "Largest score:" : "Largest {n} scores:", { n: ranked.length });
  ranking.append(label);
  ranked.forEach((i, place) => {
    const item = element(doc, "span", "attnw-strip-ranked");
    item.dataset.index = String(i);
    const value = formatValue(scores[i]);
    item.textContent = `${place + 1}. \u201C${clippedToken(tokens[i] ?? "", 24)}\u201D ${signed && scores[i] > 0 ? "+" : ""}${value}`;
    ranking.append(" ", item);
  });
  return [key, ranking];
}
function renderStripStatus(line, warningLine, data, method, menu, targetLabel, scores, lang, tokens = []) {
  const warning = scores && typeof data.warning === "string" ? data.warning : "";
  warningLine.hidden = !warning;
  warningLine.textContent = warning ? `\u26A0 ${warning}` : "";
  line.hidden = !method;
  if (!method) return;
  const entry = menu.find((meta) => meta.id === method);
  const name = entry?.label ?? method;
  if (data.status === "error" && data.method === method) {
    line.textContent = tr(lang, "Token scores ({name}) failed: {message}", { name, message: String(data.message) });
  } else if (scores) {
    let max = 0;
    for (const v of scores) max = Math.max(max, Math.abs(v));
    const what = element(line.ownerDocument, "div", "attnw-strip-what");
    what.textContent = tr(lang, "Bars: {name} of {target}; longest {max}", {
      name,
      target: targetLabel,
      max: formatValue(max)
    });
    const signed = Boolean(entry?.signed);
    line.replaceChildren(what, ...keyAndRanking(line.ownerDocument, scores, signed, tokens, lang));
  } else {
    const share = data.status === "running" && data.total ? ` ${Math.round((data.done ?? 0) / data.total * 100)}%` : "";
    const waiting = data.status === "running" && data.message ? ` ${data.message}` : "";
    line.textContent = tr(lang, "Computing {name}\u2026", { name }) + share + waiting;
  }
}

// src/view.js
function layerPhrase(state) {
  const counted = tr(state.lang, "layer {layer} of {n}", { layer: state.layer, n: state.nLayers });
  return state.layerNames.length ? `${layerName(state, state.layer)} (${counted})` : counted;
}
function windowNote(layout, lang) {
  const nav = navigateWords(lang);
  const rows = layout.band > 0 ? ` \xB7 ${nav.rows(layout.first, layout.last, layout.n)}` : "";
  return rows + (layout.labelEvery > 1 ? ` \xB7 ${nav.thinned(layout.labelEvery)}` : "");
}
function modelKind(state) {
  if (state.segments.length > 1)
    return tr(state.lang, "{counts} tokens", {
      counts: state.segments.map((s) => `${s.size} ${tr(state.lang, s.label)}`).join(" + ")
    });
  return tr(state.lang, state.causal ? "decoder (causal)" : "encoder");
}
function createView(doc, model, lang) {
  const say = speaker(lang);
  const nav = navigateWords(lang);
  const win = (
    /** @type {Window} */
    doc.defaultView
  );
  const root = element(doc, "div", "attnw-root");
  root.lang = lang;
  const controls = createControls(doc, model, lang);
  const caption = element(doc, "div", "attnw-caption");
  const problem = element(doc, "div", "attnw-problem");
  problem.setAttribute("role", "alert");
  problem.hidden = true;
  const plot = element(doc, "div", "attnw-plot");
  plot.tabIndex = 0;
  plot.dataset.lmSuppressShortcuts = "true";
  plot.setAttribute("aria-label", nav.plotHelp);
  const canvas = (
    /** @type {HTMLCanvasElement} */
    element(doc, "canvas", "attnw-canvas")
  );
  canvas.setAttribute("role", "img");
  const overlay = (
    /** @type {HTMLCanvasElement} */
    element(doc, "canvas", "attnw-overlay")
  );
  overlay.setAttribute("aria-hidden", "true");
  const edgeLayer = createEdgeLayer(canvas);
  const titleLeft = element(doc, "div", "attnw-title attnw-title-left");
  const titleRight = element(doc, "div", "attnw-title attnw-title-right");
  const strip = element(doc, "div", "attnw-strip");
  const stripStatus = element(doc, "div", "attnw-strip-status");
  const stripWarning = element(doc, "div", "attnw-strip-warning");
  const labelsLeft = element(doc, "div", "attnw-labels attnw-labels-left");
  const labelsRight = element(doc, "div", "attnw-labels attnw-labels-right");
  const tooltip = element(doc, "div", "attnw-tooltip");
  tooltip.setAttribute("role", "status");
  tooltip.hidden = true;
  const legend = element(doc, "div", "attnw-legend");
  const savePng = (
    /** @type {HTMLButtonElement} */
    element(doc, "button", "attnw-save attnw-save-png", "PNG")
  );
  const saveSvg = (
    /** @type {HTMLButtonElement} */
    element(doc, "button", "attnw-save attnw-save-svg", "SVG")
  );
  savePng.title = say("Download the current view as a PNG picture");
  const svgTitle = say("Download the current view as an SVG drawing (labels as text)");
  saveSvg.title = svgTitle;
  const explain = createExplain(doc, lang);
  const compareControls = createCompareControls(doc, model, lang);
  controls.actions.prepend(explain.button);
  const downloads = element(doc, "span", "attnw-actions");
  downloads.append(savePng, saveSvg);
  controls.more.append(...compareControls.nodes, downloads);
  const pending = createPending(doc, model, lang);
  const navigation = createNavigationView(doc, lang);
  plot.append(
    canvas,
    overlay,
    strip,
    titleLeft,
    titleRight,
    labelsLeft,
    labelsRight,
    ...navigation.roots,
    pending.root
  );
  const stop = (event) => event.stopPropagation();
  for (const panel of [pending.root, strip, tooltip]) panel.addEventListener("click", stop);
  pending.root.addEventListener("keydown", stop);
  const image = createImagePanel(doc, lang);
  const graph = element(doc, "div", "attnw-graph");
  const heads = createHeadsGrid(doc, lang);
  const compare = createComparePane(doc, model, plot, lang);
  graph.append(heads.root, compare.row, legend, stripStatus, stripWarning);
  const side = element(doc, "div", "attnw-side");
  side.append(image.root, tooltip);
  const body = element(doc, "div", "attnw-body");
  body.append(graph, side);
  root.append(controls.root, caption, explain.hint, explain.panel, problem, body);
  const columns = tokenColumns(labelsLeft, labelsRight);
  const isDark = () => prefersDarkTable(win.getComputedStyle(root).color);
  let dark = false;
  const drawPicture = (layout, state, scene) => {
    const dpr = fitCanvases(canvas, overlay, layout, edgeLayer);
    plot.style.height = `${layout.height}px`;
    columns.render(layout, state);
    const wide = titleAtEdge(state);
    titleRight.style.left = wide ? "" : `${layout.rightX + LABEL_GAP}px`;
    titleRight.style.right = wide ? "0px" : "";
    probe(canvas, { edgesFrom: edgeLayer.show(scene, dpr) });
    const highlighted = isHighlighted(scene);
    canvas.style.opacity = highlighted ? String(CONTEXT_OPACITY) : "";
    canvas.style.filter = highlighted ? CONTEXT_FILTER : "";
    const ctx = overlay.getContext("2d");
    if (!ctx) return;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, layout.width, layout.height);
    drawOverlay(ctx, scene);
  };
  const placeDock = (dock) => {
    if (dock.beside && tooltip.parentElement !== side) side.append(tooltip);
    if (!dock.beside && tooltip.previousElementSibling !== compare.row) compare.row.after(tooltip);
    side.style.width = dock.beside ? `${dock.width}px` : "";
    side.hidden = !dock.beside && !dock.image;
    body.classList.toggle("attnw-body-stacked", dock.image && !dock.beside);
    probe(tooltip, { dock: dock.beside ? "side" : "below" });
  };
  const paintLayer = (frame, compared = null) => {
    const { state, available, env, slice, edges, layout, pinned, focus } = frame;
    const extras = compared && compareExtras(compared);
    dark = isDark();
    controls.update(state);
    compareControls.update(state);
    explain.update(state.method);
    const reading = !available && state.method.per_head && state.headsJob.layers?.includes(state.layer);
    pending.update(state, available, reading ? { ...state.headsJob, method: state.method.id } : state.job);
    const scene = layerScene(frame, dark);
    saveSvg.disabled = false;
    saveSvg.title = svgTitle;
    drawPicture(layout, state, scene);
    probe(canvas, { edges: String(edges.count), view: "layer" });
    columns.markIdle(state.segments.length > 1 && available ? edges : null);
    canvas.setAttribute(
      "aria-label",
      say("{method}, {layer}, {heads}: {edges} edges between {n} tokens", {
        method: state.method.label,
        layer: layerPhrase(state),
        heads: headLabel(state),
        edges: edges.count,
        n: state.tokens.length
      })
    );
    const titles = columnTitles(state);
    const chosen = state.targets.find((t) => t.id === state.target);
    const scores = currentScores(state.attributionData, state.target, state.attribution, state.tokens.length);
    renderStrip(strip, layout, scores);
    renderStripStatus(
      stripStatus,
      stripWarning,
      state.attributionData,
      state.attribution,
      state.attributions,
      chosen?.label ?? "",
      scores,
      lang,
      state.tokens
    );
    renderTitles(titleLeft, titleRight, titles);
    markHovered(root, focus, pinned);
    markTarget(labelsRight, state.attribution && chosen ? chosen.position : null);
    const dots = frame.degrees ? ` \xB7 ${say(state.nodeSize === "in" ? "dots: in-degree of the right column (row sums), largest {max}" : "dots: out-degree of the left column (column sums, attention received), largest {max}", { max: formatValue(frame.degrees.max) })}` : "";
    const partial = hasPinnedRow(state) ? ` \xB7 ${say("only the pinned token's row is computed for this layer")}` : "";
    const note = (state.method.note ? ` \xB7 ${state.method.note}` : "") + dots + partial + windowNote(layout, lang);
    navigation.paintLayer(frame, scene, dark);
    caption.textContent = `${extras?.name ?? state.method.label} \xB7 ${layerPhrase(state)} \xB7 ${headLabel(state)} \xB7 ${modelKind(state)}${note}`;
    caption.title = state.method.description;
    legend.hidden = !available || Boolean(extras?.legend.hidden);
    renderLegend(legend, {
      table: scene.table,
      signed: scene.signed,
      max: edges.max,
      meanCoverage: frame.meanCoverage,
      minCoverage: frame.minCoverage,
      edgeCount: edges.count,
      drawnShare: edges.drawnShare ?? 1,
      rowLabel: state.method.row_label,
      rowMean: frame.rows ? frame.rows.reduce((a, b) => a + b, 0) / frame.rows.length : null,
      integer: state.method.integer,
      attention: Boolean(state.method.attention_weights),
      lang,
      compare: extras?.legend,
      scale: scene.scale
    });
    tooltip.hidden = !(focus && env);
    if (focus && env) {
      renderTooltip(tooltip, {
        node: focus,
        tokens: state.tokens,
        edges,
        touching: edgesOfNode(edges, focus),
        columnTitle: rowTitle(state, focus.side, focus.index),
        coverage: rowCoverage(env, slice, focus.index),
        rowNote: frame.rows && focus.side === "target" ? [state.method.row_label ?? "", frame.rows[focus.index]] : null,
        scoreNote: scores ? [say("token score"), scores[focus.index]] : null,
        pinned: pinned !== null && focus.side === pinned.side && focus.index === pinned.index,
        integer: state.method.integer,
        lang,
        compare: extras?.list
      });
    }
    return scene;
  };
  const paintModel = (frame) => {
    const { state, layout, perLayer, pinned, focus, unsent } = frame;
    dark = isDark();
    controls.update(state);
    compareControls.update(state);
    explain.update(state.method);
    pending.root.hidden = true;
    const scene = modelScene(frame, dark);
    saveSvg.disabled = false;
    saveSvg.title = svgTitle;
    drawPicture(layout, state, scene);
    navigation.paintModel(frame, scene, dark);
    const edgeCount = perLayer.reduce((sum, edges) => sum + edges.count, 0);
    probe(canvas, { edges: String(edgeCount), view: "model", columns: JSON.stringify(layout.columns) });
    canvas.setAttribute(
      "aria-label",
      say("{method}, all {layers} layers as columns: {edges} edges between {n} tokens per layer", {
        method: state.method.label,
        layers: state.nLayers,
        edges: edgeCount,
        n: state.tokens.length
      })
    );
    renderTitles(titleLeft, titleRight, columnTitles(state));
    markHovered(root, null);
    markTarget(labelsRight, null);
    columns.markIdle(null);
    const drawn = graphMethod(state);
    const graph2 = state.method.cumulative && drawn !== state.method ? say("edges: {graph} of each layer ({heads}); dots: its values between the focused token and the input", {
      graph: drawn.label,
      heads: headLabel({ ...state, method: drawn, head: MEAN_HEAD })
    }) : headLabel(state);
    const colours = scene.scale.of === "paths" ? say("traced paths coloured on each layer's own range") : say("colours scaled per layer");
    const missing = unsent.length ? ` \xB7 ${say("not read yet for this head: layers {layers} (open one to read it)", { layers: unsent.join(", ") })}` : "";
    caption.textContent = `${state.method.label} \xB7 ${say("whole model, {n} layers", { n: state.nLayers })} \xB7 ${graph2} \xB7 ${colours}${missing}${windowNote(layout, lang)}`;
    legend.hidden = false;
    renderLegend(legend, {
      table: scene.table,
      signed: scene.signed,
      max: Math.max(...perLayer.map((e) => e.max)),
      meanCoverage: 1,
      minCoverage: 1,
      edgeCount,
      integer: drawn.integer,
      attention: Boolean(drawn.attention_weights),
      lang,
      scale: scene.scale
    });
    renderStrip(strip, layout, null);
    stripStatus.hidden = stripWarning.hidden = true;
    tooltip.hidden = !focus;
    if (focus) {
      const edges = frame.reach ?? perLayer[Math.max(0, focus.layer - 1)];
      const node = { side: focus.layer === 0 ? "source" : "target", index: focus.index };
      const title = focus.layer === 0 ? say("input token") : say("after {layer}", { layer: layerName(state, focus.layer) });
      renderTooltip(tooltip, {
        node,
        tokens: state.tokens,
        edges,
        touching: edgesOfNode(edges, node),
        columnTitle: frame.reach ? say("{title}, {method} from the input,", { title, method: state.method.label.toLowerCase() }) : title,
        coverage: 1,
        pinned: pinned !== null && pinned.layer === focus.layer && pinned.index === focus.index,
        // Reach lists the method's own values; a layer's edges are its graph method's.
        integer: (frame.reach ? state.method : drawn ?? state.method).integer,
        lang
      });
    }
    return scene;
  };
  const paintHeads = (frame) => {
    const { state } = frame;
    controls.update(state);
    compareControls.update(state);
    explain.update(state.method);
    pending.root.hidden = true;
    legend.hidden = stripStatus.hidden = stripWarning.hidden = tooltip.hidden = true;
    const what = state.method.per_head ? say("mean, max, then each head") : say("{heads}: one matrix per layer (this method is not per head)", { heads: headLabel(state) });
    const grid = say(
      frame.heads.length === 1 ? "all {layers} layers \xD7 1 matrix" : "all {layers} layers \xD7 {heads} heads",
      { layers: state.nLayers, heads: state.nHeads }
    );
    const note = state.method.note ? ` \xB7 ${state.method.note}` : "";
    caption.textContent = `${state.method.label} \xB7 ${grid} \xB7 ${what} \xB7 ${modelKind(state)}${note}`;
    caption.title = state.method.description;
    heads.paint(frame);
    navigation.hide();
    saveSvg.disabled = false;
    saveSvg.title = svgTitle;
  };
  const drawAhead = (frames) => {
    edgeLayer.drawAhead(
      frames.map((next) => () => {
        let frame;
        try {
          frame = next();
        } catch {
          return null;
        }
        if (frame.kind === "model") return modelScene(frame, dark);
        return frame.available ? layerScene(frame, dark) : null;
      })
    );
  };
  const showProblem = (reason, state) => {
    if (reason) {
      controls.update(state);
      compareControls.update(state);
    }
    problem.hidden = !reason;
    problem.textContent = reason ? say("Cannot draw this view: {reason}. Make the widget again, e.g. AttentionWidget(model, text).", { reason }) : "";
    caption.hidden = Boolean(reason);
    plot.hidden = Boolean(reason) || state.view === "heads";
    heads.root.hidden = Boolean(reason) || state.view !== "heads";
    if (reason) legend.hidden = stripStatus.hidden = stripWarning.hidden = tooltip.hidden = true;
  };
  const pictureOf = (scene, state) => {
    return {
      scene,
      tokens: state.tokens,
      titles: columnTitles(state),
      titleAtEdge: titleAtEdge(state),
      caption: caption.textContent ?? "",
      foreground: dark ? "#e6e6e6" : "#111111",
      background: dark ? "#111111" : "#ffffff",
      image: image.scene(),
      notes: navigation.markers.labels(),
      pinned: state.view === "layer" ? pinnedNode(state) : null,
      // the whole-model view labels no pin
      legend: legendOf(scene, state.view === "model" ? graphMethod(state) : state.method, lang, compare.legendLabel()),
      ...compare.picture()
    };
  };
  const headsWords = () => {
    const onDark = isDark();
    return {
      caption: caption.textContent ?? "",
      foreground: onDark ? "#e6e6e6" : "#111111",
      background: onDark ? "#111111" : "#ffffff"
    };
  };
  const paintCompare = (frames) => compare.paint(frames, dark);
  return {
    root,
    plot,
    canvas,
    heads,
    image,
    navigation,
    comparePlot: compare.otherPlot,
    savePng,
    saveSvg,
    paintLayer,
    paintModel,
    paintHeads,
    headsWords,
    paintCompare,
    placeDock,
    drawAhead,
    showProblem,
    paintComing: () => {
      edgeLayer.paintComing();
      compare.paintComing();
    },
    setOnScreen: (on) => {
      edgeLayer.setOnScreen(on);
      compare.setOnScreen(on);
    },
    drawAheadCompare: (frames) => compare.drawAhead(frames, dark),
    pictureOf,
    destroy: () => {
      controls.destroy();
      compareControls.destroy();
      compare.destroy();
      pending.destroy();
      edgeLayer.destroy();
    }
  };
}

// src/render.js
var DEFAULT_WIDTH = 640;
function render({ model, el }) {
  let cleanup = renderView(model, el);
  const redo = () => {
    cleanup();
    cleanup = renderView(model, el);
  };
  model.on("change:lang", redo);
  return () => {
    model.off("change:lang", redo);
    cleanup();
  };
}
function renderView(model, el) {
  const doc = el.ownerDocument;
  const win = (
    /** @type {Window} */
    doc.defaultView
  );
  const view = createView(doc, model, readState(model).lang);
  el.append(view.root);
  const envelopeOf = envelopeCache(model);
  let hovered = null;
  let frame = null;
  let scene = null;
  let compared = null;
  let scheduled = 0;
  let pointer = null;
  let rowsMoved = false;
  const paint = () => {
    const started = win.performance.now();
    scheduled = 0;
    const state = readState(model);
    const total = el.clientWidth || DEFAULT_WIDTH;
    const panel = panelLayout(total, state.image);
    const other = compareMeta(state);
    const wide = state.view === "heads" || other !== null && state.compareMode === "side" && !state.image;
    const dock = wide ? { graphWidth: total, beside: false, width: 0, image: false } : dockLayout(total, panel, Boolean(state.image));
    view.placeDock(dock);
    const width = dock.graphWidth;
    let problem = state.problem;
    compared = null;
    if (!problem) {
      try {
        if (state.view === "heads") {
          frame = headsFrame(state, width, envelopeOf);
          scene = null;
          view.paintHeads(frame);
          view.paintCompare(null);
          view.image.paint(null);
        } else if (other) {
          compared = compareFrames(state, other, width, envelopeOf, hovered);
          frame = compared.main;
          scene = view.paintLayer(frame, compared);
          view.paintCompare(compared);
          view.image.paint(imageScene(state, frame, envelopeOf, panel));
        } else {
          const frameOf2 = () => state.view === "model" && hasGraphData(state) ? modelFrame(state, width, envelopeOf, hovered) : layerFrame(state, width, envelopeOf, hovered);
          frame = frameOf2();
          if (pointer && rowsMoved) {
            const under = nodeUnder(pointer);
            if (!sameNode(under, hovered)) {
              hovered = under;
              frame = frameOf2();
            }
          }
          rowsMoved = false;
          scene = frame.kind === "model" ? view.paintModel(frame) : view.paintLayer(frame);
          view.paintCompare(null);
          view.image.paint(imageScene(state, frame, envelopeOf, panel));
        }
      } catch (error) {
        console.error(error);
        problem = error instanceof Error ? error.message : String(error);
      }
    }
    view.showProblem(problem, state);
    if (problem) {
      frame = scene = hovered = compared = null;
      view.paintCompare(null);
      view.image.paint(null);
      return;
    }
    const ahead = other ? neighbourStates(state).filter((next) => next.view === "layer" && next.method.id === state.method.id) : neighbourStates(state);
    if (other) {
      const pairs = ahead.map((next) => {
        let made;
        return () => made ?? (made = compareFrames(next, other, width, envelopeOf, null));
      });
      view.drawAhead(pairs.map((pair) => () => pair().main));
      if (compared?.mode === "side") view.drawAheadCompare(pairs.map((pair) => () => pair().second));
    } else {
      view.drawAhead(
        ahead.map(
          (next) => () => (
            // (none in the heads view)
            next.view === "model" ? modelFrame(next, width, envelopeOf, null) : layerFrame(next, width, envelopeOf, null)
          )
        )
      );
    }
    const ended = win.performance.now();
    probe(view.root, { paintEnd: String(ended), paintMs: (ended - started).toFixed(3) });
  };
  const schedule = () => {
    view.paintComing();
    if (!scheduled) scheduled = win.requestAnimationFrame ? win.requestAnimationFrame(paint) : win.setTimeout(paint, 0);
  };
  const nodeUnder = (event) => {
    if (!frame || frame.kind === "heads") return null;
    const box = view.plot.getBoundingClientRect();
    const x = event.clientX - box.left;
    const y = event.clientY - box.top;
    return frame.kind === "model" ? modelNodeAt(frame.layout, x, y) : nodeAt(frame.layout, x, y);
  };
  const compareNodeUnder = (event) => {
    if (compared?.mode !== "side") return null;
    const box = view.comparePlot.getBoundingClientRect();
    return nodeAt(compared.second.layout, event.clientX - box.left, event.clientY - box.top);
  };
  const patchNodeUnder = (event) => {
    const shown = view.image.scene();
    if (!frame || frame.kind === "heads" || !shown) return null;
    const box = view.image.canvas.getBoundingClientRect();
    const patch = patchAt(
      shown.layout.box,
      shown.image.rows,
      shown.image.cols,
      event.clientX - box.left,
      event.clientY - box.top
    );
    return patch === null ? null : patchNode(readState(model), shown.image, patch);
  };
  const select = (value) => {
    model.set("selected", value);
    model.save_changes();
  };
  const pinWith = (find) => (event) => {
    const node = find(event);
    if (node) select(toggledSelection(readState(model), node));
  };
  const onClick = pinWith(nodeUnder);
  const onKey = (event) => {
    if (!frame || frame.kind === "heads") return;
    if (navigation.onKey(event)) return event.preventDefault();
    const action = keyAction(readState(model), hovered, event.key, navigation.firstRow());
    if (!action) return;
    event.preventDefault();
    if (action.type === "move") {
      pointer = null;
      hovered = action.node;
      navigation.reveal(action.node.index);
      schedule();
    } else if (action.type === "toggle") {
      select(toggledSelection(readState(model), action.node));
    } else {
      hovered = null;
      select({});
    }
  };
  const hoverWith = (find) => (event) => {
    const node = find(event);
    if (sameNode(node, hovered)) return;
    hovered = node;
    schedule();
  };
  const hoverPlot = hoverWith(nodeUnder);
  const onPointerMove = (event) => {
    pointer = { clientX: event.clientX, clientY: event.clientY };
    hoverPlot(event);
  };
  const onPointerLeave = () => {
    pointer = null;
    if (hovered) {
      hovered = null;
      schedule();
    }
  };
  const onCellClick = (event) => {
    const cell = view.heads.cellUnder(event);
    if (!cell) return;
    model.set("layer", cell.layer);
    if (readState(model).method.per_head) model.set("head", cell.head);
    model.set("view", "layer");
    model.save_changes();
  };
  const fileName = () => {
    const state = readState(model);
    if (state.view === "heads") return `attention-${state.method.id}-heads`;
    const other = compareMeta(state);
    if (other)
      return `attention-${state.method.id}-${state.compareMode === "side" ? "vs" : "minus"}-${other.id}-layer${state.layer}`;
    return state.view === "model" ? `attention-${state.method.id}-model` : `attention-${state.method.id}-layer${state.layer}`;
  };
  const picture = () => {
    if (!scene) paint();
    return scene && view.pictureOf(scene, readState(model));
  };
  const onSavePng = () => {
    if (readState(model).view === "heads") {
      const words = view.headsWords();
      const grid = view.heads.picture(2, words.foreground);
      if (!grid) return;
      const canvas2 = (
        /** @type {HTMLCanvasElement} */
        doc.createElement("canvas")
      );
      paintHeadsPng(canvas2, grid, words, 2);
      canvas2.toBlob((blob) => blob && download(view.root, blob, `${fileName()}.png`), "image/png");
      return;
    }
    const drawn = picture();
    if (!drawn) return;
    const canvas = (
      /** @type {HTMLCanvasElement} */
      doc.createElement("canvas")
    );
    paintPng(canvas, drawn);
    canvas.toBlob((blob) => blob && download(view.root, blob, `${fileName()}.png`), "image/png");
  };
  const onSaveSvg = () => {
    if (readState(model).view === "heads") {
      const words = view.headsWords();
      const grid = view.heads.picture(2, words.foreground);
      if (grid)
        download(view.root, new Blob([headsSvg(doc, grid, words)], { type: "image/svg+xml" }), `${fileName()}.svg`);
      return;
    }
    const drawn = picture();
    if (drawn) download(view.root, new Blob([svgOf(doc, drawn)], { type: "image/svg+xml" }), `${fileName()}.svg`);
  };
  const navigation = createNavigation(
    model,
    view.navigation,
    () => frame,
    () => {
      const pinned = readState(model).selected.index;
      return hovered?.index ?? (typeof pinned === "number" ? pinned : null);
    }
  );
  const listeners = [
    ...navigation.listeners,
    [view.plot, "wheel", navigation.onWheel, { passive: false }],
    [view.savePng, "click", onSavePng],
    [view.saveSvg, "click", onSaveSvg],
    [view.plot, "pointermove", onPointerMove],
    [view.plot, "pointerleave", onPointerLeave],
    [view.plot, "click", onClick],
    [view.plot, "keydown", onKey],
    [view.comparePlot, "pointermove", hoverWith(compareNodeUnder)],
    [view.comparePlot, "pointerleave", onPointerLeave],
    [view.comparePlot, "click", pinWith(compareNodeUnder)],
    [view.heads.canvas, "pointermove", (event) => view.heads.showHover(view.heads.cellUnder(event))],
    [view.heads.canvas, "pointerleave", () => view.heads.showHover(null)],
    [view.heads.canvas, "click", onCellClick],
    [view.image.canvas, "pointermove", hoverWith(patchNodeUnder)],
    [view.image.canvas, "pointerleave", onPointerLeave],
    [view.image.canvas, "click", pinWith(patchNodeUnder)]
  ];
  for (const [target, type, callback, options] of listeners) target.addEventListener(type, callback, options);
  const subscriptions = REDRAW_ON.filter((name) => !["view", "window", "lang"].includes(name)).map((name) => [
    `change:${name}`,
    schedule
  ]);
  const { methods, graphs = [] } = readState(model);
  for (const method of [...methods, ...graphs]) {
    subscriptions.push([`change:data_${method.id}`, schedule]);
    if (method.row_label) subscriptions.push([`change:data_${method.id}_rows`, schedule]);
  }
  subscriptions.push([
    "change:window",
    () => {
      rowsMoved = true;
      schedule();
    }
  ]);
  subscriptions.push([
    "change:view",
    () => {
      hovered = null;
      schedule();
    }
  ]);
  for (const [event, callback] of subscriptions) model.on(event, callback);
  const { ResizeObserver, MutationObserver, IntersectionObserver } = (
    /** @type {typeof globalThis} */
    /** @type {unknown} */
    win
  );
  const resize = ResizeObserver ? new ResizeObserver(schedule) : null;
  resize?.observe(el);
  const inView = IntersectionObserver ? new IntersectionObserver((entries) => view.setOnScreen(entries[entries.length - 1].isIntersecting)) : null;
  inView?.observe(view.root);
  const theme = new MutationObserver(schedule);
  for (const node of [doc.documentElement, doc.body]) if (node) theme.observe(node, { attributes: true });
  paint();
  return () => {
    if (scheduled) (win.cancelAnimationFrame ?? win.clearTimeout)(scheduled);
    for (const [event, callback] of subscriptions) model.off(event, callback);
    for (const [target, type, callback] of listeners) target.removeEventListener(type, callback);
    resize?.disconnect();
    inView?.disconnect();
    theme.disconnect();
    view.destroy();
    view.root.remove();
  };
}

// src/standalone.js
function decodeState(value) {
  if (Array.isArray(value)) return value.map(decodeState);
  if (value && typeof value === "object") {
    if ("base64" in value) {
      const binary = atob(value.base64);
      const bytes = new Uint8Array(binary.length);
      for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
      return new DataView(bytes.buffer);
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, decodeState(v)]));
  }
  return value;
}
var SAVED = [...VIEW_OPTIONS.map((option2) => option2.trait), ...PICKS];
function createStandaloneModel(state) {
  const traits = new Map(Object.entries(decodeState(state)));
  const listeners = /* @__PURE__ */ new Map();
  const saved = [];
  return {
    saved,
    /** @param {string} name */
    get: (name) => traits.get(name),
    /** @param {string} name @param {any} value */
    set(name, value) {
      traits.set(name, value);
      for (const callback of listeners.get(`change:${name}`) ?? []) callback();
    },
    save_changes() {
      saved.push(Object.fromEntries(SAVED.map((k) => [k, traits.get(k)])));
    },
    /** @param {string} event @param {Function} callback */
    on(event, callback) {
      if (!listeners.has(event)) listeners.set(event, /* @__PURE__ */ new Set());
      listeners.get(event)?.add(callback);
    },
    /** @param {string} event @param {Function} callback */
    off(event, callback) {
      listeners.get(event)?.delete(callback);
    },
    send() {
    }
    // no kernel: nothing to compute on request
  };
}
function renderStandalone(el, state) {
  const model = createStandaloneModel(state);
  const cleanup = render({ model: (
    /** @type {any} */
    model
  ), el });
  return { model, cleanup };
}

// src/index.js
var index_default = { render };
export {
  index_default as default,
  renderStandalone
};
