"""Colour scales that show the focus (issue 34), in real Chromium, on the shipped decoder of the course:
a focused token's edges on its own row's range, and one diverging map for a signed method in every pane."""

from __future__ import annotations

import io

import numpy as np
import pytest
from payload_fixtures import widget_state
from PIL import Image

from attn_widget import AttentionWidget, analyze
from attn_widget.demo import pydoc_gpt2

from .page import and_paint, geometry, open_state, row_point, set_width

pytestmark = pytest.mark.browser

# Course 06 (notebooks/course/06_decoders_and_the_receptive_field.ipynb): raw rollout, layer 4, the last token.
TEXT = "The for statement is used to iterate over the elements of a sequence."
LAYER = 4
# Luminance (0-255, Rec. 709 weights, as shown on a white page) by which the strongest edge into the
# focused token must be darker than its third strongest where they leave the left column. Before the
# focus scale (every edge on the slice's scale, whose end is row 0's self-edge, 1) it was 55 (163 against
# 218, measured in Debian Chromium 800 px wide); with it, 162 (22 against 184).
CONTRAST = 100


@pytest.fixture(scope="module")
def course():
    model, tokenizer = pydoc_gpt2()
    return analyze(model, TEXT, tokenizer)


def luminance(rgb: np.ndarray) -> np.ndarray:
    return rgb[..., :3].astype(float) @ np.array([0.2126, 0.7152, 0.0722])


def screen(page) -> np.ndarray:
    """The page as drawn (every canvas composited), RGB at one pixel per CSS pixel."""
    return np.asarray(Image.open(io.BytesIO(page.screenshot())).convert("RGB"))


def departure(picture: np.ndarray, page, source: int) -> float:
    """The darkest luminance where the edges from token ``source`` leave the left column (just right
    of it, on its row): with one token focused, the focused edge from that source."""
    box = page.locator("canvas.attnw-canvas").bounding_box()
    g = geometry(page)
    x = int(box["x"] + g["left"])
    y = int(round(box["y"] + g["top"] + (source + 0.5) * g["row"]))
    return float(luminance(picture[y - 3 : y + 4, x + 3 : x + 9]).min())


def test_a_focused_decoder_tokens_edges_show_their_order(browser, page_server, course, artifacts):
    """Course 06's question on raw rollout: hovering the last token, ".", its strongest edge (from "The",
    0.31) is drawn visibly darker than its third strongest (0.11), though the slice's largest edge is
    row 0's self-edge, 1. The legend says the colours span this token's edges, 0 to 0.31."""
    w = AttentionWidget(analysis=course, method="rollout", layer=LAYER)
    row = course.rollout(receptive_field="none")[LAYER - 1, -1].numpy()
    order = np.argsort(-row)
    strongest, third = int(order[0]), int(order[2])
    assert course.tokens[strongest] == "The" and round(float(row[strongest]), 2) == 0.31
    assert row[strongest] > 2.5 * row[third]
    page, errors = open_state(browser, page_server, widget_state(w))
    set_width(page, 760)
    page.locator(".attnw-root").screenshot(path="/tmp/scales-decoder-unfocused.png")
    legend = page.inner_text(".attnw-legend")
    last = len(course.tokens) - 1
    and_paint(page, lambda: page.mouse.move(*row_point(page, geometry(page)["right"], last)))
    page.wait_for_function("() => document.querySelector('.attnw-tooltip-title')?.textContent.includes('#13 ')")
    picture = screen(page)
    page.locator(".attnw-root").screenshot(path="/tmp/scales-decoder-focused.png")
    page.locator(".attnw-root").screenshot(path=str(artifacts / "scales-decoder-focused.png"))
    dark, pale = departure(picture, page, strongest), departure(picture, page, third)
    print(f"luminance: strongest ({row[strongest]:.3f}) {dark:.0f}, third ({row[third]:.3f}) {pale:.0f}")
    assert pale - dark >= CONTRAST, (dark, pale)
    assert "colour: all edges drawn, 0 to 0.8" in legend, legend  # row 0's lone self-edge (1) left out
    assert "not counting 1: a token that sees only itself" in legend
    scale = page.locator(".attnw-legend-scale")
    assert scale.inner_text() == "colour: this token's edges, 0 to 0.31"
    assert float(scale.get_attribute("data-high")) == pytest.approx(row[strongest], rel=2e-3)
    page.mouse.move(5, 5)
    assert errors == []
    page.close()


def arrival(page, canvas: str, row: int) -> list[int]:
    """RGBA of the edge canvas just left of the right column on a row (top_k=1: that row's one edge)."""
    return page.eval_on_selector(
        canvas,
        """(c, row) => { const d = c.width / c.clientWidth;
            const x = +c.dataset.rightX - 2, y = +c.dataset.top + (row + 0.5) * +c.dataset.rowHeight;
            return Array.from(c.getContext('2d').getImageData(Math.round(x * d), Math.round(y * d), 1, 1).data); }""",
        row,
    )


def test_effective_attention_is_diverging_in_both_compare_panes(browser, page_server, course):
    """Course 07's short text (effective attention equals attention there, all positive) compared side by
    side with raw attention: both panes draw on the one diverging map (positive is red in both), as a
    lone widget on effective attention does, and as the notebook says (blue is negative)."""
    w = AttentionWidget(analysis=course, method="effective", layer=LAYER, top_k=1)
    page, errors = open_state(browser, page_server, widget_state(w))
    n = len(course.tokens)
    alone = [arrival(page, "canvas.attnw-canvas", r) for r in range(1, n)]
    page.set_viewport_size({"width": 1060, "height": 1000})
    set_width(page, 1000)
    and_paint(
        page, lambda: page.evaluate("() => { window.model.set('compare_method', 'raw'); window.model.save_changes(); }")
    )
    page.locator(".attnw-root").screenshot(path="/tmp/scales-effective-compare.png")
    assert all(c[0] > c[2] for c in alone if c[3] > 0), alone  # red-ish, not the sequential blue
    for canvas in ("canvas.attnw-canvas", "canvas.attnw-compare-canvas"):
        colours = [arrival(page, canvas, r) for r in range(1, n)]
        drawn = [c for c in colours if c[3] > 0]
        assert len(drawn) >= n // 2, (canvas, colours)
        assert all(c[0] > c[2] for c in drawn), (canvas, drawn)  # positive: red on the diverging map
    bar = page.eval_on_selector(".attnw-legend-bar", "b => b.style.background")
    assert bar.startswith("linear-gradient") and "rgb(33, 102, 172)" in bar  # the diverging map's blue end
    assert errors == []
    page.close()


LONG_TEXT = (
    "The for statement is used to iterate over the elements of a sequence (such as a string, tuple or list) "
    "or other iterable object. The expression list is evaluated once; it should yield an iterable object."
)


def blueness(picture: np.ndarray, page, source: int) -> int:
    """How much bluer than red the bluest pixel is where the edges from ``source`` leave the left column."""
    box = page.locator("canvas.attnw-canvas").bounding_box()
    g = geometry(page)
    x = int(box["x"] + g["left"])
    y = int(round(box["y"] + g["top"] + (source + 0.5) * g["row"]))
    patch = picture[y - 3 : y + 4, x + 3 : x + 9].astype(int)
    return int((patch[..., 2] - patch[..., 0]).max())


def test_a_focused_tokens_negative_effective_edges_are_blue(browser, page_server, course):
    """Course 07's long text, effective attention, layer 4: hovering the last token, its most negative edge
    (-0.013, where its positive ones reach 0.095) is drawn plainly blue, not the grey of a ±1 scale."""
    w = AttentionWidget(course.model, LONG_TEXT, course.tokenizer, method="effective", layer=LAYER, window=[0, 42])
    row = w.to_frame(method="effective").to_numpy()[-1]
    negative = int(row.argmin())
    assert round(float(row[negative]), 3) == -0.013
    page, errors = open_state(browser, page_server, widget_state(w))
    page.set_viewport_size({"width": 800, "height": 1500})  # every row on screen, the last one to hover
    set_width(page, 760)
    last = len(w.tokens) - 1
    and_paint(page, lambda: page.mouse.move(*row_point(page, geometry(page)["right"], last)))
    picture = screen(page)
    page.locator(".attnw-root").screenshot(path="/tmp/scales-effective-focused.png")
    blue = blueness(picture, page, negative)
    print(f"most negative edge ({row[negative]:.3f}): blue - red = {blue}")
    assert blue >= 60, blue
    assert page.locator(".attnw-legend-scale").inner_text() == (
        "colour: this token's edges, -0.013 to 0.095 (blue and red each to their own end; width by size)"
    )
    page.mouse.move(5, 5)
    assert errors == []
    page.close()
