"""Cost of the context-mixing maps against the model's own forward pass, side by side.

    .venv/bin/python benchmarks/mixing.py [--rounds 3] [--tokens 512]

Model: MiniLM (all-MiniLM-L6-v2, pretrained BERT-style encoder: 6 layers, 12 heads, width 384),
offline. Times are the best of ``--rounds`` runs in this process: the forward pass is the model
called the way attn_widget calls it (eager attention, attentions and hidden states returned);
"structure pass" is the extra hooked forward pass that finds and verifies the block structure
(``models/blocks.py``), made once per analysis and shared by norm_residual, globenc and alti;
each method's time is all layers from a finished capture and structure (the f^h(x_j) vectors
recomputed each time). Peak extra memory: each method runs again in a fresh subprocess, and a
thread samples the process's resident set size (/proc/self/statm) every millisecond; the figure
is the peak minus the level just before the call (after malloc_trim), so it counts every
allocation, torch's included.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import os
import subprocess
import sys
import threading
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from _common import best_of, machine_line, text_of  # noqa: E402

from attn_widget import analyze  # noqa: E402
from attn_widget.demo import minilm  # noqa: E402
from attn_widget.parts.mixing import Mixing  # noqa: E402

NAMES = ("norm", "norm_residual", "globenc", "alti")
_PAGE = os.sysconf("SC_PAGE_SIZE")


def rss() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * _PAGE


def peak_extra(function) -> int:
    """Bytes: the peak resident set size while ``function`` runs, above the level before it."""
    with contextlib.suppress(OSError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    base, peak, running = rss(), [0], [True]

    def sample():
        while running[0]:
            peak[0] = max(peak[0], rss())
            time.sleep(0.001)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    try:
        function()
    finally:
        running[0] = False
        thread.join()
    return max(peak[0], rss()) - base


def setup(tokens: int):
    model, tokenizer = minilm()
    text = text_of(tokenizer, tokens, 2)
    analysis = analyze(model, text, tokenizer)
    assert analysis.capture.n_tokens == tokens, analysis.capture.n_tokens
    return model, tokenizer, text, analysis


def fresh(analysis) -> Mixing:
    return Mixing(analysis)


def memory_child(name: str, tokens: int) -> None:
    """In a subprocess: the peak extra memory of one method (or "structure"), printed as JSON."""
    torch.set_num_threads(os.cpu_count() or 1)
    _, _, _, analysis = setup(tokens)
    mixing = Mixing(analysis)
    if name == "structure":
        extra = peak_extra(mixing.structure)
    else:
        mixing.structure()
        extra = peak_extra(lambda: mixing.map(name))
    print(json.dumps({"name": name, "bytes": extra}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tokens", type=int, default=512)
    parser.add_argument("--memory-child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_child:
        memory_child(args.memory_child, args.tokens)
        return
    torch.set_num_threads(os.cpu_count() or 1)
    model, tokenizer, text, analysis = setup(args.tokens)
    inputs = tokenizer(text, return_tensors="pt")

    def forward():
        with torch.no_grad():
            model(**inputs, output_attentions=True, output_hidden_states=True)

    forward()
    mixing = Mixing(analysis)
    structure = mixing.structure()  # warm-up
    times = {}
    t_forward, _ = best_of(args.rounds, forward)

    def structure_pass():
        Mixing(analysis).structure()

    times["structure pass"] = best_of(args.rounds, structure_pass)[0]
    for name in NAMES:

        def compute(name=name):
            m = Mixing(analysis)
            m._structure = structure
            m.map(name)

        times[name] = best_of(args.rounds, compute)[0]
    t_forward_after, _ = best_of(args.rounds, forward)
    t_forward = min(t_forward, t_forward_after)
    memory = {}
    for name in ("structure", *NAMES):
        out = subprocess.run(
            [sys.executable, __file__, "--memory-child", name, "--tokens", str(args.tokens)],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        memory["structure pass" if name == "structure" else name] = json.loads(out.stdout.strip().splitlines()[-1])[
            "bytes"
        ]
    print(f"# context mixing cost\n\n{machine_line()}\n")
    print(f"MiniLM, {args.tokens} tokens, best of {args.rounds}; forward pass {t_forward:.3f} s\n")
    print("| computation | seconds | / forward pass | peak extra memory MB |")
    print("|---|---|---|---|")
    for name, seconds in times.items():
        print(f"| {name} | {seconds:.3f} | {seconds / t_forward:.2f} | {memory[name] / 2**20:.0f} |")
    total = times["structure pass"] + times["alti"]
    print(f"\nALTI from a capture, structure pass included: {total:.3f} s = {total / t_forward:.2f} forward passes")


if __name__ == "__main__":
    main()
