import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeEnvelope } from "../src/codec.js";
import { colormap } from "../src/colormap.js";
import { createHeadsGrid } from "../src/heads_draw.js";
import { headsSvg } from "../src/heads_export.js";
import {
  CELL_MAX,
  CELL_MIN,
  cellAt,
  cellOrigin,
  cellPixels,
  cellSlice,
  cellValues,
  GAP,
  gridLayout,
  headsFrame,
  MARGIN_LEFT,
  MARGIN_TOP,
  slicePixels,
  tableBytes,
} from "../src/heads_grid.js";
import entry from "../src/index.js";
import { neighbourStates, readState } from "../src/state.js";
import { FakeModel, fixtureBytes, makeDom, widgetTraits } from "./fake-model.js";

const { render } = entry; // the entry point as anywidget reads it

/** @param {Record<string, any>} [overrides] */
function stateOf(overrides = {}) {
  const model = new FakeModel({ ...widgetTraits(), view: "heads", ...overrides });
  /** @param {string} trait */
  const envelopeOf = (trait) => decodeEnvelope(model.get(trait));
  return { model, state: readState(model), envelopeOf };
}

test("a cell's values are its envelope slice, entry by entry (decoded from the raw codes)", () => {
  const { state, envelopeOf } = stateOf();
  const frame = headsFrame(state, 640, envelopeOf);
  const env = /** @type {import("../src/codec.js").Envelope} */ (frame.env);
  const n = state.tokens.length;
  const H = state.nHeads;
  assert.equal(env.layout, "dense");
  assert.deepEqual(frame.heads, [-1, -2, ...Array.from({ length: H }, (_, h) => h)]);
  for (let row = 0; row < state.nLayers; row++) {
    for (let column = 0; column < frame.heads.length; column++) {
      // The payload's order: heads 0..H-1, then mean, then max.
      const slot = column === 0 ? H : column === 1 ? H + 1 : column - 2;
      const slice = cellSlice(frame, row, column);
      assert.equal(slice, row * (H + 2) + slot);
      const values = cellValues(env, slice);
      for (let i = 0; i < n; i++) {
        const r = slice * n + i;
        for (let j = 0; j < n; j++)
          assert.ok(Math.abs(values[i * n + j] - (env.values[r * n + j] * env.scale[r]) / 65535) < 1e-12);
      }
    }
  }
});

test("nothing is drawn ahead in the heads view (the grid is drawn whole)", () => {
  const { state } = stateOf();
  assert.deepEqual(neighbourStates(state), []);
  assert.ok(neighbourStates({ ...state, view: "layer" }).length > 0);
});

test("a method that is not per head has one cell per layer, its layer's slice", () => {
  const { state, envelopeOf } = stateOf({ method: "rollout" });
  const frame = headsFrame(state, 640, envelopeOf);
  assert.deepEqual(frame.heads, [-1]);
  assert.equal(frame.layout.columns, 1);
  for (let row = 0; row < state.nLayers; row++) assert.equal(cellSlice(frame, row, 0), row);
});

test("pixels rank as the values: zero is the table's first colour, the cell's largest its last", () => {
  const table = tableBytes(colormap("heat"));
  const values = Float64Array.from([0, 0.1, 0.5, 0.25]);
  const { pixels, max } = cellPixels(values, table, false);
  assert.equal(max, 0.5);
  assert.deepEqual([...pixels.slice(0, 4)], [0, 0, 4, 255], "#000004");
  assert.deepEqual([...pixels.slice(8, 12)], [252, 253, 191, 255], "#fcfdbf");
  const light = (/** @type {number} */ p) => pixels[p * 4] + pixels[p * 4 + 1] + pixels[p * 4 + 2];
  assert.ok(light(0) < light(1) && light(1) < light(3) && light(3) < light(2));
  // Scaled to its own maximum: ten times the values paint the same pixels.
  assert.deepEqual(
    [
      ...cellPixels(
        values.map((v) => v * 10),
        table,
        false,
      ).pixels,
    ],
    [...pixels],
  );
});

test("the grid's pixels straight from the codes are the pixels of the decoded matrix (dense, top-k, signed)", () => {
  for (const name of ["dense", "topk", "signed"]) {
    const env = decodeEnvelope(fixtureBytes(name));
    const table = tableBytes(colormap(env.signed ? "diverging" : "heat"));
    for (let slice = 0; slice < env.slices; slice++) {
      const { pixels: fast, side } = slicePixels(env, slice, table);
      assert.equal(side, env.rows);
      const { pixels } = cellPixels(cellValues(env, slice), table, env.signed);
      let same = 0;
      for (let p = 0; p < fast.length; p++) {
        assert.ok(Math.abs(fast[p] - pixels[p]) <= 8, `${name} slice ${slice} byte ${p}`); // at most one table step
        same += Number(fast[p] === pixels[p]);
      }
      assert.ok(same >= 0.98 * fast.length, `${name} slice ${slice}: ${same} of ${fast.length}`);
    }
  }
});

test("a matrix larger than its cell: each pixel is the strongest entry of its block (brute force)", () => {
  for (const name of ["dense", "topk", "signed"]) {
    const env = decodeEnvelope(fixtureBytes(name));
    const n = env.rows;
    const table = tableBytes(colormap(env.signed ? "diverging" : "heat"));
    for (const size of [1, 2, 3, n - 1]) {
      const slice = env.slices - 1;
      const { pixels, side } = slicePixels(env, slice, table, size);
      assert.equal(side, size);
      const values = cellValues(env, slice);
      const reference = cellPixels(values, table, env.signed).pixels;
      for (let a = 0; a < side; a++) {
        for (let b = 0; b < side; b++) {
          let best = -1;
          let at = 0;
          for (let i = 0; i < n; i++) {
            for (let j = 0; j < n; j++) {
              const inBlock = Math.floor((i * side) / n) === a && Math.floor((j * side) / n) === b;
              if (inBlock && Math.abs(values[i * n + j]) > best) [best, at] = [Math.abs(values[i * n + j]), i * n + j];
            }
          }
          for (let ch = 0; ch < 3; ch++) {
            assert.ok(
              Math.abs(pixels[(a * side + b) * 4 + ch] - reference[at * 4 + ch]) <= 8,
              `${name} size ${size} pixel ${a}, ${b}`,
            );
          }
        }
      }
    }
  }
});

test("cell size follows the width within its bounds", () => {
  assert.equal(gridLayout(100, 12, 14).cell, CELL_MIN);
  assert.equal(gridLayout(5000, 12, 14).cell, CELL_MAX);
  const mid = gridLayout(MARGIN_LEFT + 14 * (50 + GAP), 12, 14);
  assert.equal(mid.cell, 50);
  assert.equal(mid.width, MARGIN_LEFT + 14 * (50 + GAP));
  assert.equal(mid.height, MARGIN_TOP + 12 * (50 + GAP));
});

test("the cell under a point: brute force over every pixel agrees with the cells' rectangles", () => {
  const layout = gridLayout(400, 3, 4);
  for (let x = -2; x < layout.width + 3; x++) {
    for (let y = -2; y < layout.height + 3; y++) {
      /** @type {{ row: number, column: number } | null} */
      let expected = null;
      for (let row = 0; row < 3; row++) {
        for (let column = 0; column < 4; column++) {
          const o = cellOrigin(layout, row, column);
          if (x >= o.x && x < o.x + layout.cell && y >= o.y && y < o.y + layout.cell) expected = { row, column };
        }
      }
      assert.deepEqual(cellAt(layout, x, y), expected, `${x}, ${y}`);
    }
  }
});

/** @param {Record<string, any>} [overrides] */
function mount(overrides = {}) {
  const dom = makeDom();
  const el = dom.window.document.createElement("div");
  dom.window.document.body.append(el);
  const model = new FakeModel({ ...widgetTraits(), view: "heads", ...overrides });
  render({ model, el });
  const canvas = /** @type {HTMLCanvasElement} */ (el.querySelector("canvas.attnw-heads-canvas"));
  return { dom, el, model, canvas };
}

test("the heads view draws L × (H + 2) cells in place of the graph", () => {
  const { el, canvas, model } = mount();
  const L = model.get("n_layers");
  const H = model.get("n_heads");
  assert.equal(Number(canvas.dataset.cells), L * (H + 2));
  assert.equal(Number(canvas.dataset.rows), L);
  assert.equal(Number(canvas.dataset.columns), H + 2);
  assert.equal(/** @type {HTMLElement} */ (el.querySelector(".attnw-plot")).hidden, true);
  assert.equal(/** @type {HTMLElement} */ (el.querySelector(".attnw-heads")).hidden, false);
  assert.match(el.querySelector(".attnw-heads-key")?.textContent ?? "", /each cell is scaled to its own largest value/);
  assert.equal(/** @type {HTMLInputElement} */ (el.querySelector(".attnw-layer")).disabled, true);
});

test("the method's remark about this input is in the grid's caption too", () => {
  const methods = widgetTraits().methods.map((/** @type {any} */ m, /** @type {number} */ i) =>
    i === 0 ? { ...m, note: "heads 2-3 are empty." } : m,
  );
  const { el } = mount({ methods });
  assert.match(el.querySelector(".attnw-caption")?.textContent ?? "", / · heads 2-3 are empty\.$/);
});

test("pointing at a cell names it; clicking it opens that layer and head", () => {
  const { dom, el, canvas, model } = mount();
  const cell = Number(canvas.dataset.cell);
  assert.ok(cell >= CELL_MIN && cell <= CELL_MAX);
  // Layer 2 (row 1), column 3 = head 1. jsdom boxes sit at 0, 0: client coordinates are canvas ones.
  const x = MARGIN_LEFT + 3 * (cell + GAP) + cell / 2;
  const y = MARGIN_TOP + 1 * (cell + GAP) + cell / 2;
  canvas.dispatchEvent(new dom.window.MouseEvent("pointermove", { clientX: x, clientY: y, bubbles: true }));
  assert.match(el.querySelector(".attnw-heads-hover")?.textContent ?? "", /^Layer 2, head 1/);
  const saves = model.saves;
  canvas.dispatchEvent(new dom.window.MouseEvent("click", { clientX: x, clientY: y, bubbles: true }));
  assert.deepEqual([model.get("view"), model.get("layer"), model.get("head")], ["layer", 2, 1]);
  assert.equal(model.saves, saves + 1, "one save for the three changes");
  // The mean column opens the mean.
  model.set("view", "heads");
  canvas.dispatchEvent(
    new dom.window.MouseEvent("click", {
      clientX: MARGIN_LEFT + cell / 2,
      clientY: MARGIN_TOP + cell / 2,
      bubbles: true,
    }),
  );
  assert.deepEqual([model.get("view"), model.get("layer"), model.get("head")], ["layer", 1, -1]);
});

test("the grid's colour map is the method's: diverging for a signed method on all-positive data, never for an unsigned one", () => {
  const { state, envelopeOf } = stateOf({ method: "raw" });
  const unsigned = headsFrame(state, 640, envelopeOf);
  assert.equal(unsigned.signed, false);
  // Raw attention's data, as a signed method's layer that happens to hold no negative value.
  const signedState = { ...state, method: { ...state.method, signed: true } };
  const frame = headsFrame(signedState, 640, envelopeOf);
  const env = /** @type {import("../src/codec.js").Envelope} */ (frame.env);
  assert.equal(env.signed, false);
  assert.equal(frame.signed, true);
  const diverging = tableBytes(colormap("diverging"));
  const slice = cellSlice(frame, 0, 2);
  const values = cellValues(env, slice);
  const { pixels } = slicePixels(env, slice, diverging, Infinity, frame.signed);
  const reference = cellPixels(values, diverging, true).pixels;
  for (let p = 0; p < pixels.length; p++) assert.ok(Math.abs(pixels[p] - reference[p]) <= 8, `byte ${p}`);
  // The cell's largest value is the diverging map's positive end; 0 would be its grey middle, not its blue end.
  const largest = values.indexOf(Math.max(...values));
  assert.deepEqual([...pixels.slice(largest * 4, largest * 4 + 3)], [...diverging.slice(255 * 3, 256 * 3)]);
  // Signed codes (a stray negative) drawn for an unsigned method: the heat map, negatives at its 0.
  const codes = decodeEnvelope(fixtureBytes("signed"));
  const heat = tableBytes(colormap("heat"));
  const { pixels: clamped } = slicePixels(codes, 0, heat, Infinity, false);
  const plain = cellValues(codes, 0);
  for (let i = 0; i < plain.length; i++) {
    if (plain[i] < 0) assert.deepEqual([...clamped.slice(i * 4, i * 4 + 3)], [...heat.slice(0, 3)], `entry ${i}`);
  }
});

test("the grid's SVG: a picture per drawn cell named by its layer and head, an empty box per layer not computed, every word text", () => {
  const dom = makeDom();
  const doc = dom.window.document;
  dom.window.HTMLCanvasElement.prototype.toDataURL = () => "data:image/png;base64,AAAA"; // jsdom encodes no canvas
  const { state, envelopeOf } = stateOf({ ready: { raw: [1, 3] } });
  const grid = createHeadsGrid(doc, "en");
  doc.body.append(grid.root);
  grid.paint(headsFrame(state, 640, envelopeOf));
  const picture = grid.picture(2, "#111111");
  assert.ok(picture);
  const caption = "Raw attention \u0001 <b>&amp;</b> · all layers";
  const svg = headsSvg(doc, picture, { caption, foreground: "#111111", background: "#ffffff" });
  const parsed = new dom.window.DOMParser().parseFromString(svg, "image/svg+xml");
  assert.equal(parsed.querySelector("parsererror"), null);
  const columns = state.nHeads + 2;
  const images = [...parsed.querySelectorAll("image")];
  assert.equal(images.length, 2 * columns, "layers 1 and 3 drawn");
  assert.ok(images.every((image) => image.getAttribute("href") === "data:image/png;base64,AAAA"));
  assert.equal(images[0].querySelector("title")?.textContent, `Layer 1, mean of ${state.nHeads} heads`);
  assert.equal(images[columns + 3].querySelector("title")?.textContent, "Layer 3, head 1");
  assert.equal(parsed.querySelectorAll(".attnw-heads-grid > rect").length, (state.nLayers - 2) * columns);
  const texts = [...parsed.querySelectorAll("text")].map((t) => t.textContent);
  assert.ok(texts.includes("mean") && texts.includes("max") && texts.includes("0"));
  assert.equal(
    [...parsed.querySelectorAll(".attnw-caption-line")].map((t) => t.textContent).join(" "),
    "Raw attention \ufffd <b>&amp;</b> · all layers",
  );
  assert.ok(texts.some((t) => t?.startsWith(`${state.method.label}: the colour`)));
  assert.equal(parsed.querySelectorAll("linearGradient stop").length, 9);
});
