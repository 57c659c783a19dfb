// Small colour lookup tables (no d3): 256 entries interpolated between anchors.

/** Light theme: pale blue (weak) to deep indigo (strong), readable on white. */
const LIGHT = ["#c6dbef", "#6baed6", "#2171b5", "#08306b", "#2d004b"];
/** Dark theme: dim teal (weak) to bright yellow (strong), readable on black. */
const DARK = ["#1f4e5a", "#2a9d8f", "#8ac926", "#e9c46a", "#fff3b0"];
/** Diverging (signed data): blue negative, grey zero, red positive. */
const DIVERGING = ["#2166ac", "#92c5de", "#bdbdbd", "#f4a582", "#b2182b"];
/** Heat over a picture (the image panel): black (none) through purple and orange to pale yellow
 * (the most), monotone in lightness, so it reads the same over any photograph and in grey. */
const HEAT = ["#000004", "#3b0f70", "#8c2981", "#de4968", "#fe9f6d", "#fcfdbf"];

/** @param {string} hex */
function rgb(hex) {
  const v = parseInt(hex.slice(1), 16);
  return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
}

/**
 * @param {string[]} anchors
 * @param {number} size
 * @returns {string[]} CSS colours
 */
function interpolate(anchors, size = 256) {
  const stops = anchors.map(rgb);
  const out = [];
  for (let i = 0; i < size; i++) {
    const t = (i / (size - 1)) * (stops.length - 1);
    const lo = Math.min(Math.floor(t), stops.length - 2);
    const f = t - lo;
    const c = stops[lo].map((a, ch) => Math.round(a + (stops[lo + 1][ch] - a) * f));
    out.push(`rgb(${c[0]}, ${c[1]}, ${c[2]})`);
  }
  return out;
}

const tables = {
  light: interpolate(LIGHT),
  dark: interpolate(DARK),
  diverging: interpolate(DIVERGING),
  heat: interpolate(HEAT),
};

/**
 * @param {"light" | "dark" | "diverging" | "heat"} name
 * @returns {string[]} 256 CSS colours, weakest first
 */
export function colormap(name) {
  return tables[name];
}

/**
 * Does a method draw on the diverging map? Decided here only, and for the method, not per
 * picture: a signed method (its meta's `signed`, from the Python registry) keeps the diverging map
 * on a layer or a text where its values happen to be all positive, so red means positive in every
 * pane and every export. Data that is signed (a difference) is drawn on it too.
 * @param {{ signed?: boolean } | null | undefined} method @param {{ signed?: boolean } | null | undefined} [env]
 */
export function isSigned(method, env) {
  return Boolean(method?.signed || env?.signed);
}

/**
 * The colour table of edges: diverging for signed methods, else the theme's sequential map.
 * @param {boolean} signed @param {boolean} dark
 */
export function edgeTable(signed, dark) {
  return colormap(signed ? "diverging" : dark ? "dark" : "light");
}

/**
 * Colour of a value in [0, 1] (or [-1, 1] for the diverging map).
 * @param {string[]} table
 * @param {number} t
 * @param {boolean} signed
 */
export function colorAt(table, t, signed = false) {
  const u = signed ? (t + 1) / 2 : t;
  const i = Math.max(0, Math.min(table.length - 1, Math.round(u * (table.length - 1))));
  return table[i];
}

/**
 * Does the host use a dark theme? Decided from the text colour our root inherits
 * (light text means a dark background), which works in JupyterLab, Notebook, Voila,
 * marimo, Solara, VS Code and Colab without knowing their variable names.
 * @param {string} textColor  a computed CSS colour: "rgb(230, 230, 230)", or a CSS Color 4 form
 *   ("color(srgb 0.93 0.93 0.93)", as marimo's dark theme gives; "oklch(0.95 0 0)", "lab(93 0 0)")
 */
export function prefersDarkTable(textColor) {
  return lightness(textColor) > 0.5;
}

/**
 * Lightness in [0, 1] of a computed CSS colour: relative luminance for sRGB forms, the colour
 * space's own lightness for Lab-like ones; 0 for what cannot be read.
 * @param {string} color
 */
function lightness(color) {
  const [space, ...rest] = color
    .trim()
    .toLowerCase()
    .split(/[\s(),/]+/)
    .filter(Boolean);
  const numbers = rest.map((part) => (part.endsWith("%") ? parseFloat(part) / 100 : parseFloat(part)));
  /** @param {number[]} rgb  channels in [0, 1] */
  const luminance = ([r, g, b]) => 0.2126 * r + 0.7152 * g + 0.0722 * b;
  let value = NaN;
  if (space === "rgb" || space === "rgba")
    value = luminance(rest.map((part, i) => (part.endsWith("%") ? numbers[i] : numbers[i] / 255)));
  else if (space === "color" && (rest[0] === "srgb" || rest[0] === "display-p3")) value = luminance(numbers.slice(1));
  else if (space === "oklch" || space === "oklab") value = numbers[0];
  else if (space === "lab" || space === "lch") value = rest[0].endsWith("%") ? numbers[0] : numbers[0] / 100;
  return Number.isFinite(value) ? value : 0;
}
