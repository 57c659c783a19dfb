"""The exported HTML file: self-contained, interactive, offline, and token text stays text."""

from __future__ import annotations

import pytest
from payload_fixtures import HOSTILE_TOKENS, synthetic_widget

from attn_widget import AttentionWidget

pytestmark = pytest.mark.browser


def open_offline(browser, path):
    """Open a file with every network request blocked, recording any attempt."""
    page = browser.new_page(viewport={"width": 900, "height": 900})
    attempts, errors = [], []

    def block(route):
        url = route.request.url
        if url.startswith(("file:", "blob:", "data:")):
            route.continue_()
        else:
            attempts.append(url)
            route.abort()

    page.route("**/*", block)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("dialog", lambda dialog: errors.append(f"dialog: {dialog.message}"))
    page.goto(path.as_uri())
    page.wait_for_function("window.attnWidget !== undefined")
    return page, attempts, errors


def test_exported_file_works_offline_and_stays_interactive(browser, tmp_path, minilm, artifacts):
    model, tokenizer = minilm
    widget = AttentionWidget(model, "The animal didn't cross the street because it was too tired.", tokenizer)
    widget.method, widget.layer = "flow", 3
    text = widget.to_html(tmp_path / "view.html")
    assert "<link" not in text and "<script src" not in text  # nothing to fetch: everything is inline
    page, attempts, errors = open_offline(browser, tmp_path / "view.html")
    assert int(page.get_attribute(".attnw-canvas", "data-edges")) > 0
    assert page.inner_text(".attnw-caption").startswith("Attention flow · layer 3 of 6")
    page.select_option(".attnw-method", "rollout")
    page.wait_for_function("document.querySelector('.attnw-caption').textContent.startsWith('Attention rollout')")
    box = page.locator("canvas.attnw-canvas").bounding_box()
    geometry = page.eval_on_selector(
        "canvas.attnw-canvas", "c => ({right: +c.dataset.rightX, top: +c.dataset.top, row: +c.dataset.rowHeight})"
    )
    page.mouse.move(box["x"] + geometry["right"] + 20, box["y"] + geometry["top"] + 10.5 * geometry["row"])
    page.locator(".attnw-tooltip").wait_for(state="visible")
    page.locator(".attnw-root").screenshot(path=str(artifacts / "export-offline.png"))
    assert attempts == [] and errors == []
    page.close()


def test_hostile_token_text_stays_text_in_the_exported_file(browser, tmp_path):
    path = tmp_path / "hostile.html"
    synthetic_widget().to_html(path)
    raw = path.read_text()
    assert "<script>alert(2)</script>" not in raw and "<img src=x onerror" not in raw
    page, attempts, errors = open_offline(browser, path)
    labels = page.locator(".attnw-labels-left .attnw-token").all_inner_texts()
    assert labels[1] == HOSTILE_TOKENS[1] and labels[2] == HOSTILE_TOKENS[2]
    assert page.locator("body img").count() == 0 and page.locator("#attnw-root script").count() == 0
    assert attempts == [] and errors == []
    page.close()


def test_layers_not_computed_before_export_say_so(browser, tmp_path, tokenizer):
    from tiny_models import tiny_model

    text = " ".join(["the cat sat on the mat and the dog ran to the big red house"] * 4)
    widget = AttentionWidget(tiny_model("gpt2"), text, tokenizer, method="flow", layer=3)
    assert widget.ready["flow"] == []
    path = tmp_path / "pending.html"
    widget.to_html(path)
    page, attempts, errors = open_offline(browser, path)
    message = page.inner_text(".attnw-pending")
    assert 'call w.compute("flow") before exporting' in message
    assert page.locator(".attnw-compute").is_hidden()
    assert attempts == [] and errors == []
    page.close()
