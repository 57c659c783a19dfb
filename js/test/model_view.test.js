import assert from "node:assert/strict";
import test from "node:test";

import { pathShares, tracePaths } from "../src/model_view.js";
import { edgeList } from "./fake-model.js";

/** A random dense layer of n tokens (some weights negative, some edges missing). */
function randomLayer(n, random) {
  /** @type {[number, number, number][]} */
  const triples = [];
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (random() > 0.25) triples.push([j, i, random() - 0.2]);
  return edgeList(triples);
}

function seeded(seed) {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
}

/** Brute force: walk every path from the node down to the input and up to the last layer. */
function enumeratedShares(perLayer, node) {
  const shares = perLayer.map((edges) => new Float64Array(edges.count));
  const total = (edges, target) => {
    let sum = 0;
    for (let e = 0; e < edges.count; e++) if (edges.target[e] === target) sum += Math.abs(edges.weight[e]);
    return sum;
  };
  const down = (layer, index, product, path) => {
    if (layer === 0) {
      for (const [l, e] of path) shares[l][e] += product;
      return;
    }
    const edges = perLayer[layer - 1];
    for (let e = 0; e < edges.count; e++) {
      if (edges.target[e] !== index) continue;
      down(layer - 1, edges.source[e], (product * Math.abs(edges.weight[e])) / total(edges, index), [
        ...path,
        [layer - 1, e],
      ]);
    }
  };
  const up = (layer, index, product, path) => {
    for (const [l, e] of path) shares[l][e] += product; // every path that reaches this far ends here or goes on
    if (layer === perLayer.length) return;
    const edges = perLayer[layer];
    for (let e = 0; e < edges.count; e++) {
      if (edges.source[e] !== index) continue;
      up(layer + 1, edges.target[e], (product * Math.abs(edges.weight[e])) / total(edges, edges.target[e]), [
        [layer, e],
      ]);
    }
  };
  down(node.layer, node.index, 1, []);
  up(node.layer, node.index, 1, []);
  return shares;
}

test("path shares are the sums of normalised path products, checked against every path enumerated", () => {
  const random = seeded(7);
  const perLayer = [randomLayer(4, random), randomLayer(4, random), randomLayer(4, random), randomLayer(4, random)];
  for (const node of [
    { layer: 4, index: 2 },
    { layer: 2, index: 1 },
    { layer: 0, index: 3 },
  ]) {
    const got = pathShares(perLayer, node);
    const want = enumeratedShares(perLayer, node);
    for (let l = 0; l < perLayer.length; l++) {
      for (let e = 0; e < perLayer[l].count; e++)
        assert.ok(Math.abs(got[l][e] - want[l][e]) < 1e-12, `layer ${l + 1} edge ${e}`);
    }
    // What the focused node draws on splits over each layer below it: the shares sum to 1.
    for (let l = 0; l < node.layer; l++) assert.ok(Math.abs(got[l].reduce((a, b) => a + b, 0) - 1) < 1e-12);
  }
});

test("tracing follows many weak edges that together carry most of the mixing, not only the strongest two", () => {
  // Token 9 (a decoder token) draws 0.2 on itself and 0.1 on token 8 (two strong edges) and 0.7 spread
  // evenly over the source tokens 0..6 (seven edges of 0.1): the source carries most of what it draws on.
  const layer = edgeList([
    [9, 9, 0.2],
    [8, 9, 0.1],
    ...Array.from({ length: 7 }, (_, j) => /** @type {[number, number, number]} */ ([j, 9, 0.1])),
  ]);
  const [traced] = tracePaths([layer], { layer: 1, index: 9 });
  const sources = [...traced].map((e) => layer.source[e]);
  assert.ok(sources.includes(9), "the strongest edge");
  assert.ok(sources.filter((j) => j <= 6).length >= 5, `the source edges: ${sources}`);
  // The share held stops at 80%, and never more than `most` edges.
  assert.equal(tracePaths([layer], { layer: 1, index: 9 }, { most: 3 })[0].size, 3);
  assert.equal(tracePaths([layer], { layer: 1, index: 9 }, { cover: 0.2 })[0].size, 1);
});
