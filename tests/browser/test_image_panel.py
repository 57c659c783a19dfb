"""The image panel of an image analysis in real Chromium: drawn from the data, linked to the graph both
ways, in the PNG and SVG exports and in the offline HTML file; the model is left as it was found."""

from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ET

import numpy as np
import pytest
import torch
from payload_fixtures import widget_state
from PIL import Image
from test_model_state import assert_unchanged, snapshot
from zoo import IMAGE_FAMILIES

from attn_widget import AttentionWidget

from .page import and_paint, download

pytestmark = pytest.mark.browser
SIZE, PATCH = 48, 8  # a 6×6 patch grid after [CLS]: 37 tokens


def picture(grey: bool = False) -> np.ndarray:
    """(48, 48, 3) uint8: a gradient with a red disc and a blue square, or plain grey."""
    if grey:
        return np.full((SIZE, SIZE, 3), 128, dtype=np.uint8)
    y, x = np.mgrid[0:SIZE, 0:SIZE] / SIZE
    image = np.stack([0.3 + 0.5 * x, 0.5 + 0.3 * y, 0.8 - 0.4 * x], -1)
    image[(x - 0.3) ** 2 + (y - 0.35) ** 2 < 0.04] = [0.9, 0.15, 0.1]
    image[(x > 0.6) & (x < 0.85) & (y > 0.55) & (y < 0.85)] = [0.1, 0.2, 0.8]
    return (image * 255).astype(np.uint8)


@pytest.fixture(scope="module")
def vit():
    family = IMAGE_FAMILIES[0]
    model = dataclasses.replace(family, options={**family.options, "image_size": SIZE, "patch_size": PATCH}).build()
    # Random weights attend almost uniformly (rows within 10% of 1/37): larger queries, keys and patch
    # embeddings give peaked attention, whose ranking a picture can show.
    with torch.no_grad():
        for name, param in model.named_parameters():
            if name.endswith(("q_proj.weight", "k_proj.weight", "patch_embeddings.projection.weight")):
                param.mul_(8)
    before = snapshot(model)
    yield model
    assert_unchanged(before, snapshot(model))  # after every test of this module


def open_state(browser, server, state: dict):
    server.set_state({**state, "controls": "all"})  # the download buttons shown (page.open_state does the same)
    page = browser.new_page(viewport={"width": 1000, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server.url)
    page.wait_for_function("window.ready === true")
    page.wait_for_selector("canvas.attnw-image-canvas")
    return page, errors


def patch_colours(page) -> np.ndarray:
    """(rows·cols, 3): the mean colour of each patch's central pixels on the image canvas."""
    return np.array(
        page.eval_on_selector(
            "canvas.attnw-image-canvas",
            """c => {
                const ctx = c.getContext('2d'), out = [];
                for (let r = 0; r < 6; r++) for (let k = 0; k < 6; k++) {
                    const x = Math.round((k + 0.5) * c.width / 6), y = Math.round((r + 0.5) * c.height / 6);
                    const d = ctx.getImageData(x - 2, y - 2, 4, 4).data, sum = [0, 0, 0];
                    for (let i = 0; i < d.length; i += 4) for (let j = 0; j < 3; j++) sum[j] += d[i + j] / 16;
                    out.push(sum);
                }
                return out;
            }""",
        )
    )


def lightness(colours: np.ndarray) -> np.ndarray:
    return colours @ np.array([0.2126, 0.7152, 0.0722])


def patch_point(page, patch: int) -> tuple[float, float]:
    box = page.locator("canvas.attnw-image-canvas").bounding_box()
    r, c = divmod(patch, 6)
    return box["x"] + (c + 0.5) * box["width"] / 6, box["y"] + (r + 0.5) * box["height"] / 6


def assert_heat_follows(colours: np.ndarray, row: np.ndarray) -> None:
    """On a grey picture the heat table alone sets each patch's colour, monotone in lightness."""
    light = lightness(colours)
    assert int(light.argmax()) == int(row.argmax()) and int(light.argmin()) == int(row.argmin())
    assert np.corrcoef(light, row)[0, 1] > 0.9


def test_the_overlay_is_the_cls_row_and_moves_with_the_hovered_node(browser, page_server, vit):
    widget = AttentionWidget(vit, picture(grey=True), method="raw", head=1)
    page, errors = open_state(browser, page_server, widget_state(widget))
    canvas = page.locator("canvas.attnw-image-canvas")
    assert page.locator(".attnw-image").is_visible() and canvas.get_attribute("data-token") == "0"
    raw = widget.analysis.raw(1)[0].numpy()  # layer 1, head 1: rows over [CLS] and the 36 patches
    assert_heat_follows(patch_colours(page), raw[0, 1:])
    assert "“[CLS]” at layer 1" in page.inner_text(".attnw-image-title")
    share = raw[0, 0] / raw[0].sum()
    assert f"holds {share * 100:.1f}% of this row" in page.inner_text(".attnw-image-note")
    assert page.inner_text(".attnw-image-scale").split() == ["0", f"{raw[0, 1:].max():.4f}"]

    # Hovering a node in the graph: its row, its patch outlined.
    token = widget.tokens.index("(3,4)")
    g = page.eval_on_selector(
        "canvas.attnw-canvas", "c => ({right: +c.dataset.rightX, top: +c.dataset.top, row: +c.dataset.rowHeight})"
    )
    box = page.locator("canvas.attnw-canvas").bounding_box()
    page.mouse.move(box["x"] + g["right"] + 20, box["y"] + g["top"] + (token + 0.5) * g["row"])
    page.wait_for_function(f"document.querySelector('.attnw-image-canvas').dataset.token === '{token}'")
    assert canvas.get_attribute("data-outline") == str(token - 1)
    # The outline is at the patch's edge, not its centre. Its own weight may be above the scale (the note says so).
    own, row = token - 1, raw[token, 1:]
    keep = np.arange(36) != own
    colours = patch_colours(page)
    assert_heat_follows(colours[keep], row[keep])
    assert (row[own] > row[keep].max()) == ("Its own patch" in page.inner_text(".attnw-image-note"))
    assert lightness(colours)[own] >= lightness(colours[keep]).max() - 1 or row[own] < row[keep].max()
    assert errors == []
    page.close()


def box(page, selector: str) -> dict:
    return page.locator(selector).bounding_box()


def test_hovering_and_clicking_a_patch_hovers_and_pins_its_node(browser, page_server, vit, artifacts):
    widget = AttentionWidget(vit, picture(), method="rollout")
    page, errors = open_state(browser, page_server, widget_state(widget))
    patch = 2 * 6 + 1  # (2,1), on the red disc
    token = widget.tokens.index("(2,1)")
    page.mouse.move(*patch_point(page, patch))
    label = page.locator(f'.attnw-labels-right .attnw-token[data-index="{token}"]')
    page.wait_for_function(f"document.querySelector('.attnw-image-canvas').dataset.outline === '{patch}'")
    assert "attnw-hovered" in label.get_attribute("class")  # the graph's own hover mark
    assert "“(2,1)”" in page.inner_text(".attnw-tooltip")
    # The value list is docked under the image, covering neither the image nor the plot.
    tip, image, plot = (box(page, s) for s in (".attnw-tooltip", ".attnw-image-canvas", ".attnw-plot"))
    assert tip["y"] >= image["y"] + image["height"] and tip["x"] >= plot["x"] + plot["width"]
    and_paint(page, lambda: page.mouse.click(*patch_point(page, patch)))
    assert page.evaluate("window.model.get('selected')") == {"side": "target", "index": token}
    and_paint(page, lambda: page.mouse.move(5, 5))  # away: the pin stays
    assert page.get_attribute("canvas.attnw-image-canvas", "data-pinned") == str(patch)
    assert page.get_attribute("canvas.attnw-image-canvas", "data-token") == str(token)
    assert "attnw-pinned" in label.get_attribute("class")
    # The whole-model view keeps the panel: the pin carries over to the layer's column.
    page.select_option(".attnw-view", "model")
    page.wait_for_function("document.querySelector('.attnw-canvas').dataset.view === 'model'")
    assert page.locator("canvas.attnw-image-canvas").is_visible()
    assert page.get_attribute("canvas.attnw-image-canvas", "data-token") == str(token)
    assert page.get_attribute("canvas.attnw-image-canvas", "data-layer") == "1"
    tip, image = box(page, ".attnw-tooltip"), box(page, ".attnw-image-canvas")
    assert tip["y"] >= image["y"] + image["height"], "the pinned list stays under the image"
    page.locator(".attnw-root").screenshot(path=str(artifacts / "image-panel-pinned-wide.png"))
    # A narrow widget: the image goes under the graph and the list under the plot, above both.
    page.evaluate("document.body.style.width = '480px'")
    page.wait_for_function("document.querySelector('.attnw-tooltip').dataset.dock === 'below'")
    tip, image, plot = (box(page, s) for s in (".attnw-tooltip", ".attnw-image-canvas", ".attnw-plot"))
    assert plot["y"] + plot["height"] <= tip["y"] and tip["y"] + tip["height"] <= image["y"]
    page.locator(".attnw-root").screenshot(path=str(artifacts / "image-panel-pinned-narrow.png"))
    assert errors == []
    page.close()


def test_the_png_and_svg_exports_include_the_image_panel(browser, page_server, vit, artifacts):
    widget = AttentionWidget(vit, picture(), method="rollout")
    page, errors = open_state(browser, page_server, widget_state(widget))
    graph_width = page.eval_on_selector("canvas.attnw-canvas", "c => c.clientWidth")
    panel_width = page.eval_on_selector(".attnw-image", "e => e.clientWidth")
    download(page, ".attnw-save-png", artifacts / "image-panel-export.png")
    png = Image.open(artifacts / "image-panel-export.png").convert("RGB")
    assert png.width == 2 * (graph_width + 16 + panel_width)  # twice the screen resolution, panel included
    panel = np.asarray(png)[:, 2 * (graph_width + 16) :]
    assert (np.abs(panel.astype(int) - 255).sum(-1) > 30).mean() > 0.3  # the picture, not blank
    assert (panel[..., 0] > 150).any() and (panel[..., 2] > 100).any()  # the image's colours show
    with page.expect_download() as info:
        page.click(".attnw-save-svg")
    root = ET.parse(info.value.path()).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    (image,) = root.iter(f"{ns}image")
    assert image.get("href").startswith("data:image/png;base64,") and float(image.get("x")) == graph_width + 16
    ramps = {gradient.get("id") for gradient in root.iter(f"{ns}linearGradient")}
    assert ramps == {"attnw-heat", "attnw-legend-ramp"}, "the image's colour scale beside the edges' one"
    texts = [t.text for t in root.iter(f"{ns}text")]
    assert "“[CLS]” at layer 1" in texts and "0" in texts
    assert errors == []
    page.close()


def test_the_exported_file_draws_the_panel_offline(browser, vit, tmp_path, artifacts):
    widget = AttentionWidget(vit, picture(), method="rollout", layer=2)
    path = tmp_path / "image.html"
    widget.to_html(path)
    page = browser.new_page(viewport={"width": 1000, "height": 900})
    attempts, errors = [], []
    page.route(
        "**/*",
        lambda route: (
            route.continue_()
            if route.request.url.startswith(("file:", "blob:", "data:"))
            else (attempts.append(route.request.url), route.abort())
        ),
    )
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(path.as_uri())
    page.wait_for_function("window.attnWidget !== undefined")
    assert page.locator("canvas.attnw-image-canvas").is_visible()
    colours = patch_colours(page)
    assert colours.std(axis=0).sum() > 10  # the picture's disc and square, not one colour
    page.locator(".attnw-root").screenshot(path=str(artifacts / "image-panel-default.png"))
    page.mouse.click(*patch_point(page, 2 * 6 + 1))
    page.mouse.move(5, 5)
    page.wait_for_function("document.querySelector('.attnw-image-canvas').dataset.pinned === '13'")
    page.locator(".attnw-root").screenshot(path=str(artifacts / "image-panel-pinned.png"))
    assert attempts == [] and errors == []
    page.close()


def canvas_rgb(page) -> np.ndarray:
    """(height, width, 3) pixels of the image canvas."""
    width, height, data = page.eval_on_selector(
        "canvas.attnw-image-canvas",
        "c => [c.width, c.height, Array.from(c.getContext('2d').getImageData(0, 0, c.width, c.height).data)]",
    )
    return np.array(data, dtype=float).reshape(height, width, 4)[..., :3]


def test_the_overlay_keeps_the_shipped_digit_visible(browser, page_server, artifacts):
    """The digits ViT: the heat over an 8×8 digit is as light as its ink; the digit's outline stays drawn over it."""
    from attn_widget.demo import digits_vit

    model, images, labels = digits_vit()
    widget = AttentionWidget(model, images[6], method="rollout")
    assert labels[6] == 3
    page, errors = open_state(browser, page_server, widget_state(widget))
    size = widget.image["size"]
    rgb = np.frombuffer(widget.image["rgb"], dtype=np.uint8).reshape(*size, 3).astype(float)
    light = lightness(rgb)
    ink = light > (light.min() + light.max()) / 2
    # Image pixels on the ink's edge: a neighbour on the other side (the picture's own edge is no outline).
    padded = np.pad(ink, 1, mode="edge")
    edge = np.zeros_like(ink)
    for dy, dx in ((0, 1), (2, 1), (1, 0), (1, 2)):
        edge |= padded[dy : dy + size[0], dx : dx + size[1]] != ink
    drawn = canvas_rgb(page)
    outline = (drawn[..., 0] < 90) & (drawn[..., 1] > 190) & (drawn[..., 2] > 190)  # image_draw.js CONTOUR_COLOR
    assert outline.sum() > 300, "the digit's outline is drawn"
    # Every outline pixel lies on the ink's edge, and the edge is outlined nearly all round.
    ys, xs = np.nonzero(outline)
    scale = drawn.shape[0] / size[0]
    near_edge = np.zeros_like(ink)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            near_edge |= np.roll(np.roll(edge, dy, 0), dx, 1)
    on_edge = near_edge[(ys / scale).astype(int), (xs / scale).astype(int)]
    assert on_edge.mean() > 0.95
    outlined = np.zeros_like(ink)
    outlined[(ys / scale).astype(int), (xs / scale).astype(int)] = True
    grown = np.zeros_like(ink)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            grown |= np.roll(np.roll(outlined, dy, 0), dx, 1)
    assert grown[edge].mean() > 0.9, "the whole digit outlined, not a part"
    page.locator(".attnw-image").screenshot(path=str(artifacts / "image-panel-digit.png"))
    # A signed method's heat (diverging) keeps the outline too.
    page.evaluate("() => window.model.set('method', 'effective')")
    page.wait_for_function("document.querySelector('.attnw-image-scale-text').textContent.startsWith('Effective')")
    drawn = canvas_rgb(page)
    outline = (drawn[..., 0] < 90) & (drawn[..., 1] > 190) & (drawn[..., 2] > 190)
    assert outline.sum() > 300
    page.locator(".attnw-image").screenshot(path=str(artifacts / "image-panel-digit-effective.png"))
    assert errors == []
    page.close()
