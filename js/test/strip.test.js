import assert from "node:assert/strict";
import { test } from "node:test";
import { rankedTokens, renderStripStatus } from "../src/strip.js";
import { makeDom } from "./fake-model.js";

test("the ranked tokens: by size for a signed method, by score for an unsigned one; zeros left out", () => {
  const scores = Float64Array.from([0.1, -0.9, 0.5, 0, 0.5, -0.2, 0.3]);
  assert.deepEqual(rankedTokens(scores, true), [1, 2, 4, 6, 5]);
  assert.deepEqual(rankedTokens(scores, false), [2, 4, 6, 0, 5]);
  assert.deepEqual(rankedTokens(Float64Array.from([0, 0.2, 0]), true), [1]);
});

test("the bars' key and the ranked list under the plot, token text kept as text", () => {
  const doc = makeDom().window.document;
  const line = doc.createElement("div");
  const warning = doc.createElement("div");
  const menu = [{ id: "ig", label: "integrated gradients", description: "", signed: true }];
  const tokens = ["<img src=x onerror=1>", "b", "c"];
  const scores = Float64Array.from([-0.5, 0.25, 0]);
  const data = { status: /** @type {const} */ ("done"), target: "t", method: "ig" };
  renderStripStatus(line, warning, data, "ig", menu, "logit of “x”", scores, "en", tokens);
  assert.equal(
    line.querySelector(".attnw-strip-what")?.textContent,
    "Bars: integrated gradients of logit of “x”; longest 0.5000",
  );
  const key = line.querySelector(".attnw-strip-key");
  assert.equal(key?.querySelectorAll(".attnw-strip-swatch").length, 2);
  assert.match(key?.textContent ?? "", /positive: pushes the target up.*negative: pushes it down/);
  const ranked = [...line.querySelectorAll(".attnw-strip-ranked")].map((item) => item.textContent);
  assert.deepEqual(ranked, ["1. “<img src=x onerror=1>” -0.5000", "2. “b” +0.2500"]);
  assert.equal(line.querySelector("img"), null);
  // An unsigned method: one swatch; while computing, no key.
  renderStripStatus(
    line,
    warning,
    data,
    "ig",
    [{ ...menu[0], signed: false }],
    "logit",
    scores.map(Math.abs),
    "en",
    tokens,
  );
  assert.equal(line.querySelectorAll(".attnw-strip-swatch").length, 1);
  renderStripStatus(line, warning, { status: "running" }, "ig", menu, "logit", null, "en", tokens);
  assert.equal(line.querySelector(".attnw-strip-key"), null);
  assert.match(line.textContent ?? "", /^Computing integrated gradients…/);
});
