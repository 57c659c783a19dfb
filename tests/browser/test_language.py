"""The widget in Chinese (lang="zh"), in real Chromium: the controls, menus, caption, legend and the
"About this method" panel speak Chinese with real glyphs, token text stays as it is, and a change of
language from the kernel redraws every word."""

from __future__ import annotations

import pytest
from payload_fixtures import widget_state

from attn_widget import AttentionWidget

from .page import geometry, open_state, row_point

pytestmark = pytest.mark.browser

TEXT = "The animal didn't cross the street because it was too tired."

# Canvas pixels of a character: identical for two characters when the font has neither (both tofu).
GLYPH_PIXELS = """ch => {
  const c = document.createElement('canvas'); c.width = c.height = 32;
  const g = c.getContext('2d'); g.font = '24px sans-serif'; g.fillText(ch, 2, 26);
  return Array.from(g.getImageData(0, 0, 32, 32).data).join(',');
}"""


@pytest.fixture(scope="module")
def chinese_state(minilm):
    model, tokenizer = minilm
    return widget_state(AttentionWidget(model, TEXT, tokenizer, lang="zh", method="rollout", layer=3))


def control_names(page) -> list[str]:
    return page.eval_on_selector_all(".attnw-control-name", "spans => spans.map(s => s.textContent)")


def selected_method(page) -> str:
    return page.eval_on_selector(".attnw-method", "s => s.selectedOptions[0].textContent")


def test_the_widget_speaks_chinese_and_switches_back_to_english(browser, page_server, chinese_state, artifacts):
    page, errors = open_state(browser, page_server, chinese_state)
    try:
        font = page.evaluate(GLYPH_PIXELS, "视") != page.evaluate(GLYPH_PIXELS, "\ue000")
        assert font, "Chromium has no CJK font: Chinese labels would be boxes (make test installs fonts-wqy-microhei)"
        names = control_names(page)
        assert {"视图", "方法", "层", "头"} <= set(names), names
        assert selected_method(page) == "注意力展开（rollout）"
        groups = page.eval_on_selector_all(".attnw-method optgroup", "gs => gs.map(g => g.label)")
        assert groups[:2] == ["作为图的注意力", "跨层"], groups
        caption = page.text_content(".attnw-caption")
        assert "第 3 层，共 6 层" in caption and "12 个头的平均" in caption, caption
        assert "条边" in page.text_content(".attnw-legend")
        page.click(".attnw-explain-toggle")
        assert page.text_content(".attnw-explain-title") == "关于“注意力展开（rollout）”"
        assert "定义：R_l" in page.text_content(".attnw-explain-text")
        # Token text is the model's, never translated.
        tokens = page.eval_on_selector_all(".attnw-labels-left .attnw-token", "ts => ts.map(t => t.textContent)")
        assert "animal" in tokens
        # Hover a token: the value list's words are Chinese too.
        page.mouse.move(*row_point(page, geometry(page)["right"], 2))
        page.wait_for_selector(".attnw-tooltip:not([hidden])")
        assert "取自" in page.text_content(".attnw-tooltip-title")
        page.locator(".attnw-root").screenshot(path=str(artifacts / "language-zh.png"))

        # The kernel changes the language: every word is made again, in English.
        page.evaluate("() => { window.model.set('lang', 'en'); window.model.save_changes(); }")
        page.wait_for_function("() => document.querySelector('.attnw-control-name')?.textContent === 'View'")
        assert {"View", "Method", "Layer", "Head"} <= set(control_names(page))
        assert selected_method(page) == "Attention rollout"
        assert "layer 3 of 6" in page.text_content(".attnw-caption")
        assert page.locator(".attnw-root").count() == 1, "the old view is gone, not stacked under the new one"
        assert errors == []
    finally:
        page.close()


def test_the_pictures_buttons_wrap_as_one_group(browser, page_server):
    """Chinese labels change where the controls wrap; on the shipped decoder with a long text (the most
    controls: target, token rows, window start) PNG and SVG stay on one row at every width, and so do About and
    More (they were split, PNG at the end of one row and the others on the next, at about 970 px)."""
    from attn_widget.demo import pydoc_gpt2

    model, tokenizer = pydoc_gpt2()
    text = " ".join(
        ["Although the definition of assignment implies that overlaps between the sides are simultaneous"] * 4
    )
    page, errors = open_state(browser, page_server, widget_state(AttentionWidget(model, text, tokenizer, lang="zh")))
    try:
        for width in range(600, 1301, 10):
            page.set_viewport_size({"width": width, "height": 900})
            for group in (".attnw-save-png, .attnw-save-svg", ".attnw-explain-toggle, .attnw-more-toggle"):
                tops = page.eval_on_selector_all(group, "bs => bs.map(b => Math.round(b.getBoundingClientRect().top))")
                assert len(tops) == 2 and len(set(tops)) == 1, f"{group} on one row at {width} px: {tops}"
        assert errors == []
    finally:
        page.close()
