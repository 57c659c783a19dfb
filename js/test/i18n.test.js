import assert from "node:assert/strict";
import test from "node:test";

import { tr, trName } from "../src/i18n.js";
import { headLabel, layerName } from "../src/state.js";

test("tr translates a phrase and fills its placeholders after translating", () => {
  assert.equal(tr("zh", "Compute layer {layer}", { layer: 3 }), "计算第 3 层");
  assert.equal(tr("en", "Compute layer {layer}", { layer: 3 }), "Compute layer 3");
  assert.equal(tr("zh", "layer {layer} of {n}", { layer: 2, n: 6 }), "第 2 层，共 6 层");
});

test("a phrase without a translation shows in English, never as a key or blank", () => {
  assert.equal(tr("zh", "A phrase nobody translated"), "A phrase nobody translated");
  assert.equal(tr("xx", "Cancel"), "Cancel");
  assert.equal(tr("zh", "{a} and {b}", { a: 1 }), "1 and {b}", "a missing parameter stays visible");
});

test("names made in Python translate whole or by their words before a number", () => {
  assert.equal(trName("zh", "decoder 12"), "解码器 12");
  assert.equal(trName("zh", "Encoder output"), "编码器输出");
  assert.equal(trName("zh", "my layer 3"), "my layer 3");
  assert.equal(trName("en", "decoder 2"), "decoder 2");
});

test("layer and head names follow the state's language", () => {
  const state = { layerNames: [], lang: "zh", nHeads: 12, head: -1, method: { per_head: true } };
  assert.equal(layerName(state, 4), "第 4 层");
  assert.equal(layerName({ ...state, layerNames: ["encoder 1", "decoder 1"] }, 2), "解码器 1");
  assert.equal(headLabel(/** @type {any} */ (state)), "12 个头的平均");
  assert.equal(headLabel(/** @type {any} */ ({ ...state, lang: "en", head: 3 })), "head 3");
});
