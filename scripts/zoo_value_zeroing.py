"""Value zeroing and hidden token attribution on every "full" family of the zoo (tests/zoo.py).

    .venv/bin/python scripts/zoo_value_zeroing.py     # prints a Markdown table, about a minute

tests/test_value_zeroing.py runs the families with particular needs; this script runs them
all and says, per family, whether each method computes (rows stochastic, exact zeros on the
keys a layer's mask hides), how value zeroing found the value columns, whether the block's
arguments had to be tiled to a batch, and which derivative mode the attribution used.
"""

from __future__ import annotations

import logging
import pathlib
import sys
import warnings

import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from zoo import FAMILIES, zoo_tokenizer  # noqa: E402

from attn_widget.capture import capture  # noqa: E402
from attn_widget.methods import hidden_attribution  # noqa: E402
from attn_widget.methods.value_zeroing import value_zeroing_maps  # noqa: E402
from attn_widget.models import replay  # noqa: E402

TEXT = "the cat sat on the mat"


def stochastic(maps: torch.Tensor) -> bool:
    return bool(torch.allclose(maps.sum(-1), torch.ones(maps.shape[:2], dtype=torch.float64), atol=1e-9))


def value_zeroing_cells(model, tokenizer, record) -> list[str]:
    try:
        maps = value_zeroing_maps(model, tokenizer, record)
    except Exception as exc:  # the message is the table's content
        return [f"{type(exc).__name__}: {exc}", ""]
    exact = stochastic(maps) and bool((maps[~record.masks] == 0).all())
    calls = replay.record_and_check(model, record.model_inputs, record.n_layers, replay.tolerance(record.model_dtype))
    tiled = "tiled" if any(call.tiled for call in calls) else "as recorded"
    return [f"{'ok' if exact else 'WRONG'} ({record.value_layout})", tiled]


def attribution_cell(model, tokenizer, record) -> str:
    modes = []
    original = {name: getattr(hidden_attribution, name) for name in ("_dual_copies", "_reverse_mode")}
    for name, function in original.items():  # note which fallback ran
        setattr(hidden_attribution, name, lambda *a, name=name, f=function: modes.append(name) or f(*a))
    try:
        maps = hidden_attribution.hidden_attribution_maps(model, tokenizer, record)
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    finally:
        for name, function in original.items():
            setattr(hidden_attribution, name, function)
    exact = stochastic(maps) and (not record.causal or bool((maps.triu(1) == 0).all()))
    mode = "reverse mode" if "_reverse_mode" in modes else "dual copies" if modes else "vmap over jvp"
    return f"{'ok' if exact else 'WRONG'} ({mode})"


def main() -> None:
    warnings.filterwarnings("ignore")
    logging.disable(logging.WARNING)
    tokenizer = zoo_tokenizer()
    print("| family | value zeroing (layout) | block arguments | hidden attribution |")
    print("|---|---|---|---|")
    for family in FAMILIES:
        if family.expect != "full":
            continue
        model = family.build()
        record = capture(model, TEXT, tokenizer)
        cells = value_zeroing_cells(model, tokenizer, record) + [attribution_cell(model, tokenizer, record)]
        print(f"| {family.name} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
