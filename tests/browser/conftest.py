"""Real Debian Chromium driven by Playwright, and a tiny in-memory web server."""

from __future__ import annotations

import http.server
import json
import os
import pathlib
import threading

import pytest

from attn_widget import AttentionWidget

from .page import TEXT

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
STATIC = pathlib.Path(__file__).resolve().parents[2] / "attn_widget" / "static"
HARNESS = pathlib.Path(__file__).with_name("harness.html")


class PageServer:
    """Serves the built bundle, the harness page and one widget state, from memory."""

    def __init__(self):
        self.files: dict[str, tuple[bytes, str]] = {
            "/widget.js": ((STATIC / "widget.js").read_bytes(), "text/javascript"),
            "/widget.css": ((STATIC / "widget.css").read_bytes(), "text/css"),
            "/index.html": (HARNESS.read_bytes(), "text/html"),
        }
        files = self.files

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server API)
                body, kind = files.get(self.path.split("?")[0], (b"not found", "text/plain"))
                self.send_response(200 if body != b"not found" else 404)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/index.html"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def set_state(self, state: dict) -> None:
        self.files["/state.json"] = (json.dumps(state).encode(), "application/json")


# ATTNW_SLOW_PAINT_MS=150 runs every animation-frame callback that much later (in order), so a test
# that reads the view before its paint fails every time rather than on a slow CI machine now and then.
SLOW_FRAMES = """(() => {
    const request = window.requestAnimationFrame.bind(window), cancel = window.cancelAnimationFrame.bind(window);
    const late = new Map();
    let next = 1;
    window.requestAnimationFrame = (callback) => {
        const id = next++;
        late.set(id, request((t) => late.set(id, -setTimeout(() => (late.delete(id), callback(t)), DELAY))));
        return id;
    };
    window.cancelAnimationFrame = (id) => {
        const handle = late.get(id);
        late.delete(id);
        if (handle < 0) clearTimeout(-handle);
        else if (handle !== undefined) cancel(handle);
    };
})()"""


# The view records what tests read (paint ends, the edge canvas's geometry, ...) only on a page that asks
# (js/src/probes.js): every test page does.
PROBES = "window.attnwProbes = true;"


class TestBrowser:
    """Chromium whose pages ask for the view's probes, and run their animation frames late when
    ATTNW_SLOW_PAINT_MS is set (SLOW_FRAMES)."""

    def __init__(self, browser, delay_ms: int):
        self.browser = browser
        self.scripts = [PROBES, *([SLOW_FRAMES.replace("DELAY", str(delay_ms))] if delay_ms else [])]

    def new_page(self, *args, **kwargs):
        page = self.browser.new_page(*args, **kwargs)
        for script in self.scripts:
            page.add_init_script(script)
        return page


@pytest.fixture(scope="session")
def browser():
    from playwright import sync_api

    if not pathlib.Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian chromium (make test does this)")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        delay = int(os.environ.get("ATTNW_SLOW_PAINT_MS", "0"))
        yield TestBrowser(chromium, delay)
        chromium.close()


@pytest.fixture(scope="session")
def page_server():
    server = PageServer()
    yield server
    server.httpd.shutdown()


@pytest.fixture(scope="module")
def minilm_widget(minilm):
    """MiniLM on page.TEXT, one per test module (modules change its traits)."""
    model, tokenizer = minilm
    return AttentionWidget(model, TEXT, tokenizer)
