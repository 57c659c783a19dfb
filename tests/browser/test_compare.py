"""Two methods at once (compare_method, compare_mode), in real Chromium: side by side on one colour
scale, their difference on a diverging scale, hover and pin in both panes, and downloads with both."""

from __future__ import annotations

import struct
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from payload_fixtures import widget_state

from attn_widget import AttentionWidget

from .page import and_paint, download, open_state, set_width

pytestmark = pytest.mark.browser

# More tokens than MiniLM's heads have dimensions (32): effective attention differs from attention.
LONG_TEXT = (
    "The animal didn't cross the street because it was too tired. The trophy would not fit in the brown "
    "suitcase because it was too big, so she left it at home."
)
WIDTH = 1000  # wide enough for two panes and their labels
COMPARE = "canvas.attnw-compare-canvas"
MAIN = "canvas.attnw-canvas"


def open_compare(browser, page_server, widget, **view):
    """The harness on the widget's state with these view settings, the body WIDTH wide."""
    state = {**widget_state(widget), **view}
    page, errors = open_state(browser, page_server, state)
    page.set_viewport_size({"width": WIDTH + 60, "height": 1000})
    set_width(page, WIDTH)
    return page, errors


def slice_of(widget, method: str, layer: int) -> np.ndarray:
    """The method's (n, n) matrix at a layer, head mean for per-head methods, from the widget's own data."""
    values = widget.to_numpy()[method]
    values = values[layer - 1]
    return values[-2] if widget.method_spec(method).per_head else values  # heads, mean, max


def geometry_of(page, canvas: str) -> dict:
    return page.eval_on_selector(
        canvas,
        "c => { const b = c.getBoundingClientRect(); return {x: b.x, y: b.y, left: +c.dataset.leftX, "
        "right: +c.dataset.rightX, top: +c.dataset.top, row: +c.dataset.rowHeight}; }",
    )


def pixel(page, canvas: str, x: float, y: float) -> list[int]:
    """RGBA of one edge-canvas pixel at CSS point (x, y) of the canvas."""
    return page.eval_on_selector(
        canvas,
        """(c, [x, y]) => { const d = c.width / c.clientWidth;
            return Array.from(c.getContext('2d').getImageData(Math.round(x * d), Math.round(y * d), 1, 1).data); }""",
        [x, y],
    )


def arrival(page, canvas: str, row: int) -> list[int]:
    """The colour where the edges into a token arrive: just left of the right column, on its row (with
    one edge per row, top_k=1, that edge alone)."""
    g = geometry_of(page, canvas)
    return pixel(page, canvas, g["right"] - 2, g["top"] + (row + 0.5) * g["row"])


def test_side_by_side_draws_both_methods_on_one_scale(browser, page_server, minilm_widget, artifacts):
    """Rollout beside flow (the quickstart text): two graphs, each named, one colour scale whose end is
    the larger of the two methods' largest edges; an edge of the same weight has the same colour in
    either pane, and a weaker one a paler colour."""
    w, layer = minilm_widget, 3
    page, errors = open_compare(browser, page_server, w, method="rollout", compare_method="flow", layer=layer)
    headings = [h.inner_text() for h in page.locator(".attnw-pane-heading").all()]
    assert headings == ["Attention rollout", "Attention flow"]
    assert int(page.get_attribute(MAIN, "data-edges")) > 0 and int(page.get_attribute(COMPARE, "data-edges")) > 0
    a, b = slice_of(w, "rollout", layer), slice_of(w, "flow", layer)
    legend_max = float(page.get_attribute(".attnw-legend", "data-max"))
    assert legend_max == pytest.approx(max(np.abs(a).max(), np.abs(b).max()), rel=1e-3)
    assert abs(np.abs(a).max() - np.abs(b).max()) > 0.05 * legend_max  # the panes' own scales would differ
    assert "One colour scale for both panes" in page.inner_text(".attnw-legend")
    # Each pane's edge count is named with its method (the view's coverage line is the first pane's).
    legend = page.inner_text(".attnw-legend")
    main_edges, other_edges = (int(page.get_attribute(c, "data-edges")) for c in (MAIN, COMPARE))
    assert f"Attention rollout: {main_edges} edges" in legend and f"Attention flow: {other_edges} edges drawn" in legend
    # Pinned in the right pane, "it" is traced in both (the README's picture).
    it = w.tokens.index("it")
    g = geometry_of(page, COMPARE)
    page.mouse.click(g["x"] + g["right"] + 20, g["y"] + g["top"] + (it + 0.5) * g["row"])
    page.mouse.move(5, 5)
    page.wait_for_function("document.querySelectorAll('.attnw-pinned').length === 2")
    page.locator(".attnw-root").screenshot(path=str(artifacts / "compare-side.png"))
    assert errors == []
    page.close()


def test_the_same_weight_has_the_same_colour_in_both_panes(browser, page_server, minilm_widget):
    """Attention beside ALTI at layer 3, one edge per row (top_k=1), so the colour where an edge
    arrives is its own: edges in the same colour bucket (of 24, on the shared scale) have the same
    colour in both panes, edges far apart on it different colours."""
    w, layer = minilm_widget, 3
    n = len(w.tokens)
    page, errors = open_compare(browser, page_server, w, method="raw", compare_method="alti", layer=layer, top_k=1)
    page.wait_for_function(f"document.querySelector('{COMPARE}').dataset.edges === '{n}'")
    a, b = slice_of(w, "raw", layer), slice_of(w, "alti", layer)
    legend_max = float(page.get_attribute(".attnw-legend", "data-max"))
    assert legend_max == pytest.approx(max(np.abs(a).max(), np.abs(b).max()), rel=1e-3)

    def bucket(v: float) -> float:
        return v / legend_max * 24

    rows = [(r, float(np.abs(m[r]).max())) for m in (a, b) for r in range(n)]
    colours = [arrival(page, MAIN, r) for r in range(n)] + [arrival(page, COMPARE, r) for r in range(n)]
    same = far = 0
    for i in range(n):
        for j in range(n, 2 * n):
            bi, bj = bucket(rows[i][1]), bucket(rows[j][1])
            near_edge = min(bi % 1, 1 - bi % 1, bj % 1, 1 - bj % 1) < 0.05  # quantised values may cross
            if bi < 8 or bj < 8 or near_edge:  # faint hairlines: too little alpha to read a colour
                continue
            ci, cj = np.array(colours[i][:3]), np.array(colours[j][:3])
            if int(bi) == int(bj):
                same += 1
                assert np.abs(ci - cj).max() <= 12, (rows[i], rows[j], ci, cj)
            elif abs(int(bi) - int(bj)) >= 6:
                far += 1
                assert np.abs(ci - cj).max() > 12, (rows[i], rows[j], ci, cj)
    assert same > 0 and far > 0
    assert errors == []
    page.close()


def test_difference_view_is_signed_and_centred_at_zero(browser, page_server, minilm_widget, artifacts):
    """Raw attention − value zeroing: where attention is larger the edge is red, where value zeroing is
    larger blue; the legend runs from −max to +max of |a − b|. (Effective attention equals attention on
    this short text: fewer tokens than a head has dimensions.)"""
    w, layer, other = minilm_widget, 3, "value_zeroing"
    label = w.method_spec(other).label
    page, errors = open_compare(
        browser, page_server, w, method="raw", compare_method=other, compare_mode="difference", layer=layer
    )
    assert page.inner_text(".attnw-pane-heading >> nth=0") == f"Raw attention − {label}"
    assert page.locator(".attnw-pane-compare").is_hidden()  # one picture
    diff = slice_of(w, "raw", layer) - slice_of(w, other, layer)
    legend_max = float(page.get_attribute(".attnw-legend", "data-max"))
    assert legend_max == pytest.approx(np.abs(diff).max(), rel=2e-3)
    labels = page.locator(".attnw-legend .attnw-legend-label").all_inner_texts()
    assert labels[0].startswith("-") and labels[1].startswith("+")
    page.locator(".attnw-root").screenshot(path=str(artifacts / "compare-difference.png"))

    and_paint(page, lambda: page.evaluate("() => { window.model.set('top_k', 1); window.model.save_changes(); }"))
    n = len(w.tokens)
    assert page.get_attribute(MAIN, "data-edges") == str(n)
    strongest = [diff[r, np.abs(diff[r]).argmax()] for r in range(n)]
    positive = max(range(n), key=lambda r: strongest[r])
    negative = min(range(n), key=lambda r: strongest[r])
    assert strongest[positive] > 0.3 * legend_max and strongest[negative] < -0.3 * legend_max
    red, blue = arrival(page, MAIN, positive), arrival(page, MAIN, negative)
    assert red[0] > red[2] + 60, red  # red
    assert blue[2] > blue[0] + 60, blue  # blue
    assert errors == []
    page.close()


def test_hovering_a_token_in_either_pane_focuses_it_in_both(browser, page_server, minilm_widget, artifacts):
    """Attention beside ALTI: a token hovered in either pane is focused in both, its value list shows
    both methods' value of each edge, and a click in the second pane pins it for both."""
    w, layer = minilm_widget, 3
    it = w.tokens.index("it")
    page, errors = open_compare(browser, page_server, w, method="raw", compare_method="alti", layer=layer)
    for hovered, other in ((MAIN, ".attnw-compare-plot"), (COMPARE, ".attnw-plot")):
        g = geometry_of(page, hovered)
        page.mouse.move(g["x"] + g["right"] + 20, g["y"] + g["top"] + (it + 0.5) * g["row"])
        page.wait_for_selector(f"{other} .attnw-labels-right .attnw-hovered[data-index='{it}']")
        assert page.locator(".attnw-hovered").count() == 2  # the token in both panes, nothing else
        # Both panes highlight the token's edges (their edge canvases dimmed under the highlight).
        for canvas in (MAIN, COMPARE):
            assert page.eval_on_selector(canvas, "c => c.style.opacity") != ""
        rows = page.eval_on_selector_all(
            ".attnw-tooltip-list tr",
            "rows => rows.map(r => [+r.dataset.index, ...[...r.cells].slice(1).map(c => c.textContent)])",
        )
        assert len(rows) == 10
        raw, alti = slice_of(w, "raw", layer), slice_of(w, "alti", layer)
        for index, first, second in rows:
            assert float(first) == pytest.approx(raw[it, index], abs=2e-4)
            # "–": no ALTI edge there (ALTI clips negative contributions to 0)
            assert (0.0 if second == "–" else float(second)) == pytest.approx(alti[it, index], abs=2e-4)
        assert "Values: Raw attention | ALTI" in page.inner_text(".attnw-tooltip-title")
        if hovered == COMPARE:
            page.locator(".attnw-root").screenshot(path=str(artifacts / "compare-hover.png"))
        page.mouse.move(5, 5)
        page.wait_for_function("document.querySelectorAll('.attnw-hovered').length === 0")
    # A click in the second pane pins the token for both.
    g = geometry_of(page, COMPARE)
    and_paint(page, lambda: page.mouse.click(g["x"] + g["right"] + 20, g["y"] + g["top"] + (it + 0.5) * g["row"]))
    assert page.evaluate("window.model.get('selected')") == {"side": "target", "index": it}
    assert page.locator(".attnw-pinned").count() == 2
    assert errors == []
    page.close()


def test_a_method_computed_on_request_shows_its_pending_state_in_its_pane(browser, page_server, minilm_widget):
    """Hidden-state attribution is computed on request: its pane offers the computation, not a blank."""
    page, errors = open_compare(
        browser, page_server, minilm_widget, method="rollout", compare_method="hidden_attribution"
    )
    pending = page.locator(".attnw-pane-compare .attnw-pending")
    assert pending.is_visible()
    assert "computed on request" in pending.inner_text()
    assert page.locator(".attnw-pane-compare .attnw-compute").is_visible()
    assert page.locator(".attnw-pane-main .attnw-pending").is_hidden()  # rollout is there
    # While the kernel computes it, the pane shows its progress.
    page.evaluate("() => window.model.set('job', {method: 'hidden_attribution', layers: [1], done: 1, total: 4})")
    bar = page.locator(".attnw-pane-compare .attnw-progress")
    bar.wait_for(state="visible")
    assert page.eval_on_selector(".attnw-pane-compare .attnw-progress", "b => b.value / b.max") == 0.25
    assert page.locator(".attnw-pane-compare .attnw-cancel").is_visible()
    page.evaluate("() => window.model.set('job', {})")
    page.select_option(".attnw-compare-mode", "difference")
    heading = ".attnw-pane-compare .attnw-pane-heading"
    page.wait_for_function(f"document.querySelector('{heading}').textContent.includes('needed')")
    assert pending.is_visible()
    assert page.locator(".attnw-pane-main .attnw-pending").is_hidden()  # rollout is there: no button for it
    assert page.locator(".attnw-legend").is_hidden()
    assert errors == []
    page.close()


def test_downloads_hold_both_panes_and_the_shared_scale(browser, page_server, minilm_widget, tmp_path, artifacts):
    w = minilm_widget
    page, errors = open_compare(browser, page_server, w, method="rollout", compare_method="flow", layer=3)
    edges = int(page.get_attribute(MAIN, "data-edges")) + int(page.get_attribute(COMPARE, "data-edges"))
    with page.expect_download() as info:
        page.click(".attnw-save-svg")
    assert info.value.suggested_filename == "attention-rollout-vs-flow-layer3.svg"
    info.value.save_as(tmp_path / "view.svg")
    root = ET.parse(tmp_path / "view.svg").getroot()
    ns = "{http://www.w3.org/2000/svg}"
    assert len(root.findall(f".//{ns}path")) == edges
    texts = [t.text for t in root.iter(f"{ns}text")]
    assert "Attention rollout" in texts and "Attention flow" in texts
    assert texts.count("animal") == 4  # both columns of both panes
    assert any(t and "(one scale)" in t for t in texts)
    download(page, ".attnw-save-png", tmp_path / "view.png")
    data = (tmp_path / "view.png").read_bytes()
    width, _ = struct.unpack(">II", data[16:24])
    panes = sum(page.eval_on_selector(canvas, "c => c.clientWidth") for canvas in (MAIN, COMPARE))
    assert width >= 2 * panes  # both panes, at twice the screen resolution
    (artifacts / "compare-export.png").write_bytes(data)
    assert errors == []
    page.close()


def test_attention_minus_effective_attention_on_a_longer_text(browser, page_server, minilm, artifacts):
    """Effective attention drops each row's part in the values' null space: on a text longer than a head's
    dimensions the difference is non-zero, and the view draws a − b of the widget's own data."""
    model, tokenizer = minilm
    w, layer = AttentionWidget(model, LONG_TEXT, tokenizer), 2
    assert len(w.tokens) > 32
    page, errors = open_compare(
        browser, page_server, w, method="raw", compare_method="effective", compare_mode="difference", layer=layer
    )
    diff = slice_of(w, "raw", layer) - slice_of(w, "effective", layer)
    assert np.abs(diff).max() > 0.05
    legend_max = float(page.get_attribute(".attnw-legend", "data-max"))
    assert legend_max == pytest.approx(np.abs(diff).max(), rel=2e-3)
    it = w.tokens.index("it")
    g = geometry_of(page, MAIN)
    page.mouse.move(g["x"] + g["right"] + 20, g["y"] + g["top"] + (it + 0.5) * g["row"])
    page.locator(".attnw-tooltip").wait_for(state="visible")
    page.locator(".attnw-root").screenshot(path=str(artifacts / "compare-difference-effective.png"))
    assert errors == []
    page.close()
