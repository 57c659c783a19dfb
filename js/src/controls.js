// The control bar: view, method, layer, head in a basic row; edge filters, overlays, token window and
// token scores behind "More" (the `controls` option says which rows show). Controls write to the model;
// the model's change events update the controls, so Python-side changes show up too.

import { speaker } from "./i18n.js";
import { navigateWords, resized, shownWindow, traitOf } from "./navigate.js";
import { choicesOf, VIEW_OPTIONS } from "./options.js";
import { element } from "./overlay.js";
import { headChoices, layerName, MAX_HEAD, MEAN_HEAD, nearestLayer, pinnedNode } from "./state.js";

/**
 * @typedef {object} Controls
 * @property {HTMLElement} root  both rows
 * @property {HTMLElement} actions  the basic row's buttons (the More button last): the view adds its own before it
 * @property {HTMLElement} more  the row behind "More": the view adds the rest of its controls to it
 * @property {(state: import("./state.js").ViewState) => void} update
 * @property {() => void} destroy
 */

/** @typedef {[HTMLElement, string, (event: any) => void]} Listener  node, event type, callback */

/**
 * One option's part of the bar: its labelled control(s), their listeners, and how a state shows in them.
 * @typedef {object} Part
 * @property {HTMLElement[]} nodes
 * @property {Listener[]} listeners
 * @property {(state: import("./state.js").ViewState) => void} update
 */

/**
 * What a part's builder is given.
 * @typedef {object} Bar
 * @property {Document} doc
 * @property {(text: string, params?: Record<string, string | number>) => string} say
 * @property {string} lang
 * @property {(name: string, value: any) => void} set  write a trait, sent with the next commit
 * @property {(name: string, value: any) => void} commit  write a trait and send it (and what was set) to the kernel
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
 * The control bar: a part per view option that has a control, in the table's order.
 * @param {Document} doc
 * @param {import("./state.js").WidgetModel} model
 * @param {string} lang  the language of the labels (i18n.js)
 * @param {import("./options.js").ViewOption[]} [options]  the option table (a test may add to it)
 * @returns {Controls}
 */
export function createControls(doc, model, lang, options = VIEW_OPTIONS) {
  /** @type {Bar} */
  const bar = {
    doc,
    lang,
    say: speaker(lang),
    set: (name, value) => model.set(name, value),
    commit: (name, value) => {
      model.set(name, value);
      model.save_changes();
    },
  };
  const withControls = options.filter((option) => option.control);
  const built = withControls.map((option) => {
    const build = option.control === "own" ? OWN_CONTROLS[option.trait] : optionControl;
    if (!build) throw new Error(`controls.js builds no control of its own for the option ${option.trait}`);
    return inViews(bar, option, build(bar, option));
  });
  const toggle = moreToggle(bar, options);
  const actions = element(doc, "span", "attnw-actions");
  actions.append(...toggle.nodes);
  const basic = element(doc, "div", "attnw-controls");
  const more = element(doc, "div", "attnw-controls attnw-more");
  basic.append(...built.flatMap((part, i) => (withControls[i].more ? [] : part.nodes)), actions);
  more.append(...built.flatMap((part, i) => (withControls[i].more ? part.nodes : [])));
  const root = element(doc, "div", "attnw-control-bar");
  root.append(basic, more);
  const parts = [...built, toggle];
  const listeners = parts.flatMap((part) => part.listeners);
  for (const [node, type, callback] of listeners) node.addEventListener(type, callback);
  /** What update() reads: every option's key and the facts the parts of their own read. */
  const readsFrom = [...options.map((option) => option.key), ...OWN_CONTROLS_READ];

  /** @type {import("./state.js").ViewState | null} */
  let last = null;
  return {
    root,
    actions,
    more,
    update(state) {
      // Repaints for a hover change nothing here: skip the DOM writes (and the style work they cause).
      const previous = last;
      if (previous && readsFrom.every((name) => same(stateValue(previous, name), stateValue(state, name)))) return;
      last = state;
      more.hidden = state.controls !== "all";
      for (const part of parts) part.update(state);
    },
    destroy() {
      for (const [node, type, callback] of listeners) node.removeEventListener(type, callback);
    },
  };
}

/**
 * The More button: shows or hides the row of the controls declared `more` (writes the `controls` option), and says
 * which of them are not at their defaults while they are hidden, so a filtered picture is never a mystery.
 * @param {Bar} bar @param {import("./options.js").ViewOption[]} options @returns {Part}
 */
function moreToggle({ doc, say, commit }, options) {
  const button = /** @type {HTMLButtonElement} */ (element(doc, "button", "attnw-save attnw-more-toggle"));
  button.type = "button";
  const behind = options.filter((option) => option.more);
  return {
    nodes: [button],
    listeners: [
      [button, "click", () => commit("controls", button.getAttribute("aria-expanded") === "true" ? "basic" : "all")],
    ],
    update(state) {
      const open = state.controls === "all";
      const facts = { n: state.tokens.length, nLayers: state.nLayers, nHeads: state.nHeads };
      const changed = behind
        .filter((option) => {
          const value = stateValue(state, option.key);
          return option.isSet ? option.isSet(value) : !same(value, option.read(undefined, facts));
        })
        .map((option) => say(/** @type {string} */ (option.more)));
      button.setAttribute("aria-expanded", String(open));
      button.textContent = open
        ? say("Fewer ▴")
        : changed.length
          ? say("More ({n} set) ▾", { n: changed.length })
          : say("More ▾");
      button.title = open
        ? say("Show the basic controls only")
        : changed.length
          ? say("Show every control. Set behind it: {names}", { names: changed.join(say(", ")) })
          : say("Show every control: edge filters, special tokens, token scores, comparison, downloads");
    },
  };
}

/**
 * A part that is disabled, saying why on hover, in the views where its option changes nothing (its
 * declared `views`); in the others it is as its own update leaves it.
 * @param {Bar} bar @param {import("./options.js").ViewOption} option @param {Part} part @returns {Part}
 */
function inViews({ say }, option, part) {
  const { views } = option;
  if (!views) return part;
  /** @type {Array<HTMLInputElement | HTMLSelectElement>} */
  const fields = part.nodes.flatMap((node) => [
    ...(node.matches("select, input") ? [/** @type {HTMLInputElement | HTMLSelectElement} */ (node)] : []),
    ...node.querySelectorAll("select"),
    ...node.querySelectorAll("input"),
  ]);
  const names = Object.fromEntries(choicesOf("view"));
  /** What the part's own update left, before it was disabled here: put back before its next update. */
  /** @type {Array<[HTMLElement, boolean | null, string]>} node, its disabled (a field's), its title */
  let saved = [];
  return {
    ...part,
    update(state) {
      for (const [node, disabled, title] of saved) {
        if (disabled !== null) /** @type {HTMLInputElement} */ (node).disabled = disabled;
        if (title) node.title = title;
        else node.removeAttribute("title");
      }
      saved = [];
      part.update(state);
      if (views.includes(state.view)) return;
      const why = say("Does nothing in the view “{view}”: it applies to {views}", {
        view: say(names[state.view] ?? state.view),
        views: views.map((view) => `“${say(names[view] ?? view)}”`).join(say(", ")),
      });
      for (const node of part.nodes) {
        saved.push([node, null, node.title]);
        node.title = why;
      }
      for (const field of fields) {
        saved.push([field, field.disabled, field.title]);
        field.disabled = true;
        field.title = why;
      }
    },
  };
}

/**
 * An option's control from its declaration alone: a menu of a choice's entries, or a number field within its
 * bounds (rounded for a count) that commits on change and on Enter.
 * @param {Bar} bar @param {import("./options.js").ViewOption} option @returns {Part}
 */
function optionControl({ doc, say, commit }, option) {
  const spec = /** @type {import("./options.js").ControlSpec} */ (option.control);
  const className = `attnw-${option.trait.replaceAll("_", "-")}`;
  const name = say(spec.name ?? spec.label);
  /** @type {Record<string, string>} */
  const properties = spec.title ? { title: say(spec.title) } : {};
  /** @param {import("./state.js").ViewState} state */
  const hidden = (state) => Boolean(spec.methodSetting) && !state.method.settings?.includes(option.trait);
  if (option.kind === "choice") {
    const entries = /** @type {Array<[string, string]>} */ (option.choices).map(
      ([value, text]) => /** @type {[string, string]} */ ([value, say(text)]),
    );
    const menu = /** @type {HTMLSelectElement} */ (control(doc, "select", className, name, properties, entries));
    const node = labelled(doc, say(spec.label), menu);
    return {
      nodes: [node],
      listeners: [[menu, "change", () => commit(option.trait, menu.value)]],
      update(state) {
        node.hidden = hidden(state);
        menu.value = String(stateValue(state, option.key));
      },
    };
  }
  if (option.kind !== "count" && option.kind !== "number")
    throw new Error(`the option ${option.trait} (${option.kind}) has no control of its kind`);
  const low = option.low ?? -Infinity;
  const high = Math.min(spec.max ?? Infinity, option.high ?? Infinity);
  /** @type {Record<string, string>} */
  const bounds = { type: "number", step: String(spec.step ?? 1), ...properties };
  if (Number.isFinite(low)) bounds.min = String(low);
  if (Number.isFinite(high)) bounds.max = String(high);
  const field = /** @type {HTMLInputElement} */ (control(doc, "input", className, name, bounds));
  const node = labelled(doc, say(spec.label), field);
  const onCommit = () => {
    const value = Math.min(high, Math.max(low, Number(field.value) || 0));
    commit(option.trait, option.kind === "count" ? Math.round(value) : value);
  };
  return {
    nodes: [node],
    // Enter commits a number field. Notebook hosts bind Enter (JupyterLab: edit the cell, or run it with
    // Shift): the key stops here, so it reaches neither them nor the plot.
    listeners: [
      [field, "change", onCommit],
      [field, "keydown", enterCommits(onCommit)],
    ],
    update(state) {
      node.hidden = hidden(state);
      if (doc.activeElement !== field) field.value = String(stateValue(state, option.key));
    },
  };
}

/** The ViewState keys the parts of their own read besides their options' keys. */
const OWN_CONTROLS_READ = [
  "methods",
  "attributions",
  "nHeads",
  "nLayers",
  "layerNames",
  "targets",
  "target",
  "tokens",
  "selected", // the window keeps the pinned token in view
];

/**
 * The controls that need facts besides their option (the method list, the layers a method has, the heads, the
 * token count, the targets): one builder per option declared `control: "own"` in options.js.
 * @type {Record<string, (bar: Bar, option: import("./options.js").ViewOption) => Part>}
 */
const OWN_CONTROLS = {
  method({ doc, say, set, commit }) {
    const method = /** @type {HTMLSelectElement} */ (control(doc, "select", "attnw-method", say("Method")));
    /** @type {import("./state.js").ViewState | null} */
    let last = null;
    let menuKey = "";
    /** A method that exists in some layers only (cross-attention) takes the layer along, in one message. */
    const onMethod = () => {
      const chosen = last?.methods.find((m) => m.id === method.value);
      if (chosen && last) set("layer", nearestLayer(chosen, last.layer));
      commit("method", method.value);
    };
    return {
      nodes: [labelled(doc, say("Method"), method)],
      listeners: [[method, "change", onMethod]],
      update(state) {
        last = state;
        const key = JSON.stringify(state.methods.map((m) => [m.id, m.label, m.group, m.hint]));
        if (key !== menuKey) {
          menuKey = key;
          method.replaceChildren(...methodOptions(doc, state.methods));
        }
        method.value = state.method.id;
        method.title = state.method.hint || state.method.description;
      },
    };
  },

  layer({ doc, say, commit }) {
    const layer = /** @type {HTMLInputElement} */ (
      control(doc, "input", "attnw-layer", say("Layer"), { type: "range", min: "1", step: "1" })
    );
    const layerValue = element(doc, "output", "attnw-layer-value");
    return {
      nodes: [labelled(doc, say("Layer"), layer, layerValue)],
      listeners: [[layer, "input", () => commit("layer", Number(layer.value))]],
      update(state) {
        const layers = state.method.layers?.length ? state.method.layers : null;
        layer.min = String(layers ? layers[0] : 1);
        layer.max = String(layers ? layers[layers.length - 1] : state.nLayers);
        layer.value = String(state.layer);
        layerValue.textContent = state.layerNames.length
          ? layerName(state, state.layer)
          : `${state.layer} / ${state.nLayers}`;
      },
    };
  },

  head({ doc, say, commit }) {
    const head = /** @type {HTMLSelectElement} */ (control(doc, "select", "attnw-head", say("Head")));
    let menuKey = "";
    return {
      nodes: [labelled(doc, say("Head"), head)],
      listeners: [[head, "change", () => commit("head", Number(head.value))]],
      update(state) {
        if (String(state.nHeads) !== menuKey) {
          menuKey = String(state.nHeads);
          /** @type {Record<number, string>} */
          const names = { [MEAN_HEAD]: say("mean"), [MAX_HEAD]: say("max") };
          head.replaceChildren(
            ...headChoices(state).map((h) => option(doc, String(h), names[h] ?? say("head {n}", { n: h }))),
          );
        }
        head.value = String(state.method.per_head ? state.head : MEAN_HEAD);
        head.disabled = !state.method.per_head || (state.view === "model" && state.method.cumulative);
        head.title = state.method.per_head ? "" : say("{method} averages the heads", { method: state.method.label });
      },
    };
  },

  /** The token rows shown: how many, and from which. */
  window({ doc, say, lang, commit }) {
    const nav = navigateWords(lang);
    const rows = /** @type {HTMLSelectElement} */ (control(doc, "select", "attnw-window-size", nav.windowTitle));
    const from = /** @type {HTMLInputElement} */ (
      control(doc, "input", "attnw-window-start", say("First token row shown"), { type: "number", min: "0", step: "1" })
    );
    const node = labelled(doc, say("Token rows"), rows, element(doc, "span", "attnw-control-name", say("from")), from);
    const onWindow = () => commit("window", [Math.max(0, Math.round(Number(from.value) || 0)), Number(rows.value)]);
    // A new size keeps the pinned token in view (navigate.js resized): the rows shown, as of update.
    let now = { n: 0, shown: { start: 0, size: 1 }, pinned: /** @type {number | null} */ (null) };
    const onSize = () => commit("window", traitOf(resized(now.n, now.shown, Number(rows.value), now.pinned)));
    return {
      nodes: [node],
      listeners: [
        [rows, "change", onSize],
        [from, "change", onWindow],
        [from, "keydown", enterCommits(onWindow)],
      ],
      update(state) {
        const n = state.tokens.length;
        node.hidden = n <= 32;
        // The sizes offered: fit, a few fixed ones, all, and the one a zoom chose.
        const zoomed = state.window.size ? Math.min(state.window.size, n) : 0;
        const sizes = [...new Set([0, ...[16, 32, 64, 128].filter((s) => s < n), n, zoomed])].sort((a, b) => a - b);
        const labels = sizes.map((s) => [String(s), s === 0 ? nav.windowAuto : s === n ? nav.windowAll : String(s)]);
        if (JSON.stringify(labels) !== JSON.stringify([...rows.options].map((o) => [o.value, o.text]))) {
          rows.replaceChildren(...labels.map(([value, text]) => option(doc, value, text)));
        }
        rows.value = String(zoomed);
        const shown = shownWindow(n, state.window);
        now = { n, shown, pinned: pinnedNode(state)?.index ?? null };
        from.max = String(Math.max(0, n - shown.size));
        if (doc.activeElement !== from) from.value = String(shown.start);
        from.disabled = shown.size >= n;
      },
    };
  },

  /** Token scores, and the target they explain (a pick, not a view option: it belongs with them). */
  attribution({ doc, say, commit }) {
    const attribution = /** @type {HTMLSelectElement} */ (
      control(doc, "select", "attnw-attribution", say("Token scores"))
    );
    const target = /** @type {HTMLSelectElement} */ (
      control(doc, "select", "attnw-target", say("Target to explain"), {
        title: say("The number the token scores explain: a logit, a similarity, or your own (w.set_target)"),
      })
    );
    const targetControl = labelled(doc, say("Target"), target);
    let menuKey = "";
    let targetsKey = "";
    return {
      nodes: [labelled(doc, say("Token scores"), attribution), targetControl],
      listeners: [
        [attribution, "change", () => commit("attribution", attribution.value)],
        [target, "change", () => commit("target", target.value)],
      ],
      update(state) {
        const key = JSON.stringify(state.attributions.map((a) => [a.id, a.label, a.hint]));
        if (key !== menuKey) {
          menuKey = key;
          attribution.replaceChildren(
            option(doc, "", say("off")),
            ...state.attributions.map((a) => option(doc, a.id, a.label, a.hint)),
          );
        }
        const targetKey = JSON.stringify(state.targets);
        if (targetKey !== targetsKey) {
          targetsKey = targetKey;
          target.replaceChildren(...state.targets.map((t) => option(doc, t.id, t.label)));
        }
        target.value = state.target;
        targetControl.hidden = state.targets.length === 0 || !state.attribution; // it chooses what the scores explain
        attribution.value = state.attribution;
        attribution.disabled = state.targets.length === 0;
        attribution.title = state.targets.length
          ? say("Gradient or blank-out scores of each token for the chosen target")
          : say(
              "This model has no output head: choose a target from Python, e.g. w.set_target(attn_widget.targets.similarity(...))",
            );
      },
    };
  },
};

/** A state's value by its key. @param {import("./state.js").ViewState} state @param {string} key @returns {unknown} */
function stateValue(state, key) {
  return /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (state))[key];
}

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
export function methodOptions(doc, methods) {
  /** @type {Map<string, HTMLOptionElement[]>} headings in order of first appearance */
  const groups = new Map();
  for (const m of methods) {
    const heading = typeof m.group === "string" ? m.group : "";
    groups.set(heading, [...(groups.get(heading) ?? []), option(doc, m.id, m.label, m.hint)]);
  }
  // Headed groups first, in order; methods without a group (a user's own) after them.
  const ordered = [...groups].sort(([a], [b]) => Number(!a) - Number(!b));
  return ordered.flatMap(([heading, options]) => {
    if (!heading) return options;
    const group = /** @type {HTMLOptGroupElement} */ (element(doc, "optgroup", "", ""));
    group.label = heading; // a property, never markup
    group.append(...options);
    return [group];
  });
}

/**
 * @param {Document} doc @param {string} value @param {string} text @param {string} [hint]  its tooltip
 * @returns {HTMLOptionElement}
 */
export function option(doc, value, text, hint = "") {
  const node = /** @type {HTMLOptionElement} */ (element(doc, "option", "", text));
  node.value = value;
  if (hint) node.title = hint;
  return node;
}
