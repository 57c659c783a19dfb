// Geometry of the bipartite view: sources in the left column, receivers in the
// right column, one row per token. Hit-testing is index arithmetic.

export const LABEL_WIDTH = 120;
export const HEADER_HEIGHT = 22;
/** Space between an outer column of edges and its token labels; dots stay inside it. */
export const LABEL_GAP = 6;
export const MAX_PLOT_HEIGHT = 560;
const MIN_PLOT_HEIGHT = 120;
const ROW_HEIGHT = 20;
/** Rows at least this tall hold every label legibly (a 12 to 13 px font, boxes that never
 * overlap); in shorter rows only every k-th row is labelled (labelEvery). */
export const LEGIBLE_ROW = 15;
/** A focused (pinned or hovered) token on a thinned row is labelled all the same, in a box this tall
 * (overlay.js; the pinned one in a download too, exporter.js); the labels of rows nearer to it than
 * FOCUS_CLEARANCE give way, so that no text touches its. */
export const FOCUS_LABEL = 18;
export const FOCUS_CLEARANCE = (FOCUS_LABEL + LEGIBLE_ROW) / 2;
/** Height of the strips above and below the rows of a token window, where the edges to tokens
 * outside the window end in a labelled marker (navigate.js). */
export const BAND = 18;

/**
 * @typedef {object} Layout
 * @property {number} width
 * @property {number} height
 * @property {number} n
 * @property {number} top        y of the first row's top edge
 * @property {number} rowHeight
 * @property {number} leftX      x where edges start (right edge of the left labels)
 * @property {number} rightX     x where edges end (left edge of the right labels)
 * @property {number} first      first token row shown (a token window zooms into rows first..last)
 * @property {number} last       last token row shown, inclusive
 * @property {number} band       height of the marker strips above and below the rows (0: every row shown)
 * @property {number} labelEvery  every k-th row is labelled (1: all), so that labels never overlap
 */

/**
 * @param {number} width  available width in CSS pixels
 * @param {number} n      number of tokens
 * @param {{ start: number, size: number }} [window]  show rows start..start+size-1 (size 0: all)
 * @returns {Layout}
 */
export function computeLayout(width, n, window = { start: 0, size: 0 }) {
  const size = window.size > 0 ? Math.min(window.size, n) : n;
  const first = Math.max(0, Math.min(window.start, n - size));
  const plotHeight = Math.max(MIN_PLOT_HEIGHT, Math.min(MAX_PLOT_HEIGHT, size * ROW_HEIGHT));
  const rowHeight = plotHeight / Math.max(size, 1);
  const labelWidth = Math.min(LABEL_WIDTH, Math.max(40, width * 0.22));
  const band = size < n ? BAND : 0;
  return {
    width,
    height: HEADER_HEIGHT + plotHeight + 2 * band + 4,
    n,
    // Rows before the window sit above the plot (and are clipped): indices stay the token's own.
    top: HEADER_HEIGHT + band - first * rowHeight,
    rowHeight,
    leftX: labelWidth,
    rightX: width - labelWidth,
    first,
    last: first + size - 1,
    band,
    labelEvery: Math.max(1, Math.ceil(LEGIBLE_ROW / rowHeight - 1e-9)),
  };
}

/**
 * Vertical centre of a token's row.
 * @param {Layout} layout
 * @param {number} index
 */
export function rowCenter(layout, index) {
  return layout.top + (index + 0.5) * layout.rowHeight;
}

/**
 * Height where an edge to a token ends: its row's centre, or, for a token outside the window,
 * the middle of the marker strip above or below the rows.
 * @param {Layout} layout
 * @param {number} index
 */
export function edgeEndY(layout, index) {
  if (index < layout.first) return HEADER_HEIGHT + layout.band / 2;
  if (index > layout.last) return layout.top + (layout.last + 1) * layout.rowHeight + layout.band / 2;
  return layout.top + (index + 0.5) * layout.rowHeight;
}

/**
 * Is an edge drawn? Where a window shows some rows, only the edges that touch one of them are.
 * @param {Layout} layout @param {number} source @param {number} target
 */
export function isDrawn(layout, source, target) {
  return (source >= layout.first && source <= layout.last) || (target >= layout.first && target <= layout.last);
}

/**
 * Is row i labelled? Every labelEvery-th row is (1: every row).
 * @param {Layout} layout @param {number} index
 */
export function isLabelled(layout, index) {
  return index % layout.labelEvery === 0;
}

/**
 * Which token, in which column, is under a point (or null).
 * @param {Layout} layout
 * @param {number} x
 * @param {number} y
 * @returns {{ side: "source" | "target", index: number } | null}
 */
export function nodeAt(layout, x, y) {
  const index = rowAt(layout, y);
  if (index === null) return null;
  const middle = (layout.leftX + layout.rightX) / 2;
  return { side: x < middle ? "source" : "target", index };
}

/**
 * The token row under a height, or null (header, or outside the token window).
 * @param {Layout} layout
 * @param {number} y
 */
export function rowAt(layout, y) {
  const index = Math.floor((y - layout.top) / layout.rowHeight);
  return index < layout.first || index > layout.last || y < HEADER_HEIGHT ? null : index;
}
