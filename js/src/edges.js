// Edge lists for one slice of an envelope: edge e goes from source token
// `source[e]` (left column) to receiving token `target[e]` (right column).

import { rowEntries, sliceMax } from "./codec.js";

/**
 * @typedef {object} EdgeList
 * @property {Uint16Array} source
 * @property {Uint16Array} target
 * @property {Float64Array} weight
 * @property {number} count
 * @property {number} max   largest |weight| in the slice (colour-scale maximum)
 */

/**
 * All non-zero stored entries of one slice, or of one row of it.
 * @param {import("./codec.js").Envelope} env
 * @param {number} slice
 * @param {number} [only]  a row: its entries only
 * @returns {EdgeList}
 */
export function sliceEdges(env, slice, only) {
  const [first, end] = only === undefined ? [0, env.rows] : [only, only + 1];
  const capacity = (end - first) * env.k;
  const source = new Uint16Array(capacity);
  const target = new Uint16Array(capacity);
  const weight = new Float64Array(capacity);
  let count = 0;
  for (let row = first; row < end; row++) {
    const { cols, values } = rowEntries(env, slice, row);
    for (let i = 0; i < values.length; i++) {
      if (values[i] === 0) continue;
      source[count] = cols[i];
      target[count] = row;
      weight[count] = values[i];
      count++;
    }
  }
  return {
    source: source.subarray(0, count),
    target: target.subarray(0, count),
    weight: weight.subarray(0, count),
    count,
    max: sliceMax(env, slice),
  };
}

/**
 * Indices of the edges that touch one node, strongest first.
 * @param {EdgeList} edges
 * @param {{ side: "source" | "target", index: number }} node
 * @returns {number[]}
 */
export function edgesOfNode(edges, node) {
  const ends = node.side === "source" ? edges.source : edges.target;
  const out = [];
  for (let e = 0; e < edges.count; e++) if (ends[e] === node.index) out.push(e);
  return out.sort((a, b) => Math.abs(edges.weight[b]) - Math.abs(edges.weight[a]));
}

/**
 * @typedef {object} EdgeFilter
 * @property {number} topK        keep at most this many edges per receiving token (0 = all)
 * @property {number} threshold   drop edges whose |weight| is below this
 * @property {"show" | "hide" | "renormalise"} specials  edges touching special tokens
 * @property {boolean[]} special  which tokens are special
 */

/**
 * The edges the view draws: per receiving token, its strongest edges that pass the filter.
 * "renormalise" rescales each row's remaining edges to the row's original total.
 * @param {EdgeList} edges
 * @param {EdgeFilter} filter
 * @returns {EdgeList & { drawnShare: number }}  drawnShare: Σ|drawn| / Σ|stored| over the slice
 */
export function filterEdges(edges, { topK, threshold, specials, special }) {
  /** @type {Map<number, number[]>} */
  const byTarget = new Map();
  /** @type {Map<number, number>} row totals before filtering, for "renormalise" */
  const totals = new Map();
  let stored = 0;
  for (let e = 0; e < edges.count; e++) {
    stored += Math.abs(edges.weight[e]);
    totals.set(edges.target[e], (totals.get(edges.target[e]) ?? 0) + edges.weight[e]);
    const hidden = specials !== "show" && (special[edges.source[e]] || special[edges.target[e]]);
    if (hidden || Math.abs(edges.weight[e]) < threshold) continue;
    const row = byTarget.get(edges.target[e]);
    if (row) row.push(e);
    else byTarget.set(edges.target[e], [e]);
  }
  /** @type {number[]} */
  const kept = [];
  /** @type {number[]} */
  const scale = [];
  for (const row of byTarget.values()) {
    row.sort((a, b) => Math.abs(edges.weight[b]) - Math.abs(edges.weight[a]));
    const chosen = topK > 0 ? row.slice(0, topK) : row;
    let factor = 1;
    if (specials === "renormalise") {
      let remaining = 0;
      for (const e of row) remaining += edges.weight[e];
      factor = remaining !== 0 ? (totals.get(edges.target[row[0]]) ?? 0) / remaining : 1;
    }
    for (const e of chosen) {
      kept.push(e);
      scale.push(factor);
    }
  }
  const out = {
    source: new Uint16Array(kept.length),
    target: new Uint16Array(kept.length),
    weight: new Float64Array(kept.length),
    count: kept.length,
    max: 0,
    drawnShare: 0,
  };
  let drawn = 0;
  kept.forEach((e, k) => {
    out.source[k] = edges.source[e];
    out.target[k] = edges.target[e];
    out.weight[k] = edges.weight[e] * scale[k];
    out.max = Math.max(out.max, Math.abs(out.weight[k]));
    drawn += Math.abs(edges.weight[e]);
  });
  out.drawnShare = stored > 0 ? drawn / stored : 1;
  return out;
}

/**
 * Weighted degrees of a slice (methods.md 1.1): "in" = row sums (per receiving token),
 * "out" = column sums (per source token, the attention it receives).
 * @param {EdgeList} edges
 * @param {number} n
 * @param {"in" | "out"} kind
 * @returns {{ values: Float64Array, max: number, kind: "in" | "out" }}
 */
export function degreesOf(edges, n, kind) {
  const values = new Float64Array(n);
  const ends = kind === "in" ? edges.target : edges.source;
  for (let e = 0; e < edges.count; e++) values[ends[e]] += edges.weight[e];
  let max = 0;
  for (const v of values) max = Math.max(max, Math.abs(v));
  return { values, max, kind };
}
