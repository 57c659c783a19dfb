"""One row of attention flow at every layer (what pinning a token on a long input computes), side by side:

    .venv/bin/python benchmarks/flow_row.py                 # MiniLM at 128, 256, 512 tokens (a few minutes)
    .venv/bin/python benchmarks/flow_row.py --sizes 128     # one size

- old: ``FlowSolver.row`` for layers 1..L, one push-relabel per (layer, sink) on one thread (what
  ``Analysis.flow_rows`` did before);
- new: ``methods.flow_row.row_flows`` (greedy flow first, push-relabel for the sinks it does not
  settle), on every core, and on one thread.
Both run on the same capacities in the same process; "max abs difference" is between their
unnormalised max-flow values. The rows are the middle token and a word near the start.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from _common import best_of, machine_line  # noqa: E402
from flow import minilm_attention, random_attention, table  # noqa: E402

from attn_widget import methods  # noqa: E402
from attn_widget.methods.flow import FlowSolver, _workers  # noqa: E402
from attn_widget.methods.flow_row import row_flows  # noqa: E402


def old_row(solver: FlowSolver, i: int, layers: list[int]) -> np.ndarray:
    return np.stack([solver.row(layer, i) for layer in layers])


def per_layer(solver: FlowSolver, i: int, layers: list[int]) -> list[str]:
    """Seconds of the new path for each layer alone (one thread), and the sinks the greedy flow settled."""
    cells = []
    for layer in layers:
        t, (_, settled) = best_of(1, lambda layer=layer: row_flows(solver, i, [layer], workers=1))
        cells.append(f"{t:.2f} ({settled})" if layer >= 3 else f"{t:.3f}")
    return cells


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[128, 256, 512])
    args = parser.parse_args()
    print(f"# one flow row at every layer\n\n{machine_line()}")
    warm = FlowSolver(methods.residual_augment(random_attention(4, 6)))
    row_flows(warm, 0, [3, 4])  # compile (or load) the kernels outside the timings
    old_row(warm, 0, [3, 4])

    rows, layer_rows = [], []
    for n in args.sizes:
        att = minilm_attention(n)
        solver = FlowSolver(methods.residual_augment(att))
        layers = list(range(1, att.shape[0] + 1))
        for i in (n // 2, 5):
            t_old, f_old = best_of(1, lambda i=i, s=solver, ls=layers: old_row(s, i, ls))
            t_new, (f_new, settled) = best_of(1, lambda i=i, s=solver, ls=layers: row_flows(s, i, ls))
            t_one, (f_one, _) = best_of(1, lambda i=i, s=solver, ls=layers: row_flows(s, i, ls, workers=1))
            diff = max(np.abs(f_new - f_old).max(), np.abs(f_one - f_old).max())
            pairs = n * (len(layers) - 2)
            rows.append(
                [
                    f"{n}, row {i}",
                    f"{t_old:.2f}",
                    f"{t_new:.2f}",
                    f"{t_old / t_new:.1f}x",
                    f"{t_one:.2f}",
                    f"{t_old / t_one:.1f}x",
                    f"{settled} of {pairs}",
                    f"{diff:.1e}",
                ]
            )
            layer_rows.append([f"{n}, row {i}", *per_layer(solver, i, layers)])
    table(
        f"MiniLM (pretrained), real text: one row at all {len(layers)} layers, seconds",
        [
            "tokens, row",
            "old (1 thread)",
            f"new ({_workers()} threads)",
            "old / new",
            "new, 1 thread",
            "old / new, 1 thread",
            "sinks settled by the greedy flow (layers ≥ 3)",
            "max abs difference",
        ],
        rows,
    )
    table(
        "the new path layer by layer, 1 thread: seconds (sinks settled by the greedy flow)",
        ["tokens, row", *(f"layer {layer}" for layer in layers)],
        layer_rows,
    )


if __name__ == "__main__":
    main()
