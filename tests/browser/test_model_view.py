"""The whole-model view, honest per method (issue 34), in real Chromium on the shipped MiniLM: a cumulative method's
edges are its own per-layer step (flow's capacities 0.5·Ā + 0.5·I, not the raw attention), the caption says what the
edges and the dots are, and a focused node's traced paths are coloured on their own range, as the legend says."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest
from payload_fixtures import widget_state

from attn_widget import AttentionWidget
from attn_widget.methods.heads import joined

from .page import TEXT, and_paint, geometry, open_state, row_point, set_width

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def flow_widget(minilm):
    """MiniLM on page.TEXT showing flow in the whole-model view, raw attention computed too (to compare)."""
    model, tokenizer = minilm
    w = AttentionWidget(model, TEXT, tokenizer, method="flow", view="model")
    w.compute("raw", wait=True)
    w.compute("rollout", wait=True)
    return w


# The opacity over white (0-255, as self_edges reads it) from which a self-edge counts as drawn plainly: a weight of
# half its layer's largest edge is drawn at about 60 (48 to 233 measured for flow's, in Debian Chromium 960 px wide).
PLAIN = 40
SVG = "{http://www.w3.org/2000/svg}"


def self_edges(page) -> np.ndarray:
    """(L, n): how dark the edge canvas is over white (255 minus the luminance, alpha-weighted) on each token's
    horizontal self-edge, from itself after one layer to itself after the next, at 0.3 of the way, where the other
    edges of the row have turned away (they leave and arrive level, and cross it at the middle)."""
    columns = page.eval_on_selector("canvas.attnw-canvas", "c => JSON.parse(c.dataset.columns)")
    g = geometry(page)
    n = page.locator(".attnw-labels-left .attnw-token").count()
    return np.array(
        page.eval_on_selector(
            "canvas.attnw-canvas",
            """(c, [columns, top, row, n]) => {
                const d = c.width / c.clientWidth, ctx = c.getContext('2d');
                return columns.slice(1).map((right, l) => Array.from({ length: n }, (_, i) => {
                    const x = Math.round((columns[l] + 0.3 * (right - columns[l])) * d);
                    const y = Math.round((top + (i + 0.5) * row) * d);
                    const [r, gr, b, a] = ctx.getImageData(x, y, 1, 1).data;
                    return (a / 255) * (255 - (0.2126 * r + 0.7152 * gr + 0.0722 * b));
                }));
            }""",
            [columns, g["top"], g["row"], n],
        )
    )


# Luminance (0-255, over white) by which the strongest edge into the focused node in the last layer must be darker
# than its third where they leave the column before. Measured in Debian Chromium 960 px wide: before each layer's
# traced edges had their own range (coloured on the layer's, 0 to 0.59), the strongest was no darker (249 against
# 191); with it, 122 darker (22 against 144).
CONTRAST = 90


def departure(page, x: float, source: int) -> float:
    """The darkest luminance, over white, of the highlighted edges (the overlay canvas) just right of column x (clear
    of its dots) on token row ``source``: with a node focused after the last layer, that row's traced edge into it."""
    g = geometry(page)
    return page.eval_on_selector(
        "canvas.attnw-overlay",
        """(c, [x, y]) => {
            const d = c.width / c.clientWidth;
            const [left, top] = [Math.round((x + 8) * d), Math.round((y - 2) * d)];
            const px = c.getContext('2d').getImageData(left, top, Math.round(6 * d), Math.round(5 * d)).data;
            let darkest = 255;
            for (let i = 0; i < px.length; i += 4) {
                const a = px[i + 3] / 255, lum = 0.2126 * px[i] + 0.7152 * px[i + 1] + 0.0722 * px[i + 2];
                darkest = Math.min(darkest, a * lum + (1 - a) * 255);
            }
            return darkest;
        }""",
        [x, g["top"] + (source + 0.5) * g["row"]],
    )


def show(page, method: str) -> None:
    and_paint(
        page, lambda: page.evaluate(f"() => {{ window.model.set('method', '{method}'); window.model.save_changes(); }}")
    )


def test_flows_edges_are_its_capacities_and_the_caption_says_so(browser, page_server, flow_widget, artifacts, tmp_path):
    """With flow the edges are the capacities its max flows run through, 0.5·Ā + 0.5·I, as rollout's: every token's
    self-edge (at least half its layer's largest edge: the residual) is drawn plainly, where raw attention's (what
    flow drew before) are mostly faint. The caption, on screen and in the download, names the edges and the dots."""
    w = flow_widget
    step = joined(w.method_spec("attention_step").values(w.analysis, w.view_settings)[0]).numpy()
    assert all(np.diag(layer).min() >= 0.5 * layer.max() for layer in step)
    page, errors = open_state(browser, page_server, widget_state(w))
    page.set_viewport_size({"width": 1000, "height": 700})
    set_width(page, 960)
    page.locator(".attnw-root").screenshot(path=str(artifacts / "model-view-flow.png"))
    flow = self_edges(page)
    caption = page.inner_text(".attnw-caption")
    show(page, "raw")
    raw = self_edges(page)
    show(page, "rollout")
    rollout = self_edges(page)
    page.locator(".attnw-root").screenshot(path=str(artifacts / "model-view-rollout.png"))
    print(f"self-edges drawn plainly: flow {(flow >= PLAIN).mean():.2f}, raw {(raw >= PLAIN).mean():.2f}")
    assert (flow >= PLAIN).all(), flow.round()
    assert (raw >= PLAIN).mean() < 0.4, raw.round()
    np.testing.assert_array_equal(flow, rollout)  # the same steps
    assert caption.startswith("Attention flow · whole model, 6 layers · "), caption
    assert "edges: Attention step 0.5·Ā + 0.5·I of each layer (mean of 12 heads)" in caption, caption
    assert caption.startswith("Attention flow · ") and caption.count("Attention flow") == 1, caption
    assert "dots: its values between the focused token and the input" in caption, caption
    said = page.inner_text(".attnw-caption")
    assert said.startswith("Attention rollout · ") and "dots: its values between" in said, said
    # The downloaded picture says the same, and its key names the edges it colours.
    with page.expect_download() as info:
        page.click(".attnw-save-svg")
    info.value.save_as(tmp_path / "model.svg")
    words = " ".join(t.text or "" for t in ET.parse(tmp_path / "model.svg").getroot().iter(f"{SVG}text"))
    assert "dots: its values between the" in words, words
    assert "Attention step 0.5·Ā + 0.5·I: edge colour (scaled per layer" in words, words
    assert errors == []
    page.close()


def test_a_focused_nodes_traced_edges_are_coloured_on_each_layers_own_range(
    browser, page_server, flow_widget, artifacts
):
    """Raw attention, whole model, hovering "it" after the last layer: its strongest edge in that layer (from [CLS],
    0.26) is drawn visibly darker than its third (from "tired", 0.11), though the layer's largest edge (0.59) would
    pale both; the legend says the traced edges are on each layer's own range."""
    w = flow_widget
    last = w.analysis.raw()[-1].double().numpy()
    it = w.tokens.index("it")
    order = np.argsort(-last[it])
    strongest, third = int(order[0]), int(order[2])
    assert (w.tokens[strongest], w.tokens[third]) == ("[CLS]", "tired")
    assert round(float(last[it, strongest]), 2) == 0.26 and round(float(last.max()), 2) == 0.59
    page, errors = open_state(browser, page_server, widget_state(w))
    page.set_viewport_size({"width": 1000, "height": 700})
    set_width(page, 960)
    show(page, "raw")
    assert page.inner_text(".attnw-legend-scale") == "colour: each layer's own range (the largest: 0 to 0.98)"
    columns = page.eval_on_selector("canvas.attnw-canvas", "c => JSON.parse(c.dataset.columns)")
    and_paint(page, lambda: page.mouse.move(*row_point(page, columns[6], it)))
    page.locator(".attnw-root").screenshot(path=str(artifacts / "model-view-raw-focused.png"))
    dark, pale = departure(page, columns[5], strongest), departure(page, columns[5], third)
    print(f"luminance: strongest ({last[it, strongest]:.3f}) {dark:.0f}, third ({last[it, third]:.3f}) {pale:.0f}")
    assert pale - dark >= CONTRAST, (dark, pale)
    scale = page.locator(".attnw-legend-scale")
    assert scale.inner_text().startswith("colour: the traced paths' edges, each layer's own range (the largest: 0 to ")
    assert scale.get_attribute("data-scale") == "paths"
    assert "traced paths coloured on each layer's own range" in page.inner_text(".attnw-caption")
    # The download's legend says it too.
    page.mouse.move(2, 2)
    assert errors == []
    page.close()
