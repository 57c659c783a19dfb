// Wires a widget model's change events, the pointer and the keyboard to the view. No maths,
// no byte layouts and no drawing here.

import { compareFrames, compareMeta } from "./compare.js";
import { dockLayout } from "./dock.js";
import { download, paintPng, svgOf } from "./exporter.js";
import { envelopeCache, layerFrame, modelFrame } from "./frames.js";
import { headsSvg, paintHeadsPng } from "./heads_export.js";
import { headsFrame } from "./heads_grid.js";
import { imageScene, panelLayout, patchAt, patchNode } from "./image.js";
import { keyAction, sameNode, toggledSelection } from "./keyboard.js";
import { nodeAt } from "./layout.js";
import { modelNodeAt } from "./model_view.js";
import { createNavigation } from "./navigate_events.js";
import { REDRAW_ON } from "./options.js";
import { probe } from "./probes.js";
import { hasGraphData, neighbourStates, readState } from "./state.js";
import { createView } from "./view.js";

const DEFAULT_WIDTH = 640;

/**
 * Draw the widget into `el`; a change of language draws it anew (every word is made with the view).
 * @param {{ model: import("./state.js").WidgetModel, el: HTMLElement }} context
 * @returns {() => void} cleanup
 */
export function render({ model, el }) {
  let cleanup = renderView(model, el);
  const redo = () => {
    cleanup();
    cleanup = renderView(model, el);
  };
  model.on("change:lang", redo);
  return () => {
    model.off("change:lang", redo);
    cleanup();
  };
}

/**
 * @param {import("./state.js").WidgetModel} model @param {HTMLElement} el
 * @returns {() => void} cleanup
 */
function renderView(model, el) {
  const doc = el.ownerDocument;
  const win = /** @type {Window} */ (doc.defaultView);
  const view = createView(doc, model, readState(model).lang);
  el.append(view.root);
  const envelopeOf = envelopeCache(model);
  /** @type {import("./keyboard.js").Node | null} under the pointer or the keyboard focus */
  let hovered = null;
  /** @type {import("./frames.js").LayerFrame | import("./frames.js").ModelFrame | import("./heads_grid.js").HeadsFrame | null} */
  let frame = null;
  /** @type {import("./scene.js").Scene | null} */
  let scene = null;
  /** @type {import("./compare.js").CompareFrames | null} a second method beside the first (compare.js) */
  let compared = null;
  let scheduled = 0;
  /** @type {{ clientX: number, clientY: number } | null} where the pointer rests on the plot, and
   * whether the token window moved since the last paint (the pointer then hovers another row) */
  let pointer = null;
  let rowsMoved = false;

  const paint = () => {
    const started = win.performance.now();
    scheduled = 0;
    const state = readState(model);
    // An image analysis's image takes room beside the graph (or goes under it).
    const total = el.clientWidth || DEFAULT_WIDTH;
    const panel = panelLayout(total, state.image);
    // The focused token's value list takes a column beside the graph, or goes under it.
    // The heads grid takes the whole width: no value list, no image beside it.
    // Two panes side by side take the whole width too: the value list goes under them.
    const other = compareMeta(state);
    const wide = state.view === "heads" || (other !== null && state.compareMode === "side" && !state.image);
    const dock = wide
      ? { graphWidth: total, beside: false, width: 0, image: false }
      : dockLayout(total, panel, Boolean(state.image));
    view.placeDock(dock);
    const width = dock.graphWidth;
    // Traits that describe no picture: the widget says so rather than draw a wrong picture or
    // stop with a script error.
    let problem = state.problem;
    compared = null;
    if (!problem) {
      try {
        if (state.view === "heads") {
          frame = headsFrame(state, width, envelopeOf);
          scene = null;
          view.paintHeads(frame);
          view.paintCompare(null);
          view.image.paint(null);
        } else if (other) {
          compared = compareFrames(state, other, width, envelopeOf, hovered);
          frame = compared.main;
          scene = view.paintLayer(frame, compared);
          view.paintCompare(compared);
          view.image.paint(imageScene(state, frame, envelopeOf, panel));
        } else {
          const frameOf = () =>
            state.view === "model" && hasGraphData(state)
              ? modelFrame(state, width, envelopeOf, hovered)
              : layerFrame(state, width, envelopeOf, hovered);
          frame = frameOf();
          // The rows moved under a resting pointer (wheel, keys, minimap): it hovers the row now under it.
          if (pointer && rowsMoved) {
            const under = nodeUnder(pointer);
            if (!sameNode(under, hovered)) {
              hovered = under;
              frame = frameOf();
            }
          }
          rowsMoved = false;
          scene = frame.kind === "model" ? view.paintModel(frame) : view.paintLayer(frame);
          view.paintCompare(null);
          view.image.paint(imageScene(state, frame, envelopeOf, panel));
        }
      } catch (error) {
        console.error(error);
        problem = error instanceof Error ? error.message : String(error);
      }
    }
    view.showProblem(problem, state);
    if (problem) {
      frame = scene = hovered = compared = null;
      view.paintCompare(null);
      view.image.paint(null);
      return;
    }
    // With a comparison: the neighbouring layers and heads of the first pane, as it draws them.
    const ahead = other
      ? neighbourStates(state).filter((next) => next.view === "layer" && next.method.id === state.method.id)
      : neighbourStates(state);
    if (other) {
      // Each neighbour's comparison is made once, when either pane draws it ahead first.
      const pairs = ahead.map((next) => {
        /** @type {import("./compare.js").CompareFrames | undefined} */
        let made;
        return () => (made ??= compareFrames(next, other, width, envelopeOf, null));
      });
      view.drawAhead(pairs.map((pair) => () => pair().main));
      if (compared?.mode === "side") view.drawAheadCompare(pairs.map((pair) => () => pair().second));
    } else {
      view.drawAhead(
        ahead.map(
          (next) => () =>
            // (none in the heads view)
            next.view === "model"
              ? modelFrame(next, width, envelopeOf, null)
              : layerFrame(next, width, envelopeOf, null),
        ),
      );
    }
    // For benchmarks and tests: when the last picture was finished and how long it took.
    const ended = win.performance.now();
    probe(view.root, { paintEnd: String(ended), paintMs: (ended - started).toFixed(3) });
  };
  const schedule = () => {
    view.paintComing();
    if (!scheduled) scheduled = win.requestAnimationFrame ? win.requestAnimationFrame(paint) : win.setTimeout(paint, 0);
  };

  /** @param {{ clientX: number, clientY: number }} event */
  const nodeUnder = (event) => {
    if (!frame || frame.kind === "heads") return null;
    const box = view.plot.getBoundingClientRect();
    const x = event.clientX - box.left;
    const y = event.clientY - box.top;
    return frame.kind === "model" ? modelNodeAt(frame.layout, x, y) : nodeAt(frame.layout, x, y);
  };
  /** The node under the pointer in the second pane of a comparison. @param {MouseEvent} event */
  const compareNodeUnder = (event) => {
    if (compared?.mode !== "side") return null;
    const box = view.comparePlot.getBoundingClientRect();
    return nodeAt(compared.second.layout, event.clientX - box.left, event.clientY - box.top);
  };
  /** The graph node of the patch under the pointer on the image, as the graph's hover gives it. @param {MouseEvent} event */
  const patchNodeUnder = (event) => {
    const shown = view.image.scene();
    if (!frame || frame.kind === "heads" || !shown) return null;
    const box = view.image.canvas.getBoundingClientRect();
    const patch = patchAt(
      shown.layout.box,
      shown.image.rows,
      shown.image.cols,
      event.clientX - box.left,
      event.clientY - box.top,
    );
    return patch === null ? null : patchNode(readState(model), shown.image, patch);
  };
  /** @param {object} value */
  const select = (value) => {
    model.set("selected", value);
    model.save_changes();
  };
  /** @param {(event: MouseEvent) => import("./keyboard.js").Node | null} find @returns {(event: MouseEvent) => void} */
  const pinWith = (find) => (event) => {
    const node = find(event);
    if (node) select(toggledSelection(readState(model), node));
  };
  const onClick = pinWith(nodeUnder);
  /** @param {KeyboardEvent} event */
  const onKey = (event) => {
    if (!frame || frame.kind === "heads") return; // nothing drawn, or no tokens to move between
    if (navigation.onKey(event)) return event.preventDefault(); // a long input's window keys
    const action = keyAction(readState(model), hovered, event.key, navigation.firstRow());
    if (!action) return;
    event.preventDefault();
    if (action.type === "move") {
      pointer = null; // the keyboard's focus now, not the pointer's
      hovered = action.node;
      navigation.reveal(action.node.index); // the keyboard focus never leaves the rows shown
      schedule();
    } else if (action.type === "toggle") {
      select(toggledSelection(readState(model), action.node));
    } else {
      hovered = null;
      select({});
    }
  };
  /** @param {(event: MouseEvent) => import("./keyboard.js").Node | null} find @returns {(event: PointerEvent) => void} */
  const hoverWith = (find) => (event) => {
    const node = find(event);
    if (sameNode(node, hovered)) return;
    hovered = node;
    schedule();
  };
  const hoverPlot = hoverWith(nodeUnder);
  /** @param {PointerEvent} event */
  const onPointerMove = (event) => {
    pointer = { clientX: event.clientX, clientY: event.clientY };
    hoverPlot(event);
  };
  const onPointerLeave = () => {
    pointer = null;
    if (hovered) {
      hovered = null;
      schedule();
    }
  };

  /** A click on a cell of the heads grid opens that layer and head in the single-layer view. @param {MouseEvent} event */
  const onCellClick = (event) => {
    const cell = view.heads.cellUnder(event);
    if (!cell) return;
    model.set("layer", cell.layer);
    if (readState(model).method.per_head) model.set("head", cell.head);
    model.set("view", "layer");
    model.save_changes();
  };

  const fileName = () => {
    const state = readState(model);
    if (state.view === "heads") return `attention-${state.method.id}-heads`;
    const other = compareMeta(state);
    if (other)
      return `attention-${state.method.id}-${state.compareMode === "side" ? "vs" : "minus"}-${other.id}-layer${state.layer}`;
    return state.view === "model"
      ? `attention-${state.method.id}-model`
      : `attention-${state.method.id}-layer${state.layer}`;
  };
  const picture = () => {
    if (!scene) paint();
    return scene && view.pictureOf(scene, readState(model));
  };
  const onSavePng = () => {
    if (readState(model).view === "heads") {
      const words = view.headsWords();
      const grid = view.heads.picture(2, words.foreground);
      if (!grid) return;
      const canvas = /** @type {HTMLCanvasElement} */ (doc.createElement("canvas"));
      paintHeadsPng(canvas, grid, words, 2);
      canvas.toBlob((blob) => blob && download(view.root, blob, `${fileName()}.png`), "image/png");
      return;
    }
    const drawn = picture();
    if (!drawn) return;
    const canvas = /** @type {HTMLCanvasElement} */ (doc.createElement("canvas"));
    paintPng(canvas, drawn);
    canvas.toBlob((blob) => blob && download(view.root, blob, `${fileName()}.png`), "image/png");
  };
  const onSaveSvg = () => {
    if (readState(model).view === "heads") {
      const words = view.headsWords();
      const grid = view.heads.picture(2, words.foreground);
      if (grid)
        download(view.root, new Blob([headsSvg(doc, grid, words)], { type: "image/svg+xml" }), `${fileName()}.svg`);
      return;
    }
    const drawn = picture();
    if (drawn) download(view.root, new Blob([svgOf(doc, drawn)], { type: "image/svg+xml" }), `${fileName()}.svg`);
  };

  // A long input's token window: the wheel, the window keys, the minimap and the markers.
  const navigation = createNavigation(
    model,
    view.navigation,
    () => frame,
    () => {
      const pinned = readState(model).selected.index;
      return hovered?.index ?? (typeof pinned === "number" ? pinned : null);
    },
  );
  /** @type {Array<[EventTarget, string, (event: any) => void, AddEventListenerOptions?]>} */
  const listeners = [
    ...navigation.listeners,
    [view.plot, "wheel", navigation.onWheel, { passive: false }],
    [view.savePng, "click", onSavePng],
    [view.saveSvg, "click", onSaveSvg],
    [view.plot, "pointermove", onPointerMove],
    [view.plot, "pointerleave", onPointerLeave],
    [view.plot, "click", onClick],
    [view.plot, "keydown", onKey],
    [view.comparePlot, "pointermove", hoverWith(compareNodeUnder)],
    [view.comparePlot, "pointerleave", onPointerLeave],
    [view.comparePlot, "click", pinWith(compareNodeUnder)],
    [view.heads.canvas, "pointermove", (event) => view.heads.showHover(view.heads.cellUnder(event))],
    [view.heads.canvas, "pointerleave", () => view.heads.showHover(null)],
    [view.heads.canvas, "click", onCellClick],
    [view.image.canvas, "pointermove", hoverWith(patchNodeUnder)],
    [view.image.canvas, "pointerleave", onPointerLeave],
    [view.image.canvas, "click", pinWith(patchNodeUnder)],
  ];
  for (const [target, type, callback, options] of listeners) target.addEventListener(type, callback, options);

  /** @type {Array<[string, () => void]>} */
  const subscriptions = REDRAW_ON.filter((name) => !["view", "window", "lang"].includes(name)).map((name) => [
    `change:${name}`,
    schedule,
  ]);
  // The data traits are the methods' and their whole-model graphs' (the `methods` and `graphs` facts), made
  // per widget in Python.
  const { methods, graphs = [] } = readState(model);
  for (const method of [...methods, ...graphs]) {
    subscriptions.push([`change:data_${method.id}`, schedule]);
    if (method.row_label) subscriptions.push([`change:data_${method.id}_rows`, schedule]);
  }
  subscriptions.push([
    "change:window",
    () => {
      rowsMoved = true;
      schedule();
    },
  ]);
  subscriptions.push([
    "change:view",
    () => {
      hovered = null;
      schedule();
    },
  ]);
  for (const [event, callback] of subscriptions) model.on(event, callback);

  // The observers of the widget's own window (an iframe's, in some hosts), not this module's globals.
  const { ResizeObserver, MutationObserver, IntersectionObserver } = /** @type {typeof globalThis} */ (
    /** @type {unknown} */ (win)
  );
  const resize = ResizeObserver ? new ResizeObserver(schedule) : null;
  resize?.observe(el);
  // Only a widget in view draws pictures ahead (see raster.js).
  const inView = IntersectionObserver
    ? new IntersectionObserver((entries) => view.setOnScreen(entries[entries.length - 1].isIntersecting))
    : null;
  inView?.observe(view.root);
  // Hosts switch themes by changing attributes on <body> or <html> (JupyterLab sets
  // data-jp-theme-light, VS Code a class): repaint so the colour table follows.
  const theme = new MutationObserver(schedule);
  for (const node of [doc.documentElement, doc.body]) if (node) theme.observe(node, { attributes: true });

  paint();

  return () => {
    if (scheduled) (win.cancelAnimationFrame ?? win.clearTimeout)(scheduled);
    for (const [event, callback] of subscriptions) model.off(event, callback);
    for (const [target, type, callback] of listeners) target.removeEventListener(type, callback);
    resize?.disconnect();
    inView?.disconnect();
    theme.disconnect();
    view.destroy();
    view.root.remove();
  };
}
