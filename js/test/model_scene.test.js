import assert from "node:assert/strict";
import { test } from "node:test";
import { envelopeCache, modelFrame } from "../src/frames.js";
import { tracePaths } from "../src/model_view.js";
import { modelScene } from "../src/scene.js";
import { graphMethod, readState } from "../src/state.js";
import { FakeModel, widgetTraits } from "./fake-model.js";

/** The whole-model frame and scene of the synthetic widget (3 layers, 6 tokens). @param {Record<string, any>} traits */
function whole(traits) {
  const model = new FakeModel({ ...widgetTraits(), view: "model", ...traits });
  const state = readState(model);
  const frame = modelFrame(state, 640, envelopeCache(model), null);
  return { state, frame, scene: modelScene(frame, false) };
}

test("a cumulative method's whole-model edges are the step its meta names, listed in no menu", () => {
  const { state, frame } = whole({ method: "rollout" });
  assert.equal(graphMethod(state).id, "attention_step");
  assert.ok(!state.methods.some((m) => m.id === "attention_step"), "not a menu entry");
  // The step's self-edges hold the residual: at least half of each row.
  for (const edges of frame.perLayer) {
    for (let e = 0; e < edges.count; e++)
      if (edges.source[e] === edges.target[e]) assert.ok(edges.weight[e] >= 0.5 - 1e-4, String(edges.weight[e]));
  }
});

test("a focused node's traced edges are coloured on each layer's own range, and the scale says so", () => {
  const { frame, scene } = whole({ method: "raw", selected: { layer: 3, index: 5 } });
  const traced = tracePaths(frame.perLayer, { layer: 3, index: 5 });
  assert.equal(scene.scale.of, "paths");
  // Token 0 of this decoder sees only itself: its self-edge (1) is left out, as from the layer's own maximum.
  const lone = (/** @type {import("../src/edges.js").EdgeList} */ edges, /** @type {number} */ e) =>
    edges.source[e] === 0 && edges.target[e] === 0;
  const highs = frame.perLayer.map((edges, l) =>
    Math.max(0, ...[...traced[l]].filter((e) => !lone(edges, e)).map((e) => edges.weight[e])),
  );
  assert.ok([...traced[0]].some((e) => lone(frame.perLayer[0], e) && frame.perLayer[0].weight[e] === 1));
  scene.bundles.forEach((bundle, l) => {
    assert.equal(bundle.focusScale?.high, highs[l], `layer ${l + 1}`);
    assert.ok(highs[l] <= bundle.edges.max + 1e-9);
  });
  assert.ok(highs[2] < 0.5 * frame.perLayer[2].max, "the focused node's own edges: their range, not the layer's");
  assert.equal(scene.scale.high, Math.max(...highs));
  // With nothing focused, each layer's own range of every edge.
  const { scene: plain } = whole({ method: "raw" });
  assert.equal(plain.scale.of, "layers");
  assert.ok(plain.bundles.every((b) => !b.focusScale));
});
