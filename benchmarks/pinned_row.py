"""A pinned token's flow row arriving layer by layer in the widget (attn_widget/pinned_row.py):

    .venv/bin/python benchmarks/pinned_row.py                       # MiniLM, 512 tokens, shown layers 6 and 3
    .venv/bin/python benchmarks/pinned_row.py --n 256 --shown 4

For each shown layer, a fresh widget (nothing cached) on an n-token text with flow shown at that layer
pins the middle token and records when each publish of ``ready_row`` arrives: the seconds from the pin
to the shown layer (what the user waits for) and to each other layer, in the order they came.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from _common import text_of  # noqa: E402

from attn_widget import AttentionWidget  # noqa: E402
from attn_widget.demo import minilm  # noqa: E402


def arrivals(model, tokenizer, text: str, shown: int) -> list[tuple[list[int], float]]:
    """``[(new layers, seconds since the pin)]`` for each publish of the pinned row."""
    widget = AttentionWidget(model, text, tokenizer, method="flow", layer=shown)
    assert widget.ready["flow"] == [], "flow must be deferred (a long input)"
    seen: list[int] = []
    out = []
    start = 0.0

    def published(change) -> None:
        layers = change["new"].get("flow", {}).get("layers", [])
        new = [layer for layer in layers if layer not in seen]
        if new:
            out.append((new, time.perf_counter() - start))
            seen.extend(new)

    widget.observe(published, "ready_row")
    start = time.perf_counter()
    widget.selected = {"side": "target", "index": len(widget.tokens) // 2}
    widget.wait()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=512)
    parser.add_argument("--shown", type=int, nargs="+", default=[6, 3])
    args = parser.parse_args()
    machine = f"{platform.platform()}, {os.cpu_count()} CPUs"
    print(f"{machine}, torch {torch.__version__}, python {platform.python_version()}")
    model, tokenizer = minilm()
    text = text_of(tokenizer, args.n, 2)
    arrivals(model, tokenizer, text, 3)  # compile (or load) the kernels outside the timings
    print(f"\n| shown layer ({args.n} tokens, MiniLM) | shown layer after | then (layers: seconds since the pin) |")
    print("|---|---|---|")
    for shown in args.shown:
        steps = arrivals(model, tokenizer, text, shown)
        first = next(t for layers, t in steps if shown in layers)
        rest = ", ".join(f"{'+'.join(map(str, layers))}: {t:.2f}" for layers, t in steps if shown not in layers)
        print(f"| {shown} | {first:.2f} s | {rest} |")


if __name__ == "__main__":
    main()
