"""Flow on a long input in real Chromium: pinning a token shows its flow edges at once, with no
"Compute" pressed (attn_widget/pinned_row.py computes the row, the kernel's sync is played by hand)."""

from __future__ import annotations

import pytest
from payload_fixtures import widget_state

from attn_widget import AttentionWidget

from .page import and_paint, geometry, max_alpha, open_state, record_sent, row_point
from .test_focus_panels import LONG_TEXT

pytestmark = pytest.mark.browser

SYNC = """([data, readyRow]) => {
    const binary = atob(data.base64);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    window.model.set("data_flow", new DataView(bytes.buffer));
    window.model.set("ready_row", readyRow);
}"""


def test_pinning_a_token_shows_its_flow_edges_without_compute(browser, page_server, minilm, artifacts):
    model, tokenizer = minilm
    widget = AttentionWidget(model, LONG_TEXT, tokenizer, method="flow", layer=4)
    n = len(widget.tokens)
    assert n > 40 and widget.ready["flow"] == []
    page, errors = open_state(browser, page_server, widget_state(widget))
    record_sent(page)
    assert page.is_visible(".attnw-pending")
    pinned = 10
    page.mouse.click(*row_point(page, geometry(page)["right"] + 20, pinned))  # the token after layer 4
    page.wait_for_function(f"window.model.get('selected').index === {pinned}")

    # The kernel's side: the pin arrives, the row is computed in the background and synced back.
    widget.selected = page.evaluate("window.model.get('selected')")
    widget.wait()
    assert widget.ready_row == {"flow": {"index": pinned, "layers": [1, 2, 3, 4, 5, 6], "computing": False}}
    assert widget.ready["flow"] == []
    state = widget_state(widget)
    # Midway (the row comes layer by layer): the shown layer 4 is still coming, the panel says so.
    coming = {"flow": {"index": pinned, "layers": [1, 2, 3], "computing": True}}
    and_paint(page, lambda: page.evaluate(SYNC, [state["data_flow"], coming]))
    assert "computing the pinned token's row for layer 4" in page.inner_text(".attnw-pending")
    page.locator(".attnw-root").screenshot(path=str(artifacts / "flow-pinned-row-coming.png"))

    and_paint(page, lambda: page.evaluate(SYNC, [state["data_flow"], state["ready_row"]]))

    # The pinned row is drawn; the panel stays, at the plot's foot, offering the whole layer.
    assert "only the pinned token's row is computed for layer 4." in page.inner_text(".attnw-pending")
    assert page.is_visible(".attnw-compute") and page.is_visible(".attnw-compute-all")
    panel = page.locator(".attnw-pending").bounding_box()
    assert panel["y"] > row_point(page, 0, pinned + 1)[1], "the panel lies below the pinned token's row"
    # Inside the plot's edge area: off the label columns and the strips of markers.
    area = page.locator("canvas.attnw-canvas").bounding_box()
    g = geometry(page)
    for button in (".attnw-compute", ".attnw-compute-all"):
        box = page.locator(button).bounding_box()
        assert area["x"] + g["left"] <= box["x"] and box["x"] + box["width"] <= area["x"] + g["right"], button
        assert panel["y"] <= box["y"] and box["y"] + box["height"] <= panel["y"] + panel["height"], button
    last = int(page.get_attribute(".attnw-minimap", "data-last"))  # the last row shown; the markers' strip below
    assert panel["y"] + panel["height"] <= row_point(page, 0, last)[1] + g["row"] / 2, "above the markers' strip"
    assert int(page.get_attribute(".attnw-canvas", "data-edges")) == widget.top_k  # the pinned row's strongest
    right = geometry(page)["right"]
    box = page.locator("canvas.attnw-canvas").bounding_box()
    assert max_alpha(page, right - 2, row_point(page, 0, pinned)[1] - box["y"]) > 0, "edges end at the pinned token"
    assert max_alpha(page, right - 2, row_point(page, 0, pinned + 20)[1] - box["y"]) == 0, "and nowhere else"
    page.locator(".attnw-root").screenshot(path=str(artifacts / "flow-pinned-row.png"))
    assert page.evaluate("window.sent") == [], "no compute request was needed"
    page.click(".attnw-compute")
    assert page.evaluate("window.sent") == [{"type": "compute", "method": "flow", "layers": [4]}]
    assert page.evaluate("window.model.get('selected').index") == pinned, "the click pins nothing else"
    assert errors == []
    page.close()
