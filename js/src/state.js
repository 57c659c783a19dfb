// Reads the widget model's traits into one plain object per redraw, and maps the
// selected layer/head onto a slice of the method's envelope. Whatever the traits hold, the
// state is usable: a setting out of range falls back to its default, and facts that cannot
// describe a picture (no tokens, no methods) are reported in `problem` instead.

import { tr, trName } from "./i18n.js";
import { readImage } from "./image_fact.js";
import { MAX_HEAD, MEAN_HEAD, readOptions } from "./options.js";

export { MAX_HEAD, MEAN_HEAD };

/**
 * @typedef {object} MethodMeta
 * @property {string} id
 * @property {string} label
 * @property {boolean} per_head     data is (L, H + 2, n, n): heads, then mean, then max
 * @property {boolean} cumulative   sources are the input tokens (layer 0)
 * @property {string} description
 * @property {string} [explain]       plain-language help: what an edge and its colour mean, the definition
 * @property {string} [hint]          one line for a learner choosing it from the menu
 * @property {string} [trust]         when to trust its picture: its assumptions and what it leaves out
 * @property {boolean} [integer]      the values are whole numbers (path counts): printed without decimals
 * @property {boolean} [attention_weights]  the values are attention weights: the legend's share is of the attention
 * @property {boolean} [signed]       values may be negative
 * @property {string} [row_label]     label of a per-row quantity in data_<id>_rows
 * @property {string} [note]          a remark about this input
 * @property {string} [graph]         the method (or entry of `graphs`) whose data draws the whole-model edges ("" = this one)
 * @property {string} [group]         the heading the menu lists it under
 * @property {string} [on_request]    why the method is computed on request here, and what it costs ("" when sent with the widget)
 * @property {string} [heads]         "mean": built on the head-averaged attention; "combined": every head together
 * @property {string[]} [settings]    the view settings that change what it computes
 * @property {number[] | null} [layers]  the layers it exists in (null: every layer), e.g. cross-attention: the decoder's
 */

/**
 * @typedef {object} AttributionMeta  one entry of the token-score menu
 * @property {string} id
 * @property {string} label
 * @property {string} description
 * @property {boolean} signed
 * @property {string} [hint]   one line for a learner choosing it from the menu
 * @property {string} [trust]  when to trust its scores
 */

/**
 * @typedef {object} ViewState
 * @property {string} problem    why the traits describe no picture ("" when they do)
 * @property {string[]} tokens
 * @property {boolean[]} special
 * @property {number} nLayers
 * @property {number} nHeads
 * @property {boolean} causal
 * @property {string} modelName
 * @property {string[]} layerNames   name of each layer ([]: "layer 1", ...), e.g. "encoder 1", ..., "decoder 1", ...
 * @property {string[][]} columnNames  what each column 0..L holds, one name per token list (or one for all) ([]: "Input (layer 0)", "Layer 1", ...)
 * @property {{ label: string, size: number }[]} segments  the token lists the tokens are made of ([]: one text)
 * @property {MethodMeta[]} methods
 * @property {MethodMeta[]} [graphs]  the per-layer steps methods name as their whole-model graph, in no menu
 * @property {MethodMeta} method
 * @property {number} layer   1..nLayers
 * @property {number} head    0..nHeads-1, MEAN_HEAD or MAX_HEAD
 * @property {Record<string, number[]>} ready  per method, the layers present in its data
 * @property {Record<string, PinnedRow>} readyRow  per method computed on request, the pinned token whose
 *   row its data also holds in some layers not in `ready` (computed alone, layer by layer)
 * @property {import("./pending.js").Job} job
 * @property {Record<string, number[]>} slicesReady  per per-head method whose data holds some slices only of its layers
 *   (a long input's: what the view draws), those slice indices (`slices_ready`)
 * @property {import("./pending.js").Job} headsJob  the kernel reading the heads of the shown layer (`heads_job`)
 * @property {{ id: string, label: string, position: number | null }[]} targets
 * @property {string} target        selected target id
 * @property {string} attribution   token-score method, "" = off
 * @property {string} compareMethod  a second method drawn beside the first ("" = off; compare.js)
 * @property {"side" | "difference"} compareMode  both side by side on one scale, or method − compareMethod
 * @property {AttributionMeta[]} attributions  the token-score menu
 * @property {import("./strip.js").AttributionData} attributionData
 * @property {boolean} offline     an exported file: no kernel to compute anything
 * @property {number} topK          edges drawn per receiving token (0 = all stored)
 * @property {number} threshold     smallest |weight| drawn
 * @property {"show" | "hide" | "renormalise"} specials
 * @property {{ side?: "source" | "target", layer?: number, index?: number }} selected  the pinned token
 * @property {"layer" | "model" | "heads"} view  one layer as a bipartite graph, every layer as a column, or a grid of every layer's and head's matrix
 * @property {number} binarizeThreshold  path counts: an edge exists where Ā exceeds this
 * @property {"" | "in" | "out"} nodeSize  dots sized by the slice's in- or out-degree
 * @property {{ start: number, size: number }} window  token rows shown (size 0: all)
 * @property {string} lang          the language of the widget's words ("en", "zh"; i18n.js)
 * @property {"basic" | "all"} controls  the basic control bar, or every control
 * @property {import("./image_fact.js").ShownImage | null} image  an image analysis's input (null: text)
 */

/**
 * @typedef {object} PinnedRow  one `ready_row` entry (attn_widget/pinned_row.py)
 * @property {number} index      the pinned token
 * @property {number[]} layers   the layers its row is in the data (the other rows there are zero)
 * @property {boolean} computing more of its layers are coming
 */

/**
 * @typedef {object} WidgetModel  the subset of the anywidget model API we use
 * @property {(name: string) => any} get
 * @property {(name: string, value: any) => void} set
 * @property {() => void} save_changes
 * @property {(event: string, callback: (...args: any[]) => void) => void} on
 * @property {(event: string, callback: (...args: any[]) => void) => void} off
 * @property {(content: object) => void} send
 */

/** @type {MethodMeta} what the state holds when the traits offer no method */
const NO_METHOD = { id: "", label: "", per_head: false, cumulative: false, description: "" };

/**
 * @param {WidgetModel} model
 * @returns {ViewState}
 */
export function readState(model) {
  const rawTokens = model.get("tokens");
  /** @type {string[]} */
  const tokens = !Array.isArray(rawTokens)
    ? []
    : rawTokens.every((t) => typeof t === "string")
      ? rawTokens
      : rawTokens.map(String);
  const n = tokens.length;
  const rawSpecial = model.get("special");
  /** @type {boolean[]} */
  const special =
    Array.isArray(rawSpecial) && rawSpecial.length === n && rawSpecial.every((s) => typeof s === "boolean")
      ? rawSpecial
      : tokens.map((_, i) => Array.isArray(rawSpecial) && rawSpecial[i] === true);
  /** @param {unknown} raw @returns {MethodMeta[]} */
  const metas = (raw) =>
    Array.isArray(raw) ? raw.filter((m) => isObject(m) && typeof m.id === "string" && typeof m.label === "string") : [];
  const methods = metas(model.get("methods"));
  const nLayers = model.get("n_layers");
  const nHeads = model.get("n_heads");
  const problem = [
    n === 0 ? "the widget lists no tokens" : "",
    isCount(nLayers) && nLayers > 0 ? "" : `n_layers is ${JSON.stringify(nLayers)}, not a number of layers`,
    isCount(nHeads) && nHeads > 0 ? "" : `n_heads is ${JSON.stringify(nHeads)}, not a number of heads`,
    methods.length === 0 ? "the widget offers no methods" : "",
  ]
    .filter(Boolean)
    .join("; ");
  const L = problem ? 1 : nLayers;
  const H = problem ? 1 : nHeads;
  const options = readOptions(model, { n, nLayers: L, nHeads: H });
  const lang = options.lang;
  const shownMethods = methods.map((m) => translatedMethod(m, lang));
  const method = shownMethods.find((m) => m.id === options.method) ?? methods[0] ?? NO_METHOD;
  const rawNames = model.get("layer_names");
  const rawColumns = model.get("column_names");
  const rawSegments = model.get("segments");
  const segments = Array.isArray(rawSegments)
    ? rawSegments.filter((s) => isObject(s) && typeof s.label === "string" && isCount(s.size))
    : [];
  const ready = model.get("ready");
  const readyRow = model.get("ready_row");
  const job = model.get("job");
  const slicesReady = model.get("slices_ready");
  const headsJob = model.get("heads_job");
  const targets = model.get("targets");
  const attributions = model.get("attributions");
  return /** @type {ViewState} */ ({
    ...options,
    problem,
    tokens,
    special,
    nLayers: L,
    nHeads: H,
    causal: model.get("causal") === true,
    modelName: String(model.get("model_name") ?? ""),
    layerNames: Array.isArray(rawNames) && rawNames.length === L ? rawNames.map(String) : [],
    columnNames:
      Array.isArray(rawColumns) && rawColumns.length === L + 1 && rawColumns.every(Array.isArray)
        ? rawColumns.map((names) => names.map(String))
        : [],
    segments: segments.reduce((sum, s) => sum + s.size, 0) === n ? segments : [],
    methods: shownMethods,
    graphs: metas(model.get("graphs")).map((m) => translatedMethod(m, lang)),
    method,
    layer: nearestLayer(method, options.layer),
    ready: isObject(ready)
      ? Object.fromEntries(Object.entries(ready).filter(([, layers]) => Array.isArray(layers)))
      : {},
    readyRow: isObject(readyRow)
      ? Object.fromEntries(Object.entries(readyRow).filter(([, row]) => isPinnedRow(row, n)))
      : {},
    job: isJob(job) ? job : {},
    slicesReady: isObject(slicesReady)
      ? Object.fromEntries(Object.entries(slicesReady).filter(([, slices]) => Array.isArray(slices)))
      : {},
    headsJob: isJob(headsJob) ? headsJob : {},
    targets: Array.isArray(targets)
      ? targets
          .filter((t) => isObject(t) && typeof t.id === "string" && typeof t.label === "string")
          // A position that is no token row marks none (it is put in a selector: never text as given).
          .map((t) => ({ ...t, position: isCount(t.position) && t.position < n ? t.position : null }))
      : [],
    target: String(model.get("target") ?? ""),
    attributions: Array.isArray(attributions)
      ? attributions
          .filter((a) => isObject(a) && typeof a.id === "string" && typeof a.label === "string")
          .map((a) => ({
            ...a,
            label: tr(lang, a.label),
            description: tr(lang, a.description),
            hint: a.hint ? tr(lang, a.hint) : "",
            trust: a.trust ? tr(lang, a.trust) : "",
          }))
      : [],
    attributionData: isObject(model.get("attribution_data")) ? model.get("attribution_data") : {},
    offline: model.get("offline") === true,
    selected: selection(model.get("selected"), n, L),
    image: readImage(model.get("image"), n),
  });
}

/**
 * A method's words (label, menu group, description, explanation) in the widget's language.
 * @param {MethodMeta} method @param {string} lang @returns {MethodMeta}
 */
function translatedMethod(method, lang) {
  /** @param {string | undefined} text */
  const words = (text) => (typeof text === "string" ? tr(lang, text) : text);
  return {
    ...method,
    label: tr(lang, method.label),
    group: words(method.group),
    description: tr(lang, method.description),
    explain: words(method.explain),
    hint: words(method.hint),
    trust: words(method.trust),
  };
}

/**
 * The layer itself if the method exists there, else the nearest layer where it does.
 * @param {MethodMeta} method @param {number} layer
 */
export function nearestLayer(method, layer) {
  const layers = Array.isArray(method.layers) && method.layers.length ? method.layers : null;
  if (!layers || layers.includes(layer)) return layer;
  return layers.reduce((best, l) => (Math.abs(l - layer) < Math.abs(best - layer) ? l : best), layers[0]);
}

/**
 * A layer's name: "input" for 0, else the widget's name for it ("decoder 2") or "layer 3".
 * @param {{ layerNames: string[], lang: string }} state @param {number} layer
 */
export function layerName(state, layer) {
  if (layer === 0) return tr(state.lang, "input");
  const name = state.layerNames[layer - 1];
  return name ? trName(state.lang, name) : tr(state.lang, "layer {n}", { n: layer });
}

/**
 * A layer's short mark for column numbers: "E2" for "encoder 2", else the number.
 * @param {{ layerNames: string[] }} state @param {number} layer
 */
export function layerMark(state, layer) {
  const match = /^(\p{L})\p{L}* (\d+)$/u.exec(state.layerNames[layer - 1] ?? "");
  return match ? `${match[1].toUpperCase()}${match[2]}` : String(layer);
}

/** @param {unknown} value @returns {value is Record<string, any>} a plain object, not an array or null */
function isObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** @param {any} job  a job trait's value: its counts, when given, are finite */
function isJob(job) {
  return (
    isObject(job) &&
    (job.total === undefined || Number.isFinite(job.total)) &&
    (job.done === undefined || Number.isFinite(job.done))
  );
}

/** @param {unknown} value @returns {value is number} a whole number >= 0 */
function isCount(value) {
  return Number.isInteger(value) && /** @type {number} */ (value) >= 0;
}

/**
 * The pinned token if `value` names one: {side, index} or {layer, index}; otherwise {} (none).
 * @param {unknown} value @param {number} n @param {number} nLayers
 * @returns {ViewState["selected"]}
 */
function selection(value, n, nLayers) {
  if (!isObject(value) || !isCount(value.index) || value.index >= n) return {};
  if (value.side === "source" || value.side === "target") return { side: value.side, index: value.index };
  if (isCount(value.layer) && value.layer <= nLayers) return { layer: value.layer, index: value.index };
  return {};
}

/**
 * Is the selected layer of the selected method in its data?
 * @param {ViewState} state
 */
export function isAvailable(state) {
  return hasLayer(state, state.layer) || hasPinnedRow(state);
}

/**
 * Is the selected layer known for the pinned token only? Flow on a long input: pinning a token after
 * the layer (a row of its matrix) has the kernel compute that row at every layer, sent in the method's
 * data with the other rows zero, while whole layers stay on request.
 * @param {ViewState} state
 */
export function hasPinnedRow(state) {
  const row = pinnedRowOf(state);
  return !hasLayer(state, state.layer) && row !== null && row.layers.includes(state.layer);
}

/**
 * Is the selected layer missing but coming for the pinned token (its row is being computed, layer by layer)?
 * @param {ViewState} state
 */
export function isPinnedRowComing(state) {
  const row = pinnedRowOf(state);
  return !hasLayer(state, state.layer) && row !== null && row.computing && !row.layers.includes(state.layer);
}

/**
 * The `ready_row` entry of the selected method when it is the pinned token's (a token after the layer), else null.
 * @param {ViewState} state
 */
function pinnedRowOf(state) {
  const pinned = pinnedNode(state);
  const row = state.readyRow[state.method.id];
  return row !== undefined && pinned?.side === "target" && row.index === pinned.index ? row : null;
}

/**
 * @param {unknown} row  a `ready_row` entry
 * @param {number} n     tokens
 * @returns {row is PinnedRow}
 */
function isPinnedRow(row, n) {
  return (
    isObject(row) &&
    isCount(row.index) &&
    row.index < n &&
    Array.isArray(row.layers) &&
    row.layers.every(isCount) &&
    typeof row.computing === "boolean"
  );
}

/**
 * Is a layer of the selected method (its selected head) in its data (methods without `ready` have every layer)?
 * @param {ViewState} state
 * @param {number} layer  1..nLayers
 */
export function hasLayer(state, layer) {
  const layers = state.ready[state.method.id];
  return (
    (layers === undefined || layers.includes(layer)) &&
    hasSlice(state, state.method.id, sliceIndex({ ...state, layer }))
  );
}

/**
 * Does a method's data hold a slice? A long input's per-head data holds what the view draws (`slices_ready`): the
 * shown head of every layer, or in the heads grid every slice of the shown layer; the kernel sends the others when
 * they are drawn, reading a layer's heads first if it must (`headsJob` says how far).
 * @param {ViewState} state
 * @param {string} methodId
 * @param {number} slice  an envelope slice (sliceIndex)
 */
export function hasSlice(state, methodId, slice) {
  const slices = state.slicesReady[methodId];
  return slices === undefined || slices.includes(slice);
}

/**
 * The method whose data draws the selected method's whole-model edges: the one its `graph` names (a
 * cumulative method's per-layer step, among `graphs`, or another method), else itself.
 * @param {ViewState} state @returns {MethodMeta}
 */
export function graphMethod(state) {
  const { graph } = state.method;
  if (!graph) return state.method;
  return [...state.methods, ...(state.graphs ?? [])].find((m) => m.id === graph) ?? state.method;
}

/**
 * Does the data that draws the selected method's whole-model graph hold any layer? A method not computed yet
 * has none: the view then shows the single layer and says the method is coming.
 * @param {ViewState} state
 */
export function hasGraphData(state) {
  const layers = state.ready[state.method.graph || state.method.id];
  return layers === undefined || layers.length > 0;
}

/**
 * Index of the envelope slice that holds the selected layer (and head).
 * @param {ViewState} state
 */
export function sliceIndex(state) {
  const layerIndex = state.layer - 1;
  if (!state.method.per_head) return layerIndex;
  const slot = state.head >= 0 ? state.head : state.head === MEAN_HEAD ? state.nHeads : state.nHeads + 1;
  return layerIndex * (state.nHeads + 2) + slot;
}

/**
 * The head choices in the order the head control lists them.
 * @param {ViewState} state
 */
export function headChoices(state) {
  return [MEAN_HEAD, MAX_HEAD, ...Array.from({ length: state.nHeads }, (_, h) => h)];
}

/**
 * The pictures worth drawing ahead while the page is idle, likeliest first. In the single-layer
 * view: one step away on the layer slider and the head list (arrow keys), the whole-model view,
 * then the other methods at this layer and head (comparing methods). In the whole-model view:
 * the single-layer view, then the other methods.
 * @param {ViewState} state
 * @returns {ViewState[]}
 */
export function neighbourStates(state) {
  if (state.view === "heads") return []; // the grid is drawn whole, not from kept pictures
  const others = state.methods.filter((m) => m.id !== state.method.id).map((method) => ({ ...state, method }));
  if (state.view === "model")
    return [{ ...state, view: /** @type {const} */ ("layer") }, ...others.filter(hasWholeModel)];
  /** @type {ViewState[]} */
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
  if (hasWholeModel(state)) out.push({ ...state, view: /** @type {const} */ ("model") });
  return [...out, ...others.filter(isAvailable)];
}

/**
 * Does the method have every layer's data (methods computed on request may not)? The
 * whole-model view of a cumulative method also reads the method's own data, for the shading.
 * @param {ViewState} state
 */
function hasWholeModel(state) {
  const layers = state.ready[state.method.id];
  return layers === undefined || layers.length === state.nLayers;
}

/**
 * Human-readable name of the head selection.
 * @param {ViewState} state
 */
export function headLabel(state) {
  const n = state.nHeads;
  if (!state.method.per_head)
    return tr(state.lang, state.method.heads === "combined" ? "all {n} heads combined" : "mean of {n} heads", { n });
  if (state.head === MEAN_HEAD) return tr(state.lang, "mean of {n} heads", { n });
  if (state.head === MAX_HEAD) return tr(state.lang, "max over {n} heads", { n });
  return tr(state.lang, "head {n}", { n: state.head });
}

/**
 * Titles of the two outer columns: sources on the left, receivers on the right.
 * @param {ViewState} state
 * @returns {[string, string]}
 */
export function columnTitles(state) {
  if (state.view === "model") return [columnName(state, 0), columnName(state, state.nLayers)];
  const [left, right] = layerColumns(state);
  /** @param {number} layer */
  const title = (layer) =>
    state.columnNames[layer]?.map((name) => trName(state.lang, name)).join(" · ") ?? columnName(state, layer);
  return [title(left), title(right)];
}

/** Titles that name both token lists' states are long: the right one ends at the plot's edge. @param {ViewState} state */
export function titleAtEdge(state) {
  return state.columnNames.length > 0 && state.view === "layer";
}

/** The columns 0..L the single-layer view joins: the method's sources and the selected layer. @param {ViewState} state */
function layerColumns(state) {
  return [state.method.cumulative ? 0 : state.layer - 1, state.layer];
}

/** @param {ViewState} state @param {number} layer */
function columnName(state, layer) {
  return layer === 0 ? tr(state.lang, "Input (layer 0)") : capitalised(layerName(state, layer));
}

/**
 * The single-layer view's title for one row of one side: where a column names each token list's state
 * (an encoder-decoder's "Encoder output" and "decoder 1"), the name for the row's list.
 * @param {ViewState} state @param {"source" | "target"} side @param {number} index  the row
 */
export function rowTitle(state, side, index) {
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

/** @param {string} text */
function capitalised(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * The pinned token of the single-layer view, or null. A pin made in the whole-model view
 * carries over: the same token, on the input side if it was pinned at layer 0.
 * @param {ViewState} state
 * @returns {{ side: "source" | "target", index: number } | null}
 */
export function pinnedNode(state) {
  const { side, layer, index } = state.selected;
  if (typeof index !== "number" || index < 0 || index >= state.tokens.length) return null;
  if (side === "source" || side === "target") return { side, index };
  if (typeof layer === "number") return { side: layer === 0 ? "source" : "target", index };
  return null;
}

/**
 * The pinned node of the whole-model view, or null. A pin made in the single-layer view
 * carries over to the column it was pinned in.
 * @param {ViewState} state
 * @returns {{ layer: number, index: number } | null}
 */
export function pinnedModelNode(state) {
  const { side, index } = state.selected;
  let { layer } = state.selected;
  if (typeof index !== "number" || index < 0 || index >= state.tokens.length) return null;
  if (side === "target") layer = state.layer;
  if (side === "source") layer = state.method.cumulative ? 0 : state.layer - 1;
  if (typeof layer !== "number" || layer < 0 || layer > state.nLayers) return null;
  return { layer, index };
}
