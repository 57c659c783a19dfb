import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeEnvelope } from "../src/codec.js";
import { edgesOfNode, filterEdges, sliceEdges } from "../src/edges.js";
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
  assert.deepEqual(weights, [...weights].sort((a, b) => b - a));
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
  const rowSum = (list, row) => [...edgesOfNode(list, { side: "target", index: row })].reduce((a, e) => a + list.weight[e], 0);
  for (let row = 1; row < 5; row++) assert.ok(Math.abs(rowSum(renormalised, row) - rowSum(edges, row)) < 1e-9);
});
