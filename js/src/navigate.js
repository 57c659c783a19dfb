// Moving through a long input: which token rows the graph shows (the `window` trait, [first
// row, rows shown]), and how the wheel, the keys, the minimap and the markers of edges that
// leave the window change it. Pure arithmetic: render.js and navigate_events.js apply it.

import { speaker } from "./i18n.js";
import { LEGIBLE_ROW, MAX_PLOT_HEIGHT } from "./layout.js";

/**
 * Every user-visible string of the navigation, in the widget's language (i18n.js).
 * @param {string} lang
 */
export function navigateWords(lang) {
  const say = speaker(lang);
  return {
    /** A marker of edges to tokens above or below the window. @param {boolean} up @param {number} count */
    more: (up, count) => say(up ? "↑ {n} more" : "↓ {n} more", { n: count }),
    markerTitle: say("Edges to tokens outside the rows shown. Click to scroll to the strongest one."),
    minimap: say(
      "The whole text, one tick per token (colour: weight for the focused token, else attention received); the box is the rows shown. Click or drag to move it.",
    ),
    windowTitle: say(
      "Token rows shown: 'fit' shows as many as have legible labels; the wheel and + / - over the graph change it too",
    ),
    windowAuto: say("fit"),
    windowAll: say("all"),
    plotHelp: say(
      "Attention graph. Arrow keys move between tokens and columns, Enter pins a token, Escape unpins. Long texts: the wheel, Page Up, Page Down, Home and End scroll the rows; Ctrl or ⌘ with the wheel, or + and -, zoom.",
    ),
    /** @param {number} k */
    thinned: (k) => say("1 token in {k} labelled: hover a row for its token", { k }),
    /** The rows shown, numbered as the value list numbers tokens (#0 first). @param {number} first @param {number} last @param {number} n */
    rows: (first, last, n) => say("tokens #{first}–#{last} of {n}", { first, last, n }),
  };
}

/** Fewest rows a zoom shows. */
export const MIN_ROWS = 8;
/** Each zoom step shows this many times more (or fewer) rows. */
const ZOOM_STEP = 1.5;

/** @typedef {{ start: number, size: number }} Window  rows start..start + size - 1 */

/** How many rows the plot shows with every label legible. */
export function legibleRows() {
  return Math.floor(MAX_PLOT_HEIGHT / LEGIBLE_ROW);
}

/**
 * The rows shown for a `window` trait value: size 0 ("fit") shows every token when they all fit
 * legibly, else the first legibleRows(); a size beyond n shows all n.
 * @param {number} n @param {Window} window
 * @returns {Window}
 */
export function shownWindow(n, window) {
  const size = Math.max(1, Math.min(n, window.size > 0 ? window.size : legibleRows()));
  return { start: Math.max(0, Math.min(window.start, n - size)), size };
}

/** The trait value of a window. @param {Window} window @returns {[number, number]} */
export function traitOf(window) {
  return [window.start, window.size];
}

/**
 * The window moved by `rows` (negative: up), kept inside 0..n-1.
 * @param {number} n @param {Window} window  as shown @param {number} rows
 * @returns {Window}
 */
export function scrolled(n, window, rows) {
  return { start: Math.max(0, Math.min(n - window.size, window.start + Math.round(rows))), size: window.size };
}

/**
 * The smallest move that shows row `index`.
 * @param {number} n @param {Window} window @param {number} index
 * @returns {Window}
 */
export function revealed(n, window, index) {
  if (index < window.start) return scrolled(n, window, index - window.start);
  if (index >= window.start + window.size) return scrolled(n, window, index - (window.start + window.size - 1));
  return window;
}

/**
 * The window with row `index` in its middle (as near as the ends allow).
 * @param {number} n @param {Window} window @param {number} index
 * @returns {Window}
 */
export function centredOn(n, window, index) {
  return scrolled(n, window, index - Math.floor(window.size / 2) - window.start);
}

/**
 * The window zoomed by `steps` (positive: in, fewer and taller rows; negative: out), keeping
 * row `anchor` where it is on screen (the focused token, else the middle row). A step out from
 * fewer rows than fit legibly stops at legibleRows() first; out from there it goes on to all n
 * rows, with labels thinned (layout.js labelEvery).
 * @param {number} n @param {Window} window  as shown @param {number} steps
 * @param {number | null} [anchor]  a row; null or outside the window: the middle row
 * @returns {Window}
 */
export function zoomed(n, window, steps, anchor = null) {
  const fit = Math.min(n, legibleRows());
  let size = window.size;
  for (let s = 0; s < Math.abs(steps); s++) {
    const next = steps > 0 ? Math.floor(size / ZOOM_STEP) : Math.ceil(size * ZOOM_STEP);
    const crossesFit = (size < fit && next > fit) || (size > fit && next < fit);
    size = crossesFit ? fit : next;
  }
  size = Math.max(Math.min(MIN_ROWS, n), Math.min(n, size));
  const inside = anchor !== null && anchor >= window.start && anchor < window.start + window.size;
  const at = inside ? /** @type {number} */ (anchor) : window.start + Math.floor(window.size / 2);
  // The anchor keeps its share of the rows above it.
  const share = (at - window.start + 0.5) / window.size;
  const start = Math.round(at + 0.5 - share * size);
  return revealed(n, { start: Math.max(0, Math.min(n - size, start)), size }, at);
}

/**
 * The `window` trait value for a size picked in the Token rows menu (0: fit), from the window shown:
 * row `anchor` (the pinned token) stays in view, where it was on screen when it was shown, else
 * in the middle; with no anchor the first row stays.
 * @param {number} n @param {Window} window  as shown @param {number} size  the trait's (0: fit)
 * @param {number | null} anchor
 * @returns {Window}
 */
export function resized(n, window, size, anchor) {
  if (anchor === null || anchor < 0 || anchor >= n) return { start: window.start, size };
  const rows = shownWindow(n, { start: 0, size }).size;
  const inside = anchor >= window.start && anchor < window.start + window.size;
  // As zoomed: the anchor keeps its share of the rows above it.
  const share = inside ? (anchor - window.start + 0.5) / window.size : 0.5;
  const start = Math.round(anchor + 0.5 - share * rows);
  return { start: revealed(n, { start: Math.max(0, Math.min(n - rows, start)), size: rows }, anchor).start, size };
}

/**
 * Rows one wheel event scrolls: pixel deltas move the rows as far as the pointer would move a
 * page (one row per row height), line deltas one row per line, page deltas a window less a row.
 * @param {{ deltaY: number, deltaMode: number }} event  WheelEvent fields (deltaMode 0 pixels, 1 lines, 2 pages)
 * @param {number} rowHeight  CSS pixels
 * @param {number} size  rows shown
 */
export function wheelRows(event, rowHeight, size) {
  if (event.deltaMode === 1) return event.deltaY;
  if (event.deltaMode === 2) return event.deltaY * Math.max(1, size - 1);
  return event.deltaY / rowHeight;
}

/**
 * What a wheel event does to the window, given the rows it scrolls (wheelRows, plus what the
 * last events left over): the window moved, or null when the event is not the graph's to take:
 * every row is shown, or the window is at its end in the wheel's direction (the page scrolls on,
 * as a scrolled box lets the page scroll once it is at its end).
 * @param {number} n @param {Window} window  as shown @param {number} rows
 * @returns {{ window: Window, left: number } | null}  left: the fraction of a row not yet scrolled
 */
export function wheelScroll(n, window, rows) {
  if (window.size >= n || rows === 0) return null;
  if ((rows < 0 && window.start === 0) || (rows > 0 && window.start + window.size >= n)) return null;
  const whole = Math.trunc(rows);
  return { window: scrolled(n, window, whole), left: rows - whole };
}

/**
 * What a key does to the window while the graph has the focus, or null (not a window key).
 * @param {number} n @param {Window} window  as shown @param {string} key  KeyboardEvent.key
 * @param {number | null} focused  the focused row, the zoom's anchor
 * @returns {Window | null}
 */
export function keyWindow(n, window, key, focused) {
  switch (key) {
    case "PageDown":
      return scrolled(n, window, Math.max(1, window.size - 1));
    case "PageUp":
      return scrolled(n, window, -Math.max(1, window.size - 1));
    case "Home":
      return scrolled(n, window, -n);
    case "End":
      return scrolled(n, window, n);
    case "+":
    case "=":
      return zoomed(n, window, 1, focused);
    case "-":
    case "_":
      return zoomed(n, window, -1, focused);
    default:
      return null;
  }
}

/**
 * @typedef {object} Marker  edges from shown rows to tokens beyond one end of the window, in one column
 * @property {"source" | "target"} side   the column the tokens outside are in
 * @property {"up" | "down"} direction    above the window or below it
 * @property {number} count               edges
 * @property {number} index               the token at the end of the strongest of them
 * @property {number} weight              that edge's weight
 */

/**
 * The markers of the edges with one end in the window and the other outside it: per column and
 * direction, how many, and the strongest. Only `only`'s edges when given (a focused token's).
 * @param {import("./edges.js").EdgeList} edges
 * @param {Window} window  as shown
 * @param {Iterable<number> | null} [only]  edge indices
 * @returns {Marker[]}  in the order top left, top right, bottom left, bottom right (those with edges)
 */
export function offWindowMarkers(edges, window, only = null) {
  const first = window.start;
  const last = window.start + window.size - 1;
  /** @type {Map<string, Marker>} */
  const found = new Map();
  /** @param {"source" | "target"} side @param {number} outside @param {number} e */
  const add = (side, outside, e) => {
    const direction = outside < first ? "up" : "down";
    const key = `${direction} ${side}`;
    const weight = edges.weight[e];
    const marker = found.get(key);
    if (!marker) found.set(key, { side, direction, count: 1, index: outside, weight });
    else {
      marker.count++;
      if (Math.abs(weight) > Math.abs(marker.weight)) Object.assign(marker, { index: outside, weight });
    }
  };
  const visit = (/** @type {number} */ e) => {
    const s = edges.source[e];
    const t = edges.target[e];
    const sIn = s >= first && s <= last;
    const tIn = t >= first && t <= last;
    if (sIn && !tIn) add("target", t, e);
    else if (tIn && !sIn) add("source", s, e);
  };
  if (only) for (const e of only) visit(e);
  else for (let e = 0; e < edges.count; e++) visit(e);
  return ["up source", "up target", "down source", "down target"].flatMap((key) => found.get(key) ?? []);
}

/**
 * Per token, what the minimap shows (n,): the focused token's edge weights to each token, or,
 * with nothing focused, each token's column mass (the attention it receives, Σ over receivers).
 * @param {import("./edges.js").EdgeList} edges @param {number} n
 * @param {{ side: "source" | "target", index: number } | null} focus
 * @returns {Float64Array}
 */
export function minimapValues(edges, n, focus) {
  const values = new Float64Array(n);
  for (let e = 0; e < edges.count; e++) {
    if (!focus) values[edges.source[e]] += Math.abs(edges.weight[e]);
    else if (focus.side === "target" && edges.target[e] === focus.index)
      values[edges.source[e]] += Math.abs(edges.weight[e]);
    else if (focus.side === "source" && edges.source[e] === focus.index)
      values[edges.target[e]] += Math.abs(edges.weight[e]);
  }
  return values;
}
