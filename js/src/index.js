// anywidget entry point: wires the model to the controls, the canvas and the
// overlays. No maths and no byte layouts here.

import { decodeEnvelope, rowCoverage, rowEntries } from "./codec.js";
import { colormap, prefersDarkTable } from "./colormap.js";
import { createControls } from "./controls.js";
import { drawEdges } from "./draw.js";
import { edgesOfNode, filterEdges, sliceEdges } from "./edges.js";
import { computeLayout, nodeAt } from "./layout.js";
import { element, markHovered, markTarget, renderLabels, renderLegend, renderTitles, renderTooltip } from "./overlay.js";
import { download, paintPng, svgOf } from "./exporter.js";
import { createPending } from "./pending.js";
import { currentScores, renderStrip, renderStripStatus } from "./strip.js";
import { columnTitles, headLabel, isAvailable, pinnedNode, readState, sliceIndex } from "./state.js";

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

  // Everything one picture needs, rebuilt when the selection changes.
  const frame = () => {
    const state = readState(model);
    const available = isAvailable(state);
    const layout = computeLayout(el.clientWidth || DEFAULT_WIDTH, state.tokens.length);
    const slice = sliceIndex(state);
    if (!available) {
      return { state, available, env: null, slice, edges: NO_EDGES, layout, meanCoverage: 1, minCoverage: 1, rows: null };
    }
    const env = envelope(`data_${state.method.id}`);
    const edges = filterEdges(sliceEdges(env, slice), {
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
    return { state, available, env, slice, edges, layout, meanCoverage: sum / env.rows, minCoverage: min, rows };
  };

  const paint = () => {
    const started = win.performance.now();
    scheduled = 0;
    current = frame();
    const { state, available, env, slice, edges, layout } = current;
    controls.update(state);
    pending.update(state, available, state.job);
    const signed = env?.signed ?? false;
    const dark = prefersDarkTable(win.getComputedStyle(root).color);
    const table = colormap(signed ? "diverging" : dark ? "dark" : "light");
    const titles = columnTitles(state);

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
      edges: String(edges.count),
    });
    canvas.setAttribute(
      "aria-label",
      `${state.method.label}, layer ${state.layer} of ${state.nLayers}, ${headLabel(state)}: ${edges.count} edges between ${state.tokens.length} tokens`,
    );
    plot.style.height = `${layout.height}px`;

    const pinned = pinnedNode(state);
    const focus = hovered ?? pinned;
    const highlight = focus ? new Set([...(pinned ? edgesOfNode(edges, pinned) : []), ...(hovered ? edgesOfNode(edges, hovered) : [])]) : null;
    const ctx = canvas.getContext("2d");
    if (ctx) {
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      drawEdges(ctx, layout, edges, { table, signed, highlight });
    }

    const chosen = state.targets.find((t) => t.id === state.target);
    const scores = currentScores(state.attributionData, state.target, state.attribution);
    renderStrip(strip, layout, scores);
    renderStripStatus(stripStatus, state.attributionData, state.attribution, chosen?.label ?? "", scores);
    const key = JSON.stringify([layout.width, layout.n, state.tokens]);
    if (key !== labelsKey) {
      labelsKey = key;
      renderLabels(labelsLeft, layout, state.tokens, state.special, "source");
      renderLabels(labelsRight, layout, state.tokens, state.special, "target");
    }
    titleRight.style.left = `${layout.rightX + 6}px`;
    renderTitles(titleLeft, titleRight, titles);
    markHovered(root, focus, pinned);
    markTarget(labelsRight, state.attribution && chosen ? chosen.position : null);
    const note = state.method.note ? ` · ${state.method.note}` : "";
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
    const pinned = pinnedNode(readState(model));
    commitSelected(pinned && pinned.side === node.side && pinned.index === node.index ? {} : node);
  };
  /** @param {MouseEvent} event */
  const onClick = (event) => {
    if (!current) return;
    const box = plot.getBoundingClientRect();
    const node = nodeAt(current.layout, event.clientX - box.left, event.clientY - box.top);
    if (node) togglePin(node);
  };
  /** Keyboard: arrows move between tokens and columns, Enter pins, Escape unpins. @param {KeyboardEvent} event */
  const onKey = (event) => {
    const state = readState(model);
    const n = state.tokens.length;
    const at = hovered ?? pinnedNode(state) ?? { side: "target", index: 0 };
    /** @type {{ side: "source" | "target", index: number } | null} */
    let next = null;
    if (event.key === "ArrowDown") next = { side: at.side, index: Math.min(n - 1, at.index + (hovered ? 1 : 0)) };
    else if (event.key === "ArrowUp") next = { side: at.side, index: Math.max(0, at.index - (hovered ? 1 : 0)) };
    else if (event.key === "ArrowLeft") next = { side: "source", index: at.index };
    else if (event.key === "ArrowRight") next = { side: "target", index: at.index };
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
    const node = nodeAt(current.layout, event.clientX - box.left, event.clientY - box.top);
    if (node?.side === hovered?.side && node?.index === hovered?.index) return;
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
