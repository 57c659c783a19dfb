"""A long text in real Chromium: legible labels in a window of rows, the wheel, the keys, the
minimap and the markers of edges to tokens outside the window (js/src/navigate.js)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from attn_widget import AttentionWidget, payload

from .page import download, open_widget

pytestmark = pytest.mark.browser

PARAGRAPH = (
    "The committee said that the new bridge over the river would open next spring, after two years of work "
    "and many delays caused by floods, strikes and a shortage of steel. "
)
N = 139
LAYER = 3


def long_text(tokenizer, n: int) -> str:
    """English text of exactly n tokens with [CLS] and [SEP]."""
    ids = tokenizer(PARAGRAPH * 20, add_special_tokens=False)["input_ids"][: n - 2]
    return tokenizer.decode(ids)


@pytest.fixture(scope="module")
def long_widget(minilm):
    model, tokenizer = minilm
    widget = AttentionWidget(model, long_text(tokenizer, N), tokenizer, method="raw", layer=LAYER)
    assert len(widget.tokens) == N
    return widget


def trait_window(page) -> list[int]:
    return page.evaluate("window.model.get('window')")


def wait_painted_window(page, start: int) -> None:
    """Wait for the repaint that shows row `start` first."""
    page.wait_for_function(
        "s => document.querySelector('.attnw-minimap')?.dataset.first === String(s)", arg=start, timeout=5000
    )


def label_boxes(page, column: str) -> list[dict]:
    return page.eval_on_selector_all(
        f".attnw-labels-{column} .attnw-token",
        """labels => labels.map(l => {
            const r = l.getBoundingClientRect();
            return {index: +l.dataset.index, top: r.top, bottom: r.bottom, left: r.left, right: r.right,
                    font: parseFloat(getComputedStyle(l).fontSize)};
        })""",
    )


def assert_legible(page) -> list[dict]:
    """Every column's labels at 11 px or more, none overlapping another label or a marker."""
    markers = page.eval_on_selector_all(
        ".attnw-marker", "ms => ms.map(m => { const r = m.getBoundingClientRect(); return [r.top, r.bottom]; })"
    )
    for column in ("left", "right"):
        boxes = sorted(label_boxes(page, column), key=lambda b: b["top"])
        assert boxes, "labels are shown"
        for box in boxes:
            assert box["font"] >= 11 and box["bottom"] - box["top"] >= box["font"], box
            for top, bottom in markers:
                assert box["bottom"] <= top + 0.5 or box["top"] >= bottom - 0.5, "a marker covers a label"
        for a, b in zip(boxes, boxes[1:], strict=False):
            assert a["bottom"] <= b["top"] + 0.5, f"labels {a['index']} and {b['index']} overlap"
    return boxes


def shown_rows(page) -> tuple[int, int]:
    first, last = page.eval_on_selector(".attnw-minimap", "m => [+m.dataset.first, +m.dataset.last]")
    return first, last


def test_a_long_text_opens_with_every_label_legible(browser, page_server, long_widget, artifacts):
    page, errors = open_widget(browser, page_server, long_widget)
    boxes = assert_legible(page)
    first, last = shown_rows(page)
    assert first == 0 and 20 <= last < N - 1, "a window of rows, not all 139 squeezed together"
    assert [b["index"] for b in boxes] == list(range(first, last + 1)), "every row shown is labelled"
    page.locator(".attnw-root").screenshot(path=str(artifacts / "long-139-open.png"))
    assert errors == []
    page.close()


def test_wheel_scrolls_the_window_and_stops_at_the_ends(browser, page_server, long_widget):
    page, errors = open_widget(browser, page_server, long_widget)
    box = page.locator(".attnw-canvas").bounding_box()
    row = float(page.get_attribute(".attnw-canvas", "data-row-height"))
    size = shown_rows(page)[1] + 1
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    scroll_before = page.evaluate("window.scrollY")
    page.mouse.wheel(0, 200)
    page.wait_for_function("window.model.get('window')[0] > 0", timeout=5000)
    assert trait_window(page) == [int(200 / row), size]
    wait_painted_window(page, int(200 / row))
    assert page.eval_on_selector(".attnw-labels-left .attnw-token", "l => +l.dataset.index") == int(200 / row)
    assert page.evaluate("window.scrollY") == scroll_before
    # Far down: the window stops at the last row.
    for _ in range(30):
        page.mouse.wheel(0, 400)
    page.wait_for_function(f"window.model.get('window')[0] === {N - size}", timeout=5000)
    # Ctrl + wheel zooms out: more rows, the page itself not zoomed.
    page.keyboard.down("Control")
    page.mouse.wheel(0, 100)
    page.keyboard.up("Control")
    page.wait_for_function(f"window.model.get('window')[1] > {size}", timeout=5000)
    assert errors == []
    page.close()


def test_window_keys_scroll_only_while_the_graph_has_the_focus(browser, page_server, long_widget):
    page, errors = open_widget(browser, page_server, long_widget)
    size = shown_rows(page)[1] + 1
    page.focus(".attnw-layer")  # a control has the focus: the graph takes no keys
    page.keyboard.press("PageDown")
    page.wait_for_timeout(200)
    assert trait_window(page) == [0, 0]
    page.focus(".attnw-plot")
    page.keyboard.press("PageDown")
    page.wait_for_function(f"JSON.stringify(window.model.get('window')) === '[{size - 1},{size}]'", timeout=5000)
    page.keyboard.press("End")
    page.wait_for_function(f"window.model.get('window')[0] === {N - size}", timeout=5000)
    page.keyboard.press("Home")
    page.wait_for_function("window.model.get('window')[0] === 0", timeout=5000)
    # Arrows move the keyboard focus between tokens (as before); the window follows it down.
    for _ in range(size + 3):
        page.keyboard.press("ArrowDown")
    page.wait_for_function("window.model.get('window')[0] === 3", timeout=5000)
    hovered = "document.querySelector('.attnw-labels-right .attnw-hovered')?.dataset.index"
    page.wait_for_function(f"{hovered} === '{size + 2}'")
    page.keyboard.press("+")
    page.wait_for_function(f"window.model.get('window')[1] < {size}", timeout=5000)
    start, rows = trait_window(page)
    assert start <= size + 2 < start + rows, "the zoom keeps the focused token in view"
    assert errors == []
    page.close()


def test_minimap_box_is_the_window_and_dragging_moves_it(browser, page_server, long_widget):
    page, errors = open_widget(browser, page_server, long_widget)
    page.evaluate("window.model.set('window', [60, 30]); window.model.save_changes()")
    wait_painted_window(page, 60)
    strip = page.locator(".attnw-minimap").bounding_box()
    box = page.locator(".attnw-minimap-window").bounding_box()
    assert box["y"] - strip["y"] == pytest.approx(60 / N * strip["height"], abs=1)
    assert box["height"] == pytest.approx(30 / N * strip["height"], abs=1)
    # Press on token 120's tick and drag to token 20's: the window is centred on each in turn.
    x = strip["x"] + strip["width"] / 2
    page.mouse.move(x, strip["y"] + (120.5 / N) * strip["height"])
    page.mouse.down()
    page.wait_for_function("window.model.get('window')[0] === 105", timeout=5000)
    page.mouse.move(x, strip["y"] + (20.5 / N) * strip["height"], steps=4)
    page.mouse.up()
    page.wait_for_function("window.model.get('window')[0] === 5", timeout=5000)
    wait_painted_window(page, 5)
    box = page.locator(".attnw-minimap-window").bounding_box()
    assert box["y"] - strip["y"] == pytest.approx(5 / N * strip["height"], abs=1)
    assert errors == []
    page.close()


def drawn_edges(widget) -> list[tuple[int, int, float]]:
    """(source, target, weight) of the slice the view draws, from the payload: each row's top_k
    strongest non-zero entries (js/src/edges.js filterEdges with no threshold)."""
    data = payload.decode(widget.data_raw)["matrices"]
    matrix = data[LAYER - 1, widget.n_heads]  # the mean of the heads
    edges = []
    for target, row in enumerate(matrix):
        kept = [s for s in np.argsort(-np.abs(row), kind="stable") if row[s] != 0][: widget.top_k or None]
        edges += [(int(s), target, float(row[s])) for s in kept]
    return edges


def markers_of(page) -> dict:
    return {
        (m["side"], m["direction"]): (int(m["count"]), int(m["index"]))
        for m in page.eval_on_selector_all(".attnw-marker", "ms => ms.map(m => ({...m.dataset}))")
    }


def test_markers_count_the_edges_leaving_the_window_and_scroll_to_them(browser, page_server, long_widget, artifacts):
    page, errors = open_widget(browser, page_server, long_widget)
    page.evaluate("window.model.set('window', [50, 30]); window.model.save_changes()")
    wait_painted_window(page, 50)
    edges = drawn_edges(long_widget)
    inside = range(50, 80)

    def expected(only=None) -> dict:
        found: dict = {}
        for e, (s, t, w) in enumerate(edges):
            if only is not None and e not in only:
                continue
            if (s in inside) == (t in inside):
                continue
            side, outside = ("target", t) if s in inside else ("source", s)
            key = (side, "up" if outside < 50 else "down")
            count, best, weight = found.get(key, (0, None, 0.0))
            found[key] = (count + 1, outside if abs(w) > abs(weight) else best, max(abs(w), abs(weight)))
        return {key: count for key, (count, _, _) in found.items()}

    shown = markers_of(page)
    assert {key: count for key, (count, _) in shown.items()} == expected()
    assert sum(count for count, _ in shown.values()) > 0
    # Pinned row 60: the markers count its own edges, and the strongest leads to its token.
    page.evaluate("window.model.set('selected', {side: 'target', index: 60}); window.model.save_changes()")
    page.wait_for_function("document.querySelector('.attnw-labels-right .attnw-pinned')?.dataset.index === '60'")
    pinned = {e for e, (_, t, _) in enumerate(edges) if t == 60}
    shown = markers_of(page)
    assert {key: count for key, (count, _) in shown.items()} == expected(pinned)
    assert shown, "row 60 draws on tokens outside rows 50-79"
    assert_legible(page)
    page.locator(".attnw-root").screenshot(path=str(artifacts / "long-139-markers.png"))
    marker = page.locator(".attnw-marker").first
    index = int(marker.get_attribute("data-index"))
    marker.click()
    page.wait_for_function(
        "i => { const [s, n] = window.model.get('window'); return s <= i && i < s + n; }", arg=index, timeout=5000
    )
    page.wait_for_function(
        f"document.querySelector('.attnw-labels-left .attnw-token[data-index=\"{index}\"]') !== null", timeout=5000
    )
    assert page.evaluate("window.model.get('selected')") == {"side": "target", "index": 60}, "the click pins nothing"
    assert errors == []
    page.close()


def test_whole_model_view_scrolls_the_same_window(browser, page_server, long_widget, artifacts):
    page, errors = open_widget(browser, page_server, long_widget)
    page.evaluate("window.model.set('view', 'model'); window.model.save_changes()")
    page.wait_for_function("document.querySelector('.attnw-canvas').dataset.view === 'model'")
    assert_legible(page)
    box = page.locator(".attnw-canvas").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.wheel(0, 300)
    page.wait_for_function("window.model.get('window')[0] > 0", timeout=5000)
    start = trait_window(page)[0]
    wait_painted_window(page, start)
    assert page.eval_on_selector(".attnw-labels-left .attnw-token", "l => +l.dataset.index") == start
    page.locator(".attnw-root").screenshot(path=str(artifacts / "long-139-model.png"))
    assert errors == []
    page.close()


def test_downloaded_svg_has_the_window_its_markers_and_no_edge_outside(
    browser, page_server, long_widget, tmp_path, artifacts
):
    page, errors = open_widget(browser, page_server, long_widget)
    page.evaluate("window.model.set('window', [50, 30]); window.model.save_changes()")
    wait_painted_window(page, 50)
    markers = page.eval_on_selector_all(".attnw-marker", "ms => ms.map(m => m.textContent)")
    assert markers
    download(page, ".attnw-save-svg", tmp_path / "long.svg")
    download(page, ".attnw-save-png", artifacts / "long-window-download.png")
    root = ET.parse(tmp_path / "long.svg").getroot()
    ns = "{http://www.w3.org/2000/svg}"
    texts = [node.text for node in root.iter(f"{ns}text")]
    for marker in markers:
        assert marker in texts, f"the picture carries the marker {marker!r}"
    # Markers lie over edges: each is outlined in the background colour, so that it stays legible.
    background = root.find(f"{ns}rect").get("fill")
    for node in root.iter(f"{ns}text"):
        outlined = node.get("stroke") == background and node.get("paint-order") == "stroke"
        assert outlined == (node.text in markers), node.text
    assert [t for t in texts if t in long_widget.tokens][:1] == [long_widget.tokens[50]], "labels start at row 50"
    # An edge is drawn when it touches a row shown: as many paths as such edges in the payload.
    touching = [(s, t) for s, t, _ in drawn_edges(long_widget) if 50 <= s < 80 or 50 <= t < 80]
    assert len(root.findall(f".//{ns}path")) == len(touching)
    assert errors == []
    page.close()
