// Canvas drawing of the edges, batched by colour bucket (one stroke per bucket, or per 256 hairlines of it).

import { colorAt } from "./colormap.js";
import { edgeEndY, HEADER_HEIGHT, isDrawn } from "./layout.js";

const BUCKETS = 24;
/**
 * With a highlight (a hovered or pinned token) the other edges become faint grey context: the
 * edge canvas is shown at CONTEXT_OPACITY through CONTEXT_FILTER (view.js; its pixels are kept,
 * so a hover redraws nothing). Pictures draw those edges in their colour's grey (the filter's
 * luminance) as one group, composited at CONTEXT_OPACITY (scene.js drawScene, the SVG's group
 * opacity), so that overlapping context blends as on screen. The highlighted edges are drawn
 * in their colour, STRONG_WIDTH wider and at least FOCUS_ALPHA opaque, so that a weak edge of
 * the focused token still shows against the context.
 */
export const CONTEXT_OPACITY = 0.12;
export const CONTEXT_FILTER = "grayscale(1)";
const STRONG_WIDTH = 1.5;
const FOCUS_ALPHA = 0.8;
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
 * @property {Set<number> | null} highlight  edges to emphasise (the others are context)
 * @property {number} [wideFrom]  buckets from this one up are drawn wide (see wideFrom)
 * @property {import("./edges.js").ColourScale | null} [focusScale]  the highlighted edges' own
 *   colour scale (scene.js); absent or null: the edge list's max, as the others
 * @property {boolean} [unhighlighted]  draw the edges outside the highlight (default true)
 * @property {boolean} [highlighted]  draw the highlighted edges (default true)
 * @property {number} [contextOpacity]  multiplies the context's alpha, for a picture that cannot
 *   composite the context as a group (default 1: the caller does)
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
  // With a token window, an edge touching no shown row is left out; one to a token outside the
  // window ends at the marker strip above or below the rows (layout.js edgeEndY).
  const windowed = layout.first > 0 || layout.last < layout.n - 1;
  for (let e = 0; e < edges.count; e++) {
    if (windowed && !isDrawn(layout, edges.source[e], edges.target[e])) continue;
    const focused = highlight?.has(e) ?? false;
    const end = focused ? scaleEnd(options.focusScale, edges.weight[e], edges.max) : edges.max;
    (focused ? strong : buckets)[bucketOf(edges.weight[e], end)].push(e);
  }
  ctx.lineCap = "round";
  if (options.unhighlighted ?? true)
    yield* strokeBuckets(ctx, layout, edges, buckets, options, highlight ? "context" : "plain");
  if (highlight && (options.highlighted ?? true)) yield* strokeBuckets(ctx, layout, edges, strong, options, "focus");
  ctx.restore();
}

/** @typedef {"plain" | "context" | "focus"} Role  no highlight; outside it; inside it */

/**
 * Stroke style of an edge in bucket b (of BUCKETS). Edges below the bundle's `wideFrom`
 * bucket are one device pixel wide: software rasterisers (Chromium without a GPU) draw those
 * about ten times faster than wider anti-aliased strokes. Colour and opacity carry the weight;
 * width adds to it for the strongest edges. Under a highlight see CONTEXT_OPACITY.
 * @param {number} b
 * @param {number} sign  +1 or -1 (signed data)
 * @param {DrawOptions} options
 * @param {Role} role
 * @returns {{ color: string, alpha: number, width: number }}  width in CSS pixels, HAIRLINE: one device pixel
 */
function bucketStyle(b, sign, options, role = "plain") {
  const t = (b + 0.5) / BUCKETS;
  const wide = b >= (options.wideFrom ?? BUCKETS);
  const color = colorAt(options.table, sign * t, options.signed);
  const alpha = 0.15 + 0.85 * t;
  const width = wide ? 1 + 5.2 * (t - 0.5) : HAIRLINE;
  if (role === "context") return { color: greyOf(color), alpha: alpha * (options.contextOpacity ?? 1), width };
  if (role === "focus") {
    // Colour runs to each side's own end (a focus scale); width keeps to one size scale, so that a
    // negative edge of -0.01 beside positive ones of 0.1 is plainly blue but not as wide as they are.
    const size = t * sideShare(options.focusScale, sign);
    const wideFocus = size < t ? Math.floor(size * BUCKETS) >= (options.wideFrom ?? BUCKETS) : wide;
    const focusWidth = wideFocus ? (1 + 5.2 * (size - 0.5)) * STRONG_WIDTH : STRONG_WIDTH;
    return { color, alpha: Math.max(FOCUS_ALPHA, alpha), width: focusWidth };
  }
  return { color, alpha, width };
}

/**
 * A focus scale's end on one side over its larger end: how much of the widths' range that side's
 * colours span (1 without a focus scale, or on its larger side).
 * @param {import("./edges.js").ColourScale | null | undefined} scale @param {number} sign
 */
function sideShare(scale, sign) {
  if (!scale) return 1;
  const larger = Math.max(scale.low, scale.high);
  return larger > 0 ? (sign < 0 ? scale.low : scale.high) / larger : 1;
}

/**
 * The grey CSS's grayscale(1) filter turns a colour into (Filter Effects: luminance weights).
 * @param {string} color  "rgb(r, g, b)" or "#rrggbb"
 */
export function greyOf(color) {
  const channels = color.startsWith("#")
    ? [1, 3, 5].map((i) => parseInt(color.slice(i, i + 2), 16))
    : (color.match(/[\d.]+/g) ?? ["0", "0", "0"]).slice(0, 3).map(Number);
  const [r, g, b] = channels;
  const y = Math.round(Math.min(255, 0.2126 * r + 0.7152 * g + 0.0722 * b));
  return `rgb(${y}, ${y}, ${y})`;
}

/**
 * Stroke style of one edge, as the canvas draws it (for the SVG export).
 * @param {number} weight
 * @param {number} max  colour-scale maximum
 * @param {DrawOptions} options
 * @param {boolean} highlighted
 */
export function edgeStyle(weight, max, options, highlighted) {
  const role = options.highlight === null ? "plain" : highlighted ? "focus" : "context";
  const end = role === "focus" ? scaleEnd(options.focusScale, weight, max) : max;
  return bucketStyle(bucketOf(weight, end), Math.sign(weight) || 1, options, role);
}

/**
 * The end of the colour scale a weight is measured against: its side's end of a focus scale
 * (negative weights: low), else max.
 * @param {import("./edges.js").ColourScale | null | undefined} scale @param {number} weight @param {number} max
 */
export function scaleEnd(scale, weight, max) {
  if (!scale) return max;
  const end = weight < 0 ? scale.low : scale.high;
  return end > 0 ? end : max;
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
 * @param {Role} role
 * @returns {Generator<number, void, void>}  before each stroke, its edge count
 */
function* strokeBuckets(ctx, layout, edges, buckets, options, role) {
  const midX = (layout.leftX + layout.rightX) / 2;
  const scale = ctx.getTransform?.().a || 1; // CSS to device pixels
  for (let b = 0; b < BUCKETS; b++) {
    // Signed data: colour by sign and size; the bucket holds |w|, so split by sign.
    for (const sign of options.signed ? [-1, 1] : [1]) {
      const members = options.signed ? buckets[b].filter((e) => Math.sign(edges.weight[e]) === sign) : buckets[b];
      const style = bucketStyle(b, sign, options, role);
      const most = style.width === HAIRLINE ? STROKE_EDGES : members.length;
      for (let from = 0; from < members.length; from += most) {
        const count = Math.min(most, members.length - from);
        ctx.beginPath();
        for (let i = from; i < from + count; i++) {
          const y0 = edgeEndY(layout, edges.source[members[i]]);
          const y1 = edgeEndY(layout, edges.target[members[i]]);
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
