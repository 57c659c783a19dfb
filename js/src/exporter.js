// Pictures of the current view: an SVG document (vector, labels as text) and a PNG
// (twice the screen resolution). Both are built from the same frame the canvas shows.

import { bucketOf, bucketStyle, drawEdges } from "./draw.js";
import { rowCenter } from "./layout.js";
import { displayToken } from "./overlay.js";

const SVG = "http://www.w3.org/2000/svg";

/**
 * @typedef {object} Picture
 * @property {import("./layout.js").Layout} layout
 * @property {import("./edges.js").EdgeList} edges
 * @property {string[]} tokens
 * @property {[string, string]} titles
 * @property {string} caption
 * @property {import("./draw.js").DrawOptions} options
 * @property {string} foreground
 * @property {string} background
 */

/**
 * @param {Document} doc
 * @param {Picture} picture
 * @returns {string} a standalone SVG document
 */
export function svgOf(doc, picture) {
  const { layout, edges, tokens, titles, caption, options } = picture;
  const height = layout.height + 24;
  const svg = doc.createElementNS(SVG, "svg");
  svg.setAttribute("width", String(layout.width));
  svg.setAttribute("height", String(height));
  svg.setAttribute("viewBox", `0 0 ${layout.width} ${height}`);
  svg.setAttribute("font-family", "sans-serif");
  svg.setAttribute("font-size", "12");
  const background = doc.createElementNS(SVG, "rect");
  background.setAttribute("width", "100%");
  background.setAttribute("height", "100%");
  background.setAttribute("fill", picture.background);
  svg.append(background);
  const midX = (layout.leftX + layout.rightX) / 2;
  const group = doc.createElementNS(SVG, "g");
  group.setAttribute("fill", "none");
  group.setAttribute("stroke-linecap", "round");
  for (let e = 0; e < edges.count; e++) {
    if (edges.max <= 0) break;
    const style = bucketStyle(bucketOf(edges.weight[e], edges.max), Math.sign(edges.weight[e]) || 1, options);
    const y0 = rowCenter(layout, edges.source[e]);
    const y1 = rowCenter(layout, edges.target[e]);
    const path = doc.createElementNS(SVG, "path");
    path.setAttribute("d", `M${layout.leftX} ${y0}C${midX} ${y0} ${midX} ${y1} ${layout.rightX} ${y1}`);
    path.setAttribute("stroke", style.color);
    path.setAttribute("stroke-opacity", style.alpha.toFixed(3));
    path.setAttribute("stroke-width", style.width.toFixed(2));
    group.append(path);
  }
  svg.append(group);
  /** @param {string} content @param {number} x @param {number} y @param {string} anchor @param {string} [weight] */
  const text = (content, x, y, anchor, weight = "normal") => {
    const node = doc.createElementNS(SVG, "text");
    node.setAttribute("x", String(x));
    node.setAttribute("y", String(y));
    node.setAttribute("text-anchor", anchor);
    node.setAttribute("dominant-baseline", "middle");
    node.setAttribute("fill", picture.foreground);
    node.setAttribute("font-weight", weight);
    node.textContent = content; // serialised with escaping: token text stays text
    svg.append(node);
  };
  text(titles[0], 0, 10, "start", "bold");
  text(titles[1], layout.rightX + 6, 10, "start", "bold");
  if (layout.showLabels) {
    tokens.forEach((token, i) => {
      const label = displayToken(token);
      text(label, layout.leftX - 6, rowCenter(layout, i), "end");
      text(label, layout.rightX + 6, rowCenter(layout, i), "start");
    });
  }
  text(caption, 0, layout.height + 12, "start");
  return new (doc.defaultView ?? globalThis).XMLSerializer().serializeToString(svg);
}

/**
 * Draw the picture on a canvas at `scale` times its size.
 * @param {HTMLCanvasElement} canvas
 * @param {Picture} picture
 * @param {number} scale
 */
export function paintPng(canvas, picture, scale = 2) {
  const { layout } = picture;
  const height = layout.height + 24;
  canvas.width = Math.round(layout.width * scale);
  canvas.height = Math.round(height * scale);
  const ctx = canvas.getContext("2d");
  if (!ctx) return;
  ctx.setTransform(scale, 0, 0, scale, 0, 0);
  ctx.fillStyle = picture.background;
  ctx.fillRect(0, 0, layout.width, height);
  drawEdges(ctx, layout, picture.edges, picture.options, false);
  ctx.fillStyle = picture.foreground;
  ctx.textBaseline = "middle";
  ctx.font = "bold 12px sans-serif";
  ctx.fillText(picture.titles[0], 0, 10);
  ctx.fillText(picture.titles[1], layout.rightX + 6, 10);
  ctx.font = "12px sans-serif";
  if (layout.showLabels) {
    picture.tokens.forEach((token, i) => {
      const label = displayToken(token);
      ctx.textAlign = "right";
      ctx.fillText(label, layout.leftX - 6, rowCenter(layout, i));
      ctx.textAlign = "left";
      ctx.fillText(label, layout.rightX + 6, rowCenter(layout, i));
    });
  }
  ctx.textAlign = "left";
  ctx.fillText(picture.caption, 0, layout.height + 12);
}

/**
 * Offer a file for download (works in notebooks and exported pages).
 * @param {Document} doc
 * @param {Blob} blob
 * @param {string} name
 */
export function download(doc, blob, name) {
  const url = URL.createObjectURL(blob);
  const link = doc.createElement("a");
  link.href = url;
  link.download = name;
  link.style.display = "none";
  doc.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
