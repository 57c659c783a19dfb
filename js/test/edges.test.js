import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeEnvelope } from "../src/codec.js";
import { edgesOfNode, filterEdges, focusScaleOf, sliceEdges, widerScale } from "../src/edges.js";
import { fixtureBytes } from "./fake-model.js";

test("slice edges skip zeros and point from source column to receiving row", () => {
  const env = decodeEnvelope(fixtureBytes("topk")); // causal: no edge from a later token
  const edges = sliceEdges(env, 1);
  assert.ok(edges.count > 0 && edges.count <= 12 * 3);
  for (let e = 0; e < edges.count; e++) {
    assert.ok(edges.source[e] <= edges.target[e], "causal edges go forward only");
    assert.ok(edges.weight[e] > 0);
  }
  assert.equal(edges.max, Math.max(...edges.weight));
});

test("edges of a node are sorted strongest first and touch the node", () => {
  const edges = sliceEdges(decodeEnvelope(fixtureBytes("dense")), 2);
  const incoming = edgesOfNode(edges, { side: "target", index: 3 });
  assert.equal(incoming.length, 5);
  for (const e of incoming) assert.equal(edges.target[e], 3);
  const weights = incoming.map((e) => edges.weight[e]);
  assert.deepEqual(
    weights,
    [...weights].sort((a, b) => b - a),
  );
  const outgoing = edgesOfNode(edges, { side: "source", index: 0 });
  for (const e of outgoing) assert.equal(edges.source[e], 0);
});

test("filtering keeps the strongest edges per token above the threshold and can drop special tokens", () => {
  const edges = sliceEdges(decodeEnvelope(fixtureBytes("dense")), 0); // 5 tokens, dense rows
  const special = [true, false, false, false, false];
  const all = filterEdges(edges, { topK: 0, threshold: 0, specials: "show", special });
  assert.equal(all.count, edges.count);
  assert.ok(Math.abs(all.drawnShare - 1) < 1e-12);
  const two = filterEdges(edges, { topK: 2, threshold: 0, specials: "show", special });
  assert.equal(two.count, 10);
  for (let row = 0; row < 5; row++) {
    const mine = [...edgesOfNode(edges, { side: "target", index: row })].map((e) => edges.weight[e]);
    const kept = [...edgesOfNode(two, { side: "target", index: row })].map((e) => two.weight[e]);
    assert.deepEqual(kept, mine.slice(0, 2));
  }
  assert.ok(two.drawnShare < 1);
  const above = filterEdges(edges, { topK: 0, threshold: 0.2, specials: "show", special });
  for (const w of above.weight) assert.ok(w >= 0.2);
  const hidden = filterEdges(edges, { topK: 0, threshold: 0, specials: "hide", special });
  for (let e = 0; e < hidden.count; e++) assert.ok(hidden.source[e] !== 0 && hidden.target[e] !== 0);
  const renormalised = filterEdges(edges, { topK: 0, threshold: 0, specials: "renormalise", special });
  const rowSum = (list, row) =>
    [...edgesOfNode(list, { side: "target", index: row })].reduce((a, e) => a + list.weight[e], 0);
  for (let row = 1; row < 5; row++) assert.ok(Math.abs(rowSum(renormalised, row) - rowSum(edges, row)) < 1e-9);
});

/** The definition, written plainly: per receiving token, sort what passes, keep the first k. */
function filterByDefinition(edges, { topK, threshold, specials, special }) {
  const rows = new Map();
  let stored = 0;
  for (let e = 0; e < edges.count; e++) {
    const row = rows.get(edges.target[e]) ?? { all: [], passing: [] };
    rows.set(edges.target[e], row);
    row.all.push(e);
    stored += Math.abs(edges.weight[e]);
    const hidden = specials !== "show" && (special[edges.source[e]] || special[edges.target[e]]);
    if (!hidden && Math.abs(edges.weight[e]) >= threshold) row.passing.push(e);
  }
  const out = [];
  let drawn = 0;
  for (const { all, passing } of rows.values()) {
    const sum = (list) => list.reduce((a, e) => a + edges.weight[e], 0);
    const factor = specials === "renormalise" && sum(passing) !== 0 ? sum(all) / sum(passing) : 1;
    const chosen = [...passing].sort((a, b) => Math.abs(edges.weight[b]) - Math.abs(edges.weight[a]));
    for (const e of topK > 0 ? chosen.slice(0, topK) : chosen) {
      out.push([edges.source[e], edges.target[e], edges.weight[e] * factor]);
      drawn += Math.abs(edges.weight[e]);
    }
  }
  return { edges: out, drawnShare: stored > 0 ? drawn / stored : 1 };
}

test("filtering matches the plain definition on random signed edge lists in any order", () => {
  let seed = 7;
  const random = () => {
    seed = (seed * 16807) % 2147483647;
    return seed / 2147483647;
  };
  for (let trial = 0; trial < 200; trial++) {
    const n = 1 + Math.floor(random() * 12);
    const count = Math.floor(random() * 60);
    const edges = {
      source: new Uint16Array(count),
      target: new Uint16Array(count),
      weight: new Float64Array(count),
      count,
      max: 1,
    };
    for (let e = 0; e < count; e++) {
      edges.source[e] = Math.floor(random() * n);
      edges.target[e] = Math.floor(random() * n);
      // Coarse values make ties, which both must break the same way (earlier edge first).
      edges.weight[e] = Math.round((random() * 2 - 1) * 8) / 8;
    }
    const filter = {
      topK: Math.floor(random() * 5),
      threshold: random() < 0.5 ? 0 : random() * 0.5,
      specials: /** @type {const} */ (["show", "hide", "renormalise"])[trial % 3],
      special: Array.from({ length: n }, () => random() < 0.2),
    };
    const fast = filterEdges(edges, filter);
    const expected = filterByDefinition(edges, filter);
    const actual = Array.from({ length: fast.count }, (_, k) => [fast.source[k], fast.target[k], fast.weight[k]]);
    const byRow = (list) => [...list].sort((a, b) => a[1] - b[1] || a[0] - b[0] || a[2] - b[2]); // order may differ
    assert.deepEqual(byRow(actual), byRow(expected.edges), `trial ${trial}`);
    assert.ok(Math.abs(fast.drawnShare - expected.drawnShare) < 1e-12);
    // The colour-scale max leaves out rows whose only stored edge is to themselves (unless nothing else is drawn).
    const stored = (r) => Array.from(edges.target).filter((t) => t === r).length;
    const selfOnly = (r) => stored(r) === 1 && edges.source[edges.target.indexOf(r)] === r;
    const sizes = (keep) => expected.edges.filter(keep).map((x) => Math.abs(x[2]));
    const others = Math.max(0, ...sizes((x) => !selfOnly(x[1])));
    const selves = Math.max(0, ...sizes((x) => selfOnly(x[1])));
    assert.equal(fast.max, others || selves, `trial ${trial}`);
    assert.equal(fast.selfOnly, others && selves > others ? selves : 0, `trial ${trial}`);
  }
});

test("a decoder's first token, which sees only itself, is left out of the colour scale's maximum", () => {
  // Row 0: only its self-edge (1); row 1: 0.6 and 0.4; row 2: 0.5, 0.3, 0.2.
  const edges = {
    source: Uint16Array.from([0, 0, 1, 0, 1, 2]),
    target: Uint16Array.from([0, 1, 1, 2, 2, 2]),
    weight: Float64Array.from([1, 0.6, 0.4, 0.5, 0.3, 0.2]),
    count: 6,
    max: 1,
  };
  const kept = filterEdges(edges, { topK: 0, threshold: 0, specials: "show", special: [false, false, false] });
  assert.equal(kept.max, 0.6);
  assert.equal(kept.selfOnly, 1);
  assert.equal(kept.count, 6); // still drawn
  // An encoder's row that attends to itself among others is an ordinary row.
  const one = filterEdges(
    { ...edges, source: Uint16Array.from([0, 1, 1]), target: Uint16Array.from([0, 0, 1]), count: 3 },
    { topK: 0, threshold: 0, specials: "show", special: [false, false] },
  );
  assert.equal(one.max, 1);
  assert.equal(one.selfOnly, 0);
});

test("a focused token's colour scale is its own edges' range; side by side, the wider of two", () => {
  const edges = {
    source: Uint16Array.from([0, 0, 1, 0, 1, 2]),
    target: Uint16Array.from([0, 1, 1, 2, 2, 2]),
    weight: Float64Array.from([1, 0.6, 0.4, 0.31, -0.02, 0.1]),
    count: 6,
    max: 1,
  };
  assert.deepEqual(focusScaleOf(edges, [{ side: "target", index: 2 }]), { low: 0.02, high: 0.31 });
  assert.deepEqual(focusScaleOf(edges, [null, { side: "target", index: 1 }]), { low: 0.6, high: 0.6 });
  assert.deepEqual(focusScaleOf(edges, [{ side: "source", index: 2 }]), { low: 0.1, high: 0.1 });
  assert.equal(focusScaleOf(edges, [null]), null);
  assert.deepEqual(widerScale({ low: 0.02, high: 0.31 }, { low: 0.1, high: 0.2 }), { low: 0.1, high: 0.31 });
  assert.deepEqual(widerScale(null, { low: 0.1, high: 0.2 }), { low: 0.1, high: 0.2 });
});
