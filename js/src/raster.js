// The canvas that holds a scene's edges without highlight. Without a GPU, Chromium rasterises
// canvas strokes in software at about 13 µs per hairline curve (benchmarks/RESULTS.md), most
// of a frame at 128 tokens, so this canvas is redrawn only when its edges change: a hover or
// pin draws on the overlay canvas above it and dims this one with CSS opacity. While the page
// is idle, the picture shown is copied aside and the next ones the user is likely to ask for
// (one layer or head away) are drawn ahead, so stepping through layers or heads, or going
// back to a view, is one copy instead of a redraw.

import { drawBase } from "./scene.js";

/** Bytes of kept pictures per widget: 21 views of 1000 × 586 device pixels, 5 at twice that
 * resolution (a picture is 4 bytes per device pixel). */
const BUDGET = 48 * 1024 * 1024;
/** Pictures with more edges are not drawn ahead: an idle task that long (over about 20 ms
 * in software) would delay the user's next input by as much. */
const AHEAD_MAX_EDGES = 1500;
/** Idle periods last at most 50 ms: wait for no more than this, or one slow picture would stop
 * the drawing ahead for good. */
const IDLE_ASK = 40;

/**
 * @typedef {object} Shown
 * @property {string} key   size, geometry, colours and a hash of the edges
 * @property {import("./scene.js").Bundle[]} bundles  compared exactly: a hash match is not enough
 */

/**
 * @param {HTMLCanvasElement} canvas  the edge canvas
 * @param {number} [budget]  bytes of kept pictures
 */
export function createEdgeLayer(canvas, budget = BUDGET) {
  const doc = canvas.ownerDocument;
  const win = /** @type {Window} */ (doc.defaultView);
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
    kept.set(entry.key, entry);
    bytes += entry.copy.width * entry.copy.height * 4;
    for (const key of kept.keys()) {
      if (bytes <= budget || key === entry.key) break;
      forget(key);
    }
  };

  /** @param {string} key @param {import("./scene.js").Bundle[]} bundles */
  const keptPicture = (key, bundles) => {
    const hit = kept.get(key);
    return hit && sameEdges(hit.bundles, bundles) ? hit : null;
  };

  /** A canvas of the edge canvas's size. @param {(ctx: CanvasRenderingContext2D) => void} draw */
  const offscreen = (draw) => {
    const copy = /** @type {HTMLCanvasElement} */ (doc.createElement("canvas"));
    copy.width = canvas.width;
    copy.height = canvas.height;
    const ctx = copy.getContext("2d");
    if (ctx) draw(ctx);
    return copy;
  };

  // Idle work: first keep the picture shown, then draw ahead, one picture per idle period.
  /** @type {Shown | null} */
  let toKeep = null;
  /** @type {Array<() => import("./scene.js").Scene | null>} */
  let ahead = [];
  /** @type {Shown | null} the picture shown when `ahead` was queued */
  let aheadFor = null;
  let scale = 1; // device pixels per CSS pixel of the last picture shown
  let idle = 0;
  let aheadCost = 10; // ms the last picture drawn ahead took: start one only if the idle period allows
  let skipped = 0;
  /** @param {IdleDeadline} [deadline]  absent where idle callbacks are emulated with timers */
  const work = (deadline) => {
    idle = 0;
    if (toKeep) {
      const picture = toKeep;
      toKeep = null;
      if (shown === picture && !kept.has(picture.key)) remember({ ...picture, copy: offscreen((ctx) => ctx.drawImage(canvas, 0, 0)) });
    } else if (ahead.length && (deadline?.timeRemaining() ?? Infinity) < Math.min(aheadCost, IDLE_ASK)) {
      // Not enough time before the next frame: a long task now would delay the user's input.
      if (++skipped > 50) ahead = [];
    } else {
      skipped = 0;
      const started = win.performance.now();
      const scene = ahead.shift()?.() ?? null;
      const key = scene ? keyOf(scene, canvas.width, canvas.height, scale) : "";
      if (scene && edgeCount(scene.bundles) <= AHEAD_MAX_EDGES && !keptPicture(key, scene.bundles)) {
        const copy = offscreen((ctx) => {
          ctx.setTransform(scale, 0, 0, scale, 0, 0);
          drawBase(ctx, scene);
          ctx.getImageData(0, 0, 1, 1); // rasterise now, while idle, not when it is shown
        });
        remember({ key, bundles: scene.bundles, copy });
        aheadCost = win.performance.now() - started;
      }
    }
    if (toKeep || ahead.length) schedule();
  };
  const schedule = () => {
    if (!idle) idle = win.requestIdleCallback ? win.requestIdleCallback(work) : win.setTimeout(work, 100);
  };
  const cancel = () => {
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
      scale = pixelScale;
      const { width, height } = canvas;
      const key = keyOf(scene, width, height, scale);
      if (shown && shown.key === key && sameEdges(shown.bundles, scene.bundles)) return "unchanged";
      const ctx = canvas.getContext("2d");
      if (!ctx) return "unchanged";
      ahead = [];
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
     * Draw these scenes ahead while the page is idle, at the size of the last one shown
     * (replacing any not drawn yet).
     * @param {Array<() => import("./scene.js").Scene | null>} scenes  made only when their turn comes
     */
    drawAhead(scenes) {
      if (aheadFor === shown) return; // already queued for this picture (a repaint for a hover)
      aheadFor = shown;
      if (shown && edgeCount(shown.bundles) > AHEAD_MAX_EDGES) return; // the next ones would be as large
      // No more than fit beside the picture shown: one drawn ahead must not push out another.
      const room = Math.floor(budget / (canvas.width * canvas.height * 4)) - 1;
      ahead = scenes.slice(0, Math.max(0, room));
      if (ahead.length) schedule();
    },
    /** The canvas was cleared (resized): draw again on the next show. */
    invalidate() {
      shown = null;
    },
    destroy() {
      cancel();
      ahead = [];
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

/** @param {import("./scene.js").Bundle[]} bundles */
function edgeCount(bundles) {
  return bundles.reduce((sum, b) => sum + b.edges.count, 0);
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
