"""The built bundle in real Chromium, on a static page with an in-page model (fast)."""

from __future__ import annotations

import struct
import xml.etree.ElementTree as ET

import numpy as np
import pytest
import torch
from payload_fixtures import HOSTILE_TOKENS, synthetic_widget, widget_state

from attn_widget import AttentionWidget, payload

from .page import (
    IDLE_WORK,
    and_paint,
    download,
    geometry,
    idle_asked,
    max_alpha,
    max_alpha_of,
    open_state,
    open_widget,
    painted,
    row_point,
    wait_idle_work,
)

pytestmark = pytest.mark.browser


def test_edges_are_drawn_where_the_data_puts_them(browser, page_server, minilm_widget, artifacts):
    page, errors = open_widget(browser, page_server, minilm_widget)
    g = geometry(page)
    attention = minilm_widget.analysis.raw()[0].clone()  # layer 1, head mean
    attention.fill_diagonal_(0)
    for flat in torch.topk(attention.flatten(), 3).indices.tolist():
        i, j = divmod(flat, attention.shape[0])
        mid_y = g["top"] + ((i + 0.5) + (j + 0.5)) / 2 * g["row"]
        assert max_alpha(page, (g["left"] + g["right"]) / 2, mid_y) > 0, f"edge {j}->{i} missing"
    # Nothing is drawn in the header band above the first row.
    assert max_alpha(page, (g["left"] + g["right"]) / 2, g["top"] * 0.4, radius=2) == 0
    page.locator(".attnw-root").screenshot(path=str(artifacts / "widget-harness.png"))
    assert errors == []
    page.close()


def canvas_png(page) -> str:
    return page.eval_on_selector("canvas.attnw-canvas", "c => c.toDataURL()")


def test_controls_change_the_picture(browser, page_server, minilm_widget):
    page, errors = open_widget(browser, page_server, minilm_widget)
    first = canvas_png(page)
    slider = page.locator(".attnw-layer")
    slider.focus()
    and_paint(page, lambda: page.keyboard.press("ArrowRight"))
    assert page.evaluate("window.model.get('layer')") == 2
    second = canvas_png(page)
    assert second != first
    assert "layer 2 of 6" in page.inner_text(".attnw-caption")

    and_paint(page, lambda: page.select_option(".attnw-head", "5"))
    third = canvas_png(page)
    assert third != second and "head 5" in page.inner_text(".attnw-caption")

    and_paint(page, lambda: page.select_option(".attnw-method", "rollout"))
    assert canvas_png(page) != third
    assert page.inner_text(".attnw-title-left") == "Input (layer 0)"
    assert page.is_disabled(".attnw-head")
    saved = page.evaluate("window.model.saved")
    assert {k: saved[-1][k] for k in ("layer", "head", "method")} == {"layer": 2, "head": 5, "method": "rollout"}
    assert errors == []
    page.close()


def test_hover_highlights_and_shows_exact_values(browser, page_server, minilm_widget):
    page, errors = open_widget(browser, page_server, minilm_widget)
    g = geometry(page)
    tokens = minilm_widget.tokens
    i = tokens.index("it")
    box = page.locator("canvas.attnw-canvas").bounding_box()
    page.mouse.move(box["x"] + g["right"] + 20, box["y"] + g["top"] + (i + 0.5) * g["row"])
    tooltip = page.locator(".attnw-tooltip")
    tooltip.wait_for(state="visible")
    assert "“it”" in tooltip.inner_text()
    row = minilm_widget.analysis.raw()[0, i]
    strongest = int(row.argmax())
    first = page.locator(".attnw-tooltip-list tr").first
    assert tokens[strongest] in first.inner_text()
    shown = float(page.locator(".attnw-tooltip-value").first.inner_text())
    assert shown == pytest.approx(float(row[strongest]), abs=1e-4)
    assert page.locator(".attnw-labels-right .attnw-hovered").inner_text() == "it"
    # The token's edges go on the overlay canvas; the edge canvas turns faint grey, not redrawn.
    assert page.get_attribute(".attnw-canvas", "data-edges-from") == "unchanged"
    assert page.eval_on_selector(".attnw-canvas", "c => getComputedStyle(c).opacity") == "0.12"
    assert page.eval_on_selector(".attnw-canvas", "c => getComputedStyle(c).filter") == "grayscale(1)"
    assert max_alpha_of(page, "canvas.attnw-overlay", g["right"] - 2, g["top"] + (i + 0.5) * g["row"]) > 0
    page.mouse.move(box["x"] + 5, box["y"] - 40)
    tooltip.wait_for(state="hidden")
    assert page.eval_on_selector(".attnw-canvas", "c => getComputedStyle(c).opacity") == "1"
    assert page.eval_on_selector(".attnw-canvas", "c => getComputedStyle(c).filter") == "none"
    assert errors == []
    page.close()


# Token text a tokenizer can produce that breaks pictures and pages when shown as it is.
UNRULY_TOKENS = [
    "\x00\x01\x1b[31m", "\x7f\x85\x9f", "\t\r\n", "\ud800", "abc\u202edef #9", "zero\u200bwidth", "x" * 300,
    "\U0001f44d\U0001f3fd\U0001f600\U0001f468\u200d\U0001f469\u200d\U0001f467",
    "Z\u0351\u0352\u0353\u0354\u0355\u0356\u0357",
    "\u05e9\u05dc\u05d5\u05dd \u05e2\u05d5\u05dc\u05dd",
]  # fmt: skip


@pytest.mark.parametrize("source", ["kernel", "page"])
def test_token_text_is_never_parsed_as_html(browser, page_server, artifacts, tmp_path, source):
    """Hostile token text stays text, on one line of its own row, and the SVG download stays valid XML.

    kernel: the widget's own state (display strings); page: the raw tokens reach the page anyway.
    """
    from attn_widget.text import display_token

    tokens = HOSTILE_TOKENS + UNRULY_TOKENS
    widget = synthetic_widget(tokens)
    state = widget_state(widget)
    if source == "page":
        state["tokens"] = tokens
    page, errors = open_state(browser, page_server, state)
    labels = page.locator(".attnw-labels-left .attnw-token").all_text_contents()
    assert labels == [display_token(token) for token in tokens]
    assert labels[1] == HOSTILE_TOKENS[1] and labels[2] == HOSTILE_TOKENS[2] and labels[6] == "\\x00\\x01\\x1b[31m"
    assert page.locator(".attnw-root img, .attnw-root script").count() == 0
    g = geometry(page)
    box = page.locator("canvas.attnw-canvas").bounding_box()
    # Every label keeps to one line of its own row, beside the plot, whatever its text.
    for side in ("left", "right"):
        boxes = page.eval_on_selector_all(
            f".attnw-labels-{side} .attnw-token",
            "labels => labels.map(l => { const r = l.getBoundingClientRect(); "
            "return [r.left, r.right, r.top, r.height, l.scrollHeight]; })",
        )
        for i, (left, right, top, height, content_height) in enumerate(boxes):
            assert abs(top - (box["y"] + g["top"] + i * g["row"])) < 0.5 and abs(height - g["row"]) < 0.5, (side, i)
            assert content_height <= height + 0.5, f"label {i} wraps onto a second line"
            if side == "left":
                assert right <= box["x"] + g["left"] + 0.5, f"label {i} runs into the plot"
            else:
                assert left >= box["x"] + g["right"] - 0.5 and right <= box["x"] + box["width"] + 0.5, f"label {i}"
    right_column = box["x"] + g["right"] + 20
    page.mouse.move(right_column, box["y"] + g["top"] + 5.5 * g["row"])
    page.locator(".attnw-tooltip").wait_for(state="visible")
    assert "<img src=x onerror=alert(1)>" in page.inner_text(".attnw-tooltip")
    assert page.locator(".attnw-root img").count() == 0
    # Right-to-left text keeps to itself: what follows a Hebrew token in the tooltip stays on its right.
    hebrew = len(tokens) - 1
    page.mouse.move(right_column, box["y"] + g["top"] + (hebrew + 0.5) * g["row"])
    page.wait_for_function(f"document.querySelector('.attnw-tooltip-title').textContent.includes('#{hebrew} ·')")
    token_right, next_left = page.eval_on_selector(
        ".attnw-tooltip-title .attnw-tooltip-text",
        """bdi => { const after = document.createRange(); after.selectNodeContents(bdi.nextSibling);
                    return [bdi.getBoundingClientRect().right, after.getBoundingClientRect().left]; }""",
    )
    assert next_left >= token_right - 0.5
    # A very long token is cut in the value list, which stays inside the widget, off the plot.
    page.mouse.move(right_column, box["y"] + g["top"] + (tokens.index("x" * 300) + 0.5) * g["row"])
    page.wait_for_function("document.querySelector('.attnw-tooltip-title').textContent.includes('#12 ·')")
    assert "x" * 47 + "…” #12" in page.inner_text(".attnw-tooltip-title")
    tooltip = page.locator(".attnw-tooltip").bounding_box()
    root = page.locator(".attnw-root").bounding_box()
    assert (
        box["x"] + box["width"] <= tooltip["x"] and tooltip["x"] + tooltip["width"] <= root["x"] + root["width"] + 0.5
    )
    page.locator(".attnw-root").screenshot(path=str(artifacts / f"widget-hostile-tokens-{source}.png"))
    download(page, ".attnw-save-svg", tmp_path / "hostile.svg")
    root = ET.parse(tmp_path / "hostile.svg").getroot()  # an XML 1.0 parser: control characters would fail it
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert texts.count(display_token("\x00\x01\x1b[31m")) == 2 and texts.count("\ufffd") == 2  # both columns
    assert errors == []  # no alert() dialog, no script error
    page.close()


def test_switching_to_a_dark_theme_repaints_with_the_dark_table(browser, page_server, minilm_widget, artifacts):
    page, errors = open_widget(browser, page_server, minilm_widget)
    light = canvas_png(page)
    light_mid = page.get_attribute(".attnw-legend", "data-mid")
    page.evaluate("document.body.classList.add('dark')")  # as a host's theme switch does
    page.wait_for_function(
        "mid => document.querySelector('.attnw-legend').dataset.mid !== mid", arg=light_mid, timeout=5000
    )
    assert canvas_png(page) != light
    page.locator(".attnw-root").screenshot(path=str(artifacts / "widget-harness-dark.png"))
    assert errors == []
    page.close()


DECODER_TEXT = (
    "The for statement is used to iterate over the elements of a sequence, such as a string, tuple or list, "
    "or other iterable object, and the else clause runs when the loop ends."
)  # 40 tokens: over 32 (the head dimension), so effective attention differs from attention
ENCODER_TEXT = (
    "The committee said on Tuesday that the new bridge over the river would open next spring, after years "
    "of delays caused by funding disputes, flooding and a shortage of steel."
)  # 35 tokens


@pytest.mark.parametrize("which", ["decoder", "minilm"])
def test_every_method_renders_without_errors(browser, page_server, minilm, which, artifacts):
    """A real trained decoder and a real pretrained encoder, in every method the view offers."""
    from attn_widget.demo import pydoc_gpt2

    model, tokenizer = pydoc_gpt2() if which == "decoder" else minilm
    # Last layer: at layer 1 rollout and flow coincide (flow = 0.5·A + 0.5·I there).
    widget = AttentionWidget(model, DECODER_TEXT if which == "decoder" else ENCODER_TEXT, tokenizer)
    widget.layer = widget.n_layers
    assert 32 < len(widget.tokens) <= 40  # effective attention differs; flow is computed up front
    page, errors = open_widget(browser, page_server, widget)
    offered = page.eval_on_selector_all(".attnw-method option", "options => options.map(o => o.value)")
    groups = list(dict.fromkeys(m["group"] for m in widget.methods))  # the menu's headings, in order
    assert offered == [m["id"] for g in groups for m in widget.methods if m["group"] == g]
    assert {"effective", "effective_rollout", "effective_flow", "flow", "alti", "globenc_rollout"} <= set(offered)
    assert ("flow_rf" in offered) == (which == "decoder")
    labels = {m["id"]: m["label"] for m in widget.methods}
    pictures = set()
    drawn = [method for method in offered if len(widget.ready[method]) == widget.n_layers]
    assert set(offered) - set(drawn) == {"hidden_attribution"}  # n·d > 1024 here: computed on request
    for method in drawn:
        page.select_option(".attnw-method", method)
        page.wait_for_function(
            "label => document.querySelector('.attnw-caption').textContent.startsWith(label + ' ·')", arg=labels[method]
        )
        assert int(page.get_attribute(".attnw-canvas", "data-edges")) > 0, method
        pictures.add(canvas_png(page))
        # The legend's maximum is the largest |value| of the slice drawn: the right data is on screen.
        stack = payload.decode(getattr(widget, f"data_{method}"))["matrices"]
        last = widget.n_layers - 1
        shown = np.abs(stack[last, widget.n_heads] if stack.ndim == 4 else stack[last])
        # ... less a row whose only edge is to itself (a decoder's first token: 1), left out of the scale.
        self_only = [r for r in range(len(shown)) if (shown[r] > 0).sum() == 1 and shown[r, r] > 0]
        expected = np.delete(shown, self_only, axis=0).max()
        assert float(page.get_attribute(".attnw-legend", "data-max")) == pytest.approx(expected, rel=1e-3), method
        if method == "effective":
            assert page.inner_text(".attnw-legend-label").startswith("-")  # signed scale
            page.locator(".attnw-root").screenshot(path=str(artifacts / f"widget-effective-{which}.png"))
    # Flow on clipped effective attention can look like flow at this scale (24 colour steps), so
    # pictures are only required to differ from method to method in most cases; in a pre-LN decoder
    # GlobEnc and its rollout are norm_residual's (docs/methods.md §7.0), as their notes say.
    same = 2 if which == "decoder" else 0
    assert len(pictures) >= len(drawn) - 1 - same
    assert errors == []
    page.close()


def test_token_scores_beside_the_graph(browser, page_server, artifacts):
    """Integrated gradients of the shipped decoder's next-token prediction, as bars by the tokens."""
    from attn_widget.demo import pydoc_gpt2

    model, tokenizer = pydoc_gpt2()
    widget = AttentionWidget(model, "The for statement is used to iterate over the elements of a list.", tokenizer)
    widget.method, widget.layer, widget.attribution = "flow_rf", 4, "integrated_gradients"
    widget.wait()
    assert widget.attribution_data["status"] == "done"
    state = widget_state(widget)
    # Integrated gradients may stop short of its completeness goal and say so with the scores.
    warning = "Stopped after 800 steps: the scores miss completeness by 7.3% (goal: 5%)."
    state["attribution_data"] = {**state["attribution_data"], "warning": warning}
    page, errors = open_state(browser, page_server, state)
    bars = page.locator(".attnw-bar")
    assert bars.count() == len(widget.tokens)
    widths = [
        float(w)
        for w in page.eval_on_selector_all(".attnw-bar", "bars => bars.map(b => b.getBoundingClientRect().width)")
    ]
    scores = payload.decode(widget.attribution_data["values"])["matrices"][0, 0]
    strongest = int(np.abs(scores).argmax())
    assert widths[strongest] == max(widths) and max(widths) > 20
    assert page.inner_text(".attnw-strip-status").startswith("Bars: integrated gradients of logit of")
    shown = page.locator(".attnw-strip-warning")
    assert shown.is_visible() and shown.inner_text() == f"⚠ {warning}"
    plot = page.locator(".attnw-plot").bounding_box()
    assert shown.bounding_box()["y"] >= plot["y"] + plot["height"], "below the plot, not over it"
    target_row = page.locator(".attnw-labels-right .attnw-target-row")
    assert target_row.get_attribute("data-index") == str(len(widget.tokens) - 1)
    page.locator(".attnw-root").screenshot(path=str(artifacts / "widget-token-scores.png"))
    assert errors == []
    page.close()


def test_png_and_svg_downloads(browser, page_server, minilm_widget, tmp_path):
    page, errors = open_widget(browser, page_server, minilm_widget)
    edges = int(page.get_attribute(".attnw-canvas", "data-edges"))
    with page.expect_download() as info:
        page.click(".attnw-save-svg")
    assert info.value.suggested_filename == "attention-raw-layer1.svg"
    svg_path = tmp_path / "view.svg"
    info.value.save_as(svg_path)
    root = ET.parse(svg_path).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == f"{ns}svg"
    assert len(root.findall(f".//{ns}path")) == edges
    assert "animal" in [t.text for t in root.iter(f"{ns}text")]
    with page.expect_download() as info:
        page.click(".attnw-save-png")
    png_path = tmp_path / "view.png"
    info.value.save_as(png_path)
    data = png_path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    canvas_width = page.eval_on_selector(".attnw-canvas", "c => c.clientWidth")
    assert width == 2 * canvas_width and height > 200  # twice the screen resolution
    assert errors == []
    page.close()


def test_whole_model_view(browser, page_server, minilm_widget, artifacts, tmp_path):
    page, errors = open_widget(browser, page_server, minilm_widget)
    page.select_option(".attnw-view", "model")
    page.wait_for_function("document.querySelector('.attnw-canvas').dataset.view === 'model'")
    columns = page.eval_on_selector(".attnw-canvas", "c => JSON.parse(c.dataset.columns)")
    assert len(columns) == 7  # input and 6 layers
    n = len(minilm_widget.tokens)
    assert int(page.get_attribute(".attnw-canvas", "data-edges")) == 6 * n * n
    it = minilm_widget.tokens.index("it")
    page.mouse.click(*row_point(page, columns[6], it))
    page.wait_for_function("window.model.get('selected').layer === 6")
    assert page.evaluate("window.model.get('selected')") == {"layer": 6, "index": it}
    page.select_option(".attnw-method", "rollout")
    page.wait_for_function("document.querySelector('.attnw-caption').textContent.startsWith('Attention rollout')")
    page.locator(".attnw-root").screenshot(path=str(artifacts / "widget-model-view.png"))
    # The download is this view: every layer's edges (the traced ones included), a dot per node.
    with page.expect_download() as info:
        page.click(".attnw-save-svg")
    assert info.value.suggested_filename == "attention-rollout-model.svg"
    info.value.save_as(tmp_path / "model.svg")
    root = ET.parse(tmp_path / "model.svg").getroot()
    ns = "{http://www.w3.org/2000/svg}"
    assert len(root.findall(f".//{ns}path")) == int(page.get_attribute(".attnw-canvas", "data-edges"))
    assert len(root.findall(f".//{ns}circle")) == 7 * n
    starts = {path.get("d").split(" ")[0] for path in root.iter(f"{ns}path")}
    assert len(starts) == 6, "edges start at each of the six columns before the last"
    assert errors == []
    page.close()


def test_token_window_on_a_long_input(browser, page_server, minilm, artifacts):
    model, tokenizer = minilm
    text = " ".join(["The committee said that the new bridge over the river would open next spring."] * 8)
    widget = AttentionWidget(model, text, tokenizer, method="rollout", layer=6)
    n = len(widget.tokens)
    assert n > 120
    page, errors = open_widget(browser, page_server, widget)
    # Opens on as many rows as have legible labels (test_long_input.py), each labelled.
    assert 20 <= page.locator(".attnw-labels-left .attnw-token").count() < n
    page.select_option(".attnw-window-size", "32")
    page.fill(".attnw-window-start", "60")
    page.dispatch_event(".attnw-window-start", "change")
    page.wait_for_function("JSON.stringify(window.model.get('window')) === '[60,32]'")
    # The window of size 32 at 0 also has 32 labels: wait for the repaint at 60.
    page.wait_for_function("document.querySelector('.attnw-labels-left .attnw-token')?.dataset.index === '60'")
    indices = page.eval_on_selector_all(
        ".attnw-labels-left .attnw-token", "labels => labels.map(l => +l.dataset.index)"
    )
    assert indices == list(range(60, 92))
    page.mouse.move(*row_point(page, geometry(page)["right"] + 20, 70))
    page.locator(".attnw-tooltip").wait_for(state="visible")
    assert "#70 ·" in page.inner_text(".attnw-tooltip-title")
    page.locator(".attnw-root").screenshot(path=str(artifacts / "widget-token-window.png"))
    assert errors == []
    page.close()


def test_edge_controls_pin_and_unpin(browser, page_server, minilm_widget):
    """The remaining controls in real Chromium: edges per token, min weight, special tokens,
    degree dots, and pinning / unpinning a token with the mouse."""
    page, errors = open_widget(browser, page_server, minilm_widget)
    n = len(minilm_widget.tokens)

    def edges() -> int:
        return int(page.get_attribute(".attnw-canvas", "data-edges"))

    def change(selector: str, value: str) -> None:
        if selector.endswith(("top-k", "threshold")):
            and_paint(page, lambda: (page.fill(selector, value), page.dispatch_event(selector, "change")))
        else:
            and_paint(page, lambda: page.select_option(selector, value))

    assert edges() == n * n
    change(".attnw-top-k", "2")
    assert edges() == 2 * n
    assert "% of the attention" in page.inner_text(".attnw-legend")
    change(".attnw-top-k", "0")
    change(".attnw-threshold", "0.1")
    weights = minilm_widget.analysis.raw()[0]
    assert edges() == int((weights >= 0.1).sum())
    change(".attnw-threshold", "0")
    change(".attnw-specials", "hide")
    specials = sum(minilm_widget.special)
    assert edges() == (n - specials) ** 2
    change(".attnw-specials", "show")
    change(".attnw-node-size", "out")
    assert "out-degree of the left column" in page.inner_text(".attnw-caption")

    point = row_point(page, geometry(page)["right"] + 20, 3)
    and_paint(page, lambda: page.mouse.click(*point))
    assert page.evaluate("window.model.get('selected').index") == 3
    box = page.locator("canvas.attnw-canvas").bounding_box()
    and_paint(page, lambda: page.mouse.move(box["x"] + 5, box["y"] - 30))  # leave: the pinned token keeps its tooltip
    assert page.inner_text(".attnw-tooltip-title").startswith("Pinned ·")
    page.mouse.click(*point)
    page.wait_for_function("Object.keys(window.model.get('selected')).length === 0")
    assert errors == []
    page.close()


def test_a_picture_drawn_ahead_is_the_picture_drawn_on_demand(browser, page_server, minilm_widget):
    """Stepping to the next layer, and switching to the whole-model view, show copies drawn while
    the page was idle (requestIdleCallback in real Chromium, a few strokes per idle period); their
    pixels must equal those of the same views drawn when asked for."""
    page, errors = open_widget(browser, page_server, minilm_widget, track_idle=True)
    wait_idle_work(page)  # idle: layer 2, the max head and the whole model are drawn ahead
    page.locator(".attnw-layer").focus()
    asked = idle_asked(page)
    and_paint(page, lambda: page.keyboard.press("ArrowRight"))
    assert page.evaluate("window.model.get('layer')") == 2
    assert page.get_attribute(".attnw-canvas", "data-edges-from") == "copy"
    ahead = {"layer": canvas_png(page)}
    wait_idle_work(page, asked)  # idle: the whole model is drawn ahead again (it was dropped on the step)
    and_paint(page, lambda: page.select_option(".attnw-view", "model"))
    assert page.get_attribute(".attnw-canvas", "data-view") == "model"
    assert page.get_attribute(".attnw-canvas", "data-edges-from") == "copy"
    ahead["model"] = canvas_png(page)
    page.close()

    for view, state in (("layer", {"layer": 2}), ("model", {"layer": 2, "view": "model"})):
        widget = AttentionWidget(analysis=minilm_widget.analysis, **state)  # opens there: drawn on demand
        page, more_errors = open_widget(browser, page_server, widget)
        assert page.get_attribute(".attnw-canvas", "data-edges-from") in ("strokes", "unchanged")  # not a copy
        assert canvas_png(page) == ahead[view], view
        errors += more_errors
        page.close()
    assert errors == []


def test_a_widget_out_of_view_draws_nothing_ahead(browser, page_server, minilm_widget):
    """A notebook may hold many widgets: only one in view draws pictures ahead while idle
    (Chromium's IntersectionObserver says which)."""
    page_server.set_state(widget_state(minilm_widget))
    page = browser.new_page(viewport={"width": 800, "height": 900})
    page.add_init_script(IDLE_WORK)
    # Out of view from the first paint: parsing is done ("interactive") before module scripts run.
    page.add_init_script("""document.addEventListener('readystatechange', () => {
        if (document.readyState === 'interactive') document.getElementById('widget').style.marginTop = '3000px';
    })""")
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(page_server.url)
    page.wait_for_function("window.ready === true")

    def edges_at_layer(layer: int) -> str:
        """Set the layer as the kernel would; how the next picture got its edges."""
        and_paint(
            page, lambda: page.evaluate("n => { window.model.set('layer', n); window.model.save_changes(); }", layer)
        )
        return page.evaluate("document.querySelector('.attnw-canvas').dataset.edgesFrom")

    wait_idle_work(page)  # idle, but out of view: nothing is drawn ahead
    assert edges_at_layer(2) == "strokes"
    asked = idle_asked(page)
    page.evaluate("document.getElementById('widget').scrollIntoView()")
    wait_idle_work(page, asked)  # idle and in view: layers 1 and 3 are drawn ahead
    assert edges_at_layer(3) == "copy"
    assert errors == []
    page.close()


def test_every_registered_method_draws_in_both_views(browser, page_server):
    """Whatever the registry holds (a toy method registered here too) draws a picture, with no problem message."""
    from attn_widget.methods import registry

    def doubled(analysis, _settings):
        return analysis.rollout(receptive_field="none") * 2

    toy = registry.register("doubled", "Doubled rollout", "A toy cumulative method.", doubled, cumulative=True)
    with registry.registered(toy):
        widget = synthetic_widget(["a", "b", "c", "d", "e", "f"])
    ids = [m["id"] for m in widget.methods]
    assert ids == [m.id for m in registry.applicable(widget.analysis)] + ["doubled"]
    page, errors = open_widget(browser, page_server, widget)

    def choose(selector: str, value: str) -> None:
        """Select a control value and wait for the repaint (or a problem message) it causes."""
        if page.input_value(selector) == value:
            return
        before = painted(page)
        page.select_option(selector, value)
        page.wait_for_function(
            "before => document.querySelector('.attnw-root').dataset.paintEnd !== before"
            " || !document.querySelector('.attnw-problem').hidden",
            arg=before,
        )

    for view in ("layer", "model"):
        choose(".attnw-view", view)
        for method in ids:
            choose(".attnw-method", method)
            assert page.locator(".attnw-problem").is_hidden(), (view, method, page.inner_text(".attnw-problem"))
            assert page.get_attribute(".attnw-canvas", "data-view") == view
            assert int(page.get_attribute(".attnw-canvas", "data-edges")) > 0, (view, method)
    assert errors == []
    page.close()
