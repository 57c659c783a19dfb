"""A long text with a token pinned, in real Chromium (issue 34's smaller items): the pinned token's label
shows among thinned labels, a new window size keeps the pinned token in view, the compute panel stays
reachable while a row is pinned, and the wheel lets the page scroll once the window is at an end."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from io import BytesIO

import pytest
from PIL import Image

from attn_widget import AttentionWidget

from .page import and_paint, download, open_widget
from .test_long_input import LAYER, N, long_text, shown_rows, trait_window, wait_painted_window

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def long_widget(minilm):
    """test_long_input's text of N tokens."""
    model, tokenizer = minilm
    return AttentionWidget(model, long_text(tokenizer, N), tokenizer, method="raw", layer=LAYER)


# Room above and below the widget, so that the page can scroll both ways with the graph under the pointer.
TALL_PAGE = """() => {
    const spacer = () => Object.assign(document.createElement('div'), {style: 'height: 1500px'});
    document.body.prepend(spacer());
    document.body.append(spacer());
}"""


def wheel_scrolls_page(page, dy: float) -> bool:
    """Wheel over the middle of the graph: did the page scroll (and not the token window)?"""
    box = page.locator(".attnw-canvas").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    before_y, before_window = page.evaluate("window.scrollY"), trait_window(page)
    page.mouse.wheel(0, dy)
    try:
        page.wait_for_function(f"window.scrollY !== {before_y}", timeout=1500)
    except Exception:  # noqa: BLE001 (playwright's TimeoutError: the page did not scroll)
        return False
    assert trait_window(page) == before_window, "the page scrolled, and the window stayed"
    return True


def open_tall(browser, page_server, widget):
    page, errors = open_widget(browser, page_server, widget)
    page.evaluate(TALL_PAGE)
    page.locator(".attnw-canvas").scroll_into_view_if_needed()
    page.evaluate("window.scrollBy(0, -100)")  # the graph's middle stays in the viewport
    return page, errors


def test_the_wheel_lets_the_page_scroll_at_the_window_ends(browser, page_server, long_widget):
    page, errors = open_tall(browser, page_server, long_widget)
    assert shown_rows(page)[0] == 0
    assert wheel_scrolls_page(page, -120), "at the first row, the wheel up scrolls the page"
    # Down from the first row: the window scrolls, not the page.
    assert not wheel_scrolls_page(page, 120)
    assert trait_window(page)[0] > 0
    size = shown_rows(page)[1] - shown_rows(page)[0] + 1
    and_paint(page, lambda: page.evaluate(f"window.model.set('window', [{N}, 0]); window.model.save_changes()"))
    wait_painted_window(page, N - size)
    assert wheel_scrolls_page(page, 120), "at the last row, the wheel down scrolls the page"
    # Every row shown: the wheel is the page's either way.
    and_paint(page, lambda: page.evaluate(f"window.model.set('window', [0, {N}]); window.model.save_changes()"))
    assert wheel_scrolls_page(page, 120)
    assert wheel_scrolls_page(page, -120)
    assert errors == []
    page.close()


def select_size(page, size: int) -> None:
    """Pick a size in the Token rows menu (as a click would: its change event), wherever the bar shows it."""
    page.eval_on_selector(
        ".attnw-window-size", "(s, v) => { s.value = String(v); s.dispatchEvent(new Event('change')); }", size
    )


def pin(page, index: int) -> None:
    and_paint(
        page,
        lambda: page.evaluate(
            "i => { window.model.set('selected', {side: 'target', index: i}); window.model.save_changes(); }", index
        ),
    )


def labels_of(page, column: str) -> list[dict]:
    """The column's labels as drawn: index, box, font size, and whether they show (not hidden)."""
    return page.eval_on_selector_all(
        f".attnw-labels-{column} .attnw-token",
        """labels => labels.map(l => {
            const r = l.getBoundingClientRect(), style = getComputedStyle(l);
            return {index: +l.dataset.index, top: r.top, bottom: r.bottom, text: l.textContent,
                    font: parseFloat(style.fontSize), shown: style.visibility === 'visible',
                    classes: l.className};
        })""",
    )


def assert_focus_label(page, column: str, index: int, token: str) -> None:
    """Token `index` is labelled in the column, legibly, and no label that shows touches its line of text."""
    labels = labels_of(page, column)
    (focus,) = [b for b in labels if b["index"] == index]
    assert focus["shown"] and focus["text"] == token and focus["font"] >= 11
    assert focus["bottom"] - focus["top"] >= focus["font"] + 2, focus
    for other in labels:
        if other is focus or not other["shown"]:
            continue
        middle = (other["top"] + other["bottom"]) / 2  # its line of text, a font size tall
        text_top, text_bottom = middle - other["font"] / 2, middle + other["font"] / 2
        assert text_bottom <= focus["top"] + 0.5 or text_top >= focus["bottom"] - 0.5, (focus, other)
    # Drawn: the label's pixels hold text (dark ink on the light page), not only its background.
    shot = page.locator(f".attnw-labels-{column} .attnw-token[data-index='{index}']").screenshot()
    darkest, _ = Image.open(BytesIO(shot)).convert("L").getextrema()
    assert darkest < 100, "the label's text is drawn"


def test_the_pinned_and_hovered_tokens_are_labelled_among_thinned_labels(browser, page_server, long_widget, artifacts):
    page, errors = open_widget(browser, page_server, long_widget)
    and_paint(page, lambda: page.evaluate(f"window.model.set('window', [0, {N}]); window.model.save_changes()"))
    labelled = {b["index"] for b in labels_of(page, "right")}
    assert 1 < len(labelled) < N, "all rows shown: the labels are thinned"
    every = min(i for i in labelled if i > 0)
    pinned = next(i for i in range(100, N) if i not in labelled)
    pin(page, pinned)
    assert_focus_label(page, "right", pinned, long_widget.tokens[pinned])
    assert "attnw-pinned" in next(b["classes"] for b in labels_of(page, "right") if b["index"] == pinned)
    # Hover a thinned row's token in the left column: it is labelled too, the pinned one stays.
    hovered = next(i for i in range(40, N) if i % every and i not in (pinned - 1, pinned, pinned + 1))
    box = page.locator(".attnw-canvas").bounding_box()
    row = float(page.get_attribute(".attnw-canvas", "data-row-height"))
    top = float(page.get_attribute(".attnw-canvas", "data-top"))
    left = float(page.get_attribute(".attnw-canvas", "data-left-x"))
    and_paint(page, lambda: page.mouse.move(box["x"] + left - 20, box["y"] + top + (hovered + 0.5) * row))
    assert_focus_label(page, "left", hovered, long_widget.tokens[hovered])
    assert_focus_label(page, "right", pinned, long_widget.tokens[pinned])
    page.locator(".attnw-root").screenshot(path=str(artifacts / "long-139-all-pinned.png"))
    page.evaluate("document.body.classList.add('dark')")  # as a host's theme switch does
    page.wait_for_function("getComputedStyle(document.querySelector('.attnw-token-focus')).color !== 'rgb(0, 0, 0)'")
    page.locator(".attnw-plot").screenshot(path=str(artifacts / "long-139-all-pinned-dark.png"))
    page.evaluate("document.body.classList.remove('dark')")
    # Unpinned and left: the thinned labels as before, none hidden.
    and_paint(page, lambda: page.mouse.move(1, 1))
    page.evaluate("window.model.set('selected', {}); window.model.save_changes()")
    page.wait_for_function("document.querySelector('.attnw-token-focus') === null")
    assert {b["index"] for b in labels_of(page, "right")} == labelled
    assert all(b["shown"] for b in labels_of(page, "right"))
    assert errors == []
    page.close()


def test_a_new_window_size_keeps_the_pinned_token_in_view(browser, page_server, long_widget, artifacts):
    page, errors = open_widget(browser, page_server, long_widget)
    and_paint(page, lambda: page.evaluate(f"window.model.set('window', [0, {N}]); window.model.save_changes()"))
    pinned = 110
    pin(page, pinned)
    for size in (0, 32, 16, 64):  # fit, then fixed sizes
        before = trait_window(page)
        and_paint(page, lambda size=size: select_size(page, size))
        first, last = shown_rows(page)
        assert trait_window(page)[1] == size
        assert first <= pinned <= last, f"size {size} from {before}: rows {first}-{last} leave out #{pinned}"
        assert page.locator(f".attnw-labels-right .attnw-token[data-index='{pinned}']").count() == 1
        if size == 0:
            page.locator(".attnw-root").screenshot(path=str(artifacts / "long-139-fit-pinned.png"))
    # Nothing pinned: a new size keeps the first row shown.
    page.evaluate("window.model.set('selected', {}); window.model.save_changes()")
    start = trait_window(page)[0]
    and_paint(page, lambda: select_size(page, 32))
    assert trait_window(page) == [start, 32]
    assert errors == []
    page.close()


def test_a_download_labels_the_pinned_token_among_thinned_labels(
    browser, page_server, long_widget, tmp_path, artifacts
):
    page, errors = open_widget(browser, page_server, long_widget)
    and_paint(page, lambda: page.evaluate(f"window.model.set('window', [0, {N}]); window.model.save_changes()"))
    labelled = {b["index"] for b in labels_of(page, "right")}
    pinned = next(i for i in range(100, N) if i not in labelled and long_widget.tokens[i].isalpha())
    pin(page, pinned)
    download(page, ".attnw-save-svg", tmp_path / "pinned.svg")
    download(page, ".attnw-save-png", artifacts / "long-139-all-pinned-download.png")
    ns = "{http://www.w3.org/2000/svg}"
    texts = list(ET.parse(tmp_path / "pinned.svg").getroot().iter(f"{ns}text"))
    (label,) = [t for t in texts if t.get("font-weight") == "bold" and t.text == long_widget.tokens[pinned]]
    # The right column's labels: the pinned one's neighbours give way (as on screen).
    column = [t for t in texts if t.get("x") == label.get("x") and t.get("font-weight") == "normal"]  # not the title
    assert len(column) > 10, "the thinned labels are there"
    row = float(page.get_attribute(".attnw-canvas", "data-row-height"))
    for other in column:
        assert abs(float(other.get("y")) - float(label.get("y"))) >= 16.5 - 1e-6, (other.text, other.get("y"))
    first = min(float(t.get("y")) for t in column)  # row 0's label
    assert float(label.get("y")) == pytest.approx(first + pinned * row), "at the pinned token's row"
    assert errors == []
    page.close()
