// Two methods at once (w.compare_method, w.compare_mode): side by side on one colour scale, or
// their difference per edge (method − compare_method) on a diverging scale centred at 0. What
// the two pictures show, computed from the state; no DOM here (compare_pane.js draws it).

import { filterEdges, focusScaleOf, sliceEdges, widerScale } from "./edges.js";
import { dataOf, layerFrame, NO_EDGES as NO_DRAWN_EDGES } from "./frames.js";
import { speaker } from "./i18n.js";
import { sliceIndex } from "./state.js";

/**
 * Every user-visible string of the comparison, in the widget's language (i18n.js).
 * @param {string} lang
 */
export function compareWords(lang) {
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
    difference: (a, b) => say("{a} − {b}", { a, b }),
    /** @param {string} a @param {string} b */
    bothColumns: (a, b) => say("Values: {a} | {b} · ", { a, b }),
    /** @param {string} a @param {string} b */
    besides: (a, b) => say("{a} (left) and {b} (right)", { a, b }),
    /** @param {string} a @param {number} max @param {string} b @param {number} maxB @param {(v: number) => string} f */
    sharedScale: (a, max, b, maxB, f) =>
      say("One colour scale for both panes: the largest edge is {largest} ({a}: {max}, {b}: {maxB})", {
        largest: f(Math.max(max, maxB)),
        a,
        max: f(max),
        b,
        maxB: f(maxB),
      }),
    /** The second pane's drawn edges, beside the first pane's coverage line. @param {string} b @param {number} count */
    paneEdges: (b, count) => say("{b}: {n} edges drawn", { b, n: count }),
    /** @param {string} a @param {string} b */
    differenceScale: (a, b) => say("Red: {a} is larger; blue: {b} is larger; grey: equal (0 at the centre)", { a, b }),
    /** @param {number} count */
    differenceEdges: (count) => say("{n} edges of the difference", { n: count }),
    /** @param {string} b */
    neededFor: (b) => say("{b}: needed for the difference", { b }),
    /** @param {string} b @param {number} edges @param {number} n */
    paneLabel: (b, edges, n) => say("{method}: {edges} edges between {n} tokens", { method: b, edges, n }),
    /** @param {string} a @param {string} b */
    bothOnOneScale: (a, b) => say("{a} and {b} (one scale)", { a, b }),
  };
}

/** @type {import("./edges.js").EdgeList & { drawnShare: number }} */
const NO_EDGES = { ...NO_DRAWN_EDGES, drawnShare: 1 };

/** CSS pixels between the two panes. */
export const PANE_GAP = 16;

/**
 * @typedef {object} CompareFrames
 * @property {"side" | "difference"} mode
 * @property {import("./state.js").MethodMeta} other   the compared method
 * @property {import("./frames.js").LayerFrame} main   the left pane (side), or the difference
 * @property {import("./frames.js").LayerFrame} second the right pane (side), or the compared method's own
 *   frame (difference: only its pending state is shown)
 * @property {number} maxMain   largest drawn |value| of each method before the scale is shared
 * @property {number} maxOther
 */

/**
 * Whether two methods draw the same graph: the same sources (cumulative: the input tokens; else
 * the layer before) and the same layers (attn_widget.checks.comparable).
 * @param {import("./state.js").MethodMeta} a @param {import("./state.js").MethodMeta} b
 */
export function comparable(a, b) {
  return a.cumulative === b.cumulative && JSON.stringify(a.layers ?? null) === JSON.stringify(b.layers ?? null);
}

/**
 * The compared method when the view draws a comparison: one is set, listed, comparable with the
 * shown method, and the view is the single-layer one. Else null (one method, as before).
 * @param {import("./state.js").ViewState} state
 */
export function compareMeta(state) {
  return state.view === "layer" ? comparedMethod(state) : null;
}

/**
 * The compared method when one is set, listed and comparable with the shown method, whatever the view.
 * @param {import("./state.js").ViewState} state
 */
export function comparedMethod(state) {
  const other = state.compareMethod ? state.methods.find((m) => m.id === state.compareMethod) : undefined;
  return other && comparable(other, state.method) ? other : null;
}

/**
 * Both edge lists on one colour scale: their max (the scale's end, draw.js) becomes the larger.
 * The lists' arrays are shared, not copied.
 * @template {import("./edges.js").EdgeList} E
 * @param {E} a @param {E} b
 * @returns {[E, E]}
 */
export function sharedScale(a, b) {
  const max = Math.max(a.max, b.max);
  return [
    { ...a, max },
    { ...b, max },
  ];
}

/**
 * a − b for every (receiving token, source token) either list holds (a missing entry is 0; an
 * entry whose difference is 0 is left out), rows in order.
 * @param {import("./edges.js").EdgeList} a @param {import("./edges.js").EdgeList} b
 * @param {number} n  tokens
 * @returns {import("./edges.js").EdgeList}  max: the largest |a − b|
 */
export function differenceEdges(a, b, n) {
  // Dense n × n sums (a 128-token slice is 16k entries): no hashing or sorting on a layer change.
  const values = new Float64Array(n * n);
  const stored = new Uint8Array(n * n);
  for (let e = 0; e < a.count; e++) {
    const key = a.target[e] * n + a.source[e];
    values[key] += a.weight[e];
    stored[key] = 1;
  }
  for (let e = 0; e < b.count; e++) {
    const key = b.target[e] * n + b.source[e];
    values[key] -= b.weight[e];
    stored[key] = 1;
  }
  let count = 0;
  for (let key = 0; key < n * n; key++) if (stored[key] && values[key] !== 0) count++;
  const out = {
    source: new Uint16Array(count),
    target: new Uint16Array(count),
    weight: new Float64Array(count),
    count,
    max: 0,
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

/** Differences made once per pair of envelopes, slices and filter (a hover repaints with the same). */
const differencesOf = new WeakMap();

/**
 * The difference of two methods' slices, filtered as the view filters edges: "renormalise"
 * rescales each method's rows first (the difference of two renormalised rows), then edges are
 * kept by |a − b| (top k per row, threshold) with the special tokens' hidden.
 * @param {import("./state.js").ViewState} state  its method is a
 * @param {import("./codec.js").Envelope} envA @param {import("./codec.js").Envelope} envB
 * @param {number} sliceA @param {number} sliceB
 */
function filteredDifference(state, envA, envB, sliceA, sliceB) {
  const { topK, threshold, specials, special } = state;
  const key = `${sliceA} ${sliceB} ${topK} ${threshold} ${specials} ${special.map(Number).join("")}`;
  let kept = differencesOf.get(envA)?.get(envB);
  if (!kept) {
    if (!differencesOf.has(envA)) differencesOf.set(envA, new WeakMap());
    kept = new Map();
    differencesOf.get(envA).set(envB, kept);
  }
  let edges = kept.get(key);
  if (!edges) {
    /** @param {import("./codec.js").Envelope} env @param {number} slice */
    const rows = (env, slice) =>
      specials === "renormalise"
        ? filterEdges(sliceEdges(env, slice), { topK: 0, threshold: 0, specials, special })
        : sliceEdges(env, slice);
    const difference = differenceEdges(rows(envA, sliceA), rows(envB, sliceB), state.tokens.length);
    edges = {
      ...filterEdges(difference, {
        topK,
        threshold,
        specials: specials === "renormalise" ? "hide" : specials,
        special,
      }),
      drawnShare: 1,
    };
    kept.set(key, edges);
  }
  return edges;
}

/**
 * The pictures of a comparison: side by side, two panes of the same layout on one colour scale;
 * as a difference, one picture of method − compare_method, signed. Both follow the state's
 * layer, head (a method not per head: its head mean), filter, hover and pin.
 * @param {import("./state.js").ViewState} state
 * @param {import("./state.js").MethodMeta} other  compareMeta(state)
 * @param {number} width  CSS pixels for both panes (side) or the one picture (difference)
 * @param {import("./frames.js").EnvelopeOf} envelopeOf
 * @param {import("./frames.js").LayerNode | import("./frames.js").ModelNode | null} hovered
 * @returns {CompareFrames}
 */
export function compareFrames(state, other, width, envelopeOf, hovered) {
  const otherState = { ...state, method: other };
  if (state.compareMode === "difference") {
    const main = layerFrame(state, width, envelopeOf, hovered);
    const second = layerFrame(otherState, width, envelopeOf, hovered);
    if (!main.available || !main.env || !second.available || !second.env) {
      // Nothing to draw yet; each pane's pending panel says which method's layer is missing.
      return {
        mode: "difference",
        other,
        main: { ...main, edges: NO_EDGES, signed: true, rows: null, degrees: null },
        second,
        maxMain: 0,
        maxOther: 0,
      };
    }
    const envB = dataOf(otherState, envelopeOf, other);
    const edges = filteredDifference(state, main.env, envB, main.slice, sliceIndex(otherState));
    /** @type {import("./frames.js").LayerFrame} */
    const difference = {
      ...main,
      edges,
      signed: true,
      focusScale: main.focus ? focusScaleOf(edges, [main.pinned, main.focus]) : null,
      rows: null,
      degrees: null,
      meanCoverage: 1,
      minCoverage: 1,
    };
    return { mode: "difference", other, main: difference, second, maxMain: main.edges.max, maxOther: second.edges.max };
  }
  const paneWidth = Math.max(0, (width - PANE_GAP) / 2);
  const main = layerFrame(state, paneWidth, envelopeOf, hovered);
  const second = layerFrame(otherState, paneWidth, envelopeOf, hovered);
  const [edgesMain, edgesOther] = sharedScale(main.edges, second.edges);
  // One colour map and one scale for both panes: diverging if either method is signed, and the
  // focused tokens' edges on the wider of their two ranges.
  const shared = {
    signed: Boolean(main.signed || second.signed),
    focusScale: widerScale(main.focusScale, second.focusScale),
  };
  return {
    mode: "side",
    other,
    main: { ...main, ...shared, edges: edgesMain },
    second: { ...second, ...shared, edges: edgesOther },
    maxMain: main.edges.max,
    maxOther: second.edges.max,
  };
}
