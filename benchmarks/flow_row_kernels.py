"""The pinned row's kernel (greedy flow, then push-relabel) against an earlier commit's, side by side:

    .venv/bin/python benchmarks/flow_row_kernels.py --against 82d7b54            # MiniLM, 128, 256, 512 tokens
    .venv/bin/python benchmarks/flow_row_kernels.py --against 82d7b54 --sizes 512

``attn_widget/methods/_maxflow_row.py`` and ``_maxflow.py`` as they were at the given commit (``git show``) are
loaded beside the working tree's, and both run ``sinks_max_flow`` over every sink of a row on one thread, layer by
layer (layers >= 3; 1-2 are closed forms), on the same capacities in the same process, alternating, twice each
(the faster run counts). Each cell: seconds (sinks the greedy flow settled). The rows are the middle token and the
6th, as in ``flow_row.py``.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from _common import machine_line  # noqa: E402
from flow import minilm_attention, random_attention, table  # noqa: E402

from attn_widget import methods  # noqa: E402
from attn_widget.methods import _maxflow_row  # noqa: E402
from attn_widget.methods.flow import FlowSolver  # noqa: E402
from attn_widget.methods.flow_row import reversed_stack, upper_bounds  # noqa: E402


def kernel_at(commit: str, folder: str):
    """The ``_maxflow_row`` module of ``commit``, importing that commit's ``_maxflow`` (both loaded from git)."""
    root = os.path.join(os.path.dirname(__file__), "..")
    tag = f"_{commit.replace('-', '_').replace('~', '_').replace('^', '_')}"

    def load(name: str, rewrite: tuple[str, str] | None = None):
        source = subprocess.run(
            ["git", "show", f"{commit}:attn_widget/methods/{name}.py"], cwd=root, check=True, capture_output=True
        ).stdout.decode()
        if rewrite is not None:
            source = source.replace(*rewrite)
        path = os.path.join(folder, f"{name}{tag}.py")
        with open(path, "w") as file:
            file.write(source)
        spec = importlib.util.spec_from_file_location(f"{name}{tag}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        return module

    sys.path.insert(0, folder)
    load("_maxflow")
    module = load("_maxflow_row", ("from ._maxflow import", f"from _maxflow{tag} import"))
    if module.sinks_max_flow.py_func.__code__.co_argcount == 10:  # before 2026-12-02: also the transposes
        module.sinks_max_flow = with_transposes(module.sinks_max_flow)
    return module


def with_transposes(kernel):
    """An older ``sinks_max_flow(cap, cap_t, support, rev, rev_t, rev_support, ...)`` called as today's
    ``(cap, support, rev, rev_support, ...)``; each transpose is made once per array, as that commit made them
    outside the kernel (in ``FlowSolver`` and ``reversed_stack``)."""
    made: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def transposed(array: np.ndarray) -> np.ndarray:
        if id(array) not in made:  # keeps the array too, so its id is not reused
            made[id(array)] = (array, np.ascontiguousarray(array.transpose(0, 2, 1)))
        return made[id(array)][1]

    def call(cap, support, rev, rev_support, *rest):
        return kernel(cap, transposed(cap), support, rev, transposed(rev), rev_support, *rest)

    return call


def first(run: tuple[float, np.ndarray]) -> float:
    return run[0]


def one_layer(kernel, solver: FlowSolver, layer: int, i: int) -> tuple[float, np.ndarray]:
    """Seconds and ``(2, n)`` (flows, settled) of one kernel over every sink of row i at one layer."""
    upper = upper_bounds(solver.cap, layer, i)
    rev = reversed_stack(solver, layer)
    start = time.perf_counter()
    out = kernel.sinks_max_flow(solver.cap, solver.support, *rev, layer, i, np.arange(solver.n), upper)
    return time.perf_counter() - start, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--against", required=True, help="the commit whose kernel is 'before'")
    parser.add_argument("--sizes", type=int, nargs="+", default=[128, 256, 512])
    args = parser.parse_args()
    print(f"{machine_line()}; before = {args.against}")
    with tempfile.TemporaryDirectory() as folder:
        before = kernel_at(args.against, folder)
        warm = FlowSolver(methods.residual_augment(random_attention(4, 6)))
        for kernel in (before, _maxflow_row):  # compile outside the timings
            one_layer(kernel, warm, 3, 0)
        lines = []
        for n in args.sizes:
            solver = FlowSolver(methods.residual_augment(minilm_attention(n)))
            layers = list(range(3, solver.n_layers + 1))
            for i in (n // 2, 5):
                cells, totals, diff = [], [0.0, 0.0], 0.0
                for layer in layers:
                    runs = [one_layer(kernel, solver, layer, i) for kernel in (before, _maxflow_row) * 2]
                    (t0, o0), (t1, o1) = min(runs[0::2], key=first), min(runs[1::2], key=first)
                    totals[0] += t0
                    totals[1] += t1
                    diff = max(diff, float(np.abs(o0[0] - o1[0]).max()))
                    cells.append(f"{t0:.2f} ({int(o0[1].sum())}) → {t1:.2f} ({int(o1[1].sum())})")
                whole = f"{totals[0]:.2f} → {totals[1]:.2f} ({totals[0] / totals[1]:.2f}x)"
                lines.append([f"{n}, row {i}", *cells, whole, f"{diff:.1e}"])
        head = ["tokens, row", *(f"layer {layer}" for layer in layers), "layers 3-6", "max abs difference"]
        table("MiniLM (pretrained), one row, one thread: seconds (sinks settled), before → after", head, lines)


if __name__ == "__main__":
    main()
