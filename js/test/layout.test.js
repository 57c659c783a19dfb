import assert from "node:assert/strict";
import { test } from "node:test";
import { computeLayout, LEGIBLE_ROW, nodeAt, rowCenter } from "../src/layout.js";

test("rows are evenly spaced and labels thin out when rows get too short", () => {
  const small = computeLayout(600, 10);
  assert.equal(small.labelEvery, 1);
  assert.equal(rowCenter(small, 1) - rowCenter(small, 0), small.rowHeight);
  const large = computeLayout(600, 512);
  // Every labelEvery-th row labelled: labels at least LEGIBLE_ROW apart.
  assert.ok(large.labelEvery * large.rowHeight >= LEGIBLE_ROW);
  assert.ok((large.labelEvery - 1) * large.rowHeight < LEGIBLE_ROW);
  assert.ok(large.height <= 600);
  assert.ok(large.rowHeight * 512 <= 560 + 1e-9);
});

test("hit-testing maps a point to the token row and column", () => {
  const layout = computeLayout(600, 8);
  const y = rowCenter(layout, 5);
  assert.deepEqual(nodeAt(layout, 10, y), { side: "source", index: 5 });
  assert.deepEqual(nodeAt(layout, 590, y), { side: "target", index: 5 });
  assert.equal(nodeAt(layout, 10, 2), null); // the header
  assert.equal(nodeAt(layout, 10, layout.top + 8 * layout.rowHeight + 1), null);
});
