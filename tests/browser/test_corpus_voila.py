"""CorpusWidget end to end in Voila (real Chromium, live kernel): the grid shows one cell per layer and
head coloured by its mean over the corpus, a click lists that head's texts in result.extreme's order,
choosing one opens the AttentionWidget at that layer and head, and another statistic recolours the grid.
The same server then serves the page in Voila's dark theme, in Chinese (lang="zh"): every word on it, the
colour key and the ring round the chosen head stay legible on the dark page.

The kernel writes its run to a folder the test reads back with its own CorpusResult: the page is checked
against the stored means, not against what the widget computed."""

from __future__ import annotations

import contextlib
import pathlib
import sys
import time

import pytest
from grid_checks import contrast, shows

from attn_widget.corpus import CorpusResult

from .corpus_page import VIRIDIS_HIGH, VIRIDIS_LOW, cell_colours, illegible, page_background, rgb
from .servers import free_port, serving

pytestmark = [pytest.mark.browser, pytest.mark.jupyter]

TEXTS = 30  # sentences of the Python docs through the shipped GPT-2: a run of about a second
K = 5
# The page's query string reaches the kernel (Voila's QUERY_STRING): ?lang=zh makes a Chinese widget.
NOTEBOOK = f"""import os, urllib.parse
from attn_widget import demo
from attn_widget.corpus import CorpusWidget, analyze_corpus
from attn_widget.corpus.sample import python_doc_sentences

lang = urllib.parse.parse_qs(os.environ.get("QUERY_STRING", "")).get("lang", ["en"])[0]
model, tokenizer = demo.pydoc_gpt2()
result = analyze_corpus(model, python_doc_sentences({TEXTS}), tokenizer, out=f"run-{{lang}}", progress=False)
widget = CorpusWidget(result, model, tokenizer, k={K}, lang=lang)
widget
"""


@pytest.fixture(scope="module")
def voila(tmp_path_factory):
    import nbformat

    folder = tmp_path_factory.mktemp("corpus-voila")
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(NOTEBOOK)])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, folder / "corpus.ipynb")
    port = free_port()
    args = [sys.executable, "-m", "voila", "corpus.ipynb", "--no-browser", f"--port={port}", "--Voila.ip=127.0.0.1"]
    with serving(args, port, folder):
        yield folder, f"http://127.0.0.1:{port}/"


def check_grid(page, result, statistic):
    """The grid as grid_shows wants it, once the kernel's updates have all arrived: they come one widget
    at a time (each cell's text, then its colours, then the key's), so the whole check is tried again
    until it holds or 30 s have passed."""
    deadline = time.monotonic() + 30
    while True:
        try:
            return grid_shows(page, result, statistic)
        except (AssertionError, IndexError, KeyError, ValueError):  # a key or cell not there yet, or still empty
            if time.monotonic() > deadline:
                raise
            page.wait_for_timeout(200)


def grid_shows(page, result, statistic):
    """Every cell is on the page; colours rise with the means from dark purple to yellow; text is legible."""
    table = result.heads.query("statistic == @statistic")
    means = {(int(r.layer), int(r.head)): r.mean for r in table.itertuples()}
    cells = cell_colours(page)
    assert sorted(cells) == sorted(means), "one cell per (layer, head)"
    assert all(shows(text, means[key]) for key, (_, _, text) in cells.items()), "each cell shows its mean"
    # The key's colours are the grid's, from its lowest to its highest, each labelled by a distinct value.
    key = page.eval_on_selector_all(
        ".attnw-corpus-key", "els => els.map((el) => [getComputedStyle(el).backgroundColor, el.textContent])"
    )
    assert rgb(key[0][0]) == VIRIDIS_LOW and rgb(key[-1][0]) == VIRIDIS_HIGH
    edges = [float(text) for _, text in key]
    assert edges == sorted(set(edges)) and shows(key[0][1], min(means.values()))
    ranked = sorted(means, key=means.get)
    assert cells[ranked[0]][0] == VIRIDIS_LOW and cells[ranked[-1]][0] == VIRIDIS_HIGH
    # Brighter with every step up the ranking (viridis' luminance rises monotonically).
    shades = [contrast(cells[key][0], (0, 0, 0)) for key in ranked]
    assert all(a <= b for a, b in zip(shades, shades[1:], strict=False))
    worst = min(contrast(background, text) for background, text, _ in cells.values())
    assert worst >= 4.5, f"cell text contrast {worst:.2f} is below WCAG AA"
    return cells


def option_texts(page) -> list[tuple[str, str]]:
    """(value, text) of each listed text; the select shows spaces as non-breaking ones."""
    labels = page.locator(".widget-select select option").all_inner_texts()
    return [tuple(label.replace("\xa0", " ").split(" · ", 1)) for label in labels]


def screenshot_opened(page, path) -> None:
    """A picture from the list of texts down to the end of the widget opened under it. Voila scrolls inside
    its own panel, not the page: the viewport is tall enough for the whole widget."""
    first = page.locator(".widget-select").bounding_box()
    whole = page.locator(".attnw-corpus").bounding_box()
    top = first["y"] - 8
    clip = {"x": whole["x"], "y": top, "width": whole["width"], "height": whole["y"] + whole["height"] - top}
    page.screenshot(path=str(path), clip=clip)


@contextlib.contextmanager
def voila_page(browser, url: str, failure: pathlib.Path):
    """A page on the notebook at ``url`` with its grid on screen; on leaving, no page error from the widgets.
    Voila runs the notebook before the page loads, hence the long waits. A full-page picture on failure."""
    page = browser.new_page(viewport={"width": 1000, "height": 1200})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(url, wait_until="commit", timeout=120000)
        page.wait_for_selector(".attnw-corpus-cell", timeout=120000)
        yield page
        assert [e for e in errors if "attnw" in e or "anywidget" in e.lower()] == []
    except Exception:
        page.screenshot(path=str(failure), full_page=True)
        raise
    finally:
        page.close()


def test_grid_texts_open_and_recolour(browser, voila, artifacts):
    folder, url = voila
    with voila_page(browser, url, artifacts / "corpus-voila-failure.png") as page:
        result = CorpusResult(folder / "run-en")
        assert len(result.texts) == TEXTS and result.shape == (4, 4)
        check_grid(page, result, "entropy")
        page.get_by_text(f"averaged over {TEXTS} texts").wait_for()

        # Another statistic recolours the grid from the stored means of that statistic.
        page.locator(".widget-dropdown select").select_option("previous_token")
        heads = result.heads.query("statistic == 'previous_token'")
        top = heads.loc[heads["mean"].idxmax()]
        layer, head = int(top["layer"]), int(top["head"])
        check_grid(page, result, "previous_token")

        # A click on the head that most attends to the previous token lists its texts in result.extreme's order.
        page.click(f".attnw-corpus-l{layer}-h{head}")
        page.get_by_text(f"Selected: layer {layer}, head {head}.").wait_for()
        expected = result.extreme("previous_token", layer, head, K)
        page.locator(".widget-select select option").nth(K - 1).wait_for(state="attached")
        listed = option_texts(page)
        assert [value for value, _ in listed] == [f"{value:.3f}" for value in expected["value"]]
        assert all(text[:98] == full[:98] for (_, text), full in zip(listed, expected["text"], strict=True))
        # The ring is the cell's own update, not the list's: wait for it rather than read it at once.
        ring = f"document.querySelector('.attnw-corpus-l{layer}-h{head}')"
        page.wait_for_function(f"getComputedStyle({ring}).borderTopWidth === '4px'", timeout=30000)
        assert page.evaluate(f"getComputedStyle({ring}).borderTopWidth") == "4px", "the selected head is ringed"
        assert illegible(page) == [], "text below WCAG AA contrast"
        # The README's picture (copied to docs/images/corpus-grid.png).
        page.locator(".attnw-corpus").screenshot(path=str(artifacts / "corpus-grid.png"))

        # Choosing the second text opens the AttentionWidget on it, at that layer and head (heads from 0 in both).
        page.locator(".widget-select select").select_option(index=1)
        page.wait_for_selector(".attnw-canvas", timeout=60000)
        page.wait_for_function(
            "([layer, head]) => document.querySelector('.attnw-layer-value')?.textContent.startsWith(layer + ' /')"
            " && document.querySelector('.attnw-head')?.value === String(head)",
            arg=[layer, head],
            timeout=30000,
        )
        page.get_by_text(f"Text {int(expected['index'][1])} at layer {layer}, head {head}").wait_for()
        page.wait_for_function("Number(document.querySelector('.attnw-canvas').dataset.edges) > 0")
        screenshot_opened(page, artifacts / "corpus-opened.png")


def test_dark_theme_in_chinese_stays_legible(browser, voila, artifacts):
    """The same server, in Voila's dark theme (?theme=dark) with a Chinese widget (?lang=zh, read by the
    notebook): a new kernel, the same checks of the grid, and every text, the key and the ring legible."""
    folder, url = voila
    failure = artifacts / "corpus-voila-dark-failure.png"
    with voila_page(browser, url + "?theme=dark&lang=zh", failure) as page:
        page.get_by_text(f"{TEXTS} 个文本的平均").wait_for()  # the caption, in Chinese
        ground = page_background(page)
        assert contrast(ground, (0, 0, 0)) < 2, f"the page is not dark: {ground}"
        result = CorpusResult(folder / "run-zh")
        check_grid(page, result, "entropy")
        # The lowest head is the darkest cell: its ring must show against it and against the dark page.
        means = result.heads.query("statistic == 'entropy'")
        low = means.loc[means["mean"].idxmin()]
        layer, head = int(low["layer"]), int(low["head"])
        page.click(f".attnw-corpus-l{layer}-h{head}")
        page.get_by_text(f"已选：第 {layer} 层，头 {head}。").wait_for()
        page.locator(".widget-select select option").nth(K - 1).wait_for(state="attached")
        cell = f"document.querySelector('.attnw-corpus-l{layer}-h{head}')"
        page.wait_for_function(f"getComputedStyle({cell}).borderTopWidth === '4px'", timeout=30000)  # its own update
        ring = page.eval_on_selector(f".attnw-corpus-l{layer}-h{head}", "el => getComputedStyle(el).borderTopColor")
        assert contrast(rgb(ring), ground) >= 3 and contrast(rgb(ring), VIRIDIS_LOW) >= 3, ring
        assert page.get_by_text("最大", exact=True).count() == 1, "the order buttons speak Chinese"
        assert illegible(page) == [], "text below WCAG AA contrast on the dark page"
        page.locator(".attnw-corpus").screenshot(path=str(artifacts / "corpus-grid-dark.png"))

        # The text opened from the list: the AttentionWidget follows both the dark theme and the language.
        page.locator(".widget-select select").select_option(index=0)
        page.wait_for_selector(".attnw-canvas", timeout=60000)
        page.wait_for_function("Number(document.querySelector('.attnw-canvas').dataset.edges) > 0")
        page.get_by_text(f"文本 {int(result.extreme('entropy', layer, head, K)['index'][0])}，第 {layer} 层").wait_for()
        names = page.eval_on_selector_all(".attnw-control-name", "spans => spans.map(s => s.textContent)")
        assert {"层", "头"} <= set(names), names
        screenshot_opened(page, artifacts / "corpus-opened-dark.png")
