"""The "all heads" overview in real Chromium: a layers × heads grid of heat maps (issue 16)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from .page import open_widget

pytestmark = pytest.mark.browser

MARGIN_LEFT, MARGIN_TOP, GAP = 28, 16, 4  # js/src/heads_grid.js


def cell_pixels(page, row: int, column: int, n: int) -> np.ndarray:
    """(n, n, 3) colour at the centre of each matrix entry's block in one grid cell."""
    pixels = page.eval_on_selector(
        "canvas.attnw-heads-canvas",
        """(c, [row, column, n, left, top, gap]) => {
            const cell = +c.dataset.cell, dpr = c.width / c.clientWidth;
            const x0 = left + column * (cell + gap), y0 = top + row * (cell + gap);
            const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
            const out = [];
            for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
                const px = Math.floor((x0 + (j + 0.5) * cell / n) * dpr);
                const py = Math.floor((y0 + (i + 0.5) * cell / n) * dpr);
                const p = (py * c.width + px) * 4;
                out.push([d[p], d[p + 1], d[p + 2]]);
            }
            return out;
        }""",
        [row, column, n, MARGIN_LEFT, MARGIN_TOP, GAP],
    )
    return np.array(pixels, dtype=float).reshape(n, n, 3)


def test_heads_grid_draws_every_head_and_opens_a_cell(browser, page_server, minilm_widget, artifacts):
    page, errors = open_widget(browser, page_server, minilm_widget)
    L, H = minilm_widget.n_layers, minilm_widget.n_heads
    page.select_option(".attnw-view", "heads")
    page.wait_for_function(f"document.querySelector('.attnw-heads-canvas').dataset.cells === '{L * (H + 2)}'")
    assert page.locator(".attnw-plot").is_hidden()
    assert int(page.get_attribute(".attnw-heads-canvas", "data-columns")) == H + 2
    page.locator(".attnw-root").screenshot(path=str(artifacts / "widget-heads-view.png"))
    with page.expect_download() as info:
        page.click(".attnw-save-png")
    assert info.value.suggested_filename == "attention-raw-heads.png"

    # Brightness ranks as the slice's values: layer 3, head 5 (column 2 + 5), heat table (dark -> light).
    n = len(minilm_widget.tokens)
    values = minilm_widget.analysis.raw(5)[2].numpy()
    shown = cell_pixels(page, 2, 7, n).sum(axis=2)
    strong = values > 0.6 * values.max()
    weak = values < 0.05 * values.max()
    assert strong.any() and weak.any()
    assert shown[strong].min() > shown[weak].max()
    assert np.corrcoef(shown.ravel(), values.ravel())[0, 1] > 0.8

    # Hover names the cell; a click opens it in the single-layer view.
    box = page.locator(".attnw-heads-canvas").bounding_box()
    cell = int(page.get_attribute(".attnw-heads-canvas", "data-cell"))
    x = box["x"] + MARGIN_LEFT + 7 * (cell + GAP) + cell / 2
    y = box["y"] + MARGIN_TOP + 2 * (cell + GAP) + cell / 2
    page.mouse.move(x, y)
    page.wait_for_function("document.querySelector('.attnw-heads-hover').textContent.startsWith('Layer 3, head 5')")
    page.mouse.click(x, y)
    # The graph canvas keeps data-view "layer" from before the grid: wait for the repaint that hides the grid.
    page.wait_for_function("document.querySelector('.attnw-heads').hidden")
    opened = page.evaluate("[window.model.get('view'), window.model.get('layer'), window.model.get('head')]")
    assert opened == ["layer", 3, 5]
    assert "layer 3 of 6 · head 5" in page.inner_text(".attnw-caption")
    assert page.locator(".attnw-heads").is_hidden()

    # A method that is not per head: one matrix per layer.
    page.select_option(".attnw-view", "heads")
    page.select_option(".attnw-method", "rollout")
    page.wait_for_function(f"document.querySelector('.attnw-heads-canvas').dataset.cells === '{L}'")
    assert "not per head" in page.inner_text(".attnw-caption")
    assert errors == []
    page.close()


def test_heads_grid_svg_has_every_cell_its_caption_and_key(browser, page_server, minilm_widget, artifacts):
    page, errors = open_widget(browser, page_server, minilm_widget)
    L, H = minilm_widget.n_layers, minilm_widget.n_heads
    page.select_option(".attnw-view", "heads")
    page.wait_for_function(f"document.querySelector('.attnw-heads-canvas').dataset.cells === '{L * (H + 2)}'")
    assert page.locator(".attnw-save-svg").is_enabled()
    assert "SVG" in page.get_attribute(".attnw-save-svg", "title")
    with page.expect_download() as info:
        page.click(".attnw-save-svg")
    assert info.value.suggested_filename == "attention-raw-heads.svg"
    info.value.save_as(artifacts / "heads-export.svg")
    root = ET.parse(artifacts / "heads-export.svg").getroot()
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == f"{ns}svg"
    images = list(root.iter(f"{ns}image"))
    assert len(images) == L * (H + 2), "one embedded picture per layer and head"
    names = [image.find(f"{ns}title").text for image in images]
    assert names[0] == f"Layer 1, mean of {H} heads" and names[2 * (H + 2) + 7] == "Layer 3, head 5"
    assert all(image.get("href").startswith("data:image/png;base64,") for image in images)
    # The cells' pixels are the grid's: the brightest cell of layer 3, head 5 where the screen has it.
    cell = images[2 * (H + 2) + 7]
    assert float(cell.get("width")) == int(page.get_attribute(".attnw-heads-canvas", "data-cell"))
    texts = "\n".join(t.text or "" for t in root.iter(f"{ns}text"))
    caption = " ".join(t.text for t in root.iter(f"{ns}text") if t.get("class") == "attnw-caption-line")
    assert caption == page.inner_text(".attnw-caption")
    assert "Raw attention: the colour of each cell" in texts
    assert "each cell is scaled to its own largest value" in texts
    assert "mean" in texts and "max" in texts  # the column names, as text
    (ramp,) = root.iter(f"{ns}linearGradient")
    assert len(ramp.findall(f"{ns}stop")) >= 8
    # A Chromium page shows it: its cells decode (an <img> of the file paints them).
    shown = page.evaluate(
        """async (svg) => {
            const img = new Image();
            img.src = 'data:image/svg+xml;base64,' + btoa(unescape(encodeURIComponent(svg)));
            await img.decode();
            const c = document.createElement('canvas');
            [c.width, c.height] = [img.width, img.height];
            const ctx = c.getContext('2d');
            ctx.drawImage(img, 0, 0);
            const d = ctx.getImageData(0, 0, c.width, 100).data;
            let dark = 0;
            for (let i = 0; i < d.length; i += 4) dark += d[i] + d[i + 1] + d[i + 2] < 200;
            return dark;
        }""",
        (artifacts / "heads-export.svg").read_text(),
    )
    assert shown > 1000, "the heat maps' dark pixels"
    assert errors == []
    page.close()


def test_heads_grid_colour_map_is_the_methods(browser, page_server, minilm_widget, artifacts):
    """A signed method is diverging in the grid whatever its values; an unsigned one is on the heat map."""
    page, errors = open_widget(browser, page_server, minilm_widget)
    L, H = minilm_widget.n_layers, minilm_widget.n_heads
    page.select_option(".attnw-view", "heads")
    page.wait_for_function(f"document.querySelector('.attnw-heads-canvas').dataset.cells === '{L * (H + 2)}'")
    n = len(minilm_widget.tokens)
    values = minilm_widget.analysis.raw(5)[2].numpy()
    zero = values < 0.01 * values.max()
    heat = cell_pixels(page, 2, 7, n)
    assert heat[zero].sum(axis=-1).max() < 120, "unsigned: weak entries are the heat map's black"
    assert "0 → largest" in page.inner_text(".attnw-heads-key")
    # Raw attention's (non-negative) data as a signed method's: the diverging map, 0 its grey middle.
    page.evaluate(
        """() => window.model.set('methods',
            window.model.get('methods').map(m => m.id === 'raw' ? {...m, signed: true} : m))"""
    )
    page.wait_for_function("document.querySelector('.attnw-heads-key').textContent.includes('negative')")
    diverging = cell_pixels(page, 2, 7, n)
    grey = np.abs(diverging[zero] - 189).max(axis=-1)  # #bdbdbd
    assert np.median(grey) < 25, "a signed method's zero is the diverging map's grey"
    strongest = np.unravel_index(values.argmax(), values.shape)
    r, g, b = diverging[strongest]
    assert r > 150 and r > b + 60, "its largest value the diverging map's red"
    page.locator(".attnw-heads").screenshot(path=str(artifacts / "heads-signed.png"))
    assert errors == []
    page.close()
