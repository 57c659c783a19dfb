// Keyboard navigation of the tokens: arrows move the focus between tokens and columns,
// Enter (or Space) pins the focused token, Escape unpins. A pure function of the state.

import { pinnedModelNode, pinnedNode } from "./state.js";

/** @typedef {import("./frames.js").LayerNode | import("./frames.js").ModelNode} Node */

/**
 * @typedef {{ type: "move", node: Node } | { type: "toggle", node: Node } | { type: "unpin" }} KeyAction
 */

/**
 * What a key press does.
 * @param {import("./state.js").ViewState} state
 * @param {Node | null} focused  the node the keyboard (or pointer) is on, if any
 * @param {string} key  KeyboardEvent.key
 * @param {number} [home]  the row a first key press starts at when nothing is pinned (the first row shown)
 * @returns {KeyAction | null}  null: not our key
 */
export function keyAction(state, focused, key, home = 0) {
  const n = state.tokens.length;
  const inModel = state.view === "model";
  // The first key press starts at the pinned (or first) token; later ones move from there.
  const mine = focused && inModel === "layer" in focused ? focused : null;
  const at = /** @type {any} */ (
    mine ??
      (inModel ? pinnedModelNode(state) : pinnedNode(state)) ??
      (inModel ? { layer: state.nLayers, index: home } : { side: "target", index: home })
  );
  const step = mine ? 1 : 0;
  /** @param {number} direction @returns {Node} */
  const across = (direction) =>
    inModel
      ? { layer: Math.max(0, Math.min(state.nLayers, at.layer + direction * step)), index: at.index }
      : { side: direction < 0 ? "source" : "target", index: at.index };
  switch (key) {
    case "ArrowDown":
      return { type: "move", node: { ...at, index: Math.min(n - 1, at.index + step) } };
    case "ArrowUp":
      return { type: "move", node: { ...at, index: Math.max(0, at.index - step) } };
    case "ArrowLeft":
      return { type: "move", node: across(-1) };
    case "ArrowRight":
      return { type: "move", node: across(1) };
    case "Enter":
    case " ":
      return { type: "toggle", node: at };
    case "Escape":
      return { type: "unpin" };
    default:
      return null;
  }
}

/**
 * The value of the `selected` trait after pinning `node`: unpins it when it is pinned.
 * @param {import("./state.js").ViewState} state
 * @param {Node} node
 */
export function toggledSelection(state, node) {
  const pinned = state.view === "model" ? pinnedModelNode(state) : pinnedNode(state);
  return sameNode(pinned, node) ? {} : node;
}

/** The same node (of either view), or both none. @param {object | null} a @param {object | null} b */
export function sameNode(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}
