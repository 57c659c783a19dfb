import assert from "node:assert/strict";
import { test } from "node:test";
import { createExplain, explanationOf } from "../src/explain.js";
import { legendOf } from "../src/export_legend.js";
import { svgOf } from "../src/exporter.js";
import { envelopeCache, layerFrame } from "../src/frames.js";
import { formatValue } from "../src/overlay.js";
import { layerScene } from "../src/scene.js";
import { readState } from "../src/state.js";
import { FakeModel, makeDom, widgetTraits } from "./fake-model.js";

test("integer-valued methods print whole numbers without decimals; others keep four", () => {
  assert.equal(formatValue(17, true), "17");
  assert.equal(formatValue(17), "17.0000");
  assert.equal(formatValue(1e20, true), "100000000000000000000");
  assert.equal(formatValue(2.99998, true), "3", "whole numbers come back from the 16-bit payload nearly whole");
  assert.equal(formatValue(-4.00001, true), "-4");
  assert.equal(formatValue(0, true), "0");
});

test("the explanation panel is hidden until asked and shows the selected method's text as text", () => {
  const dom = makeDom();
  const doc = dom.window.document;
  const explain = createExplain(doc);
  assert.equal(explain.panel.hidden, true);
  const method = {
    id: "x",
    label: "X <b>",
    per_head: false,
    cumulative: false,
    description: "d",
    explain: "An edge <i>means</i> this.",
  };
  explain.update(method);
  explain.button.click();
  assert.equal(explain.panel.hidden, false);
  assert.equal(explain.button.getAttribute("aria-expanded"), "true");
  assert.ok(explain.panel.textContent?.includes("An edge <i>means</i> this."));
  assert.equal(explain.panel.querySelectorAll("i, b").length, 0, "text is never parsed as HTML");
  explain.update({ ...method, label: "Y", explain: "" });
  assert.ok(explain.panel.textContent?.includes("d"), "without an explanation: the description");
  assert.equal(
    explanationOf({ ...method, explain: "", description: "" }),
    "No explanation is available for this method.",
  );
  explain.button.click();
  assert.equal(explain.panel.hidden, true);
});

test("the SVG export carries the colour scale: a gradient, its bar and the largest value", () => {
  const dom = makeDom();
  const model = new FakeModel({ ...widgetTraits(), method: "rollout", layer: 3 });
  const state = readState(model);
  const frame = layerFrame(state, 640, envelopeCache(model), null);
  const scene = layerScene(frame, false);
  const legend = legendOf(scene, state.method);
  assert.ok(legend && frame.kind === "layer");
  assert.equal(legend.max, frame.edges.max);
  const base = {
    scene,
    tokens: state.tokens,
    titles: /** @type {[string, string]} */ (["l", "r"]),
    caption: "c",
    foreground: "#111",
    background: "#fff",
  };
  const parsed = new dom.window.DOMParser().parseFromString(
    svgOf(dom.window.document, { ...base, legend }),
    "image/svg+xml",
  );
  const stops = parsed.querySelectorAll("linearGradient#attnw-legend-ramp stop");
  assert.ok(stops.length >= 8);
  assert.equal(stops[0].getAttribute("stop-color"), scene.table[0]);
  assert.equal(stops[stops.length - 1].getAttribute("stop-color"), scene.table.at(-1));
  assert.equal(parsed.querySelector("rect.attnw-legend-bar")?.getAttribute("fill"), "url(#attnw-legend-ramp)");
  const texts = [...parsed.querySelectorAll("text")].map((t) => t.textContent);
  assert.ok(texts.includes(formatValue(frame.edges.max)) && texts.includes("0"));
  assert.ok(texts.some((t) => t?.startsWith(`${state.method.label}: edge colour`)));
  const bare = new dom.window.DOMParser().parseFromString(svgOf(dom.window.document, base), "image/svg+xml");
  assert.equal(
    Number(parsed.documentElement.getAttribute("height")) - Number(bare.documentElement.getAttribute("height")),
    26,
  );
});
