// The colour scale: one map per method (signed methods diverging everywhere), a focused token's
// edges on their own range, and the legend saying which scale is in use (issue 34).

import assert from "node:assert/strict";
import { test } from "node:test";
import { colormap, isSigned } from "../src/colormap.js";
import { compareFrames, compareMeta } from "../src/compare.js";
import { edgeStyle, scaleEnd } from "../src/draw.js";
import { legendOf } from "../src/export_legend.js";
import { envelopeCache, layerFrame } from "../src/frames.js";
import { scaleText } from "../src/overlay.js";
import { layerScene } from "../src/scene.js";
import { readState } from "../src/state.js";
import { FakeModel, widgetTraits } from "./fake-model.js";

test("a signed method is drawn on the diverging map even where its values are all positive", () => {
  assert.equal(isSigned({ signed: true }, { signed: false }), true);
  assert.equal(isSigned({ signed: false }, { signed: true }), true); // a difference
  assert.equal(isSigned({ signed: false }, { signed: false }), false);
  assert.equal(isSigned({}, null), false);
  const model = new FakeModel({ ...widgetTraits(), method: "raw", layer: 1, head: 0 });
  const envelopeOf = envelopeCache(model);
  const state = readState(model);
  // Raw attention's data is non-negative: as a signed method's (a short text's effective attention), it is still diverging.
  const asSigned = { ...state, method: { ...state.method, signed: true } };
  const frame = layerFrame(asSigned, 600, envelopeOf, null);
  assert.equal(frame.env?.signed, false);
  for (const dark of [false, true]) {
    const scene = layerScene(frame, dark);
    assert.equal(scene.signed, true);
    assert.deepEqual(scene.table, colormap("diverging"));
  }
  assert.deepEqual(layerScene(layerFrame(state, 600, envelopeOf, null), false).table, colormap("light"));
});

test("side by side, effective attention and the method beside it share the diverging map", () => {
  const model = new FakeModel({ ...widgetTraits(), method: "effective", compare_method: "raw", layer: 2, head: 0 });
  const envelopeOf = envelopeCache(model);
  for (const [method, compared] of [
    ["effective", "raw"],
    ["raw", "effective"],
  ]) {
    model.set("method", method);
    model.set("compare_method", compared);
    const state = readState(model);
    const other = compareMeta(state);
    assert.equal(other?.id, compared);
    const side = compareFrames(state, other, 800, envelopeOf, null);
    const left = layerScene(side.main, false);
    const right = layerScene(side.second, false);
    assert.equal(left.signed, true, `${method} left`);
    assert.equal(right.signed, true, `${method} right`);
    assert.deepEqual(left.table, colormap("diverging"));
    assert.deepEqual(right.table, left.table);
  }
});

test("a focused token's edges are coloured on its own row's range, and the legend says so", () => {
  const model = new FakeModel({ ...widgetTraits(), method: "raw", layer: 1, head: 0, top_k: 0 });
  const envelopeOf = envelopeCache(model);
  const state = readState(model);
  const last = state.tokens.length - 1;
  const frame = layerFrame(state, 600, envelopeOf, { side: "target", index: last });
  const { edges } = frame;
  const row = [];
  for (let e = 0; e < edges.count; e++) if (edges.target[e] === last) row.push(edges.weight[e]);
  const strongest = Math.max(...row);
  assert.deepEqual(frame.focusScale, { low: strongest, high: strongest });
  const scene = layerScene(frame, false);
  assert.deepEqual(scene.scale, { of: "focus", low: 0, high: strongest, selfOnly: 0 });
  assert.deepEqual(scene.bundles[0].focusScale, frame.focusScale);
  // The strongest edge of the row gets the darkest colour of the map, whatever the slice's max.
  const options = { table: scene.table, signed: false, highlight: new Set([0]), focusScale: frame.focusScale };
  const top = edgeStyle(strongest, edges.max, options, true);
  assert.equal(top.color, edgeStyle(edges.max, edges.max, { ...options, focusScale: null }, true).color);
  assert.equal(scaleEnd(frame.focusScale, strongest, edges.max), strongest);
  assert.equal(scaleEnd(null, strongest, edges.max), edges.max);
  assert.equal(scaleText(scene.scale, false, false, "en"), `colour: this token's edges, 0 to ${fmt(strongest)}`);
  const spec = legendOf(scene, state.method);
  assert.equal(spec?.max, strongest);
  assert.match(spec?.title ?? "", /focused token's edges/);
  // Without focus: every drawn edge, 0 to the slice's max, the first token's lone self-edge left out.
  const plain = layerScene(layerFrame(state, 600, envelopeOf, null), false);
  assert.equal(plain.scale.of, "all");
  assert.equal(plain.scale.high, frame.edges.max);
  assert.match(scaleText(plain.scale, false, false, "en"), /^colour: all edges drawn, 0 to /);
  assert.equal(legendOf(plain, state.method)?.max, frame.edges.max);
});

test("signed focus: each sign's strongest edge gets its end colour, widths keep one size scale", () => {
  const table = colormap("diverging");
  const focusScale = { low: 0.013, high: 0.095 };
  const options = { table, signed: true, highlight: new Set([0]), wideFrom: 12, focusScale };
  const negative = edgeStyle(-0.013, 1, options, true);
  const positive = edgeStyle(0.095, 1, options, true);
  assert.equal(negative.color, edgeStyle(-1, 1, { ...options, focusScale: null }, true).color); // the blue end
  assert.equal(positive.color, edgeStyle(1, 1, { ...options, focusScale: null }, true).color); // the red end
  assert.ok(positive.width > 3 * negative.width, `${positive.width} ${negative.width}`);
  // On a ±1 scale (no focus scale) the same negative edge is near the grey middle.
  assert.notEqual(edgeStyle(-0.013, 1, { ...options, focusScale: null }, true).color, negative.color);
});

test("the legend's words for each scale, signed and with a self-edge left out", () => {
  assert.equal(
    scaleText({ of: "all", low: 0, high: 0.62, selfOnly: 1 }, false, false, "en"),
    "colour: all edges drawn, 0 to 0.62 (not counting 1: a token that sees only itself)",
  );
  assert.equal(
    scaleText({ of: "focus", low: 0.013, high: 0.09, selfOnly: 0 }, true, false, "en"),
    "colour: this token's edges, -0.013 to 0.09 (blue and red each to their own end; width by size)",
  );
  assert.match(scaleText({ of: "focus", low: 0, high: 0.31, selfOnly: 0 }, false, false, "zh"), /^颜色：/);
});

/** @param {number} v */
function fmt(v) {
  return String(Number(v.toPrecision(2)));
}
