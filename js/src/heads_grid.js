// The "all heads" overview: a layers × heads grid of small heat maps, one per (n, n) slice of the
// selected method. The maths only: which slice each cell shows, where the cells lie, which cell is
// under a point, and the pixel colours of a cell. No DOM and no drawing here (heads_draw.js).

import { rowEntries, sliceMax } from "./codec.js";
import { isSigned } from "./colormap.js";
import { dataOf } from "./frames.js";
import { hasLayer, MAX_HEAD, MEAN_HEAD, sliceIndex } from "./state.js";

/** Cell sizes in CSS pixels: big enough to see a diagonal, small enough for 14 columns in a notebook. */
export const CELL_MIN = 40;
export const CELL_MAX = 72;
export const GAP = 4;
/** Room for the layer marks on the left and the column names on top. */
export const MARGIN_LEFT = 28;
export const MARGIN_TOP = 16;

/**
 * @typedef {object} GridLayout
 * @property {number} cell     side of a cell, CSS pixels
 * @property {number} rows     layers
 * @property {number} columns  head choices
 * @property {number} width
 * @property {number} height
 */

/**
 * @typedef {object} HeadsFrame
 * @property {"heads"} kind
 * @property {import("./state.js").ViewState} state
 * @property {GridLayout} layout
 * @property {number[]} heads    the head of each column: MEAN_HEAD, MAX_HEAD, 0..H-1 (one MEAN_HEAD when not per head)
 * @property {import("./codec.js").Envelope | null} env  null while no layer is computed
 * @property {boolean[]} ready   per layer (index l - 1): in the method's data
 * @property {boolean} signed    drawn on the diverging map: the method is signed (colormap.js isSigned, the
 *   one-layer view's rule), whatever values this input's layers happen to hold
 */

/**
 * The head of each grid column: mean, max, then every head; a method that is not per head has
 * only its one matrix per layer.
 * @param {import("./state.js").ViewState} state
 */
export function gridHeads(state) {
  if (!state.method.per_head) return [MEAN_HEAD];
  return [MEAN_HEAD, MAX_HEAD, ...Array.from({ length: state.nHeads }, (_, h) => h)];
}

/** A column's name. @param {number} head */
export function headName(head) {
  return head === MEAN_HEAD ? "mean" : head === MAX_HEAD ? "max" : String(head);
}

/**
 * Cells as large as the width allows, within [CELL_MIN, CELL_MAX] (a narrow widget scrolls).
 * @param {number} width  CSS pixels @param {number} rows @param {number} columns
 * @returns {GridLayout}
 */
export function gridLayout(width, rows, columns) {
  const fit = Math.floor((width - MARGIN_LEFT) / columns) - GAP;
  const cell = Math.max(CELL_MIN, Math.min(CELL_MAX, fit));
  return { cell, rows, columns, width: MARGIN_LEFT + columns * (cell + GAP), height: MARGIN_TOP + rows * (cell + GAP) };
}

/**
 * Top-left corner of a cell. @param {GridLayout} layout @param {number} row  layer - 1 @param {number} column
 */
export function cellOrigin(layout, row, column) {
  return { x: MARGIN_LEFT + column * (layout.cell + GAP), y: MARGIN_TOP + row * (layout.cell + GAP) };
}

/**
 * The cell under a point (CSS pixels from the canvas's corner), or null (margins, gaps, outside).
 * @param {GridLayout} layout @param {number} x @param {number} y
 * @returns {{ row: number, column: number } | null}
 */
export function cellAt(layout, x, y) {
  const step = layout.cell + GAP;
  const column = Math.floor((x - MARGIN_LEFT) / step);
  const row = Math.floor((y - MARGIN_TOP) / step);
  if (column < 0 || row < 0 || column >= layout.columns || row >= layout.rows) return null;
  const origin = cellOrigin(layout, row, column);
  if (x - origin.x >= layout.cell || y - origin.y >= layout.cell) return null;
  return { row, column };
}

/**
 * @param {import("./state.js").ViewState} state @param {number} width
 * @param {import("./frames.js").EnvelopeOf} envelopeOf
 * @returns {HeadsFrame}
 */
export function headsFrame(state, width, envelopeOf) {
  const heads = gridHeads(state);
  // A row is drawn when the data holds the layer and every head of it (a long input's: the shown layer's).
  const ready = Array.from({ length: state.nLayers }, (_, l) =>
    heads.every((head) => hasLayer({ ...state, head }, l + 1)),
  );
  const env = ready.some(Boolean) ? dataOf(state, envelopeOf, state.method) : null;
  // The grid shows the method's own data, never a difference: the method alone says signed.
  const signed = isSigned(state.method);
  return { kind: "heads", state, layout: gridLayout(width, state.nLayers, heads.length), heads, env, ready, signed };
}

/** The envelope slice a cell shows. @param {HeadsFrame} frame @param {number} row @param {number} column */
export function cellSlice(frame, row, column) {
  return sliceIndex({ ...frame.state, layer: row + 1, head: frame.heads[column] });
}

/**
 * A slice as a dense matrix: entry i * n + j is what receiving token i takes from sending token
 * j (entries a top-k payload does not store are 0).
 * @param {import("./codec.js").Envelope} env @param {number} slice
 * @returns {Float64Array}  (n, n) row-major
 */
export function cellValues(env, slice) {
  const out = new Float64Array(env.rows * env.cols);
  for (let i = 0; i < env.rows; i++) {
    const { cols, values } = rowEntries(env, slice, i);
    for (let k = 0; k < values.length; k++) out[i * env.cols + cols[k]] = values[k];
  }
  return out;
}

/**
 * A CSS colour table ("rgb(r, g, b)" strings, colormap.js) as bytes.
 * @param {string[]} table @returns {Uint8Array}  (256, 3)
 */
export function tableBytes(table) {
  const out = new Uint8Array(table.length * 3);
  table.forEach((css, i) => {
    const [r, g, b] = (css.match(/\d+/g) ?? ["0", "0", "0"]).map(Number);
    out.set([r, g, b], i * 3);
  });
  return out;
}

/**
 * RGBA pixels of a matrix, one per entry, scaled to the matrix's own largest |value|: each cell
 * shows its pattern at full contrast (heads differ in peak weight by orders of magnitude, and a
 * shared scale would leave most cells blank). Unsigned values map 0..max onto the table; signed
 * ones -max..max onto a diverging table.
 * @param {Float64Array} values  (n * m) @param {Uint8Array} table  (256, 3) @param {boolean} signed
 * @param {Uint8ClampedArray} [out]  n * m * 4 bytes to fill
 * @returns {{ pixels: Uint8ClampedArray, max: number }}
 */
export function cellPixels(values, table, signed, out = new Uint8ClampedArray(values.length * 4)) {
  let max = 0;
  for (let i = 0; i < values.length; i++) max = Math.max(max, Math.abs(values[i]));
  const top = table.length / 3 - 1;
  const scale = max > 0 ? 1 / max : 0;
  for (let i = 0; i < values.length; i++) {
    const u = signed ? (values[i] * scale + 1) / 2 : Math.abs(values[i]) * scale;
    const c = Math.round(u * top) * 3;
    const p = i * 4;
    out[p] = table[c];
    out[p + 1] = table[c + 1];
    out[p + 2] = table[c + 2];
    out[p + 3] = 255;
  }
  return { pixels: out, max };
}

/**
 * The pixels cellPixels(cellValues(env, slice), ...) gives, straight from the stored codes: no
 * matrix in between (a grid paints 12 × 14 of them on every change). A row's codes are its values
 * over its scale, and the slice's largest |value| is its largest row scale (sliceMax). A matrix
 * larger than `size` is shrunk to size × size pixels, each the strongest entry of its block (for
 * signed data: the farthest from 0): a scaled-down image would average a lone strong entry away
 * into its weak neighbours, and a 128-token head's diagonal would all but vanish.
 * @param {import("./codec.js").Envelope} env @param {number} slice @param {Uint8Array} table  (256, 3)
 * @param {number} size  the most pixels per side
 * @param {boolean} diverging  the table is diverging (-max..max; else 0..max, a stray negative at 0): the
 *   method's `signed`, not the codes' (a signed method's layer may hold no negative value)
 * @returns {{ pixels: Uint8ClampedArray, side: number }}  side × side RGBA pixels
 */
export function slicePixels(env, slice, table, size = Infinity, diverging = env.signed) {
  const top = table.length / 3 - 1;
  const middle = diverging ? Math.round(top / 2) : 0;
  const full = env.signed ? 32767 : 65535;
  const max = sliceMax(env, slice);
  const side = Math.min(env.rows, Math.max(1, Math.floor(size)));
  // Table index per pixel; entries a top-k payload does not store are 0 (the table's first colour, or its middle if signed).
  const index = new Uint8Array(side * side).fill(middle);
  const strength = new Float64Array(side * side).fill(-1);
  for (let i = 0; i < env.rows; i++) {
    const r = slice * env.rows + i;
    const step = max > 0 ? env.scale[r] / full / max : 0;
    const start = r * env.k;
    const y = Math.floor((i * side) / env.rows) * side;
    for (let k = 0; k < env.k; k++) {
      const v = env.values[start + k] * step; // in [-1, 1]
      const u = diverging ? (v + 1) / 2 : Math.max(0, v);
      const j = env.indices ? env.indices[start + k] : k;
      const p = y + Math.floor((j * side) / env.cols);
      const far = diverging ? Math.abs(v) : Math.max(0, v);
      if (far > strength[p]) {
        strength[p] = far;
        index[p] = Math.round(u * top);
      }
    }
  }
  const pixels = new Uint8ClampedArray(side * side * 4);
  for (let p = 0; p < index.length; p++) {
    const c = index[p] * 3;
    pixels[p * 4] = table[c];
    pixels[p * 4 + 1] = table[c + 1];
    pixels[p * 4 + 2] = table[c + 2];
    pixels[p * 4 + 3] = 255;
  }
  return { pixels, side };
}
