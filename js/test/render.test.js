import assert from "node:assert/strict";
import { test } from "node:test";
import entry from "../src/index.js";
import { FakeModel, fixtureBytes, makeDom, widgetTraits } from "./fake-model.js";

const { render } = entry; // the entry point as anywidget reads it

/** @param {Record<string, any>} [overrides] traits @param {(win: any) => void} [prepare] before rendering */
function mount(overrides = {}, prepare) {
  const dom = makeDom();
  prepare?.(dom.window);
  const el = dom.window.document.createElement("div");
  dom.window.document.body.append(el);
  const model = new FakeModel({ ...widgetTraits(), ...overrides });
  const cleanup = render({ model, el });
  const canvas = /** @type {HTMLCanvasElement} */ (el.querySelector("canvas.attnw-canvas"));
  const ctx = /** @type {any} */ (canvas.getContext("2d"));
  /** Highlights, dots and column numbers are drawn on a second canvas above the edges. */
  const overlay = /** @type {any} */ (
    /** @type {HTMLCanvasElement} */ (el.querySelector("canvas.attnw-overlay")).getContext("2d")
  );
  /** Run the pending animation frame. */
  const flush = () => new Promise((resolve) => dom.window.requestAnimationFrame(() => setTimeout(resolve, 0)));
  const plot = /** @type {HTMLElement} */ (el.querySelector(".attnw-plot"));
  /** Press a key on the plot. @param {string} k */
  const key = (k) => plot.dispatchEvent(new dom.window.KeyboardEvent("keydown", { key: k, bubbles: true }));
  return { dom, el, model, cleanup, canvas, ctx, overlay, flush, plot, key };
}

test("draws one curve per stored non-zero edge, from source row to target row", () => {
  const { canvas, ctx } = mount();
  const n = 6;
  const segments = ctx.segments();
  assert.equal(segments.length, (n * (n + 1)) / 2, "causal layer: every j <= i edge");
  assert.equal(Number(canvas.dataset.edges), segments.length);
  const left = Number(canvas.dataset.leftX);
  const right = Number(canvas.dataset.rightX);
  for (const s of segments) {
    assert.equal(s[0], left);
    assert.equal(s[6], right);
    assert.ok(s[1] <= s[7] + 1e-9, "causal: sources at or above their receiver");
  }
});

test("token text is shown as text, never parsed as HTML", () => {
  const { el } = mount();
  const labels = [...el.querySelectorAll(".attnw-labels-right .attnw-token")].map((n) => n.textContent);
  assert.equal(labels[1], "<img src=x onerror=alert(1)>");
  assert.equal(labels[2], "<script>alert(2)</script>");
  assert.equal(labels[4], "↵");
  assert.equal(el.querySelector("img"), null);
  assert.equal(el.querySelector("script"), null);
});

test("controls write to the model and follow model changes", async () => {
  const { el, model, ctx, flush } = mount();
  const layer = /** @type {HTMLInputElement} */ (el.querySelector(".attnw-layer"));
  const head = /** @type {HTMLSelectElement} */ (el.querySelector(".attnw-head"));
  const method = /** @type {HTMLSelectElement} */ (el.querySelector(".attnw-method"));
  assert.equal(layer.max, "3");
  assert.deepEqual(
    [...head.options].map((o) => o.value),
    ["-1", "-2", "0", "1"],
  );

  const before = JSON.stringify(ctx.segments());
  layer.value = "3";
  layer.dispatchEvent(new el.ownerDocument.defaultView.Event("input"));
  assert.equal(model.get("layer"), 3);
  assert.equal(model.saves, 1);
  await flush();
  assert.notEqual(JSON.stringify(ctx.segments()), before, "a new layer draws a new picture");
  assert.match(el.querySelector(".attnw-caption").textContent, /layer 3 of 3/);

  head.value = "1";
  head.dispatchEvent(new el.ownerDocument.defaultView.Event("change"));
  assert.equal(model.get("head"), 1);

  method.value = "rollout";
  method.dispatchEvent(new el.ownerDocument.defaultView.Event("change"));
  await flush();
  assert.equal(model.get("method"), "rollout");
  assert.equal(head.disabled, true, "rollout averages the heads");
  assert.equal(el.querySelector(".attnw-title-left").textContent, "Input (layer 0)");

  model.set("layer", 2); // as if Python changed it
  await flush();
  assert.equal(layer.value, "2");
  assert.equal(el.querySelector(".attnw-layer-value").textContent, "2 / 3");
});

test("hovering a receiving token highlights its edges and lists their values", async () => {
  const { el, dom, canvas, ctx, overlay, flush, plot } = mount();
  const edgesDrawn = ctx.clears;
  const rowHeight = Number(canvas.dataset.rowHeight);
  const top = Number(canvas.dataset.top);
  const event = new dom.window.MouseEvent("pointermove", { clientX: 600, clientY: top + 3.5 * rowHeight });
  plot.dispatchEvent(event);
  await flush();
  const tooltip = /** @type {HTMLElement} */ (el.querySelector(".attnw-tooltip"));
  assert.equal(tooltip.hidden, false);
  assert.equal(tooltip.querySelectorAll("tr").length, 4, "token 3 of a decoder draws on tokens 0..3");
  assert.match(tooltip.textContent, /“ cat” #3/);
  const highlighted = overlay.strokes.filter((/** @type {any} */ s) => s.segments.length);
  assert.ok(highlighted.length > 0);
  assert.ok(highlighted.every((/** @type {any} */ s) => s.segments.every((seg) => seg[7] === top + 3.5 * rowHeight)));
  assert.equal(canvas.style.opacity, "0.12", "the other edges are faint context");
  assert.equal(canvas.style.filter, "grayscale(1)", "in grey");
  assert.equal(ctx.clears, edgesDrawn, "hovering does not redraw the edges");
  assert.ok(el.querySelector(".attnw-labels-right .attnw-hovered"));

  plot.dispatchEvent(new dom.window.MouseEvent("pointerleave"));
  await flush();
  assert.equal(tooltip.hidden, true);
  assert.equal(canvas.style.opacity, "");
  assert.equal(canvas.style.filter, "");
  assert.equal(overlay.segments().length, 0);
});

test("the view lives inside its element only; cleanup removes it and every model listener", () => {
  const { dom, el, model, cleanup } = mount();
  const { document } = dom.window;
  assert.deepEqual([...document.body.children], [el], "nothing added to the page outside the widget");
  assert.equal(document.head.children.length, 0, "no global styles");
  assert.ok(model.listenerCount() > 0);
  cleanup();
  assert.equal(model.listenerCount(), 0);
  assert.equal(el.children.length, 0);
});

test("a layer computed on request shows a compute button, then progress, then the graph", async () => {
  // The kernel says why a method is computed on request and what it costs (``on_request``).
  const cost = "6 tokens need 36 max-flow problems for each layer.";
  const methods = widgetTraits().methods.map((/** @type {any} */ m) =>
    m.id === "flow" ? { ...m, on_request: cost } : m,
  );
  const { el, model, ctx, flush, canvas } = mount({
    method: "flow",
    layer: 3,
    methods,
    ready: { ...widgetTraits().ready, flow: [1] },
  });
  const panel = /** @type {HTMLElement} */ (el.querySelector(".attnw-pending"));
  assert.equal(panel.hidden, false);
  assert.match(
    panel.textContent,
    /Attention flow for layer 3 is computed on request: 6 tokens need 36 max-flow problems for each layer\./,
  );
  assert.equal(ctx.segments().length, 0, "nothing drawn for a layer that is not there");
  assert.equal(canvas.dataset.edges, "0");
  /** @type {HTMLButtonElement} */ (el.querySelector(".attnw-compute")).click();
  assert.deepEqual(model.sent, [{ type: "compute", method: "flow", layers: [3] }]);
  /** @type {HTMLButtonElement} */ (el.querySelector(".attnw-compute-all")).click();
  assert.deepEqual(model.sent[1], { type: "compute", method: "flow", layers: [1, 2, 3] });

  model.set("job", { method: "flow", layers: [3], done: 0.5, total: 1 });
  await flush();
  const bar = /** @type {HTMLProgressElement} */ (el.querySelector(".attnw-progress"));
  assert.equal(bar.hidden, false);
  assert.equal(bar.value, 0.5);
  /** @type {HTMLButtonElement} */ (el.querySelector(".attnw-cancel")).click();
  assert.deepEqual(model.sent[2], { type: "cancel" });

  model.set("job", { method: "flow", layers: [3], error: "cancelled" });
  await flush();
  assert.match(panel.textContent, /Cancelled\./);

  model.set("ready", { ...model.get("ready"), flow: [1, 3] });
  model.set("job", {});
  await flush();
  assert.equal(panel.hidden, true);
  assert.ok(ctx.segments().length > 0);
});

test("a long input's data holds the shown head of every layer: another head waits for the kernel, a layer change does not", async () => {
  // slices_ready: raw attention's data holds these slices only (3 layers x 4 slots: head 0, head 1, mean, max):
  // every layer's mean (slots 2, 6, 10).
  const { el, model, ctx, flush } = mount({ method: "raw", layer: 2, head: 0, slices_ready: { raw: [2, 6, 10] } });
  const panel = /** @type {HTMLElement} */ (el.querySelector(".attnw-pending"));
  assert.equal(panel.hidden, false);
  assert.equal(ctx.segments().length, 0, "nothing drawn for a head that is not there");
  model.set("heads_job", { layers: [2], done: 0, total: 1 });
  await flush();
  assert.match(panel.textContent ?? "", /Raw attention: computing…/);
  assert.equal(/** @type {HTMLProgressElement} */ (el.querySelector(".attnw-progress")).hidden, false);
  model.set("head", -1); // the mean of heads: held for every layer
  await flush();
  assert.equal(panel.hidden, true);
  assert.ok(ctx.segments().length > 0);
  model.set("head", 0);
  model.set("slices_ready", { raw: [0, 4, 8] }); // the kernel sends head 0 of every layer
  model.set("heads_job", {});
  await flush();
  assert.equal(panel.hidden, true);
  assert.ok(ctx.segments().length > 0);
  model.set("layer", 1); // held already: drawn at once
  await flush();
  assert.equal(panel.hidden, true);
  assert.ok(ctx.segments().length > 0);
  model.set("view", "model"); // layer 1's head 0 not held: the caption names it
  model.set("slices_ready", { raw: [4, 8] });
  await flush();
  assert.match(
    el.querySelector(".attnw-caption")?.textContent ?? "",
    /not read yet for this head: layers 1 \(open one to read it\)/,
  );
  model.set("view", "layer");
  await flush();
  assert.equal(panel.hidden, false);
  /** @type {HTMLButtonElement} */ (el.querySelector(".attnw-compute")).click(); // asks the kernel to read them
  assert.deepEqual(model.sent.at(-1), { type: "compute", method: "raw", layers: [1] });
});

test("a layer known for the pinned token only is drawn, the compute panel docked off it; another pin waits for its row", async () => {
  // Flow on a long input: the kernel computes the pinned token's row layer by layer (ready_row: which token,
  // in which layers, more coming) and sends it inside data_flow, while whole layers stay on request.
  const ready = { ...widgetTraits().ready, flow: [1] };
  const row = (/** @type {number} */ index, /** @type {number[]} */ layers, computing = false) => ({
    flow: { index, layers, computing },
  });
  const { el, model, ctx, flush } = mount({
    method: "flow",
    layer: 3,
    ready,
    ready_row: row(2, [2, 3]),
    selected: { side: "target", index: 2 },
  });
  const panel = /** @type {HTMLElement} */ (el.querySelector(".attnw-pending"));
  /** The graph is drawn and the panel, docked off it, still offers the whole layer. */
  const docked = () => {
    assert.equal(panel.hidden, false);
    assert.ok(panel.classList.contains("attnw-pending-docked"));
    assert.match(panel.textContent ?? "", /only the pinned token's row is computed for layer/);
    assert.equal(/** @type {HTMLElement} */ (el.querySelector(".attnw-compute")).hidden, false);
  };
  docked();
  assert.ok(ctx.segments().length > 0, "the pinned row's edges are drawn");
  assert.match(
    el.querySelector(".attnw-caption")?.textContent ?? "",
    /only the pinned token's row is computed for this layer/,
  );

  model.set("selected", { side: "target", index: 3 }); // its row is not there yet
  await flush();
  assert.equal(panel.hidden, false);
  assert.doesNotMatch(panel.textContent ?? "", /computing the pinned token's row/);
  model.set("ready_row", row(3, [], true)); // coming: the panel says so
  await flush();
  assert.equal(panel.hidden, false);
  assert.match(panel.textContent ?? "", /computing the pinned token's row for layer 3…/);
  model.set("ready_row", row(3, [3], true)); // the shown layer first: drawn while the others compute
  await flush();
  docked();
  assert.ok(ctx.segments().length > 0);
  model.set("layer", 2); // a layer of the row not finished yet: still coming
  await flush();
  assert.equal(panel.hidden, false);
  assert.match(panel.textContent ?? "", /computing the pinned token's row for layer 2…/);
  model.set("ready_row", row(3, [2, 3]));
  await flush();
  docked();
  model.set("layer", 3);

  model.set("selected", { side: "source", index: 3 }); // an input token's edges need the whole layer
  await flush();
  assert.equal(panel.hidden, false);
  assert.doesNotMatch(panel.textContent ?? "", /computing the pinned token's row/);
  model.set("selected", { layer: 2, index: 3 }); // a pin of the whole-model view carries over as a row
  await flush();
  docked();
  model.set("ready", { ...ready, flow: [1, 3] }); // the whole layer computed: drawn as before
  model.set("selected", {});
  await flush();
  assert.equal(panel.hidden, true);
  assert.doesNotMatch(el.querySelector(".attnw-caption")?.textContent ?? "", /pinned token's row/);
});

test("effective attention is drawn with the diverging map and reports the mass it removed", async () => {
  const { el, dom, canvas, flush, plot } = mount({ method: "effective", layer: 2 });
  const legend = /** @type {HTMLElement} */ (el.querySelector(".attnw-legend"));
  assert.match(legend.textContent ?? "", /^-/, "signed data: the scale starts below zero");
  assert.match(legend.textContent ?? "", /attention removed \(Σ\|A − A_eff\|\): \d/);
  assert.match(el.querySelector(".attnw-caption")?.textContent ?? "", /Rows of the first 2 tokens see at most 2 keys/);
  const rowHeight = Number(canvas.dataset.rowHeight);
  plot.dispatchEvent(
    new dom.window.MouseEvent("pointermove", { clientX: 600, clientY: Number(canvas.dataset.top) + 5.5 * rowHeight }),
  );
  await flush();
  assert.match(el.querySelector(".attnw-tooltip")?.textContent ?? "", /attention removed \(Σ\|A − A_eff\|\): \d/);
});

test("token scores appear as bars beside the graph, signed, with the target row marked", async () => {
  const scores = fixtureBytes("scores");
  const { el, model, dom, canvas, flush, plot } = mount({
    targets: [{ id: "t0", label: "logit of 'x' as the token after position 3", position: 3 }],
    target: "t0",
    attribution: "grad_x_input",
    attribution_data: { target: "t0", method: "grad_x_input", status: "running", done: 20, total: 50 },
  });
  const status = /** @type {HTMLElement} */ (el.querySelector(".attnw-strip-status"));
  assert.equal(status.textContent, "Computing gradient × input… 40%");
  assert.equal(el.querySelectorAll(".attnw-bar").length, 0);
  const waiting = "Waiting for the model, in use by integrated gradients (thread 'attn_widget-job').";
  model.set("attribution_data", {
    target: "t0",
    method: "grad_x_input",
    status: "running",
    done: 20,
    total: 50,
    message: waiting,
  });
  await flush();
  assert.equal(status.textContent, `Computing gradient × input… 40% ${waiting}`);

  model.set("attribution_data", {
    target: "t0",
    method: "grad_x_input",
    status: "done",
    values: new DataView(scores.buffer, scores.byteOffset, scores.byteLength),
  });
  await flush();
  const bars = [...el.querySelectorAll(".attnw-bar")].map((b) => /** @type {HTMLElement} */ (b));
  assert.equal(bars.length, 6);
  const expected = [0.5, -0.25, 0, 1, -0.75, 0.125];
  bars.forEach((b, i) => {
    assert.ok(Math.abs(Number(b.dataset.value) - expected[i]) < 1e-4);
  });
  assert.deepEqual(
    bars.map((b) => b.classList.contains("attnw-bar-negative")),
    [false, true, false, false, true, false],
  );
  assert.ok(parseFloat(bars[3].style.width) > parseFloat(bars[0].style.width));
  assert.match(status.textContent ?? "", /^Bars: gradient × input of logit of 'x'/);
  assert.ok(el.querySelector('.attnw-labels-right [data-index="3"]')?.classList.contains("attnw-target-row"));

  const rowHeight = Number(canvas.dataset.rowHeight);
  plot.dispatchEvent(
    new dom.window.MouseEvent("pointermove", { clientX: 5, clientY: Number(canvas.dataset.top) + 4.5 * rowHeight }),
  );
  await flush();
  assert.match(el.querySelector(".attnw-tooltip")?.textContent ?? "", /token score: -0\.7500/);

  const select = /** @type {HTMLSelectElement} */ (el.querySelector(".attnw-attribution"));
  select.value = "";
  select.dispatchEvent(new dom.window.Event("change"));
  await flush();
  assert.equal(model.get("attribution"), "");
  assert.equal(el.querySelectorAll(".attnw-bar").length, 0);
  assert.equal(status.hidden, true);
});

test("a warning that comes with the token scores is shown beside them, as text", async () => {
  const scores = fixtureBytes("scores");
  const values = new DataView(scores.buffer, scores.byteOffset, scores.byteLength);
  const done = { target: "t0", method: "integrated_gradients", status: "done", values };
  const warning = "Stopped at 400 steps: completeness error 7.2% (goal 5%). <b>not bold</b>";
  const { el, model, flush } = mount({
    targets: [{ id: "t0", label: "logit of 'x'", position: 3 }],
    target: "t0",
    attribution: "integrated_gradients",
    attribution_data: { ...done, warning },
  });
  const line = /** @type {HTMLElement} */ (el.querySelector(".attnw-strip-warning"));
  assert.equal(line.hidden, false);
  assert.equal(line.textContent, `⚠ ${warning}`);
  assert.equal(line.querySelector("b"), null, "text, not markup");
  assert.ok(!el.querySelector(".attnw-plot")?.contains(line), "beside the plot, not over it");
  assert.equal(
    line.previousElementSibling,
    el.querySelector(".attnw-strip-status"),
    "under the line that describes the bars",
  );
  assert.equal(el.querySelectorAll(".attnw-bar").length, 6, "the bars are drawn as without a warning");

  model.set("attribution_data", done);
  await flush();
  assert.equal(line.hidden, true, "no warning, no line");
  model.set("attribution_data", { ...done, status: "running", done: 1, total: 2, warning });
  await flush();
  assert.equal(line.hidden, true, "a warning belongs to finished scores only");
});

test("without a target the token-score control explains what to do", () => {
  const { el } = mount();
  const select = /** @type {HTMLSelectElement} */ (el.querySelector(".attnw-attribution"));
  assert.equal(select.disabled, true);
  assert.match(select.title, /w\.set_target/);
});

test("clicking pins a token (and again unpins it); the keyboard moves, pins and unpins", async () => {
  const { el, model, dom, canvas, flush, plot, key } = mount();
  const rowHeight = Number(canvas.dataset.rowHeight);
  const y = Number(canvas.dataset.top) + 2.5 * rowHeight;
  plot.dispatchEvent(new dom.window.MouseEvent("click", { clientX: 600, clientY: y }));
  assert.deepEqual(model.get("selected"), { side: "target", index: 2 });
  plot.dispatchEvent(new dom.window.MouseEvent("pointerleave"));
  await flush();
  const tooltip = /** @type {HTMLElement} */ (el.querySelector(".attnw-tooltip"));
  assert.equal(tooltip.hidden, false, "a pinned token keeps its tooltip");
  assert.match(tooltip.textContent ?? "", /^Pinned · “<script>alert\(2\)<\/script>” #2/);
  assert.ok(el.querySelector('.attnw-labels-right [data-index="2"]')?.classList.contains("attnw-pinned"));
  plot.dispatchEvent(new dom.window.MouseEvent("click", { clientX: 600, clientY: y }));
  assert.deepEqual(model.get("selected"), {});

  key("ArrowDown");
  key("ArrowDown");
  key("ArrowLeft");
  await flush();
  assert.ok(el.querySelector('.attnw-labels-left [data-index="1"]')?.classList.contains("attnw-hovered"));
  key("Enter");
  assert.deepEqual(model.get("selected"), { side: "source", index: 1 });
  key("Escape");
  assert.deepEqual(model.get("selected"), {});
  assert.equal(plot.tabIndex, 0);
});

test("edge controls write top_k, threshold and specials", async () => {
  const { el, model, dom, ctx, flush } = mount({ layer: 3 });
  const before = ctx.segments().length;
  const topK = /** @type {HTMLInputElement} */ (el.querySelector(".attnw-top-k"));
  topK.value = "1";
  topK.dispatchEvent(new dom.window.Event("change"));
  await flush();
  assert.equal(model.get("top_k"), 1);
  assert.equal(ctx.segments().length, 6, "one edge into each of the 6 tokens");
  assert.match(el.querySelector(".attnw-legend")?.textContent ?? "", /6 edges carrying \d+(\.\d)?% of the attention/);
  const specials = /** @type {HTMLSelectElement} */ (el.querySelector(".attnw-specials"));
  specials.value = "hide";
  specials.dispatchEvent(new dom.window.Event("change"));
  await flush();
  assert.equal(model.get("specials"), "hide");
  assert.equal(ctx.segments().length, 5, "token 0 is special: its row and its edges go");
  const threshold = /** @type {HTMLInputElement} */ (el.querySelector(".attnw-threshold"));
  threshold.value = "2";
  threshold.dispatchEvent(new dom.window.Event("change"));
  await flush();
  assert.equal(ctx.segments().length, 0);
  assert.ok(before > 6);
});

test("Enter applies a number field and goes no further (notebook hosts bind it)", async () => {
  const { el, model, dom } = mount({ layer: 3 });
  let reached = 0;
  el.addEventListener("keydown", () => reached++);
  for (const [selector, value, trait, expected] of /** @type {const} */ ([
    [".attnw-top-k", "2", "top_k", 2],
    [".attnw-threshold", "0.05", "threshold", 0.05],
    [".attnw-binarize-threshold", "0.3", "binarize_threshold", 0.3],
  ])) {
    const field = /** @type {HTMLInputElement} */ (el.querySelector(selector));
    field.value = value;
    const enter = new dom.window.KeyboardEvent("keydown", { key: "Enter", bubbles: true, cancelable: true });
    field.dispatchEvent(enter);
    assert.equal(model.get(trait), expected, selector);
    assert.ok(enter.defaultPrevented, selector);
  }
  const from = /** @type {HTMLInputElement} */ (el.querySelector(".attnw-window-start"));
  from.value = "2";
  from.dispatchEvent(new dom.window.KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
  assert.equal(model.get("window")[0], 2);
  const topK = /** @type {HTMLInputElement} */ (el.querySelector(".attnw-top-k"));
  topK.dispatchEvent(new dom.window.KeyboardEvent("keydown", { key: "ArrowUp", bubbles: true }));
  assert.equal(reached, 1, "only the other key reaches the host");
});

test("a click on the compute panel, the token-score strip or the value list never pins a token", async () => {
  const { el, model, dom } = mount({ layer: 3 });
  for (const selector of [".attnw-pending", ".attnw-strip", ".attnw-tooltip"]) {
    const panel = /** @type {HTMLElement} */ (el.querySelector(selector));
    panel.dispatchEvent(new dom.window.MouseEvent("click", { bubbles: true, clientX: 600, clientY: 60 }));
    assert.deepEqual(model.get("selected") ?? {}, {}, selector);
  }
});

test("the whole-model view draws every layer as a column, traces paths and shades what reaches a node", async () => {
  const { el, model, dom, canvas, ctx, overlay, flush, plot, key } = mount({ view: "model" });
  const columns = JSON.parse(canvas.dataset.columns ?? "[]");
  assert.equal(columns.length, 4, "input and 3 layers");
  const perLayer = (6 * 7) / 2; // causal: j <= i
  assert.equal(Number(canvas.dataset.edges), 3 * perLayer);
  assert.equal(ctx.segments().length, 3 * perLayer);
  assert.match(el.querySelector(".attnw-caption")?.textContent ?? "", /whole model, 3 layers/);
  assert.equal(/** @type {HTMLInputElement} */ (el.querySelector(".attnw-layer")).disabled, true);

  // Hover the node of token 4 after layer 2: its strongest paths are traced in both directions.
  const top = Number(canvas.dataset.top);
  const rowHeight = Number(canvas.dataset.rowHeight);
  plot.dispatchEvent(new dom.window.MouseEvent("pointermove", { clientX: columns[2], clientY: top + 4.5 * rowHeight }));
  await flush();
  const strong = overlay.segments();
  assert.ok(strong.some((seg) => seg[0] === columns[1] && seg[6] === columns[2] && seg[7] === top + 4.5 * rowHeight));
  assert.ok(
    strong.some((seg) => seg[0] === columns[2] && seg[6] === columns[3]),
    "paths continue up to the last layer",
  );
  assert.match(el.querySelector(".attnw-tooltip")?.textContent ?? "", /after layer 2 draws on/);

  plot.dispatchEvent(new dom.window.MouseEvent("click", { clientX: columns[2], clientY: top + 4.5 * rowHeight }));
  assert.deepEqual(model.get("selected"), { layer: 2, index: 4 });

  model.set("method", "rollout");
  model.set("selected", { layer: 0, index: 1 });
  plot.dispatchEvent(new dom.window.MouseEvent("pointerleave"));
  await flush();
  assert.match(
    el.querySelector(".attnw-caption")?.textContent ?? "",
    /edges: Attention step 0\.5·Ā \+ 0\.5·I of each layer \(mean of 2 heads\); dots: its values between the focused token and the input · traced paths coloured on each layer's own range/,
  );
  key("ArrowRight");
  key("ArrowRight");
  await flush();
  // Rollout lists what reaches the node from the inputs, not the layer's attention.
  assert.match(
    el.querySelector(".attnw-tooltip")?.textContent ?? "",
    /after layer 1, attention rollout from the input, draws on/,
  );
  model.set("view", "layer");
  await flush();
  assert.equal(canvas.dataset.view, "layer");
});

test("teaching overlays: dots sized by degree, path counts with their binarisation threshold", async () => {
  const { el, model, dom, flush } = mount({ node_size: "in" });
  assert.match(
    el.querySelector(".attnw-caption")?.textContent ?? "",
    /dots: in-degree of the right column \(row sums\), largest 1\.0000/,
  );
  const nodeSize = /** @type {HTMLSelectElement} */ (el.querySelector(".attnw-node-size"));
  nodeSize.value = "out";
  nodeSize.dispatchEvent(new dom.window.Event("change"));
  await flush();
  assert.equal(model.get("node_size"), "out");
  assert.match(el.querySelector(".attnw-caption")?.textContent ?? "", /out-degree of the left column/);

  const binarize = /** @type {HTMLInputElement} */ (el.querySelector(".attnw-binarize-threshold"));
  assert.equal(/** @type {HTMLElement} */ (binarize.parentElement).hidden, true, "only for path counts");
  model.set("method", "paths");
  await flush();
  assert.equal(/** @type {HTMLElement} */ (binarize.parentElement).hidden, false);
  assert.match(el.querySelector(".attnw-caption")?.textContent ?? "", /^Path counts/);
  binarize.value = "0.2";
  binarize.dispatchEvent(new dom.window.Event("change"));
  assert.equal(model.get("binarize_threshold"), 0.2);
});

test("a token window zooms into a range of rows, keeping each token's own index", async () => {
  const { el, dom, canvas, flush, plot } = mount({ window: [2, 3] });
  const labels = [...el.querySelectorAll(".attnw-labels-right .attnw-token")].map(
    (n) => /** @type {HTMLElement} */ (n).dataset.index,
  );
  assert.deepEqual(labels, ["2", "3", "4"]);
  const rowHeight = Number(canvas.dataset.rowHeight);
  const top = Number(canvas.dataset.top);
  assert.ok(top < 0, "rows before the window lie above the plot");
  plot.dispatchEvent(new dom.window.MouseEvent("pointermove", { clientX: 600, clientY: top + 3.5 * rowHeight }));
  await flush();
  assert.match(el.querySelector(".attnw-tooltip")?.textContent ?? "", /“ cat” #3/);
  plot.dispatchEvent(new dom.window.MouseEvent("pointermove", { clientX: 600, clientY: 5 }));
  await flush();
  assert.equal(/** @type {HTMLElement} */ (el.querySelector(".attnw-tooltip")).hidden, true, "the header is not a row");
});

test("new data for a method replaces what was drawn (a layer computed later is not stale)", async () => {
  const { el, model, flush, key } = mount({ method: "flow", layer: 3 });
  const tooltip = /** @type {HTMLElement} */ (el.querySelector(".attnw-tooltip"));
  // Focus the last receiving token, whose row differs between flow and rollout.
  for (let i = 0; i < 6; i++) key("ArrowDown");
  await flush();
  const flowValues = tooltip.textContent;
  model.set("method", "rollout");
  await flush();
  const rolloutValues = tooltip.textContent;
  assert.notEqual(flowValues, rolloutValues, "precondition: the two methods give different values");
  model.set("method", "flow");
  await flush();
  assert.equal(tooltip.textContent, flowValues);
  // The kernel sends the whole trait again when it computes a layer; here, other numbers.
  model.set("data_flow", model.get("data_rollout"));
  await flush();
  assert.equal(tooltip.textContent, rolloutValues);
});

test("a pin carries over between the two views", async () => {
  const { el, model, flush } = mount({ method: "raw", layer: 2, selected: { side: "target", index: 3 } });
  const tooltip = /** @type {HTMLElement} */ (el.querySelector(".attnw-tooltip"));
  assert.match(tooltip.textContent ?? "", /^Pinned · “ cat” #3 · Layer 2 draws on/);
  model.set("view", "model");
  await flush();
  assert.match(tooltip.textContent ?? "", /^Pinned · “ cat” #3 · after layer 2 draws on/);
  model.set("selected", { layer: 0, index: 1 });
  model.set("view", "layer");
  await flush();
  assert.match(tooltip.textContent ?? "", /^Pinned · “<img src=x onerror=alert\(1\)>” #1 · Layer 1 feeds/);
});

test("the next layer and head, and the other methods, are drawn while idle: going there is a copy", async () => {
  const { el, model, canvas, flush } = mount({ layer: 2 });
  assert.equal(canvas.dataset.edgesFrom, "strokes");
  await new Promise((resolve) => setTimeout(resolve, 20)); // idle: neighbours drawn ahead
  for (const [name, value] of /** @type {const} */ ([
    ["layer", 3],
    ["layer", 1],
    ["head", -2],
  ])) {
    model.set("layer", 2); // back to the start: a copy too, kept when the page was idle
    model.set("head", -1);
    await flush();
    model.set(name, value);
    await flush();
    assert.equal(canvas.dataset.edgesFrom, "copy", `${name} ${value}`);
  }
  await new Promise((resolve) => setTimeout(resolve, 30)); // idle: the other methods come after the steps
  model.set("method", "rollout");
  await flush();
  assert.equal(canvas.dataset.edgesFrom, "copy", "another method at this layer");
  model.set("method", "raw");
  // The list reads mean, max, head 0, head 1: head 1 was never one step from a view shown.
  model.set("head", 1);
  await flush();
  assert.equal(canvas.dataset.edgesFrom, "strokes");
  assert.ok(el.querySelector(".attnw-caption")?.textContent?.includes("head 1"));
});

test("a widget out of view draws nothing ahead until it comes into view", async () => {
  // jsdom has no IntersectionObserver: a stand-in reports what Chromium's would (the browser
  // tests check with the real one).
  /** @type {Function[]} */
  const observers = [];
  const { model, canvas, flush, cleanup } = mount({ layer: 2 }, (win) => {
    win.IntersectionObserver = class {
      /** @param {Function} report */
      constructor(report) {
        observers.push(report);
      }
      observe() {}
      disconnect() {
        observers.length = 0;
      }
    };
  });
  const report = (/** @type {boolean} */ isIntersecting) =>
    observers.forEach((r) => {
      r([{ isIntersecting }]);
    });
  report(false);
  await new Promise((resolve) => setTimeout(resolve, 30));
  model.set("layer", 3);
  await flush();
  assert.equal(canvas.dataset.edgesFrom, "strokes", "not drawn ahead while out of view");
  report(true);
  await new Promise((resolve) => setTimeout(resolve, 30));
  model.set("layer", 2);
  await flush();
  assert.equal(canvas.dataset.edgesFrom, "copy", "drawn ahead once in view");
  cleanup();
  assert.equal(observers.length, 0, "the observer is disconnected");
});

test("the whole-model view is drawn while idle, and the single-layer view from it: switching is a copy", async () => {
  const { model, canvas, flush } = mount({ layer: 2 });
  await new Promise((resolve) => setTimeout(resolve, 30)); // idle: the steps, then the whole model
  model.set("view", "model");
  await flush();
  assert.equal(canvas.dataset.view, "model");
  assert.equal(canvas.dataset.edgesFrom, "copy");
  model.set("head", 1); // head 1 was never one step away from a picture shown
  await flush();
  assert.equal(canvas.dataset.edgesFrom, "strokes");
  await new Promise((resolve) => setTimeout(resolve, 30));
  model.set("view", "layer");
  await flush();
  assert.equal(canvas.dataset.view, "layer");
  assert.equal(canvas.dataset.edgesFrom, "copy");
  assert.ok(canvas.closest(".attnw-root")?.querySelector(".attnw-caption")?.textContent?.includes("head 1"));
});

test("a user's page gets no test probes: nothing is written into data- attributes on a paint", async () => {
  const { el, ctx, flush, model } = mount({}, (win) => {
    win.attnwProbes = undefined;
  });
  model.set("layer", 2);
  await flush();
  assert.ok(ctx.segments().length > 0, "the picture is drawn");
  const probed = [...el.querySelectorAll("*")].filter((node) =>
    Object.keys(/** @type {HTMLElement} */ (node).dataset).some(
      (key) => key !== "index" && key !== "lmSuppressShortcuts",
    ),
  );
  assert.deepEqual(
    probed.map((node) => node.className),
    [],
  );
});
