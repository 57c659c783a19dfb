import assert from "node:assert/strict";
import { test } from "node:test";
import { computeLayout, edgeEndY, HEADER_HEIGHT, LEGIBLE_ROW } from "../src/layout.js";
import {
  centredOn,
  keyWindow,
  legibleRows,
  MIN_ROWS,
  minimapValues,
  offWindowMarkers,
  resized,
  revealed,
  shownWindow,
  wheelRows,
  wheelScroll,
  zoomed,
} from "../src/navigate.js";

/** A small random generator, so that failures repeat. @param {number} seed */
function random(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** A random edge list over n tokens. @param {number} n @param {number} count @param {() => number} rand */
function randomEdges(n, count, rand) {
  const source = new Uint16Array(count);
  const target = new Uint16Array(count);
  const weight = new Float64Array(count);
  for (let e = 0; e < count; e++) {
    source[e] = Math.floor(rand() * n);
    target[e] = Math.floor(rand() * n);
    weight[e] = rand() - 0.3;
  }
  return { source, target, weight, count, max: Math.max(...Array.from(weight, Math.abs)) };
}

test("a long text opens on as many rows as are legible; a short one shows all", () => {
  const fit = legibleRows();
  assert.ok(computeLayout(600, fit, { start: 0, size: fit }).rowHeight >= LEGIBLE_ROW);
  assert.ok(computeLayout(600, fit + 1, { start: 0, size: fit + 1 }).rowHeight < LEGIBLE_ROW);
  assert.deepEqual(shownWindow(139, { start: 0, size: 0 }), { start: 0, size: fit });
  assert.deepEqual(shownWindow(20, { start: 0, size: 0 }), { start: 0, size: 20 });
  assert.deepEqual(shownWindow(139, { start: 130, size: 0 }), { start: 139 - fit, size: fit }); // clamped to the end
  assert.deepEqual(shownWindow(139, { start: 5, size: 1000 }), { start: 0, size: 139 });
});

test("wheel deltas move the window start, clamped to the text, and leave the page its scroll at the ends", () => {
  const rand = random(1);
  for (let trial = 0; trial < 500; trial++) {
    const n = 10 + Math.floor(rand() * 600);
    const size = 1 + Math.floor(rand() * n);
    const start = Math.floor(rand() * (n - size + 1));
    const rowHeight = 1 + rand() * 20;
    const event = { deltaY: (rand() - 0.5) * 2000, deltaMode: Math.floor(rand() * 3) };
    const rows = wheelRows(event, rowHeight, size);
    const step = wheelScroll(n, { start, size }, rows);
    const atEnd = size >= n || rows === 0 || (rows < 0 && start === 0) || (rows > 0 && start + size === n);
    if (atEnd) {
      assert.equal(step, null);
      continue;
    }
    assert.ok(step);
    // Brute force: the start moved by the whole rows, then clamped into 0..n-size.
    const expected = Math.min(n - size, Math.max(0, start + Math.trunc(rows)));
    assert.equal(step.window.start, expected);
    assert.equal(step.window.size, size);
    assert.ok(Math.abs(step.left) < 1);
  }
  // A 100-pixel notch over 15-pixel rows: six rows and a fraction carried to the next event.
  const first = wheelScroll(139, { start: 0, size: 37 }, wheelRows({ deltaY: 100, deltaMode: 0 }, 15, 37));
  assert.equal(first?.window.start, 6);
  assert.ok(Math.abs((first?.left ?? 0) - (100 / 15 - 6)) < 1e-12);
});

test("zoom keeps the focused row in view and on about the same height", () => {
  const rand = random(2);
  for (let trial = 0; trial < 500; trial++) {
    const n = 10 + Math.floor(rand() * 600);
    const size = Math.max(1, Math.floor(rand() * n));
    const start = Math.floor(rand() * (n - size + 1));
    const anchor = start + Math.floor(rand() * size);
    const steps = rand() < 0.5 ? 1 : -1;
    const next = zoomed(n, { start, size }, steps, anchor);
    assert.ok(next.start >= 0 && next.start + next.size <= n);
    assert.ok(next.start <= anchor && anchor < next.start + next.size, `row ${anchor} stays in view`);
    assert.ok(next.size >= Math.min(MIN_ROWS, n) && next.size <= n);
    if (steps > 0) assert.ok(next.size <= Math.max(size, Math.min(MIN_ROWS, n)));
    else assert.ok(next.size >= Math.min(size, n));
  }
  // Out from a legible window of a long text: all rows; in from there: the legible window again.
  const fit = legibleRows();
  assert.equal(zoomed(512, { start: 0, size: fit }, -1).size, Math.ceil(fit * 1.5));
  assert.equal(zoomed(512, { start: 0, size: 20 }, -1).size, Math.min(30, fit));
  assert.equal(zoomed(512, { start: 0, size: 30 }, -1).size, fit);
  assert.equal(zoomed(512, { start: 0, size: 50 }, 1).size, fit);
  assert.deepEqual(zoomed(139, { start: 0, size: 139 }, -1), { start: 0, size: 139 });
});

test("a size picked in the menu keeps the pinned row in view", () => {
  const rand = random(3);
  for (let trial = 0; trial < 500; trial++) {
    const n = 10 + Math.floor(rand() * 600);
    const shown = shownWindow(n, { start: Math.floor(rand() * n), size: 1 + Math.floor(rand() * n) });
    const anchor = Math.floor(rand() * n); // inside the window or not (pinned from Python)
    const size = [0, 16, 32, 64, n][Math.floor(rand() * 5)];
    const next = resized(n, shown, size, anchor);
    assert.equal(next.size, size, "the trait keeps the size picked (0: fit)");
    const rows = shownWindow(n, next);
    assert.equal(rows.start, next.start, "a start the window can have");
    assert.ok(rows.start <= anchor && anchor < rows.start + rows.size, `row ${anchor} in ${JSON.stringify(rows)}`);
  }
  // All 139 rows shown, row 110 pinned: fit keeps it where it was, 80% of the way down.
  const fit = legibleRows();
  const start = resized(139, { start: 0, size: 139 }, 0, 110).start;
  assert.ok(Math.abs((110.5 - start) / fit - 110.5 / 139) < 1 / fit);
  // Nothing pinned: the first row stays.
  assert.deepEqual(resized(139, { start: 40, size: 30 }, 64, null), { start: 40, size: 64 });
});

test("window keys page, jump to the ends and zoom; other keys are not theirs", () => {
  const w = { start: 40, size: 30 };
  assert.deepEqual(keyWindow(139, w, "PageDown", null), { start: 69, size: 30 });
  assert.deepEqual(keyWindow(139, w, "PageUp", null), { start: 11, size: 30 });
  assert.deepEqual(keyWindow(139, w, "Home", null), { start: 0, size: 30 });
  assert.deepEqual(keyWindow(139, w, "End", null), { start: 109, size: 30 });
  assert.ok(/** @type {any} */ (keyWindow(139, w, "+", 45)).size < 30);
  assert.ok(/** @type {any} */ (keyWindow(139, w, "-", 45)).size > 30);
  for (const key of ["ArrowUp", "ArrowDown", "Enter", " ", "Escape", "a"])
    assert.equal(keyWindow(139, w, key, null), null);
  assert.deepEqual(revealed(139, w, 10), { start: 10, size: 30 });
  assert.deepEqual(revealed(139, w, 80), { start: 51, size: 30 });
  assert.deepEqual(revealed(139, w, 50), w);
  assert.deepEqual(centredOn(139, w, 100), { start: 85, size: 30 });
  assert.deepEqual(centredOn(139, w, 2), { start: 0, size: 30 });
});

test("markers count exactly the edges with one end in the window, per column and direction", () => {
  const rand = random(3);
  for (let trial = 0; trial < 200; trial++) {
    const n = 5 + Math.floor(rand() * 200);
    const edges = randomEdges(n, Math.floor(rand() * 400), rand);
    const size = 1 + Math.floor(rand() * n);
    const start = Math.floor(rand() * (n - size + 1));
    const only =
      rand() < 0.3 ? new Set(Array.from({ length: edges.count }, (_, e) => e).filter(() => rand() < 0.2)) : null;
    const markers = offWindowMarkers(edges, { start, size }, only);
    const inside = (/** @type {number} */ i) => i >= start && i < start + size;
    for (const side of /** @type {const} */ (["source", "target"])) {
      for (const direction of /** @type {const} */ (["up", "down"])) {
        // Brute force over the edge list: the other end is in `side`'s column, beyond the window.
        const matching = [];
        for (let e = 0; e < edges.count; e++) {
          if (only && !only.has(e)) continue;
          const [shown, outside] =
            side === "source" ? [edges.target[e], edges.source[e]] : [edges.source[e], edges.target[e]];
          if (inside(shown) && !inside(outside) && (direction === "up") === outside < start) matching.push(e);
        }
        const marker = markers.find((m) => m.side === side && m.direction === direction);
        if (matching.length === 0) {
          assert.equal(marker, undefined);
          continue;
        }
        assert.ok(marker);
        assert.equal(marker.count, matching.length);
        const strongest = Math.max(...matching.map((e) => Math.abs(edges.weight[e])));
        assert.equal(Math.abs(marker.weight), strongest);
        assert.ok(
          matching.some(
            (e) =>
              Math.abs(edges.weight[e]) === strongest &&
              (side === "source" ? edges.source[e] : edges.target[e]) === marker.index,
          ),
        );
      }
    }
  }
});

test("edges to tokens outside the window end on the strips above and below the rows", () => {
  const layout = computeLayout(600, 139, { start: 50, size: 30 });
  assert.equal(edgeEndY(layout, 10), HEADER_HEIGHT + layout.band / 2);
  const bottom = layout.top + 80 * layout.rowHeight;
  assert.equal(edgeEndY(layout, 120), bottom + layout.band / 2);
  assert.ok(edgeEndY(layout, 50) > HEADER_HEIGHT + layout.band && edgeEndY(layout, 79) < bottom);
  assert.equal(computeLayout(600, 20).band, 0); // every row shown: no strips
});

test("the minimap shows the focused token's weights, else each token's column mass", () => {
  const rand = random(4);
  const n = 30;
  const edges = randomEdges(n, 300, rand);
  const mass = minimapValues(edges, n, null);
  const row = minimapValues(edges, n, { side: "target", index: 7 });
  const column = minimapValues(edges, n, { side: "source", index: 3 });
  for (let i = 0; i < n; i++) {
    let m = 0;
    let r = 0;
    let c = 0;
    for (let e = 0; e < edges.count; e++) {
      const w = Math.abs(edges.weight[e]);
      if (edges.source[e] === i) m += w;
      if (edges.target[e] === 7 && edges.source[e] === i) r += w;
      if (edges.source[e] === 3 && edges.target[e] === i) c += w;
    }
    assert.ok(Math.abs(mass[i] - m) < 1e-12 && Math.abs(row[i] - r) < 1e-12 && Math.abs(column[i] - c) < 1e-12);
  }
});
