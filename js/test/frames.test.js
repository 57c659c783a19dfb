import assert from "node:assert/strict";
import { test } from "node:test";
import { filterEdges, sliceEdges } from "../src/edges.js";
import { envelopeCache, layerFrame, modelFrame } from "../src/frames.js";
import { readState, sliceIndex } from "../src/state.js";
import { FakeModel, widgetTraits } from "./fake-model.js";

/** The edges a frame should hold, filtered afresh (frames keep filtered edges per envelope). */
function filteredAfresh(/** @type {FakeModel} */ model, /** @type {number} */ layer) {
  const state = readState(model);
  const env = envelopeCache(model)(`data_${state.method.id}`); // a new cache: decoded again
  return filterEdges(sliceEdges(env, sliceIndex({ ...state, layer })), state);
}

test("frames follow every change of filter, slice, special tokens and data", () => {
  const model = new FakeModel(widgetTraits());
  const envelopeOf = envelopeCache(model);
  const changes = [
    ["top_k", 1],
    ["threshold", 0.2],
    ["specials", "hide"],
    ["special", [false, true, false, false, false, true]],
    ["specials", "renormalise"],
    ["head", 0],
    ["layer", 2],
    ["top_k", 0],
    ["threshold", 0],
    ["data_raw", model.get("data_effective")],
    ["method", "rollout"],
  ];
  for (const [name, value] of changes) {
    model.set(/** @type {string} */ (name), value);
    const state = readState(model);
    assert.deepEqual(
      layerFrame(state, 640, envelopeOf, null).edges,
      filteredAfresh(model, state.layer),
      `after ${name}`,
    );
    if (state.method.cumulative) continue; // the whole-model view draws raw attention then
    const { perLayer } = modelFrame(state, 640, envelopeOf, null);
    perLayer.forEach((edges, l) => {
      assert.deepEqual(edges, filteredAfresh(model, l + 1), `after ${name}, layer ${l + 1}`);
    });
  }
});

test("every method the widget lists makes a frame in both views; its meta names the whole-model graph", () => {
  const model = new FakeModel(widgetTraits());
  const envelopeOf = envelopeCache(model);
  const { methods } = readState(model);
  assert.ok(methods.length >= 9);
  for (const method of methods) {
    model.set("method", method.id);
    const state = readState(model);
    assert.equal(layerFrame(state, 640, envelopeOf, null).available, true, method.id);
    const frame = modelFrame(state, 640, envelopeOf, null);
    const graph = method.graph ? `data_${method.graph}` : `data_${method.id}`;
    assert.equal(frame.env, envelopeOf(graph), method.id);
  }
  // A method whose meta names no graph draws its own data in the whole-model view.
  const own = { ...methods[2], graph: "" };
  model.set("methods", [methods[0], own]);
  model.set("method", own.id);
  assert.equal(modelFrame(readState(model), 640, envelopeOf, null).env, envelopeOf(`data_${own.id}`));
});
