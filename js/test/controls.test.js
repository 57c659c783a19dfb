// The control bar is built from the option table (options.js): an option declared as one entry gets a
// working control, labelled, showing the state, and writing its trait.
import assert from "node:assert/strict";
import { test } from "node:test";
import { createControls } from "../src/controls.js";
import { choice, count, VIEW_OPTIONS } from "../src/options.js";
import { readState } from "../src/state.js";
import { FakeModel, makeDom, widgetTraits } from "./fake-model.js";

/** A bar over `options`, with the state of the fake widget plus `extra` (the toy options' values). */
function bar(options = VIEW_OPTIONS, extra = {}) {
  const dom = makeDom();
  const doc = dom.window.document;
  const model = new FakeModel(widgetTraits());
  const controls = createControls(doc, /** @type {any} */ (model), "en", options);
  doc.body.append(controls.root);
  controls.update({ ...readState(/** @type {any} */ (model)), ...extra });
  return { dom, doc, model, controls };
}

test("every option with a control in the table has one in the bar, in the table's order", () => {
  const { controls } = bar();
  const names = [...controls.root.querySelectorAll("select, input")].map((node) => node.className);
  const declared = VIEW_OPTIONS.filter((option) => option.control).map(
    (option) => `attnw-${option.trait.replaceAll("_", "-")}`,
  );
  // An option's control is named after its trait (the token window's two: attnw-window-size, -start).
  const order = declared.map((name) => names.findIndex((n) => n === name || n.startsWith(`${name}-`)));
  assert.ok(
    order.every((i) => i >= 0),
    `missing: ${declared.filter((_, k) => order[k] < 0)}`,
  );
  assert.deepEqual(
    order,
    [...order].sort((a, b) => a - b),
  );
});

test("a toy option added as one table entry gets a working control", () => {
  const toys = [
    choice(
      "toy",
      [
        ["a", "first"],
        ["b", "second"],
      ],
      "toy",
      { label: "Toy", title: "A toy menu" },
    ),
    count("toy_count", "toyCount", 1, () => 10, 1, { label: "Toy count", max: 4 }),
  ];
  const { dom, doc, model } = bar([...VIEW_OPTIONS, ...toys], { toy: "b", toyCount: 3 });
  const menu = /** @type {HTMLSelectElement} */ (doc.querySelector(".attnw-toy"));
  const field = /** @type {HTMLInputElement} */ (doc.querySelector(".attnw-toy-count"));
  assert.deepEqual(
    [...menu.options].map((o) => [o.value, o.text]),
    [
      ["a", "first"],
      ["b", "second"],
    ],
  );
  assert.equal(menu.value, "b", "the control shows the state");
  assert.equal(menu.title, "A toy menu");
  assert.equal(menu.closest("label")?.textContent, "Toy" + "firstsecond");
  assert.equal(field.value, "3");
  assert.deepEqual([field.min, field.max, field.step], ["1", "4", "1"]);
  menu.value = "a";
  menu.dispatchEvent(new dom.window.Event("change"));
  assert.equal(model.get("toy"), "a");
  const saves = model.saves;
  field.value = "9"; // above the control's bound: clamped
  field.dispatchEvent(new dom.window.KeyboardEvent("keydown", { key: "Enter", bubbles: true, cancelable: true }));
  assert.equal(model.get("toy_count"), 4);
  field.value = "2.6"; // a count: rounded
  field.dispatchEvent(new dom.window.Event("change"));
  assert.equal(model.get("toy_count"), 3);
  assert.equal(model.saves, saves + 2, "each commit is sent");
});

test("an option that asks for a control of its own the bar does not build is named", () => {
  const { doc } = bar([]);
  const model = new FakeModel(widgetTraits());
  const own = { ...VIEW_OPTIONS[0], trait: "toy", control: /** @type {"own"} */ ("own") };
  assert.throws(
    () => createControls(doc, /** @type {any} */ (model), "en", [own]),
    /no control of its own for the option toy/,
  );
});

test("a toy option declared for some views is disabled in the others, saying why, and restored", () => {
  const toy = {
    ...count("toy_count", "toyCount", 1, () => 10, 1, { label: "Toy count", title: "A toy field" }),
    views: ["layer"],
  };
  const { doc, model, controls } = bar([...VIEW_OPTIONS, toy], { toyCount: 3 });
  const field = /** @type {HTMLInputElement} */ (doc.querySelector(".attnw-toy-count"));
  assert.equal(field.disabled, false);
  for (const view of ["heads", "model"]) {
    controls.update({ ...readState(/** @type {any} */ (model)), view, toyCount: 3 });
    assert.equal(field.disabled, true, view);
    assert.match(field.title, /^Does nothing in the view “(all heads|whole model)”: it applies to “one layer”$/);
    assert.equal(field.closest("label")?.title, field.title);
  }
  controls.update({ ...readState(/** @type {any} */ (model)), view: "layer", toyCount: 3 });
  assert.equal(field.disabled, false);
  assert.equal(field.title, "A toy field");
  assert.equal(field.closest("label")?.hasAttribute("title"), false);
});

test("token scores and their target are disabled, saying why, in the views that draw no bars", () => {
  const { doc, model, controls } = bar();
  const targets = [{ id: "logit", label: "logit of “x”", position: 1 }];
  const menu = /** @type {HTMLSelectElement} */ (doc.querySelector(".attnw-attribution"));
  const target = /** @type {HTMLSelectElement} */ (doc.querySelector(".attnw-target"));
  const state = { ...readState(/** @type {any} */ (model)), targets, target: "logit" };
  controls.update({ ...state, view: "layer" });
  assert.deepEqual([menu.disabled, target.disabled], [false, false]);
  for (const view of ["heads", "model"]) {
    controls.update({ ...state, view });
    assert.deepEqual([menu.disabled, target.disabled], [true, true], view);
    assert.match(menu.title, /^Does nothing in the view “(all heads|whole model)”: it applies to “one layer”$/);
  }
});

test("the options declared `more` sit behind More, which opens them, says how many are set and names them", () => {
  const { doc, model, controls } = bar();
  const toggle = /** @type {HTMLButtonElement} */ (doc.querySelector(".attnw-more-toggle"));
  const behind = VIEW_OPTIONS.filter((option) => option.more && option.control);
  for (const option of behind) {
    const node = doc.querySelector(`[class^="attnw-${option.trait.replaceAll("_", "-")}"]`);
    assert.ok(node && controls.more.contains(node), option.trait);
  }
  assert.equal(controls.more.hidden, true);
  assert.equal(toggle.textContent, "More ▾");
  // Set from Python: the button says so while the row is hidden.
  controls.update({ ...readState(/** @type {any} */ (model)), topK: 3, compareMethod: "flow" });
  assert.equal(toggle.textContent, "More (2 set) ▾");
  assert.match(toggle.title, /Set behind it: Edges per token, Compare with$/);
  toggle.click();
  assert.equal(model.get("controls"), "all");
  controls.update({ ...readState(/** @type {any} */ (model)), topK: 3 });
  assert.equal(controls.more.hidden, false);
  assert.equal(toggle.textContent, "Fewer ▴");
  assert.equal(toggle.getAttribute("aria-expanded"), "true");
});

test("the target shows only with token scores: it chooses what they explain", () => {
  const { doc, model, controls } = bar();
  const targets = [{ id: "logit", label: "logit of “x”", position: 1 }];
  const target = /** @type {HTMLElement} */ (doc.querySelector(".attnw-target")?.closest("label"));
  const state = { ...readState(/** @type {any} */ (model)), targets, target: "logit" };
  controls.update({ ...state, attribution: "" });
  assert.equal(target.hidden, true);
  controls.update({ ...state, attribution: "saliency" });
  assert.equal(target.hidden, false);
});

test("a token window scrolled but not resized is navigation, not a setting behind More", () => {
  const { doc, model, controls } = bar();
  const toggle = /** @type {HTMLButtonElement} */ (doc.querySelector(".attnw-more-toggle"));
  controls.update({ ...readState(/** @type {any} */ (model)), window: { start: 40, size: 0 } });
  assert.equal(toggle.textContent, "More ▾");
  controls.update({ ...readState(/** @type {any} */ (model)), window: { start: 40, size: 16 } });
  assert.equal(toggle.textContent, "More (1 set) ▾");
  assert.match(toggle.title, /Set behind it: Token rows$/);
});
