// The canvas that holds a scene's edges without highlight. Without a GPU, Chromium rasterises
// canvas strokes in software, 5 to 13 µs per hairline curve by the machine
// (benchmarks/RESULTS.md), most of a frame at 128 tokens, so this canvas is redrawn only when
// its edges change: a hover or pin draws on the overlay canvas above it and dims this one with
// CSS opacity. While the page is idle, the picture shown is copied aside and the next ones the
// user is likely to ask for are drawn ahead, so stepping through layers or heads, switching
// method or view, or going back to a view, is one copy instead of a redraw. Pictures are drawn
// ahead in slices of a few strokes, at most SLICE ms each, so idle work never keeps the user's
// next input waiting for long, however large the picture.

import { probe } from "./probes.js";
import { baseStrokes, drawBase } from "./scene.js";

/** Bytes of kept pictures per widget: 21 views of 1000 × 586 device pixels, 5 at twice that
 * resolution (a picture is 4 bytes per device pixel). */
const BUDGET = 48 * 1024 * 1024;
/** Milliseconds of idle work in one task at most: input that arrives during a task waits for
 * it (one task filling a whole 50 ms idle period kept a control change waiting up to 50 ms more). */
const SLICE = 8;
/** A stroke longer than a slice still starts first thing in an idle period at least this long,
 * or one slow stroke would stop the drawing ahead. */
const IDLE_ASK = 40;
/** Milliseconds per edge before any were measured: a slow machine's hairline curve. */
const FIRST_RATE = 0.015;
/** Idle periods in a row too short for the next stroke before the drawing ahead gives up. */
const MAX_SKIPS = 50;

/**
 * @typedef {object} Shown
 * @property {string} key   size, geometry, colours and a hash of the edges
 * @property {import("./scene.js").Bundle[]} bundles  compared exactly: a hash match is not enough
 */

/**
 * A picture being drawn ahead, stroke by stroke, on a canvas of its own.
 * @typedef {Shown & { copy: HTMLCanvasElement, ctx: CanvasRenderingContext2D,
 *   strokes: Generator<number, void, void>, next: IteratorResult<number, void> }} Job
 */

/**
 * Size in device pixels of the canvas for a layout.
 * @param {import("./layout.js").Layout} layout @param {number} scale  device pixels per CSS pixel
 */
export function pixelSize(layout, scale) {
  return { width: Math.round(layout.width * scale), height: Math.round(layout.height * scale) };
}

/**
 * Size an edge canvas and the overlay above it to a layout at the page's pixel ratio, and record the
 * geometry on the edge canvas for tests and benchmarks (probes.js: data-left-x, ...).
 * @param {HTMLCanvasElement} canvas @param {HTMLCanvasElement} overlay @param {import("./layout.js").Layout} layout
 * @param {{ invalidate: () => void }} edgeLayer  the edge canvas's layer: a new size drops its kept picture
 * @returns {number} device pixels per CSS pixel
 */
export function fitCanvases(canvas, overlay, layout, edgeLayer) {
  const dpr = canvas.ownerDocument.defaultView?.devicePixelRatio || 1;
  const { width, height } = pixelSize(layout, dpr);
  for (const c of [canvas, overlay]) {
    c.style.width = `${layout.width}px`;
    c.style.height = `${layout.height}px`;
    // Setting a canvas's size clears and reallocates its bitmap, even to the same size.
    if (c.width !== width || c.height !== height) {
      c.width = width;
      c.height = height;
      if (c === canvas) edgeLayer.invalidate();
    }
  }
  probe(canvas, {
    leftX: String(layout.leftX),
    rightX: String(layout.rightX),
    top: String(layout.top),
    rowHeight: String(layout.rowHeight),
  });
  return dpr;
}

/**
 * Pictures kept as canvases of their own, least recently used first, within a budget of bytes.
 * @param {number} budget
 */
function createPictureCache(budget) {
  /** @type {Map<string, Shown & { copy: HTMLCanvasElement }>} least recently used first */
  const kept = new Map();
  let bytes = 0;
  /** @param {string} key */
  const forget = (key) => {
    const entry = kept.get(key);
    if (!entry) return;
    kept.delete(key);
    bytes -= entry.copy.width * entry.copy.height * 4;
    entry.copy.width = 0; // frees the bitmap now, not at garbage collection
  };
  return {
    /** The kept picture of these edges, now the most recently used. @param {string} key @param {import("./scene.js").Bundle[]} bundles */
    take(key, bundles) {
      const hit = this.find(key, bundles);
      if (hit) {
        kept.delete(key);
        kept.set(key, hit);
      }
      return hit;
    },
    /** @param {string} key @param {import("./scene.js").Bundle[]} bundles */
    find(key, bundles) {
      const hit = kept.get(key);
      return hit && sameEdges(hit.bundles, bundles) ? hit : null;
    },
    /** @param {string} key */
    has: (key) => kept.has(key),
    /** Keep a picture, freeing the least recently used beyond the budget. @param {Shown & { copy: HTMLCanvasElement }} entry */
    put(entry) {
      kept.set(entry.key, { key: entry.key, bundles: entry.bundles, copy: entry.copy }); // not a job's generator
      bytes += entry.copy.width * entry.copy.height * 4;
      for (const key of kept.keys()) {
        if (bytes <= budget || key === entry.key) break;
        forget(key);
      }
    },
    clear() {
      for (const key of [...kept.keys()]) forget(key);
    },
  };
}

/**
 * Runs `work` in the page's idle time: first thing in each idle period (requestIdleCallback; a timer where
 * there is none), then, while the work asks for more and the period lasts, in a task of its own after each
 * slice (a posted message), so input and the page's other tasks run in between. Chromium calls back once per
 * idle period (50 ms when nothing happens).
 * @param {Window & typeof globalThis} win
 * @param {(room: number, periodStart: boolean) => { worked: boolean, more: boolean }} work  one slice:
 *   `room` ms are left of the period; whether it did anything, and whether there is more to do
 */
function createIdleLoop(win, work) {
  let idle = 0; // the idle callback asked for
  let periodEnd = 0; // end of the idle period being used, in performance.now() ms (0: none)
  let continuing = false; // a message to go on within the period is posted
  const channel = win.MessageChannel ? new win.MessageChannel() : null;
  const scheduling = /** @type {{ scheduling?: { isInputPending?: () => boolean } }} */ (win.navigator).scheduling;

  /** @param {{ worked: boolean, more: boolean }} done */
  const after = ({ worked, more }) => {
    if (!more) return;
    // Go on while the period lasts, unless this slice could do nothing: the next would not either.
    if (channel && worked && periodEnd - win.performance.now() >= 1) {
      continuing = true;
      channel.port2.postMessage(null);
    } else {
      periodEnd = 0;
      loop.request();
    }
  };
  /** @param {IdleDeadline} [deadline]  absent where idle callbacks are emulated with timers */
  const onIdle = (deadline) => {
    idle = 0;
    const room = deadline?.timeRemaining() ?? SLICE;
    periodEnd = win.performance.now() + room;
    after(work(room, true));
  };
  const onMessage = () => {
    continuing = false;
    const room = periodEnd - win.performance.now();
    if (room >= 1 && !loop.inputPending()) after(work(room, false));
    else after({ worked: false, more: true });
  };
  if (channel) channel.port1.onmessage = onMessage;

  const loop = {
    /** Ask for the next idle period, unless one is asked for or the work goes on in this one. */
    request() {
      if (!idle && !continuing)
        idle = win.requestIdleCallback ? win.requestIdleCallback(onIdle) : win.setTimeout(onIdle, 100);
    },
    /** The page is busy (a paint is coming): the work waits for the next idle period. */
    yieldToPage() {
      periodEnd = 0;
    },
    /** Is user input waiting (Chromium; elsewhere unknown, so no)? */
    inputPending: () => scheduling?.isInputPending?.() ?? false,
    cancel() {
      periodEnd = 0;
      channel?.port1.close();
      if (!idle) return;
      if (win.cancelIdleCallback) win.cancelIdleCallback(idle);
      else win.clearTimeout(idle);
      idle = 0;
    },
  };
  return loop;
}

/**
 * Milliseconds per edge, measured while drawing ahead: decaying sums (the timer is coarse).
 * @typedef {{ ms: number, edges: number }} StrokeRate
 */

/** @param {StrokeRate} rate @param {number} ms @param {number} edges @returns {StrokeRate} */
function measured(rate, ms, edges) {
  return { ms: 0.9 * rate.ms + ms, edges: 0.9 * rate.edges + edges };
}

/**
 * Does a stroke of `edges` start in this slice? One that may not fit in the `left` ms waits for the next
 * slice, unless it is the slice's first and the period is long enough (`roomy`): one slow stroke would
 * otherwise stop the drawing ahead.
 * @param {StrokeRate} rate @param {number} edges @param {number} left @param {boolean} first @param {boolean} roomy
 */
function strokeStarts(rate, edges, left, first, roomy) {
  return (edges * rate.ms) / rate.edges <= left || (first && roomy);
}

/**
 * The edge canvas's layer: shows a scene's edges (a copy when the picture was kept), keeps the picture shown
 * and draws the ones queued ahead in idle time.
 * @param {HTMLCanvasElement} canvas  the edge canvas
 * @param {number} [budget]  bytes of kept pictures
 */
export function createEdgeLayer(canvas, budget = BUDGET) {
  const doc = canvas.ownerDocument;
  const win = /** @type {Window & typeof globalThis} */ (doc.defaultView);
  const pictures = createPictureCache(budget);
  const state = {
    /** @type {Shown | null} the picture on the canvas */
    shown: null,
    /** @type {Shown | null} the picture on the canvas, to copy aside when idle */
    toKeep: null,
    /** @type {Array<() => import("./scene.js").Scene | null>} scenes to draw ahead, made when their turn comes */
    ahead: [],
    /** @type {Shown | null} the picture shown when `ahead` was queued */
    aheadFor: null,
    /** @type {Job | null} the picture being drawn ahead */
    job: null,
    scale: 1, // device pixels per CSS pixel of the last picture shown
    onScreen: true, // a widget scrolled out of view draws nothing ahead: a notebook may hold many
    skips: 0, // idle periods in a row too short for the next stroke
    /** @type {StrokeRate} */
    rate: { ms: FIRST_RATE, edges: 1 },
  };
  const pending = () => Boolean(state.toKeep || state.job || state.ahead.length);

  /** Is this the picture on the canvas? @param {string} key @param {import("./scene.js").Bundle[]} bundles */
  const isShown = (key, bundles) => state.shown?.key === key && sameEdges(state.shown.bundles, bundles);

  /** @param {number} width @param {number} height */
  const newCanvas = (width, height) => {
    const copy = /** @type {HTMLCanvasElement} */ (doc.createElement("canvas"));
    copy.width = width;
    copy.height = height;
    return copy;
  };

  /** The next picture queued ahead that is not kept already, ready for its first stroke. @returns {Job | null} */
  const startJob = () => {
    while (state.ahead.length) {
      const scene = /** @type {() => import("./scene.js").Scene | null} */ (state.ahead.shift())();
      if (!scene) continue;
      const { width, height } = pixelSize(scene.layout, state.scale);
      const key = keyOf(scene, width, height, state.scale);
      if (pictures.find(key, scene.bundles) || isShown(key, scene.bundles)) continue;
      const copy = newCanvas(width, height);
      const ctx = copy.getContext("2d");
      if (!ctx) continue;
      ctx.setTransform(state.scale, 0, 0, state.scale, 0, 0);
      const strokes = baseStrokes(ctx, scene);
      const next = strokes.next();
      if (!next.done) return { key, bundles: scene.bundles, copy, ctx, strokes, next };
      copy.width = 0; // no edges: nothing worth keeping
    }
    return null;
  };

  const dropJob = () => {
    if (state.job) state.job.copy.width = 0;
    state.job = null;
  };

  /** Copy the picture shown aside, if it still is and is not kept yet; whether one was to keep. */
  const keepShown = () => {
    const keeping = state.toKeep;
    state.toKeep = null;
    if (keeping && state.shown === keeping && !pictures.has(keeping.key)) {
      const copy = newCanvas(canvas.width, canvas.height);
      copy.getContext("2d")?.drawImage(canvas, 0, 0);
      pictures.put({ ...keeping, copy });
    }
    return keeping !== null;
  };

  /**
   * At most SLICE ms of idle work: keep the picture shown, or a few strokes of one drawn ahead.
   * @param {number} room  milliseconds left of the idle period
   * @param {boolean} periodStart  the first slice of an idle period
   */
  const slice = (room, periodStart) => {
    if (!state.onScreen) return { worked: false, more: false };
    const started = win.performance.now();
    const left = () => Math.min(room, SLICE) - (win.performance.now() - started);
    const keeping = keepShown();
    let strokes = 0;
    // A new picture starts a slice of its own, with the whole slice ahead: making its scene
    // takes up to 12 ms (a whole-model frame, or a method's first frame).
    if (!state.job && !keeping && room >= SLICE) state.job = startJob();
    while (state.job && left() > 0) {
      const job = state.job;
      if (strokes > 0 && loop.inputPending()) break; // a click or key press waits for this stroke only
      const edges = /** @type {number} */ (job.next.value);
      if (!strokeStarts(state.rate, edges, left(), strokes === 0, periodStart && room >= IDLE_ASK)) break;
      const before = win.performance.now();
      job.next = job.strokes.next(); // this stroke, then the next one's path
      job.ctx.getImageData(0, 0, 1, 1); // rasterise now, while idle, not when it is shown
      state.rate = measured(state.rate, win.performance.now() - before, edges);
      strokes++;
      if (job.next.done) {
        pictures.put(job);
        state.job = null;
      }
    }
    if (strokes > 0) state.skips = 0;
    else if (periodStart && (state.job || state.ahead.length) && ++state.skips > MAX_SKIPS) {
      dropJob(); // the page is never idle for long enough
      state.ahead = [];
    }
    return { worked: strokes > 0 || keeping, more: pending() };
  };
  const loop = createIdleLoop(win, slice);

  return {
    /**
     * Show the scene's edges; nothing is drawn when the canvas already holds them.
     * @param {import("./scene.js").Scene} scene
     * @param {number} pixelScale  device pixels per CSS pixel
     * @returns {"unchanged" | "copy" | "strokes"}  how the canvas got its picture
     */
    show(scene, pixelScale) {
      loop.yieldToPage();
      state.scale = pixelScale;
      const { width, height } = canvas;
      const key = keyOf(scene, width, height, pixelScale);
      if (isShown(key, scene.bundles)) return "unchanged";
      const ctx = canvas.getContext("2d");
      if (!ctx) return "unchanged";
      state.ahead = [];
      dropJob();
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.clearRect(0, 0, width, height);
      const hit = pictures.take(key, scene.bundles);
      state.shown = { key, bundles: scene.bundles };
      if (hit) {
        ctx.drawImage(hit.copy, 0, 0);
        return "copy";
      }
      ctx.setTransform(pixelScale, 0, 0, pixelScale, 0, 0);
      drawBase(ctx, scene);
      state.toKeep = state.shown;
      loop.request();
      return "strokes";
    },
    /**
     * Draw these scenes ahead while the page is idle, at the scale of the last one shown
     * (replacing any not drawn yet).
     * @param {Array<() => import("./scene.js").Scene | null>} scenes  made only when their turn comes
     */
    drawAhead(scenes) {
      if (state.aheadFor === state.shown) return; // already queued for this picture (a repaint for a hover)
      state.aheadFor = state.shown;
      // No more than fit beside the picture shown: one drawn ahead must not push out another.
      const room = Math.floor(budget / (canvas.width * canvas.height * 4)) - 1;
      state.ahead = scenes.slice(0, Math.max(0, room));
      if (state.ahead.length) loop.request();
    },
    /** A paint is coming (the page is busy): idle work waits for the next idle period. */
    paintComing: () => loop.yieldToPage(),
    /** The widget came into view or left it. @param {boolean} value */
    setOnScreen(value) {
      state.onScreen = value;
      if (value && pending()) loop.request();
    },
    /** The canvas was cleared (resized): draw again on the next show. */
    invalidate() {
      state.shown = null;
    },
    destroy() {
      loop.cancel();
      state.ahead = [];
      dropJob();
      state.toKeep = null;
      pictures.clear();
      state.shown = null;
    },
  };
}

/**
 * What decides a picture besides the exact edges: size, geometry, colours, and a hash of the edges.
 * @param {import("./scene.js").Scene} scene @param {number} width @param {number} height  device pixels
 * @param {number} scale
 */
function keyOf(scene, width, height, scale) {
  const bundles = scene.bundles.map(({ layout: l, edges, wideFrom }) => [
    l.width,
    l.height,
    l.top,
    l.rowHeight,
    l.leftX,
    l.rightX,
    l.first,
    l.last,
    wideFrom,
    edges.count,
    edges.max,
    hashOf(edges),
  ]);
  return JSON.stringify([width, height, scale, scene.signed, scene.table, bundles]);
}

/** FNV-1a over the edges. @param {import("./edges.js").EdgeList} edges */
function hashOf(edges) {
  let hash = 0x811c9dc5;
  for (let e = 0; e < edges.count; e++) {
    hash = Math.imul(hash ^ edges.source[e], 0x01000193);
    hash = Math.imul(hash ^ edges.target[e], 0x01000193);
    hash = Math.imul(hash ^ Math.round(edges.weight[e] * 1e9), 0x01000193);
  }
  return hash >>> 0;
}

/** @param {import("./scene.js").Bundle[]} a @param {import("./scene.js").Bundle[]} b */
function sameEdges(a, b) {
  return a.length === b.length && a.every((bundle, i) => equalEdges(bundle.edges, b[i].edges));
}

/** @param {import("./edges.js").EdgeList} a @param {import("./edges.js").EdgeList} b */
function equalEdges(a, b) {
  if (a === b) return true;
  if (a.count !== b.count || a.max !== b.max) return false;
  for (let e = 0; e < a.count; e++) {
    if (a.source[e] !== b.source[e] || a.target[e] !== b.target[e] || a.weight[e] !== b.weight[e]) return false;
  }
  return true;
}
