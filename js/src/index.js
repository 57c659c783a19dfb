// anywidget entry point: wires the model to the controls, the canvas and the
// overlays. No maths and no byte layouts here.

import { decodeEnvelope, rowCoverage, rowEntries } from "./codec.js";
import { colormap, prefersDarkTable } from "./colormap.js";
import { createControls } from "./controls.js";
import { drawEdges } from "./draw.js";
import { edgesOfNode, sliceEdges } from "./edges.js";
import { computeLayout, nodeAt } from "./layout.js";
import { element, markHovered, markTarget, renderLabels, renderLegend, renderTitles, renderTooltip } from "./overlay.js";
import { createPending } from "./pending.js";
import { currentScores, renderStrip, renderStripStatus } from "./strip.js";
import { columnTitles, headLabel, isAvailable, readState, sliceIndex } from "./state.js";

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
    const edges = sliceEdges(env, slice);
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

    const highlight = hovered ? new Set(edgesOfNode(edges, hovered)) : null;
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
    markHovered(root, hovered);
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
      rowLabel: state.method.row_label,
      rowMean: current.rows ? current.rows.reduce((a, b) => a + b, 0) / current.rows.length : null,
    });
    if (hovered && env) {
      renderTooltip(tooltip, {
        node: hovered,
        tokens: state.tokens,
        edges,
        touching: edgesOfNode(edges, hovered),
        columnTitle: hovered.side === "source" ? titles[0] : titles[1],
        coverage: rowCoverage(env, slice, hovered.index),
        rowNote: current.rows && hovered.side === "target" ? [state.method.row_label, current.rows[hovered.index]] : null,
        scoreNote: scores ? ["token score", scores[hovered.index]] : null,
      });
      placeTooltip();
    } else {
      tooltip.hidden = true;
    }
  };

  const schedule = () => {
    if (!scheduled) scheduled = win.requestAnimationFrame ? win.requestAnimationFrame(paint) : win.setTimeout(paint, 0);
  };

  const placeTooltip = () => {
    if (!current || !hovered) return;
    const { layout } = current;
    const y = layout.top + (hovered.index + 1) * layout.rowHeight + 4;
    tooltip.style.top = `${Math.min(y, Math.max(0, layout.height - 40))}px`;
    tooltip.style.left = hovered.side === "source" ? `${layout.leftX + 8}px` : "";
    tooltip.style.right = hovered.side === "target" ? `${layout.width - layout.rightX + 8}px` : "";
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
  plot.addEventListener("pointermove", onPointerMove);
  plot.addEventListener("pointerleave", onPointerLeave);

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
    resize?.disconnect();
    theme.disconnect();
    controls.destroy();
    pending.destroy();
    root.remove();
  };
}

export default { render };
