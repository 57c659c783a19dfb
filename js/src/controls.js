// The control bar: method, layer and head. Controls write to the model; the model's
// change events update the controls, so Python-side changes show up too.

import { element } from "./overlay.js";
import { MAX_HEAD, MEAN_HEAD } from "./state.js";
import { ATTRIBUTION_LABELS } from "./strip.js";

/**
 * @typedef {object} Controls
 * @property {HTMLElement} root
 * @property {(state: import("./state.js").ViewState) => void} update
 * @property {() => void} destroy
 */

/**
 * @param {Document} doc
 * @param {import("./state.js").WidgetModel} model
 * @returns {Controls}
 */
export function createControls(doc, model) {
  const root = element(doc, "div", "attnw-controls");

  const view = /** @type {HTMLSelectElement} */ (element(doc, "select", "attnw-view"));
  view.setAttribute("aria-label", "View");
  view.replaceChildren(option(doc, "layer", "one layer"), option(doc, "model", "whole model"));
  const method = /** @type {HTMLSelectElement} */ (element(doc, "select", "attnw-method"));
  method.setAttribute("aria-label", "Method");
  const layer = /** @type {HTMLInputElement} */ (element(doc, "input", "attnw-layer"));
  layer.type = "range";
  layer.min = "1";
  layer.step = "1";
  layer.setAttribute("aria-label", "Layer");
  const layerValue = element(doc, "output", "attnw-layer-value");
  const head = /** @type {HTMLSelectElement} */ (element(doc, "select", "attnw-head"));
  head.setAttribute("aria-label", "Head");
  const topK = /** @type {HTMLInputElement} */ (element(doc, "input", "attnw-top-k"));
  topK.type = "number";
  topK.min = "0";
  topK.step = "1";
  topK.setAttribute("aria-label", "Edges per token, 0 for all");
  topK.title = "Draw at most this many edges into each token (0: all)";
  const threshold = /** @type {HTMLInputElement} */ (element(doc, "input", "attnw-threshold"));
  threshold.type = "number";
  threshold.min = "0";
  threshold.step = "0.01";
  threshold.setAttribute("aria-label", "Smallest weight drawn");
  threshold.title = "Hide edges whose weight is below this";
  const specials = /** @type {HTMLSelectElement} */ (element(doc, "select", "attnw-specials"));
  specials.setAttribute("aria-label", "Special tokens");
  specials.replaceChildren(
    option(doc, "show", "show"),
    option(doc, "hide", "hide"),
    option(doc, "renormalise", "hide, renormalise rows"),
  );
  const binarize = /** @type {HTMLInputElement} */ (element(doc, "input", "attnw-binarize"));
  binarize.type = "number";
  binarize.min = "0";
  binarize.max = "0.99";
  binarize.step = "0.01";
  binarize.setAttribute("aria-label", "Binarisation threshold");
  binarize.title = "An edge exists where the head-mean attention exceeds this";
  const nodeSize = /** @type {HTMLSelectElement} */ (element(doc, "select", "attnw-node-size"));
  nodeSize.setAttribute("aria-label", "Dots sized by degree");
  nodeSize.replaceChildren(option(doc, "", "off"), option(doc, "in", "in-degree"), option(doc, "out", "out-degree"));
  const rows = /** @type {HTMLSelectElement} */ (element(doc, "select", "attnw-window-size"));
  rows.setAttribute("aria-label", "Token rows shown");
  rows.replaceChildren(...["0", "32", "64", "128"].map((v) => option(doc, v, v === "0" ? "all" : v)));
  const from = /** @type {HTMLInputElement} */ (element(doc, "input", "attnw-window-start"));
  from.type = "number";
  from.min = "0";
  from.step = "1";
  from.setAttribute("aria-label", "First token row shown");
  const target = /** @type {HTMLSelectElement} */ (element(doc, "select", "attnw-target"));
  target.setAttribute("aria-label", "Target to explain");
  const attribution = /** @type {HTMLSelectElement} */ (element(doc, "select", "attnw-attribution"));
  attribution.setAttribute("aria-label", "Token scores");
  attribution.replaceChildren(
    option(doc, "", "off"),
    ...Object.entries(ATTRIBUTION_LABELS).map(([value, text]) => option(doc, value, text)),
  );

  // JupyterLab binds arrow keys to notebook commands in command mode. Lumino skips
  // shortcuts whose focused target carries this attribute, so keys reach our controls.
  for (const control of [view, method, layer, head, topK, threshold, specials, binarize, nodeSize, rows, from, target, attribution]) {
    control.dataset.lmSuppressShortcuts = "true";
  }

  const targetControl = labelled(doc, "Explain", target);
  const binarizeControl = labelled(doc, "Edge if weight >", binarize);
  const windowControl = labelled(doc, "Token rows", rows, element(doc, "span", "attnw-control-name", "from"), from);
  root.append(
    labelled(doc, "View", view),
    labelled(doc, "Method", method),
    labelled(doc, "Layer", layer, layerValue),
    binarizeControl,
    labelled(doc, "Head", head),
    labelled(doc, "Edges per token", topK),
    labelled(doc, "Min weight", threshold),
    labelled(doc, "Special tokens", specials),
    labelled(doc, "Dots", nodeSize),
    windowControl,
    labelled(doc, "Token scores", attribution),
    targetControl,
  );

  /** @param {string} name @param {any} value */
  const commit = (name, value) => {
    model.set(name, value);
    model.save_changes();
  };
  const onMethod = () => commit("method", method.value);
  const onView = () => commit("view", view.value);
  const onLayer = () => commit("layer", Number(layer.value));
  const onHead = () => commit("head", Number(head.value));
  const onTarget = () => commit("target", target.value);
  const onAttribution = () => commit("attribution", attribution.value);
  const onTopK = () => commit("top_k", Math.max(0, Math.round(Number(topK.value) || 0)));
  const onThreshold = () => commit("threshold", Math.max(0, Number(threshold.value) || 0));
  const onSpecials = () => commit("specials", specials.value);
  const onBinarize = () => commit("binarize_threshold", Math.min(0.99, Math.max(0, Number(binarize.value) || 0)));
  const onNodeSize = () => commit("node_size", nodeSize.value);
  const onWindow = () => commit("window", [Math.max(0, Math.round(Number(from.value) || 0)), Number(rows.value)]);
  method.addEventListener("change", onMethod);
  view.addEventListener("change", onView);
  layer.addEventListener("input", onLayer);
  head.addEventListener("change", onHead);
  target.addEventListener("change", onTarget);
  attribution.addEventListener("change", onAttribution);
  topK.addEventListener("change", onTopK);
  threshold.addEventListener("change", onThreshold);
  specials.addEventListener("change", onSpecials);
  binarize.addEventListener("change", onBinarize);
  nodeSize.addEventListener("change", onNodeSize);
  rows.addEventListener("change", onWindow);
  from.addEventListener("change", onWindow);

  let optionsKey = "";
  let targetsKey = "";
  return {
    root,
    update(state) {
      const key = JSON.stringify([state.methods.map((m) => m.id), state.nHeads]);
      if (key !== optionsKey) {
        optionsKey = key;
        method.replaceChildren(...state.methods.map((m) => option(doc, m.id, m.label)));
        head.replaceChildren(
          option(doc, String(MEAN_HEAD), "mean"),
          option(doc, String(MAX_HEAD), "max"),
          ...Array.from({ length: state.nHeads }, (_, h) => option(doc, String(h), `head ${h}`)),
        );
      }
      view.value = state.view;
      layer.disabled = state.view === "model";
      method.value = state.method.id;
      method.title = state.method.description;
      layer.max = String(state.nLayers);
      layer.value = String(state.layer);
      layerValue.textContent = `${state.layer} / ${state.nLayers}`;
      head.value = String(state.method.per_head ? state.head : MEAN_HEAD);
      head.disabled = !state.method.per_head || (state.view === "model" && state.method.cumulative);
      head.title = state.method.per_head ? "" : `${state.method.label} averages the heads`;
      const targetKey = JSON.stringify(state.targets);
      if (targetKey !== targetsKey) {
        targetsKey = targetKey;
        target.replaceChildren(...state.targets.map((t) => option(doc, t.id, t.label)));
      }
      target.value = state.target;
      targetControl.hidden = state.targets.length === 0;
      attribution.value = state.attribution;
      if (doc.activeElement !== topK) topK.value = String(state.topK);
      if (doc.activeElement !== threshold) threshold.value = String(state.threshold);
      specials.value = state.specials;
      binarizeControl.hidden = state.method.id !== "paths";
      if (doc.activeElement !== binarize) binarize.value = String(state.binarizeThreshold);
      nodeSize.value = state.nodeSize;
      windowControl.hidden = state.tokens.length <= 32;
      rows.value = String(state.window.size);
      from.max = String(Math.max(0, state.tokens.length - 1));
      if (doc.activeElement !== from) from.value = String(state.window.start);
      from.disabled = state.window.size === 0;
      attribution.disabled = state.targets.length === 0;
      attribution.title = state.targets.length
        ? "Gradient or blank-out scores of each token for the chosen target"
        : "This model has no output head: choose a target from Python, e.g. w.set_target(attn_widget.targets.similarity(...))";
    },
    destroy() {
      method.removeEventListener("change", onMethod);
      view.removeEventListener("change", onView);
      layer.removeEventListener("input", onLayer);
      head.removeEventListener("change", onHead);
      target.removeEventListener("change", onTarget);
      attribution.removeEventListener("change", onAttribution);
      topK.removeEventListener("change", onTopK);
      threshold.removeEventListener("change", onThreshold);
      specials.removeEventListener("change", onSpecials);
      binarize.removeEventListener("change", onBinarize);
      nodeSize.removeEventListener("change", onNodeSize);
      rows.removeEventListener("change", onWindow);
      from.removeEventListener("change", onWindow);
    },
  };
}

/**
 * @param {Document} doc
 * @param {string} text
 * @param {...HTMLElement} children
 */
function labelled(doc, text, ...children) {
  const label = element(doc, "label", "attnw-control");
  label.append(element(doc, "span", "attnw-control-name", text), ...children);
  return label;
}

/**
 * @param {Document} doc
 * @param {string} value
 * @param {string} text
 */
function option(doc, value, text) {
  const node = /** @type {HTMLOptionElement} */ (element(doc, "option", "", text));
  node.value = value;
  return node;
}
