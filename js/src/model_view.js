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
  const columns = Array.from({ length: nLayers + 1 }, (_, c) => base.leftX + ((base.rightX - base.leftX) * c) / nLayers);
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
 * Edges to highlight when a node is focused: its strongest incoming paths back to the input
 * and its strongest outgoing paths up to the last layer (at most `fan` edges per node and step).
 * @param {import("./edges.js").EdgeList[]} perLayer  index l - 1 holds layer l's edges
 * @param {{ layer: number, index: number }} node
 * @param {number} fan
 * @returns {Set<number>[]}  per layer, the indices of the edges on traced paths
 */
export function tracePaths(perLayer, node, fan = 2) {
  const traced = perLayer.map(() => new Set());
  /** @param {import("./edges.js").EdgeList} edges @param {Set<number>} nodes @param {"target" | "source"} end */
  const strongest = (edges, nodes, end) => {
    const ends = end === "target" ? edges.target : edges.source;
    /** @type {Map<number, number[]>} */
    const grouped = new Map();
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
  let frontier = new Set([node.index]);
  for (let layer = node.layer; layer >= 1 && frontier.size; layer--) {
    const edges = perLayer[layer - 1];
    const chosen = strongest(edges, frontier, "target");
    for (const e of chosen) traced[layer - 1].add(e);
    frontier = new Set(chosen.map((e) => edges.source[e]));
  }
  frontier = new Set([node.index]);
  for (let layer = node.layer + 1; layer <= perLayer.length && frontier.size; layer++) {
    const edges = perLayer[layer - 1];
    const chosen = strongest(edges, frontier, "source");
    for (const e of chosen) traced[layer - 1].add(e);
    frontier = new Set(chosen.map((e) => edges.target[e]));
  }
  return traced;
}
