// The canvas that holds a scene's edges without highlight. Without a GPU, Chromium rasterises
// canvas strokes in software, 5 to 13 µs per hairline curve by the machine
// (benchmarks/RESULTS.md), most of a frame at 128 tokens, so this canvas is redrawn only when
// its edges change: a hover or pin draws on the overlay canvas above it and dims this one with
// CSS opacity. While the page is idle, the picture shown is copied aside and the next ones the
// user is likely to ask for are drawn ahead, so stepping through layers or heads, switching
// method or view, or going back to a view, is one copy instead of a redraw. Pictures are drawn
// ahead in slices of a few strokes, at most SLICE ms each, so idle work never keeps the user's
// next input waiting for long, however large the picture.

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
 * geometry on the edge canvas (data-left-x, ...: for tests and benchmarks).
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
  Object.assign(canvas.dataset, { leftX: String(layout.leftX), rightX: String(layout.rightX), top: String(layout.top), rowHeight: String(layout.rowHeight) });
  return dpr;
}

/**
 * @param {HTMLCanvasElement} canvas  the edge canvas
 * @param {number} [budget]  bytes of kept pictures
 */
export function createEdgeLayer(canvas, budget = BUDGET) {
  const doc = canvas.ownerDocument;
  const win = /** @type {Window & typeof globalThis} */ (doc.defaultView);
  /** @type {Map<string, Shown & { copy: HTMLCanvasElement }>} least recently used first */
  const kept = new Map();
  let bytes = 0;
  /** @type {Shown | null} the picture on the canvas */
  let shown = null;

  /** @param {string} key */
  const forget = (key) => {
    const entry = kept.get(key);
    if (!entry) return;
    kept.delete(key);
    bytes -= entry.copy.width * entry.copy.height * 4;
    entry.copy.width = 0; // frees the bitmap now, not at garbage collection
  };

  /** @param {Shown & { copy: HTMLCanvasElement }} entry */
  const remember = (entry) => {
    kept.set(entry.key, { key: entry.key, bundles: entry.bundles, copy: entry.copy }); // not a job's generator
    bytes += entry.copy.width * entry.copy.height * 4;
    for (const key of kept.keys()) {
      if (bytes <= budget || key === entry.key) break;
      forget(key);
    }
  };

  /** Is this the picture on the canvas? @param {string} key @param {import("./scene.js").Bundle[]} bundles */
  const isShown = (key, bundles) => shown !== null && shown.key === key && sameEdges(shown.bundles, bundles);

  /** @param {string} key @param {import("./scene.js").Bundle[]} bundles */
  const keptPicture = (key, bundles) => {
    const hit = kept.get(key);
    return hit && sameEdges(hit.bundles, bundles) ? hit : null;
  };

  /** @param {number} width @param {number} height */
  const newCanvas = (width, height) => {
    const copy = /** @type {HTMLCanvasElement} */ (doc.createElement("canvas"));
    copy.width = width;
    copy.height = height;
    return copy;
  };

  // Idle work: first keep the picture shown, then draw ahead.
  /** @type {Shown | null} */
  let toKeep = null;
  /** @type {Array<() => import("./scene.js").Scene | null>} */
  let ahead = [];
  /** @type {Job | null} */
  let job = null;
  /** @type {Shown | null} the picture shown when `ahead` was queued */
  let aheadFor = null;
  let scale = 1; // device pixels per CSS pixel of the last picture shown
  let idle = 0;
  // Milliseconds per edge, measured while drawing ahead (decaying sums: the timer is coarse).
  let spentMs = FIRST_RATE;
  let spentEdges = 1;
  let skips = 0;

  /** The next picture queued ahead that is not kept already, ready for its first stroke. */
  const startJob = () => {
    while (ahead.length) {
      const scene = /** @type {() => import("./scene.js").Scene | null} */ (ahead.shift())();
      if (!scene) continue;
      const { width, height } = pixelSize(scene.layout, scale);
      const key = keyOf(scene, width, height, scale);
      if (keptPicture(key, scene.bundles) || isShown(key, scene.bundles)) continue;
      const copy = newCanvas(width, height);
      const ctx = copy.getContext("2d");
      if (!ctx) continue;
      ctx.setTransform(scale, 0, 0, scale, 0, 0);
      const strokes = baseStrokes(ctx, scene);
      const next = strokes.next();
      if (!next.done) return { key, bundles: scene.bundles, copy, ctx, strokes, next };
      copy.width = 0; // no edges: nothing worth keeping
    }
    return null;
  };

  const dropJob = () => {
    if (job) job.copy.width = 0;
    job = null;
  };

  /** End of the idle period being used, in `performance.now()` milliseconds (0: none). */
  let periodEnd = 0;
  let continuing = false; // a message to go on within the idle period is posted
  const channel = win.MessageChannel ? new win.MessageChannel() : null;
  const scheduling = /** @type {{ scheduling?: { isInputPending?: () => boolean } }} */ (win.navigator).scheduling;
  /** Is user input waiting (Chromium; elsewhere unknown, so no)? */
  const inputPending = () => scheduling?.isInputPending?.() ?? false;

  let onScreen = true; // a widget scrolled out of view draws nothing ahead: a notebook may hold many

  /** @param {IdleDeadline} [deadline]  absent where idle callbacks are emulated with timers */
  const onIdle = (deadline) => {
    idle = 0;
    if (!onScreen) return;
    const room = deadline?.timeRemaining() ?? SLICE;
    periodEnd = win.performance.now() + room;
    const drew = slice(room, room >= IDLE_ASK);
    if ((job || ahead.length) && !drew && ++skips > MAX_SKIPS) {
      dropJob(); // the page is never idle for long enough
      ahead = [];
    }
  };
  // Chromium calls back once per idle period (50 ms when nothing happens). Between slices the
  // work goes on in a task of its own, so input and the page's other tasks run in between, while
  // the rest of the period is still used.
  const onMessage = () => {
    continuing = false;
    if (!onScreen) return;
    const room = periodEnd - win.performance.now();
    if (room >= 1 && !inputPending()) slice(room, false);
    else nextPeriod();
  };

  /**
   * At most SLICE ms of idle work: keep the picture shown, or a few strokes of one drawn ahead.
   * @param {number} room  milliseconds left of the idle period
   * @param {boolean} roomy  a stroke longer than a slice may start
   * @returns {boolean} whether a stroke was drawn
   */
  const slice = (room, roomy) => {
    const started = win.performance.now();
    const left = () => Math.min(room, SLICE) - (win.performance.now() - started);
    const keeping = toKeep;
    toKeep = null;
    if (keeping && shown === keeping && !kept.has(keeping.key)) {
      const copy = newCanvas(canvas.width, canvas.height);
      copy.getContext("2d")?.drawImage(canvas, 0, 0);
      remember({ ...keeping, copy });
    }
    let strokes = 0;
    // A new picture starts a slice of its own, with the whole slice ahead: making its scene
    // takes up to 12 ms (a whole-model frame, or a method's first frame).
    if (!job && !keeping && room >= SLICE) job = startJob();
    while (job && left() > 0) {
      if (strokes > 0 && inputPending()) break; // a click or key press waits for this stroke only
      const edges = /** @type {number} */ (job.next.value);
      // A stroke that may not fit waits for the next slice, unless this one is as long as they get.
      if ((edges * spentMs) / spentEdges > left() && (strokes > 0 || !roomy)) break;
      const before = win.performance.now();
      job.next = job.strokes.next(); // this stroke, then the next one's path
      job.ctx.getImageData(0, 0, 1, 1); // rasterise now, while idle, not when it is shown
      spentMs = 0.9 * spentMs + (win.performance.now() - before);
      spentEdges = 0.9 * spentEdges + edges;
      strokes++;
      if (job.next.done) {
        remember(job);
        job = null;
      }
    }
    if (strokes > 0) skips = 0;
    if (!(toKeep || job || ahead.length)) return strokes > 0;
    // Go on while the period lasts, unless this slice could do nothing: the next would not either.
    if (channel && (strokes > 0 || keeping) && periodEnd - win.performance.now() >= 1) {
      continuing = true;
      channel.port2.postMessage(null);
    } else nextPeriod();
    return strokes > 0;
  };
  const nextPeriod = () => {
    periodEnd = 0;
    schedule();
  };
  const schedule = () => {
    if (!idle && !continuing) idle = win.requestIdleCallback ? win.requestIdleCallback(onIdle) : win.setTimeout(onIdle, 100);
  };
  if (channel) channel.port1.onmessage = onMessage;
  const cancel = () => {
    periodEnd = 0;
    channel?.port1.close();
    if (!idle) return;
    if (win.cancelIdleCallback) win.cancelIdleCallback(idle);
    else win.clearTimeout(idle);
    idle = 0;
  };

  return {
    /**
     * Show the scene's edges; nothing is drawn when the canvas already holds them.
     * @param {import("./scene.js").Scene} scene
     * @param {number} pixelScale  device pixels per CSS pixel
     * @returns {"unchanged" | "copy" | "strokes"}  how the canvas got its picture
     */
    show(scene, pixelScale) {
      periodEnd = 0; // the page is busy: idle work waits for the next idle period
      scale = pixelScale;
      const { width, height } = canvas;
      const key = keyOf(scene, width, height, scale);
      if (isShown(key, scene.bundles)) return "unchanged";
      const ctx = canvas.getContext("2d");
      if (!ctx) return "unchanged";
      ahead = [];
      dropJob();
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.clearRect(0, 0, width, height);
      const hit = keptPicture(key, scene.bundles);
      shown = { key, bundles: scene.bundles };
      if (hit) {
        ctx.drawImage(hit.copy, 0, 0);
        kept.delete(key); // most recently used now
        kept.set(key, hit);
        return "copy";
      }
      ctx.setTransform(scale, 0, 0, scale, 0, 0);
      drawBase(ctx, scene);
      toKeep = shown;
      schedule();
      return "strokes";
    },
    /**
     * Draw these scenes ahead while the page is idle, at the scale of the last one shown
     * (replacing any not drawn yet).
     * @param {Array<() => import("./scene.js").Scene | null>} scenes  made only when their turn comes
     */
    drawAhead(scenes) {
      if (aheadFor === shown) return; // already queued for this picture (a repaint for a hover)
      aheadFor = shown;
      // No more than fit beside the picture shown: one drawn ahead must not push out another.
      const room = Math.floor(budget / (canvas.width * canvas.height * 4)) - 1;
      ahead = scenes.slice(0, Math.max(0, room));
      if (ahead.length) schedule();
    },
    /** A paint is coming (the page is busy): idle work waits for the next idle period. */
    paintComing() {
      periodEnd = 0;
    },
    /** The widget came into view or left it. @param {boolean} value */
    setOnScreen(value) {
      onScreen = value;
      if (value && (toKeep || job || ahead.length)) schedule();
    },
    /** The canvas was cleared (resized): draw again on the next show. */
    invalidate() {
      shown = null;
    },
    destroy() {
      cancel();
      ahead = [];
      dropJob();
      toKeep = null;
      for (const key of [...kept.keys()]) forget(key);
      shown = null;
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
    l.width, l.height, l.top, l.rowHeight, l.leftX, l.rightX, l.first, l.last, wideFrom, edges.count, edges.max, hashOf(edges),
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
