// The `image` fact of an image analysis, read and checked (apart from image.js, which reads the
// view state, so that state.js can read the fact without an import cycle).

/**
 * @typedef {object} ShownImage  the `image` fact: the model's input, RGB, with its patch grid
 * @property {number} width      pixels
 * @property {number} height
 * @property {Uint8Array} rgb    height · width · 3 bytes, row-major
 * @property {number} rows       patch grid
 * @property {number} cols
 * @property {number} prefix     tokens before the patches ([CLS], [DIST], registers)
 * @property {string} problem    why the fact describes no picture ("" when it does)
 */

/**
 * The `image` trait as a ShownImage, or null for text ({} or absent). A fact that does not fit
 * the tokens keeps its problem: the panel says it rather than draw patches in the wrong place.
 * @param {unknown} value @param {number} n  tokens
 * @returns {ShownImage | null}
 */
export function readImage(value, n) {
  if (typeof value !== "object" || value === null || !("rgb" in value)) return null;
  const { rgb, size, grid, prefix } = /** @type {Record<string, any>} */ (value);
  const whole = (/** @type {unknown} */ v) => Number.isInteger(v) && /** @type {number} */ (v) > 0;
  const [height, width] = Array.isArray(size) && size.every(whole) ? size : [0, 0];
  const [rows, cols] = Array.isArray(grid) && grid.every(whole) ? grid : [0, 0];
  const bytes = ArrayBuffer.isView(rgb)
    ? new Uint8Array(rgb.buffer, rgb.byteOffset, rgb.byteLength)
    : new Uint8Array(0);
  const problem =
    !height || !rows || size.length !== 2 || grid.length !== 2
      ? "the image's size or patch grid is not two whole numbers"
      : bytes.length !== height * width * 3
        ? `the image has ${bytes.length} bytes, not ${height}×${width}×3`
        : !Number.isInteger(prefix) || prefix < 0 || prefix + rows * cols !== n
          ? `its ${rows}×${cols} patches after ${prefix} other tokens are not the ${n} tokens`
          : "";
  return { width, height, rgb: bytes, rows, cols, prefix: problem ? 0 : prefix, problem };
}
