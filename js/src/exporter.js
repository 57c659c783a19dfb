// Pictures of the current view: an SVG document (vector, labels as text) and a PNG
// (twice the screen resolution). Both draw the scene the canvas shows, plus the labels the
// page shows as DOM text.

import { PANE_GAP as COMPARE_GAP } from "./compare.js";
import { CONTEXT_OPACITY, edgeStyle } from "./draw.js";
import { LEGEND_HEIGHT, legendWidth, paintLegend, svgLegend } from "./export_legend.js";
import { PANEL_GAP } from "./image.js";
import { paintImagePanel, panelPicture, svgImagePanel } from "./image_draw.js";
import { edgeEndY, FOCUS_CLEARANCE, HEADER_HEIGHT, isDrawn, isLabelled, LABEL_GAP, rowCenter } from "./layout.js";
import { drawScene, isHighlighted } from "./scene.js";
import { displayToken, svgDrawing, textMeasure, wrapText, xmlText } from "./text.js";

/** Room below the plot for the caption's first line, and for each line it wraps onto. */
const CAPTION_HEIGHT = 24;
const CAPTION_LINE = 16;

/**
 * @typedef {object} Picture
 * @property {import("./scene.js").Scene} scene
 * @property {string[]} tokens
 * @property {[string, string]} titles
 * @property {boolean} [titleAtEdge]  the right title ends at the graph's right edge (long titles)
 * @property {string} caption
 * @property {string} foreground
 * @property {string} background
 * @property {import("./image.js").ImageScene | null} [image]  the image panel, drawn right of the graph
 * @property {import("./export_legend.js").LegendSpec | null} [legend]  the edge colour scale, drawn below the caption
 * @property {string} [heading]  a comparison's name of the first pane (compare.js), drawn above it
 * @property {import("./compare_pane.js").PanePicture | null} [compare]  a comparison's second pane, right of the first
 * @property {{ text: string, x: number, y: number, anchor: "start" | "end" }[]} [notes]  more text on the (first) pane:
 *   the markers of edges to tokens outside the rows shown
 * @property {{ side: "source" | "target", index: number } | null} [pinned]  the pinned token: labelled (in bold)
 *   on a thinned row too, as on screen
 */

/** Room above the panes of a comparison for their headings. */
const HEADING_HEIGHT = 20;

/** The panes of a picture, left to right, with their x and their token labels. @param {Picture} picture */
function panesOf(picture) {
  const panes = [
    {
      scene: picture.scene,
      titles: picture.titles,
      titleAtEdge: picture.titleAtEdge ?? false,
      heading: picture.heading ?? "",
      notes: picture.notes ?? [],
      pinned: picture.pinned ?? null,
      x: 0,
    },
  ];
  if (picture.compare) {
    const { scene, titles, heading, titleAtEdge } = picture.compare;
    const x = picture.scene.layout.width + COMPARE_GAP;
    panes.push({ scene, titles, titleAtEdge, heading, notes: [], pinned: picture.pinned ?? null, x });
  }
  return panes;
}

/**
 * The whole picture's size and where its caption goes: the graph, and the image panel beside it.
 * @param {Picture} picture
 */
function frameOf(picture) {
  const { scene, image, legend } = picture;
  const panel = image ? panelPicture(image) : null;
  const top = picture.heading ? HEADING_HEIGHT : 0;
  const graphWidth = picture.compare
    ? picture.scene.layout.width + COMPARE_GAP + picture.compare.scene.layout.width
    : scene.layout.width;
  const body = Math.max(
    top + Math.max(scene.layout.height, picture.compare?.scene.layout.height ?? 0),
    panel?.height ?? 0,
  );
  const panelX = graphWidth + PANEL_GAP;
  return {
    width: image ? panelX + image.layout.width : graphWidth,
    body,
    height: body + CAPTION_HEIGHT + (legend ? LEGEND_HEIGHT : 0),
    panelX,
    top,
  };
}

/**
 * frameOf with the caption wrapped to the picture's width: its lines, and the height they add.
 * @param {Picture} picture @param {(text: string) => number} measure  a 12 px text's width
 */
function framedCaption(picture, measure) {
  const frame = frameOf(picture);
  // A narrow graph's picture is widened to its legend's width, not the legend cut.
  const width = Math.ceil(Math.max(frame.width, picture.legend ? legendWidth(picture.legend, measure) : 0));
  const lines = wrapText(picture.caption, width, measure);
  const extra = (lines.length - 1) * CAPTION_LINE;
  return { ...frame, width, height: frame.height + extra, lines, legendY: frame.body + CAPTION_HEIGHT + extra };
}

/** Width of the background-coloured outline round a note's letters, so that it reads over the edges it lies on. */
const HALO_WIDTH = 4;

/**
 * Token labels beside the outer columns, for the rows the view shows, and the pane's notes (these with
 * `halo`: they lie over edges, as the on-screen markers do over their own background).
 * @param {{ scene: import("./scene.js").Scene, tokens: string[], notes?: { text: string, x: number, y: number, anchor: "start" | "end" }[], pinned?: Picture["pinned"] }} pane
 * @returns {{ text: string, x: number, y: number, anchor: "start" | "end", halo?: boolean, bold?: boolean }[]}
 */
function labelsOf({ scene, tokens, notes = [], pinned = null }) {
  const { layout } = scene;
  const at = pinned && pinned.index >= layout.first && pinned.index <= layout.last ? pinned : null;
  /** Is row i labelled in a column? Every labelEvery-th row, and the pinned token, whose neighbours give way. @param {number} i @param {string} side */
  const shown = (i, side) =>
    at?.side !== side
      ? isLabelled(layout, i)
      : i === at.index || (isLabelled(layout, i) && Math.abs(i - at.index) * layout.rowHeight >= FOCUS_CLEARANCE);
  const labels = [];
  for (let i = layout.first; i <= layout.last; i++) {
    const text = displayToken(tokens[i]);
    const y = rowCenter(layout, i);
    // Bold where it is thinned out: the one label among unlabelled rows.
    const bold = i === at?.index && !isLabelled(layout, i);
    if (shown(i, "source"))
      labels.push({ text, x: layout.leftX - LABEL_GAP, y, anchor: /** @type {const} */ ("end"), bold });
    if (shown(i, "target"))
      labels.push({ text, x: layout.rightX + LABEL_GAP, y, anchor: /** @type {const} */ ("start"), bold });
  }
  return [...labels, ...notes.map((note) => ({ ...note, halo: true }))];
}

/**
 * @param {Document} doc
 * @param {Picture} picture
 * @returns {string} a standalone SVG document, valid XML whatever text the picture holds
 */
export function svgOf(doc, picture) {
  const { width, height, body, panelX, top, lines, legendY } = framedCaption(picture, textMeasure(doc));
  const { svg, add } = svgDrawing(doc, width, height, picture.background);
  /** @param {string} content @param {number} x @param {number} y @param {string} anchor @param {string} [weight] @param {Element} [parent] @param {boolean} [halo] */
  const text = (content, x, y, anchor, weight = "normal", parent = svg, halo = false) => {
    /** @type {Record<string, string | number>} */
    const outline = halo
      ? { stroke: picture.background, "stroke-width": HALO_WIDTH, "paint-order": "stroke", "stroke-linejoin": "round" }
      : {};
    const node = add(
      "text",
      {
        x,
        y,
        "text-anchor": anchor,
        "dominant-baseline": "middle",
        fill: picture.foreground,
        "font-weight": weight,
        ...outline,
      },
      parent,
    );
    node.textContent = xmlText(content); // serialised with escaping: token text stays text
  };
  panesOf(picture).forEach((pane, p) => {
    if (pane.heading) text(pane.heading, pane.x, HEADING_HEIGHT / 2, "start", "bold");
    const g = top || pane.x ? add("g", { transform: `translate(${pane.x} ${top})` }, svg) : svg;
    svgPane(
      add,
      g,
      { ...pane, tokens: picture.tokens },
      `attnw-band${p ? `-${p}` : ""}`,
      picture.foreground,
      (content, x, y, anchor, weight, halo) => text(content, x, y, anchor, weight, g, halo),
    );
  });
  if (picture.image) svgImagePanel(add, svg, picture.image, panelX, 0, text);
  lines.forEach((line, i) => {
    text(line, 0, body + 12 + i * CAPTION_LINE, "start");
    svg.lastElementChild?.setAttribute("class", "attnw-caption-line");
  });
  if (picture.legend) svgLegend(add, svg, picture.legend, 0, legendY, text);
  return new (doc.defaultView ?? globalThis).XMLSerializer().serializeToString(svg);
}

/**
 * One pane's edges, dots, rules, column numbers, titles and token labels, in its own coordinates.
 * @param {(tag: string, attributes: Record<string, string | number>, parent: Element) => Element} add
 * @param {Element} parent
 * @param {{ scene: import("./scene.js").Scene, tokens: string[], titles: [string, string], titleAtEdge: boolean, notes: { text: string, x: number, y: number, anchor: "start" | "end" }[] }} pane
 * @param {string} clipId
 * @param {string} foreground
 * @param {(content: string, x: number, y: number, anchor: string, weight?: string, halo?: boolean) => void} text
 */
function svgPane(add, parent, pane, clipId, foreground, text) {
  const { scene } = pane;
  const { layout } = scene;
  // Edges stay inside the plot band, as on screen (a token window leaves rows outside it).
  const clip = add("clipPath", { id: clipId }, add("defs", {}, parent));
  add("rect", { x: 0, y: HEADER_HEIGHT, width: layout.width, height: layout.height - HEADER_HEIGHT }, clip);
  const group = add("g", { fill: "none", "stroke-linecap": "round", "clip-path": `url(#${clipId})` }, parent);
  const options = { table: scene.table, signed: scene.signed };
  // Under a highlight the other edges are grey context, one group at CONTEXT_OPACITY, as on screen.
  const highlighted = isHighlighted(scene);
  const context = highlighted ? add("g", { opacity: CONTEXT_OPACITY }, group) : group;
  for (const bundle of scene.bundles) {
    const { edges, wideFrom, focusScale } = bundle;
    const highlight = highlighted ? (bundle.highlight ?? new Set()) : null;
    const { leftX, rightX } = bundle.layout;
    const midX = (leftX + rightX) / 2;
    if (edges.max <= 0) continue;
    // Context first, highlighted edges on top, as the canvas draws them.
    for (const strong of [false, true]) {
      for (let e = 0; e < edges.count; e++) {
        if ((highlight?.has(e) ?? false) !== strong) continue;
        const style = edgeStyle(edges.weight[e], edges.max, { ...options, highlight, wideFrom, focusScale }, strong);
        if (!isDrawn(bundle.layout, edges.source[e], edges.target[e])) continue;
        const y0 = edgeEndY(bundle.layout, edges.source[e]);
        const y1 = edgeEndY(bundle.layout, edges.target[e]);
        const d = `M${leftX} ${y0}C${midX} ${y0} ${midX} ${y1} ${rightX} ${y1}`;
        const stroke = {
          d,
          stroke: style.color,
          "stroke-opacity": style.alpha.toFixed(3),
          "stroke-width": style.width.toFixed(2),
        };
        add("path", stroke, strong ? group : context);
      }
    }
  }
  for (const dot of scene.dots) {
    if (dot.radius > 0)
      add(
        "circle",
        { cx: dot.x, cy: dot.y, r: dot.radius.toFixed(2), fill: dot.color, "fill-opacity": dot.alpha },
        parent,
      );
  }
  for (const y of scene.rules)
    add(
      "line",
      { x1: 0, x2: layout.width, y1: y, y2: y, stroke: foreground, "stroke-opacity": 0.5, "stroke-dasharray": "4 4" },
      parent,
    );
  for (const mark of scene.marks) text(mark.text, mark.x, mark.y, "middle");
  text(pane.titles[0], 0, 10, "start", "bold");
  if (pane.titleAtEdge) text(pane.titles[1], layout.width, 10, "end", "bold");
  else text(pane.titles[1], layout.rightX + LABEL_GAP, 10, "start", "bold");
  for (const label of labelsOf(pane))
    text(label.text, label.x, label.y, label.anchor, label.bold ? "bold" : "normal", label.halo);
}

/**
 * Draw the picture on a canvas at `scale` times its size.
 * @param {HTMLCanvasElement} canvas
 * @param {Picture} picture
 * @param {number} scale
 */
export function paintPng(canvas, picture, scale = 2) {
  const ctx = canvas.getContext("2d");
  if (!ctx) return;
  ctx.font = "12px sans-serif";
  const { width, height, body, panelX, top, lines, legendY } = framedCaption(
    picture,
    (text) => ctx.measureText(text).width,
  );
  canvas.width = Math.round(width * scale); // resets the context's state
  canvas.height = Math.round(height * scale);
  ctx.setTransform(scale, 0, 0, scale, 0, 0);
  ctx.fillStyle = picture.background;
  ctx.fillRect(0, 0, width, height);
  for (const pane of panesOf(picture)) {
    const { layout } = pane.scene;
    ctx.fillStyle = picture.foreground;
    ctx.textBaseline = "middle";
    ctx.textAlign = "left";
    ctx.font = "bold 12px sans-serif";
    if (pane.heading) ctx.fillText(pane.heading, pane.x, HEADING_HEIGHT / 2);
    ctx.setTransform(scale, 0, 0, scale, pane.x * scale, top * scale);
    drawScene(ctx, pane.scene);
    ctx.fillStyle = picture.foreground;
    ctx.textBaseline = "middle";
    ctx.font = "bold 12px sans-serif";
    ctx.fillText(pane.titles[0], 0, 10);
    ctx.textAlign = pane.titleAtEdge ? "right" : "left";
    ctx.fillText(pane.titles[1], pane.titleAtEdge ? layout.width : layout.rightX + LABEL_GAP, 10);
    ctx.textAlign = "left";
    ctx.font = "12px sans-serif";
    for (const label of labelsOf({ ...pane, tokens: picture.tokens })) {
      ctx.textAlign = label.anchor === "end" ? "right" : "left";
      ctx.font = label.bold ? "bold 12px sans-serif" : "12px sans-serif";
      if (label.halo) {
        Object.assign(ctx, { strokeStyle: picture.background, lineWidth: HALO_WIDTH, lineJoin: "round" });
        ctx.strokeText(label.text, label.x, label.y);
      }
      ctx.fillText(label.text, label.x, label.y);
    }
    ctx.setTransform(scale, 0, 0, scale, 0, 0);
  }
  ctx.textAlign = "left";
  if (picture.image) paintImagePanel(ctx, picture.image, panelX, 0, picture.foreground);
  ctx.fillStyle = picture.foreground;
  ctx.font = "12px sans-serif";
  ctx.textBaseline = "middle";
  lines.forEach((line, i) => {
    ctx.fillText(line, 0, body + 12 + i * CAPTION_LINE);
  });
  if (picture.legend) paintLegend(ctx, picture.legend, 0, legendY, picture.foreground);
}

/**
 * Offer a file for download through a temporary link inside the widget (not the page's body:
 * the widget writes nothing outside its element). Notebook hosts, VS Code's webviews
 * included, turn a click on a blob link into a download.
 * @param {HTMLElement} container
 * @param {Blob} blob
 * @param {string} name
 */
export function download(container, blob, name) {
  const url = URL.createObjectURL(blob);
  const link = container.ownerDocument.createElement("a");
  link.href = url;
  link.download = name;
  link.hidden = true;
  container.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
