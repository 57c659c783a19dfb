"""The widget in the notebook and app hosts beyond JupyterLab (tests/browser/test_jupyter.py), each
end to end in real Chromium with a live kernel: Voila (a notebook served as an app), marimo
(``mo.ui.anywidget``) and Solara. In each, the widget renders, a move of the layer slider reaches
Python (which answers with a line the page shows), and the widget follows the host's dark theme
where the host has a usable one.

Panel was tried too: its ipywidgets bridge (ipywidgets_bokeh) loads anywidget's front end from
unpkg.com, so offline it shows nothing (README: "Notebook hosts")."""

from __future__ import annotations

import re
import sys

import pytest
from playwright.sync_api import expect

from .servers import free_port, serving

pytestmark = [pytest.mark.browser, pytest.mark.jupyter]

# The shipped GPT-2 (attn_widget/data): small, offline. `echo` is Python's answer to a layer change.
MAKE = """from attn_widget import AttentionWidget, demo

model, tokenizer = demo.pydoc_gpt2()
widget = AttentionWidget(model, "The for statement iterates over a list.", tokenizer)
"""

VOILA = (
    MAKE
    + """import ipywidgets

echo = ipywidgets.Label(f"kernel layer {widget.layer}")
widget.observe(lambda change: setattr(echo, "value", f"kernel layer {change['new']}"), "layer")
ipywidgets.VBox([widget, echo])
"""
)

MARIMO = f"""import marimo

app = marimo.App()


@app.cell
def _():
    import marimo as mo
{"".join("    " + line + chr(10) if line else chr(10) for line in MAKE.splitlines())}
    shown = mo.ui.anywidget(widget)
    shown
    return (shown,)


@app.cell
def _(shown):
    echo = f"kernel layer {{shown.value['layer']}}"
    echo
    return
"""

# Solara: widgets belong to a session, so the page makes its widget (once per session).
SOLARA = (
    MAKE.replace("widget = ", "make = lambda: ")
    + """import solara


@solara.component
def Page():
    widget = solara.use_memo(make, [])
    layer, set_layer = solara.use_state(widget.layer)

    def follow():
        def on_layer(change):
            set_layer(change["new"])

        widget.observe(on_layer, "layer")
        return lambda: widget.unobserve(on_layer, "layer")

    solara.use_effect(follow, [widget])
    solara.display(widget)
    solara.Text(f"kernel layer {layer}")
"""
)

# The middle of the legend's colour table (js/src/colormap.js): light pages, dark pages.
MIDDLE = {"light": "rgb(33, 112, 180)", "dark": "rgb(139, 201, 39)"}


def voila(port, folder, theme):
    import nbformat

    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(VOILA)])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, folder / "widget.ipynb")
    args = [sys.executable, "-m", "voila", "widget.ipynb", "--no-browser", f"--port={port}", "--Voila.ip=127.0.0.1"]
    return [*args, f"--theme={theme}"], {}


def marimo(port, folder, theme):
    (folder / "app.py").write_text(MARIMO)
    # marimo's display theme is a user setting: a config folder of this test's own.
    (folder / "config" / "marimo").mkdir(parents=True)
    (folder / "config" / "marimo" / "marimo.toml").write_text(f'[display]\ntheme = "{theme}"\n')
    args = [sys.executable, "-m", "marimo", "run", "app.py", "--headless", "--no-token"]
    return [*args, "--host", "127.0.0.1", "--port", str(port)], {"XDG_CONFIG_HOME": str(folder / "config")}


def solara(port, folder, theme):
    (folder / "app.py").write_text(SOLARA)
    args = [sys.executable, "-m", "solara", "run", "app.py", "--no-open", "--host", "127.0.0.1", "--port", str(port)]
    env = {"SOLARA_THEME_VARIANT": theme, "SOLARA_THEME_SHOW_BANNER": "False", "SOLARA_TELEMETRY_MIXPANEL_ENABLE": "0"}
    return args, env


HOSTS = {"voila": voila, "marimo": marimo, "solara": solara}


# Solara's dark variant (SOLARA_THEME_VARIANT=dark) sets Jupyter's text colour to white but leaves the page's
# content sheet white (Vuetify 3's v-theme--light, measured in 1.58.2): any widget output there, an ipywidgets
# Label included, is white on white. Solara runs in its light theme only.
THEMES = {"voila": ("light", "dark"), "marimo": ("light", "dark"), "solara": ("light",)}


@pytest.fixture(scope="module", params=[(host, theme) for host in HOSTS for theme in THEMES[host]], ids=str)
def host(request, tmp_path_factory):
    name, theme = request.param
    folder = tmp_path_factory.mktemp(f"{name}-{theme}")
    port = free_port()
    args, env = HOSTS[name](port, folder, theme)
    with serving(args, port, folder, env):
        yield name, theme, f"http://127.0.0.1:{port}/"


def test_the_widget_renders_syncs_and_follows_the_theme(browser, host, artifacts):
    name, theme, url = host
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        # Voila runs the notebook before it sends the page: the page commits long before it loads.
        page.goto(url, wait_until="commit", timeout=120000)
        page.wait_for_selector("canvas.attnw-canvas", timeout=120000)
        assert int(page.get_attribute("canvas.attnw-canvas", "data-edges")) > 0
        page.get_by_text("kernel layer 1").wait_for(timeout=30000)

        slider = page.locator(".attnw-layer")
        slider.focus()
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        page.get_by_text("kernel layer 3").wait_for(timeout=30000)  # Python got the move and answered
        # The view paints in the animation frame after the move: the colours below are that paint's.
        # (A locator: marimo shows the widget in a shadow root, which document.querySelector misses.)
        expect(page.locator(".attnw-layer-value")).to_have_text(re.compile(r"^3 /"))

        text = page.eval_on_selector(".attnw-root", "el => getComputedStyle(el).color")
        assert page.get_attribute(".attnw-legend", "data-mid") == MIDDLE[theme], f"{name} {theme}: text {text}"
        page.locator(".attnw-root").screenshot(path=str(artifacts / f"host-{name}-{theme}.png"))
        # Other extensions of a host may fail to load (Voila loads every installed lab extension); ours may not.
        assert [e for e in errors if "attnw" in e or "anywidget" in e.lower()] == []
    except Exception:
        page.screenshot(path=str(artifacts / f"host-{name}-{theme}-failure.png"))
        raise
    finally:
        page.close()
