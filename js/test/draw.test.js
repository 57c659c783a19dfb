import assert from "node:assert/strict";
import { test } from "node:test";
import { colormap } from "../src/colormap.js";
import { edgeStrokes, edgeStyle, greyOf, HAIRLINE, wideFrom } from "../src/draw.js";
import { computeLayout } from "../src/layout.js";
import { RecordingContext } from "./fake-model.js";

/** @param {number[]} weights */
const edgesOf = (weights) => ({
  source: new Uint16Array(weights.length),
  target: new Uint16Array(weights.length),
  weight: Float64Array.from(weights),
  count: weights.length,
  max: Math.max(...weights.map(Math.abs)),
});

test("only the strongest edges are drawn wide: the stronger half, at most the limit", () => {
  const weights = [1, 0.95, 0.9, 0.7, 0.6, 0.4, 0.1, 0.01];
  const edges = edgesOf(weights);
  const options = { table: colormap("light"), signed: false, highlight: null };
  const widths = (/** @type {number} */ limit) =>
    weights.map((w) => edgeStyle(w, edges.max, { ...options, wideFrom: wideFrom(edges, limit) }, false).width);
  const wide = (/** @type {number} */ limit) => widths(limit).filter((w) => w > HAIRLINE).length;
  assert.equal(wide(100), 5, "everything at or above half the maximum");
  assert.equal(wide(3), 3);
  assert.equal(wide(0), 0);
  const all = widths(100);
  for (let i = 1; i < all.length; i++) assert.ok(all[i] <= all[i - 1], "width never grows as the weight falls");
  // A highlighted weak edge is wider than a hairline, a dimmed one is fainter.
  const style = edgeStyle(0.01, 1, { ...options, highlight: new Set([0]), wideFrom: 24 }, true);
  assert.ok(style.width > HAIRLINE);
  assert.ok(style.alpha >= 0.8, "a weak focused edge still shows");
  const dimmed = edgeStyle(1, 1, { ...options, highlight: new Set([0]), wideFrom: 24 }, false);
  const plain = edgeStyle(1, 1, { ...options, highlight: null, wideFrom: 24 }, false);
  assert.equal(dimmed.color, greyOf(plain.color), "the others are grey context");
  assert.equal(dimmed.alpha, plain.alpha, "made faint as one group (CONTEXT_OPACITY), as on screen");
  const alone = edgeStyle(1, 1, { ...options, highlight: new Set([0]), wideFrom: 24, contextOpacity: 0.12 }, false);
  assert.ok(Math.abs(alone.alpha - 0.12 * plain.alpha) < 1e-12, "or edge by edge where no group can be made");
});

test("greyOf is CSS's grayscale(1): luminance weights, the same grey for both notations", () => {
  assert.equal(greyOf("rgb(255, 0, 0)"), "rgb(54, 54, 54)");
  assert.equal(greyOf("#00ff00"), "rgb(182, 182, 182)");
  assert.equal(greyOf("rgb(10, 10, 10)"), "rgb(10, 10, 10)");
});

test("a colour bucket's hairlines are stroked at most 256 at a time; wide edges in one stroke; every edge once", () => {
  const ctx = new RecordingContext();
  const layout = computeLayout(400, 4);
  // 600 edges in the top bucket: drawn wide with wideFrom 23, as hairlines with wideFrom 24.
  const edges = edgesOf(Array(600).fill(1));
  edges.source = Uint16Array.from({ length: 600 }, (_, e) => e % 4);
  const options = { table: colormap("light"), signed: false, highlight: null };
  const yielded = [...edgeStrokes(/** @type {any} */ (ctx), layout, edges, { ...options, wideFrom: 24 })];
  assert.deepEqual(yielded, [256, 256, 88]);
  assert.deepEqual(
    ctx.strokes.map((s) => s.segments.length),
    [256, 256, 88],
  );
  assert.equal(new Set(ctx.segments().map((s) => JSON.stringify(s))).size, 4, "the four distinct curves");
  ctx.strokes = [];
  assert.deepEqual([...edgeStrokes(/** @type {any} */ (ctx), layout, edges, { ...options, wideFrom: 23 })], [600]);
});
