// The edge colour scale of a downloaded picture: the colour ramp from 0 (or −max for signed
// methods) to the largest drawn value, with the method's name, as the widget's legend shows it.
// Drawn below the caption by svgOf and paintPng (exporter.js).

import { tr } from "./i18n.js";
import { formatValue } from "./overlay.js";

/** Height the legend adds below the caption. */
export const LEGEND_HEIGHT = 26;
const BAR_WIDTH = 160;
const BAR_HEIGHT = 10;
/** Colour stops along the bar: every STEP-th table entry, and the last. */
const STEP = 32;

/**
 * @typedef {object} LegendSpec
 * @property {string} label      the method's name
 * @property {string} title      what the bar shows, in the widget's language
 * @property {string[]} table    the edge colour table
 * @property {boolean} signed
 * @property {number} max        largest |value| of the drawn edges (the colour scale's end)
 * @property {boolean} integer   whole-number values (path counts)
 * @property {boolean} perLayer  colours scaled per layer (whole-model view): max is the largest layer's
 * @property {number} [low]      the low end's magnitude where the scale is not ±max (a focused token's edges)
 */

/**
 * The legend of a scene, or null when nothing is drawn.
 * @param {import("./scene.js").Scene} scene
 * @param {{ label: string, integer?: boolean }} method
 * @param {string} [lang]  the language of the title (i18n.js)
 * @param {string} [label]  in place of the method's name (a comparison's)
 * @returns {LegendSpec | null}
 */
export function legendOf(scene, method, lang = "en", label = "") {
  const maxima = scene.bundles.map((b) => b.edges.max).filter((m) => m > 0);
  if (maxima.length === 0) return null;
  const perLayer = scene.bundles.length > 1;
  // A focused token's edges (one layer), or the paths traced from a focused node (whole model), on their own range.
  const paths = scene.scale?.of === "paths";
  const focus = scene.scale?.of === "focus" || paths;
  return {
    label: label || method.label,
    title: tr(
      lang,
      paths
        ? "{method}: edge colour of the traced paths (each layer's own range; the largest layer's)"
        : perLayer
          ? "{method}: edge colour (scaled per layer; largest layer's range)"
          : focus
            ? "{method}: edge colour of the focused token's edges (their own range)"
            : "{method}: edge colour",
      { method: label || method.label },
    ),
    table: scene.table,
    signed: scene.signed,
    max: focus ? scene.scale.high : Math.max(...maxima),
    low: focus ? scene.scale.low : undefined,
    integer: Boolean(method.integer),
    perLayer,
  };
}

/** The two end labels and the title of a legend. @param {LegendSpec} spec */
function texts(spec) {
  const low = spec.signed ? formatValue(-(spec.low ?? spec.max), spec.integer) : "0";
  const high = formatValue(spec.max, spec.integer);
  return { low, high, title: spec.title };
}

/** @param {LegendSpec} spec @returns {{ offset: number, color: string }[]} */
function stops(spec) {
  const n = spec.table.length;
  return spec.table
    .map((color, i) => ({ offset: n > 1 ? i / (n - 1) : 0, color }))
    .filter((_, i) => i % STEP === 0 || i === n - 1);
}

/**
 * Add the legend to an SVG at (x, y): a gradient bar between its end labels, then its title.
 * @param {(tag: string, attributes: Record<string, string | number>, parent: Element) => Element} add
 * @param {Element} svg
 * @param {LegendSpec} spec
 * @param {number} x @param {number} y  the top left corner
 * @param {(content: string, x: number, y: number, anchor: string) => void} text
 */
export function svgLegend(add, svg, spec, x, y, text) {
  const { low, high, title } = texts(spec);
  const defs = add("defs", {}, svg);
  const gradient = add("linearGradient", { id: "attnw-legend-ramp", x1: 0, x2: 1, y1: 0, y2: 0 }, defs);
  for (const stop of stops(spec)) add("stop", { offset: stop.offset.toFixed(4), "stop-color": stop.color }, gradient);
  const middle = y + LEGEND_HEIGHT / 2;
  text(low, x, middle, "start");
  const barX = x + 8 * low.length + 6;
  add(
    "rect",
    {
      class: "attnw-legend-bar",
      x: barX,
      y: middle - BAR_HEIGHT / 2,
      width: BAR_WIDTH,
      height: BAR_HEIGHT,
      fill: "url(#attnw-legend-ramp)",
    },
    svg,
  );
  text(high, barX + BAR_WIDTH + 6, middle, "start");
  text(title, barX + BAR_WIDTH + 14 + 8 * high.length, middle, "start");
}

/**
 * Paint the legend on a canvas at (x, y), as svgLegend draws it.
 * @param {CanvasRenderingContext2D} ctx
 * @param {LegendSpec} spec
 * @param {number} x @param {number} y
 * @param {string} foreground
 */
export function paintLegend(ctx, spec, x, y, foreground) {
  const { low, high, title } = texts(spec);
  const middle = y + LEGEND_HEIGHT / 2;
  ctx.fillStyle = foreground;
  ctx.font = "12px sans-serif";
  ctx.textAlign = "left";
  ctx.textBaseline = "middle";
  ctx.fillText(low, x, middle);
  const barX = x + 8 * low.length + 6;
  const ramp = ctx.createLinearGradient(barX, 0, barX + BAR_WIDTH, 0);
  for (const stop of stops(spec)) ramp.addColorStop(stop.offset, stop.color);
  ctx.fillStyle = ramp;
  ctx.fillRect(barX, middle - BAR_HEIGHT / 2, BAR_WIDTH, BAR_HEIGHT);
  ctx.fillStyle = foreground;
  ctx.fillText(high, barX + BAR_WIDTH + 6, middle);
  ctx.fillText(title, barX + BAR_WIDTH + 14 + 8 * high.length, middle);
}

/**
 * The width a legend takes (as svgLegend and paintLegend place it): a picture is at least this wide.
 * @param {LegendSpec} spec @param {(text: string) => number} measure  a 12 px text's width
 */
export function legendWidth(spec, measure) {
  const { low, high, title } = texts(spec);
  return 8 * low.length + 6 + BAR_WIDTH + 14 + 8 * high.length + measure(title);
}
