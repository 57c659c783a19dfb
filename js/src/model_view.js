// Geometry and path tracing of the whole-model view: every layer a column of tokens, edges
// between consecutive columns (the figure of Abnar & Zuidema).

import { rowAt } from "./layout.js";

/**
 * @typedef {import("./layout.js").Layout & { columns: number[] }} ModelLayout
 */

/**
 * @param {import("./layout.js").Layout} base  the bipartite layout (outer columns, rows)
 * @param {number} nLayers
 * @returns {ModelLayout}
 */
export function modelLayout(base, nLayers) {
  const columns = Array.from(
    { length: nLayers + 1 },
    (_, c) => base.leftX + ((base.rightX - base.leftX) * c) / nLayers,
  );
  return { ...base, columns };
}

/**
 * The node (layer column, token) under a point.
 * @param {ModelLayout} layout
 * @param {number} x
 * @param {number} y
 * @returns {{ layer: number, index: number } | null}
 */
export function modelNodeAt(layout, x, y) {
  const index = rowAt(layout, y);
  if (index === null) return null;
  const step = layout.columns.length > 1 ? layout.columns[1] - layout.columns[0] : 1;
  const layer = Math.round((x - layout.columns[0]) / step);
  return { layer: Math.max(0, Math.min(layout.columns.length - 1, layer)), index };
}

/**
 * The bipartite layout of one transition, from column layer - 1 to column layer.
 * @param {ModelLayout} layout
 * @param {number} layer  1..L
 */
export function transition(layout, layer) {
  return { ...layout, leftX: layout.columns[layer - 1], rightX: layout.columns[layer] };
}

/**
 * The share of the focused node's mixing that each edge carries. Each node's drawn incoming
 * weights are normalised to sum to 1 (what it draws on); an edge's share is the sum, over the
 * paths through it, of the products of normalised weights along the path:
 * - below the focus (layers 1..node.layer): paths from the focused node down to the input, so
 *   each layer's shares sum to 1 (how the focused node's mixture splits over that layer's edges);
 * - above it: paths from the focused node up to later nodes, the share of their mixture that
 *   comes from the focused node through the edge (rollout's path products on the drawn edges).
 * |weight| is used, so signed methods trace by magnitude.
 * @param {import("./edges.js").EdgeList[]} perLayer  index l - 1 holds layer l's edges
 * @param {{ layer: number, index: number }} node
 * @returns {Float64Array[]}  per layer, one share per edge (0 for edges off every path)
 */
export function pathShares(perLayer, node) {
  const n = Math.max(node.index + 1, ...perLayer.map((edges) => rowTotals(edges).length));
  const shares = perLayer.map((edges) => new Float64Array(edges.count));
  /**
   * One layer's shares from the mass at one end of its edges; returns the mass at the other end.
   * @param {number} layer @param {Float64Array} mass @param {"target" | "source"} near
   */
  const step = (layer, mass, near) => {
    const edges = perLayer[layer - 1];
    const { source, target, weight, count } = edges;
    const [from, to] = near === "target" ? [target, source] : [source, target];
    const totals = rowTotals(edges);
    const next = new Float64Array(n);
    for (let e = 0; e < count; e++) {
      const carried = mass[from[e]];
      if (carried === 0 || weight[e] === 0) continue;
      const share = (carried * Math.abs(weight[e])) / totals[target[e]];
      shares[layer - 1][e] = share;
      next[to[e]] += share;
    }
    return next;
  };
  const start = () => {
    const mass = new Float64Array(n);
    mass[node.index] = 1;
    return mass;
  };
  let mass = start();
  for (let layer = node.layer; layer >= 1; layer--) mass = step(layer, mass, "target");
  mass = start();
  for (let layer = node.layer + 1; layer <= perLayer.length; layer++) mass = step(layer, mass, "source");
  return shares;
}

/** @type {WeakMap<import("./edges.js").EdgeList, Float64Array>} */
const totalsOf = new WeakMap();

/**
 * What each token draws on in all, the sum of |weight| over the edges into it, indexed by token up to
 * the largest index the list holds. Kept per edge list (frames.js keeps the lists), so a hover reads
 * each layer once. @param {import("./edges.js").EdgeList} edges
 */
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

/**
 * Edges to highlight when a node is focused: connected paths from it down to the input and up
 * to the last layer. Layer by layer away from the node, the edges that leave the nodes reached
 * so far, in decreasing share (pathShares), until they hold `cover` of those edges' share, at
 * most `most` per layer. Ranking by share rather than by weight follows many weak edges that
 * together carry much of the mixing (an encoder-decoder's cross-attention, spread thin over the
 * source) as well as single strong ones.
 * @param {import("./edges.js").EdgeList[]} perLayer  index l - 1 holds layer l's edges
 * @param {{ layer: number, index: number }} node
 * @param {{ most?: number, cover?: number }} [limits]
 * @returns {Set<number>[]}  per layer, the indices of the edges on traced paths
 */
export function tracePaths(perLayer, node, { most = 16, cover = 0.8 } = {}) {
  const shares = pathShares(perLayer, node);
  const traced = perLayer.map(() => new Set());
  /** @param {number} layer @param {Set<number>} reached @param {"target" | "source"} near  the end at the reached side */
  const step = (layer, reached, near) => {
    const edges = perLayer[layer - 1];
    const share = shares[layer - 1];
    const ends = edges[near];
    // One pass: the candidates' total share, and the `most` largest in decreasing order (a short
    // insertion list; sorting every candidate cost more than the rest of a hover on dense layers).
    let total = 0;
    /** @type {number[]} */
    const largest = [];
    for (let e = 0; e < share.length; e++) {
      if (share[e] === 0 || !reached.has(ends[e])) continue;
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
  let reached = new Set([node.index]);
  for (let layer = node.layer; layer >= 1 && reached.size; layer--) reached = step(layer, reached, "target");
  reached = new Set([node.index]);
  for (let layer = node.layer + 1; layer <= perLayer.length && reached.size; layer++)
    reached = step(layer, reached, "source");
  return traced;
}
