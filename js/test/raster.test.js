import assert from "node:assert/strict";
import { test } from "node:test";
import { colormap } from "../src/colormap.js";
import { computeLayout } from "../src/layout.js";
import { createEdgeLayer } from "../src/raster.js";
import { makeDom, RecordingContext } from "./fake-model.js";

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
  return { layer, canvas, ctx, idle, show, win: dom.window };
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

test("pictures queued ahead are drawn while idle and shown as copies", async () => {
  const { layer, idle, show } = setUp();
  show([0.5]);
  layer.drawAhead([() => sceneOf([0.4]), () => null, () => sceneOf([0.3, 0.2])]);
  for (let i = 0; i < 4; i++) await idle();
  assert.equal(show([0.4]), "copy");
  assert.equal(show([0.3, 0.2]), "copy");
});

/**
 * Idle periods run by hand, on a clock that advances 0.1 ms per edge stroked (as if rasterising
 * took that long): each period lasts `length` ms from its start.
 * @param {Window & typeof globalThis} win
 */
function handRunIdle(win) {
  let clock = 0;
  win.performance.now = () => clock;
  const stroke = RecordingContext.prototype.stroke;
  RecordingContext.prototype.stroke = function () {
    clock += 0.1 * this.path.length;
    stroke.call(this);
  };
  /** @type {Function[]} */
  const queued = [];
  win.requestIdleCallback = /** @type {any} */ ((/** @type {Function} */ callback) => queued.push(callback));
  return {
    queued,
    /** @param {number} length */
    period(length) {
      const start = clock;
      queued.shift()?.({ timeRemaining: () => Math.max(0, length - (clock - start)), didTimeout: false });
    },
    restore: () => void (RecordingContext.prototype.stroke = stroke),
  };
}

test("a picture is drawn ahead a few strokes per idle period, at most about 8 ms of them", () => {
  const { layer, ctx, show, win } = setUp();
  const idle = handRunIdle(win);
  try {
    // Three colour buckets of 30 edges: three strokes of 3 ms each on this clock.
    const large = [...Array(30).fill(1), ...Array(30).fill(0.5), ...Array(30).fill(0.1)];
    const huge = Array(200).fill(1); // one stroke of 20 ms
    show([0.9]);
    layer.drawAhead([() => sceneOf(large), () => sceneOf(huge)]);
    idle.period(45); // keeps the picture shown, then two strokes: 2 ms are left of the slice
    assert.equal(idle.queued.length, 1, "more to draw");
    idle.period(45); // the third stroke; the next stroke is longer than what is left
    idle.period(30); // too short for a stroke longer than a slice: nothing drawn
    idle.period(45); // as long as periods get: drawn, although it overruns the slice
    assert.equal(idle.queued.length, 0, "nothing left to do");
    assert.equal(show(large), "copy");
    const drawnAhead = JSON.stringify(ctx.strokes);
    const fresh = setUp();
    assert.equal(fresh.show(large), "strokes");
    assert.equal(drawnAhead, JSON.stringify(fresh.ctx.strokes), "the strokes of a picture drawn on demand");
    assert.equal(show(huge), "copy");
  } finally {
    idle.restore();
  }
});

test("an idle period too short for the next stroke draws nothing", () => {
  const { layer, show, win } = setUp();
  const idle = handRunIdle(win);
  try {
    show([0.9]);
    idle.period(45); // keeps the picture shown
    layer.drawAhead([() => sceneOf(Array(200).fill(1))]);
    idle.period(45); // one stroke of 200 edges: the rate is learnt
    show([0.8]);
    layer.drawAhead([() => sceneOf(Array(60).fill(1))]);
    for (let i = 0; i < 5; i++) idle.period(4); // about 6 ms needed, 4 given
    assert.equal(idle.queued.length, 1, "still queued");
    idle.period(10);
    assert.equal(show(Array(60).fill(1)), "copy");
  } finally {
    idle.restore();
  }
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
