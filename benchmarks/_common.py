"""What the benchmark scripts share: the machine line they print first, the text they run on and best-of
timing."""

from __future__ import annotations

import os
import platform
import time

from attn_widget.versions import versions_line


def machine_line() -> str:
    """The platform, the cores and the releases measured with: every script prints it first (RESULTS.md quotes it)."""
    return f"{platform.platform()}, {os.cpu_count()} CPUs; {versions_line()}"


WORDS = (
    "the committee said on tuesday that the new bridge over the river would open next spring after years of "
    "delays caused by funding disputes flooding and a shortage of steel while local shops hope that visitors "
    "will return once the road is finished"
).split()


def text_of(tokenizer, n: int, specials: int) -> str:
    """A news-like text of exactly n tokens, of which ``specials`` are the tokenizer's own ([CLS], [SEP])."""
    repeats = max(40, n // len(WORDS) + 1)  # every word is at least one token
    ids = tokenizer(" ".join(WORDS * repeats), add_special_tokens=False)["input_ids"][: n - specials]
    return tokenizer.decode(ids)


def best_of(repeat: int, function):
    """``(least seconds over repeat runs, the last result)``."""
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return min(times), result
