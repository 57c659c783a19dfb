"""The basic control bar a widget opens with, in real Chromium: View, Method, Layer, Head, About and More in one
row; More shows the rest (and tells the kernel, w.controls); a setting hidden behind it is named on the button;
the method menu follows the course, each entry with its one line, which also shows under the caption; About says
when to trust the picture."""

from __future__ import annotations

import pytest
from payload_fixtures import widget_state

from attn_widget import AttentionWidget, demo

from .page import TEXT, and_paint, open_state, set_width

pytestmark = pytest.mark.browser

# What a learner meets first, and what waits behind More.
BASIC = [".attnw-view", ".attnw-method", ".attnw-layer", ".attnw-head", ".attnw-explain-toggle", ".attnw-more-toggle"]
BEHIND_MORE = [".attnw-top-k", ".attnw-threshold", ".attnw-specials", ".attnw-node-size", ".attnw-save-png"]
COURSE_ORDER = [
    "Attention as a graph",
    "Through the layers",
    "Effective attention",
    "Gradients",
    "Context mixing (values, residual, norms)",
]

VISIBLE_FIELDS = """root => [...root.querySelectorAll('select, input, button')]
    .filter(node => node.offsetParent !== null).length"""


@pytest.fixture(scope="module")
def minilm_state(minilm):
    model, tokenizer = minilm
    return widget_state(AttentionWidget(model, TEXT, tokenizer))


@pytest.fixture(scope="module")
def decoder_state():
    model, tokenizer = demo.pydoc_gpt2()
    return widget_state(AttentionWidget(model, "The cat sat on the mat because it was tired.", tokenizer))


def rows(page) -> int:
    """The rows the bar's visible controls take: their distinct tops."""
    tops = page.eval_on_selector(
        ".attnw-control-bar",
        """root => [...root.querySelectorAll('select, input, button')].filter(n => n.offsetParent !== null)
            .map(n => Math.round(n.getBoundingClientRect().top / 10))""",
    )
    return len(set(tops))


def visible(page, selector: str) -> bool:
    return page.locator(selector).first.is_visible()


def test_the_widget_opens_on_the_basic_bar_and_more_shows_the_rest(browser, page_server, minilm_state, artifacts):
    page, errors = open_state(browser, page_server, minilm_state, controls="basic")
    try:
        page.locator(".attnw-root").screenshot(path=str(artifacts / "basic-panel.png"))
        assert all(visible(page, s) for s in BASIC), [s for s in BASIC if not visible(page, s)]
        assert not any(visible(page, s) for s in BEHIND_MORE), [s for s in BEHIND_MORE if visible(page, s)]
        # Six things to meet (four controls, About, More): two rows at 800 px, one in a notebook's 1,100 px.
        assert page.eval_on_selector(".attnw-control-bar", VISIBLE_FIELDS) == 6
        assert rows(page) == 2
        page.set_viewport_size({"width": 1200, "height": 900})
        set_width(page, 1100)
        page.locator(".attnw-root").screenshot(path=str(artifacts / "basic-panel-wide.png"))
        assert rows(page) == 1
        toggle = page.locator(".attnw-more-toggle")
        assert toggle.text_content() == "More ▾" and toggle.get_attribute("aria-expanded") == "false"

        and_paint(page, toggle.click)
        assert all(visible(page, s) for s in BEHIND_MORE), [s for s in BEHIND_MORE if not visible(page, s)]
        assert toggle.text_content() == "Fewer ▴" and toggle.get_attribute("aria-expanded") == "true"
        assert page.evaluate("window.model.get('controls')") == "all", "the kernel hears of it (w.controls)"
        page.locator(".attnw-root").screenshot(path=str(artifacts / "basic-panel-more.png"))

        and_paint(page, toggle.click)
        assert not visible(page, ".attnw-top-k") and page.evaluate("window.model.get('controls')") == "basic"
        assert errors == []
    finally:
        page.close()


def test_a_setting_hidden_behind_more_is_named_on_the_button(browser, page_server, minilm_state):
    """A picture filtered from Python (top_k) or compared with another method says so while the bar is basic."""
    state = {**minilm_state, "top_k": 3, "compare_method": "flow"}
    page, errors = open_state(browser, page_server, state, controls="basic")
    try:
        toggle = page.locator(".attnw-more-toggle")
        assert toggle.text_content() == "More (2 set) ▾"
        title = toggle.get_attribute("title") or ""
        assert "Edges per token" in title and "Compare with" in title, title
        assert errors == []
    finally:
        page.close()


def test_the_method_menu_follows_the_course_with_a_line_for_each_entry(browser, page_server, decoder_state, artifacts):
    page, errors = open_state(browser, page_server, decoder_state, controls="basic")
    try:
        groups = page.eval_on_selector_all(".attnw-method optgroup", "gs => gs.map(g => g.label)")
        assert groups == COURSE_ORDER, groups
        first = page.eval_on_selector_all(
            ".attnw-method optgroup", "gs => gs.map(g => [...g.children].map(o => o.value))"
        )
        assert first[0] == ["raw", "binarised", "paths"] and first[1][:2] == ["rollout", "flow"], first
        hints = page.eval_on_selector_all(".attnw-method option", "os => os.map(o => [o.value, o.title])")
        assert all(title for _id, title in hints), [i for i, title in hints if not title]
        assert len({title for _id, title in hints}) == len(hints), "each entry says its own line"
        # The chosen method's line under the caption, following the menu.
        hint = page.locator(".attnw-hint")
        assert hint.is_visible() and hint.text_content() == dict(hints)["raw"]
        and_paint(page, lambda: page.select_option(".attnw-method", "rollout"))
        assert hint.text_content() == dict(hints)["rollout"]
        # Compare with: only what draws the same graph (rollout: the other cumulative methods), under the same
        # headings; the tooltip counts the rest.
        page.click(".attnw-more-toggle")
        listed = page.eval_on_selector_all(".attnw-compare option", "os => os.map(o => o.value)")
        assert "raw" not in listed and {"", "rollout", "flow", "rollout_rf", "paths"} <= set(listed), listed
        title = page.get_attribute(".attnw-compare", "title") or ""
        assert f"{len(hints) - len(listed) + 1} other methods draw another graph" in title, title
        # About says what the picture assumes, under its own heading.
        page.click(".attnw-explain-toggle")
        headings = page.eval_on_selector_all(".attnw-explain-title", "hs => hs.map(h => h.textContent)")
        assert headings == ["About “Attention rollout”", "When to trust it"], headings
        assert "compare()" in page.text_content(".attnw-explain-trust")
        page.locator(".attnw-root").screenshot(path=str(artifacts / "basic-panel-about.png"))
        assert errors == []
    finally:
        page.close()


def test_the_basic_bar_speaks_chinese(browser, page_server, minilm):
    model, tokenizer = minilm
    state = widget_state(AttentionWidget(model, TEXT, tokenizer, lang="zh"))
    page, errors = open_state(browser, page_server, state, controls="basic")
    try:
        assert page.text_content(".attnw-more-toggle") == "更多 ▾"
        assert page.text_content(".attnw-hint") == "在这一层中，每个 token（右）从每个 token（左）读取了多少。"
        assert errors == []
    finally:
        page.close()
