// A widget model that lives in the page, for exported HTML files (and the test harness):
// the state a kernel would send, with binary values given as base64.

import { PICKS, VIEW_OPTIONS } from "./options.js";
import { render } from "./render.js";

/**
 * Turn exported state back into what a kernel sends: {base64} at any depth becomes a DataView.
 * @param {any} value
 * @returns {any}
 */
export function decodeState(value) {
  if (Array.isArray(value)) return value.map(decodeState);
  if (value && typeof value === "object") {
    if ("base64" in value) {
      const binary = atob(value.base64);
      const bytes = new Uint8Array(binary.length);
      for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
      return new DataView(bytes.buffer);
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, decodeState(v)]));
  }
  return value;
}

/** What a save records: every trait the front end may change, as a kernel would receive them. */
const SAVED = [...VIEW_OPTIONS.map((option) => option.trait), ...PICKS];

/**
 * An in-page stand-in for the anywidget model: get/set/on/off/save_changes/send.
 * @param {Record<string, any>} state  exported state (binary values as {base64})
 */
export function createStandaloneModel(state) {
  const traits = new Map(Object.entries(decodeState(state)));
  /** @type {Map<string, Set<Function>>} */
  const listeners = new Map();
  /** @type {object[]} */
  const saved = [];
  return {
    saved,
    /** @param {string} name */
    get: (name) => traits.get(name),
    /** @param {string} name @param {any} value */
    set(name, value) {
      traits.set(name, value);
      for (const callback of listeners.get(`change:${name}`) ?? []) callback();
    },
    save_changes() {
      saved.push(Object.fromEntries(SAVED.map((k) => [k, traits.get(k)])));
    },
    /** @param {string} event @param {Function} callback */
    on(event, callback) {
      if (!listeners.has(event)) listeners.set(event, new Set());
      listeners.get(event)?.add(callback);
    },
    /** @param {string} event @param {Function} callback */
    off(event, callback) {
      listeners.get(event)?.delete(callback);
    },
    send() {}, // no kernel: nothing to compute on request
  };
}

/**
 * Render a widget from exported state into an element; returns the model and the cleanup.
 * @param {HTMLElement} el
 * @param {Record<string, any>} state
 */
export function renderStandalone(el, state) {
  const model = createStandaloneModel(state);
  const cleanup = render({ model: /** @type {any} */ (model), el });
  return { model, cleanup };
}
