// Geometry of the bipartite view: sources in the left column, receivers in the
// right column, one row per token. Hit-testing is index arithmetic.

export const LABEL_WIDTH = 120;
export const HEADER_HEIGHT = 22;
/** Space between an outer column of edges and its token labels; dots stay inside it. */
export const LABEL_GAP = 6;
const MAX_PLOT_HEIGHT = 560;
const MIN_PLOT_HEIGHT = 120;
const ROW_HEIGHT = 20;
/** Below this row height labels would overlap: they are shown on hover only. */
export const MIN_LABEL_ROW = 10;

/**
 * @typedef {object} Layout
 * @property {number} width
 * @property {number} height
 * @property {number} n
 * @property {number} top        y of the first row's top edge
 * @property {number} rowHeight
 * @property {number} leftX      x where edges start (right edge of the left labels)
 * @property {number} rightX     x where edges end (left edge of the right labels)
 * @property {boolean} showLabels
 * @property {number} first      first token row shown (a token window zooms into rows first..last)
 * @property {number} last       last token row shown, inclusive
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
  return {
    width,
    height: HEADER_HEIGHT + plotHeight + 4,
    n,
    // Rows before the window sit above the plot (and are clipped): indices stay the token's own.
    top: HEADER_HEIGHT - first * rowHeight,
    rowHeight,
    leftX: labelWidth,
    rightX: width - labelWidth,
    showLabels: rowHeight >= MIN_LABEL_ROW,
    first,
    last: first + size - 1,
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
