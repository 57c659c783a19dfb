"""The "all heads" overview in real Chromium: a layers × heads grid of heat maps (issue 16)."""

from __future__ import annotations

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
    assert page.locator(".attnw-save-svg").is_disabled()
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
