// Test doubles: an in-memory anywidget model, a jsdom document, and a canvas
// context that records what was drawn (jsdom has no canvas).

import { readFileSync } from "node:fs";
import { JSDOM } from "jsdom";

/** Minimal anywidget model: traits in a Map, change events, a log of saves. */
export class FakeModel {
  /** @param {Record<string, any>} traits */
  constructor(traits) {
    this.traits = new Map(Object.entries(traits));
    /** @type {Map<string, Set<Function>>} */
    this.listeners = new Map();
    this.saves = 0;
    /** @type {object[]} messages sent to the kernel */
    this.sent = [];
  }
  /** @param {object} content */
  send(content) {
    this.sent.push(content);
  }
  /** @param {string} name */
  get(name) {
    return this.traits.get(name);
  }
  /** @param {string} name @param {any} value */
  set(name, value) {
    this.traits.set(name, value);
    for (const callback of this.listeners.get(`change:${name}`) ?? []) callback();
  }
  save_changes() {
    this.saves++;
  }
  /** @param {string} event @param {Function} callback */
  on(event, callback) {
    if (!this.listeners.has(event)) this.listeners.set(event, new Set());
    this.listeners.get(event)?.add(callback);
  }
  /** @param {string} event @param {Function} callback */
  off(event, callback) {
    this.listeners.get(event)?.delete(callback);
  }
  listenerCount() {
    let count = 0;
    for (const set of this.listeners.values()) count += set.size;
    return count;
  }
}

/** A canvas 2D context that records paths and strokes. */
export class RecordingContext {
  constructor() {
    /** @type {Array<{ strokeStyle: string, alpha: number, segments: number[][] }>} */
    this.strokes = [];
    /** @type {number[][]} */
    this.path = [];
    this.strokeStyle = "";
    this.globalAlpha = 1;
    this.lineWidth = 1;
    this.lineCap = "butt";
    this.clears = 0;
  }
  setTransform() {}
  /** Compositing another recorded canvas: its strokes, faded by this context's globalAlpha. */
  drawImage(/** @type {HTMLCanvasElement} */ image) {
    this.images = (this.images ?? 0) + 1;
    const source = /** @type {RecordingContext} */ (/** @type {unknown} */ (image.getContext("2d")));
    for (const s of source.strokes) this.strokes.push({ ...s, alpha: s.alpha * this.globalAlpha });
  }
  getImageData() {
    return { data: new Uint8ClampedArray(4) };
  }
  clearRect() {
    this.clears++;
    this.strokes = [];
  }
  beginPath() {
    this.path = [];
  }
  /** @param {number} x @param {number} y */
  moveTo(x, y) {
    this.path.push([x, y]);
  }
  /** @param {number} x @param {number} y */
  lineTo(x, y) {
    this.path[this.path.length - 1].push(x, y);
  }
  /** @param {...number} args */
  bezierCurveTo(...args) {
    this.path[this.path.length - 1].push(...args);
  }
  stroke() {
    this.strokes.push({ strokeStyle: this.strokeStyle, alpha: this.globalAlpha, segments: this.path });
  }
  /** @param {number} x @param {number} y @param {number} r */
  arc(x, y, r) {
    this.path.push([x, y, r]);
  }
  fill() {}
  fillText() {}
  /** @param {number} x @param {number} y @param {number} w @param {number} h */
  fillRect(x, y, w, h) {
    this.fills ??= [];
    this.fills.push({ fillStyle: this.fillStyle, alpha: this.globalAlpha, rect: [x, y, w, h] });
  }
  /** @param {number} x @param {number} y @param {number} w @param {number} h */
  strokeRect(x, y, w, h) {
    this.rects ??= [];
    this.rects.push({ strokeStyle: this.strokeStyle, rect: [x, y, w, h] });
  }
  setLineDash() {}
  /** @param {number} w @param {number} h */
  createImageData(w, h) {
    return { data: new Uint8ClampedArray(w * h * 4) };
  }
  putImageData() {}
  save() {}
  restore() {}
  rect() {}
  clip() {}
  /** Every segment drawn: [x0, y0, cx1, cy1, cx2, cy2, x1, y1]. */
  segments() {
    return this.strokes.flatMap((s) => s.segments);
  }
}

/** A jsdom window whose canvases draw into RecordingContexts. */
export function makeDom() {
  const dom = new JSDOM("<!doctype html><html><body></body></html>", { pretendToBeVisual: true });
  const contexts = new WeakMap();
  dom.window.HTMLCanvasElement.prototype.getContext = function () {
    if (!contexts.has(this)) contexts.set(this, new RecordingContext());
    return contexts.get(this);
  };
  // jsdom has no idle callbacks: run them as soon as the event loop is free.
  dom.window.requestIdleCallback = (/** @type {() => void} */ callback) => dom.window.setTimeout(callback, 0);
  dom.window.cancelIdleCallback = (/** @type {number} */ id) => dom.window.clearTimeout(id);
  // The view's probes for tests (probes.js): on, as on tests/browser's pages.
  /** @type {any} */ (dom.window).attnwProbes = true;
  return dom;
}

/** @param {string} name fixture written by tests/payload_fixtures.py */
export function fixtureBytes(name) {
  const buffer = readFileSync(new URL(`./fixtures/${name}.bin`, import.meta.url));
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

export const expected = JSON.parse(readFileSync(new URL("./fixtures/expected.json", import.meta.url), "utf8"));

/** Traits of the synthetic widget written by tests/payload_fixtures.py, binary ones as DataViews. */
export function widgetTraits() {
  const state = JSON.parse(readFileSync(new URL("./fixtures/widget_state.json", import.meta.url), "utf8"));
  /** @param {any} value */
  const decode = (value) => {
    if (Array.isArray(value)) return value.map(decode);
    if (value && typeof value === "object") {
      if ("base64" in value) {
        const bytes = Buffer.from(value.base64, "base64");
        return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      }
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, decode(v)]));
    }
    return value;
  };
  return Object.fromEntries(Object.entries(state).map(([name, value]) => [name, decode(value)]));
}

/** An edge list from [source, target, weight] triples. @param {Array<[number, number, number]>} triples */
export function edgeList(triples) {
  return {
    source: Uint16Array.from(triples.map((t) => t[0])),
    target: Uint16Array.from(triples.map((t) => t[1])),
    weight: Float64Array.from(triples.map((t) => t[2])),
    count: triples.length,
    max: Math.max(0, ...triples.map((t) => Math.abs(t[2]))),
  };
}
