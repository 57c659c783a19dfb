// src/codec.js
var MAGIC = "AWP1";
var FULL_SCALE = { u16: 65535, i16: 32767 };
function asBytes(data) {
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  throw new TypeError("expected a DataView, ArrayBuffer or typed array");
}
var ARRAY_TYPES = { f32: Float32Array, u16: Uint16Array, i16: Int16Array };
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
  return {
    layout: header.layout,
    shape,
    slices,
    rows,
    cols,
    k: header.k,
    signed: header.sections.values.dtype === "i16",
    scale: sections.scale,
    values: sections.values,
    indices: sections.indices ?? null,
    coverage: sections.coverage ?? null
  };
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
  const stops2 = anchors.map(rgb);
  const out = [];
  for (let i = 0; i < size; i++) {
    const t = i / (size - 1) * (stops2.length - 1);
    const lo = Math.min(Math.floor(t), stops2.length - 2);
    const f = t - lo;
    const c = stops2[lo].map((a, ch) => Math.round(a + (stops2[lo + 1][ch] - a) * f));
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
function colorAt(table, t, signed = false) {
  const u = signed ? (t + 1) / 2 : t;
  const i = Math.max(0, Math.min(table.length - 1, Math.round(u * (table.length - 1))));
  return table[i];
}
function prefersDarkTable(textColor) {
  const m = textColor.match(/\d+(\.\d+)?/g);
  if (!m || m.length < 3) return false;
  const [r, g, b] = m.slice(0, 3).map(Number);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 128;
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
  for (let r = 0; r < rows; r++) {
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
    drawnShare: 0
  };
  let drawn = 0;
  for (let k = 0; k < keptCount; k++) {
    const e = kept[k];
    out.source[k] = source[e];
    out.target[k] = target[e];
    out.weight[k] = weight[e] * factor[k];
    out.max = Math.max(out.max, Math.abs(out.weight[k]));
    drawn += Math.abs(weight[e]);
  }
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

// src/layout.js
var LABEL_WIDTH = 120;
var HEADER_HEIGHT = 22;
var LABEL_GAP = 6;
var MAX_PLOT_HEIGHT = 560;
var MIN_PLOT_HEIGHT = 120;
var ROW_HEIGHT = 20;
var MIN_LABEL_ROW = 10;
function computeLayout(width, n, window = { start: 0, size: 0 }) {
  const size = window.size > 0 ? Math.min(window.size, n) : n;
  const first = Math.max(0, Math.min(window.start, n - size));
  const plotHeight = Math.max(MIN_PLOT_HEIGHT, Math.min(MAX_PLOT_HEIGHT, size * ROW_HEIGHT));
  const rowHeight = plotHeight / Math.max(size, 1);
  const labelWidth = Math.min(LABEL_WIDTH, Math.max(40, width * 0.22));
  return {
    width,
    height: HEADER_HEIGHT + plotHeight + 4,
    n,
    // Rows before the window sit above the plot (and are clipped): indices stay the token's own.
    top: HEADER_HEIGHT - first * rowHeight,
    rowHeight,
    leftX: labelWidth,
    rightX: width - labelWidth,
    showLabels: rowHeight >= MIN_LABEL_ROW,
    first,
    last: first + size - 1
  };
}
function rowCenter(layout, index) {
  return layout.top + (index + 0.5) * layout.rowHeight;
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

// src/model_view.js
function modelLayout(base, nLayers) {
  const columns = Array.from({ length: nLayers + 1 }, (_, c) => base.leftX + (base.rightX - base.leftX) * c / nLayers);
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
function tracePaths(perLayer, node, fan = 2) {
  const traced = perLayer.map(() => /* @__PURE__ */ new Set());
  const strongest = (edges, nodes, end) => {
    const ends = end === "target" ? edges.target : edges.source;
    const grouped = /* @__PURE__ */ new Map();
    for (let e = 0; e < edges.count; e++) {
      if (!nodes.has(ends[e])) continue;
      const list = grouped.get(ends[e]) ?? [];
      list.push(e);
      grouped.set(ends[e], list);
    }
    const chosen = [];
    for (const list of grouped.values()) {
      list.sort((a, b) => Math.abs(edges.weight[b]) - Math.abs(edges.weight[a]));
      chosen.push(...list.slice(0, fan));
    }
    return chosen;
  };
  let frontier = /* @__PURE__ */ new Set([node.index]);
  for (let layer = node.layer; layer >= 1 && frontier.size; layer--) {
    const edges = perLayer[layer - 1];
    const chosen = strongest(edges, frontier, "target");
    for (const e of chosen) traced[layer - 1].add(e);
    frontier = new Set(chosen.map((e) => edges.source[e]));
  }
  frontier = /* @__PURE__ */ new Set([node.index]);
  for (let layer = node.layer + 1; layer <= perLayer.length && frontier.size; layer++) {
    const edges = perLayer[layer - 1];
    const chosen = strongest(edges, frontier, "source");
    for (const e of chosen) traced[layer - 1].add(e);
    frontier = new Set(chosen.map((e) => edges.target[e]));
  }
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
var MEAN_HEAD = -1;
var MAX_HEAD = -2;
function choice(trait, choices, key = trait) {
  const values = choices.map(([value]) => value);
  return { trait, key, choices, read: (value) => values.find((v) => v === value) ?? values[0] };
}
function count(trait, key, low, high, fallback) {
  return { trait, key, read: (value, facts) => clamp(value, low, high(facts), fallback) };
}
function finite(trait, key, low, high, fallback) {
  return { trait, key, read: (value) => typeof value === "number" && Number.isFinite(value) && value >= low && value <= high ? value : fallback };
}
function text(trait) {
  return { trait, key: trait, read: (value) => String(value ?? "") };
}
var VIEW_OPTIONS = [
  choice("view", [["layer", "one layer"], ["model", "whole model"], ["heads", "all heads"]]),
  count("layer", "layer", 1, (facts) => facts.nLayers, 1),
  {
    trait: "head",
    key: "head",
    read: (value, facts) => Number.isInteger(value) && /** @type {number} */
    value >= MAX_HEAD && /** @type {number} */
    value < facts.nHeads ? value : MEAN_HEAD
  },
  text("method"),
  text("attribution"),
  count("top_k", "topK", 0, () => Infinity, 0),
  finite("threshold", "threshold", 0, Infinity, 0),
  choice("specials", [["show", "show"], ["hide", "hide"], ["renormalise", "hide, renormalise rows"]]),
  finite("binarize_threshold", "binarizeThreshold", 0, 1, 0.05),
  choice("node_size", [["", "off"], ["in", "in-degree"], ["out", "out-degree"]], "nodeSize"),
  {
    trait: "window",
    key: "window",
    read: (value, facts) => ({
      start: clamp(Array.isArray(value) ? value[0] : 0, 0, Math.max(0, facts.n - 1), 0),
      size: clamp(Array.isArray(value) ? value[1] : 0, 0, Infinity, 0)
    })
  }
];
var PICKS = ["target", "selected"];
var FACTS = ["tokens", "special", "methods", "attributions", "n_layers", "n_heads", "causal", "model_name", "layer_names", "column_names", "segments", "ready", "ready_row", "targets", "image"];
var REDRAW_ON = [...FACTS, ...VIEW_OPTIONS.map((option2) => option2.trait), ...PICKS, "job", "attribution_data"];
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
  const rawMethods = model.get("methods");
  const methods = Array.isArray(rawMethods) ? rawMethods.filter((m) => isObject(m) && typeof m.id === "string" && typeof m.label === "string") : [];
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
  const method = methods.find((m) => m.id === options.method) ?? methods[0] ?? NO_METHOD;
  const rawNames = model.get("layer_names");
  const rawColumns = model.get("column_names");
  const rawSegments = model.get("segments");
  const segments = Array.isArray(rawSegments) ? rawSegments.filter((s) => isObject(s) && typeof s.label === "string" && isCount(s.size)) : [];
  const ready = model.get("ready");
  const readyRow = model.get("ready_row");
  const job = model.get("job");
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
      methods,
      method,
      layer: nearestLayer(method, options.layer),
      ready: isObject(ready) ? Object.fromEntries(Object.entries(ready).filter(([, layers]) => Array.isArray(layers))) : {},
      readyRow: isObject(readyRow) ? Object.fromEntries(Object.entries(readyRow).filter(([, index]) => isCount(index) && index < n)) : {},
      job: isObject(job) && (job.total === void 0 || Number.isFinite(job.total)) && (job.done === void 0 || Number.isFinite(job.done)) ? job : {},
      targets: Array.isArray(targets) ? targets.filter((t) => isObject(t) && typeof t.id === "string" && typeof t.label === "string") : [],
      target: String(model.get("target") ?? ""),
      attributions: Array.isArray(attributions) ? attributions.filter((a) => isObject(a) && typeof a.id === "string" && typeof a.label === "string") : [],
      attributionData: isObject(model.get("attribution_data")) ? model.get("attribution_data") : {},
      offline: model.get("offline") === true,
      selected: selection(model.get("selected"), n, L),
      image: readImage(model.get("image"), n)
    }
  );
}
function nearestLayer(method, layer) {
  const layers = Array.isArray(method.layers) && method.layers.length ? method.layers : null;
  if (!layers || layers.includes(layer)) return layer;
  return layers.reduce((best, l) => Math.abs(l - layer) < Math.abs(best - layer) ? l : best, layers[0]);
}
function layerName(state, layer) {
  if (layer === 0) return "input";
  return state.layerNames[layer - 1] ?? `layer ${layer}`;
}
function layerMark(state, layer) {
  const match = /^(\p{L})\p{L}* (\d+)$/u.exec(state.layerNames[layer - 1] ?? "");
  return match ? `${match[1].toUpperCase()}${match[2]}` : String(layer);
}
function isObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
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
  const pinned = pinnedNode(state);
  return !hasLayer(state, state.layer) && pinned?.side === "target" && state.readyRow[state.method.id] === pinned.index;
}
function hasLayer(state, layer) {
  const layers = state.ready[state.method.id];
  return layers === void 0 || layers.includes(layer);
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
  if (state.view === "model") return [{ ...state, view: (
    /** @type {const} */
    "layer"
  ) }, ...others.filter(hasWholeModel)];
  const out = [];
  for (const layer of [state.layer + 1, state.layer - 1]) {
    if (layer >= 1 && layer <= state.nLayers && hasLayer(state, layer) && nearestLayer(state.method, layer) === layer) out.push({ ...state, layer });
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
  if (!state.method.per_head) return state.method.heads === "combined" ? `all ${state.nHeads} heads combined` : `mean of ${state.nHeads} heads`;
  if (state.head === MEAN_HEAD) return `mean of ${state.nHeads} heads`;
  if (state.head === MAX_HEAD) return `max over ${state.nHeads} heads`;
  return `head ${state.head}`;
}
function columnTitles(state) {
  if (state.view === "model") return [columnName(state, 0), columnName(state, state.nLayers)];
  const [left, right] = layerColumns(state);
  const title = (layer) => state.columnNames[layer]?.join(" \xB7 ") ?? columnName(state, layer);
  return [title(left), title(right)];
}
function layerColumns(state) {
  return [state.method.cumulative ? 0 : state.layer - 1, state.layer];
}
function columnName(state, layer) {
  return layer === 0 ? "Input (layer 0)" : capitalised(layerName(state, layer));
}
function rowTitle(state, side, index) {
  const column = layerColumns(state)[side === "source" ? 0 : 1];
  const names = state.columnNames[column];
  if (!names || names.length !== state.segments.length) return columnTitles(state)[side === "source" ? 0 : 1];
  let end = 0;
  const k = state.segments.findIndex((segment) => index < (end += segment.size));
  return capitalised(names[Math.max(0, k)]);
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
    throw new Error(`${trait} has shape [${env.shape}], which does not fit ${n} tokens, ${state.nLayers} layers and ${state.nHeads} heads`);
  }
  return env;
}
var filteredOf = /* @__PURE__ */ new WeakMap();
var FILTERED_KEPT = 256;
function filteredSlice(env, slice, filter) {
  let kept = filteredOf.get(env);
  if (!kept) filteredOf.set(env, kept = /* @__PURE__ */ new Map());
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
  const layout = computeLayout(width, state.tokens.length, state.window);
  const slice = sliceIndex(state);
  const pinned = pinnedNode(state);
  const focus = (hovered && "side" in hovered ? hovered : null) ?? pinned;
  const base = { kind: (
    /** @type {const} */
    "layer"
  ), state, slice, layout, pinned, focus };
  if (!isAvailable(state)) {
    return { ...base, available: false, env: null, edges: NO_EDGES, meanCoverage: 1, minCoverage: 1, rows: null, degrees: null };
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
  return { ...base, available: true, env, edges, meanCoverage: sum / env.rows, minCoverage: min, rows, degrees };
}
function modelFrame(state, width, envelopeOf, hovered) {
  const layout = modelLayout(computeLayout(width, state.tokens.length, state.window), state.nLayers);
  const { cumulative } = state.method;
  const graphMethod = state.methods.find((m) => m.id === state.method.graph) ?? state.method;
  const graphState = { ...state, method: graphMethod, head: cumulative ? MEAN_HEAD : state.head };
  const env = dataOf(state, envelopeOf, graphMethod);
  const filter = edgeFilter(state);
  const perLayer = Array.from({ length: state.nLayers }, (_, l) => filteredSlice(env, sliceIndex({ ...graphState, layer: l + 1 }), filter));
  const pinned = pinnedModelNode(state);
  const focus = (hovered && "layer" in hovered ? hovered : null) ?? pinned;
  const reachEnv = cumulative && state.ready[state.method.id]?.length !== 0 ? dataOf(state, envelopeOf, state.method) : null;
  const shade = reachEnv && focus ? reachShading(state, reachEnv, focus) : null;
  const reachable = reachEnv && focus && focus.layer > 0 && hasLayer(state, focus.layer);
  const reach = reachable ? sliceEdges(reachEnv, focus.layer - 1, focus.index) : null;
  return { kind: "model", state, layout, env, perLayer, shade, reach, pinned, focus };
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

// src/text.js
var UNSAFE = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufffe\uffff\ud800-\udfff]/gu;
var WHITESPACE = /* @__PURE__ */ new Map([["\n", "\u21B5"], ["	", "\u21E5"]]);
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
  container.hidden = !layout.showLabels;
  if (!layout.showLabels) return;
  const doc = container.ownerDocument;
  const width = layout.leftX - LABEL_GAP;
  tokens.forEach((token, i) => {
    if (i < layout.first || i > layout.last) return;
    const label = element(doc, "div", "attnw-token", displayToken(token));
    if (special[i]) label.classList.add("attnw-special");
    label.dataset.index = String(i);
    label.style.top = `${rowCenter(layout, i) - layout.rowHeight / 2}px`;
    label.style.height = `${layout.rowHeight}px`;
    label.style.lineHeight = `${layout.rowHeight}px`;
    label.style.width = `${width}px`;
    label.style.left = side === "source" ? "0px" : `${layout.rightX + LABEL_GAP}px`;
    label.title = `\u2068${displayToken(token)}\u2069 (#${i})`;
    container.append(label);
  });
}
function markHovered(root, node, pinned = null) {
  for (const name of ["attnw-hovered", "attnw-pinned"]) {
    for (const label of root.querySelectorAll(`.attnw-token.${name}`)) label.classList.remove(name);
  }
  const mark = (at, name) => {
    if (!at) return;
    const column = root.querySelector(at.side === "source" ? ".attnw-labels-left" : ".attnw-labels-right");
    column?.querySelector(`[data-index="${at.index}"]`)?.classList.add(name);
  };
  mark(node, "attnw-hovered");
  mark(pinned, "attnw-pinned");
}
function markIdle(left, right, edges) {
  for (
    const [column, ends] of
    /** @type {const} */
    [[left, edges?.source], [right, edges?.target]]
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
function markTarget(column, position) {
  for (const label of column.querySelectorAll(".attnw-target-row")) label.classList.remove("attnw-target-row");
  if (position === null || position === void 0) return;
  column.querySelector(`[data-index="${position}"]`)?.classList.add("attnw-target-row");
}
function renderTitles(left, right, titles) {
  left.textContent = titles[0];
  right.textContent = titles[1];
  left.style.height = right.style.height = `${HEADER_HEIGHT}px`;
}
function renderTooltip(tooltip, { node, tokens, edges, touching, columnTitle, coverage, rowNote = null, scoreNote = null, pinned = false, integer = false }) {
  const doc = tooltip.ownerDocument;
  tooltip.replaceChildren();
  const verb = node.side === "target" ? "draws on" : "feeds";
  const title = element(doc, "div", "attnw-tooltip-title", pinned ? "Pinned \xB7 " : "");
  title.append(...quotedToken(doc, tokens[node.index], node.index), ` \xB7 ${columnTitle} ${verb}:`);
  tooltip.append(title);
  const list = element(doc, "table", "attnw-tooltip-list");
  for (const e of touching.slice(0, TOOLTIP_ROWS)) {
    const other = node.side === "target" ? edges.source[e] : edges.target[e];
    const row = element(doc, "tr", "");
    const token = element(doc, "td", "attnw-tooltip-token");
    token.append(...quotedToken(doc, tokens[other], other));
    row.append(token, element(doc, "td", "attnw-tooltip-value", formatValue(edges.weight[e], integer)));
    list.append(row);
  }
  tooltip.append(list);
  if (touching.length > TOOLTIP_ROWS) {
    tooltip.append(element(doc, "div", "attnw-tooltip-more", `\u2026 and ${touching.length - TOOLTIP_ROWS} more`));
  }
  if (touching.length === 0) tooltip.append(element(doc, "div", "attnw-tooltip-more", "no edges"));
  if (rowNote) tooltip.append(element(doc, "div", "attnw-tooltip-more", `${rowNote[0]}: ${formatValue(rowNote[1])}`));
  if (scoreNote) tooltip.append(element(doc, "div", "attnw-tooltip-more", `${scoreNote[0]}: ${formatValue(scoreNote[1])}`));
  if (node.side === "target" && coverage < 0.9995) {
    tooltip.append(
      element(doc, "div", "attnw-tooltip-more", `stored edges carry ${(coverage * 100).toFixed(1)}% of this row`)
    );
  }
  tooltip.hidden = false;
}
function quotedToken(doc, token, index) {
  const chars = Array.from(displayToken(token));
  const text2 = chars.length > TOOLTIP_TOKEN ? `${chars.slice(0, TOOLTIP_TOKEN - 1).join("")}\u2026` : chars.join("");
  return ["\u201C", element(doc, "bdi", "attnw-tooltip-text", text2), `\u201D #${index}`];
}
function formatValue(value, integer = false) {
  if (integer) return String(Math.round(value));
  if (value === 0) return "0";
  const abs = Math.abs(value);
  if (abs >= 1e-3) return value.toFixed(4);
  return value.toExponential(2);
}
function renderLegend(legend, { table, signed, max, meanCoverage, minCoverage, edgeCount, drawnShare = 1, rowLabel = "", rowMean = null, integer = false }) {
  const doc = legend.ownerDocument;
  legend.replaceChildren();
  const stops2 = table.filter((_, i) => i % 32 === 0 || i === table.length - 1);
  const bar = element(doc, "span", "attnw-legend-bar");
  bar.style.background = `linear-gradient(to right, ${stops2.join(", ")})`;
  legend.append(
    element(doc, "span", "attnw-legend-label", signed ? formatValue(-max, integer) : "0"),
    bar,
    element(doc, "span", "attnw-legend-label", formatValue(max, integer))
  );
  const share = meanCoverage * drawnShare;
  const coverageText = minCoverage >= 0.9995 && drawnShare >= 0.9995 ? `${edgeCount} edges, all of the attention drawn` : `${edgeCount} edges carrying ${(share * 100).toFixed(1)}% of the attention` + (minCoverage < 0.9995 ? ` (the data keeps ${(meanCoverage * 100).toFixed(1)}% per row on average, least ${(minCoverage * 100).toFixed(1)}%)` : "");
  legend.append(element(doc, "span", "attnw-legend-coverage", coverageText));
  if (rowLabel && rowMean !== null) {
    legend.append(element(doc, "span", "attnw-legend-coverage", `${rowLabel}: ${formatValue(rowMean)} per row on average`));
  }
  legend.dataset.max = String(max);
  legend.dataset.mid = colorAt(table, 0.5, false);
  legend.dataset.share = String(share);
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
  let signed = false;
  let total = 0;
  let before = 0;
  for (let i = 0; i < row.length; i++) {
    const magnitude = Math.abs(row[i]);
    total += magnitude;
    if (i < prefix) before += magnitude;
    else if (i - prefix < heat.length) {
      heat[i - prefix] = row[i];
      max = Math.max(max, magnitude);
      signed || (signed = row[i] < 0);
    }
  }
  return { heat, max, signed, prefixShare: total > 0 ? before / total : 0 };
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
    title: `${name} at layer ${layer}`,
    scaleText: "",
    note: ""
  };
  if (image.problem) return { ...base, title: "", note: `Cannot draw the image: ${image.problem}.` };
  if (!hasLayer(state, layer)) return { ...base, note: `${state.method.label} at layer ${layer} is not computed yet.` };
  const env = dataOf(state, envelopeOf, state.method);
  const slice = sliceIndex({ ...state, layer });
  const row = new Float64Array(state.tokens.length);
  const { cols, values } = rowEntries(env, slice, token);
  for (let k = 0; k < values.length; k++) row[cols[k]] = values[k];
  const { heat, max, signed, prefixShare } = rowHeat(row, image.prefix, image.rows, image.cols);
  const own = base.outline;
  const others = own === null ? max : Math.max(0, ...Array.from(heat, (v, k) => k === own ? 0 : Math.abs(v)));
  const above = own !== null && others > 0 && Math.abs(heat[own]) > others;
  const names = state.tokens.slice(0, image.prefix).map(displayToken).join(", ");
  const coverage = rowCoverage(env, slice, token);
  const notes = [
    above ? `its own patch (${formatValue(heat[
      /** @type {number} */
      own
    ])}) is above the scale` : "",
    image.prefix ? `${names} (not on the image) ${image.prefix === 1 ? "holds" : "hold"} ${percent(prefixShare)} of this row` : "",
    coverage < 0.9995 ? `the stored entries carry ${percent(coverage)} of it` : ""
  ];
  return {
    ...base,
    heat,
    max: above ? others : max,
    signed,
    table: colormap(signed ? "diverging" : "heat"),
    scaleText: `${state.method.label}: what ${name} draws from each patch`,
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
  if (image) return { graphWidth: panel.graphWidth, beside: panel.beside, width: panel.beside ? panel.width : 0, image };
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
  for (let e = 0; e < edges.count; e++) {
    (highlight && highlight.has(e) ? strong : buckets)[bucketOf(edges.weight[e], edges.max)].push(e);
  }
  ctx.lineCap = "round";
  if (options.unhighlighted ?? true) yield* strokeBuckets(ctx, layout, edges, buckets, options, highlight ? "context" : "plain");
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
  if (role === "focus") return { color, alpha: Math.max(FOCUS_ALPHA, alpha), width: wide ? width * STRONG_WIDTH : STRONG_WIDTH };
  return { color, alpha, width };
}
function greyOf(color) {
  const channels = color.startsWith("#") ? [1, 3, 5].map((i) => parseInt(color.slice(i, i + 2), 16)) : (color.match(/[\d.]+/g) ?? ["0", "0", "0"]).slice(0, 3).map(Number);
  const [r, g, b] = channels;
  const y = Math.round(Math.min(255, 0.2126 * r + 0.7152 * g + 0.0722 * b));
  return `rgb(${y}, ${y}, ${y})`;
}
function edgeStyle(weight, max, options, highlighted) {
  const role = options.highlight === null ? "plain" : highlighted ? "focus" : "context";
  return bucketStyle(bucketOf(weight, max), Math.sign(weight) || 1, options, role);
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
          const y0 = rowCenter(layout, edges.source[members[i]]);
          const y1 = rowCenter(layout, edges.target[members[i]]);
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
function legendOf(scene, method) {
  const maxima = scene.bundles.map((b) => b.edges.max).filter((m) => m > 0);
  if (maxima.length === 0) return null;
  return {
    label: method.label,
    table: scene.table,
    signed: scene.signed,
    max: Math.max(...maxima),
    integer: Boolean(method.integer),
    perLayer: scene.bundles.length > 1
  };
}
function texts(spec) {
  const low = spec.signed ? formatValue(-spec.max, spec.integer) : "0";
  const high = formatValue(spec.max, spec.integer);
  const title = `${spec.label}: edge colour${spec.perLayer ? " (scaled per layer; largest layer's range)" : ""}`;
  return { low, high, title };
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
  add("rect", { class: "attnw-legend-bar", x: barX, y: middle - BAR_HEIGHT / 2, width: BAR_WIDTH, height: BAR_HEIGHT, fill: "url(#attnw-legend-ramp)" }, svg);
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
function drawImageRaster(ctx, scene, x, y, doc) {
  const { image, layout, heat, max, signed, table } = scene;
  const { width, height } = layout.box;
  if (!width || !height) return;
  ctx.imageSmoothingEnabled = width / image.width < 3;
  ctx.drawImage(sourceOf(doc, image), x, y, width, height);
  const cell = (k) => {
    const r = Math.floor(k / image.cols);
    const c = k % image.cols;
    const x0 = x + Math.round(c * width / image.cols);
    const y0 = y + Math.round(r * height / image.rows);
    return [x0, y0, x + Math.round((c + 1) * width / image.cols) - x0, y + Math.round((r + 1) * height / image.rows) - y0];
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
  }
  const outline = (k, dash) => {
    const [cx, cy, cw, ch] = cell(k);
    ctx.setLineDash(dash);
    for (
      const [color, lineWidth] of
      /** @type {const} */
      [["#000000", 4], ["#ffffff", 2]]
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
function createImagePanel(doc) {
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
  const scaleText = element(doc, "div", "attnw-image-scale-text");
  const note = element(doc, "div", "attnw-image-note");
  root.append(title, canvas, scale, scaleText, note);
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
    scale.hidden = scaleText.hidden = !scene.heat;
    [low.textContent, high.textContent] = scaleEnds(scene);
    bar.style.background = `linear-gradient(to right, ${stopsOf(scene.table).join(", ")})`;
    scaleText.textContent = scene.scaleText;
    note.textContent = scene.note;
    canvas.setAttribute("aria-label", `The input image, ${scene.image.rows}\xD7${scene.image.cols} patches, coloured by ${scene.scaleText || "nothing"}`);
    Object.assign(canvas.dataset, {
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
    const stops2 = scene.table;
    for (let i = 0; i < stops2.length; i++) {
      ctx.fillStyle = stops2[i];
      ctx.fillRect(x + bar.x + i * bar.width / stops2.length, y + bar.y, bar.width / stops2.length + 0.5, bar.height);
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
    const stops2 = stopsOf(scene.table);
    stops2.forEach((color, i) => add("stop", { offset: (i / (stops2.length - 1)).toFixed(3), "stop-color": color }, gradient));
    add("rect", { x: x + bar.x, y: y + bar.y, width: bar.width, height: bar.height, fill: "url(#attnw-heat)" }, svg);
  }
  for (const t of texts2) text2(t.text, x + t.x, y + t.y, t.anchor ?? "start", t.bold ? "bold" : "normal");
}

// src/scene.js
var WIDE_EDGES = 32;
var WIDE_EDGES_DENSE = 8;
var DENSE = 300;
var inkOf = (dark) => dark ? "#e6e6e6" : "#333333";
function edgeTable(signed, dark) {
  return colormap(signed ? "diverging" : dark ? "dark" : "light");
}
function layerScene(frame, dark) {
  const { layout, edges, pinned, focus, degrees } = frame;
  const signed = frame.env?.signed ?? false;
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
  const bundles = [{ layout, edges, highlight, wideFrom: wideFrom(edges, edges.count > DENSE ? WIDE_EDGES_DENSE : WIDE_EDGES) }];
  return { layout, bundles, dots, marks: [], rules: segmentRules(layout, frame.state.segments), table: edgeTable(signed, dark), signed, ink };
}
function modelScene(frame, dark) {
  const { layout, perLayer, focus, shade } = frame;
  const ink = inkOf(dark);
  const traced = focus ? tracePaths(perLayer, focus) : null;
  const wide = Math.floor(WIDE_EDGES / Math.max(1, perLayer.length));
  const bundles = perLayer.map((edges, l) => ({
    layout: transition(layout, l + 1),
    edges,
    highlight: traced ? traced[l] : null,
    wideFrom: wideFrom(edges, wide)
  }));
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
      dots.push({ x, y, radius: radius * (1 + value), color: nodeTable[Math.round(value * (nodeTable.length - 1))], alpha: 0.25 + 0.75 * value });
    }
  });
  const marks = layout.columns.slice(1, -1).map((x, c) => ({ text: layerMark(frame.state, c + 1), x, y: HEADER_HEIGHT / 2 }));
  const rules = segmentRules(layout, frame.state.segments);
  return { layout, bundles, dots, marks, rules, table: edgeTable(frame.env.signed, dark), signed: frame.env.signed, ink };
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
      drain(bundleStrokes(ctx, scene, { highlighted: false, unhighlighted: true, role: "context", contextOpacity: CONTEXT_OPACITY }));
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
  for (const { layout, edges, highlight, wideFrom: wideFrom2 } of scene.bundles) {
    const shown = highlighted || role === "context" ? highlight ?? /* @__PURE__ */ new Set() : null;
    const options = { table: scene.table, signed: scene.signed, highlight: shown, wideFrom: wideFrom2, unhighlighted, highlighted, contextOpacity };
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
var SVG = "http://www.w3.org/2000/svg";
var CAPTION_HEIGHT = 24;
function frameOf({ scene, image, legend }) {
  const panel = image ? panelPicture(image) : null;
  const body = Math.max(scene.layout.height, panel?.height ?? 0);
  const panelX = scene.layout.width + PANEL_GAP;
  return { width: image ? panelX + image.layout.width : scene.layout.width, body, height: body + CAPTION_HEIGHT + (legend ? LEGEND_HEIGHT : 0), panelX };
}
function labelsOf({ scene, tokens }) {
  const { layout } = scene;
  if (!layout.showLabels) return [];
  const labels = [];
  for (let i = layout.first; i <= layout.last; i++) {
    const text2 = displayToken(tokens[i]);
    labels.push({ text: text2, x: layout.leftX - LABEL_GAP, y: rowCenter(layout, i), anchor: (
      /** @type {const} */
      "end"
    ) });
    labels.push({ text: text2, x: layout.rightX + LABEL_GAP, y: rowCenter(layout, i), anchor: (
      /** @type {const} */
      "start"
    ) });
  }
  return labels;
}
function svgOf(doc, picture) {
  const { scene } = picture;
  const { layout } = scene;
  const { width, height, body, panelX } = frameOf(picture);
  const add = (tag, attributes, parent) => {
    const node = doc.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, xmlText(String(value)));
    parent.append(node);
    return node;
  };
  const svg = doc.createElementNS(SVG, "svg");
  for (const [name, value] of Object.entries({ width, height, viewBox: `0 0 ${width} ${height}` })) {
    svg.setAttribute(name, String(value));
  }
  svg.setAttribute("font-family", "sans-serif");
  svg.setAttribute("font-size", "12");
  add("rect", { width: "100%", height: "100%", fill: picture.background }, svg);
  const clip = add("clipPath", { id: "attnw-band" }, add("defs", {}, svg));
  add("rect", { x: 0, y: HEADER_HEIGHT, width: layout.width, height: layout.height - HEADER_HEIGHT }, clip);
  const group = add("g", { fill: "none", "stroke-linecap": "round", "clip-path": "url(#attnw-band)" }, svg);
  const options = { table: scene.table, signed: scene.signed };
  const highlighted = scene.bundles.some((b) => b.highlight !== null);
  const context = highlighted ? add("g", { opacity: CONTEXT_OPACITY }, group) : group;
  for (const bundle of scene.bundles) {
    const { edges, wideFrom: wideFrom2 } = bundle;
    const highlight = highlighted ? bundle.highlight ?? /* @__PURE__ */ new Set() : null;
    const { leftX, rightX } = bundle.layout;
    const midX = (leftX + rightX) / 2;
    if (edges.max <= 0) continue;
    for (const strong of [false, true]) {
      for (let e = 0; e < edges.count; e++) {
        if ((highlight?.has(e) ?? false) !== strong) continue;
        const style = edgeStyle(edges.weight[e], edges.max, { ...options, highlight, wideFrom: wideFrom2 }, strong);
        const y0 = rowCenter(bundle.layout, edges.source[e]);
        const y1 = rowCenter(bundle.layout, edges.target[e]);
        const d = `M${leftX} ${y0}C${midX} ${y0} ${midX} ${y1} ${rightX} ${y1}`;
        const stroke = { d, stroke: style.color, "stroke-opacity": style.alpha.toFixed(3), "stroke-width": style.width.toFixed(2) };
        add("path", stroke, strong ? group : context);
      }
    }
  }
  for (const dot of scene.dots) {
    if (dot.radius > 0) add("circle", { cx: dot.x, cy: dot.y, r: dot.radius.toFixed(2), fill: dot.color, "fill-opacity": dot.alpha }, svg);
  }
  const text2 = (content, x, y, anchor, weight = "normal") => {
    const node = add("text", { x, y, "text-anchor": anchor, "dominant-baseline": "middle", fill: picture.foreground, "font-weight": weight }, svg);
    node.textContent = xmlText(content);
  };
  for (const y of scene.rules) add("line", { x1: 0, x2: layout.width, y1: y, y2: y, stroke: picture.foreground, "stroke-opacity": 0.5, "stroke-dasharray": "4 4" }, svg);
  for (const mark of scene.marks) text2(mark.text, mark.x, mark.y, "middle");
  text2(picture.titles[0], 0, 10, "start", "bold");
  if (picture.titleAtEdge) text2(picture.titles[1], layout.width, 10, "end", "bold");
  else text2(picture.titles[1], layout.rightX + LABEL_GAP, 10, "start", "bold");
  for (const label of labelsOf(picture)) text2(label.text, label.x, label.y, label.anchor);
  if (picture.image) svgImagePanel(add, svg, picture.image, panelX, 0, text2);
  text2(picture.caption, 0, body + 12, "start");
  if (picture.legend) svgLegend(add, svg, picture.legend, 0, body + CAPTION_HEIGHT, text2);
  return new (doc.defaultView ?? globalThis).XMLSerializer().serializeToString(svg);
}
function paintPng(canvas, picture, scale = 2) {
  const { layout } = picture.scene;
  const { width, height, body, panelX } = frameOf(picture);
  canvas.width = Math.round(width * scale);
  canvas.height = Math.round(height * scale);
  const ctx = canvas.getContext("2d");
  if (!ctx) return;
  ctx.setTransform(scale, 0, 0, scale, 0, 0);
  ctx.fillStyle = picture.background;
  ctx.fillRect(0, 0, width, height);
  drawScene(ctx, picture.scene);
  ctx.fillStyle = picture.foreground;
  ctx.textBaseline = "middle";
  ctx.font = "bold 12px sans-serif";
  ctx.fillText(picture.titles[0], 0, 10);
  ctx.textAlign = picture.titleAtEdge ? "right" : "left";
  ctx.fillText(picture.titles[1], picture.titleAtEdge ? layout.width : layout.rightX + LABEL_GAP, 10);
  ctx.textAlign = "left";
  ctx.font = "12px sans-serif";
  for (const label of labelsOf(picture)) {
    ctx.textAlign = label.anchor === "end" ? "right" : "left";
    ctx.fillText(label.text, label.x, label.y);
  }
  ctx.textAlign = "left";
  if (picture.image) paintImagePanel(ctx, picture.image, panelX, 0, picture.foreground);
  ctx.fillStyle = picture.foreground;
  ctx.font = "12px sans-serif";
  ctx.fillText(picture.caption, 0, body + 12);
  if (picture.legend) paintLegend(ctx, picture.legend, 0, body + CAPTION_HEIGHT, picture.foreground);
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
  const ready = Array.from({ length: state.nLayers }, (_, l) => hasLayer(state, l + 1));
  const env = ready.some(Boolean) ? dataOf(state, envelopeOf, state.method) : null;
  return { kind: "heads", state, layout: gridLayout(width, state.nLayers, heads.length), heads, env, ready };
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
function slicePixels(env, slice, table, size = Infinity) {
  const top = table.length / 3 - 1;
  const middle = env.signed ? Math.round(top / 2) : 0;
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
      const code = env.values[start + k];
      const u = env.signed ? (code * step + 1) / 2 : Math.abs(code) * step;
      const j = env.indices ? env.indices[start + k] : k;
      const p = y + Math.floor(j * side / env.cols);
      const far = Math.abs(code) * step;
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
function keyAction(state, focused, key) {
  const n = state.tokens.length;
  const inModel = state.view === "model";
  const mine = focused && inModel === "layer" in focused ? focused : null;
  const at = (
    /** @type {any} */
    mine ?? (inModel ? pinnedModelNode(state) : pinnedNode(state)) ?? (inModel ? { layer: state.nLayers, index: 0 } : { side: "target", index: 0 })
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
  return JSON.stringify(pinned) === JSON.stringify(node) ? {} : node;
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
function createControls(doc, model) {
  const root = element(doc, "div", "attnw-controls");
  const view = (
    /** @type {HTMLSelectElement} */
    control(doc, "select", "attnw-view", "View", {}, choicesOf("view"))
  );
  const method = (
    /** @type {HTMLSelectElement} */
    control(doc, "select", "attnw-method", "Method")
  );
  const layer = (
    /** @type {HTMLInputElement} */
    control(doc, "input", "attnw-layer", "Layer", { type: "range", min: "1", step: "1" })
  );
  const layerValue = element(doc, "output", "attnw-layer-value");
  const head = (
    /** @type {HTMLSelectElement} */
    control(doc, "select", "attnw-head", "Head")
  );
  const topK = (
    /** @type {HTMLInputElement} */
    control(doc, "input", "attnw-top-k", "Edges per token, 0 for all", {
      type: "number",
      min: "0",
      step: "1",
      title: "Draw at most this many edges into each token (0: all)"
    })
  );
  const threshold = (
    /** @type {HTMLInputElement} */
    control(doc, "input", "attnw-threshold", "Smallest weight drawn", {
      type: "number",
      min: "0",
      step: "0.01",
      title: "Hide edges whose weight is below this"
    })
  );
  const specials = (
    /** @type {HTMLSelectElement} */
    control(doc, "select", "attnw-specials", "Special tokens", {}, choicesOf("specials"))
  );
  const binarize = (
    /** @type {HTMLInputElement} */
    control(doc, "input", "attnw-binarize", "Binarisation threshold", {
      type: "number",
      min: "0",
      max: "0.99",
      step: "0.01",
      title: "An edge exists where the head-mean attention exceeds this"
    })
  );
  const nodeSize = (
    /** @type {HTMLSelectElement} */
    control(doc, "select", "attnw-node-size", "Dots sized by degree", {
      title: "Teaching overlay: size each token's dot by its in-degree (the right column's row sums) or out-degree (the left column's column sums)"
    }, choicesOf("node_size"))
  );
  const rows = (
    /** @type {HTMLSelectElement} */
    control(doc, "select", "attnw-window-size", "Token rows shown", {}, ["0", "32", "64", "128"].map((v) => [v, v === "0" ? "all" : v]))
  );
  const from = (
    /** @type {HTMLInputElement} */
    control(doc, "input", "attnw-window-start", "First token row shown", { type: "number", min: "0", step: "1" })
  );
  const target = (
    /** @type {HTMLSelectElement} */
    control(doc, "select", "attnw-target", "Target to explain", { title: "The number the token scores explain: a logit, a similarity, or your own (w.set_target)" })
  );
  const attribution = (
    /** @type {HTMLSelectElement} */
    control(doc, "select", "attnw-attribution", "Token scores")
  );
  const targetControl = labelled(doc, "Target", target);
  const binarizeControl = labelled(doc, "Edge if weight >", binarize);
  const windowControl = labelled(doc, "Token rows", rows, element(doc, "span", "attnw-control-name", "from"), from);
  root.append(
    labelled(doc, "View", view),
    labelled(doc, "Method", method),
    labelled(doc, "Layer", layer, layerValue),
    binarizeControl,
    labelled(doc, "Head", head),
    labelled(doc, "Edges per token", topK),
    labelled(doc, "Min weight", threshold),
    labelled(doc, "Special tokens", specials),
    labelled(doc, "Dot size", nodeSize),
    windowControl,
    labelled(doc, "Token scores", attribution),
    targetControl
  );
  const commit = (name, value) => {
    model.set(name, value);
    model.save_changes();
  };
  const onWindow = () => commit("window", [Math.max(0, Math.round(Number(from.value) || 0)), Number(rows.value)]);
  const onMethod = () => {
    const chosen = last?.methods.find((m) => m.id === method.value);
    if (chosen && last) model.set("layer", nearestLayer(chosen, last.layer));
    commit("method", method.value);
  };
  const onTopK = () => commit("top_k", Math.max(0, Math.round(Number(topK.value) || 0)));
  const onThreshold = () => commit("threshold", Math.max(0, Number(threshold.value) || 0));
  const onBinarize = () => commit("binarize_threshold", Math.min(0.99, Math.max(0, Number(binarize.value) || 0)));
  const listeners = [
    [method, "change", onMethod],
    [view, "change", () => commit("view", view.value)],
    [layer, "input", () => commit("layer", Number(layer.value))],
    [head, "change", () => commit("head", Number(head.value))],
    [target, "change", () => commit("target", target.value)],
    [attribution, "change", () => commit("attribution", attribution.value)],
    [topK, "change", onTopK],
    [threshold, "change", onThreshold],
    [specials, "change", () => commit("specials", specials.value)],
    [binarize, "change", onBinarize],
    [nodeSize, "change", () => commit("node_size", nodeSize.value)],
    [rows, "change", onWindow],
    [from, "change", onWindow],
    // Enter commits a number field. Notebook hosts bind Enter (JupyterLab: edit the cell, or
    // run it with Shift): the key stops here, so it reaches neither them nor the plot.
    [topK, "keydown", enterCommits(onTopK)],
    [threshold, "keydown", enterCommits(onThreshold)],
    [binarize, "keydown", enterCommits(onBinarize)],
    [from, "keydown", enterCommits(onWindow)]
  ];
  for (const [node, type, callback] of listeners) node.addEventListener(type, callback);
  let optionsKey = "";
  let targetsKey = "";
  let last = null;
  return {
    root,
    update(state) {
      if (last && UPDATED_BY.every((name) => same(last?.[name], state[name]))) return;
      last = state;
      const key = JSON.stringify([state.methods.map((m) => [m.id, m.label, m.group]), state.nHeads, state.attributions.map((a) => [a.id, a.label])]);
      if (key !== optionsKey) {
        optionsKey = key;
        method.replaceChildren(...methodOptions(doc, state.methods));
        attribution.replaceChildren(option(doc, "", "off"), ...state.attributions.map((a) => option(doc, a.id, a.label)));
        const names = { [MEAN_HEAD]: "mean", [MAX_HEAD]: "max" };
        head.replaceChildren(...headChoices(state).map((h) => option(doc, String(h), names[h] ?? `head ${h}`)));
      }
      view.value = state.view;
      layer.disabled = state.view !== "layer";
      method.value = state.method.id;
      method.title = state.method.description;
      const layers = state.method.layers?.length ? state.method.layers : null;
      layer.min = String(layers ? layers[0] : 1);
      layer.max = String(layers ? layers[layers.length - 1] : state.nLayers);
      layer.value = String(state.layer);
      layerValue.textContent = state.layerNames.length ? layerName(state, state.layer) : `${state.layer} / ${state.nLayers}`;
      head.value = String(state.method.per_head ? state.head : MEAN_HEAD);
      head.disabled = !state.method.per_head || state.view === "heads" || state.view === "model" && state.method.cumulative;
      head.title = state.method.per_head ? "" : `${state.method.label} averages the heads`;
      const targetKey = JSON.stringify(state.targets);
      if (targetKey !== targetsKey) {
        targetsKey = targetKey;
        target.replaceChildren(...state.targets.map((t) => option(doc, t.id, t.label)));
      }
      target.value = state.target;
      targetControl.hidden = state.targets.length === 0;
      attribution.value = state.attribution;
      if (doc.activeElement !== topK) topK.value = String(state.topK);
      if (doc.activeElement !== threshold) threshold.value = String(state.threshold);
      specials.value = state.specials;
      binarizeControl.hidden = !state.method.settings?.includes("binarize_threshold");
      if (doc.activeElement !== binarize) binarize.value = String(state.binarizeThreshold);
      nodeSize.value = state.nodeSize;
      windowControl.hidden = state.tokens.length <= 32;
      rows.value = String(state.window.size);
      from.max = String(Math.max(0, state.tokens.length - 1));
      if (doc.activeElement !== from) from.value = String(state.window.start);
      from.disabled = state.window.size === 0;
      attribution.disabled = state.targets.length === 0;
      attribution.title = state.targets.length ? "Gradient or blank-out scores of each token for the chosen target" : "This model has no output head: choose a target from Python, e.g. w.set_target(attn_widget.targets.similarity(...))";
    },
    destroy() {
      for (const [node, type, callback] of listeners) node.removeEventListener(type, callback);
    }
  };
}
var UPDATED_BY = [
  "methods",
  "attributions",
  "nHeads",
  "view",
  "method",
  "nLayers",
  "layer",
  "head",
  "targets",
  "target",
  "attribution",
  "topK",
  "layerNames",
  "threshold",
  "specials",
  "binarizeThreshold",
  "nodeSize",
  "tokens",
  "window"
];
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
    groups.set(heading, [...groups.get(heading) ?? [], option(doc, m.id, m.label)]);
  }
  return [...groups].flatMap(([heading, options]) => {
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
function option(doc, value, text2) {
  const node = (
    /** @type {HTMLOptionElement} */
    element(doc, "option", "", text2)
  );
  node.value = value;
  return node;
}

// src/explain.js
function createExplain(doc) {
  const button = (
    /** @type {HTMLButtonElement} */
    element(doc, "button", "attnw-save attnw-explain-toggle", "? About this method")
  );
  button.type = "button";
  button.title = "Show or hide what the selected method draws, in plain words";
  button.setAttribute("aria-expanded", "false");
  const panel = element(doc, "div", "attnw-explain");
  panel.hidden = true;
  const heading = element(doc, "div", "attnw-explain-title");
  const body = element(doc, "div", "attnw-explain-text");
  panel.append(heading, body);
  const panelId = `attnw-explain-${Math.random().toString(36).slice(2)}`;
  panel.id = panelId;
  button.setAttribute("aria-controls", panelId);
  button.addEventListener("click", () => {
    panel.hidden = !panel.hidden;
    button.setAttribute("aria-expanded", String(!panel.hidden));
  });
  const update = (method) => {
    heading.textContent = method.label ? `About \u201C${method.label}\u201D` : "";
    body.textContent = explanationOf(method);
  };
  return { button, panel, update };
}
function explanationOf(method) {
  return method.explain || method.description || "No explanation is available for this method.";
}

// src/heads_draw.js
function createHeadsGrid(doc) {
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
  Object.assign(bar.style, { display: "inline-block", width: "80px", height: "10px", marginRight: "6px", verticalAlign: "middle" });
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
    hover.textContent = cell ? `${capitalised2(layerName(state, cell.layer))}, ${headLabel({ ...state, head: cell.head })}: click to open it` : "Point at a cell to name it; click it to open that layer and head.";
  };
  const paint = (frame) => {
    shown = frame;
    const { state, layout, heads, env } = frame;
    const dpr = win.devicePixelRatio || 1;
    canvas.style.width = `${layout.width}px`;
    canvas.style.height = `${layout.height}px`;
    canvas.width = Math.round(layout.width * dpr);
    canvas.height = Math.round(layout.height * dpr);
    const signed = Boolean(env?.signed);
    const name = signed ? "diverging" : "heat";
    const table = tableBytes(colormap(name));
    Object.assign(canvas.dataset, { rows: String(layout.rows), columns: String(layout.columns), cells: "0", cell: String(layout.cell) });
    canvas.setAttribute("aria-label", `${state.method.label}: ${layout.rows} layers \xD7 ${layout.columns} heat maps, one per ${state.method.per_head ? "head" : "layer"}`);
    const ctx = canvas.getContext("2d");
    if (!ctx) return;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, layout.width, layout.height);
    const ink = win.getComputedStyle(root).color || "#888";
    ctx.fillStyle = ink;
    ctx.font = "11px sans-serif";
    ctx.textAlign = "center";
    ctx.textBaseline = "alphabetic";
    heads.forEach((head, column) => ctx.fillText(state.method.per_head ? headName(head) : "", cellOrigin(layout, 0, column).x + layout.cell / 2, MARGIN_TOP - 4));
    ctx.textAlign = "right";
    ctx.textBaseline = "middle";
    for (let row = 0; row < layout.rows; row++) ctx.fillText(layerMark(state, row + 1), MARGIN_LEFT - 6, cellOrigin(layout, row, 0).y + layout.cell / 2);
    let cells = 0;
    if (env) {
      const size = Math.round(layout.cell * dpr);
      const side = Math.min(env.rows, size);
      scratch.width = scratch.height = side;
      const sctx = scratch.getContext("2d");
      if (!sctx) return;
      const image = sctx.createImageData(side, side);
      ctx.imageSmoothingEnabled = false;
      for (let row = 0; row < layout.rows; row++) {
        for (let column = 0; column < heads.length; column++) {
          const { x, y } = cellOrigin(layout, row, column);
          if (!frame.ready[row]) {
            ctx.strokeStyle = ink;
            ctx.strokeRect(x + 0.5, y + 0.5, layout.cell - 1, layout.cell - 1);
            continue;
          }
          image.data.set(slicePixels(env, cellSlice(frame, row, column), table, size).pixels);
          sctx.putImageData(image, 0, 0);
          ctx.drawImage(scratch, x, y, layout.cell, layout.cell);
          cells++;
        }
      }
    }
    canvas.dataset.cells = String(cells);
    const stops2 = colormap(name);
    bar.style.background = `linear-gradient(to right, ${stops2[0]}, ${stops2[128]}, ${stops2[255]})`;
    const missing = frame.ready.filter((r) => !r).length;
    keyText.textContent = (signed ? "negative \u2190 0 \u2192 positive" : "0 \u2192 largest") + ": each cell is scaled to its own largest value, so a cell shows its pattern, not its strength against the others. Rows of a cell: receiving tokens; columns: sending tokens." + (env && env.rows > Math.round(layout.cell * dpr) ? ` ${env.rows} tokens in ${Math.round(layout.cell * dpr)} pixels: each pixel shows the strongest entry of its block.` : "") + (env?.indices ? ` Only the ${env.k} strongest entries of each row are stored at this length; the rest show as 0.` : "") + (missing ? ` Empty boxes: ${missing} layers not computed yet (click one to open it and compute it there).` : "");
    showHover(null);
  };
  return { root, canvas, paint, cellUnder, showHover };
}
function capitalised2(text2) {
  return text2.charAt(0).toUpperCase() + text2.slice(1);
}

// src/pending.js
function createPending(doc, model) {
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
    element(doc, "button", "attnw-compute-all", "Compute all layers")
  );
  const cancel = (
    /** @type {HTMLButtonElement} */
    element(doc, "button", "attnw-cancel", "Cancel")
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
      root.hidden = available && !(running && mine);
      if (root.hidden) return;
      message.textContent = available ? `${state.method.label}: computing more layers\u2026` : state.offline ? `${state.method.label} for layer ${layer} was not computed before this view was exported; in the notebook, call w.compute("${method}") before exporting.` : `${state.method.label} for layer ${layer} is computed on request${state.method.on_request ? `: ${state.method.on_request}` : "."}`;
      computeLayer.textContent = `Compute layer ${layer}`;
      computeLayer.hidden = computeAll.hidden = running || available || state.offline;
      bar.hidden = cancel.hidden = !running;
      if (running && job.total) {
        bar.max = job.total;
        bar.value = job.done ?? 0;
        bar.textContent = `${Math.round((job.done ?? 0) / job.total * 100)}%`;
      }
      error.textContent = job.error && mine ? job.error === "cancelled" ? "Cancelled." : `Failed: ${job.error}` : "";
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
function createEdgeLayer(canvas, budget = BUDGET) {
  const doc = canvas.ownerDocument;
  const win = (
    /** @type {Window & typeof globalThis} */
    doc.defaultView
  );
  const kept = /* @__PURE__ */ new Map();
  let bytes = 0;
  let shown = null;
  const forget = (key) => {
    const entry = kept.get(key);
    if (!entry) return;
    kept.delete(key);
    bytes -= entry.copy.width * entry.copy.height * 4;
    entry.copy.width = 0;
  };
  const remember = (entry) => {
    kept.set(entry.key, { key: entry.key, bundles: entry.bundles, copy: entry.copy });
    bytes += entry.copy.width * entry.copy.height * 4;
    for (const key of kept.keys()) {
      if (bytes <= budget || key === entry.key) break;
      forget(key);
    }
  };
  const isShown = (key, bundles) => shown !== null && shown.key === key && sameEdges(shown.bundles, bundles);
  const keptPicture = (key, bundles) => {
    const hit = kept.get(key);
    return hit && sameEdges(hit.bundles, bundles) ? hit : null;
  };
  const newCanvas = (width, height) => {
    const copy = (
      /** @type {HTMLCanvasElement} */
      doc.createElement("canvas")
    );
    copy.width = width;
    copy.height = height;
    return copy;
  };
  let toKeep = null;
  let ahead = [];
  let job = null;
  let aheadFor = null;
  let scale = 1;
  let idle = 0;
  let spentMs = FIRST_RATE;
  let spentEdges = 1;
  let skips = 0;
  const startJob = () => {
    while (ahead.length) {
      const scene = (
        /** @type {() => import("./scene.js").Scene | null} */
        ahead.shift()()
      );
      if (!scene) continue;
      const { width, height } = pixelSize(scene.layout, scale);
      const key = keyOf(scene, width, height, scale);
      if (keptPicture(key, scene.bundles) || isShown(key, scene.bundles)) continue;
      const copy = newCanvas(width, height);
      const ctx = copy.getContext("2d");
      if (!ctx) continue;
      ctx.setTransform(scale, 0, 0, scale, 0, 0);
      const strokes = baseStrokes(ctx, scene);
      const next = strokes.next();
      if (!next.done) return { key, bundles: scene.bundles, copy, ctx, strokes, next };
      copy.width = 0;
    }
    return null;
  };
  const dropJob = () => {
    if (job) job.copy.width = 0;
    job = null;
  };
  let periodEnd = 0;
  let continuing = false;
  const channel = win.MessageChannel ? new win.MessageChannel() : null;
  const scheduling = (
    /** @type {{ scheduling?: { isInputPending?: () => boolean } }} */
    win.navigator.scheduling
  );
  const inputPending = () => scheduling?.isInputPending?.() ?? false;
  let onScreen = true;
  const onIdle = (deadline) => {
    idle = 0;
    if (!onScreen) return;
    const room = deadline?.timeRemaining() ?? SLICE;
    periodEnd = win.performance.now() + room;
    const drew = slice(room, room >= IDLE_ASK);
    if ((job || ahead.length) && !drew && ++skips > MAX_SKIPS) {
      dropJob();
      ahead = [];
    }
  };
  const onMessage = () => {
    continuing = false;
    if (!onScreen) return;
    const room = periodEnd - win.performance.now();
    if (room >= 1 && !inputPending()) slice(room, false);
    else nextPeriod();
  };
  const slice = (room, roomy) => {
    const started = win.performance.now();
    const left = () => Math.min(room, SLICE) - (win.performance.now() - started);
    const keeping = toKeep;
    toKeep = null;
    if (keeping && shown === keeping && !kept.has(keeping.key)) {
      const copy = newCanvas(canvas.width, canvas.height);
      copy.getContext("2d")?.drawImage(canvas, 0, 0);
      remember({ ...keeping, copy });
    }
    let strokes = 0;
    if (!job && !keeping && room >= SLICE) job = startJob();
    while (job && left() > 0) {
      if (strokes > 0 && inputPending()) break;
      const edges = (
        /** @type {number} */
        job.next.value
      );
      if (edges * spentMs / spentEdges > left() && (strokes > 0 || !roomy)) break;
      const before = win.performance.now();
      job.next = job.strokes.next();
      job.ctx.getImageData(0, 0, 1, 1);
      spentMs = 0.9 * spentMs + (win.performance.now() - before);
      spentEdges = 0.9 * spentEdges + edges;
      strokes++;
      if (job.next.done) {
        remember(job);
        job = null;
      }
    }
    if (strokes > 0) skips = 0;
    if (!(toKeep || job || ahead.length)) return strokes > 0;
    if (channel && (strokes > 0 || keeping) && periodEnd - win.performance.now() >= 1) {
      continuing = true;
      channel.port2.postMessage(null);
    } else nextPeriod();
    return strokes > 0;
  };
  const nextPeriod = () => {
    periodEnd = 0;
    schedule();
  };
  const schedule = () => {
    if (!idle && !continuing) idle = win.requestIdleCallback ? win.requestIdleCallback(onIdle) : win.setTimeout(onIdle, 100);
  };
  if (channel) channel.port1.onmessage = onMessage;
  const cancel = () => {
    periodEnd = 0;
    channel?.port1.close();
    if (!idle) return;
    if (win.cancelIdleCallback) win.cancelIdleCallback(idle);
    else win.clearTimeout(idle);
    idle = 0;
  };
  return {
    /**
     * Show the scene's edges; nothing is drawn when the canvas already holds them.
     * @param {import("./scene.js").Scene} scene
     * @param {number} pixelScale  device pixels per CSS pixel
     * @returns {"unchanged" | "copy" | "strokes"}  how the canvas got its picture
     */
    show(scene, pixelScale) {
      periodEnd = 0;
      scale = pixelScale;
      const { width, height } = canvas;
      const key = keyOf(scene, width, height, scale);
      if (isShown(key, scene.bundles)) return "unchanged";
      const ctx = canvas.getContext("2d");
      if (!ctx) return "unchanged";
      ahead = [];
      dropJob();
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.clearRect(0, 0, width, height);
      const hit = keptPicture(key, scene.bundles);
      shown = { key, bundles: scene.bundles };
      if (hit) {
        ctx.drawImage(hit.copy, 0, 0);
        kept.delete(key);
        kept.set(key, hit);
        return "copy";
      }
      ctx.setTransform(scale, 0, 0, scale, 0, 0);
      drawBase(ctx, scene);
      toKeep = shown;
      schedule();
      return "strokes";
    },
    /**
     * Draw these scenes ahead while the page is idle, at the scale of the last one shown
     * (replacing any not drawn yet).
     * @param {Array<() => import("./scene.js").Scene | null>} scenes  made only when their turn comes
     */
    drawAhead(scenes) {
      if (aheadFor === shown) return;
      aheadFor = shown;
      const room = Math.floor(budget / (canvas.width * canvas.height * 4)) - 1;
      ahead = scenes.slice(0, Math.max(0, room));
      if (ahead.length) schedule();
    },
    /** A paint is coming (the page is busy): idle work waits for the next idle period. */
    paintComing() {
      periodEnd = 0;
    },
    /** The widget came into view or left it. @param {boolean} value */
    setOnScreen(value) {
      onScreen = value;
      if (value && (toKeep || job || ahead.length)) schedule();
    },
    /** The canvas was cleared (resized): draw again on the next show. */
    invalidate() {
      shown = null;
    },
    destroy() {
      cancel();
      ahead = [];
      dropJob();
      toKeep = null;
      for (const key of [...kept.keys()]) forget(key);
      shown = null;
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

// src/strip.js
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
function renderStripStatus(line, warningLine, data, method, menu, targetLabel, scores) {
  const warning = scores && typeof data.warning === "string" ? data.warning : "";
  warningLine.hidden = !warning;
  warningLine.textContent = warning ? `\u26A0 ${warning}` : "";
  line.hidden = !method;
  if (!method) return;
  const name = menu.find((entry) => entry.id === method)?.label ?? method;
  if (data.status === "error" && data.method === method) {
    line.textContent = `Token scores (${name}) failed: ${data.message}`;
  } else if (scores) {
    let max = 0;
    for (const v of scores) max = Math.max(max, Math.abs(v));
    line.textContent = `Bars: ${name} of ${targetLabel}; longest ${formatValue(max)}`;
  } else {
    const share = data.status === "running" && data.total ? ` ${Math.round((data.done ?? 0) / data.total * 100)}%` : "";
    const waiting = data.status === "running" && data.message ? ` ${data.message}` : "";
    line.textContent = `Computing ${name}\u2026${share}${waiting}`;
  }
}

// src/view.js
function layerPhrase(state) {
  const counted = `layer ${state.layer} of ${state.nLayers}`;
  return state.layerNames.length ? `${layerName(state, state.layer)} (${counted})` : counted;
}
function titleAtEdge(state) {
  return state.columnNames.length > 0 && state.view === "layer";
}
function modelKind(state) {
  if (state.segments.length > 1) return `${state.segments.map((s) => `${s.size} ${s.label}`).join(" + ")} tokens`;
  return state.causal ? "decoder (causal)" : "encoder";
}
function createView(doc, model) {
  const win = (
    /** @type {Window} */
    doc.defaultView
  );
  const root = element(doc, "div", "attnw-root");
  const controls = createControls(doc, model);
  const caption = element(doc, "div", "attnw-caption");
  const problem = element(doc, "div", "attnw-problem");
  problem.setAttribute("role", "alert");
  problem.hidden = true;
  const plot = element(doc, "div", "attnw-plot");
  plot.tabIndex = 0;
  plot.dataset.lmSuppressShortcuts = "true";
  plot.setAttribute("aria-label", "Attention graph. Arrow keys move between tokens and columns, Enter pins a token, Escape unpins.");
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
  savePng.title = "Download the current view as a PNG picture";
  saveSvg.title = "Download the current view as an SVG drawing (labels as text)";
  const explain = createExplain(doc);
  controls.root.append(savePng, saveSvg, explain.button);
  const pending = createPending(doc, model);
  plot.append(canvas, overlay, strip, titleLeft, titleRight, labelsLeft, labelsRight, pending.root);
  const stop = (event) => event.stopPropagation();
  for (const panel of [pending.root, strip, tooltip]) panel.addEventListener("click", stop);
  pending.root.addEventListener("keydown", stop);
  const image = createImagePanel(doc);
  const graph = element(doc, "div", "attnw-graph");
  const heads = createHeadsGrid(doc);
  graph.append(heads.root, plot, legend, stripStatus, stripWarning);
  const side = element(doc, "div", "attnw-side");
  side.append(image.root, tooltip);
  const body = element(doc, "div", "attnw-body");
  body.append(graph, side);
  root.append(controls.root, caption, explain.panel, problem, body);
  let labelsKey = "";
  let idleOf = null;
  const isDark = () => prefersDarkTable(win.getComputedStyle(root).color);
  let dark = false;
  const drawPicture = (layout, state, scene) => {
    const dpr = win.devicePixelRatio || 1;
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
    Object.assign(canvas.dataset, {
      leftX: String(layout.leftX),
      rightX: String(layout.rightX),
      top: String(layout.top),
      rowHeight: String(layout.rowHeight)
    });
    plot.style.height = `${layout.height}px`;
    const key = JSON.stringify([layout.width, layout.n, layout.first, layout.last, state.tokens]);
    if (key !== labelsKey) {
      labelsKey = key;
      idleOf = null;
      renderLabels(labelsLeft, layout, state.tokens, state.special, "source");
      renderLabels(labelsRight, layout, state.tokens, state.special, "target");
    }
    const wide = titleAtEdge(state);
    titleRight.style.left = wide ? "" : `${layout.rightX + LABEL_GAP}px`;
    titleRight.style.right = wide ? "0px" : "";
    canvas.dataset.edgesFrom = edgeLayer.show(scene, dpr);
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
    if (!dock.beside && tooltip.previousElementSibling !== plot) plot.after(tooltip);
    side.style.width = dock.beside ? `${dock.width}px` : "";
    side.hidden = !dock.beside && !dock.image;
    body.classList.toggle("attnw-body-stacked", dock.image && !dock.beside);
    tooltip.dataset.dock = dock.beside ? "side" : "below";
  };
  const paintLayer = (frame) => {
    const { state, available, env, slice, edges, layout, pinned, focus } = frame;
    dark = isDark();
    controls.update(state);
    explain.update(state.method);
    pending.update(state, available, state.job);
    const scene = layerScene(frame, dark);
    saveSvg.disabled = false;
    drawPicture(layout, state, scene);
    Object.assign(canvas.dataset, { edges: String(edges.count), view: "layer" });
    const idle = state.segments.length > 1 && available ? edges : null;
    if (idle !== idleOf) markIdle(labelsLeft, labelsRight, idleOf = idle);
    canvas.setAttribute(
      "aria-label",
      `${state.method.label}, ${layerPhrase(state)}, ${headLabel(state)}: ${edges.count} edges between ${state.tokens.length} tokens`
    );
    const titles = columnTitles(state);
    const chosen = state.targets.find((t) => t.id === state.target);
    const scores = currentScores(state.attributionData, state.target, state.attribution, state.tokens.length);
    renderStrip(strip, layout, scores);
    renderStripStatus(stripStatus, stripWarning, state.attributionData, state.attribution, state.attributions, chosen?.label ?? "", scores);
    renderTitles(titleLeft, titleRight, titles);
    markHovered(root, focus, pinned);
    markTarget(labelsRight, state.attribution && chosen ? chosen.position : null);
    const dots = frame.degrees ? ` \xB7 dots: ${state.nodeSize === "in" ? "in-degree of the right column (row sums)" : "out-degree of the left column (column sums, attention received)"}, largest ${formatValue(frame.degrees.max)}` : "";
    const partial = hasPinnedRow(state) ? " \xB7 only the pinned token's row is computed for this layer" : "";
    const note = (state.method.note ? ` \xB7 ${state.method.note}` : "") + dots + partial;
    caption.textContent = `${state.method.label} \xB7 ${layerPhrase(state)} \xB7 ${headLabel(state)} \xB7 ${modelKind(state)}${note}`;
    caption.title = state.method.description;
    legend.hidden = !available;
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
      integer: state.method.integer
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
        scoreNote: scores ? ["token score", scores[focus.index]] : null,
        pinned: pinned !== null && focus.side === pinned.side && focus.index === pinned.index,
        integer: state.method.integer
      });
    }
    return scene;
  };
  const paintModel = (frame) => {
    const { state, layout, perLayer, pinned, focus } = frame;
    dark = isDark();
    controls.update(state);
    explain.update(state.method);
    pending.root.hidden = true;
    const scene = modelScene(frame, dark);
    saveSvg.disabled = false;
    drawPicture(layout, state, scene);
    const edgeCount = perLayer.reduce((sum, edges) => sum + edges.count, 0);
    Object.assign(canvas.dataset, { edges: String(edgeCount), view: "model", columns: JSON.stringify(layout.columns) });
    canvas.setAttribute("aria-label", `${state.method.label}, all ${state.nLayers} layers as columns: ${edgeCount} edges between ${state.tokens.length} tokens per layer`);
    renderTitles(titleLeft, titleRight, columnTitles(state));
    markHovered(root, null);
    markTarget(labelsRight, null);
    if (idleOf !== null) markIdle(labelsLeft, labelsRight, idleOf = null);
    const drawn = state.methods.find((m) => m.id === state.method.graph);
    const graph2 = state.method.cumulative && drawn ? `edges: ${drawn.label} of each layer (${headLabel({ ...state, method: drawn, head: MEAN_HEAD })}); dots: how much of the focused input reaches each token` : headLabel(state);
    caption.textContent = `${state.method.label} \xB7 whole model, ${state.nLayers} layers \xB7 ${graph2} \xB7 colours scaled per layer`;
    legend.hidden = false;
    renderLegend(legend, { table: scene.table, signed: scene.signed, max: Math.max(...perLayer.map((e) => e.max)), meanCoverage: 1, minCoverage: 1, edgeCount, integer: (drawn ?? state.method).integer });
    renderStrip(strip, layout, null);
    stripStatus.hidden = stripWarning.hidden = true;
    tooltip.hidden = !focus;
    if (focus) {
      const edges = frame.reach ?? perLayer[Math.max(0, focus.layer - 1)];
      const node = { side: focus.layer === 0 ? "source" : "target", index: focus.index };
      const title = focus.layer === 0 ? "input token" : `after ${layerName(state, focus.layer)}`;
      renderTooltip(tooltip, {
        node,
        tokens: state.tokens,
        edges,
        touching: edgesOfNode(edges, node),
        columnTitle: frame.reach ? `${title}, ${state.method.label.toLowerCase()} from the input,` : title,
        coverage: 1,
        pinned: pinned !== null && pinned.layer === focus.layer && pinned.index === focus.index,
        // Reach lists the method's own values; a layer's edges are its graph method's.
        integer: (frame.reach ? state.method : drawn ?? state.method).integer
      });
    }
    return scene;
  };
  const paintHeads = (frame) => {
    const { state } = frame;
    controls.update(state);
    explain.update(state.method);
    pending.root.hidden = true;
    legend.hidden = stripStatus.hidden = stripWarning.hidden = tooltip.hidden = true;
    const what = state.method.per_head ? "mean, max, then each head" : `${headLabel(state)}: one matrix per layer (this method is not per head)`;
    caption.textContent = `${state.method.label} \xB7 all ${state.nLayers} layers \xD7 ${frame.heads.length === 1 ? "1 matrix" : `${state.nHeads} heads`} \xB7 ${what} \xB7 ${modelKind(state)}`;
    caption.title = state.method.description;
    heads.paint(frame);
    saveSvg.disabled = true;
  };
  const drawAhead = (frames) => {
    edgeLayer.drawAhead(frames.map((next) => () => {
      let frame;
      try {
        frame = next();
      } catch {
        return null;
      }
      if (frame.kind === "model") return modelScene(frame, dark);
      return frame.available ? layerScene(frame, dark) : null;
    }));
  };
  const showProblem = (reason, state) => {
    if (reason) controls.update(state);
    problem.hidden = !reason;
    problem.textContent = reason ? `Cannot draw this view: ${reason}. Make the widget again, e.g. AttentionWidget(model, text).` : "";
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
      legend: legendOf(scene, state.view === "model" && state.method.graph ? state.methods.find((m) => m.id === state.method.graph) ?? state.method : state.method)
    };
  };
  return { root, plot, canvas, heads, image, savePng, saveSvg, paintLayer, paintModel, paintHeads, placeDock, drawAhead, showProblem, paintComing: edgeLayer.paintComing, setOnScreen: edgeLayer.setOnScreen, pictureOf, destroy: () => (controls.destroy(), pending.destroy(), edgeLayer.destroy()) };
}

// src/render.js
var DEFAULT_WIDTH = 640;
function render({ model, el }) {
  const doc = el.ownerDocument;
  const win = (
    /** @type {Window} */
    doc.defaultView
  );
  const view = createView(doc, model);
  el.append(view.root);
  const envelopeOf = envelopeCache(model);
  let hovered = null;
  let frame = null;
  let scene = null;
  let scheduled = 0;
  const paint = () => {
    const started = win.performance.now();
    scheduled = 0;
    const state = readState(model);
    const total = el.clientWidth || DEFAULT_WIDTH;
    const panel = panelLayout(total, state.image);
    const dock = state.view === "heads" ? { graphWidth: total, beside: false, width: 0, image: false } : dockLayout(total, panel, Boolean(state.image));
    view.placeDock(dock);
    const width = dock.graphWidth;
    let problem = state.problem;
    if (!problem) {
      try {
        if (state.view === "heads") {
          frame = headsFrame(state, width, envelopeOf);
          scene = null;
          view.paintHeads(frame);
          view.image.paint(null);
        } else {
          frame = state.view === "model" ? modelFrame(state, width, envelopeOf, hovered) : layerFrame(state, width, envelopeOf, hovered);
          scene = frame.kind === "model" ? view.paintModel(frame) : view.paintLayer(frame);
          view.image.paint(imageScene(state, frame, envelopeOf, panel));
        }
      } catch (error) {
        console.error(error);
        problem = error instanceof Error ? error.message : String(error);
      }
    }
    view.showProblem(problem, state);
    if (problem) {
      frame = scene = hovered = null;
      view.image.paint(null);
      return;
    }
    view.drawAhead(neighbourStates(state).map((next) => () => (
      // (none in the heads view)
      next.view === "model" ? modelFrame(next, width, envelopeOf, null) : layerFrame(next, width, envelopeOf, null)
    )));
    const ended = win.performance.now();
    view.root.dataset.paintEnd = String(ended);
    view.root.dataset.paintMs = (ended - started).toFixed(3);
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
  const patchNodeUnder = (event) => {
    const shown = view.image.scene();
    if (!frame || frame.kind === "heads" || !shown) return null;
    const box = view.image.canvas.getBoundingClientRect();
    const patch = patchAt(shown.layout.box, shown.image.rows, shown.image.cols, event.clientX - box.left, event.clientY - box.top);
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
    const action = keyAction(readState(model), hovered, event.key);
    if (!action) return;
    event.preventDefault();
    if (action.type === "move") {
      hovered = action.node;
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
    if (JSON.stringify(node) === JSON.stringify(hovered)) return;
    hovered = node;
    schedule();
  };
  const onPointerMove = hoverWith(nodeUnder);
  const onPointerLeave = () => {
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
    return state.view === "model" ? `attention-${state.method.id}-model` : `attention-${state.method.id}-layer${state.layer}`;
  };
  const picture = () => {
    if (!scene) paint();
    return scene && view.pictureOf(scene, readState(model));
  };
  const onSavePng = () => {
    if (readState(model).view === "heads") {
      view.heads.canvas.toBlob((blob) => blob && download(view.root, blob, `${fileName()}.png`), "image/png");
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
    const drawn = picture();
    if (drawn) download(view.root, new Blob([svgOf(doc, drawn)], { type: "image/svg+xml" }), `${fileName()}.svg`);
  };
  const listeners = [
    [view.savePng, "click", onSavePng],
    [view.saveSvg, "click", onSaveSvg],
    [view.plot, "pointermove", onPointerMove],
    [view.plot, "pointerleave", onPointerLeave],
    [view.plot, "click", onClick],
    [view.plot, "keydown", onKey],
    [view.heads.canvas, "pointermove", (event) => view.heads.showHover(view.heads.cellUnder(event))],
    [view.heads.canvas, "pointerleave", () => view.heads.showHover(null)],
    [view.heads.canvas, "click", onCellClick],
    [view.image.canvas, "pointermove", hoverWith(patchNodeUnder)],
    [view.image.canvas, "pointerleave", onPointerLeave],
    [view.image.canvas, "click", pinWith(patchNodeUnder)]
  ];
  for (const [target, type, callback] of listeners) target.addEventListener(type, callback);
  const subscriptions = REDRAW_ON.filter((name) => name !== "view").map((name) => [`change:${name}`, schedule]);
  for (const method of readState(model).methods) {
    subscriptions.push([`change:data_${method.id}`, schedule]);
    if (method.row_label) subscriptions.push([`change:data_${method.id}_rows`, schedule]);
  }
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
  render,
  renderStandalone
};
