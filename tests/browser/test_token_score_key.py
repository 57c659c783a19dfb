"""Token-score bars in real Chromium: a key says what a bar's length and colours mean (the method, the
target), and the tokens with the largest scores are listed, ranked, under the plot (issue 34)."""

from __future__ import annotations

import base64

import numpy as np
import pytest
import torch
from payload_fixtures import widget_state

from attn_widget import payload

from .page import open_state

pytestmark = pytest.mark.browser


def with_scores(widget, method: str, scores: np.ndarray) -> dict:
    """The widget's state showing ``scores`` as the token scores of ``method`` for a made-up target."""
    state = widget_state(widget)
    n = len(widget.tokens)
    encoded = payload.encode(torch.tensor(scores, dtype=torch.float32).reshape(1, 1, -1))
    return {
        **state,
        "targets": [{"id": "t", "label": "logit of “tired”", "position": n - 3}],
        "target": "t",
        "attribution": method,
        "attribution_data": {
            "target": "t",
            "method": method,
            "status": "done",
            "values": {"base64": base64.b64encode(bytes(encoded)).decode()},
        },
    }


def test_token_score_bars_have_a_key_and_a_ranked_list(browser, page_server, minilm_widget, artifacts):
    n = len(minilm_widget.tokens)
    rng = np.random.default_rng(0)
    scores = rng.uniform(-0.2, 0.2, n)
    scores[[4, 9, 2]] = [-0.9, 0.7, 0.5]  # the three largest by size, the first negative
    page, errors = open_state(browser, page_server, with_scores(minilm_widget, "grad_x_input", scores))
    assert page.locator(".attnw-strip .attnw-bar").count() == n
    status = page.locator(".attnw-strip-status")
    key = page.locator(".attnw-strip-key")
    assert key.is_visible()
    # What the bars are (the method, the target), then what their colours and length mean.
    assert status.inner_text().startswith("Bars: gradient × input of logit of “tired”")
    assert "positive: pushes the target up" in key.inner_text() and "negative: pushes it down" in key.inner_text()
    # The swatches are the bars' own colours.
    swatch = page.eval_on_selector_all(".attnw-strip-swatch", "s => s.map(e => getComputedStyle(e).backgroundColor)")
    bar_colours = page.eval_on_selector_all(
        ".attnw-strip .attnw-bar", "b => b.map(e => getComputedStyle(e).backgroundColor)"
    )
    assert swatch == [bar_colours[9], bar_colours[4]] and swatch[0] != swatch[1]
    # Ranked by size, signed, token text as text.
    ranked = page.locator(".attnw-strip-rank .attnw-strip-ranked")
    assert ranked.count() == 5
    indices = [int(i) for i in page.eval_on_selector_all(".attnw-strip-ranked", "r => r.map(e => e.dataset.index)")]
    assert indices == list(np.argsort(-np.abs(scores), kind="stable")[:5])
    first = ranked.nth(0).inner_text()
    assert first.startswith(f"1. “{minilm_widget.tokens[4]}”") and first.endswith("-0.9000")
    assert ranked.nth(1).inner_text().endswith("+0.7000")
    # Under the plot, never over its paths; legible (the page's own text size).
    plot = page.locator(".attnw-plot").bounding_box()
    box = status.bounding_box()
    assert box["y"] >= plot["y"] + plot["height"]
    assert float(page.eval_on_selector(".attnw-strip-rank", "e => parseFloat(getComputedStyle(e).fontSize)")) >= 12
    page.locator(".attnw-root").screenshot(path=str(artifacts / "token-scores-key.png"))

    # An unsigned method: one colour, ranked by score.
    page.close()
    page, errors2 = open_state(browser, page_server, with_scores(minilm_widget, "saliency", np.abs(scores)))
    assert page.locator(".attnw-strip-swatch").count() == 1
    assert "never negative" in page.inner_text(".attnw-strip-key")
    assert page.locator(".attnw-strip-ranked").nth(0).inner_text().endswith("0.9000")
    assert errors == [] and errors2 == []
    page.close()
