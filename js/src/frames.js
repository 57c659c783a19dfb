// What one picture shows, computed from the widget state: the edges of the selected slice
// (single-layer view) or of every layer (whole-model view), with what the overlays need.
// No DOM and no drawing here.

import { decodeEnvelope, rowCoverage, rowEntries } from "./codec.js";
import { isSigned } from "./colormap.js";
import { degreesOf, filterEdges, focusScaleOf, sliceEdges } from "./edges.js";
import { computeLayout } from "./layout.js";
import { MINIMAP_ROOM } from "./minimap.js";
import { modelLayout } from "./model_view.js";
import { legibleRows, shownWindow } from "./navigate.js";
import {
  graphMethod,
  hasLayer,
  hasSlice,
  isAvailable,
  MEAN_HEAD,
  pinnedModelNode,
  pinnedNode,
  sliceIndex,
} from "./state.js";

/** @typedef {(trait: string) => import("./codec.js").Envelope} EnvelopeOf */
/** @typedef {{ side: "source" | "target", index: number }} LayerNode */
/** @typedef {{ layer: number, index: number }} ModelNode */

/**
 * Decoded envelopes of a model's data traits, decoded again only when a trait's value
 * changes (the kernel sends the whole trait again when it computes a layer).
 * @param {import("./state.js").WidgetModel} model
 * @returns {EnvelopeOf}
 */
export function envelopeCache(model) {
  /** @type {Map<string, { raw: any, env: import("./codec.js").Envelope }>} */
  const cache = new Map();
  return (trait) => {
    const raw = model.get(trait);
    const hit = cache.get(trait);
    if (hit && hit.raw === raw) return hit.env;
    const env = decodeEnvelope(raw);
    cache.set(trait, { raw, env });
    return env;
  };
}

/**
 * A method's data (or its per-row quantity), checked against the tokens, layers and heads the
 * state lists: data that does not fit them would draw a wrong picture.
 * @param {import("./state.js").ViewState} state
 * @param {EnvelopeOf} envelopeOf
 * @param {import("./state.js").MethodMeta} method
 * @param {boolean} [rows]  the per-row quantity, data_<id>_rows
 */
export function dataOf(state, envelopeOf, method, rows = false) {
  const trait = `data_${method.id}${rows ? "_rows" : ""}`;
  const env = envelopeOf(trait);
  const n = state.tokens.length;
  if (
    env.slices !== state.nLayers * (method.per_head ? state.nHeads + 2 : 1) ||
    env.rows !== n ||
    env.cols !== (rows ? 1 : n)
  ) {
    throw new Error(
      `${trait} has shape [${env.shape}], which does not fit ${n} tokens, ${state.nLayers} layers and ${state.nHeads} heads`,
    );
  }
  return env;
}

/** Filtered edges per decoded envelope, made again when a trait changes (its envelope with it). */
const filteredOf = new WeakMap();
/** Slices and filters kept per envelope: a method's 12 × 14 slices, with room to spare. */
const FILTERED_KEPT = 256;

/**
 * A slice's edges after the filter, made once: the whole-model view filters every layer on each
 * repaint (a hover, a pin), and drawing ahead builds the neighbouring pictures again.
 * @param {import("./codec.js").Envelope} env @param {number} slice
 * @param {import("./edges.js").EdgeFilter} filter
 * @returns {import("./edges.js").EdgeList & { drawnShare: number }}  shared: never changed
 */
function filteredSlice(env, slice, filter) {
  /** @type {Map<string, import("./edges.js").EdgeList & { drawnShare: number }>} */
  let kept = filteredOf.get(env);
  if (!kept) {
    kept = new Map();
    filteredOf.set(env, kept);
  }
  const { topK, threshold, specials, special } = filter;
  const key = `${slice} ${topK} ${threshold} ${specials} ${specials === "show" ? "" : special.map(Number).join("")}`;
  let edges = kept.get(key);
  if (!edges) {
    edges = filterEdges(sliceEdges(env, slice), filter);
    if (kept.size >= FILTERED_KEPT) kept.delete(/** @type {string} */ (kept.keys().next().value));
    kept.set(key, edges);
  }
  return edges;
}

/** @type {import("./edges.js").EdgeList} */
export const NO_EDGES = {
  source: new Uint16Array(0),
  target: new Uint16Array(0),
  weight: new Float64Array(0),
  count: 0,
  max: 0,
};

/**
 * @typedef {object} LayerFrame
 * @property {"layer"} kind
 * @property {import("./state.js").ViewState} state
 * @property {boolean} available   the selected layer is in the method's data
 * @property {import("./codec.js").Envelope | null} env
 * @property {number} slice
 * @property {import("./edges.js").EdgeList & { drawnShare?: number }} edges   after top-k, threshold
 *   and special tokens; drawnShare: the share of the stored attention they carry
 * @property {import("./layout.js").Layout} layout
 * @property {number} meanCoverage  share of each row's mass the payload stores, mean and least
 * @property {number} minCoverage
 * @property {Float64Array | null} rows   the method's per-row quantity (n,), if it has one
 * @property {ReturnType<typeof degreesOf> | null} degrees
 * @property {LayerNode | null} pinned
 * @property {LayerNode | null} focus     hovered, else pinned
 * @property {boolean} [signed]   drawn on the diverging map: the method is signed (colormap.js isSigned), or
 *   the edges are (a difference, compare.js)
 * @property {import("./edges.js").ColourScale | null} [focusScale]  the colour scale of the focused
 *   (hovered or pinned) tokens' edges, their own range; null: no focus, the slice's scale (edges.max)
 */

/**
 * @param {import("./state.js").ViewState} state
 * @param {number} width  CSS pixels
 * @param {EnvelopeOf} envelopeOf
 * @param {LayerNode | ModelNode | null} hovered
 * @returns {LayerFrame}
 */
export function layerFrame(state, width, envelopeOf, hovered) {
  const layout = windowLayout(state, width);
  const slice = sliceIndex(state);
  const pinned = pinnedNode(state);
  const focus = (hovered && "side" in hovered ? hovered : null) ?? pinned;
  const base = { kind: /** @type {const} */ ("layer"), state, slice, layout, pinned, focus };
  if (!isAvailable(state)) {
    return {
      ...base,
      available: false,
      env: null,
      edges: NO_EDGES,
      meanCoverage: 1,
      minCoverage: 1,
      rows: null,
      degrees: null,
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
    focusScale,
  };
}

/**
 * @typedef {object} ModelFrame
 * @property {"model"} kind
 * @property {import("./state.js").ViewState} state
 * @property {import("./model_view.js").ModelLayout} layout
 * @property {import("./codec.js").Envelope} env   the envelope the edges come from
 * @property {import("./edges.js").EdgeList[]} perLayer   index l - 1: layer l's edges
 * @property {number[][] | null} shade   per column and token, in [0, 1]: what reaches the focus
 * @property {import("./edges.js").EdgeList | null} reach  cumulative methods: the focused node's
 *   row, from each input token to it (what the tooltip lists)
 * @property {ModelNode | null} pinned
 * @property {ModelNode | null} focus
 * @property {number[]} unsent  layers (1..L) whose graph slice the data does not hold (a long input's, not read yet)
 * @property {boolean} signed  drawn on the diverging map (colormap.js isSigned of the graph's method)
 */

/**
 * The whole-model view. Cumulative methods (rollout, flow) draw the graph their meta names (their
 * own per-layer step, e.g. 0.5·Ā + 0.5·I: state.js graphMethod) and shade the nodes by what
 * reaches the focused one.
 * @param {import("./state.js").ViewState} state
 * @param {number} width
 * @param {EnvelopeOf} envelopeOf
 * @param {LayerNode | ModelNode | null} hovered
 * @returns {ModelFrame}
 */
export function modelFrame(state, width, envelopeOf, hovered) {
  const layout = modelLayout(windowLayout(state, width), state.nLayers);
  const { cumulative } = state.method;
  const drawn = graphMethod(state);
  const graphState = { ...state, method: drawn, head: cumulative ? MEAN_HEAD : state.head };
  const env = dataOf(state, envelopeOf, drawn);
  const filter = edgeFilter(state);
  const perLayer = Array.from({ length: state.nLayers }, (_, l) =>
    filteredSlice(env, sliceIndex({ ...graphState, layer: l + 1 }), filter),
  );
  const layers = Array.from({ length: state.nLayers }, (_, l) => l + 1);
  const unsent = layers.filter((layer) => !hasSlice(state, drawn.id, sliceIndex({ ...graphState, layer })));
  const pinned = pinnedModelNode(state);
  const focus = (hovered && "layer" in hovered ? hovered : null) ?? pinned;
  // A method computed on request may have no layer yet: its data is empty then.
  const reachEnv =
    cumulative && state.ready[state.method.id]?.length !== 0 ? dataOf(state, envelopeOf, state.method) : null;
  const shade = reachEnv && focus ? reachShading(state, reachEnv, focus) : null;
  const reachable = reachEnv && focus && focus.layer > 0 && hasLayer(state, focus.layer);
  const reach = reachable ? sliceEdges(reachEnv, focus.layer - 1, focus.index) : null;
  const signed = isSigned(drawn, env);
  return { kind: "model", state, layout, env, perLayer, shade, reach, pinned, focus, unsent, signed };
}

/**
 * The layout of the rows the token window shows (navigate.js shownWindow); a text longer than
 * fits legibly leaves room for the minimap at the right.
 * @param {import("./state.js").ViewState} state @param {number} width
 */
function windowLayout(state, width) {
  const n = state.tokens.length;
  return computeLayout(isLong(n) ? width - MINIMAP_ROOM : width, n, shownWindow(n, state.window));
}

/** Is a text of n tokens longer than the plot shows legibly (it gets a minimap)? @param {number} n */
export function isLong(n) {
  return n > legibleRows();
}

/** @param {import("./state.js").ViewState} state @returns {import("./edges.js").EdgeFilter} */
function edgeFilter(state) {
  return { topK: state.topK, threshold: state.threshold, specials: state.specials, special: state.special };
}

/**
 * Node shading of a cumulative method (row i of layer l = what token i after layer l draws
 * from each input): an input token shades every node by its share in that node; a node after
 * layer l shades the inputs by their share in it. Each column is scaled to its largest value.
 * @param {import("./state.js").ViewState} state
 * @param {import("./codec.js").Envelope} cumulative  (L, n, n)
 * @param {ModelNode} focus
 * @returns {number[][]}  (L + 1, n)
 */
export function reachShading(state, cumulative, focus) {
  const n = state.tokens.length;
  const shade = Array.from({ length: state.nLayers + 1 }, () => new Array(n).fill(0));
  /** @param {number[]} column */
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
