"""Issue 16 in real Chromium: whole-number path counts, the "About this method" panel, the
colour scale in the SVG download."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from attn_widget import AttentionWidget

from .page import TEXT, and_paint, download, geometry, open_widget

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def paths_widget(minilm):
    model, tokenizer = minilm
    return AttentionWidget(model, TEXT, tokenizer, method="paths", layer=2)


def test_path_counts_show_whole_numbers(browser, page_server, paths_widget):
    page, errors = open_widget(browser, page_server, paths_widget)
    i = paths_widget.tokens.index("it")
    g = geometry(page)
    box = page.locator("canvas.attnw-canvas").bounding_box()
    page.mouse.move(box["x"] + g["right"] + 20, box["y"] + g["top"] + (i + 0.5) * g["row"])
    page.locator(".attnw-tooltip").wait_for(state="visible")
    shown = page.locator(".attnw-tooltip-value").all_inner_texts()
    counts = paths_widget.analysis.path_counts(threshold=paths_widget.binarize_threshold)[1, i]
    assert shown[0] == str(int(counts.max()))  # e.g. "17", never "17.0000"
    assert all(value.isdigit() for value in shown), shown
    # Hovered, the colours span the token's own edges (issue 34); else the layer's.
    assert page.locator(".attnw-legend-label").last.inner_text() == str(int(counts.max()))
    and_paint(page, lambda: page.mouse.move(5, 5))
    layer_max = paths_widget.analysis.path_counts(threshold=paths_widget.binarize_threshold)[1].max()
    assert page.locator(".attnw-legend-label").last.inner_text() == str(int(layer_max))
    assert errors == []
    page.close()


def test_the_about_panel_shows_the_selected_methods_text(browser, page_server, paths_widget, artifacts):
    page, errors = open_widget(browser, page_server, paths_widget)
    panel = page.locator(".attnw-explain")
    assert panel.is_hidden()
    page.click(".attnw-explain-toggle")
    panel.wait_for(state="visible")
    paths = next(m for m in paths_widget.methods if m["id"] == "paths")
    assert paths["explain"] in panel.inner_text()
    page.locator(".attnw-root").screenshot(path=str(artifacts / "about-panel.png"))
    # The panel sits above the plot, not over it.
    assert panel.bounding_box()["y"] + panel.bounding_box()["height"] <= page.locator(".attnw-plot").bounding_box()["y"]
    page.select_option(".attnw-method", "rollout")
    rollout = next(m for m in paths_widget.methods if m["id"] == "rollout")
    page.wait_for_function(
        "t => document.querySelector('.attnw-explain').textContent.includes(t)", arg=rollout["explain"]
    )
    assert errors == []
    page.close()


def test_the_svg_download_carries_the_colour_scale(browser, page_server, paths_widget, tmp_path):
    page, errors = open_widget(browser, page_server, paths_widget)
    download(page, ".attnw-save-svg", tmp_path / "view.svg")
    root = ET.parse(tmp_path / "view.svg").getroot()
    ns = "{http://www.w3.org/2000/svg}"
    assert len(root.findall(f".//{ns}linearGradient/{ns}stop")) >= 8
    assert any(r.get("fill") == "url(#attnw-legend-ramp)" for r in root.iter(f"{ns}rect"))
    texts = [t.text for t in root.iter(f"{ns}text")]
    largest = int(paths_widget.analysis.path_counts(threshold=paths_widget.binarize_threshold)[1].max())
    assert str(largest) in texts
    assert any(t and t.startswith("Path counts (binarised graph): edge colour") for t in texts)
    assert errors == []
    page.close()
