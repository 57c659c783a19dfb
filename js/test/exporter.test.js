import assert from "node:assert/strict";
import { test } from "node:test";
import { svgOf } from "../src/exporter.js";
import { envelopeCache, layerFrame, modelFrame } from "../src/frames.js";
import { LABEL_GAP } from "../src/layout.js";
import { layerScene, modelScene } from "../src/scene.js";
import { readState } from "../src/state.js";
import { FakeModel, makeDom, widgetTraits } from "./fake-model.js";

/**
 * The SVG of a view of the synthetic widget (3 layers, 6 tokens), parsed.
 * @param {Record<string, any>} [overrides] traits
 * @param {Partial<import("../src/exporter.js").Picture>} [texts] titles and caption
 */
function exported(overrides = {}, words = {}) {
  const dom = makeDom();
  const model = new FakeModel({ ...widgetTraits(), ...overrides });
  const state = readState(model);
  const envelopeOf = envelopeCache(model);
  const frame =
    state.view === "model" ? modelFrame(state, 640, envelopeOf, null) : layerFrame(state, 640, envelopeOf, null);
  const scene = frame.kind === "model" ? modelScene(frame, false) : layerScene(frame, false);
  const svg = svgOf(dom.window.document, {
    scene,
    tokens: state.tokens,
    titles: ["left title", "right title"],
    caption: "a caption",
    foreground: "#111111",
    background: "#ffffff",
    ...words,
  });
  const parsed = new dom.window.DOMParser().parseFromString(svg, "image/svg+xml");
  const texts = [...parsed.querySelectorAll("text")].map((t) => t.textContent);
  return { svg, parsed, texts, frame };
}

test("the SVG export draws every edge and keeps token text as escaped text", () => {
  const { svg, parsed, texts, frame } = exported({ method: "rollout", layer: 3 });
  assert.equal(frame.kind, "layer");
  assert.ok(frame.kind === "layer" && frame.edges.count > 0);
  assert.equal(parsed.querySelectorAll("path").length, frame.kind === "layer" ? frame.edges.count : -1);
  assert.ok(texts.includes("<img src=x onerror=alert(1)>"));
  assert.ok(texts.includes("<script>alert(2)</script>"));
  assert.ok(!svg.includes("<script>") && svg.includes("&lt;script&gt;"));
  assert.equal(parsed.querySelectorAll("script, img").length, 0);
});

test("a pinned token's edges are exported strong and the others as faint grey context, as on screen", () => {
  const { parsed } = exported({ method: "raw", layer: 2, selected: { side: "target", index: 5 } });
  const paths = [...parsed.querySelectorAll("path")];
  const strong = paths.slice(-6); // causal: row 5 draws on 6 tokens; highlighted edges come last
  const weak = paths.slice(0, -6);
  const ends = new Set(strong.map((p) => (p.getAttribute("d") ?? "").split(" ").at(-1)));
  assert.equal(ends.size, 1, "the strong edges all end at the pinned token");
  assert.ok(!weak.some((p) => ends.has((p.getAttribute("d") ?? "").split(" ").at(-1))));
  assert.ok(Math.min(...strong.map((p) => Number(p.getAttribute("stroke-width")))) >= 0.6 * 1.5 - 1e-9, "drawn wider");
  assert.ok(
    weak.every((p) => p.parentElement?.getAttribute("opacity") === "0.12"),
    "faint context: one group at 0.12",
  );
  assert.ok(
    strong.every((p) => !p.parentElement?.hasAttribute("opacity")),
    "the pinned token's edges at full opacity",
  );
  for (const p of weak) {
    const [r, g, b] = (p.getAttribute("stroke") ?? "").match(/\d+/g) ?? [];
    assert.ok(r === g && g === b, "in grey");
  }
  assert.ok(
    strong.some((p) => new Set((p.getAttribute("stroke") ?? "").match(/\d+/g)).size > 1),
    "the pinned token's edges in colour",
  );
});

test("the whole-model view exports every layer's edges, the node dots and the column numbers", () => {
  const { parsed, texts, frame } = exported({ view: "model", method: "raw" });
  assert.equal(frame.kind, "model");
  const expected = frame.kind === "model" ? frame.perLayer.reduce((sum, e) => sum + e.count, 0) : -1;
  assert.equal(parsed.querySelectorAll("path").length, expected);
  assert.equal(parsed.querySelectorAll("circle").length, 4 * 6, "a dot per token in each of the 4 columns");
  assert.ok(texts.includes("1") && texts.includes("2"), "numbers of the inner columns");
  // Each layer's edges span one column step, not the whole width.
  const starts = new Set([...parsed.querySelectorAll("path")].map((p) => (p.getAttribute("d") ?? "").split(" ")[0]));
  assert.equal(starts.size, 3);
});

test("a token window exports the rows it shows and clips the edges to the plot", () => {
  const { parsed, texts } = exported({ method: "raw", layer: 1, window: [2, 3] });
  assert.ok(texts.includes(" cat") && !texts.includes("<s>"), "row 0 is outside the window");
  assert.equal(parsed.querySelector("g")?.getAttribute("clip-path"), "url(#attnw-band)");
});

test("dots stay clear of the token labels, however tall the rows", () => {
  for (const overrides of [
    { node_size: "in" },
    { node_size: "out" },
    { view: "model", method: "rollout", selected: { layer: 0, index: 1 } },
  ]) {
    const { parsed, frame } = exported(overrides);
    const { leftX, rightX } = frame.layout;
    const circles = [...parsed.querySelectorAll("circle")];
    assert.ok(circles.length > 0);
    for (const c of circles) {
      const [x, r] = [Number(c.getAttribute("cx")), Number(c.getAttribute("r"))];
      assert.ok(
        x - r >= leftX - LABEL_GAP - 1e-9 && x + r <= rightX + LABEL_GAP + 1e-9,
        `${JSON.stringify(overrides)}: dot at ${x} r ${r}`,
      );
    }
  }
});

test("the SVG is valid XML whatever text it is given: every control character, lone surrogates, non-characters", () => {
  const controls = `${Array.from({ length: 0x20 }, (_, c) => String.fromCharCode(c)).join("")}\u007f\u0085\u009f`;
  const hostile = `${controls}\ud800\udfff\ufffe\uffff\u202e`;
  const tokens = [hostile, "\u0000", "\n", "\u001b[31m", "a\ud83d", "\u0085"]; // as a page could receive them
  const { svg, parsed, texts } = exported(
    { tokens, method: "raw", layer: 2 },
    { titles: [hostile, hostile], caption: `caption ${hostile}` },
  );
  assert.equal(parsed.getElementsByTagName("parsererror").length, 0, "parses as XML");
  assert.equal(parsed.documentElement.localName, "svg");
  assert.ok(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for the control characters XML forbids
    !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/.test(svg),
    "no character XML forbids, not even escaped",
  );
  assert.ok(
    ["\\x00", "↵", "\\x1b[31m", "\\x85"].every((shown) => texts.includes(shown)),
    "token labels show the controls",
  );
  assert.ok(texts.includes("a\ufffd"), "a lone surrogate becomes U+FFFD");
  assert.ok(
    texts.some((t) => t?.startsWith("caption \ufffd")),
    "a caption keeps its text, the forbidden characters replaced",
  );
});
