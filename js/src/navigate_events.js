// The wheel, the keys, the minimap and the markers move a long input's token window: each
// writes the `window` trait (so the kernel sees where the user is), and the change redraws.

import {
  centredOn,
  keyWindow,
  legibleRows,
  revealed,
  shownWindow,
  traitOf,
  wheelRows,
  wheelScroll,
  zoomed,
} from "./navigate.js";
import { readState } from "./state.js";

/**
 * @param {import("./state.js").WidgetModel} model
 * @param {ReturnType<import("./navigate_view.js").createNavigationView>} navigation
 * @param {() => { kind: string } | null} currentFrame  the frame painted last
 * @param {() => number | null} focusedRow  the hovered, keyboard-focused or pinned row, if any
 */
export function createNavigation(model, navigation, currentFrame, focusedRow) {
  let leftOver = 0; // the fraction of a row the wheel has not scrolled yet
  let dragging = false;

  /** The rows shown now, or null where there is no token graph. */
  const current = () => {
    const frame = currentFrame();
    if (!frame || frame.kind === "heads") return null;
    const { layout } = /** @type {{ layout: import("./layout.js").Layout }} */ (/** @type {unknown} */ (frame));
    const n = layout.n;
    // The trait may have changed since the last paint (a wheel burst between frames).
    return { n, window: shownWindow(n, readState(model).window), rowHeight: layout.rowHeight };
  };
  /** @param {import("./navigate.js").Window} before @param {import("./navigate.js").Window} after */
  const commit = (before, after) => {
    if (before.start === after.start && before.size === after.size) return;
    model.set("window", traitOf(after));
    model.save_changes();
  };

  /** @param {WheelEvent} event */
  const onWheel = (event) => {
    const now = current();
    if (!now) return;
    if (event.ctrlKey || event.metaKey) {
      // Zoom a long text (the page's own zoom is not what a wheel over its graph means); over a
      // text that fits, the page zooms as usual.
      if (now.n <= legibleRows()) return;
      event.preventDefault();
      if (event.deltaY !== 0) commit(now.window, zoomed(now.n, now.window, event.deltaY < 0 ? 1 : -1, focusedRow()));
      return;
    }
    const rows = wheelRows(event, now.rowHeight, now.window.size);
    if (Math.sign(rows) !== Math.sign(leftOver)) leftOver = 0;
    const step = wheelScroll(now.n, now.window, rows + leftOver);
    if (!step) {
      leftOver = 0;
      return; // every row shown, or at the end: the page scrolls
    }
    event.preventDefault();
    leftOver = step.left;
    commit(now.window, step.window);
  };

  /**
   * A window key pressed on the graph: true when it was one (the caller prevents its default).
   * @param {KeyboardEvent} event
   */
  const onKey = (event) => {
    const now = current();
    if (!now || event.altKey || event.ctrlKey || event.metaKey) return false;
    const next = keyWindow(now.n, now.window, event.key, focusedRow());
    if (!next) return false;
    commit(now.window, next);
    return true;
  };

  /** Scroll as little as shows row `index` (the keyboard focus moved there). @param {number} index */
  const reveal = (index) => {
    const now = current();
    if (now) commit(now.window, revealed(now.n, now.window, index));
  };

  /** @param {number} index */
  const centreOn = (index) => {
    const now = current();
    if (now) commit(now.window, centredOn(now.n, now.window, index));
  };

  /** @param {PointerEvent} event */
  const onMinimapDown = (event) => {
    dragging = true;
    navigation.minimap.root.setPointerCapture?.(event.pointerId);
    onMinimapMove(event);
  };
  /** @param {PointerEvent} event */
  const onMinimapMove = (event) => {
    event.stopPropagation(); // the strip is no token row to hover
    if (!dragging) return;
    event.preventDefault();
    const row = navigation.minimap.rowAt(event.clientY);
    if (row !== null) centreOn(row);
  };
  const onMinimapUp = () => {
    dragging = false;
  };
  /** A click on a marker scrolls to the strongest token outside. @param {MouseEvent} event */
  const onMarker = (event) => {
    const button = /** @type {HTMLElement | null} */ (
      /** @type {HTMLElement} */ (event.target).closest?.(".attnw-marker")
    );
    if (!button) return;
    event.stopPropagation(); // not a click on the plot (it would pin the token under it)
    centreOn(Number(button.dataset.index));
  };

  const { minimap, markers } = navigation;
  /** @type {Array<[EventTarget, string, (event: any) => void, AddEventListenerOptions?]>} */
  const listeners = [
    [minimap.root, "pointerdown", onMinimapDown],
    [minimap.root, "pointermove", onMinimapMove],
    [minimap.root, "pointerup", onMinimapUp],
    [minimap.root, "pointercancel", onMinimapUp],
    [minimap.root, "click", (event) => event.stopPropagation()],
    [markers.root, "click", onMarker],
    [markers.root, "pointermove", (event) => event.stopPropagation()],
    [markers.root, "keydown", (event) => event.stopPropagation()], // Enter on a marker is the button's
  ];
  /** The first row shown (the trait's, which a key may have changed since the last paint). */
  const firstRow = () => current()?.window.start ?? 0;
  return { onWheel, onKey, reveal, firstRow, listeners };
}
