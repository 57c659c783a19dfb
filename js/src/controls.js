// The control bar: view, method, layer, head, edge filters, overlays, token window and token
// scores. Controls write to the model; the model's change events update the controls, so
// Python-side changes show up too.

import { speaker } from "./i18n.js";
import { element } from "./overlay.js";
import { navigateWords, shownWindow } from "./navigate.js";
import { choicesOf } from "./options.js";
import { headChoices, layerName, MAX_HEAD, MEAN_HEAD, nearestLayer } from "./state.js";

/**
 * @typedef {object} Controls
 * @property {HTMLElement} root
 * @property {(state: import("./state.js").ViewState) => void} update
 * @property {() => void} destroy
 */

/**
 * A keydown listener that commits the field on Enter and keeps the key from the host.
 * @param {() => void} commit @returns {(event: KeyboardEvent) => void}
 */
function enterCommits(commit) {
  return (event) => {
    if (event.key !== "Enter" || event.isComposing) return;
    event.preventDefault();
    event.stopPropagation();
    commit();
  };
}

/**
 * @param {Document} doc
 * @param {import("./state.js").WidgetModel} model
 * @param {string} lang  the language of the labels (i18n.js)
 * @returns {Controls}
 */
export function createControls(doc, model, lang) {
  const say = speaker(lang);
  /** A choice option's menu entries in the widget's language. @param {string} trait @returns {Array<[string, string]>} */
  const choices = (trait) => choicesOf(trait).map(([value, text]) => [value, say(text)]);
  const nav = navigateWords(lang);
  const root = element(doc, "div", "attnw-controls");

  const view = /** @type {HTMLSelectElement} */ (
    control(doc, "select", "attnw-view", say("View"), {}, choices("view"))
  );
  const method = /** @type {HTMLSelectElement} */ (control(doc, "select", "attnw-method", say("Method")));
  const layer = /** @type {HTMLInputElement} */ (control(doc, "input", "attnw-layer", say("Layer"), { type: "range", min: "1", step: "1" }));
  const layerValue = element(doc, "output", "attnw-layer-value");
  const head = /** @type {HTMLSelectElement} */ (control(doc, "select", "attnw-head", say("Head")));
  const topK = /** @type {HTMLInputElement} */ (
    control(doc, "input", "attnw-top-k", say("Edges per token, 0 for all"), {
      type: "number",
      min: "0",
      step: "1",
      title: say("Draw at most this many edges into each token (0: all)"),
    })
  );
  const threshold = /** @type {HTMLInputElement} */ (
    control(doc, "input", "attnw-threshold", say("Smallest weight drawn"), {
      type: "number",
      min: "0",
      step: "0.01",
      title: say("Hide edges whose weight is below this"),
    })
  );
  const specials = /** @type {HTMLSelectElement} */ (
    control(doc, "select", "attnw-specials", say("Special tokens"), {}, choices("specials"))
  );
  const binarize = /** @type {HTMLInputElement} */ (
    control(doc, "input", "attnw-binarize", say("Binarisation threshold"), {
      type: "number",
      min: "0",
      max: "0.99",
      step: "0.01",
      title: say("An edge exists where the head-mean attention exceeds this"),
    })
  );
  const nodeSize = /** @type {HTMLSelectElement} */ (
    control(doc, "select", "attnw-node-size", say("Dots sized by degree"), {
      title: say("Teaching overlay: size each token's dot by its in-degree (the right column's row sums) or out-degree (the left column's column sums)"),
    }, choices("node_size"))
  );
  const rows = /** @type {HTMLSelectElement} */ (
    control(doc, "select", "attnw-window-size", nav.windowTitle)
  );
  const from = /** @type {HTMLInputElement} */ (
    control(doc, "input", "attnw-window-start", say("First token row shown"), { type: "number", min: "0", step: "1" })
  );
  const target = /** @type {HTMLSelectElement} */ (
    control(doc, "select", "attnw-target", say("Target to explain"), { title: say("The number the token scores explain: a logit, a similarity, or your own (w.set_target)") })
  );
  const attribution = /** @type {HTMLSelectElement} */ (control(doc, "select", "attnw-attribution", say("Token scores")));

  const targetControl = labelled(doc, say("Target"), target);
  const binarizeControl = labelled(doc, say("Edge if weight >"), binarize);
  const windowControl = labelled(doc, say("Token rows"), rows, element(doc, "span", "attnw-control-name", say("from")), from);
  root.append(
    labelled(doc, say("View"), view),
    labelled(doc, say("Method"), method),
    labelled(doc, say("Layer"), layer, layerValue),
    binarizeControl,
    labelled(doc, say("Head"), head),
    labelled(doc, say("Edges per token"), topK),
    labelled(doc, say("Min weight"), threshold),
    labelled(doc, say("Special tokens"), specials),
    labelled(doc, say("Dot size"), nodeSize),
    windowControl,
    labelled(doc, say("Token scores"), attribution),
    targetControl,
  );

  /** @param {string} name @param {any} value */
  const commit = (name, value) => {
    model.set(name, value);
    model.save_changes();
  };
  const onWindow = () => commit("window", [Math.max(0, Math.round(Number(from.value) || 0)), Number(rows.value)]);
  /** A method that exists in some layers only (cross-attention) takes the layer along, in one message. */
  const onMethod = () => {
    const chosen = last?.methods.find((m) => m.id === method.value);
    if (chosen && last) model.set("layer", nearestLayer(chosen, last.layer));
    commit("method", method.value);
  };
  const onTopK = () => commit("top_k", Math.max(0, Math.round(Number(topK.value) || 0)));
  const onThreshold = () => commit("threshold", Math.max(0, Number(threshold.value) || 0));
  const onBinarize = () => commit("binarize_threshold", Math.min(0.99, Math.max(0, Number(binarize.value) || 0)));
  /** @type {Array<[HTMLElement, string, (event: any) => void]>} */
  const listeners = [
    [method, "change", onMethod],
    [view, "change", () => commit("view", view.value)],
    [layer, "input", () => commit("layer", Number(layer.value))],
    [head, "change", () => commit("head", Number(head.value))],
    [target, "change", () => commit("target", target.value)],
    [attribution, "change", () => commit("attribution", attribution.value)],
    [topK, "change", onTopK],
    [threshold, "change", onThreshold],
    [specials, "change", () => commit("specials", specials.value)],
    [binarize, "change", onBinarize],
    [nodeSize, "change", () => commit("node_size", nodeSize.value)],
    [rows, "change", onWindow],
    [from, "change", onWindow],
    // Enter commits a number field. Notebook hosts bind Enter (JupyterLab: edit the cell, or
    // run it with Shift): the key stops here, so it reaches neither them nor the plot.
    [topK, "keydown", enterCommits(onTopK)],
    [threshold, "keydown", enterCommits(onThreshold)],
    [binarize, "keydown", enterCommits(onBinarize)],
    [from, "keydown", enterCommits(onWindow)],
  ];
  for (const [node, type, callback] of listeners) node.addEventListener(type, callback);

  let optionsKey = "";
  let targetsKey = "";
  /** @type {import("./state.js").ViewState | null} */
  let last = null;
  return {
    root,
    update(state) {
      // Repaints for a hover change nothing here: skip the DOM writes (and the style work they cause).
      if (last && UPDATED_BY.every((name) => same(last?.[name], state[name]))) return;
      last = state;
      const key = JSON.stringify([state.methods.map((m) => [m.id, m.label, m.group]), state.nHeads, state.attributions.map((a) => [a.id, a.label])]);
      if (key !== optionsKey) {
        optionsKey = key;
        method.replaceChildren(...methodOptions(doc, state.methods));
        attribution.replaceChildren(option(doc, "", say("off")), ...state.attributions.map((a) => option(doc, a.id, a.label)));
        /** @type {Record<number, string>} */
        const names = { [MEAN_HEAD]: say("mean"), [MAX_HEAD]: say("max") };
        head.replaceChildren(...headChoices(state).map((h) => option(doc, String(h), names[h] ?? say("head {n}", { n: h }))));
      }
      view.value = state.view;
      layer.disabled = state.view !== "layer";
      method.value = state.method.id;
      method.title = state.method.description;
      const layers = state.method.layers?.length ? state.method.layers : null;
      layer.min = String(layers ? layers[0] : 1);
      layer.max = String(layers ? layers[layers.length - 1] : state.nLayers);
      layer.value = String(state.layer);
      layerValue.textContent = state.layerNames.length ? layerName(state, state.layer) : `${state.layer} / ${state.nLayers}`;
      head.value = String(state.method.per_head ? state.head : MEAN_HEAD);
      head.disabled = !state.method.per_head || state.view === "heads" || (state.view === "model" && state.method.cumulative);
      head.title = state.method.per_head ? "" : say("{method} averages the heads", { method: state.method.label });
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
      binarizeControl.hidden = !state.method.settings?.includes("binarize_threshold");
      if (doc.activeElement !== binarize) binarize.value = String(state.binarizeThreshold);
      nodeSize.value = state.nodeSize;
      const n = state.tokens.length;
      windowControl.hidden = n <= 32;
      // The sizes offered: fit, a few fixed ones, all, and the one a zoom chose.
      const sizes = [...new Set([0, ...[16, 32, 64, 128].filter((s) => s < n), n, state.window.size ? Math.min(state.window.size, n) : 0])].sort((a, b) => a - b);
      const labels = sizes.map((s) => [String(s), s === 0 ? nav.windowAuto : s === n ? nav.windowAll : String(s)]);
      if (JSON.stringify(labels) !== JSON.stringify([...rows.options].map((o) => [o.value, o.text]))) {
        rows.replaceChildren(...labels.map(([value, text]) => option(doc, value, text)));
      }
      rows.value = String(state.window.size ? Math.min(state.window.size, n) : 0);
      const shown = shownWindow(n, state.window);
      from.max = String(Math.max(0, n - shown.size));
      if (doc.activeElement !== from) from.value = String(shown.start);
      from.disabled = shown.size >= n;
      attribution.disabled = state.targets.length === 0;
      attribution.title = state.targets.length
        ? say("Gradient or blank-out scores of each token for the chosen target")
        : say("This model has no output head: choose a target from Python, e.g. w.set_target(attn_widget.targets.similarity(...))");
    },
    destroy() {
      for (const [node, type, callback] of listeners) node.removeEventListener(type, callback);
    },
  };
}

/** @type {Array<keyof import("./state.js").ViewState>} what update() reads */
const UPDATED_BY = [
  "methods", "attributions", "nHeads", "view", "method", "nLayers", "layer", "head", "targets", "target", "attribution", "topK", "layerNames",
  "threshold", "specials", "binarizeThreshold", "nodeSize", "tokens", "window",
]; // prettier-ignore

/** Equal trait values: the same object (unchanged traits are), or small objects read afresh. @param {any} a @param {any} b */
function same(a, b) {
  return a === b || (typeof a === "object" && JSON.stringify(a) === JSON.stringify(b));
}

/**
 * A form control with an accessible name. JupyterLab binds arrow keys to notebook commands in
 * command mode; Lumino skips shortcuts whose focused target carries data-lm-suppress-shortcuts,
 * so the keys reach our controls.
 * @param {Document} doc
 * @param {"select" | "input"} tag
 * @param {string} className
 * @param {string} label  aria-label
 * @param {Record<string, string>} [properties]  set on the element (type, min, step, title, …)
 * @param {Array<[string, string]>} [options]  a select's options: value, text
 */
function control(doc, tag, className, label, properties = {}, options = []) {
  const node = element(doc, tag, className);
  Object.assign(node, properties);
  node.setAttribute("aria-label", label);
  node.dataset.lmSuppressShortcuts = "true";
  if (options.length) node.replaceChildren(...options.map(([value, text]) => option(doc, value, text)));
  return node;
}

/**
 * @param {Document} doc
 * @param {string} text
 * @param {...HTMLElement} children
 */
export function labelled(doc, text, ...children) {
  const label = element(doc, "label", "attnw-control");
  label.append(element(doc, "span", "attnw-control-name", text), ...children);
  return label;
}

/**
 * The method menu: options under one heading per group, groups in order of first appearance.
 * @param {Document} doc
 * @param {import("./state.js").MethodMeta[]} methods
 * @returns {Array<HTMLOptionElement | HTMLOptGroupElement>}
 */
function methodOptions(doc, methods) {
  /** @type {Map<string, HTMLOptionElement[]>} headings in order of first appearance */
  const groups = new Map();
  for (const m of methods) {
    const heading = typeof m.group === "string" ? m.group : "";
    groups.set(heading, [...(groups.get(heading) ?? []), option(doc, m.id, m.label)]);
  }
  return [...groups].flatMap(([heading, options]) => {
    if (!heading) return options;
    const group = /** @type {HTMLOptGroupElement} */ (element(doc, "optgroup", "", ""));
    group.label = heading; // a property, never markup
    group.append(...options);
    return [group];
  });
}

/**
 * @param {Document} doc @param {string} value @param {string} text
 * @returns {HTMLOptionElement}
 */
export function option(doc, value, text) {
  const node = /** @type {HTMLOptionElement} */ (element(doc, "option", "", text));
  node.value = value;
  return node;
}
