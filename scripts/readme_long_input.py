"""The README's long-input picture, docs/images/long_input.png: MiniLM on a 512-token story, raw attention at
layer 6, the token window around a pinned "hundred" (37 legible rows, the strip at the right, off-window edges
ending in labelled markers), in Debian Chromium on the browser tests' harness page.

    .venv/bin/python scripts/readme_long_input.py
"""

from __future__ import annotations

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]

from browser.conftest import CHROMIUM, CHROMIUM_ARGS, PageServer  # noqa: E402
from browser.page import open_state  # noqa: E402
from payload_fixtures import widget_state  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from attn_widget import AttentionWidget  # noqa: E402
from attn_widget.demo import minilm  # noqa: E402

STORY = (
    "Every spring the water rose and the town watched it with worry. The old bridge over the river had stood for two "
    "hundred years. In the end the committee said that the new bridge would open next spring, after two years of work "
    "and many delays caused by floods, strikes and a shortage of steel. "
)


def main() -> None:
    model, tokenizer = minilm()
    text = ""
    for word in (STORY * 12).split():  # as many words as fit in 512 tokens
        longer = f"{text} {word}".strip()
        if len(tokenizer(longer)["input_ids"]) > 512:
            break
        text = longer
    widget = AttentionWidget(model, text, tokenizer, layer=6)
    pinned = min((i for i, token in enumerate(widget.tokens) if token == "hundred"), key=lambda i: abs(i - 275))
    widget.window = [pinned - 18, 0]
    widget.selected = {"side": "target", "index": pinned}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page, errors = open_state(browser, PageServer(), widget_state(widget))
        page.wait_for_timeout(1500)  # the markers and the strip settle
        page.locator(".attnw-root").screenshot(path=str(ROOT / "docs" / "images" / "long_input.png"))
        assert errors == [], errors
        browser.close()


if __name__ == "__main__":
    main()
