import assert from "node:assert/strict";
import { test } from "node:test";
import { rowEntries } from "../src/codec.js";
import { colorAt, colormap } from "../src/colormap.js";
import { envelopeCache } from "../src/frames.js";
import {
  HEAT_ALPHA,
  heatAlpha,
  imageScene,
  inkContour,
  panelLayout,
  patchAt,
  patchNode,
  rowHeat,
} from "../src/image.js";
import { readImage } from "../src/image_fact.js";
import entry from "../src/index.js";
import { readState, sliceIndex } from "../src/state.js";
import { FakeModel, makeDom, widgetTraits } from "./fake-model.js";

const { render } = entry; // the entry point as anywidget reads it

/** The synthetic widget's 6 tokens as an image: 2 prefix tokens, then 2 × 2 patches of a 4 × 6 picture. */
function imageFact(overrides = {}) {
  const rgb = new Uint8Array(4 * 6 * 3).map((_, i) => (i * 7) % 256);
  return { rgb: new DataView(rgb.buffer), size: [4, 6], grid: [2, 2], prefix: 2, ...overrides };
}

test("a row's heat over the patches, and the share the prefix tokens hold, by brute force", () => {
  const prefix = 3;
  const rows = 2;
  const cols = 3;
  const row = [0.2, 0.05, 0.15, 0.1, 0, 0.3, 0.05, 0.1, 0.05];
  const { heat, max, prefixShare } = rowHeat(row, prefix, rows, cols);
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < cols; c++) assert.equal(heat[r * cols + c], row[prefix + r * cols + c]);
  assert.equal(max, 0.3);
  assert.ok(Math.abs(prefixShare - 0.4) < 1e-12);
  const negative = rowHeat([1, -2, 0.5, -0.5, 1], 1, 2, 2);
  assert.deepEqual([...negative.heat], [-2, 0.5, -0.5, 1]);
  assert.equal(negative.max, 2);
  assert.ok(Math.abs(negative.prefixShare - 1 / 5) < 1e-12, "shares of the absolute mass");
  assert.equal(rowHeat([0, 0, 0], 1, 1, 2).prefixShare, 0);
});

test("the patch under a point: row-major index, edges belong to the next patch, outside is null", () => {
  const box = { width: 120, height: 90 };
  assert.equal(patchAt(box, 3, 4, 0, 0), 0);
  assert.equal(patchAt(box, 3, 4, 29.9, 29.9), 0);
  assert.equal(patchAt(box, 3, 4, 30, 0), 1);
  assert.equal(patchAt(box, 3, 4, 0, 30), 4);
  assert.equal(patchAt(box, 3, 4, 119.9, 89.9), 11);
  for (const [x, y] of [
    [-1, 10],
    [10, -0.1],
    [120, 10],
    [10, 90],
    [NaN, 1],
  ])
    assert.equal(patchAt(box, 3, 4, x, y), null);
  // Brute force over a fine lattice: the patch whose box holds the point.
  for (let x = 0.5; x < 120; x += 7) {
    for (let y = 0.5; y < 90; y += 5) {
      assert.equal(patchAt(box, 3, 4, x, y), Math.floor(y / 30) * 4 + Math.floor(x / 30));
    }
  }
});

test("the image fact is read and checked against the tokens", () => {
  assert.equal(readImage({}, 6), null, "text: no image");
  assert.equal(readImage(undefined, 6), null);
  const image = readImage(imageFact(), 6);
  assert.ok(image);
  assert.deepEqual(
    [image.width, image.height, image.rows, image.cols, image.prefix, image.problem],
    [6, 4, 2, 2, 2, ""],
  );
  assert.equal(image.rgb.length, 72);
  assert.match(readImage(imageFact({ prefix: 1 }), 6)?.problem ?? "", /not the 6 tokens/);
  assert.match(readImage(imageFact({ size: [4, 5] }), 6)?.problem ?? "", /72 bytes, not 4×5×3/);
  assert.match(readImage(imageFact({ grid: [2] }), 6)?.problem ?? "", /size or patch grid/);
  assert.match(readImage(imageFact({ size: [4, -6] }), 6)?.problem ?? "", /size or patch grid/);
});

test("the panel goes beside a wide graph and under a narrow one, keeping the picture's shape", () => {
  const image = readImage(imageFact(), 6);
  assert.deepEqual(panelLayout(900, null), { graphWidth: 900, beside: false, width: 0, box: { width: 0, height: 0 } });
  const wide = panelLayout(1000, image);
  assert.equal(wide.beside, true);
  assert.equal(wide.graphWidth + wide.width + 16, 1000);
  assert.deepEqual(wide.box, { width: 280, height: Math.round((280 * 4) / 6) });
  const narrow = panelLayout(400, image);
  assert.equal(narrow.beside, false);
  assert.equal(narrow.graphWidth, 400, "under the graph: the graph keeps the whole width");
});

test("the overlay is the focused token's row at the selected layer, [CLS] (the first token) by default", () => {
  const model = new FakeModel({ ...widgetTraits(), image: imageFact(), method: "rollout", layer: 2 });
  const state = readState(model);
  const envelopeOf = envelopeCache(model);
  const layout = panelLayout(900, state.image);
  /** The method's row by its own decoder: token `token` at `layer`, the patches after the 2 prefix tokens. */
  const expected = (/** @type {number} */ token, /** @type {number} */ layer) => {
    const env = envelopeOf("data_rollout");
    const { cols, values } = rowEntries(env, sliceIndex({ ...state, layer }), token);
    const row = new Array(6).fill(0);
    cols.forEach((c, k) => {
      row[c] = values[k];
    });
    return row.slice(2);
  };
  const plain = imageScene(state, { focus: null, pinned: null }, envelopeOf, layout);
  assert.ok(plain?.heat);
  assert.equal(plain.token, 0);
  assert.equal(plain.layer, 2);
  assert.deepEqual([...plain.heat], expected(0, 2));
  assert.equal(plain.outline, null);
  assert.match(
    plain.note,
    /^<s>, <img src=x onerror=alert\(1\)> \(not on the image\) hold 100\.0% of this row$/,
    "a decoder's first token sees itself only",
  );

  const hovered = imageScene(
    state,
    { focus: { side: "source", index: 5 }, pinned: { side: "target", index: 3 } },
    envelopeOf,
    layout,
  );
  assert.ok(hovered?.heat);
  assert.deepEqual([...hovered.heat], expected(5, 2));
  assert.deepEqual([hovered.outline, hovered.pinned], [3, 1]);
  assert.match(hovered.title, /“&amp;” at layer 2/);
  // The scale ends at the largest of the other patches where the token's own patch is larger.
  const others = expected(5, 2).map((v, k) => (k === 3 ? 0 : Math.abs(v)));
  const above = Math.abs(expected(5, 2)[3]) > Math.max(...others);
  assert.equal(hovered.max, above ? Math.max(...others) : Math.max(...expected(5, 2).map(Math.abs)));
  assert.equal(/Its own patch \(.*\) is above the scale/.test(hovered.note), above);

  const column = imageScene(
    { ...state, view: "model" },
    { focus: { layer: 3, index: 4 }, pinned: null },
    envelopeOf,
    layout,
  );
  assert.deepEqual([...(column?.heat ?? [])], expected(4, 3), "the whole-model view: the focused column's layer");
  assert.deepEqual(patchNode(state, /** @type {any} */ (state.image), 3), { side: "target", index: 5 });
  assert.deepEqual(patchNode({ ...state, view: "model" }, /** @type {any} */ (state.image), 0), { layer: 2, index: 2 });

  const pending = imageScene({ ...state, ready: { rollout: [1] } }, { focus: null, pinned: null }, envelopeOf, layout);
  assert.equal(pending?.heat, null);
  assert.match(pending?.note ?? "", /layer 2 is not computed yet/);
  const broken = imageScene(
    readState(new FakeModel({ ...widgetTraits(), image: imageFact({ prefix: 3 }) })),
    { focus: null, pinned: null },
    envelopeOf,
    layout,
  );
  assert.match(broken?.note ?? "", /Cannot draw the image: its 2×2 patches after 3 other tokens are not the 6 tokens/);
});

test("a patch's own weight above the others' leaves the scale to the others and says so", () => {
  const model = new FakeModel({ ...widgetTraits(), image: imageFact(), method: "rollout", layer: 3 });
  const state = readState(model);
  const envelopeOf = envelopeCache(model);
  const scenes = [2, 3, 4, 5].map((token) =>
    imageScene(state, { focus: { index: token }, pinned: null }, envelopeOf, panelLayout(900, state.image)),
  );
  let checked = 0;
  for (const scene of scenes) {
    assert.ok(scene?.heat && scene.outline !== null);
    const own = Math.abs(scene.heat[scene.outline]);
    const others = Math.max(...Array.from(scene.heat, (v, k) => (k === scene.outline ? 0 : Math.abs(v))));
    if (own > others && others > 0) {
      checked++;
      assert.equal(scene.max, others);
      assert.match(
        scene.note,
        new RegExp(`Its own patch \\(${scene.heat[scene.outline].toFixed(4)}\\) is above the scale`),
      );
    } else assert.equal(scene.max, Math.max(own, others));
  }
  assert.ok(checked > 0, "rollout: some patch's row is mostly its own patch");
});

test("the panel is drawn beside the graph; hovering and clicking a patch hover and pin its node", async () => {
  const dom = makeDom();
  const el = dom.window.document.createElement("div");
  dom.window.document.body.append(el);
  const model = new FakeModel({
    ...widgetTraits(),
    image: imageFact(),
    method: "rollout",
    selected: { side: "target", index: 5 },
  });
  const cleanup = render({ model, el });
  const flush = () => new Promise((resolve) => dom.window.requestAnimationFrame(() => setTimeout(resolve, 0)));
  const panel = /** @type {HTMLElement} */ (el.querySelector(".attnw-image"));
  const canvas = /** @type {HTMLCanvasElement} */ (el.querySelector(".attnw-image-canvas"));
  assert.equal(panel.hidden, false);
  assert.equal(canvas.dataset.token, "5", "the pinned token's row");
  const ctx = /** @type {any} */ (canvas.getContext("2d"));
  const heat = ctx.fills.filter((/** @type {any} */ f) => f.alpha < 1);
  assert.equal(heat.length, 4, "one rectangle per patch");
  const state = readState(model);
  const row = imageScene(
    state,
    { focus: { index: 5 }, pinned: null },
    envelopeCache(model),
    panelLayout(640, state.image),
  );
  assert.ok(row?.heat && row.max > 0);
  heat.forEach((/** @type {any} */ f, /** @type {number} */ k) => {
    assert.equal(f.fillStyle, colorAt(colormap("heat"), row.heat[k] / row.max));
    assert.equal(f.alpha, heatAlpha(row.heat[k] / row.max), "weak patches show the picture more");
  });
  assert.ok(heatAlpha(0) < heatAlpha(1) && heatAlpha(1) === HEAT_ALPHA);
  assert.equal(el.querySelector(".attnw-image-title")?.textContent, "“&amp;” at layer 1");

  // Patch (1, 0) of the 2 × 2 grid is token 2 + 2 = 4.
  const box = { width: Number.parseFloat(canvas.style.width), height: Number.parseFloat(canvas.style.height) };
  const at = { clientX: box.width * 0.25, clientY: box.height * 0.75 };
  canvas.dispatchEvent(new dom.window.MouseEvent("pointermove", at));
  await flush();
  assert.equal(canvas.dataset.token, "4");
  assert.equal(canvas.dataset.outline, "2");
  assert.ok(el.querySelector('.attnw-labels-right .attnw-token[data-index="4"]')?.classList.contains("attnw-hovered"));
  canvas.dispatchEvent(new dom.window.MouseEvent("click", at));
  assert.deepEqual(model.get("selected"), { side: "target", index: 4 });
  canvas.dispatchEvent(new dom.window.MouseEvent("pointerleave"));
  await flush();
  assert.equal(canvas.dataset.pinned, "2");
  assert.equal(canvas.dataset.token, "4", "the pinned patch's row stays");

  model.set("image", {}); // text: no panel, the graph takes the whole width
  await flush();
  assert.equal(panel.hidden, true);
  cleanup();
});

test("the overlay's colour map is the method's: diverging for a signed method whatever the row, never for an unsigned one", () => {
  const model = new FakeModel({ ...widgetTraits(), image: imageFact(), method: "effective", layer: 1 });
  const state = readState(model);
  const envelopeOf = envelopeCache(model);
  const layout = panelLayout(900, state.image);
  const frame = { focus: { index: 4 }, pinned: null };
  const rows = [1, 2, 3, 4].map((layer) => imageScene({ ...state, layer }, frame, envelopeOf, layout));
  const positive = rows.find((scene) => scene?.heat && Math.min(...scene.heat) >= 0);
  const negative = rows.find((scene) => scene?.heat && Math.min(...scene.heat) < 0);
  assert.ok(positive && negative, "effective attention: a row with no negative value and one with some");
  for (const scene of [positive, negative]) {
    assert.equal(scene.signed, true);
    assert.deepEqual(scene.table, colormap("diverging"));
  }
  // The same rows as an unsigned method's: the heat map, negative values or not.
  const asUnsigned = { ...state, method: { ...state.method, signed: false } };
  for (const layer of [positive.layer, negative.layer]) {
    const scene = imageScene({ ...asUnsigned, layer }, frame, envelopeOf, layout);
    assert.equal(scene?.signed, false);
    assert.deepEqual(scene?.table, colormap("heat"));
  }
});

test("a picture's outline runs halfway between its light pixels and its dark ones, never along its edge", () => {
  /** A width × height grey picture, light where `ink` says. @param {number} width @param {number} height @param {(x: number, y: number) => boolean} ink */
  const picture = (width, height, ink) => {
    const rgb = new Uint8Array(width * height * 3);
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++) rgb.fill(ink(x, y) ? 240 : 10, 3 * (y * width + x), 3 * (y * width + x) + 3);
    return { width, height, rgb, rows: 1, cols: 1, prefix: 0, problem: "" };
  };
  // A light 2 × 2 square in a 4 × 4 picture: its pixels' centres at 1.5 and 2.5, the dark ones' at 0.5 and 3.5.
  const square = inkContour(picture(4, 4, (x, y) => x >= 1 && x <= 2 && y >= 1 && y <= 2));
  assert.equal(square.length % 4, 0);
  assert.ok(square.length >= 4 * 4, "a closed loop round the square");
  for (let k = 0; k < square.length; k += 2) {
    const [x, y] = [square[k], square[k + 1]];
    assert.ok(x >= 1 && x <= 3 && y >= 1 && y <= 3, `${x}, ${y} between the square's pixels and the dark ones`);
    assert.ok(x === 1 || x === 3 || y === 1 || y === 3 || Math.abs(x - 2) + Math.abs(y - 2) > 1.4, "on the boundary");
  }
  // Ink touching the edge, dark or light: its line runs on to the edge (half a pixel past it, clipped when
  // drawn), and the picture's edge is never outlined itself.
  for (const ink of [(/** @type {number} */ x) => x === 0, (/** @type {number} */ x) => x > 0]) {
    const edge = inkContour(picture(3, 3, ink));
    const xs = edge.filter((_, k) => k % 2 === 0);
    const ys = edge.filter((_, k) => k % 2 === 1);
    assert.ok(xs.length > 0 && xs.every((x) => x === 1), "one vertical line between the first column and the second");
    assert.deepEqual([Math.min(...ys), Math.max(...ys)], [-0.5, 3.5]);
  }
  assert.equal(inkContour(picture(3, 3, () => false)).length, 0);
});
