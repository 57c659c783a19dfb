import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeEnvelope, rowCoverage, rowEntries, sliceMax } from "../src/codec.js";
import { expected, fixtureBytes } from "./fake-model.js";

/** Dense array of every value the envelope stores (0 where top-k dropped one). */
function densify(env) {
  const out = new Float64Array(env.slices * env.rows * env.cols);
  for (let s = 0; s < env.slices; s++) {
    for (let r = 0; r < env.rows; r++) {
      const { cols, values } = rowEntries(env, s, r);
      for (let i = 0; i < values.length; i++) out[(s * env.rows + r) * env.cols + cols[i]] = values[i];
    }
  }
  return out;
}

test("dense fixture decodes to the Python values within quantisation error", () => {
  const env = decodeEnvelope(fixtureBytes("dense"));
  assert.equal(env.layout, "dense");
  assert.deepEqual(env.shape, expected.dense.shape);
  assert.equal(env.slices, 6);
  assert.equal(env.signed, false);
  const got = densify(env);
  expected.dense.values.forEach((v, i) => {
    assert.ok(Math.abs(got[i] - v) < 1e-5, `entry ${i}`);
  });
  assert.equal(rowCoverage(env, 0, 0), 1);
});

test("top-k fixture keeps the 3 strongest per row, strongest first, with coverage", () => {
  const env = decodeEnvelope(fixtureBytes("topk"));
  assert.equal(env.layout, "topk");
  assert.equal(env.k, 3);
  const { shape, values } = expected.topk;
  const [, rows, cols] = shape;
  for (let s = 0; s < shape[0]; s++) {
    for (let r = 0; r < rows; r++) {
      const truth = values.slice((s * rows + r) * cols, (s * rows + r + 1) * cols);
      const order = [...truth.keys()].sort((a, b) => truth[b] - truth[a]).slice(0, 3);
      const entries = rowEntries(env, s, r);
      const kept = [...entries.values];
      for (let i = 1; i < kept.length; i++) assert.ok(kept[i - 1] >= kept[i]);
      const total = truth.reduce((a, b) => a + b, 0);
      const share = order.reduce((a, c) => a + truth[c], 0) / total;
      assert.ok(Math.abs(rowCoverage(env, s, r) - share) < 1e-4);
      for (let i = 0; i < 3; i++) {
        if (truth[order[i]] === 0) continue; // ties at zero in causal rows may pick any column
        assert.ok(Math.abs(truth[entries.cols[i]] - entries.values[i]) < 1e-5);
      }
    }
  }
});

test("rows fixture (only the rows that are not zero) decodes as dense, the rows left out zero", () => {
  const env = decodeEnvelope(fixtureBytes("rows"));
  assert.equal(env.layout, "dense");
  assert.equal(env.k, 6);
  assert.equal(env.signed, true);
  assert.equal(env.scale.length, 18);
  const got = densify(env);
  expected.rows.values.forEach((v, i) => {
    assert.ok(Math.abs(got[i] - v) < 1e-4, `entry ${i}`);
  });
  assert.equal(expected.rows.values.filter((v) => v !== 0).length, 12);
  assert.equal(sliceMax(env, 1), 0);
});

test("an envelope of some slices (a long input's shown heads) decodes over every slice, the others zero", () => {
  for (const [name, layout] of [
    ["dense_slices", "dense"],
    ["topk_slices", "topk"],
  ]) {
    const env = decodeEnvelope(fixtureBytes(name));
    const { shape, values, slices } = expected[name];
    assert.equal(env.layout, layout);
    assert.deepEqual(env.shape, shape);
    const per = shape[shape.length - 2] * shape[shape.length - 1];
    assert.equal(env.scale.length, env.slices * env.rows);
    const got = densify(env);
    for (let s = 0; s < env.slices; s++) {
      for (let i = s * per; i < (s + 1) * per; i++) {
        if (!slices.includes(s)) assert.equal(got[i], 0, `${name}: slice ${s} is not held`);
        else if (layout === "dense") assert.ok(Math.abs(got[i] - values[i]) < 1e-5, `${name}: entry ${i}`);
      }
      if (!slices.includes(s)) assert.equal(sliceMax(env, s), 0);
    }
    if (layout === "topk") {
      // the held slice's rows: its three strongest entries, as the whole top-k fixture keeps them
      const rows = shape[shape.length - 2];
      const whole = decodeEnvelope(fixtureBytes("topk"));
      for (let r = 0; r < rows; r++) assert.deepEqual(rowEntries(env, 1, r), rowEntries(whole, 1, r));
    }
  }
});

test("signed fixture decodes negatives and a zero row", () => {
  const env = decodeEnvelope(fixtureBytes("signed"));
  assert.equal(env.signed, true);
  const got = densify(env);
  expected.signed.values.forEach((v, i) => {
    assert.ok(Math.abs(got[i] - v) < 1e-4, `entry ${i}`);
  });
  assert.ok(got.some((v) => v < 0));
  assert.equal(sliceMax(env, 0) > 0, true);
});

test("accepts DataView, ArrayBuffer and unaligned views", () => {
  const bytes = fixtureBytes("dense");
  const unaligned = new Uint8Array(bytes.byteLength + 1);
  unaligned.set(bytes, 1);
  const views = [
    new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    bytes.slice().buffer,
    unaligned.subarray(1),
    new DataView(unaligned.buffer, 1, bytes.byteLength),
  ];
  const reference = densify(decodeEnvelope(bytes));
  for (const view of views) assert.deepEqual(densify(decodeEnvelope(view)), reference);
});

test("rejects what is not a payload", () => {
  assert.throws(() => decodeEnvelope(new Uint8Array([1, 2, 3, 4, 0, 0, 0, 0])), /not an attn_widget payload/);
  assert.throws(() => decodeEnvelope(/** @type {any} */ ("text")), /expected a DataView/);
});
