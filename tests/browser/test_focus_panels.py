"""Focus and the panels around the plot, in real Chromium: the focused token's value list is
docked off the plot (never over a traced path or the image), and clicks on buttons and panels
never reach the tokens under them."""

from __future__ import annotations

import pytest
from payload_fixtures import widget_state

from attn_widget import AttentionWidget

from .page import geometry, open_state, open_widget, record_sent, row_point, set_width

pytestmark = pytest.mark.browser

LONG_TEXT = " ".join(["the cat sat on the mat and the dog ran to the big red house"] * 4)  # 58 tokens


def edge_area(page) -> dict:
    """The plot's edge area in page coordinates: between its outer columns, first row to last."""
    box = page.locator("canvas.attnw-canvas").bounding_box()
    g = geometry(page)
    n = page.evaluate("window.model.get('tokens').length")
    x, y = box["x"], box["y"] + g["top"]
    return {"x0": x + g["left"], "x1": x + g["right"], "y0": y, "y1": y + n * g["row"]}


def overlaps(box: dict, area: dict) -> bool:
    across = box["x"] < area["x1"] and box["x"] + box["width"] > area["x0"]
    return across and box["y"] < area["y1"] and box["y"] + box["height"] > area["y0"]


def focus_column(page, view: str) -> float:
    if view == "layer":
        return geometry(page)["right"]
    return page.eval_on_selector(".attnw-canvas", "c => JSON.parse(c.dataset.columns).at(-1)")


@pytest.mark.parametrize("width", [760, 480])
def test_the_value_list_never_covers_the_plot(browser, page_server, minilm_widget, width):
    """Hovering the first or last token of either view, in a wide widget (list in a column right
    of the graph) and a narrow one (list under the plot): the whole list shows and lies off the
    plot's edge area."""
    page, errors = open_widget(browser, page_server, minilm_widget)
    set_width(page, width)
    n = len(minilm_widget.tokens)
    for view in ("layer", "model"):
        if view == "model":
            page.select_option(".attnw-view", "model")
            page.wait_for_function("document.querySelector('.attnw-canvas').dataset.view === 'model'")
        for index in (0, n - 1):
            page.mouse.move(*row_point(page, focus_column(page, view), index))
            page.wait_for_function(
                "i => document.querySelector('.attnw-tooltip-title')?.textContent.includes(`#${i} `)", arg=index
            )
            tip = page.locator(".attnw-tooltip").bounding_box()
            area = edge_area(page)
            assert not overlaps(tip, area), (view, index, tip, area)
            where = page.get_attribute(".attnw-tooltip", "data-dock")
            assert where == ("side" if width >= 600 else "below")
            plot = page.locator(".attnw-plot").bounding_box()
            if where == "side":
                assert tip["x"] >= plot["x"] + plot["width"], "right of the plot"
            else:
                assert tip["y"] >= plot["y"] + plot["height"], "under the plot"
            scrolled = page.evaluate("document.querySelector('.attnw-tooltip').scrollHeight")
            assert scrolled <= tip["height"] + 1, "nothing cut off"
            right = page.evaluate("document.querySelector('.attnw-root').getBoundingClientRect().right")
            assert tip["x"] + tip["width"] <= right + 0.5, "inside the widget"
        page.mouse.move(5, 5)
    assert errors == []
    page.close()


def test_a_pinned_tokens_traced_paths_are_not_covered(browser, page_server, minilm_widget, artifacts):
    """Whole-model view, a token pinned in the last column: no pixel of the overlay canvas (the
    traced paths, drawn in colour above the faint grey context) lies under the value list."""
    page, errors = open_widget(browser, page_server, minilm_widget)
    page.select_option(".attnw-view", "model")
    page.wait_for_function("document.querySelector('.attnw-canvas').dataset.view === 'model'")
    index = minilm_widget.tokens.index("it")
    page.mouse.click(*row_point(page, focus_column(page, "model"), index))
    page.wait_for_function("window.model.get('selected').index !== undefined")
    page.wait_for_function("document.querySelector('.attnw-tooltip-title')?.textContent.startsWith('Pinned')")
    tip = page.locator(".attnw-tooltip").bounding_box()
    covered = page.eval_on_selector(
        "canvas.attnw-overlay",
        """(c, tip) => {
            const box = c.getBoundingClientRect();
            const dpr = c.width / box.width;
            const x0 = Math.floor((tip.x - box.left) * dpr), x1 = Math.ceil((tip.x + tip.width - box.left) * dpr);
            const y0 = Math.floor((tip.y - box.top) * dpr), y1 = Math.ceil((tip.y + tip.height - box.top) * dpr);
            const traced = { all: 0, covered: 0 };
            const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
            for (let y = 0; y < c.height; y++) for (let x = 0; x < c.width; x++) {
                if (d[(y * c.width + x) * 4 + 3] === 0) continue;
                traced.all++;
                if (x >= x0 && x < x1 && y >= y0 && y < y1) traced.covered++;
            }
            return traced;
        }""",
        tip,
    )
    assert covered["all"] > 0, "the traced paths are drawn"
    assert covered["covered"] == 0, covered
    filtered = page.eval_on_selector(".attnw-canvas", "c => getComputedStyle(c).filter")
    assert filtered == "grayscale(1)", "the rest is grey context"
    page.locator(".attnw-root").screenshot(path=str(artifacts / "focus-model-pinned.png"))
    assert errors == []
    page.close()


def test_the_compute_buttons_do_not_pin_the_token_under_them(browser, page_server, minilm):
    """Flow beyond 40 tokens is computed on request: the panel's buttons sit over token rows, and
    clicking one (or pressing Enter on it) sends the request but pins nothing."""
    model, tokenizer = minilm
    widget = AttentionWidget(model, LONG_TEXT, tokenizer, method="flow")
    assert widget.ready["flow"] == []
    page, errors = open_state(browser, page_server, widget_state(widget))
    record_sent(page)
    for button in (".attnw-compute", ".attnw-compute-all"):
        page.locator(button).click()
        page.wait_for_timeout(100)
        assert page.evaluate("window.model.get('selected')") == {}, button
    page.locator(".attnw-compute").focus()
    page.keyboard.press("Enter")
    page.wait_for_timeout(100)
    assert page.evaluate("window.model.get('selected')") == {}
    assert [m["type"] for m in page.evaluate("window.sent")] == ["compute"] * 3
    assert errors == []
    page.close()
