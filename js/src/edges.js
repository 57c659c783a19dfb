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
 * All non-zero stored entries of one slice.
 * @param {import("./codec.js").Envelope} env
 * @param {number} slice
 * @returns {EdgeList}
 */
export function sliceEdges(env, slice) {
  const capacity = env.rows * env.k;
  const source = new Uint16Array(capacity);
  const target = new Uint16Array(capacity);
  const weight = new Float64Array(capacity);
  let count = 0;
  for (let row = 0; row < env.rows; row++) {
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
