"""Helpers for the browser tests that open the widget on the static harness page (harness.html, served
by conftest's page_server): open it on a widget's state, wait for its paints and idle work, find token rows
and read canvas pixels."""

from __future__ import annotations

from collections.abc import Callable

from payload_fixtures import widget_state

# The sentence most browser tests show (on MiniLM).
TEXT = "The animal didn't cross the street because it was too tired."


def open_widget(browser, server, widget, *, track_idle: bool = False, controls: str = "all"):
    return open_state(browser, server, widget_state(widget), track_idle=track_idle, controls=controls)


def open_state(browser, server, state: dict, *, track_idle: bool = False, controls: str = "all"):
    """Open the harness on a widget state (as widget_state writes it); track_idle: count the page's
    idle work (IDLE_WORK), for wait_idle_work. controls: the bar, every control by default (the tests of a
    control use it without clicking More first; test_basic_panel.py tests the basic bar a widget opens with)."""
    server.set_state({**state, "controls": controls})
    page = browser.new_page(viewport={"width": 800, "height": 900})
    if track_idle:
        page.add_init_script(IDLE_WORK)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("dialog", lambda dialog: errors.append(f"dialog: {dialog.message}"))
    page.goto(server.url)
    page.wait_for_function("window.ready === true")
    page.wait_for_selector("canvas.attnw-canvas")
    return page, errors


def download(page, button: str, path) -> None:
    """Click a download button of the view and save what it offers at ``path``."""
    with page.expect_download() as info:
        page.click(button)
    info.value.save_as(path)


def record_sent(page) -> None:
    """From now on, ``window.sent`` lists every message the view sends to Python."""
    page.evaluate("""() => {
        window.sent = [];
        const send = window.model.send;
        window.model.send = (content) => { window.sent.push(content); send(content); };
    }""")


def geometry(page) -> dict:
    return page.eval_on_selector(
        "canvas.attnw-canvas",
        "c => ({left: +c.dataset.leftX, right: +c.dataset.rightX, top: +c.dataset.top, row: +c.dataset.rowHeight})",
    )


def painted(page) -> str:
    """The view's data-paint-end once every paint already asked for has run. The view paints in the
    animation frame after a change (render.js schedule); a frame callback asked for now runs after
    the ones asked for before it, in the same frame."""
    return page.evaluate(
        "() => new Promise(done => requestAnimationFrame(() =>"
        " done(document.querySelector('.attnw-root').dataset.paintEnd)))"
    )


def and_paint(page, action: Callable[[], object]) -> None:
    """Do ``action`` (a click, a key, a control change, a model.set, a resize: anything that changes
    what the view shows) and wait until the view has painted it. Reading the DOM or the canvas at
    once would race the paint. A paint asked for before the action could end between the action
    and the wait: hence painted() first. An action may paint twice (a click moves the pointer
    first: a hover's paint, then the pin's): hence painted() last, once a paint has come (the
    wheel's events, for one, are handled after mouse.wheel returns)."""
    before = painted(page)
    action()
    page.wait_for_function("b => document.querySelector('.attnw-root').dataset.paintEnd !== b", arg=before)
    painted(page)


def set_width(page, width: int) -> None:
    """Make the harness's body ``width`` px wide and wait for the repaint at that width."""
    if page.evaluate("document.querySelector('.attnw-root').clientWidth") == width:
        return
    and_paint(page, lambda: page.evaluate("w => { document.body.style.width = `${w}px`; }", width))
    assert page.evaluate("document.querySelector('.attnw-root').clientWidth") == width


# Counts the idle work a page has asked for and not done yet: idle callbacks, and the messages the
# edge canvas posts to itself to go on within an idle period (raster.js draws pictures ahead so).
# Install before the page loads; wait_idle_work waits on it.
IDLE_WORK = """(() => {
    let asked = 0, posted = 0;
    const waiting = new Set();
    const request = window.requestIdleCallback.bind(window), cancel = window.cancelIdleCallback.bind(window);
    window.requestIdleCallback = (callback, options) => {
        asked++;
        const id = request((deadline) => { waiting.delete(id); callback(deadline); }, options);
        waiting.add(id);
        return id;
    };
    window.cancelIdleCallback = (id) => { waiting.delete(id); cancel(id); };
    const post = MessagePort.prototype.postMessage;
    MessagePort.prototype.postMessage = function (...args) { posted++; return post.apply(this, args); };
    const Channel = window.MessageChannel;
    window.MessageChannel = function () {
        const channel = new Channel();
        for (const port of [channel.port1, channel.port2]) port.addEventListener("message", () => posted--);
        return channel;
    };
    window.idleWork = () => ({ asked, pending: waiting.size + posted });
})()"""


def idle_asked(page) -> int:
    """How many idle callbacks the page has asked for so far (IDLE_WORK)."""
    return page.evaluate("window.idleWork().asked")


def wait_idle_work(page, asked_before: int = 0) -> None:
    """Wait until the page has asked for idle work since it had asked ``asked_before`` times, and
    done all it asked for (pictures drawn ahead, or given up). Polled every 100 ms, each poll asking
    for one animation frame: after a key press, headless Chromium starts no idle period until a frame
    is asked for (seen on a plain page with a range input too: not the widget's doing), while polling
    in every frame cut each idle period to a frame's remainder, too short for a whole-model stroke on
    a slow machine, until the drawing ahead gave up (raster.js MAX_SKIPS; it failed once in CI so)."""
    page.wait_for_function(
        "b => { requestAnimationFrame(() => {}); const w = window.idleWork(); return w.asked > b && w.pending === 0; }",
        arg=asked_before,
        polling=100,
    )


def row_point(page, x: float, index: int) -> tuple[float, float]:
    """Page coordinates of the centre of token row ``index`` at canvas x."""
    box = page.locator("canvas.attnw-canvas").bounding_box()
    g = geometry(page)
    return box["x"] + x, box["y"] + g["top"] + (index + 0.5) * g["row"]


def max_alpha(page, x: float, y: float, radius: int = 1) -> int:
    """Largest alpha in a small square of edge-canvas pixels around CSS point (x, y)."""
    return max_alpha_of(page, "canvas.attnw-canvas", x, y, radius)


def max_alpha_of(page, canvas: str, x: float, y: float, radius: int = 1) -> int:
    """Largest alpha in a small square of pixels of one canvas around CSS point (x, y)."""
    return page.eval_on_selector(
        canvas,
        """(c, [x, y, r]) => {
            const dpr = c.width / c.clientWidth;
            const px = Math.round(x * dpr), py = Math.round(y * dpr);
            const d = c.getContext('2d').getImageData(px - r, py - r, 2 * r + 1, 2 * r + 1).data;
            let max = 0;
            for (let i = 3; i < d.length; i += 4) max = Math.max(max, d[i]);
            return max;
        }""",
        [x, y, radius],
    )
