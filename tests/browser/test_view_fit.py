"""Controls and downloads fit the view they are in (issue 34): a control that does nothing in a view is
disabled there and says why; the all-heads picture carries its caption and colour key; captions wrap to
the picture's width, in the PNG and in the SVG."""

from __future__ import annotations

import io
import pathlib

import pytest
from PIL import Image

from .page import download, open_widget, set_width

pytestmark = pytest.mark.browser

SHOTS = pathlib.Path("/tmp")

# Every fillText of any canvas from now on: the text, where it starts and ends in device pixels (the
# context's transform applied to x and to the measured width), and the canvas's width.
RECORD_TEXT = """() => {
    window.drawn = [];
    const fill = CanvasRenderingContext2D.prototype.fillText;
    CanvasRenderingContext2D.prototype.fillText = function (text, x, y, ...rest) {
        const t = this.getTransform(), width = this.measureText(text).width;
        const align = this.textAlign;
        const left = align === 'right' || align === 'end' ? x - width : align === 'center' ? x - width / 2 : x;
        window.drawn.push({ text: String(text), left: t.a * left + t.e, right: t.a * (left + width) + t.e,
                            canvasWidth: this.canvas.width });
        return fill.call(this, text, x, y, ...rest);
    };
}"""


def show_heads(page, cells: int) -> None:
    page.select_option(".attnw-view", "heads")
    page.wait_for_function(f"document.querySelector('.attnw-heads-canvas').dataset.cells === '{cells}'")


def test_controls_that_do_nothing_in_the_heads_view_are_disabled_and_say_why(browser, page_server, minilm_widget):
    page, errors = open_widget(browser, page_server, minilm_widget)
    fields = [".attnw-top-k", ".attnw-threshold", ".attnw-node-size", ".attnw-specials"]
    titles = {field: page.get_attribute(field, "title") for field in fields}
    assert all(page.locator(field).is_enabled() for field in fields)
    L, H = minilm_widget.n_layers, minilm_widget.n_heads
    show_heads(page, L * (H + 2))
    for field in fields:
        assert page.locator(field).is_disabled(), field
        title = page.get_attribute(field, "title")
        assert title.startswith("Does nothing in the view “all heads”: it applies to"), (field, title)
        # The label around the field says it too, and the field looks disabled.
        assert page.eval_on_selector(field, "f => f.closest('label').title") == title
        assert float(page.eval_on_selector(field, "f => getComputedStyle(f).opacity")) < 1
    assert "“one layer”, “whole model”" in page.get_attribute(".attnw-top-k", "title")
    page.locator(".attnw-heads-canvas").hover()  # off the controls, for the picture
    page.locator(".attnw-root").screenshot(path=str(SHOTS / "attnw-heads-controls.png"))
    download(page, ".attnw-save-png", SHOTS / "attnw-heads-export-raw.png")  # every head, for a look

    # The single-layer view: enabled again, with their own tooltips.
    page.select_option(".attnw-view", "layer")
    page.wait_for_function("document.querySelector('.attnw-heads').hidden")
    for field in fields:
        assert page.locator(field).is_enabled(), field
        assert page.get_attribute(field, "title") == titles[field]
        assert page.eval_on_selector(field, "f => f.closest('label').title") == ""
    # The whole-model view draws no dots sized by degree: only that one is off there.
    page.select_option(".attnw-view", "model")
    page.wait_for_function("document.querySelector('.attnw-canvas').dataset.view === 'model'")
    assert page.locator(".attnw-node-size").is_disabled()
    assert page.locator(".attnw-top-k").is_enabled() and page.locator(".attnw-threshold").is_enabled()
    assert errors == []
    page.close()


def test_the_heads_png_carries_its_caption_and_colour_key(browser, page_server, minilm_widget, tmp_path):
    page, errors = open_widget(browser, page_server, minilm_widget)
    page.select_option(".attnw-method", "rollout")
    page.wait_for_function("document.querySelector('.attnw-caption').textContent.startsWith('Attention rollout')")
    show_heads(page, minilm_widget.n_layers)  # rollout is not per head: one column, 104 px wide
    grid = page.eval_on_selector(".attnw-heads-canvas", "c => [c.clientWidth, c.clientHeight]")
    caption = page.inner_text(".attnw-caption")
    page.evaluate(RECORD_TEXT)
    path = tmp_path / "heads.png"
    download(page, ".attnw-save-png", path)
    (SHOTS / "attnw-heads-export.png").write_bytes(path.read_bytes())
    image = Image.open(io.BytesIO(path.read_bytes())).convert("RGB")
    # Twice the screen's pixels: the grid, and below it the caption and key.
    assert image.height > 2 * grid[1] + 2 * 16 * 2
    assert image.width >= 2 * grid[0]
    drawn = page.evaluate("window.drawn")
    texts = [d["text"] for d in drawn]
    lines = [t for t in texts if len(t) > 3 and t in caption]  # not the layer marks
    assert len(lines) >= 2 and " ".join(lines) == caption, (lines, caption)
    assert any(t.startswith("Attention rollout: the colour of each cell") for t in texts), texts
    assert "largest" in texts
    assert all(d["right"] <= d["canvasWidth"] + 1 for d in drawn), drawn
    # The colour bar: a row below the grid holding the heat table's dark and light ends.
    below = image.crop((0, 2 * grid[1] + 8, image.width, image.height))
    colours = {below.getpixel((x, y)) for x in range(0, below.width, 2) for y in range(0, below.height, 2)}
    assert len(colours) > 40  # a gradient, not text on a plain ground
    assert errors == []
    page.close()


def test_long_captions_wrap_to_the_width_of_the_png_and_the_svg(browser, page_server, minilm_widget, tmp_path):
    page, errors = open_widget(browser, page_server, minilm_widget)
    set_width(page, 360)
    # Dots sized by degree: the caption says what they show, and runs past the graph's width.
    page.select_option(".attnw-node-size", "in")
    page.wait_for_function("document.querySelector('.attnw-caption').textContent.includes('in-degree')")
    caption = page.inner_text(".attnw-caption")
    page.evaluate(RECORD_TEXT)
    png = tmp_path / "long.png"
    download(page, ".attnw-save-png", png)
    (SHOTS / "attnw-long-caption.png").write_bytes(png.read_bytes())
    drawn = page.evaluate("window.drawn")
    lines = [d for d in drawn if d["text"] and d["text"] in caption and len(d["text"]) > 3]
    assert len(lines) >= 2, (caption, [d["text"] for d in drawn])
    assert " ".join(d["text"] for d in lines) == caption
    for line in lines:
        assert line["right"] <= line["canvasWidth"] + 0.5, line
    # Nothing else is cut either: the legend's title widens a narrow graph's picture.
    assert all(d["right"] <= d["canvasWidth"] + 1 for d in drawn), drawn

    svg = tmp_path / "long.svg"
    download(page, ".attnw-save-svg", svg)
    measured = page.evaluate(
        """(text) => {
            const svg = new DOMParser().parseFromString(text, 'image/svg+xml').documentElement;
            document.body.append(document.importNode(svg, true));
            const shown = document.body.lastElementChild;
            const lines = [...shown.querySelectorAll('text.attnw-caption-line')];
            return { width: +shown.getAttribute('width'), lines: lines.map((t) =>
                ({ text: t.textContent, right: +t.getAttribute('x') + t.getComputedTextLength() })) };
        }""",
        svg.read_text(),
    )
    assert len(measured["lines"]) >= 2
    assert " ".join(line["text"] for line in measured["lines"]) == caption
    for line in measured["lines"]:
        assert line["right"] <= measured["width"] + 0.5, (line, measured["width"])
    assert errors == []
    page.close()
