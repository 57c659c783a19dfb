// The image of an image analysis beside the graph, as data: the `image` fact read and checked,
// where the panel goes, the focused token's row of the selected method over the patch grid (the
// heat map), and which patch is under a point. No DOM and no drawing here (image_draw.js draws).

import { rowCoverage, rowEntries } from "./codec.js";
import { colormap, isSigned } from "./colormap.js";
import { dataOf } from "./frames.js";
import { speaker } from "./i18n.js";
import { formatValue } from "./overlay.js";
import { hasLayer, sliceIndex } from "./state.js";
import { displayToken } from "./text.js";

/** Room between the graph and the panel beside it. */
export const PANEL_GAP = 16;
/** Below this widget width the panel goes under the graph, which keeps the whole width. */
const BESIDE_FROM = 560;
const SIDE_MIN = 160;
const SIDE_MAX = 280;

/**
 * @typedef {object} PanelLayout
 * @property {number} graphWidth  CSS pixels left to the graph
 * @property {boolean} beside     beside the graph (else under it)
 * @property {number} width       of the panel
 * @property {{ width: number, height: number }} box  the picture, aspect kept
 */

/**
 * @param {number} total  the widget's width @param {import("./image_fact.js").ShownImage | null} image
 * @returns {PanelLayout}
 */
export function panelLayout(total, image) {
  if (!image) return { graphWidth: total, beside: false, width: 0, box: { width: 0, height: 0 } };
  const beside = total >= BESIDE_FROM;
  const side = beside ? Math.max(SIDE_MIN, Math.min(SIDE_MAX, Math.round(total * 0.3))) : Math.min(SIDE_MAX, total);
  const scale = image.problem ? 0 : side / Math.max(image.width, image.height);
  return {
    graphWidth: beside ? total - side - PANEL_GAP : total,
    beside,
    width: side,
    box: { width: Math.round(image.width * scale), height: Math.round(image.height * scale) },
  };
}

/**
 * A token's row over the patches.
 * @param {ArrayLike<number>} row  (n,) the row over every token
 * @param {number} prefix @param {number} rows @param {number} cols
 * @returns {{ heat: Float64Array, max: number, prefixShare: number }}  heat: (rows·cols,),
 *   patch (r, c) at r·cols + c; max: the largest |heat|; prefixShare: the share of the row's
 *   absolute mass on the prefix tokens, which the picture leaves out
 */
export function rowHeat(row, prefix, rows, cols) {
  const heat = new Float64Array(rows * cols);
  let max = 0;
  let total = 0;
  let before = 0;
  for (let i = 0; i < row.length; i++) {
    const magnitude = Math.abs(row[i]);
    total += magnitude;
    if (i < prefix) before += magnitude;
    else if (i - prefix < heat.length) {
      heat[i - prefix] = row[i];
      max = Math.max(max, magnitude);
    }
  }
  return { heat, max, prefixShare: total > 0 ? before / total : 0 };
}

/**
 * The outline of a picture's shape: the line where its lightness crosses halfway between its darkest and
 * its lightest (marching squares between pixel centres; outside, each border pixel goes on, so the picture's
 * edge is never outlined itself and a line meeting it runs on to it). The heat map over a picture is coded in
 * lightness, as a digit's ink is, and would hide it: the outline keeps the shape visible (image_draw.js draws
 * it on coarse pictures, clipped to the picture).
 * @param {import("./image_fact.js").ShownImage} image
 * @returns {Float64Array}  segments x0, y0, x1, y1 in image pixels (pixel p's centre at p + 0.5; a line meeting
 *   the edge runs half a pixel past it); none for a
 *   flat picture (less than a quarter of the range between black and white)
 */
export function inkContour(image) {
  const { width, height, rgb } = image;
  const light = new Float64Array(width * height);
  let low = Infinity;
  let high = -Infinity;
  for (let p = 0; p < light.length; p++) {
    light[p] = 0.2126 * rgb[3 * p] + 0.7152 * rgb[3 * p + 1] + 0.0722 * rgb[3 * p + 2];
    low = Math.min(low, light[p]);
    high = Math.max(high, light[p]);
  }
  if (!(high - low >= 64)) return new Float64Array(0);
  const level = (low + high) / 2;
  const at = (/** @type {number} */ x, /** @type {number} */ y) =>
    light[Math.min(height - 1, Math.max(0, y)) * width + Math.min(width - 1, Math.max(0, x))];
  /** @type {number[]} */
  const out = [];
  for (let y = -1; y < height; y++) {
    for (let x = -1; x < width; x++) {
      // Corners clockwise from the top left, and where the level crosses each side between them.
      const corners = [
        [x, y],
        [x + 1, y],
        [x + 1, y + 1],
        [x, y + 1],
      ];
      const values = corners.map(([cx, cy]) => at(cx, cy));
      /** @type {number[]} */
      const points = [];
      for (let k = 0; k < 4; k++) {
        const a = values[k];
        const b = values[(k + 1) % 4];
        if (a >= level === b >= level) continue;
        const t = (level - a) / (b - a);
        const [ax, ay] = corners[k];
        const [bx, by] = corners[(k + 1) % 4];
        points.push(ax + 0.5 + t * (bx - ax), ay + 0.5 + t * (by - ay));
      }
      out.push(...points); // 2 or 4 crossings: 1 or 2 segments
    }
  }
  return Float64Array.from(out);
}

/**
 * The patch under a point of the picture, or null.
 * @param {{ width: number, height: number }} box  the picture in CSS pixels
 * @param {number} rows @param {number} cols
 * @param {number} x @param {number} y  from the picture's top-left corner
 * @returns {number | null}  r · cols + c
 */
export function patchAt(box, rows, cols, x, y) {
  if (!(x >= 0 && y >= 0 && x < box.width && y < box.height)) return null;
  const r = Math.min(rows - 1, Math.floor((y / box.height) * rows));
  const c = Math.min(cols - 1, Math.floor((x / box.width) * cols));
  return r * cols + c;
}

/**
 * The graph node of a patch, as the graph's own hover gives it: the receiving column of the
 * single-layer view, the selected layer's column of the whole-model view.
 * @param {import("./state.js").ViewState} state @param {import("./image_fact.js").ShownImage} image @param {number} patch
 * @returns {import("./frames.js").LayerNode | import("./frames.js").ModelNode}
 */
export function patchNode(state, image, patch) {
  const index = image.prefix + patch;
  return state.view === "model" ? { layer: state.layer, index } : { side: "target", index };
}

/**
 * @typedef {object} ImageScene  what the panel shows; the screen and the exports draw the same
 * @property {import("./image_fact.js").ShownImage} image
 * @property {PanelLayout} layout
 * @property {Float64Array | null} heat  (rows·cols,); null: no overlay (the note says why)
 * @property {number} max                the colour scale's end: the largest |heat|, leaving out the
 *   focused token's own patch where it is larger (colours clamp at the ends)
 * @property {boolean} signed
 * @property {string[]} table
 * @property {number} token              whose row the heat is
 * @property {number} layer
 * @property {number | null} outline     the focused token's patch
 * @property {number | null} pinned      the pinned token's patch
 * @property {string} title
 * @property {string} scaleText          what the colours mean
 * @property {string} note               the prefix tokens' share, what is not stored
 */

/** Opacity of the heat over the picture, from the row's smallest to its largest value: weak patches
 * show the picture almost as it is (a learner sees what the patch holds), strong ones the colour. */
export const HEAT_ALPHA = 0.6;
const HEAT_ALPHA_LOW = 0.3;

/** @param {number} share  the patch's value over the scale's largest, 0..1 */
export function heatAlpha(share) {
  return HEAT_ALPHA_LOW + (HEAT_ALPHA - HEAT_ALPHA_LOW) * Math.min(1, Math.max(0, share));
}

/**
 * The panel for a painted frame: the focused (hovered, else pinned) token's row, default the
 * first token ([CLS]), at the selected layer (the whole-model view: the focused column's layer).
 * @param {import("./state.js").ViewState} state
 * @param {{ focus: { index: number, layer?: number } | null, pinned: { index: number } | null }} frame
 * @param {import("./frames.js").EnvelopeOf} envelopeOf
 * @param {PanelLayout} layout
 * @returns {ImageScene | null}  null for text
 */
export function imageScene(state, frame, envelopeOf, layout) {
  const { image } = state;
  if (!image) return null;
  const token = frame.focus?.index ?? 0;
  const layer = frame.focus?.layer !== undefined && frame.focus.layer >= 1 ? frame.focus.layer : state.layer;
  const patch = (/** @type {number | undefined} */ i) =>
    i !== undefined && i >= image.prefix ? i - image.prefix : null;
  const name = `“${displayToken(state.tokens[token] ?? "")}”`;
  const say = speaker(state.lang);
  const base = {
    image,
    layout,
    token,
    layer,
    heat: null,
    max: 0,
    signed: false,
    table: colormap("heat"),
    outline: patch(frame.focus?.index),
    pinned: patch(frame.pinned?.index),
    title: say("{token} at layer {layer}", { token: name, layer }),
    scaleText: "",
    note: "",
  };
  if (image.problem)
    return { ...base, title: "", note: say("Cannot draw the image: {problem}.", { problem: image.problem }) };
  if (!hasLayer(state, layer))
    return {
      ...base,
      note: say("{method} at layer {layer} is not computed yet.", { method: state.method.label, layer }),
    };
  const env = dataOf(state, envelopeOf, state.method);
  const slice = sliceIndex({ ...state, layer });
  const row = new Float64Array(state.tokens.length);
  const { cols, values } = rowEntries(env, slice, token);
  for (let k = 0; k < values.length; k++) row[cols[k]] = values[k];
  const { heat, max, prefixShare } = rowHeat(row, image.prefix, image.rows, image.cols);
  // The method's map, as in the graph (colormap.js isSigned), not this row's: a signed method's row with no
  // negative value is still diverging, an unsigned method's never.
  const signed = isSigned(state.method);
  // A patch's row is often mostly its own patch (rollout's residual: 0.27 against 0.02 each in a
  // 6 × 6 grid), which would leave every other patch black: the scale ends at the others' largest.
  const own = base.outline; // the focused token's patch, whose row this is
  const others = own === null ? max : Math.max(0, ...Array.from(heat, (v, k) => (k === own ? 0 : Math.abs(v))));
  const above = own !== null && others > 0 && Math.abs(heat[own]) > others;
  const names = state.tokens.slice(0, image.prefix).map(displayToken).join(", ");
  const coverage = rowCoverage(env, slice, token);
  const notes = [
    above
      ? say("its own patch ({value}) is above the scale", { value: formatValue(heat[/** @type {number} */ (own)]) })
      : "",
    image.prefix
      ? say(
          image.prefix === 1
            ? "{names} (not on the image) holds {share} of this row"
            : "{names} (not on the image) hold {share} of this row",
          { names, share: percent(prefixShare) },
        )
      : "",
    coverage < 0.9995 ? say("the stored entries carry {share} of it", { share: percent(coverage) }) : "",
  ];
  return {
    ...base,
    heat,
    max: above ? others : max,
    signed,
    table: colormap(signed ? "diverging" : "heat"),
    scaleText: say("{method}: what {token} draws from each patch", { method: state.method.label, token: name }),
    note: notes
      .filter(Boolean)
      .join("; ")
      .replace(/^[a-z]/, (first) => first.toUpperCase()),
  };
}

/** @param {number} share */
function percent(share) {
  return `${(share * 100).toFixed(1)}%`;
}
