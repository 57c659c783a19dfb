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
  return {
    layout,
    bundles: [{ layout, edges, highlight: null, wideFrom: 24 }],
    dots: [],
    marks: [],
    table: colormap("light"),
    signed: false,
    ink: "#333",
  };
}

/** @param {number} [budget] @param {(win: Window & typeof globalThis) => void} [prepare]  before the layer is made */
function setUp(budget, prepare) {
  const dom = makeDom();
  prepare?.(/** @type {any} */ (dom.window));
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
 * took that long): each period lasts `length` ms from its start. Messages posted during a period
 * run as tasks after its idle callback, as in a browser whose event loop has nothing else to do.
 * @param {Window & typeof globalThis} win
 */
function handRunIdle(win) {
  let clock = 0;
  win.performance.now = () => clock;
  // Only this window's canvases: every context they hand out advances the clock as it strokes.
  const getContext = win.HTMLCanvasElement.prototype.getContext;
  win.HTMLCanvasElement.prototype.getContext = /** @type {any} */ (
    function (/** @type {any[]} */ ...args) {
      const ctx = getContext.apply(this, /** @type {any} */ (args));
      if (ctx && !Object.hasOwn(ctx, "stroke")) {
        ctx.stroke = () => {
          clock += 0.1 * ctx.path.length;
          RecordingContext.prototype.stroke.call(ctx);
        };
      }
      return ctx;
    }
  );
  /** @type {Function[]} */
  const queued = [];
  win.requestIdleCallback = /** @type {any} */ ((/** @type {Function} */ callback) => queued.push(callback));
  /** @type {Array<{ onmessage: Function | null }>} */
  const messages = [];
  win.MessageChannel = /** @type {any} */ (
    class {
      port1 = { onmessage: null };
      port2 = { postMessage: () => messages.push(this.port1) };
    }
  );
  return {
    queued,
    /**
     * One idle period, then the tasks it posted; `between` runs after the first task (input).
     * @param {number} length @param {() => void} [between]
     * @returns {number[]} how long each task took, the idle callback first
     */
    period(length, between) {
      const start = clock;
      const tasks = [];
      for (let task = queued.shift(); task; task = messages.shift()?.onmessage ?? undefined) {
        const before = clock;
        task({ timeRemaining: () => Math.max(0, length - (clock - start)), didTimeout: false });
        tasks.push(Math.round((clock - before) * 10) / 10);
        if (tasks.length === 1) between?.();
      }
      return tasks;
    },
  };
}

/** A layer on a hand-run idle clock. @param {(win: Window & typeof globalThis) => void} [prepare] */
function setUpHandRun(prepare) {
  /** @type {ReturnType<typeof handRunIdle> | undefined} */
  let idle;
  const set = setUp(undefined, (win) => {
    prepare?.(win);
    idle = handRunIdle(win);
  });
  return { ...set, idle: /** @type {ReturnType<typeof handRunIdle>} */ (idle) };
}

// Three colour buckets of 30 edges: three strokes of 3 ms each on the hand-run clock.
const large = [...Array(30).fill(1), ...Array(30).fill(0.5), ...Array(30).fill(0.1)];
const huge = Array(200).fill(1); // one stroke of 20 ms

test("a picture is drawn ahead in slices of at most 8 ms, one task after another while the idle period lasts", () => {
  const { layer, ctx, show, idle } = setUpHandRun();
  show([0.9]);
  layer.drawAhead([() => sceneOf(large), () => sceneOf(huge)]);
  // Keep the picture shown; two strokes (the third would overrun the slice); the third; then
  // the huge stroke is longer than a slice: it waits for a period that starts with room for it.
  assert.deepEqual(idle.period(45), [0, 6, 3, 0]);
  assert.equal(idle.queued.length, 1, "more to draw in the next period");
  assert.deepEqual(idle.period(30), [0], "too short for a stroke longer than a slice");
  assert.deepEqual(idle.period(45), [20], "as long as periods get: drawn, although it overruns the slice");
  assert.equal(idle.queued.length, 0, "nothing left to do");
  assert.equal(show(large), "copy");
  const drawnAhead = JSON.stringify(ctx.strokes);
  const fresh = setUp();
  assert.equal(fresh.show(large), "strokes");
  assert.equal(drawnAhead, JSON.stringify(fresh.ctx.strokes), "the strokes of a picture drawn on demand");
  assert.equal(show(huge), "copy");
});

test("a paint on its way stops the drawing ahead until the next idle period", () => {
  const { layer, show, idle } = setUpHandRun();
  show([0.9]);
  layer.drawAhead([() => sceneOf(large)]);
  assert.deepEqual(
    idle.period(45, () => layer.paintComing()),
    [0, 0],
    "kept the picture shown, then stopped",
  );
  assert.equal(idle.queued.length, 1, "waits for the next period");
  assert.deepEqual(idle.period(45), [6, 3]);
  assert.equal(show(large), "copy");
});

test("input waiting stops a slice after the stroke being drawn, and the period with it", () => {
  let inputAt = 1; // ms on the hand-run clock: during the first stroke drawn ahead
  const { layer, show, idle } = setUpHandRun((win) => {
    const isInputPending = () => win.performance.now() >= inputAt;
    Object.defineProperty(win.navigator, "scheduling", { value: { isInputPending } });
  });
  show([0.9]);
  layer.drawAhead([() => sceneOf(large)]);
  assert.deepEqual(idle.period(45), [0, 3, 0], "kept the picture, one stroke, then nothing more this period");
  inputAt = Infinity; // handled
  assert.deepEqual(idle.period(45), [6], "the rest in the next period");
  assert.equal(show(large), "copy");
});

test("an idle period too short for the next stroke draws nothing", () => {
  const { layer, show, idle } = setUpHandRun();
  show([0.9]);
  idle.period(45); // keeps the picture shown
  layer.drawAhead([() => sceneOf(huge)]);
  idle.period(45); // one stroke of 200 edges: the rate is learnt
  show([0.8]);
  layer.drawAhead([() => sceneOf(Array(60).fill(1))]);
  for (let i = 0; i < 5; i++) idle.period(4); // about 6 ms needed, 4 given
  assert.equal(idle.queued.length, 1, "still queued");
  idle.period(10);
  assert.equal(show(Array(60).fill(1)), "copy");
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
