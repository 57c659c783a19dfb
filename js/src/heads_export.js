// The PNG and SVG of the "all heads" overview: the grid (heads_draw.js draws it afresh at the export's
// scale), then, as the single view's export has them, the caption and the colour key with the method's
// name, each wrapped to the picture's width. The SVG has each cell as an embedded PNG (a cell is a matrix
// of pixels, up to 128 × 128 entries: as vector rectangles a 12 × 14 grid would be millions of them) and
// its layer marks, head names, caption and key as text.

import { svgDrawing, textMeasure, wrapText, xmlText } from "./text.js";

/**
 * @typedef {object} GridCell  one cell of the grid, in CSS pixels from the grid's corner
 * @property {number} x
 * @property {number} y
 * @property {number} size
 * @property {string} name   its layer and head, as the grid's hover names them
 * @property {boolean} ready  drawn (else an empty box: the layer is not computed yet)
 */

/**
 * @typedef {object} GridLabel  a layer mark or a column name
 * @property {string} text
 * @property {number} x
 * @property {number} y
 * @property {"middle" | "end"} anchor
 * @property {"alphabetic" | "middle"} baseline
 */

/**
 * @typedef {object} HeadsPicture
 * @property {HTMLCanvasElement} grid  the grid drawn at the export's scale
 * @property {number} scale  device pixels per CSS pixel of `grid`
 * @property {GridCell[]} cells
 * @property {GridLabel[]} labels
 * @property {number} width  the grid's size in CSS pixels
 * @property {number} height
 * @property {string[]} table  the cells' colour table
 * @property {[string, string]} ends  the words at the two ends of the colour bar
 * @property {string} title  what the bar shows, with the method's name
 * @property {string} key  how to read the cells (the on-screen key's words)
 */

/** The narrowest export: a one-column grid (a method that is not per head) is 104 px wide. */
export const MIN_WIDTH = 480;
const PAD = 8;
const LINE = 16;
const BAR_WIDTH = 160;
const BAR_HEIGHT = 10;
const FONT = "12px sans-serif";

/**
 * Where a download puts the grid, its caption and its key (the PNG and the SVG alike), in CSS pixels.
 * @param {HeadsPicture} picture @param {string} caption @param {(text: string) => number} measure  a 12 px text's width
 */
function framed(picture, caption, measure) {
  const width = Math.max(picture.width, MIN_WIDTH - 2 * PAD);
  const [low, high] = picture.ends;
  const barX = PAD + measure(low) + 6;
  const captionLines = wrapText(caption, width, measure);
  const keyLines = [
    ...wrapText(picture.title, width - (barX - PAD) - BAR_WIDTH - measure(high) - 12, measure),
    ...wrapText(picture.key, width, measure),
  ];
  const captionY = PAD + picture.height + LINE;
  const keyY = captionY + captionLines.length * LINE + LINE / 2;
  // Text lines (baseline middle): the caption's, the bar's end words, the key's (its first beside the bar).
  const lines = [
    ...captionLines.map((text, i) => ({ text, x: PAD, y: captionY + i * LINE })),
    { text: low, x: PAD, y: keyY },
    { text: high, x: barX + BAR_WIDTH + 6, y: keyY },
    ...keyLines.map((text, i) => ({
      text,
      x: i === 0 ? barX + BAR_WIDTH + measure(high) + 12 : PAD,
      y: keyY + i * LINE,
    })),
  ];
  return {
    width: width + 2 * PAD,
    height: keyY + keyLines.length * LINE + PAD,
    lines,
    captionLines: captionLines.length,
    bar: { x: barX, y: keyY - BAR_HEIGHT / 2 },
  };
}

/** The colour bar's stops: every 32nd table entry, and the last. @param {string[]} table */
function stops(table) {
  const n = table.length;
  return table.flatMap((color, i) => (i % 32 === 0 || i === n - 1 ? [{ offset: n > 1 ? i / (n - 1) : 0, color }] : []));
}

/**
 * Paint the grid with its caption and key on `canvas` at `scale` times its size.
 * @param {HTMLCanvasElement} canvas @param {HeadsPicture} picture
 * @param {{ caption: string, foreground: string, background: string }} words
 * @param {number} scale  the scale the grid was drawn at
 */
export function paintHeadsPng(canvas, picture, { caption, foreground, background }, scale) {
  const ctx = canvas.getContext("2d");
  if (!ctx) return;
  ctx.font = FONT;
  const { width, height, lines, bar } = framed(picture, caption, (text) => ctx.measureText(text).width);
  canvas.width = Math.round(width * scale); // resets the context's state
  canvas.height = Math.round(height * scale);
  ctx.setTransform(scale, 0, 0, scale, 0, 0);
  ctx.fillStyle = background;
  ctx.fillRect(0, 0, width, height);
  ctx.drawImage(picture.grid, PAD, PAD, picture.width, picture.height);
  const ramp = ctx.createLinearGradient(bar.x, 0, bar.x + BAR_WIDTH, 0);
  for (const stop of stops(picture.table)) ramp.addColorStop(stop.offset, stop.color);
  ctx.fillStyle = ramp;
  ctx.fillRect(bar.x, bar.y, BAR_WIDTH, BAR_HEIGHT);
  ctx.fillStyle = foreground;
  ctx.font = FONT;
  ctx.textAlign = "left";
  ctx.textBaseline = "middle";
  for (const line of lines) ctx.fillText(line.text, line.x, line.y);
}

/**
 * The grid with its caption and key as a standalone SVG document: each drawn cell an <image> (its pixels
 * as the grid drew them, cut from `picture.grid`), each empty one a box, every word text.
 * @param {Document} doc @param {HeadsPicture} picture
 * @param {{ caption: string, foreground: string, background: string }} words
 * @returns {string}  valid XML whatever text the picture holds
 */
export function headsSvg(doc, picture, { caption, foreground, background }) {
  const { width, height, lines, bar, captionLines } = framed(picture, caption, textMeasure(doc, FONT));
  const { svg, add } = svgDrawing(doc, width, height, background);
  /** @param {string} content @param {Record<string, string | number>} attributes @param {Element} [parent] */
  const text = (content, attributes, parent = svg) => {
    const node = add("text", { fill: foreground, ...attributes }, parent);
    node.textContent = xmlText(content); // serialised with escaping: token and method text stays text
    return node;
  };
  const grid = add("g", { transform: `translate(${PAD} ${PAD})`, class: "attnw-heads-grid" }, svg);
  // One cell's pixels, exactly as on the PNG: cut from the grid canvas at its scale.
  const cut = /** @type {HTMLCanvasElement} */ (doc.createElement("canvas"));
  const cutCtx = cut.getContext("2d");
  for (const cell of picture.cells) {
    const attributes = { x: cell.x, y: cell.y, width: cell.size, height: cell.size };
    if (!cell.ready) {
      add("rect", { ...attributes, fill: "none", stroke: foreground, "stroke-width": 1 }, grid);
      continue;
    }
    const side = Math.round(cell.size * picture.scale);
    cut.width = cut.height = side;
    let href = "";
    if (cutCtx) {
      cutCtx.imageSmoothingEnabled = false;
      const [sx, sy] = [Math.round(cell.x * picture.scale), Math.round(cell.y * picture.scale)];
      cutCtx.drawImage(picture.grid, sx, sy, side, side, 0, 0, side, side);
      try {
        href = cut.toDataURL("image/png");
      } catch {
        href = ""; // a canvas without encoding (tests): the cell's place is kept, empty
      }
    }
    const image = add("image", { ...attributes, href, "image-rendering": "pixelated" }, grid);
    add("title", {}, image).textContent = xmlText(cell.name);
  }
  for (const label of picture.labels) {
    text(
      label.text,
      { x: label.x, y: label.y, "text-anchor": label.anchor, "dominant-baseline": label.baseline, "font-size": 11 },
      grid,
    );
  }
  const gradient = add("linearGradient", { id: "attnw-heads-ramp", x1: 0, x2: 1, y1: 0, y2: 0 }, add("defs", {}, svg));
  for (const stop of stops(picture.table))
    add("stop", { offset: stop.offset.toFixed(4), "stop-color": stop.color }, gradient);
  add("rect", { x: bar.x, y: bar.y, width: BAR_WIDTH, height: BAR_HEIGHT, fill: "url(#attnw-heads-ramp)" }, svg);
  lines.forEach((line, i) => {
    const node = text(line.text, { x: line.x, y: line.y, "dominant-baseline": "middle" });
    if (i < captionLines) node.setAttribute("class", "attnw-caption-line");
  });
  return new (doc.defaultView ?? globalThis).XMLSerializer().serializeToString(svg);
}
