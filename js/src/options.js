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
 * @typedef {object} ControlSpec  the option's control in the bar (controls.js builds it from this alone): a
 *   menu for a choice, a number field for a number. Words are English; i18n.js translates them.
 * @property {string} label  the name shown before the control
 * @property {string} [name]  its accessible name, when it says more than the label
 * @property {string} [title]  its tooltip
 * @property {number} [max]  a number field's largest value, when below the option's bound
 * @property {number} [step]  a number field's step (default 1)
 * @property {boolean} [methodSetting]  shown only for a method whose settings name this option
 */

/**
 * @typedef {object} ViewOption
 * @property {string} trait    the widget trait
 * @property {string} key      the ViewState key
 * @property {"choice" | "count" | "number" | "text" | "other"} kind
 * @property {(value: unknown, facts: Facts) => any} read
 * @property {Array<[string, string]>} [choices]   value, menu text (choice options)
 * @property {number} [low]   a number's smallest value
 * @property {number} [high]  a number's largest value (a count's may depend on the facts: then absent)
 * @property {ControlSpec | "own"} [control]  its control in the bar ("own": controls.js builds it by hand,
 *   from facts besides the option); none: set elsewhere (the comparison pane, Python)
 * @property {string[]} [views]  the views (the `view` option's values) where the option changes the picture;
 *   elsewhere controls.js disables its control and says why on hover. None: every view
 * @property {string} [more]  its control sits behind "More" in the basic bar (the `controls` option); the name the
 *   More button's tooltip gives it when it is set
 * @property {(value: any) => boolean} [isSet]  whether a value read counts as set behind More (default: it is not the
 *   default value)
 */

/** The views that draw edges between token rows (the heads grid draws whole matrices, unfiltered). */
const EDGE_VIEWS = ["layer", "model"];

export const MEAN_HEAD = -1;
export const MAX_HEAD = -2;

/**
 * One of fixed choices: the first is the default.
 * @param {string} trait @param {Array<[string, string]>} choices @param {string} [key] @param {ControlSpec} [control]
 * @returns {ViewOption}
 */
export function choice(trait, choices, key = trait, control = undefined) {
  const values = choices.map(([value]) => value);
  return {
    trait,
    key,
    kind: "choice",
    choices,
    control,
    read: (value) => values.find((v) => v === value) ?? values[0],
  };
}

/**
 * A whole number in [low, high(facts)], clamped, else the fallback.
 * @param {string} trait @param {string} key @param {number} low
 * @param {(facts: Facts) => number} high @param {number} fallback @param {ControlSpec | "own"} [control]
 * @returns {ViewOption}
 */
export function count(trait, key, low, high, fallback, control = undefined) {
  return { trait, key, kind: "count", low, control, read: (value, facts) => clamp(value, low, high(facts), fallback) };
}

/**
 * A finite number in [low, high], else the fallback.
 * @param {string} trait @param {string} key @param {number} low @param {number} high @param {number} fallback
 * @param {ControlSpec} [control]
 * @returns {ViewOption}
 */
export function finite(trait, key, low, high, fallback, control = undefined) {
  const read = (/** @type {unknown} */ value) =>
    typeof value === "number" && Number.isFinite(value) && value >= low && value <= high ? value : fallback;
  return { trait, key, kind: "number", low, high, control, read };
}

/**
 * A string as given (checked later against facts, e.g. the method list), "" when absent.
 * @param {string} trait @param {string} [key] @param {"own"} [control]
 * @returns {ViewOption}
 */
export function text(trait, key = trait, control = undefined) {
  return { trait, key, kind: "text", control, read: (value) => String(value ?? "") };
}

/**
 * The widget's view settings (Python: the traits tagged view=True), in the order of their controls in the bar.
 * @type {ViewOption[]}
 */
export const VIEW_OPTIONS = [
  choice(
    "view",
    [
      ["layer", "one layer"],
      ["model", "whole model"],
      ["heads", "all heads"],
    ],
    "view",
    { label: "View" },
  ),
  text("method", "method", "own"),
  { ...count("layer", "layer", 1, (facts) => facts.nLayers, 1, "own"), views: ["layer"] },
  finite("binarize_threshold", "binarizeThreshold", 0, 1, 0.05, {
    label: "Edge if weight >",
    name: "Binarisation threshold",
    title: "An edge exists where the head-mean attention exceeds this",
    max: 0.99,
    step: 0.01,
    methodSetting: true,
  }),
  {
    trait: "head",
    key: "head",
    kind: "other",
    control: "own",
    views: EDGE_VIEWS,
    read: (value, facts) =>
      Number.isInteger(value) &&
      /** @type {number} */ (value) >= MAX_HEAD &&
      /** @type {number} */ (value) < facts.nHeads
        ? value
        : MEAN_HEAD,
  },
  {
    ...count("top_k", "topK", 0, () => Infinity, 0, {
      label: "Edges per token",
      name: "Edges per token, 0 for all",
      title: "Draw at most this many edges into each token (0: all)",
    }),
    views: EDGE_VIEWS,
    more: "Edges per token",
  },
  {
    ...finite("threshold", "threshold", 0, Infinity, 0, {
      label: "Min weight",
      name: "Smallest weight drawn",
      title: "Hide edges whose weight is below this",
      step: 0.01,
    }),
    views: EDGE_VIEWS,
    more: "Min weight",
  },
  {
    ...choice(
      "specials",
      [
        ["show", "show"],
        ["hide", "hide"],
        ["renormalise", "hide, renormalise rows"],
      ],
      "specials",
      { label: "Special tokens" },
    ),
    views: EDGE_VIEWS,
    more: "Special tokens",
  },
  {
    ...choice(
      "node_size",
      [
        ["", "off"],
        ["in", "in-degree"],
        ["out", "out-degree"],
      ],
      "nodeSize",
      {
        label: "Dot size",
        name: "Dots sized by degree",
        title:
          "Teaching overlay: size each token's dot by its in-degree (the right column's row sums) or out-degree (the left column's column sums)",
      },
    ),
    views: ["layer"], // the whole-model view draws no dots sized by degree
    more: "Dot size",
  },
  {
    trait: "window",
    key: "window",
    kind: "other",
    control: "own",
    views: EDGE_VIEWS,
    more: "Token rows",
    isSet: (window) => window.size !== 0, // a size chosen; where the window scrolled to is navigation, not a setting
    read: (value, facts) => ({
      start: clamp(Array.isArray(value) ? value[0] : 0, 0, Math.max(0, facts.n - 1), 0),
      size: clamp(Array.isArray(value) ? value[1] : 0, 0, Infinity, 0),
    }),
  },
  { ...text("attribution", "attribution", "own"), views: ["layer"], more: "Token scores" }, // only the one-layer view draws the bars
  { ...text("compare_method", "compareMethod"), more: "Compare with" },
  choice(
    "compare_mode",
    [
      ["side", "side by side"],
      ["difference", "difference"],
    ],
    "compareMode",
  ),
  choice("lang", LANGUAGES),
  // The bar's size: the basic controls, or all of them (controls.js: the More button).
  choice("controls", [
    ["basic", "basic"],
    ["all", "all"],
  ]),
];

/** The choices the front end may make besides the view settings (Python: tagged front_end=True). */
export const PICKS = ["target", "selected"];

/** Facts a picture depends on (Python: the traits made with traits.fact), data traits apart. */
export const FACTS = [
  "tokens",
  "special",
  "methods",
  "graphs",
  "attributions",
  "n_layers",
  "n_heads",
  "causal",
  "model_name",
  "layer_names",
  "column_names",
  "segments",
  "ready",
  "ready_row",
  "slices_ready",
  "targets",
  "image",
];

/** Every trait whose change redraws: the facts, the view settings, the picks, and what is computing. */
export const REDRAW_ON = [
  ...FACTS,
  ...VIEW_OPTIONS.map((option) => option.trait),
  ...PICKS,
  "job",
  "heads_job",
  "attribution_data",
];

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
  return typeof value === "number" && Number.isFinite(value)
    ? Math.min(high, Math.max(low, Math.round(value)))
    : fallback;
}
