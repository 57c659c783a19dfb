// Drawing of the image panel (image.js says what it shows): the picture with the heat map and the
// focused patch outlined, on screen (a canvas, its words in DOM text) and in the PNG and SVG exports
// (the same picture, the words drawn beside it). Token text reaches the page through textContent.

import { colorAt } from "./colormap.js";
import { tr } from "./i18n.js";
import { heatAlpha, inkContour } from "./image.js";
import { element, formatValue } from "./overlay.js";
import { probe } from "./probes.js";

/** @typedef {import("./image.js").ImageScene} ImageScene */

/** Each image's pixels on a canvas of their own, made once per trait value (its bytes' buffer). */
const sources = new WeakMap();

/** @param {Document} doc @param {import("./image_fact.js").ShownImage} image */
function sourceOf(doc, image) {
  const hit = sources.get(image.rgb.buffer);
  if (hit && hit.offset === image.rgb.byteOffset && hit.doc === doc) return hit.canvas;
  const canvas = /** @type {HTMLCanvasElement} */ (doc.createElement("canvas"));
  canvas.width = image.width;
  canvas.height = image.height;
  const ctx = canvas.getContext("2d");
  if (ctx) {
    const data = ctx.createImageData(image.width, image.height);
    for (let p = 0; p < image.width * image.height; p++) {
      data.data[4 * p] = image.rgb[3 * p];
      data.data[4 * p + 1] = image.rgb[3 * p + 1];
      data.data[4 * p + 2] = image.rgb[3 * p + 2];
      data.data[4 * p + 3] = 255;
    }
    ctx.putImageData(data, 0, 0);
  }
  sources.set(image.rgb.buffer, { offset: image.rgb.byteOffset, doc, canvas });
  return canvas;
}

/** Each image's outline (image.js inkContour), made once per trait value (its bytes' buffer). */
const contours = new WeakMap();

/** @param {import("./image_fact.js").ShownImage} image */
function contourOf(image) {
  const hit = contours.get(image.rgb.buffer);
  if (hit && hit.offset === image.rgb.byteOffset) return hit.segments;
  const segments = inkContour(image);
  contours.set(image.rgb.buffer, { offset: image.rgb.byteOffset, segments });
  return segments;
}

/** The outline of a coarse picture's shape: cyan (in neither colour map) over a dark edge, seen on any heat. */
export const CONTOUR_COLOR = "#00ffff";

/**
 * The picture, the heat over it and the outlined patches, with its top-left corner at (x, y).
 * @param {CanvasRenderingContext2D} ctx  scaled to CSS pixels @param {ImageScene} scene
 * @param {number} x @param {number} y @param {Document} doc  the page the canvases belong to
 */
export function drawImageRaster(ctx, scene, x, y, doc) {
  const { image, layout, heat, max, signed, table } = scene;
  const { width, height } = layout.box;
  if (!width || !height) return;
  // A coarse picture (a few pixels a patch: a digit, the tiny test models) stays sharp; a photograph is smoothed.
  const coarse = width / image.width >= 3;
  ctx.imageSmoothingEnabled = !coarse;
  ctx.drawImage(sourceOf(doc, image), x, y, width, height);
  /** Patch r, c's box, edges rounded so that neighbours meet without a seam. @param {number} k */
  const cell = (k) => {
    const r = Math.floor(k / image.cols);
    const c = k % image.cols;
    const x0 = x + Math.round((c * width) / image.cols);
    const y0 = y + Math.round((r * height) / image.rows);
    return [
      x0,
      y0,
      x + Math.round(((c + 1) * width) / image.cols) - x0,
      y + Math.round(((r + 1) * height) / image.rows) - y0,
    ];
  };
  if (heat) {
    for (let k = 0; k < heat.length; k++) {
      const share = max > 0 ? heat[k] / max : 0;
      ctx.globalAlpha = heatAlpha(signed ? Math.abs(share) : share);
      ctx.fillStyle = colorAt(table, share, signed);
      const [cx, cy, cw, ch] = cell(k);
      ctx.fillRect(cx, cy, cw, ch);
    }
    ctx.globalAlpha = 1;
    // A coarse picture (a digit, its ink as light as the heat's strong end) is hidden by the heat: its
    // shape is outlined over it. A photograph is left as it is (its outline would be noise).
    const segments = coarse ? contourOf(image) : null;
    if (segments?.length) {
      const sx = width / image.width;
      const sy = height / image.height;
      ctx.save();
      ctx.beginPath();
      ctx.rect(x, y, width, height);
      ctx.clip();
      ctx.beginPath();
      for (let s = 0; s < segments.length; s += 4) {
        ctx.moveTo(x + segments[s] * sx, y + segments[s + 1] * sy);
        ctx.lineTo(x + segments[s + 2] * sx, y + segments[s + 3] * sy);
      }
      ctx.lineCap = "round";
      for (const [color, lineWidth] of /** @type {const} */ ([
        ["#000000", 3.5],
        [CONTOUR_COLOR, 1.5],
      ])) {
        ctx.strokeStyle = color;
        ctx.lineWidth = lineWidth;
        ctx.stroke();
      }
      ctx.restore();
    }
  }
  // Outlines in black under white: visible on any picture and any heat.
  const outline = (/** @type {number} */ k, /** @type {number[]} */ dash) => {
    const [cx, cy, cw, ch] = cell(k);
    ctx.setLineDash(dash);
    for (const [color, lineWidth] of /** @type {const} */ ([
      ["#000000", 4],
      ["#ffffff", 2],
    ])) {
      ctx.strokeStyle = color;
      ctx.lineWidth = lineWidth;
      ctx.strokeRect(cx + 1, cy + 1, cw - 2, ch - 2);
    }
    ctx.setLineDash([]);
  };
  if (scene.pinned !== null && scene.pinned !== scene.outline) outline(scene.pinned, [4, 3]);
  if (scene.outline !== null) outline(scene.outline, []);
}

/** Colour stops of the scale, weakest first (the full table is 256 entries). @param {string[]} table */
const stopsOf = (table) => table.filter((_, i) => i % 32 === 0 || i === table.length - 1);

/** The scale's end labels. @param {ImageScene} scene */
const scaleEnds = (scene) => [scene.signed ? formatValue(-scene.max) : "0", formatValue(scene.max)];

/**
 * The panel on screen: title, picture, colour scale and notes.
 * @param {Document} doc
 * @param {string} lang  the language of the words (i18n.js)
 */
export function createImagePanel(doc, lang) {
  const root = element(doc, "div", "attnw-image");
  root.hidden = true;
  const title = element(doc, "div", "attnw-image-title");
  const canvas = /** @type {HTMLCanvasElement} */ (element(doc, "canvas", "attnw-image-canvas"));
  canvas.setAttribute("role", "img");
  const scale = element(doc, "div", "attnw-image-scale");
  const low = element(doc, "span", "attnw-image-scale-label");
  const bar = element(doc, "span", "attnw-image-scale-bar");
  const high = element(doc, "span", "attnw-image-scale-label");
  scale.append(low, bar, high);
  const scaleText = element(doc, "div", "attnw-image-scale-text");
  const note = element(doc, "div", "attnw-image-note");
  root.append(title, canvas, scale, scaleText, note);
  /** @type {ImageScene | null} */
  let shown = null;

  /** @param {ImageScene | null} scene  null: no image (text), or nothing drawn */
  const paint = (scene) => {
    shown = scene;
    root.hidden = !scene;
    if (!scene) return;
    const { box } = scene.layout;
    root.style.width = `${scene.layout.width}px`;
    const dpr = doc.defaultView?.devicePixelRatio || 1;
    canvas.style.width = `${box.width}px`;
    canvas.style.height = `${box.height}px`;
    canvas.width = Math.round(box.width * dpr);
    canvas.height = Math.round(box.height * dpr);
    canvas.hidden = !box.width;
    const ctx = canvas.getContext("2d");
    if (ctx) {
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      drawImageRaster(ctx, scene, 0, 0, doc);
    }
    title.textContent = scene.title;
    scale.hidden = scaleText.hidden = !scene.heat;
    [low.textContent, high.textContent] = scaleEnds(scene);
    bar.style.background = `linear-gradient(to right, ${stopsOf(scene.table).join(", ")})`;
    scaleText.textContent = scene.scaleText;
    note.textContent = scene.note;
    canvas.setAttribute(
      "aria-label",
      tr(lang, "The input image, {rows}×{cols} patches, coloured by {what}", {
        rows: scene.image.rows,
        cols: scene.image.cols,
        what: scene.scaleText || tr(lang, "nothing"),
      }),
    );
    // For tests: whose row the colours are, and which patches are outlined.
    probe(canvas, {
      token: String(scene.token),
      layer: String(scene.layer),
      outline: String(scene.outline ?? ""),
      pinned: String(scene.pinned ?? ""),
      max: String(scene.max),
    });
  };

  return { root, canvas, paint, scene: () => shown };
}

const LINE = 16;
const TITLE_FONT = "bold 12px sans-serif";
const FONT = "12px sans-serif";
/** Characters per CSS pixel of 12 px sans-serif, about (the SVG cannot measure text). */
const CHAR_WIDTH = 6.6;

/**
 * Where the exported panel puts its parts, from its top-left corner.
 * @param {ImageScene} scene
 */
export function panelPicture(scene) {
  const { width, box } = scene.layout;
  /** @param {string} text @returns {string[]} */
  const wrap = (text) => {
    const lines = [""];
    for (const word of text.split(" ")) {
      const last = lines[lines.length - 1];
      if (last && (last.length + 1 + word.length) * CHAR_WIDTH > width) lines.push(word);
      else lines[lines.length - 1] = last ? `${last} ${word}` : word;
    }
    return text ? lines : [];
  };
  /** @type {{ text: string, x: number, y: number, bold?: boolean, anchor?: "start" | "end" }[]} */
  const texts = [{ text: scene.title, x: 0, y: 10, bold: true }];
  const imageY = 22;
  let y = imageY + box.height + 8;
  const bar = scene.heat ? { x: 0, y, width: Math.min(width, 140), height: 10 } : null;
  if (bar) {
    const [low, high] = scaleEnds(scene);
    texts.push({ text: low, x: 0, y: y + 20 }, { text: high, x: bar.width, y: y + 20, anchor: "end" });
    y += 32;
  }
  for (const line of [...wrap(scene.scaleText), ...wrap(scene.note)]) {
    texts.push({ text: line, x: 0, y: y + 6 });
    y += LINE;
  }
  return { texts, imageY, bar, height: y + 4 };
}

/**
 * The panel on an export canvas, top-left at (x, y).
 * @param {CanvasRenderingContext2D} ctx @param {ImageScene} scene @param {number} x @param {number} y
 * @param {string} foreground
 */
export function paintImagePanel(ctx, scene, x, y, foreground) {
  const { texts, imageY, bar } = panelPicture(scene);
  drawImageRaster(ctx, scene, x, y + imageY, ctx.canvas.ownerDocument);
  if (bar) {
    const stops = scene.table;
    for (let i = 0; i < stops.length; i++) {
      ctx.fillStyle = stops[i];
      ctx.fillRect(x + bar.x + (i * bar.width) / stops.length, y + bar.y, bar.width / stops.length + 0.5, bar.height);
    }
  }
  ctx.fillStyle = foreground;
  ctx.textBaseline = "middle";
  for (const t of texts) {
    ctx.font = t.bold ? TITLE_FONT : FONT;
    ctx.textAlign = t.anchor === "end" ? "right" : "left";
    ctx.fillText(t.text, x + t.x, y + t.y);
  }
  ctx.textAlign = "left";
}

/**
 * The panel in an SVG, top-left at (x, y): the picture as an embedded PNG, the scale as a
 * gradient, the words as text.
 * @param {(tag: string, attributes: Record<string, string | number>, parent: Element) => Element} add
 * @param {Element} svg @param {ImageScene} scene @param {number} x @param {number} y
 * @param {(content: string, x: number, y: number, anchor: string, weight?: string) => void} text
 */
export function svgImagePanel(add, svg, scene, x, y, text) {
  const { texts, imageY, bar } = panelPicture(scene);
  const { box } = scene.layout;
  const doc = svg.ownerDocument;
  const raster = /** @type {HTMLCanvasElement} */ (doc.createElement("canvas"));
  raster.width = box.width * 2;
  raster.height = box.height * 2;
  const ctx = raster.getContext("2d");
  let url = "";
  if (ctx && box.width) {
    ctx.setTransform(2, 0, 0, 2, 0, 0);
    drawImageRaster(ctx, scene, 0, 0, doc);
    try {
      url = raster.toDataURL("image/png");
    } catch {
      url = ""; // a canvas without encoding (tests): no picture
    }
  }
  if (url) add("image", { x, y: y + imageY, width: box.width, height: box.height, href: url }, svg);
  if (bar) {
    const gradient = add("linearGradient", { id: "attnw-heat" }, add("defs", {}, svg));
    const stops = stopsOf(scene.table);
    stops.forEach((color, i) => {
      add("stop", { offset: (i / (stops.length - 1)).toFixed(3), "stop-color": color }, gradient);
    });
    add("rect", { x: x + bar.x, y: y + bar.y, width: bar.width, height: bar.height, fill: "url(#attnw-heat)" }, svg);
  }
  for (const t of texts) text(t.text, x + t.x, y + t.y, t.anchor ?? "start", t.bold ? "bold" : "normal");
}
