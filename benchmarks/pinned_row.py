"""A pinned token's flow row arriving layer by layer in the widget (attn_widget/pinned_row.py):

    .venv/bin/python benchmarks/pinned_row.py                       # MiniLM, 512 tokens, shown layers 6 and 3
    .venv/bin/python benchmarks/pinned_row.py --n 256 --shown 4
    .venv/bin/python benchmarks/pinned_row.py --against 94c6fb6    # each line also with that commit's kernel
    .venv/bin/python benchmarks/pinned_row.py --shape gpt2-small --n 2048 --shown 12 6   # a 12-layer GPT-2 shape

For each shown layer, a fresh widget (nothing cached) on an n-token text with flow shown at that layer,
once it has read every layer (``wait()``: a long input's are read in the background after the first picture),
pins the middle token and records when each publish of ``ready_row`` arrives: the seconds from the pin
to the shown layer (what the user waits for) and to each other layer, in the order they came. Then, in the
same process, the kernel alone on the same capacities (``flow_row.row_flows`` a layer at a time, in the order
the widget took, after building a ``FlowSolver``): the line "kernel alone" gives the seconds since its start, so
the difference to the widget's line is what the widget adds (making the capacities, sending each layer). With
``--shape`` the model is a random-weight one of ``benchmarks/scale.py``'s shapes (float32) instead of MiniLM. With
``--against REV`` each line runs twice more, side by side in this process: with the row kernel of commit REV
(``flow_row_kernels.kernel_at``) and with the working tree's again.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from _common import machine_line, text_of  # noqa: E402

from attn_widget import AttentionWidget  # noqa: E402
from attn_widget.demo import minilm  # noqa: E402
from attn_widget.methods import _maxflow_row  # noqa: E402


def arrivals(model, tokenizer, text: str, shown: int) -> list[tuple[list[int], float]]:
    """``[(new layers, seconds since the pin)]`` for each publish of the pinned row."""
    widget = AttentionWidget(model, text, tokenizer, method="flow", layer=shown)
    assert widget.ready["flow"] == [], "flow must be deferred (a long input)"
    widget.wait()  # every layer read: the pin's own cost, not the background read's
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
    return out, widget.analysis


def kernel_alone(analysis, steps: list[tuple[list[int], float]]) -> list[tuple[list[int], float]]:
    """The same rows from the kernel alone, on the capacities the widget used (``0.5·Ā + 0.5·I``), a step at a
    time in the widget's order: ``[(layers, seconds since the start)]``, the solver's making included."""
    from attn_widget import methods
    from attn_widget.methods.flow import FlowSolver
    from attn_widget.methods.flow_row import row_flows

    capacities = methods.residual_augment(analysis.raw(), 0.5)  # kept by the analysis: read, not computed
    start = time.perf_counter()
    solver = FlowSolver(capacities)
    out = []
    for layers, _ in steps:
        row_flows(solver, analysis.capture.n_tokens // 2, layers)
        out.append((layers, time.perf_counter() - start))
    return out


def line(label: str, shown: int, steps: list[tuple[list[int], float]]) -> str:
    first = next(t for layers, t in steps if shown in layers)
    rest = ", ".join(f"{'+'.join(map(str, layers))}: {t:.2f}" for layers, t in steps if shown not in layers)
    return f"| {shown}{label} | {first:.2f} s | {rest} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=512)
    parser.add_argument("--shown", type=int, nargs="+", default=[6, 3])
    parser.add_argument("--against", help="also run each line with this commit's row kernel, alternating")
    parser.add_argument("--shape", help="a random-weight model of benchmarks/scale.py's shapes instead of MiniLM")
    args = parser.parse_args()
    print(machine_line())
    if args.shape:
        from scale import build

        model, tokenizer = build(args.shape, "float32")
    else:
        model, tokenizer = minilm()
    name = args.shape or "MiniLM"
    text = text_of(tokenizer, args.n, 2)
    kernels = {"": _maxflow_row.sinks_max_flow}
    with tempfile.TemporaryDirectory() as folder:
        if args.against:
            from flow_row_kernels import kernel_at

            kernels = {f" ({args.against})": kernel_at(args.against, folder).sinks_max_flow, **kernels}
            kernels[" (this tree)"] = kernels.pop("")
        for kernel in kernels.values():  # compile (or load) the kernels outside the timings
            _maxflow_row.sinks_max_flow = kernel
            arrivals(model, tokenizer, text_of(tokenizer, 64, 2), 3)
        print(f"\n| shown layer ({args.n} tokens, {name}) | shown layer after | then (layers: seconds since the pin) |")
        print("|---|---|---|")
        for shown in args.shown:
            for label, kernel in list(kernels.items()) * (1 if len(kernels) == 1 else 2):  # alternating, twice
                _maxflow_row.sinks_max_flow = kernel
                steps, analysis = arrivals(model, tokenizer, text, shown)
                print(line(label, shown, steps), flush=True)
                print(line(f"{label}, kernel alone", shown, kernel_alone(analysis, steps)), flush=True)


if __name__ == "__main__":
    main()
