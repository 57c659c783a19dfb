import assert from "node:assert/strict";
import { test } from "node:test";
import { colormap } from "../src/colormap.js";
import { decodeEnvelope } from "../src/codec.js";
import { sliceEdges } from "../src/edges.js";
import { svgOf } from "../src/exporter.js";
import { computeLayout } from "../src/layout.js";
import { makeDom, widgetTraits } from "./fake-model.js";

test("the SVG export draws every edge and keeps token text as escaped text", () => {
  const dom = makeDom();
  const traits = widgetTraits();
  const edges = sliceEdges(decodeEnvelope(traits.data_rollout), 2);
  const svg = svgOf(dom.window.document, {
    layout: computeLayout(640, traits.tokens.length),
    edges,
    tokens: traits.tokens,
    titles: ["Input (layer 0)", "Layer 3"],
    caption: "Attention rollout · layer 3 of 3",
    options: { table: colormap("light"), signed: false, highlight: null },
    foreground: "#111111",
    background: "#ffffff",
  });
  const parsed = new dom.window.DOMParser().parseFromString(svg, "image/svg+xml");
  assert.equal(parsed.querySelectorAll("path").length, edges.count);
  const texts = [...parsed.querySelectorAll("text")].map((t) => t.textContent);
  assert.ok(texts.includes("<img src=x onerror=alert(1)>"));
  assert.ok(texts.includes("<script>alert(2)</script>"));
  assert.ok(!svg.includes("<script>") && svg.includes("&lt;script&gt;"));
  assert.equal(parsed.querySelectorAll("script, img").length, 0);
});
