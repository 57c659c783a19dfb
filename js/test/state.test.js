// Whatever the traits hold, the front end draws a true picture or says why it cannot: it never
// stops with a script error. (The kernel side refuses such values; a page can still receive them.)
import assert from "node:assert/strict";
import { test } from "node:test";
import entry from "../src/index.js";
import { readState } from "../src/state.js";
import { FakeModel, makeDom, widgetTraits } from "./fake-model.js";

const { render } = entry; // the entry point as anywidget reads it

/** What the page's console would show (this file runs in its own process). */
const logged = /** @type {unknown[]} */ ([]);
console.error = (/** @type {unknown} */ error) => logged.push(error);

/** @param {Record<string, any>} overrides */
const stateOf = (overrides) => readState(/** @type {any} */ (new FakeModel({ ...widgetTraits(), ...overrides })));

test("settings out of range fall back to a valid value", () => {
  const valid = stateOf({});
  assert.equal(valid.problem, "");
  /** @type {Array<[Record<string, any>, string, any]>} */
  const cases = [
    [{ layer: 0 }, "layer", 1],
    [{ layer: 9 }, "layer", 3],
    [{ layer: NaN }, "layer", 1],
    [{ layer: "2" }, "layer", 1],
    [{ head: -3 }, "head", -1],
    [{ head: 2 }, "head", -1],
    [{ head: 1.5 }, "head", -1],
    [{ threshold: Infinity }, "threshold", 0],
    [{ threshold: NaN }, "threshold", 0],
    [{ threshold: -1 }, "threshold", 0],
    [{ top_k: -3 }, "topK", 0],
    [{ top_k: NaN }, "topK", 0],
    [{ binarize_threshold: NaN }, "binarizeThreshold", 0.05],
    [{ specials: "drop" }, "specials", "show"],
    [{ view: 3 }, "view", "layer"],
    [{ node_size: null }, "nodeSize", ""],
    [{ window: [NaN, -2] }, "window", { start: 0, size: 0 }],
    [{ window: [99, 2.4] }, "window", { start: 5, size: 2 }],
    [{ window: "all" }, "window", { start: 0, size: 0 }],
    [{ selected: { index: NaN, side: "target" } }, "selected", {}],
    [{ selected: { index: 6, side: "target" } }, "selected", {}],
    [{ selected: { index: 1, side: "middle" } }, "selected", {}],
    [{ selected: { index: 1, layer: 4 } }, "selected", {}],
    [{ selected: { index: 1, layer: 3 } }, "selected", { layer: 3, index: 1 }],
    [{ selected: null }, "selected", {}],
    [{ ready: { raw: "all" } }, "ready", {}],
    [
      {
        ready_row: {
          flow: { index: 6, layers: [3], computing: false },
          rollout: { index: 1, layers: [-1], computing: false },
          raw: 2,
          alti: { index: 5, layers: [2, 3], computing: true },
          flow_rf: { index: 5, layers: [], computing: "yes" },
        },
      },
      "readyRow",
      { alti: { index: 5, layers: [2, 3], computing: true } },
    ],
    [{ job: { method: "flow", done: NaN, total: 1 } }, "job", {}],
    [{ attribution_data: [1, 2] }, "attributionData", {}],
    [{ method: "gradients" }, "method", valid.methods[0]],
  ];
  for (const [traits, key, expected] of cases) {
    const state = stateOf(traits);
    assert.deepEqual(state[/** @type {keyof typeof state} */ (key)], expected, JSON.stringify(traits));
    assert.equal(state.problem, "", JSON.stringify(traits));
  }
  assert.deepEqual(
    stateOf({ special: [true] }).special,
    [true, false, false, false, false, false],
    "one flag per token",
  );
  assert.deepEqual(stateOf({ tokens: ["a", 2, null, "d", "e", "f"] }).tokens, ["a", "2", "null", "d", "e", "f"]);
});

test("facts that describe no picture are reported, not drawn", () => {
  assert.match(stateOf({ methods: [] }).problem, /offers no methods/);
  assert.match(stateOf({ tokens: [] }).problem, /lists no tokens/);
  assert.match(stateOf({ tokens: null }).problem, /lists no tokens/);
  assert.match(stateOf({ n_layers: 0 }).problem, /n_layers is 0/);
  assert.match(stateOf({ n_heads: "2" }).problem, /n_heads is "2"/);
});

/** @param {Record<string, any>} overrides */
function mount(overrides) {
  const dom = makeDom();
  const el = dom.window.document.createElement("div");
  dom.window.document.body.append(el);
  const model = new FakeModel({ ...widgetTraits(), ...overrides });
  logged.length = 0;
  const cleanup = render({ model, el });
  return { el, model, cleanup, dom };
}

/** @param {HTMLElement} el */
const problemOf = (el) => /** @type {HTMLElement} */ (el.querySelector(".attnw-problem"));
/** @param {HTMLElement} el */
const plotOf = (el) => /** @type {HTMLElement} */ (el.querySelector(".attnw-plot"));

test("traits that do not fit the data: the widget says why instead of drawing a wrong picture", async () => {
  for (const [traits, reason] of /** @type {Array<[Record<string, any>, RegExp]>} */ ([
    [
      { tokens: ["only one"], special: [false] },
      /data_raw has shape \[3,4,6,6\], which does not fit 1 tokens, 3 layers and 2 heads/,
    ],
    [{ n_heads: 3 }, /does not fit 6 tokens, 3 layers and 3 heads/],
    [{ methods: [] }, /offers no methods/],
    [{ data_raw: new DataView(new ArrayBuffer(12)) }, /not an attn_widget payload/],
  ])) {
    const { el } = mount(traits);
    assert.equal(problemOf(el).hidden, false, JSON.stringify(Object.keys(traits)));
    assert.match(problemOf(el).textContent ?? "", reason);
    assert.match(problemOf(el).textContent ?? "", /^Cannot draw this view: .*Make the widget again/);
    assert.equal(plotOf(el).hidden, true);
    const offered = widgetTraits().methods.length;
    if (!("methods" in traits))
      assert.equal(el.querySelectorAll(".attnw-method option").length, offered, "the controls stay usable");
  }
});

test("the view recovers when the traits are right again, and keys and downloads do nothing meanwhile", async () => {
  const { el, model, dom } = mount({ tokens: ["only one"] });
  const plot = plotOf(el);
  plot.dispatchEvent(new dom.window.KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
  assert.deepEqual(model.get("selected"), {}, "nothing to pin");
  /** @type {HTMLButtonElement} */ (el.querySelector(".attnw-save-svg")).click();
  assert.equal(el.querySelector("a"), null, "nothing to download");
  model.set("tokens", widgetTraits().tokens);
  await new Promise((resolve) => dom.window.requestAnimationFrame(() => setTimeout(resolve, 0)));
  assert.equal(problemOf(el).hidden, true);
  assert.equal(plot.hidden, false);
  assert.equal(/** @type {HTMLElement} */ (el.querySelector(".attnw-canvas")).dataset.edges, "21");
});

test("a pinned token that is not a token, or a head that does not exist, draws the plain view", () => {
  for (const traits of [
    { selected: { index: NaN, side: "target" } },
    { view: "model", selected: { layer: 1, index: NaN } },
    { head: 9 },
    { threshold: NaN },
  ]) {
    const { el } = mount(traits);
    assert.equal(problemOf(el).hidden, true, JSON.stringify(traits));
    assert.deepEqual(logged, []);
    assert.ok(Number(/** @type {HTMLElement} */ (el.querySelector(".attnw-canvas")).dataset.edges) > 0);
  }
});

test("the whole-model view of a method with no layer computed yet draws the graph, without its shading", () => {
  const traits = widgetTraits();
  const { el } = mount({
    view: "model",
    method: "flow",
    ready: { ...traits.ready, flow: [] },
    data_flow: new DataView(new ArrayBuffer(0)),
  });
  assert.equal(problemOf(el).hidden, true);
  assert.deepEqual(logged, []);
  assert.equal(/** @type {HTMLElement} */ (el.querySelector(".attnw-canvas")).dataset.view, "model");
});

test("a target position that is no token row is dropped, and never reaches a selector", () => {
  const scores = { status: "running", done: 1, total: 2, target: "t0", method: "saliency" };
  for (const position of ['"]', "3", 1.5, -1, 6, true, null]) {
    const traits = {
      targets: [{ id: "t0", label: "x", position }],
      target: "t0",
      attribution: "saliency",
      attribution_data: scores,
    };
    assert.equal(stateOf(traits).targets[0].position, null, JSON.stringify(position));
    const { el } = mount(traits);
    assert.deepEqual(logged, [], JSON.stringify(position));
    assert.equal(el.querySelectorAll(".attnw-target-row").length, 0, JSON.stringify(position));
  }
  const { el } = mount({
    targets: [{ id: "t0", label: "x", position: 2 }],
    target: "t0",
    attribution: "saliency",
    attribution_data: scores,
  });
  assert.ok(el.querySelector('.attnw-labels-right [data-index="2"]')?.classList.contains("attnw-target-row"));
});
