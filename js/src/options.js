// The settings of the view, declared once: which trait, which state key, and how a trait value
// is read (a value out of range or of the wrong kind falls back to the default). readState, the
// traits a redraw follows, the standalone model's saves and the controls' choices derive from it.

import { LANGUAGES } from "./i18n.js";

/**
 * @typedef {object} Facts  what an option's reader may depend on
 * @property {number} n        tokens
 * @property {number} nLayers
 * @property {number} nHeads
 */

/**
 * @typedef {object} ViewOption
 * @property {string} trait    the widget trait
 * @property {string} key      the ViewState key
 * @property {(value: unknown, facts: Facts) => any} read
 * @property {Array<[string, string]>} [choices]   value, menu text (choice options)
 */

export const MEAN_HEAD = -1;
export const MAX_HEAD = -2;

/**
 * One of fixed choices: the first is the default.
 * @param {string} trait @param {Array<[string, string]>} choices @param {string} [key]
 * @returns {ViewOption}
 */
function choice(trait, choices, key = trait) {
  const values = choices.map(([value]) => value);
  return { trait, key, choices, read: (value) => values.find((v) => v === value) ?? values[0] };
}

/**
 * A whole number in [low, high(facts)], clamped, else the fallback.
 * @param {string} trait @param {string} key @param {number} low
 * @param {(facts: Facts) => number} high @param {number} fallback
 * @returns {ViewOption}
 */
function count(trait, key, low, high, fallback) {
  return { trait, key, read: (value, facts) => clamp(value, low, high(facts), fallback) };
}

/**
 * A finite number in [low, high], else the fallback.
 * @param {string} trait @param {string} key @param {number} low @param {number} high @param {number} fallback
 * @returns {ViewOption}
 */
function finite(trait, key, low, high, fallback) {
  return { trait, key, read: (value) => (typeof value === "number" && Number.isFinite(value) && value >= low && value <= high ? value : fallback) };
}

/**
 * A string as given (checked later against facts, e.g. the method list), "" when absent.
 * @param {string} trait @param {string} [key]
 * @returns {ViewOption}
 */
function text(trait, key = trait) {
  return { trait, key, read: (value) => String(value ?? "") };
}

/** @type {ViewOption[]} the widget's view settings (Python: the traits tagged view=True) */
export const VIEW_OPTIONS = [
  choice("view", [["layer", "one layer"], ["model", "whole model"], ["heads", "all heads"]]),
  count("layer", "layer", 1, (facts) => facts.nLayers, 1),
  {
    trait: "head",
    key: "head",
    read: (value, facts) => (Number.isInteger(value) && /** @type {number} */ (value) >= MAX_HEAD && /** @type {number} */ (value) < facts.nHeads ? value : MEAN_HEAD),
  },
  text("method"),
  text("attribution"),
  text("compare_method", "compareMethod"),
  choice("compare_mode", [["side", "side by side"], ["difference", "difference"]], "compareMode"),
  count("top_k", "topK", 0, () => Infinity, 0),
  finite("threshold", "threshold", 0, Infinity, 0),
  choice("specials", [["show", "show"], ["hide", "hide"], ["renormalise", "hide, renormalise rows"]]),
  finite("binarize_threshold", "binarizeThreshold", 0, 1, 0.05),
  choice("node_size", [["", "off"], ["in", "in-degree"], ["out", "out-degree"]], "nodeSize"),
  choice("lang", LANGUAGES),
  {
    trait: "window",
    key: "window",
    read: (value, facts) => ({
      start: clamp(Array.isArray(value) ? value[0] : 0, 0, Math.max(0, facts.n - 1), 0),
      size: clamp(Array.isArray(value) ? value[1] : 0, 0, Infinity, 0),
    }),
  },
];

/** The choices the front end may make besides the view settings (Python: tagged front_end=True). */
export const PICKS = ["target", "selected"];

/** Facts a picture depends on (Python: the traits made with traits.fact), data traits apart. */
export const FACTS = ["tokens", "special", "methods", "attributions", "n_layers", "n_heads", "causal", "model_name", "layer_names", "column_names", "segments", "ready", "ready_row", "slices_ready", "targets", "image"];

/** Every trait whose change redraws: the facts, the view settings, the picks, and what is computing. */
export const REDRAW_ON = [...FACTS, ...VIEW_OPTIONS.map((option) => option.trait), ...PICKS, "job", "heads_job", "attribution_data"];

/**
 * The menu entries of a choice option.
 * @param {string} trait
 * @returns {Array<[string, string]>}
 */
export function choicesOf(trait) {
  return VIEW_OPTIONS.find((option) => option.trait === trait)?.choices ?? [];
}

/**
 * Every view setting read from the model's traits.
 * @param {{ get: (name: string) => any }} model
 * @param {Facts} facts
 * @returns {Record<string, any>}
 */
export function readOptions(model, facts) {
  return Object.fromEntries(VIEW_OPTIONS.map((option) => [option.key, option.read(model.get(option.trait), facts)]));
}

/**
 * A whole number in [low, high]: a number outside is clamped, anything else is the fallback.
 * @param {unknown} value @param {number} low @param {number} high @param {number} fallback
 */
export function clamp(value, low, high, fallback) {
  return typeof value === "number" && Number.isFinite(value) ? Math.min(high, Math.max(low, Math.round(value))) : fallback;
}
