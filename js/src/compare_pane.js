// The DOM of a comparison (compare.js): a heading over each pane, the second pane (its own edge
// and overlay canvases, token labels, titles and pending panel), the "Compare with" and
// "Compare as" controls, and what the legend, caption and value list add. Token text reaches the page
// through textContent only.

import { comparable, comparedMethod, compareWords } from "./compare.js";
import { labelled, methodOptions, option } from "./controls.js";
import { CONTEXT_FILTER, CONTEXT_OPACITY } from "./draw.js";
import { edgesOfNode } from "./edges.js";
import { tr } from "./i18n.js";
import { LABEL_GAP } from "./layout.js";
import { choicesOf } from "./options.js";
import { element, formatValue, markHovered, renderTitles, tokenColumns } from "./overlay.js";
import { createPending } from "./pending.js";
import { probe } from "./probes.js";
import { createEdgeLayer, fitCanvases } from "./raster.js";
import { drawOverlay, isHighlighted, layerScene } from "./scene.js";
import { columnTitles, titleAtEdge } from "./state.js";

/**
 * @typedef {object} PanePicture  the second pane of a downloaded picture (exporter.js)
 * @property {import("./scene.js").Scene} scene
 * @property {[string, string]} titles
 * @property {string} heading
 * @property {boolean} titleAtEdge  the right title ends at the pane's right edge (long titles)
 */

/**
 * @typedef {object} CompareExtras  what a comparison adds to the view's words (compareExtras)
 * @property {string} name  the caption's name of the picture, in place of the method's
 * @property {import("./overlay.js").LegendCompare} legend
 * @property {import("./overlay.js").ListCompare} list
 */

/**
 * @param {Document} doc
 * @param {import("./state.js").WidgetModel} model
 * @param {HTMLElement} plot  the view's plot: it moves into the first pane
 * @param {string} lang  the language of the words (i18n.js)
 */
export function createComparePane(doc, model, plot, lang) {
  const words = compareWords(lang);
  const row = element(doc, "div", "attnw-panes");
  const mainPane = element(doc, "div", "attnw-pane attnw-pane-main");
  const mainHeading = element(doc, "div", "attnw-pane-heading");
  const otherPane = element(doc, "div", "attnw-pane attnw-pane-compare");
  const otherHeading = element(doc, "div", "attnw-pane-heading");
  // Not .attnw-plot: that names the view's own plot (one per widget, for hosts and tests).
  const otherPlot = element(doc, "div", "attnw-compare-plot");
  const canvas = /** @type {HTMLCanvasElement} */ (element(doc, "canvas", "attnw-compare-canvas"));
  canvas.setAttribute("role", "img");
  const overlay = /** @type {HTMLCanvasElement} */ (element(doc, "canvas", "attnw-compare-overlay"));
  overlay.setAttribute("aria-hidden", "true");
  const titleLeft = element(doc, "div", "attnw-title attnw-title-left");
  const titleRight = element(doc, "div", "attnw-title attnw-title-right");
  const labelsLeft = element(doc, "div", "attnw-labels attnw-labels-left");
  const labelsRight = element(doc, "div", "attnw-labels attnw-labels-right");
  const pending = createPending(doc, /** @type {any} */ (model), lang);
  pending.root.addEventListener("click", (event) => event.stopPropagation());
  mainPane.append(mainHeading, plot);
  otherPane.append(otherHeading, otherPlot);
  row.append(mainPane, otherPane);
  const edgeLayer = createEdgeLayer(canvas);
  mainHeading.hidden = otherPane.hidden = true;
  const columns = tokenColumns(labelsLeft, labelsRight);
  /** @type {PanePicture | null} */
  let shown = null;
  let mainHeadingText = "";
  /** The second pane's parts go in when a comparison is first shown: until then a widget holds one of each. */
  const fill = () => {
    if (!otherPlot.firstChild)
      otherPlot.append(canvas, overlay, titleLeft, titleRight, labelsLeft, labelsRight, pending.root);
  };

  /**
   * Size the canvases and labels to the frame's layout and draw its scene, as the view draws its plot.
   * @param {import("./frames.js").LayerFrame} frame @param {import("./scene.js").Scene} scene
   */
  const drawPane = (frame, scene) => {
    const { layout, state } = frame;
    fill();
    const dpr = fitCanvases(canvas, overlay, layout, edgeLayer);
    otherPlot.style.height = `${layout.height}px`;
    otherPlot.style.width = `${layout.width}px`;
    columns.render(layout, state);
    const wide = titleAtEdge(state);
    titleRight.style.left = wide ? "" : `${layout.rightX + LABEL_GAP}px`;
    titleRight.style.right = wide ? "0px" : "";
    // Token lists (an encoder-decoder's): rows this kind of attention does not touch are faded.
    columns.markIdle(state.segments.length > 1 && frame.available ? frame.edges : null);
    renderTitles(titleLeft, titleRight, columnTitles(state));
    probe(canvas, { edgesFrom: edgeLayer.show(scene, dpr) });
    const highlighted = isHighlighted(scene);
    canvas.style.opacity = highlighted ? String(CONTEXT_OPACITY) : "";
    canvas.style.filter = highlighted ? CONTEXT_FILTER : "";
    const ctx = overlay.getContext("2d");
    if (ctx) {
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.clearRect(0, 0, layout.width, layout.height);
      drawOverlay(ctx, scene);
    }
    markHovered(otherPlot, frame.focus, frame.pinned);
  };

  return {
    row,
    otherPlot,
    /**
     * Show a comparison's second pane and headings (frames from compare.js) or none (null); what it adds
     * to the view's legend, caption and value list is ``compareExtras``, which the view paints with them.
     * @param {import("./compare.js").CompareFrames | null} frames
     * @param {boolean} dark
     */
    paint(frames, dark) {
      mainPane.classList.toggle("attnw-pane-side", frames?.mode === "side");
      if (!frames) {
        mainHeading.hidden = otherPane.hidden = true;
        mainPane.style.width = "";
        shown = null;
        mainHeadingText = "";
        return;
      }
      const { state } = frames.main;
      const a = state.method.label;
      const b = frames.other.label;
      mainHeading.hidden = false;
      mainHeadingText = mainHeading.textContent = frames.mode === "side" ? a : words.difference(a, b);
      const second = frames.second;
      // Difference: the second pane shows only the compared method's pending state, when it has one.
      const otherShown = frames.mode === "side" || !second.available;
      otherPane.hidden = !otherShown;
      mainPane.style.width = frames.mode === "side" ? `${frames.main.layout.width}px` : "";
      const otherSt = second.state;
      fill();
      pending.update(otherSt, second.available, state.job);
      otherHeading.textContent = frames.mode === "side" ? b : words.neededFor(b);
      if (otherShown) {
        const scene = layerScene(second, dark);
        drawPane(second, scene);
        probe(canvas, { edges: String(second.edges.count), method: frames.other.id });
        canvas.setAttribute("aria-label", words.paneLabel(b, second.edges.count, state.tokens.length));
        shown =
          frames.mode === "side"
            ? { scene, titles: columnTitles(otherSt), heading: b, titleAtEdge: titleAtEdge(otherSt) }
            : null;
      } else shown = null;
    },
    /** What a downloaded picture's legend is named: both methods on one scale, or their difference ("": one method). */
    legendLabel() {
      return shown ? words.bothOnOneScale(mainHeadingText, shown.heading) : mainHeadingText;
    },
    /** The heading of the first pane and the second pane, for a downloaded picture (null: none shown). */
    picture() {
      return { heading: mainHeadingText, compare: shown };
    },
    /**
     * Draw the second pane's neighbouring pictures ahead while the page is idle (raster.js).
     * @param {Array<() => import("./frames.js").LayerFrame>} frames  computed when their turn comes
     * @param {boolean} dark
     */
    drawAhead(frames, dark) {
      edgeLayer.drawAhead(
        frames.map((next) => () => {
          try {
            const frame = next();
            return frame.available ? layerScene(frame, dark) : null;
          } catch {
            return null; // data that does not fit the state: the view says why when shown
          }
        }),
      );
    },
    paintComing: edgeLayer.paintComing,
    setOnScreen: edgeLayer.setOnScreen,
    destroy() {
      pending.destroy();
      edgeLayer.destroy();
    },
  };
}

/**
 * What a comparison adds to the view's caption, legend and value list: side by side, both methods' names,
 * their shared scale and each pane's edge count, and in the value list the second method's value of each
 * edge beside the first's; as a difference, its name, scale and edge count.
 * @param {import("./compare.js").CompareFrames} frames
 * @returns {CompareExtras}
 */
export function compareExtras(frames) {
  const { state, focus, edges } = frames.main;
  const words = compareWords(state.lang);
  const a = state.method.label;
  const b = frames.other.label;
  const integer = Boolean(state.method.integer && frames.other.integer);
  /** @param {number} v */
  const f = (v) => formatValue(v, integer);
  if (frames.mode !== "side") {
    const name = words.difference(a, b);
    return {
      name,
      legend: {
        coverage: words.differenceEdges(edges.count),
        notes: [words.differenceScale(a, b)],
        plusHigh: edges.max > 0,
        hidden: !frames.second.available,
      },
      list: { title: `${name}: `, second: null, format: f },
    };
  }
  const second = frames.second.edges;
  /** @type {Map<number, number>} */
  const values = new Map();
  if (focus) {
    const ends = focus.side === "target" ? second.source : second.target;
    for (const e of edgesOfNode(second, focus)) values.set(ends[e], second.weight[e]);
  }
  return {
    name: words.besides(a, b),
    legend: {
      coveragePrefix: `${a}: `,
      notes: [words.sharedScale(a, frames.maxMain, b, frames.maxOther, f), words.paneEdges(b, second.count)],
    },
    list: { title: words.bothColumns(a, b), second: values, format: f },
  };
}

/**
 * The "Compare with" menu (off, then the methods that draw the same graph, under the method menu's headings;
 * the tooltip says how many others are left out) and the "Compare as" choice, for the control bar.
 * @param {Document} doc
 * @param {import("./state.js").WidgetModel} model
 * @param {string} lang  the language of the words (i18n.js)
 */
export function createCompareControls(doc, model, lang) {
  const words = compareWords(lang);
  const menu = /** @type {HTMLSelectElement} */ (element(doc, "select", "attnw-compare"));
  const mode = /** @type {HTMLSelectElement} */ (element(doc, "select", "attnw-compare-mode"));
  for (const [node, label, title] of /** @type {const} */ ([
    [menu, words.compareWith, words.compareWithTitle],
    [mode, words.mode, words.modeTitle],
  ])) {
    node.setAttribute("aria-label", label);
    node.title = title;
    node.dataset.lmSuppressShortcuts = "true";
  }
  mode.replaceChildren(...choicesOf("compare_mode").map(([value, text]) => option(doc, value, tr(lang, text))));
  const menuControl = labelled(doc, words.compareWith, menu);
  const modeControl = labelled(doc, words.mode, mode);
  /** @param {string} name @param {string} value */
  const commit = (name, value) => {
    model.set(name, value);
    model.save_changes();
  };
  const onMenu = () => commit("compare_method", menu.value);
  const onMode = () => commit("compare_mode", mode.value);
  menu.addEventListener("change", onMenu);
  mode.addEventListener("change", onMode);
  let key = "";
  return {
    nodes: [menuControl, modeControl],
    /** @param {import("./state.js").ViewState} state */
    update(state) {
      const listed = state.methods.filter((m) => comparable(m, state.method));
      const now = JSON.stringify([state.methods.map((m) => [m.id, m.label]), state.method.id]);
      if (now !== key) {
        key = now;
        menu.replaceChildren(option(doc, "", words.off), ...methodOptions(doc, listed));
      }
      const left = state.methods.length - listed.length;
      // A compared method that draws another graph than the one now shown reads as off.
      menu.value = comparedMethod(state)?.id ?? "";
      menu.disabled = state.view !== "layer";
      menu.title =
        state.view !== "layer"
          ? words.singleLayerOnly
          : left
            ? `${words.compareWithTitle}. ${words.notListed(left)}`
            : words.compareWithTitle;
      mode.value = state.compareMode;
      modeControl.hidden = menu.value === "";
    },
    destroy() {
      menu.removeEventListener("change", onMenu);
      mode.removeEventListener("change", onMode);
    },
  };
}
