import assert from "node:assert/strict";
import { test } from "node:test";
import { rowEntries } from "../src/codec.js";
import { colorAt, colormap } from "../src/colormap.js";
import { compareFrames, compareMeta, differenceEdges, sharedScale } from "../src/compare.js";
import { edgeStyle } from "../src/draw.js";
import { sliceEdges } from "../src/edges.js";
import { envelopeCache } from "../src/frames.js";
import { layerScene } from "../src/scene.js";
import { readState, sliceIndex } from "../src/state.js";
import { edgeList, FakeModel, widgetTraits } from "./fake-model.js";

/** A slice as a dense n × n matrix [target][source], from the envelope's stored entries. */
function dense(/** @type {import("../src/codec.js").Envelope} */ env, /** @type {number} */ slice) {
  return Array.from({ length: env.rows }, (_, r) => {
    const row = new Array(env.cols).fill(0);
    const { cols, values } = rowEntries(env, slice, r);
    for (let i = 0; i < values.length; i++) row[cols[i]] = values[i];
    return row;
  });
}

test("one scale: the same weight gets the same colour, alpha and width in both panes", () => {
  const a = edgeList([
    [0, 0, 0.9],
    [1, 0, 0.3],
    [2, 1, 0.05],
  ]);
  const b = edgeList([
    [0, 1, 0.3],
    [1, 1, 0.2],
  ]);
  const [sa, sb] = sharedScale(a, b);
  assert.equal(sa.max, 0.9);
  assert.equal(sb.max, 0.9);
  assert.equal(sa.weight, a.weight); // shared, not copied
  const options = { table: colormap("light"), signed: false, highlight: null };
  assert.deepEqual(edgeStyle(0.3, sa.max, options, false), edgeStyle(0.3, sb.max, options, false));
  // Reference: bucket ⌊w / max · 24⌋ of the shared max; each pane's own max would colour 0.3 differently.
  const bucketColour = (/** @type {number} */ w, /** @type {number} */ max) =>
    colorAt(options.table, (Math.min(23, Math.floor((w / max) * 24)) + 0.5) / 24);
  assert.equal(edgeStyle(0.3, sb.max, options, false).color, bucketColour(0.3, 0.9));
  assert.notEqual(edgeStyle(0.3, b.max, options, false).color, edgeStyle(0.3, sb.max, options, false).color);
});

test("the difference is a − b per edge, against a dense brute force", () => {
  const n = 4;
  const a = edgeList([
    [0, 0, 0.5],
    [1, 0, 0.5],
    [2, 3, 0.25],
    [3, 3, 0.75],
  ]);
  const b = edgeList([
    [0, 0, 0.5],
    [2, 0, 0.5],
    [2, 3, 0.5],
    [1, 2, 1],
  ]);
  const brute = Array.from({ length: n }, () => new Array(n).fill(0));
  for (const [list, sign] of [
    [a, 1],
    [b, -1],
  ]) {
    const l = /** @type {ReturnType<typeof edgeList>} */ (list);
    for (let e = 0; e < l.count; e++) brute[l.target[e]][l.source[e]] += /** @type {number} */ (sign) * l.weight[e];
  }
  const diff = differenceEdges(a, b, n);
  const got = Array.from({ length: n }, () => new Array(n).fill(0));
  for (let e = 0; e < diff.count; e++) got[diff.target[e]][diff.source[e]] = diff.weight[e];
  assert.deepEqual(got, brute);
  assert.equal(diff.count, brute.flat().filter((v) => v !== 0).length); // equal entries (0, 0) left out
  assert.equal(diff.max, 1);
});

test("the diverging map is symmetric about 0: grey at 0, the same strength either side in opposite hues", () => {
  const table = colormap("diverging");
  const rgb = (/** @type {string} */ c) => (c.match(/\d+/g) ?? []).map(Number);
  const [r0, g0, b0] = rgb(colorAt(table, 0, true));
  assert.ok(Math.abs(r0 - g0) < 8 && Math.abs(g0 - b0) < 8, "grey at 0");
  for (const t of [0.1, 0.5, 1]) {
    assert.equal(colorAt(table, t, true), table[table.length - 1 - table.indexOf(colorAt(table, -t, true))]);
  }
  const options = { table, signed: true, highlight: null };
  const plus = edgeStyle(0.4, 0.8, options, false);
  const minus = edgeStyle(-0.4, 0.8, options, false);
  assert.equal(plus.alpha, minus.alpha);
  assert.equal(plus.width, minus.width);
  const [pr, , pb] = rgb(plus.color);
  const [mr, , mb] = rgb(minus.color);
  assert.ok(pr > pb && mb > mr, `${plus.color} red, ${minus.color} blue`);
});

test("compare frames: both panes of the model's data on one scale, or their difference, following layer and head", () => {
  const model = new FakeModel({ ...widgetTraits(), method: "raw", compare_method: "effective", layer: 2, head: 0 });
  const envelopeOf = envelopeCache(model);
  let state = readState(model);
  const other = compareMeta(state);
  assert.equal(other?.id, "effective");
  const side = compareFrames(state, other, 800, envelopeOf, { side: "target", index: 1 });
  assert.equal(side.main.layout.width, side.second.layout.width);
  assert.ok(side.main.layout.width < 400);
  assert.equal(side.main.edges.max, Math.max(side.maxMain, side.maxOther));
  assert.equal(side.second.edges.max, side.main.edges.max);
  assert.deepEqual(side.second.focus, { side: "target", index: 1 }); // hover in both
  assert.equal(side.second.slice, sliceIndex({ ...state, method: other }));

  model.set("compare_mode", "difference");
  state = readState(model);
  const diff = compareFrames(state, other, 800, envelopeOf, null);
  const A = dense(envelopeOf("data_raw"), sliceIndex(state));
  const B = dense(envelopeOf("data_effective"), sliceIndex({ ...state, method: other }));
  const got = A.map((row) => row.map(() => 0));
  for (let e = 0; e < diff.main.edges.count; e++)
    got[diff.main.edges.target[e]][diff.main.edges.source[e]] = diff.main.edges.weight[e];
  got.forEach((row, r) => {
    row.forEach((v, c) => {
      assert.ok(Math.abs(v - (A[r][c] - B[r][c])) < 1e-12, `${r} ${c}`);
    });
  });
  assert.ok(
    diff.main.edges.count > 0 && diff.main.edges.weight.some((w) => w < 0) && diff.main.edges.weight.some((w) => w > 0),
  );
  const scene = layerScene(diff.main, false);
  assert.equal(scene.signed, true);
  assert.deepEqual(scene.table, colormap("diverging"));

  // Another graph (rollout draws from the input tokens) or another view: no comparison.
  assert.equal(compareMeta({ ...state, compareMethod: "rollout" }), null);
  assert.equal(compareMeta({ ...state, view: "model" }), null);
  assert.equal(sliceEdges(envelopeOf("data_raw"), 0).count > 0, true);
});
