"""The user's process settings are left as found: numba's parallel kernels (the norm-based and ALTI maps) start
an OpenMP threading layer that set the thread count torch's intra-op pool reads. In a fresh interpreter, since
only the first kernel of a process does it."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

TESTS = pathlib.Path(__file__).resolve().parent

SCRIPT = """
import sys, torch
sys.path.insert(0, {tests!r})
torch.set_num_threads({threads})
from tiny_models import tiny_model, tiny_tokenizer
from attn_widget import analyze
analysis = analyze(tiny_model("bert"), "the cat sat on the mat", tiny_tokenizer())
seen = [torch.get_num_threads()]
for method in ("norm", "alti"):
    analysis.mixing(method)
    seen.append(torch.get_num_threads())
print(seen)
"""


@pytest.mark.parametrize("threads", [1, 3])
def test_the_context_mixing_kernels_leave_torchs_thread_count_as_the_user_set_it(threads):
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(tests=str(TESTS), threads=threads)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-3:] == [f"[{threads},", f"{threads},", f"{threads}]"]
