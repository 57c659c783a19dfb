import assert from "node:assert/strict";
import { test } from "node:test";
import { colormap } from "../src/colormap.js";
import { computeLayout } from "../src/layout.js";
import { createEdgeLayer } from "../src/raster.js";
import { makeDom } from "./fake-model.js";

const layout = computeLayout(400, 4);

/** @param {number[]} weights  edge e goes from token e % 4 to token 3 */
function sceneOf(weights) {
  // New arrays on every call, as every repaint makes them.
  const edges = {
    source: Uint16Array.from(weights, (_, e) => e % 4),
    target: new Uint16Array(weights.length).fill(3),
    weight: Float64Array.from(weights),
    count: weights.length,
    max: Math.max(...weights),
  };
  return { layout, bundles: [{ layout, edges, highlight: null, wideFrom: 24 }], dots: [], marks: [], table: colormap("light"), signed: false, ink: "#333" };
}

/** @param {number} [budget] */
function setUp(budget) {
  const dom = makeDom();
  const canvas = dom.window.document.createElement("canvas");
  canvas.width = 400;
  canvas.height = layout.height;
  const ctx = /** @type {any} */ (canvas.getContext("2d"));
  const idle = () => new Promise((resolve) => setTimeout(resolve, 5));
  /** Show a scene; say whether it was drawn stroke by stroke, copied, or left as it was. */
  const show = (/** @type {number[]} */ weights) => {
    const [clears, images] = [ctx.clears, ctx.images ?? 0];
    const said = layer.show(sceneOf(weights), 1);
    const did = ctx.clears === clears ? "unchanged" : (ctx.images ?? 0) > images ? "copy" : "strokes";
    assert.equal(said, did);
    return did;
  };
  const layer = createEdgeLayer(canvas, budget);
  return { layer, canvas, ctx, idle, show };
}

test("the same edges are not drawn again; a picture seen before comes back as a copy", async () => {
  const { ctx, idle, show } = setUp();
  assert.equal(show([0.5, 0.3, 0.2]), "strokes");
  const first = JSON.stringify(ctx.strokes);
  assert.equal(show([0.5, 0.3, 0.2]), "unchanged");
  await idle();
  assert.equal(show([0.5, 0.3, 0.25]), "strokes", "other weights, same count and maximum");
  await idle();
  assert.equal(show([0.5, 0.3, 0.2]), "copy");
  assert.equal(JSON.stringify(ctx.strokes), first, "the copy holds the same strokes");
});

test("a picture replaced before the page was idle is not kept", async () => {
  const { idle, show } = setUp();
  show([0.5]);
  show([0.4]);
  await idle();
  assert.equal(show([0.5]), "strokes");
});

test("a resized canvas is drawn again", async () => {
  const { layer, canvas, idle, show } = setUp();
  show([0.5]);
  await idle();
  canvas.width = 400; // clears the bitmap, as a real canvas does
  layer.invalidate();
  assert.equal(show([0.5]), "copy");
});

test("kept pictures beyond the budget are freed, least recently used first", async () => {
  const { idle, show } = setUp(2 * 400 * layout.height * 4);
  for (const w of [0.5, 0.4]) {
    show([w]);
    await idle();
  }
  assert.equal(show([0.5]), "copy"); // now the most recently used
  show([0.3]); // a third picture: 0.4 goes
  await idle();
  assert.equal(show([0.5]), "copy");
  assert.equal(show([0.4]), "strokes");
});

test("pictures queued ahead are drawn while idle and shown as copies; large ones are left to draw", async () => {
  const { layer, idle, show } = setUp();
  show([0.5]);
  layer.drawAhead([() => sceneOf([0.4]), () => null, () => sceneOf(Array.from({ length: 1501 }, (_, e) => 1 / (e + 1)))]);
  for (let i = 0; i < 4; i++) await idle();
  assert.equal(show([0.4]), "copy");
  assert.equal(show(Array.from({ length: 1501 }, (_, e) => 1 / (e + 1))), "strokes", "over the limit for idle work");
});

test("a new picture drops what was queued ahead for the old one", async () => {
  const { layer, idle, show } = setUp();
  show([0.5]);
  layer.drawAhead([() => sceneOf([0.4])]);
  show([0.3]);
  for (let i = 0; i < 3; i++) await idle();
  assert.equal(show([0.4]), "strokes");
});

test("no more pictures are drawn ahead than the budget holds beside the one shown", async () => {
  const { layer, idle, show } = setUp(3 * 400 * layout.height * 4);
  show([0.5]);
  layer.drawAhead([0.4, 0.3, 0.2].map((w) => () => sceneOf([w])));
  for (let i = 0; i < 5; i++) await idle();
  assert.equal(show([0.4]), "copy");
  assert.equal(show([0.3]), "copy");
  assert.equal(show([0.2]), "strokes");
});
