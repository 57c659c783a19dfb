import assert from "node:assert/strict";
import { test } from "node:test";
import { keyAction, toggledSelection } from "../src/keyboard.js";
import { readState } from "../src/state.js";
import { FakeModel, widgetTraits } from "./fake-model.js";

/** @param {Record<string, any>} overrides */
const stateOf = (overrides = {}) => readState(new FakeModel({ ...widgetTraits(), ...overrides }));

test("the first key press lands on the pinned token, or the first receiving token", () => {
  assert.deepEqual(keyAction(stateOf(), null, "ArrowDown"), { type: "move", node: { side: "target", index: 0 } });
  const pinned = stateOf({ selected: { side: "source", index: 4 } });
  assert.deepEqual(keyAction(pinned, null, "ArrowUp"), { type: "move", node: { side: "source", index: 4 } });
  assert.deepEqual(keyAction(stateOf({ view: "model" }), null, "ArrowDown"), {
    type: "move",
    node: { layer: 3, index: 0 },
  });
  // A long text scrolled down: the first press lands on the first row shown, not on row 0 above it.
  assert.deepEqual(keyAction(stateOf(), null, "ArrowDown", 5), { type: "move", node: { side: "target", index: 5 } });
  assert.deepEqual(keyAction(pinned, null, "ArrowDown", 5), { type: "move", node: { side: "source", index: 4 } });
});

test("arrows move within the tokens and columns and stop at the edges", () => {
  const state = stateOf();
  assert.deepEqual(keyAction(state, { side: "target", index: 5 }, "ArrowDown"), {
    type: "move",
    node: { side: "target", index: 5 },
  });
  assert.deepEqual(keyAction(state, { side: "target", index: 0 }, "ArrowUp"), {
    type: "move",
    node: { side: "target", index: 0 },
  });
  assert.deepEqual(keyAction(state, { side: "target", index: 2 }, "ArrowLeft"), {
    type: "move",
    node: { side: "source", index: 2 },
  });
  const model = stateOf({ view: "model" });
  assert.deepEqual(keyAction(model, { layer: 0, index: 2 }, "ArrowLeft"), {
    type: "move",
    node: { layer: 0, index: 2 },
  });
  assert.deepEqual(keyAction(model, { layer: 2, index: 2 }, "ArrowRight"), {
    type: "move",
    node: { layer: 3, index: 2 },
  });
  assert.deepEqual(keyAction(model, { layer: 3, index: 2 }, "ArrowRight"), {
    type: "move",
    node: { layer: 3, index: 2 },
  });
  // A node of the other view does not count as a position: start afresh.
  assert.deepEqual(keyAction(model, { side: "target", index: 2 }, "ArrowDown"), {
    type: "move",
    node: { layer: 3, index: 0 },
  });
});

test("Enter and Space pin or unpin, Escape unpins, other keys are left to the host", () => {
  const state = stateOf({ selected: { side: "target", index: 1 } });
  assert.deepEqual(keyAction(state, { side: "target", index: 1 }, "Enter"), {
    type: "toggle",
    node: { side: "target", index: 1 },
  });
  assert.deepEqual(keyAction(state, null, " "), { type: "toggle", node: { side: "target", index: 1 } });
  assert.deepEqual(keyAction(state, null, "Escape"), { type: "unpin" });
  assert.equal(keyAction(state, null, "a"), null);
  assert.deepEqual(toggledSelection(state, { side: "target", index: 1 }), {});
  assert.deepEqual(toggledSelection(state, { side: "target", index: 2 }), { side: "target", index: 2 });
});
