import assert from "node:assert/strict";
import { test } from "node:test";
import { colorAt, colormap, prefersDarkTable } from "../src/colormap.js";

test("tables have 256 entries and clamp out-of-range values", () => {
  const table = colormap("light");
  assert.equal(table.length, 256);
  assert.equal(colorAt(table, -1), table[0]);
  assert.equal(colorAt(table, 2), table[255]);
  assert.equal(colorAt(colormap("diverging"), 0, true), colormap("diverging")[128]);
});

test("light text means a dark theme", () => {
  assert.equal(prefersDarkTable("rgb(230, 230, 230)"), true);
  assert.equal(prefersDarkTable("rgb(20, 20, 20)"), false);
  assert.equal(prefersDarkTable(""), false);
  // CSS Color 4 forms hosts' themes give (marimo's dark theme: color(srgb ...), channels 0..1).
  assert.equal(prefersDarkTable("color(srgb 0.92549 0.933333 0.929412)"), true);
  assert.equal(prefersDarkTable("color(srgb 0.1 0.1 0.12)"), false);
  assert.equal(prefersDarkTable("oklch(0.95 0.01 250)"), true);
  assert.equal(prefersDarkTable("oklch(20% 0.01 250)"), false);
  assert.equal(prefersDarkTable("lab(93 0 0)"), true);
  assert.equal(prefersDarkTable("rgba(230, 230, 230, 0.8)"), true);
});
