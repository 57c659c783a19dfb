// Canvas drawing of the edges, batched by colour bucket (one stroke per bucket).

import { colorAt } from "./colormap.js";
import { HEADER_HEIGHT, rowCenter } from "./layout.js";

const BUCKETS = 24;

/**
 * @typedef {object} DrawOptions
 * @property {string[]} table        colour table
 * @property {boolean} signed
 * @property {Set<number> | null} highlight  edges to emphasise (others are dimmed)
 */

/**
 * Draw every edge as a cubic curve from its source row (left) to its target row (right).
 * The curve's midpoint is the midpoint of the straight segment, which tests rely on.
 * @param {CanvasRenderingContext2D} ctx  already scaled to CSS pixels
 * @param {import("./layout.js").Layout} layout
 * @param {import("./edges.js").EdgeList} edges
 * @param {DrawOptions} options
 * @param {boolean} [clear]  clear the canvas first (not when painting over a background)
 */
export function drawEdges(ctx, layout, edges, options, clear = true) {
  if (clear) ctx.clearRect(0, 0, layout.width, layout.height);
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
  const dim = highlight ? 0.25 : 1;
  strokeBuckets(ctx, layout, edges, buckets, options, dim);
  if (highlight) strokeBuckets(ctx, layout, edges, strong, options, 1, 1.5);
  ctx.restore();
}

/**
 * Stroke style of an edge in bucket b (of BUCKETS), shared by the canvas and the SVG export.
 * @param {number} b
 * @param {number} sign  +1 or -1 (signed data)
 * @param {DrawOptions} options
 * @param {number} alphaScale
 * @param {number} widthScale
 */
export function bucketStyle(b, sign, options, alphaScale = 1, widthScale = 1) {
  const t = (b + 0.5) / BUCKETS;
  return {
    color: colorAt(options.table, sign * t, options.signed),
    alpha: Math.min(1, (0.15 + 0.85 * t) * alphaScale),
    width: (0.6 + 3 * t) * widthScale,
  };
}

/**
 * The colour bucket of an edge weight relative to the slice maximum.
 * @param {number} weight
 * @param {number} max
 */
export function bucketOf(weight, max) {
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
 */
function strokeBuckets(ctx, layout, edges, buckets, options, alphaScale, widthScale = 1) {
  const midX = (layout.leftX + layout.rightX) / 2;
  buckets.forEach((members, b) => {
    if (members.length === 0) return;
    // Signed data: colour by sign and size; the bucket holds |w|, so split by sign.
    for (const sign of options.signed ? [-1, 1] : [1]) {
      ctx.beginPath();
      let any = false;
      for (const e of members) {
        if (options.signed && Math.sign(edges.weight[e]) !== sign) continue;
        const y0 = rowCenter(layout, edges.source[e]);
        const y1 = rowCenter(layout, edges.target[e]);
        ctx.moveTo(layout.leftX, y0);
        ctx.bezierCurveTo(midX, y0, midX, y1, layout.rightX, y1);
        any = true;
      }
      if (!any) continue;
      const style = bucketStyle(b, sign, options, alphaScale, widthScale);
      ctx.strokeStyle = style.color;
      ctx.globalAlpha = style.alpha;
      ctx.lineWidth = style.width;
      ctx.stroke();
    }
  });
  ctx.globalAlpha = 1;
}

/**
 * Teaching overlay: a dot per token on one column, its area proportional to the degree.
 * @param {CanvasRenderingContext2D} ctx
 * @param {import("./layout.js").Layout} layout
 * @param {{ values: Float64Array, max: number, kind: "in" | "out" }} degrees
 * @param {string} ink
 */
export function drawDegrees(ctx, layout, degrees, ink) {
  const x = degrees.kind === "in" ? layout.rightX : layout.leftX;
  const largest = Math.max(2, Math.min(10, layout.rowHeight * 0.45));
  ctx.fillStyle = ink;
  ctx.globalAlpha = 0.55;
  degrees.values.forEach((value, i) => {
    if (i < layout.first || i > layout.last) return;
    const radius = degrees.max > 0 ? largest * Math.sqrt(Math.abs(value) / degrees.max) : 0;
    ctx.beginPath();
    ctx.arc(x, rowCenter(layout, i), radius, 0, 2 * Math.PI);
    ctx.fill();
  });
  ctx.globalAlpha = 1;
}
