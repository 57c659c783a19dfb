// anywidget entry point: wires the model to the controls, the canvas and the
// overlays. No maths and no byte layouts here.

import { decodeEnvelope, rowCoverage, rowEntries } from "./codec.js";
import { colormap, prefersDarkTable } from "./colormap.js";
import { createControls } from "./controls.js";
import { drawDegrees, drawEdges } from "./draw.js";
import { degreesOf, edgesOfNode, filterEdges, sliceEdges } from "./edges.js";
import { computeLayout, nodeAt } from "./layout.js";
import {
  element,
  formatValue,
  markHovered,
  markTarget,
  renderLabels,
  renderLegend,
  renderTitles,
  renderTooltip,
} from "./overlay.js";
import { download, paintPng, svgOf } from "./exporter.js";
import { createPending } from "./pending.js";
import { currentScores, renderStrip, renderStripStatus } from "./strip.js";
import { drawColumnNumbers, drawNodes, modelLayout, modelNodeAt, tracePaths, transition } from "./model_view.js";
import { columnTitles, headLabel, isAvailable, MEAN_HEAD, pinnedModelNode, pinnedNode, readState, sliceIndex } from "./state.js";

const DEFAULT_WIDTH = 640;
const REDRAW_ON = [
  "layer",
  "head",
  "method",
  "tokens",
  "methods",
  "n_layers",
  "n_heads",
  "ready",
  "job",
  "targets",
  "target",
  "attribution",
  "attribution_data",
  "top_k",
  "threshold",
  "specials",
  "selected",
  "binarize_threshold",
  "node_size",
  "window",
];

/** @type {import("./edges.js").EdgeList} */
const NO_EDGES = {
  source: new Uint16Array(0),
  target: new Uint16Array(0),
  weight: new Float64Array(0),
  count: 0,
  max: 0,
};

/**
 * @param {{ model: import("./state.js").WidgetModel, el: HTMLElement }} context
 * @returns {() => void} cleanup
 */
export function render({ model, el }) {
  const doc = el.ownerDocument;
  const win = /** @type {Window} */ (doc.defaultView);
  const root = element(doc, "div", "attnw-root");
  const controls = createControls(doc, model);
  const caption = element(doc, "div", "attnw-caption");
  const plot = element(doc, "div", "attnw-plot");
  const canvas = /** @type {HTMLCanvasElement} */ (element(doc, "canvas", "attnw-canvas"));
  canvas.setAttribute("role", "img");
  const titleLeft = element(doc, "div", "attnw-title attnw-title-left");
  const titleRight = element(doc, "div", "attnw-title attnw-title-right");
  const strip = element(doc, "div", "attnw-strip");
  const stripStatus = element(doc, "div", "attnw-strip-status");
  const labelsLeft = element(doc, "div", "attnw-labels attnw-labels-left");
  const labelsRight = element(doc, "div", "attnw-labels attnw-labels-right");
  const tooltip = element(doc, "div", "attnw-tooltip");
  tooltip.setAttribute("role", "status");
  tooltip.hidden = true;
  const legend = element(doc, "div", "attnw-legend");
  const savePng = /** @type {HTMLButtonElement} */ (element(doc, "button", "attnw-save attnw-save-png", "PNG"));
  const saveSvg = /** @type {HTMLButtonElement} */ (element(doc, "button", "attnw-save attnw-save-svg", "SVG"));
  savePng.title = "Download the current view as a PNG picture";
  saveSvg.title = "Download the current view as an SVG drawing (labels as text)";
  controls.root.append(savePng, saveSvg);
  const pending = createPending(doc, model);
  plot.append(canvas, strip, titleLeft, titleRight, labelsLeft, labelsRight, tooltip, pending.root);
  root.append(controls.root, caption, plot, legend, stripStatus);
  el.append(root);

  /** @type {Map<string, import("./codec.js").Envelope>} decoded once per method */
  const envelopes = new Map();
  /** @type {{ side: "source" | "target", index: number } | null} */
  let hovered = null;
  /** @type {ReturnType<typeof frame> | null} */
  let current = null;
  let scheduled = 0;
  let labelsKey = "";

  /** @param {string} trait */
  const envelope = (trait) => {
    let env = envelopes.get(trait);
    if (!env) {
      env = decodeEnvelope(model.get(trait));
      envelopes.set(trait, env);
    }
    return env;
  };

  /**
   * The method's per-row quantity (e.g. attention removed by effective attention) for one slice.
   * @param {import("./state.js").ViewState} state
   * @param {number} slice
   * @returns {Float64Array | null}
   */
  const rowValues = (state, slice) => {
    if (!state.method.row_label) return null;
    const env = envelope(`data_${state.method.id}_rows`);
    const out = new Float64Array(env.rows);
    for (let r = 0; r < env.rows; r++) out[r] = rowEntries(env, slice, r).values[0];
    return out;
  };

  /** @param {import("./layout.js").Layout} layout */
  const sizeCanvas = (layout) => {
    const dpr = win.devicePixelRatio || 1;
    canvas.style.width = `${layout.width}px`;
    canvas.style.height = `${layout.height}px`;
    canvas.width = Math.round(layout.width * dpr);
    canvas.height = Math.round(layout.height * dpr);
    Object.assign(canvas.dataset, {
      leftX: String(layout.leftX),
      rightX: String(layout.rightX),
      top: String(layout.top),
      rowHeight: String(layout.rowHeight),
    });
    plot.style.height = `${layout.height}px`;
  };

  /** Token labels of both outer columns, rebuilt only when they change. */
  const relabel = (layout, state) => {
    const key = JSON.stringify([layout.width, layout.n, layout.first, layout.last, state.tokens]);
    if (key !== labelsKey) {
      labelsKey = key;
      renderLabels(labelsLeft, layout, state.tokens, state.special, "source");
      renderLabels(labelsRight, layout, state.tokens, state.special, "target");
    }
  };

  // Everything one picture needs, rebuilt when the selection changes.
  const frame = () => {
    const state = readState(model);
    const available = isAvailable(state);
    const layout = computeLayout(el.clientWidth || DEFAULT_WIDTH, state.tokens.length, state.window);
    const slice = sliceIndex(state);
    if (!available) {
      return { state, available, env: null, slice, edges: NO_EDGES, layout, meanCoverage: 1, minCoverage: 1, rows: null };
    }
    const env = envelope(`data_${state.method.id}`);
    const stored = sliceEdges(env, slice);
    const edges = filterEdges(stored, {
      topK: state.topK,
      threshold: state.threshold,
      specials: state.specials,
      special: state.special,
    });
    let sum = 0;
    let min = 1;
    for (let r = 0; r < env.rows; r++) {
      const c = rowCoverage(env, slice, r);
      sum += c;
      min = Math.min(min, c);
    }
    const rows = rowValues(state, slice);
    const degrees = state.nodeSize ? degreesOf(stored, layout.n, state.nodeSize) : null;
    return { state, available, env, slice, edges, layout, meanCoverage: sum / env.rows, minCoverage: min, rows, degrees };
  };

  /** Per-layer edges of the whole-model view (cumulative methods: the head-averaged attention). */
  const modelFrame = () => {
    const state = readState(model);
    const layout = modelLayout(computeLayout(el.clientWidth || DEFAULT_WIDTH, state.tokens.length, state.window), state.nLayers);
    const graphMethod = state.method.cumulative ? state.methods.find((m) => m.id === "raw") ?? state.method : state.method;
    const graphState = { ...state, method: graphMethod, head: state.method.cumulative ? MEAN_HEAD : state.head };
    const env = envelope(`data_${graphMethod.id}`);
    const filter = { topK: state.topK, threshold: state.threshold, specials: state.specials, special: state.special };
    const perLayer = Array.from({ length: state.nLayers }, (_, l) =>
      filterEdges(sliceEdges(env, sliceIndex({ ...graphState, layer: l + 1 })), filter),
    );
    const cumulative = state.method.cumulative ? envelope(`data_${state.method.id}`) : null;
    const ready = state.ready[state.method.id];
    return { state, layout, env, perLayer, cumulative, ready };
  };

  const paint = () => {
    const started = win.performance.now();
    scheduled = 0;
    if (readState(model).view === "model") {
      paintModel();
      root.dataset.paintEnd = String(win.performance.now());
      root.dataset.paintMs = (win.performance.now() - started).toFixed(3);
      return;
    }
    current = frame();
    const { state, available, env, slice, edges, layout } = current;
    controls.update(state);
    pending.update(state, available, state.job);
    const signed = env?.signed ?? false;
    const dark = prefersDarkTable(win.getComputedStyle(root).color);
    const table = colormap(signed ? "diverging" : dark ? "dark" : "light");
    const titles = columnTitles(state);

    const dpr = win.devicePixelRatio || 1;
    sizeCanvas(layout);
    Object.assign(canvas.dataset, {
      leftX: String(layout.leftX),
      rightX: String(layout.rightX),
      top: String(layout.top),
      rowHeight: String(layout.rowHeight),
      edges: String(edges.count),
      view: "layer",
    });
    canvas.setAttribute(
      "aria-label",
      `${state.method.label}, layer ${state.layer} of ${state.nLayers}, ${headLabel(state)}: ${edges.count} edges between ${state.tokens.length} tokens`,
    );

    const pinned = pinnedNode(state);
    const focus = hovered ?? pinned;
    const highlight = focus ? new Set([...(pinned ? edgesOfNode(edges, pinned) : []), ...(hovered ? edgesOfNode(edges, hovered) : [])]) : null;
    const ctx = canvas.getContext("2d");
    if (ctx) {
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      drawEdges(ctx, layout, edges, { table, signed, highlight });
      if (current.degrees) drawDegrees(ctx, layout, current.degrees, dark ? "#e6e6e6" : "#333333");
    }

    const chosen = state.targets.find((t) => t.id === state.target);
    const scores = currentScores(state.attributionData, state.target, state.attribution);
    renderStrip(strip, layout, scores);
    renderStripStatus(stripStatus, state.attributionData, state.attribution, chosen?.label ?? "", scores);
    relabel(layout, state);
    titleRight.style.left = `${layout.rightX + 6}px`;
    renderTitles(titleLeft, titleRight, titles);
    markHovered(root, focus, pinned);
    markTarget(labelsRight, state.attribution && chosen ? chosen.position : null);
    const dots = current.degrees
      ? ` · dots: ${state.nodeSize === "in" ? "in-degree of the right column (row sums)" : "out-degree of the left column (column sums, attention received)"}, largest ${formatValue(current.degrees.max)}`
      : "";
    const note = (state.method.note ? ` · ${state.method.note}` : "") + dots;
    caption.textContent = `${state.method.label} · layer ${state.layer} of ${state.nLayers} · ${headLabel(state)} · ${state.causal ? "decoder (causal)" : "encoder"}${note}`;
    caption.title = state.method.description;
    legend.hidden = !available;
    renderLegend(legend, {
      table,
      signed,
      max: edges.max,
      meanCoverage: current.meanCoverage,
      minCoverage: current.minCoverage,
      edgeCount: edges.count,
      drawnShare: edges.drawnShare ?? 1,
      rowLabel: state.method.row_label,
      rowMean: current.rows ? current.rows.reduce((a, b) => a + b, 0) / current.rows.length : null,
    });
    if (focus && env) {
      renderTooltip(tooltip, {
        node: focus,
        tokens: state.tokens,
        edges,
        touching: edgesOfNode(edges, focus),
        columnTitle: focus.side === "source" ? titles[0] : titles[1],
        coverage: rowCoverage(env, slice, focus.index),
        rowNote: current.rows && focus.side === "target" ? [state.method.row_label, current.rows[focus.index]] : null,
        scoreNote: scores ? ["token score", scores[focus.index]] : null,
        pinned: pinned !== null && focus.side === pinned.side && focus.index === pinned.index,
      });
      placeTooltip(focus);
    } else {
      tooltip.hidden = true;
    }
    // For benchmarks and tests: when the last picture was finished and how long it took.
    root.dataset.paintEnd = String(win.performance.now());
    root.dataset.paintMs = (win.performance.now() - started).toFixed(3);
  };

  /** The whole-model view: all layers as columns. */
  const paintModel = () => {
    const m = modelFrame();
    current = { state: m.state, available: true, env: m.env, slice: 0, edges: m.perLayer[0], layout: m.layout, meanCoverage: 1, minCoverage: 1, rows: null, model: m };
    const { state, layout, perLayer } = m;
    controls.update(state);
    pending.root.hidden = true;
    const dark = prefersDarkTable(win.getComputedStyle(root).color);
    const signed = m.env.signed;
    const table = colormap(signed ? "diverging" : dark ? "dark" : "light");
    const ink = dark ? "#e6e6e6" : "#333333";
    sizeCanvas(layout);
    const pinned = pinnedModelNode(state);
    const focus = (hovered && "layer" in hovered ? hovered : null) ?? pinned;
    const traced = focus ? tracePaths(perLayer, focus) : null;
    let edgeCount = 0;
    const ctx = canvas.getContext("2d");
    if (ctx) {
      const dpr = win.devicePixelRatio || 1;
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.clearRect(0, 0, layout.width, layout.height);
      perLayer.forEach((edges, l) => {
        edgeCount += edges.count;
        drawEdges(ctx, transition(layout, l + 1), edges, { table, signed, highlight: traced ? traced[l] : null }, false);
      });
      drawNodes(ctx, layout, shading(m, focus), ink, colormap(dark ? "dark" : "light"));
      drawColumnNumbers(ctx, layout, ink);
    }
    Object.assign(canvas.dataset, { edges: String(edgeCount), view: "model", columns: JSON.stringify(layout.columns) });
    canvas.setAttribute("aria-label", `${state.method.label}, all ${state.nLayers} layers as columns: ${edgeCount} edges between ${state.tokens.length} tokens per layer`);
    relabel(layout, state);
    renderTitles(titleLeft, titleRight, ["Input (layer 0)", `Layer ${state.nLayers}`]);
    titleRight.style.left = `${layout.rightX + 6}px`;
    markHovered(root, null);
    markTarget(labelsRight, null);
    const graph = state.method.cumulative ? "edges: head-averaged attention; dots: how much of the focused input reaches each token" : headLabel(state);
    caption.textContent = `${state.method.label} · whole model, ${state.nLayers} layers · ${graph} · colours scaled per layer`;
    legend.hidden = false;
    renderLegend(legend, { table, signed, max: Math.max(...perLayer.map((e) => e.max)), meanCoverage: 1, minCoverage: 1, edgeCount });
    renderStrip(strip, layout, null);
    stripStatus.hidden = true;
    if (focus) {
      const edges = perLayer[Math.max(0, focus.layer - 1)];
      const node = focus.layer === 0 ? { side: /** @type {const} */ ("source"), index: focus.index } : { side: /** @type {const} */ ("target"), index: focus.index };
      renderTooltip(tooltip, {
        node,
        tokens: state.tokens,
        edges,
        touching: edgesOfNode(edges, node),
        columnTitle: focus.layer === 0 ? "input token" : `after layer ${focus.layer}`,
        coverage: 1,
        pinned: pinned !== null && pinned.layer === focus.layer && pinned.index === focus.index,
      });
      const x = layout.columns[focus.layer];
      tooltip.style.top = `${Math.min(layout.top + (focus.index + 1) * layout.rowHeight + 4, Math.max(0, layout.height - 40))}px`;
      tooltip.style.left = x < layout.width / 2 ? `${x + 8}px` : "";
      tooltip.style.right = x >= layout.width / 2 ? `${layout.width - x + 8}px` : "";
    } else {
      tooltip.hidden = true;
    }
  };

  /** Node shading of cumulative methods for the focused node, or null. */
  const shading = (m, focus) => {
    if (!m.cumulative || !focus) return null;
    const { state } = m;
    const n = state.tokens.length;
    const shade = Array.from({ length: state.nLayers + 1 }, () => new Array(n).fill(0));
    const has = (layer) => m.ready === undefined || m.ready.includes(layer);
    if (focus.layer === 0) {
      shade[0][focus.index] = 1;
      for (let layer = 1; layer <= state.nLayers; layer++) {
        if (!has(layer)) continue;
        let max = 0;
        for (let i = 0; i < n; i++) {
          const { cols, values } = rowEntries(m.cumulative, layer - 1, i);
          for (let k = 0; k < values.length; k++) if (cols[k] === focus.index) shade[layer][i] = values[k];
          max = Math.max(max, shade[layer][i]);
        }
        if (max > 0) shade[layer] = shade[layer].map((v) => v / max);
      }
    } else if (has(focus.layer)) {
      shade[focus.layer][focus.index] = 1;
      const { cols, values } = rowEntries(m.cumulative, focus.layer - 1, focus.index);
      let max = 0;
      for (let k = 0; k < values.length; k++) max = Math.max(max, Math.abs(values[k]));
      for (let k = 0; k < values.length; k++) shade[0][cols[k]] = max > 0 ? Math.abs(values[k]) / max : 0;
    }
    return shade;
  };

  const schedule = () => {
    if (!scheduled) scheduled = win.requestAnimationFrame ? win.requestAnimationFrame(paint) : win.setTimeout(paint, 0);
  };

  /** @param {{ side: "source" | "target", index: number }} node */
  const placeTooltip = (node) => {
    if (!current) return;
    const { layout } = current;
    const y = layout.top + (node.index + 1) * layout.rowHeight + 4;
    tooltip.style.top = `${Math.min(y, Math.max(0, layout.height - 40))}px`;
    tooltip.style.left = node.side === "source" ? `${layout.leftX + 8}px` : "";
    tooltip.style.right = node.side === "target" ? `${layout.width - layout.rightX + 8}px` : "";
  };

  /** @param {object} value */
  const commitSelected = (value) => {
    model.set("selected", value);
    model.save_changes();
  };
  /** Pin a token, or unpin it when it is the pinned one. @param {{ side: "source" | "target", index: number }} node */
  const togglePin = (node) => {
    const state = readState(model);
    const pinned = state.view === "model" ? pinnedModelNode(state) : pinnedNode(state);
    commitSelected(JSON.stringify(pinned) === JSON.stringify(node) ? {} : node);
  };
  /** @param {MouseEvent} event */
  const onClick = (event) => {
    if (!current) return;
    const box = plot.getBoundingClientRect();
    const x = event.clientX - box.left;
    const y = event.clientY - box.top;
    const node = current.model ? modelNodeAt(current.model.layout, x, y) : nodeAt(current.layout, x, y);
    if (node) togglePin(node);
  };
  /** Keyboard: arrows move between tokens and columns, Enter pins, Escape unpins. @param {KeyboardEvent} event */
  const onKey = (event) => {
    const state = readState(model);
    const n = state.tokens.length;
    const inModel = state.view === "model";
    // The first key press starts at the pinned (or first) token; later ones move from there.
    const mine = hovered && inModel === ("layer" in hovered) ? hovered : null;
    const at = mine ?? (inModel ? pinnedModelNode(state) : pinnedNode(state)) ?? (inModel ? { layer: state.nLayers, index: 0 } : { side: "target", index: 0 });
    const step = mine ? 1 : 0;
    const across = (/** @type {number} */ direction) =>
      inModel
        ? { layer: Math.max(0, Math.min(state.nLayers, at.layer + direction * step)), index: at.index }
        : { side: direction < 0 ? "source" : "target", index: at.index };
    let next = null;
    if (event.key === "ArrowDown") next = { ...at, index: Math.min(n - 1, at.index + step) };
    else if (event.key === "ArrowUp") next = { ...at, index: Math.max(0, at.index - step) };
    else if (event.key === "ArrowLeft") next = across(-1);
    else if (event.key === "ArrowRight") next = across(1);
    else if (event.key === "Enter" || event.key === " ") togglePin(at);
    else if (event.key === "Escape") {
      hovered = null;
      commitSelected({});
    } else return;
    event.preventDefault();
    if (next) {
      hovered = next;
      schedule();
    }
  };

  /** @param {PointerEvent} event */
  const onPointerMove = (event) => {
    if (!current) return;
    const box = plot.getBoundingClientRect();
    const x = event.clientX - box.left;
    const y = event.clientY - box.top;
    const node = current.model ? modelNodeAt(current.model.layout, x, y) : nodeAt(current.layout, x, y);
    if (JSON.stringify(node) === JSON.stringify(hovered)) return;
    hovered = node;
    schedule();
  };
  const onPointerLeave = () => {
    if (hovered) {
      hovered = null;
      schedule();
    }
  };
  /** The current view as a picture description, for the download buttons. */
  const picture = () => {
    if (!current) current = frame();
    const { state, env, edges, layout } = current;
    const style = win.getComputedStyle(root);
    const dark = prefersDarkTable(style.color);
    return {
      layout,
      edges,
      tokens: state.tokens,
      titles: columnTitles(state),
      caption: caption.textContent ?? "",
      options: { table: colormap(env?.signed ? "diverging" : dark ? "dark" : "light"), signed: env?.signed ?? false, highlight: null },
      foreground: dark ? "#e6e6e6" : "#111111",
      background: dark ? "#111111" : "#ffffff",
    };
  };
  const fileName = () => {
    const state = readState(model);
    return `attention-${state.method.id}-layer${state.layer}`;
  };
  const onSavePng = () => {
    const canvas = /** @type {HTMLCanvasElement} */ (doc.createElement("canvas"));
    paintPng(canvas, picture());
    canvas.toBlob((blob) => blob && download(doc, blob, `${fileName()}.png`), "image/png");
  };
  const onSaveSvg = () => {
    download(doc, new Blob([svgOf(doc, picture())], { type: "image/svg+xml" }), `${fileName()}.svg`);
  };
  savePng.addEventListener("click", onSavePng);
  saveSvg.addEventListener("click", onSaveSvg);
  plot.addEventListener("pointermove", onPointerMove);
  plot.addEventListener("pointerleave", onPointerLeave);
  plot.addEventListener("click", onClick);
  plot.addEventListener("keydown", onKey);
  plot.tabIndex = 0;
  plot.dataset.lmSuppressShortcuts = "true";
  plot.setAttribute(
    "aria-label",
    "Attention graph. Arrow keys move between tokens and columns, Enter pins a token, Escape unpins.",
  );

  /** @type {Array<[string, () => void]>} */
  const subscriptions = [
    ...REDRAW_ON.map((name) => /** @type {[string, () => void]} */ ([`change:${name}`, schedule])),
  ];
  for (const method of readState(model).methods) {
    const onData = () => {
      envelopes.delete(method.id);
      schedule();
    };
    subscriptions.push([`change:data_${method.id}`, onData]);
  }
  const onView = () => {
    hovered = null;
    schedule();
  };
  subscriptions.push(["change:view", onView]);
  for (const [event, callback] of subscriptions) model.on(event, callback);

  const resize = win.ResizeObserver ? new win.ResizeObserver(schedule) : null;
  resize?.observe(el);
  // Hosts switch themes by changing attributes on <body> or <html> (JupyterLab sets
  // data-jp-theme-light, VS Code a class): repaint so the colour table follows.
  const theme = new win.MutationObserver(schedule);
  for (const node of [doc.documentElement, doc.body]) if (node) theme.observe(node, { attributes: true });

  paint();

  return () => {
    if (scheduled) (win.cancelAnimationFrame ?? win.clearTimeout)(scheduled);
    for (const [event, callback] of subscriptions) model.off(event, callback);
    plot.removeEventListener("pointermove", onPointerMove);
    plot.removeEventListener("pointerleave", onPointerLeave);
    plot.removeEventListener("click", onClick);
    plot.removeEventListener("keydown", onKey);
    savePng.removeEventListener("click", onSavePng);
    saveSvg.removeEventListener("click", onSaveSvg);
    resize?.disconnect();
    theme.disconnect();
    controls.destroy();
    pending.destroy();
    root.remove();
  };
}

export { renderStandalone } from "./standalone.js";
export default { render };
