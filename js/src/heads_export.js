// The PNG of the "all heads" overview: the grid (heads_draw.js draws it afresh at the export's scale),
// then, as the single view's export has them, the caption and the colour key with the method's name,
// each wrapped to the picture's width.

import { wrapText } from "./text.js";

/**
 * @typedef {object} HeadsPicture
 * @property {HTMLCanvasElement} grid  the grid drawn at the export's scale
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
 * Paint the grid with its caption and key on `canvas` at `scale` times its size.
 * @param {HTMLCanvasElement} canvas @param {HeadsPicture} picture
 * @param {{ caption: string, foreground: string, background: string }} words
 * @param {number} scale  the scale the grid was drawn at
 */
export function paintHeadsPng(canvas, picture, { caption, foreground, background }, scale) {
  const ctx = canvas.getContext("2d");
  if (!ctx) return;
  ctx.font = FONT;
  const measure = (/** @type {string} */ text) => ctx.measureText(text).width;
  const width = Math.max(picture.width, MIN_WIDTH - 2 * PAD);
  const [low, high] = picture.ends;
  const barX = measure(low) + 6;
  const captionLines = wrapText(caption, width, measure);
  const keyLines = [
    ...wrapText(picture.title, width - barX - BAR_WIDTH - measure(high) - 12, measure),
    ...wrapText(picture.key, width, measure),
  ];
  const captionY = PAD + picture.height + LINE;
  const keyY = captionY + captionLines.length * LINE + LINE / 2;
  canvas.width = Math.round((width + 2 * PAD) * scale); // resets the context's state
  canvas.height = Math.round((keyY + keyLines.length * LINE + PAD) * scale);
  ctx.setTransform(scale, 0, 0, scale, 0, 0);
  ctx.fillStyle = background;
  ctx.fillRect(0, 0, canvas.width / scale, canvas.height / scale);
  ctx.drawImage(picture.grid, PAD, PAD, picture.width, picture.height);
  ctx.fillStyle = foreground;
  ctx.font = FONT;
  ctx.textAlign = "left";
  ctx.textBaseline = "middle";
  captionLines.forEach((line, i) => {
    ctx.fillText(line, PAD, captionY + i * LINE);
  });
  // The colour bar between its end words, the first line of its title beside it, the rest below.
  ctx.fillText(low, PAD, keyY);
  const ramp = ctx.createLinearGradient(PAD + barX, 0, PAD + barX + BAR_WIDTH, 0);
  const n = picture.table.length;
  picture.table.forEach((color, i) => {
    if (i % 32 === 0 || i === n - 1) ramp.addColorStop(n > 1 ? i / (n - 1) : 0, color);
  });
  ctx.fillStyle = ramp;
  ctx.fillRect(PAD + barX, keyY - BAR_HEIGHT / 2, BAR_WIDTH, BAR_HEIGHT);
  ctx.fillStyle = foreground;
  ctx.fillText(high, PAD + barX + BAR_WIDTH + 6, keyY);
  keyLines.forEach((line, i) => {
    const x = i === 0 ? PAD + barX + BAR_WIDTH + measure(high) + 12 : PAD;
    ctx.fillText(line, x, keyY + i * LINE);
  });
}
