import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeEnvelope } from "../src/codec.js";
import { edgesOfNode, sliceEdges } from "../src/edges.js";
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
