// The DOM of one widget view (controls, canvas, labels, titles, caption, legend, tooltip,
// token-score strip) and the painters that fill it from a frame. Token text is untrusted:
// every string reaches the page through textContent.

import { rowCoverage } from "./codec.js";
import { prefersDarkTable } from "./colormap.js";
import { compareExtras, createCompareControls, createComparePane } from "./compare_pane.js";
import { createControls } from "./controls.js";
import { CONTEXT_FILTER, CONTEXT_OPACITY } from "./draw.js";
import { edgesOfNode } from "./edges.js";
import { createExplain } from "./explain.js";
import { legendOf } from "./export_legend.js";
import { createHeadsGrid } from "./heads_draw.js";
import { speaker, tr } from "./i18n.js";
import { createImagePanel } from "./image_draw.js";
import { LABEL_GAP } from "./layout.js";
import { navigateWords } from "./navigate.js";
import { createNavigationView } from "./navigate_view.js";
import {
  element,
  formatValue,
  markHovered,
  markTarget,
  renderLegend,
  renderTitles,
  renderTooltip,
  tokenColumns,
} from "./overlay.js";
import { createPending } from "./pending.js";
import { probe } from "./probes.js";
import { createEdgeLayer, fitCanvases } from "./raster.js";
import { drawOverlay, isHighlighted, layerScene, modelScene } from "./scene.js";
import {
  columnTitles,
  graphMethod,
  hasPinnedRow,
  headLabel,
  layerName,
  MEAN_HEAD,
  pinnedNode,
  rowTitle,
  titleAtEdge,
} from "./state.js";
import { currentScores, renderStrip, renderStripStatus } from "./strip.js";

/** "layer 3 of 6", or "decoder 2 (layer 5 of 8)" where layers have names. @param {import("./state.js").ViewState} state */
function layerPhrase(state) {
  const counted = tr(state.lang, "layer {layer} of {n}", { layer: state.layer, n: state.nLayers });
  return state.layerNames.length ? `${layerName(state, state.layer)} (${counted})` : counted;
}

/**
 * The caption's note on a token window: which rows, and how the labels are thinned.
 * @param {import("./layout.js").Layout} layout @param {string} lang
 */
function windowNote(layout, lang) {
  const nav = navigateWords(lang);
  const rows = layout.band > 0 ? ` · ${nav.rows(layout.first, layout.last, layout.n)}` : "";
  return rows + (layout.labelEvery > 1 ? ` · ${nav.thinned(layout.labelEvery)}` : "");
}

/** What kind of model, for the caption. @param {import("./state.js").ViewState} state */
function modelKind(state) {
  if (state.segments.length > 1)
    return tr(state.lang, "{counts} tokens", {
      counts: state.segments.map((s) => `${s.size} ${tr(state.lang, s.label)}`).join(" + "),
    });
  return tr(state.lang, state.causal ? "decoder (causal)" : "encoder");
}

/**
 * @param {Document} doc
 * @param {import("./state.js").WidgetModel} model
 * @param {string} lang  the language of the widget's words (i18n.js); a change makes a new view
 */
export function createView(doc, model, lang) {
  const say = speaker(lang);
  const nav = navigateWords(lang);
  const win = /** @type {Window} */ (doc.defaultView);
  const root = element(doc, "div", "attnw-root");
  root.lang = lang;
  const controls = createControls(doc, model, lang);
  const caption = element(doc, "div", "attnw-caption");
  const problem = element(doc, "div", "attnw-problem");
  problem.setAttribute("role", "alert");
  problem.hidden = true;
  const plot = element(doc, "div", "attnw-plot");
  plot.tabIndex = 0;
  plot.dataset.lmSuppressShortcuts = "true"; // JupyterLab binds arrow keys in command mode
  plot.setAttribute("aria-label", nav.plotHelp);
  // Edges on one canvas, redrawn only when they change; highlights, dots and column numbers
  // on a second one above it, redrawn on every hover.
  const canvas = /** @type {HTMLCanvasElement} */ (element(doc, "canvas", "attnw-canvas"));
  canvas.setAttribute("role", "img");
  const overlay = /** @type {HTMLCanvasElement} */ (element(doc, "canvas", "attnw-overlay"));
  overlay.setAttribute("aria-hidden", "true");
  const edgeLayer = createEdgeLayer(canvas);
  const titleLeft = element(doc, "div", "attnw-title attnw-title-left");
  const titleRight = element(doc, "div", "attnw-title attnw-title-right");
  const strip = element(doc, "div", "attnw-strip");
  const stripStatus = element(doc, "div", "attnw-strip-status");
  const stripWarning = element(doc, "div", "attnw-strip-warning");
  const labelsLeft = element(doc, "div", "attnw-labels attnw-labels-left");
  const labelsRight = element(doc, "div", "attnw-labels attnw-labels-right");
  const tooltip = element(doc, "div", "attnw-tooltip");
  tooltip.setAttribute("role", "status");
  tooltip.hidden = true;
  const legend = element(doc, "div", "attnw-legend");
  const savePng = /** @type {HTMLButtonElement} */ (element(doc, "button", "attnw-save attnw-save-png", "PNG"));
  const saveSvg = /** @type {HTMLButtonElement} */ (element(doc, "button", "attnw-save attnw-save-svg", "SVG"));
  savePng.title = say("Download the current view as a PNG picture");
  const svgTitle = say("Download the current view as an SVG drawing (labels as text)");
  saveSvg.title = svgTitle;
  const explain = createExplain(doc, lang);
  // A second method beside the first (compare.js): its controls, its pane next to the plot.
  const compareControls = createCompareControls(doc, model, lang);
  // About sits in the basic row, before More; the comparison and the downloads behind More, the downloads as
  // one group at the end of that row.
  controls.actions.prepend(explain.button);
  const downloads = element(doc, "span", "attnw-actions");
  downloads.append(savePng, saveSvg);
  controls.more.append(...compareControls.nodes, downloads);
  const pending = createPending(doc, model, lang);
  const navigation = createNavigationView(doc, lang); // a long input's minimap and off-window markers
  plot.append(
    canvas,
    overlay,
    strip,
    titleLeft,
    titleRight,
    labelsLeft,
    labelsRight,
    ...navigation.roots,
    pending.root,
  );
  // A click on a panel over or beside the plot (buttons, the token-score strip, the value list)
  // is the panel's: it never reaches the plot, where it would pin the token under it; nor does
  // a key pressed on a button (Enter would pin the hovered token).
  /** @param {Event} event */
  const stop = (event) => event.stopPropagation();
  for (const panel of [pending.root, strip, tooltip]) panel.addEventListener("click", stop);
  pending.root.addEventListener("keydown", stop);
  // An image analysis shows its image beside the graph and its legend (image.js); hidden for text.
  const image = createImagePanel(doc, lang);
  const graph = element(doc, "div", "attnw-graph");
  const heads = createHeadsGrid(doc, lang);
  const compare = createComparePane(doc, model, plot, lang);
  graph.append(heads.root, compare.row, legend, stripStatus, stripWarning);
  // The value list of the focused token is docked off the plot (dock.js): in the side column,
  // under the image, or under the plot in a narrow widget.
  const side = element(doc, "div", "attnw-side");
  side.append(image.root, tooltip);
  const body = element(doc, "div", "attnw-body");
  body.append(graph, side);
  root.append(controls.root, caption, explain.hint, explain.panel, problem, body);
  const columns = tokenColumns(labelsLeft, labelsRight);

  /** The host's theme is dark: its text colour is light. */
  const isDark = () => prefersDarkTable(win.getComputedStyle(root).color);
  let dark = false; // as of the last paint

  /**
   * Size both canvases and the labels to the layout, then draw the scene.
   * @param {import("./layout.js").Layout} layout @param {import("./state.js").ViewState} state
   * @param {import("./scene.js").Scene} scene
   */
  const drawPicture = (layout, state, scene) => {
    const dpr = fitCanvases(canvas, overlay, layout, edgeLayer);
    plot.style.height = `${layout.height}px`;
    columns.render(layout, state);
    const wide = titleAtEdge(state);
    titleRight.style.left = wide ? "" : `${layout.rightX + LABEL_GAP}px`;
    titleRight.style.right = wide ? "0px" : "";
    // For benchmarks and tests: whether the edges were drawn, copied from a kept picture, or kept.
    probe(canvas, { edgesFrom: edgeLayer.show(scene, dpr) });
    // A highlight turns the kept edges into faint grey context (draw.js CONTEXT_OPACITY).
    const highlighted = isHighlighted(scene);
    canvas.style.opacity = highlighted ? String(CONTEXT_OPACITY) : "";
    canvas.style.filter = highlighted ? CONTEXT_FILTER : "";
    const ctx = overlay.getContext("2d");
    if (!ctx) return;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, layout.width, layout.height);
    drawOverlay(ctx, scene);
  };

  /**
   * Dock the value list and size the side column (dock.js); before a paint.
   * @param {import("./dock.js").Dock} dock
   */
  const placeDock = (dock) => {
    if (dock.beside && tooltip.parentElement !== side) side.append(tooltip);
    if (!dock.beside && tooltip.previousElementSibling !== compare.row) compare.row.after(tooltip);
    side.style.width = dock.beside ? `${dock.width}px` : "";
    side.hidden = !dock.beside && !dock.image;
    body.classList.toggle("attnw-body-stacked", dock.image && !dock.beside);
    probe(tooltip, { dock: dock.beside ? "side" : "below" });
  };

  /**
   * @param {import("./frames.js").LayerFrame} frame
   * @param {import("./compare.js").CompareFrames | null} [compared]  a comparison whose first pane this is:
   *   its words go into the caption, legend and value list (its second pane is ``paintCompare``'s)
   * @returns {import("./scene.js").Scene}
   */
  const paintLayer = (frame, compared = null) => {
    const { state, available, env, slice, edges, layout, pinned, focus } = frame;
    const extras = compared && compareExtras(compared);
    dark = isDark(); // before any DOM change: reading styles then would force a style recalculation
    controls.update(state);
    compareControls.update(state);
    explain.update(state.method);
    // Heads of a layer the kernel is reading: its heads job in the panel, for the shown method.
    // A long input's layer (or its heads) the kernel is reading: its reading in the panel, for a per-head method.
    const reading = !available && state.method.per_head && state.headsJob.layers?.includes(state.layer);
    pending.update(state, available, reading ? { ...state.headsJob, method: state.method.id } : state.job);
    const scene = layerScene(frame, dark);
    saveSvg.disabled = false;
    saveSvg.title = svgTitle;
    drawPicture(layout, state, scene);
    probe(canvas, { edges: String(edges.count), view: "layer" });
    // Token lists (an encoder-decoder's): rows a kind of attention does not touch are faded.
    columns.markIdle(state.segments.length > 1 && available ? edges : null);
    canvas.setAttribute(
      "aria-label",
      say("{method}, {layer}, {heads}: {edges} edges between {n} tokens", {
        method: state.method.label,
        layer: layerPhrase(state),
        heads: headLabel(state),
        edges: edges.count,
        n: state.tokens.length,
      }),
    );
    const titles = columnTitles(state);
    const chosen = state.targets.find((t) => t.id === state.target);
    const scores = currentScores(state.attributionData, state.target, state.attribution, state.tokens.length);
    renderStrip(strip, layout, scores);
    renderStripStatus(
      stripStatus,
      stripWarning,
      state.attributionData,
      state.attribution,
      state.attributions,
      chosen?.label ?? "",
      scores,
      lang,
      state.tokens,
    );
    renderTitles(titleLeft, titleRight, titles);
    markHovered(root, focus, pinned);
    markTarget(labelsRight, state.attribution && chosen ? chosen.position : null);
    const dots = frame.degrees
      ? ` · ${say(state.nodeSize === "in" ? "dots: in-degree of the right column (row sums), largest {max}" : "dots: out-degree of the left column (column sums, attention received), largest {max}", { max: formatValue(frame.degrees.max) })}`
      : "";
    const partial = hasPinnedRow(state) ? ` · ${say("only the pinned token's row is computed for this layer")}` : "";
    const note = (state.method.note ? ` · ${state.method.note}` : "") + dots + partial + windowNote(layout, lang);
    navigation.paintLayer(frame, scene, dark);
    caption.textContent = `${extras?.name ?? state.method.label} · ${layerPhrase(state)} · ${headLabel(state)} · ${modelKind(state)}${note}`;
    caption.title = state.method.description;
    legend.hidden = !available || Boolean(extras?.legend.hidden);
    renderLegend(legend, {
      table: scene.table,
      signed: scene.signed,
      max: edges.max,
      meanCoverage: frame.meanCoverage,
      minCoverage: frame.minCoverage,
      edgeCount: edges.count,
      drawnShare: edges.drawnShare ?? 1,
      rowLabel: state.method.row_label,
      rowMean: frame.rows ? frame.rows.reduce((a, b) => a + b, 0) / frame.rows.length : null,
      integer: state.method.integer,
      attention: Boolean(state.method.attention_weights),
      lang,
      compare: extras?.legend,
      scale: scene.scale,
    });
    tooltip.hidden = !(focus && env);
    if (focus && env) {
      renderTooltip(tooltip, {
        node: focus,
        tokens: state.tokens,
        edges,
        touching: edgesOfNode(edges, focus),
        columnTitle: rowTitle(state, focus.side, focus.index),
        coverage: rowCoverage(env, slice, focus.index),
        rowNote: frame.rows && focus.side === "target" ? [state.method.row_label ?? "", frame.rows[focus.index]] : null,
        scoreNote: scores ? [say("token score"), scores[focus.index]] : null,
        pinned: pinned !== null && focus.side === pinned.side && focus.index === pinned.index,
        integer: state.method.integer,
        lang,
        compare: extras?.list,
      });
    }
    return scene;
  };

  /** @param {import("./frames.js").ModelFrame} frame @returns {import("./scene.js").Scene} */
  const paintModel = (frame) => {
    const { state, layout, perLayer, pinned, focus, unsent } = frame;
    dark = isDark();
    controls.update(state);
    compareControls.update(state);
    explain.update(state.method);
    pending.root.hidden = true;
    const scene = modelScene(frame, dark);
    saveSvg.disabled = false;
    saveSvg.title = svgTitle;
    drawPicture(layout, state, scene);
    navigation.paintModel(frame, scene, dark);
    const edgeCount = perLayer.reduce((sum, edges) => sum + edges.count, 0);
    probe(canvas, { edges: String(edgeCount), view: "model", columns: JSON.stringify(layout.columns) });
    canvas.setAttribute(
      "aria-label",
      say("{method}, all {layers} layers as columns: {edges} edges between {n} tokens per layer", {
        method: state.method.label,
        layers: state.nLayers,
        edges: edgeCount,
        n: state.tokens.length,
      }),
    );
    renderTitles(titleLeft, titleRight, columnTitles(state));
    markHovered(root, null);
    markTarget(labelsRight, null);
    columns.markIdle(null);
    // A cumulative method's edges are the per-layer graph its meta names (its own step), its values the dots.
    const drawn = graphMethod(state);
    const graph =
      state.method.cumulative && drawn !== state.method
        ? say("edges: {graph} of each layer ({heads}); dots: its values between the focused token and the input", {
            graph: drawn.label,
            heads: headLabel({ ...state, method: drawn, head: MEAN_HEAD }),
          })
        : headLabel(state);
    const colours =
      scene.scale.of === "paths"
        ? say("traced paths coloured on each layer's own range")
        : say("colours scaled per layer");
    const missing = unsent.length
      ? ` · ${say("not read yet for this head: layers {layers} (open one to read it)", { layers: unsent.join(", ") })}`
      : "";
    caption.textContent = `${state.method.label} · ${say("whole model, {n} layers", { n: state.nLayers })} · ${graph} · ${colours}${missing}${windowNote(layout, lang)}`;
    legend.hidden = false;
    renderLegend(legend, {
      table: scene.table,
      signed: scene.signed,
      max: Math.max(...perLayer.map((e) => e.max)),
      meanCoverage: 1,
      minCoverage: 1,
      edgeCount,
      integer: drawn.integer,
      attention: Boolean(drawn.attention_weights),
      lang,
      scale: scene.scale,
    });
    renderStrip(strip, layout, null);
    stripStatus.hidden = stripWarning.hidden = true;
    tooltip.hidden = !focus;
    if (focus) {
      // Cumulative methods list what reaches the node from each input; others its layer's edges.
      const edges = frame.reach ?? perLayer[Math.max(0, focus.layer - 1)];
      /** @type {import("./frames.js").LayerNode} */
      const node = { side: focus.layer === 0 ? "source" : "target", index: focus.index };
      const title =
        focus.layer === 0 ? say("input token") : say("after {layer}", { layer: layerName(state, focus.layer) });
      renderTooltip(tooltip, {
        node,
        tokens: state.tokens,
        edges,
        touching: edgesOfNode(edges, node),
        columnTitle: frame.reach
          ? say("{title}, {method} from the input,", { title, method: state.method.label.toLowerCase() })
          : title,
        coverage: 1,
        pinned: pinned !== null && pinned.layer === focus.layer && pinned.index === focus.index,
        // Reach lists the method's own values; a layer's edges are its graph method's.
        integer: (frame.reach ? state.method : (drawn ?? state.method)).integer,
        lang,
      });
    }
    return scene;
  };

  /** The "all heads" overview (heads_draw.js) in place of the graph. @param {import("./heads_grid.js").HeadsFrame} frame */
  const paintHeads = (frame) => {
    const { state } = frame;
    controls.update(state);
    compareControls.update(state);
    explain.update(state.method);
    pending.root.hidden = true;
    legend.hidden = stripStatus.hidden = stripWarning.hidden = tooltip.hidden = true;
    const what = state.method.per_head
      ? say("mean, max, then each head")
      : say("{heads}: one matrix per layer (this method is not per head)", { heads: headLabel(state) });
    const grid = say(
      frame.heads.length === 1 ? "all {layers} layers × 1 matrix" : "all {layers} layers × {heads} heads",
      { layers: state.nLayers, heads: state.nHeads },
    );
    const note = state.method.note ? ` · ${state.method.note}` : ""; // a remark about this input, as in one layer
    caption.textContent = `${state.method.label} · ${grid} · ${what} · ${modelKind(state)}${note}`;
    caption.title = state.method.description;
    heads.paint(frame);
    navigation.hide();
    saveSvg.disabled = false; // each cell an embedded image, the words text (heads_export.js)
    saveSvg.title = svgTitle;
  };

  /**
   * Draw these frames' edges ahead while the page is idle (see raster.js).
   * @param {Array<() => import("./frames.js").LayerFrame | import("./frames.js").ModelFrame>} frames
   *   computed when their turn comes
   */
  const drawAhead = (frames) => {
    edgeLayer.drawAhead(
      frames.map((next) => () => {
        let frame;
        try {
          frame = next();
        } catch {
          return null; // data that does not fit the state: nothing to draw ahead (the view says why when shown)
        }
        if (frame.kind === "model") return modelScene(frame, dark);
        return frame.available ? layerScene(frame, dark) : null;
      }),
    );
  };

  /**
   * Say why nothing is drawn, in place of the plot (the controls stay, to choose another view);
   * "" shows the plot again.
   * @param {string} reason
   * @param {import("./state.js").ViewState} state
   */
  const showProblem = (reason, state) => {
    if (reason) {
      controls.update(state);
      compareControls.update(state);
    }
    problem.hidden = !reason;
    problem.textContent = reason
      ? say("Cannot draw this view: {reason}. Make the widget again, e.g. AttentionWidget(model, text).", { reason })
      : "";
    caption.hidden = Boolean(reason);
    plot.hidden = Boolean(reason) || state.view === "heads";
    heads.root.hidden = Boolean(reason) || state.view !== "heads";
    if (reason) legend.hidden = stripStatus.hidden = stripWarning.hidden = tooltip.hidden = true;
  };

  /**
   * The last painted scene as a picture for the download buttons.
   * @param {import("./scene.js").Scene} scene
   * @param {import("./state.js").ViewState} state
   * @returns {import("./exporter.js").Picture}
   */
  const pictureOf = (scene, state) => {
    return {
      scene,
      tokens: state.tokens,
      titles: columnTitles(state),
      titleAtEdge: titleAtEdge(state),
      caption: caption.textContent ?? "",
      foreground: dark ? "#e6e6e6" : "#111111",
      background: dark ? "#111111" : "#ffffff",
      image: image.scene(),
      notes: navigation.markers.labels(),
      pinned: state.view === "layer" ? pinnedNode(state) : null, // the whole-model view labels no pin
      legend: legendOf(scene, state.view === "model" ? graphMethod(state) : state.method, lang, compare.legendLabel()),
      ...compare.picture(),
    };
  };

  /** The words and colours of a download of the heads grid (heads_export.js). */
  const headsWords = () => {
    const onDark = isDark();
    return {
      caption: caption.textContent ?? "",
      foreground: onDark ? "#e6e6e6" : "#111111",
      background: onDark ? "#111111" : "#ffffff",
    };
  };

  /**
   * After paintLayer: the comparison's second pane and headings (compare_pane.js), or none.
   * @param {import("./compare.js").CompareFrames | null} frames
   */
  const paintCompare = (frames) => compare.paint(frames, dark);

  return {
    root,
    plot,
    canvas,
    heads,
    image,
    navigation,
    comparePlot: compare.otherPlot,
    savePng,
    saveSvg,
    paintLayer,
    paintModel,
    paintHeads,
    headsWords,
    paintCompare,
    placeDock,
    drawAhead,
    showProblem,
    paintComing: () => {
      edgeLayer.paintComing();
      compare.paintComing();
    },
    setOnScreen: (/** @type {boolean} */ on) => {
      edgeLayer.setOnScreen(on);
      compare.setOnScreen(on);
    },
    drawAheadCompare: (/** @type {Array<() => import("./frames.js").LayerFrame>} */ frames) =>
      compare.drawAhead(frames, dark),
    pictureOf,
    destroy: () => {
      controls.destroy();
      compareControls.destroy();
      compare.destroy();
      pending.destroy();
      edgeLayer.destroy();
    },
  };
}
