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
 * @property {number} [selfOnly]  filterEdges: the largest weight left out of `max` because it is a
 *   row's only stored edge, to itself (row 0 of a decoder: 1); 0 when none was
 */

/**
 * What the colours of some edges span: the negative end's magnitude (signed data) and the
 * positive end. The diverging map puts -low at its blue end and high at its red end.
 * @typedef {{ low: number, high: number }} ColourScale
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
 * The colour scale of the edges touching the focused nodes (hovered, pinned): from their own
 * weakest to strongest, so that their order shows in colour however small they are beside the
 * slice's largest edge. Signed data: each side to its own end (the other's when it has none).
 * @param {EdgeList} edges
 * @param {({ side: "source" | "target", index: number } | null)[]} nodes
 * @returns {ColourScale | null}  null: no node, or its edges are all 0
 */
export function focusScaleOf(edges, nodes) {
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

/**
 * One scale over two (panes compared side by side): the larger end of each side.
 * @param {ColourScale | null | undefined} a @param {ColourScale | null | undefined} b
 * @returns {ColourScale | null}
 */
export function widerScale(a, b) {
  if (!a || !b) return a ?? b ?? null;
  return { low: Math.max(a.low, b.low), high: Math.max(a.high, b.high) };
}

/**
 * @typedef {object} EdgeFilter
 * @property {number} topK        keep at most this many edges per receiving token (0 = all)
 * @property {number} threshold   drop edges whose |weight| is below this
 * @property {"show" | "hide" | "renormalise"} specials  edges touching special tokens
 * @property {boolean[]} special  which tokens are special
 */

/**
 * The edges the view draws: per receiving token, its strongest edges that pass the filter
 * (strongest first when top-k limits the row). "renormalise" rescales each row's remaining
 * edges to the row's original total. Runs on every repaint: rows are grouped with a counting
 * sort and the top k picked by insertion, O(E·k), not sorted (a dense 128-token slice is 16k edges).
 * @param {EdgeList} edges
 * @param {EdgeFilter} filter
 * @returns {EdgeList & { drawnShare: number }}  drawnShare: Σ|drawn| / Σ|stored| over the slice
 */
export function filterEdges(edges, { topK, threshold, specials, special }) {
  const { count, source, target, weight } = edges;
  let rows = 0;
  for (let e = 0; e < count; e++) rows = Math.max(rows, target[e] + 1);
  // Counting sort of the edge indices by receiving token.
  const rowStart = new Uint32Array(rows + 1);
  for (let e = 0; e < count; e++) rowStart[target[e] + 1]++;
  for (let r = 0; r < rows; r++) rowStart[r + 1] += rowStart[r];
  const order = new Uint32Array(count);
  const fill = rowStart.slice(0, rows);
  for (let e = 0; e < count; e++) order[fill[target[e]]++] = e;

  const kept = new Uint32Array(count);
  const factor = new Float64Array(count);
  let keptCount = 0;
  let stored = 0;
  // A row whose only stored edge is to itself (a decoder's first token: weight 1) says nothing
  // about the others; left out of the colour-scale maximum, it no longer washes every other edge out.
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
      if (Math.abs(w) < threshold || (specials !== "show" && (special[source[e]] || special[target[e]]))) continue;
      remaining += w;
      if (topK > 0) {
        // Keep the row's kept run sorted by strength: insert, dropping the weakest when full.
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
    drawnShare: 0,
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
  // Nothing but self-edges (one token): they are the scale.
  if (out.max === 0) [out.max, out.selfOnly] = [out.selfOnly, 0];
  else if (out.selfOnly <= out.max) out.selfOnly = 0;
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
