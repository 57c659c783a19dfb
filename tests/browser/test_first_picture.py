"""Issue 30 in real Chromium: a widget on 2,048 tokens opens on its first picture with only the shown method's
data, draws each view (one layer, the whole model, every head), and says a method not computed yet is coming
instead of drawing it; once computed (as the kernel does when it is selected) it is drawn."""

from __future__ import annotations

import copy

import pytest
from tiny_models import WORDS, tiny_model

from attn_widget import AttentionWidget
from attn_widget.export import widget_state

from .page import and_paint, open_state

pytestmark = pytest.mark.browser

N = 2048


@pytest.fixture(scope="module")
def long_widget(tokenizer):
    model = tiny_model("gpt2", n_positions=N)
    tokenizer = copy.deepcopy(tokenizer)
    tokenizer.model_max_length = N
    text = " ".join(WORDS[i * 7 % len(WORDS)] for i in range(N - 2))  # [CLS] and [SEP] make N
    widget = AttentionWidget(model, text, tokenizer, method="raw", layer=2)
    assert len(widget.tokens) == N
    # Its pass read layer 2 (its heads are beyond head_store.READ_AT_ONCE_BYTES); the others are read after the
    # first picture, in the background (tests/test_head_store.py): here they are all read.
    widget.wait()
    assert widget.ready["raw"] == [1, 2, 3] and not widget.heads_job
    return widget


def edges_drawn(page) -> int:
    return int(page.get_attribute("canvas.attnw-canvas", "data-edges"))


def test_each_view_of_a_2048_token_text_draws_from_the_first_pictures_data(browser, page_server, long_widget):
    state = widget_state(long_widget)  # as the front end first receives it: no prepare
    sent = {name: len(value["base64"]) * 3 // 4 for name, value in state.items() if name.startswith("data_")}
    assert sum(sent.values()) <= 5_000_000, sent  # the goal: at most 5 MB a view
    assert [name for name, size in sent.items() if size] == ["data_raw"]
    page, errors = open_state(browser, page_server, state)
    assert page.get_attribute("canvas.attnw-canvas", "data-view") == "layer" and edges_drawn(page) > 0
    and_paint(page, lambda: page.select_option(".attnw-view", "model"))
    assert page.get_attribute("canvas.attnw-canvas", "data-view") == "model" and edges_drawn(page) > 0
    page.select_option(".attnw-view", "heads")
    page.wait_for_function("document.querySelector('.attnw-heads-canvas')?.dataset.cells === String(3 * 6)")
    and_paint(page, lambda: page.select_option(".attnw-view", "layer"))
    # A method not computed yet: the view says it is coming and draws no edge of it; so does its whole-model view,
    # whose edges are its own step 0.5·Ā + 0.5·I, computed with it (not raw attention, which is sent).
    and_paint(page, lambda: page.select_option(".attnw-method", "rollout"))
    assert page.is_visible(".attnw-pending") and edges_drawn(page) == 0
    and_paint(page, lambda: page.select_option(".attnw-view", "model"))
    assert page.get_attribute("canvas.attnw-canvas", "data-view") == "layer" and page.is_visible(".attnw-pending")
    # A method drawn on its own data falls back to the single layer too, saying it is coming.
    and_paint(page, lambda: page.select_option(".attnw-method", "norm"))
    assert page.get_attribute("canvas.attnw-canvas", "data-view") == "layer" and page.is_visible(".attnw-pending")
    assert errors == []
    page.close()


def test_a_method_computed_when_selected_is_drawn_in_each_view(browser, page_server, long_widget):
    long_widget.method = "rollout"  # what the front end's selection does in the kernel
    long_widget.wait()
    assert long_widget.ready["rollout"] == [1, 2, 3] and long_widget.job == {}
    page, errors = open_state(browser, page_server, widget_state(long_widget))
    assert not page.is_visible(".attnw-pending") and edges_drawn(page) > 0
    and_paint(page, lambda: page.select_option(".attnw-view", "model"))
    assert page.get_attribute("canvas.attnw-canvas", "data-view") == "model" and edges_drawn(page) > 0
    assert errors == []
    page.close()
