// Canvas drawing of the edges, batched by colour bucket (one stroke per bucket, or per 256 hairlines of it).

import { colorAt } from "./colormap.js";
import { HEADER_HEIGHT, rowCenter } from "./layout.js";

const BUCKETS = 24;
/** With a highlight, other edges are drawn at this opacity and highlighted ones this much wider. */
export const DIMMED = 0.25;
const STRONG_WIDTH = 1.5;
/** Width of the weaker edges: one device pixel on the canvas, one unit in SVG. */
export const HAIRLINE = 1;
/** Hairline edges per stroke at most: a stroke is the smallest piece of idle work (raster.js),
 * and 256 hairlines take 1.5 to 3.5 ms to rasterise in software. Chromium blends hairlines
 * curve by curve, so splitting their path leaves every pixel the same; a wider stroke is filled
 * as one shape (overlaps blended once), so it is never split. */
const STROKE_EDGES = 256;

/**
 * @typedef {object} DrawOptions
 * @property {string[]} table        colour table
 * @property {boolean} signed
 * @property {Set<number> | null} highlight  edges to emphasise (others are dimmed)
 * @property {number} [wideFrom]  buckets from this one up are drawn wide (see wideFrom)
 * @property {boolean} [unhighlighted]  draw the edges outside the highlight (default true)
 */

/**
 * Draw every edge as a cubic curve from its source row (left) to its target row (right), one
 * stroke per colour bucket. A generator, so that idle work can spread a large picture over
 * several idle periods: before each stroke it builds the stroke's path and yields how many
 * edges the stroke holds; the next step strokes it. Drawn to the end, it is one picture.
 * The curve's midpoint is the midpoint of the straight segment, which tests rely on.
 * @param {CanvasRenderingContext2D} ctx  already scaled to CSS pixels
 * @param {import("./layout.js").Layout} layout
 * @param {import("./edges.js").EdgeList} edges
 * @param {DrawOptions} options
 * @returns {Generator<number, void, void>}
 */
export function* edgeStrokes(ctx, layout, edges, options) {
  if (edges.count === 0 || edges.max <= 0) return;
  // Draw inside the plot band only: with a token window, rows outside it lie above or below.
  ctx.save();
  ctx.beginPath();
  ctx.rect(0, HEADER_HEIGHT, layout.width, layout.height - HEADER_HEIGHT);
  ctx.clip();
  const { highlight } = options;
  /** @type {number[][]} */
  const buckets = Array.from({ length: BUCKETS }, () => []);
  /** @type {number[][]} */
  const strong = Array.from({ length: BUCKETS }, () => []);
  for (let e = 0; e < edges.count; e++) {
    (highlight && highlight.has(e) ? strong : buckets)[bucketOf(edges.weight[e], edges.max)].push(e);
  }
  ctx.lineCap = "round";
  if (options.unhighlighted ?? true) yield* strokeBuckets(ctx, layout, edges, buckets, options, highlight ? DIMMED : 1);
  if (highlight) yield* strokeBuckets(ctx, layout, edges, strong, options, 1, STRONG_WIDTH);
  ctx.restore();
}

/**
 * Stroke style of an edge in bucket b (of BUCKETS). Edges below the bundle's `wideFrom`
 * bucket are one device pixel wide: software rasterisers (Chromium without a GPU) draw those
 * about ten times faster than wider anti-aliased strokes. Colour and opacity carry the weight;
 * width adds to it for the strongest edges.
 * @param {number} b
 * @param {number} sign  +1 or -1 (signed data)
 * @param {DrawOptions} options
 * @param {number} alphaScale
 * @param {number} widthScale
 * @returns {{ color: string, alpha: number, width: number }}  width in CSS pixels, HAIRLINE: one device pixel
 */
function bucketStyle(b, sign, options, alphaScale = 1, widthScale = 1) {
  const t = (b + 0.5) / BUCKETS;
  const wide = b >= (options.wideFrom ?? BUCKETS);
  return {
    color: colorAt(options.table, sign * t, options.signed),
    alpha: Math.min(1, (0.15 + 0.85 * t) * alphaScale),
    width: wide ? (1 + 5.2 * (t - 0.5)) * widthScale : widthScale === 1 ? HAIRLINE : widthScale,
  };
}

/**
 * Stroke style of one edge, as the canvas draws it (for the SVG export).
 * @param {number} weight
 * @param {number} max  colour-scale maximum
 * @param {DrawOptions} options
 * @param {boolean} highlighted
 */
export function edgeStyle(weight, max, options, highlighted) {
  const dimmed = options.highlight !== null && !highlighted;
  return bucketStyle(bucketOf(weight, max), Math.sign(weight) || 1, options, dimmed ? DIMMED : 1, highlighted ? STRONG_WIDTH : 1);
}

/**
 * The lowest bucket drawn wider than a hairline: within the stronger half of the colour
 * scale, and holding at most `limit` edges (BUCKETS: none).
 * @param {import("./edges.js").EdgeList} edges
 * @param {number} limit
 */
export function wideFrom(edges, limit) {
  const counts = new Array(BUCKETS).fill(0);
  if (edges.max > 0) for (let e = 0; e < edges.count; e++) counts[bucketOf(edges.weight[e], edges.max)]++;
  let from = BUCKETS;
  let total = 0;
  for (let b = BUCKETS - 1; b >= BUCKETS / 2; b--) {
    total += counts[b];
    if (total > limit) break;
    from = b;
  }
  return from;
}

/**
 * The colour bucket of an edge weight relative to the slice maximum.
 * @param {number} weight
 * @param {number} max
 */
function bucketOf(weight, max) {
  return Math.min(BUCKETS - 1, Math.floor((Math.abs(weight) / max) * BUCKETS));
}

/**
 * @param {CanvasRenderingContext2D} ctx
 * @param {import("./layout.js").Layout} layout
 * @param {import("./edges.js").EdgeList} edges
 * @param {number[][]} buckets
 * @param {DrawOptions} options
 * @param {number} alphaScale
 * @param {number} widthScale
 * @returns {Generator<number, void, void>}  before each stroke, its edge count
 */
function* strokeBuckets(ctx, layout, edges, buckets, options, alphaScale, widthScale = 1) {
  const midX = (layout.leftX + layout.rightX) / 2;
  const scale = ctx.getTransform?.().a || 1; // CSS to device pixels
  for (let b = 0; b < BUCKETS; b++) {
    // Signed data: colour by sign and size; the bucket holds |w|, so split by sign.
    for (const sign of options.signed ? [-1, 1] : [1]) {
      const members = options.signed ? buckets[b].filter((e) => Math.sign(edges.weight[e]) === sign) : buckets[b];
      const style = bucketStyle(b, sign, options, alphaScale, widthScale);
      const most = style.width === HAIRLINE ? STROKE_EDGES : members.length;
      for (let from = 0; from < members.length; from += most) {
        const count = Math.min(most, members.length - from);
        ctx.beginPath();
        for (let i = from; i < from + count; i++) {
          const y0 = rowCenter(layout, edges.source[members[i]]);
          const y1 = rowCenter(layout, edges.target[members[i]]);
          ctx.moveTo(layout.leftX, y0);
          ctx.bezierCurveTo(midX, y0, midX, y1, layout.rightX, y1);
        }
        yield count;
        ctx.strokeStyle = style.color;
        ctx.globalAlpha = style.alpha;
        ctx.lineWidth = style.width === HAIRLINE ? HAIRLINE / scale : style.width;
        ctx.stroke();
      }
    }
  }
  ctx.globalAlpha = 1;
}
