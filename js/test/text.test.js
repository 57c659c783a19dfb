import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { displayToken, wrapText, xmlText } from "../src/text.js";

/** [token, as shown] written by Python's display_token (tests/payload_fixtures.py). */
const pairs = JSON.parse(readFileSync(new URL("./fixtures/display_tokens.json", import.meta.url), "utf8"));

test("displayToken shows every token as Python's display_token does", () => {
  assert.ok(pairs.length > 40);
  for (const [token, shown] of pairs) assert.equal(displayToken(token), shown, JSON.stringify(token));
});

test("displayToken makes control, formatting and non-characters visible, and keeps the rest", () => {
  assert.equal(displayToken("a\nb\tc"), "a↵b⇥c");
  assert.equal(displayToken("\u0000\r\u001b[31m\u007f"), "\\x00\\x0d\\x1b[31m\\x7f");
  assert.equal(displayToken("\u0085"), "\\x85");
  assert.equal(displayToken("evil\u202egnp.exe"), "evil\\u202egnp.exe");
  assert.equal(displayToken("\ud800 and \udc00"), "\ufffd and \ufffd");
  assert.equal(displayToken(""), "∅");
  for (const kept of ["😀", "👍🏽", "שלום", "e\u0301", " the", "<b>&amp;</b>"]) assert.equal(displayToken(kept), kept);
  for (const [, shown] of pairs) assert.equal(displayToken(shown), shown, "shown text stays as it is");
});

test("xmlText replaces exactly the characters XML 1.0 forbids", () => {
  const forbidden = [
    ...Array.from({ length: 0x20 }, (_, c) => String.fromCharCode(c)).filter((c) => !"\t\n\r".includes(c)),
    "\ud800",
    "\udfff",
    "\ufffe",
    "\uffff",
  ];
  for (const char of forbidden) assert.equal(xmlText(`a${char}b`), "a\ufffdb", JSON.stringify(char));
  for (const allowed of ["\t\n\r", "\u007f\u0085", "\u202e", "😀", "\ud7ff\ue000\ufffd"])
    assert.equal(xmlText(allowed), allowed);
});

test("wrapText breaks at spaces within the width, and a word wider than a line between its characters", () => {
  const measure = (/** @type {string} */ text) => text.length; // one unit per character
  assert.deepEqual(wrapText("Attention flow · layer 3 of 6", 12, measure), ["Attention", "flow · layer", "3 of 6"]);
  assert.deepEqual(wrapText("short", 12, measure), ["short"]);
  assert.deepEqual(wrapText("", 12, measure), [""]);
  assert.deepEqual(wrapText("a supercalifragilistic b", 8, measure), ["a", "supercal", "ifragili", "stic b"]);
  const lines = wrapText("有效注意力：每格的颜色，按各自的最大值缩放", 6, measure);
  assert.ok(lines.every((line) => measure(line) <= 6));
  assert.equal(lines.join(""), "有效注意力：每格的颜色，按各自的最大值缩放");
});
