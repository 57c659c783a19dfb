"""Cost of value zeroing and of hidden token attribution, beside one plain forward pass.

    .venv/bin/python benchmarks/value_zeroing.py [--rounds 3] [--tokens 128] [--lengths 8 12 16]

Model: MiniLM (pretrained encoder, 6 layers, 12 heads, width 384), offline. Value zeroing
runs all layers at ``--tokens`` (n re-runs of each block, batched); its time includes
recording and checking the blocks, not the capture. Hidden token attribution runs at each
of ``--lengths`` (n·d forward-mode tangents in batches), and, for the forward- versus
reverse-mode choice, one reverse-mode reference at the shortest length (L·n·d cotangents,
``torch.autograd.grad(..., is_grads_batched=True)``). Times are the best of ``--rounds`` runs
in this process (one run for the hidden attribution, which is long).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from _common import best_of, machine_line, text_of  # noqa: E402

from attn_widget.capture import capture  # noqa: E402
from attn_widget.demo import minilm  # noqa: E402
from attn_widget.parts.hidden_attribution import hidden_attribution_maps  # noqa: E402
from attn_widget.parts.value_zeroing import value_zeroing_maps  # noqa: E402


def forward_seconds(model, tokenizer, text: str, rounds: int) -> float:
    inputs = tokenizer(text, return_tensors="pt")

    def forward():
        with torch.no_grad():
            model(**inputs, output_attentions=True, output_hidden_states=True)

    forward()
    return best_of(rounds, forward)[0]


def reverse_mode_seconds(model, tokenizer, text: str, batch: int = 384) -> float:
    """Reverse-mode reference: every block output coordinate's gradient w.r.t. the word embeddings."""
    inputs = tokenizer(text, return_tensors="pt")
    start = time.perf_counter()
    embeds = model.get_input_embeddings()(inputs["input_ids"]).detach().requires_grad_(True)
    outputs = model(inputs_embeds=embeds, attention_mask=inputs["attention_mask"], output_hidden_states=True)
    hidden = torch.stack(outputs.hidden_states[1:])[:, 0]  # (L, n, d); no final norm in MiniLM
    flat = hidden.reshape(-1)
    for first in range(0, flat.numel(), batch):
        rows = torch.arange(first, min(flat.numel(), first + batch))
        cotangents = torch.zeros(len(rows), flat.numel())
        cotangents[torch.arange(len(rows)), rows] = 1
        torch.autograd.grad(flat, embeds, cotangents, retain_graph=True, is_grads_batched=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--lengths", type=int, nargs="+", default=[8, 12, 16])
    args = parser.parse_args()
    torch.set_num_threads(os.cpu_count() or 1)
    print(f"# value zeroing and hidden token attribution\n\n{machine_line()}\n")
    model, tokenizer = minilm()
    print("| method | tokens | forward pass s | method s | method / forward |")
    print("|---|---|---|---|---|")
    text = text_of(tokenizer, args.tokens, 2)
    record = capture(model, text, tokenizer)
    assert record.n_tokens == args.tokens, record.n_tokens
    t_forward = forward_seconds(model, tokenizer, text, args.rounds)
    t_method, _ = best_of(args.rounds, lambda: value_zeroing_maps(model, tokenizer, record))
    print(f"| value zeroing | {args.tokens} | {t_forward:.3f} | {t_method:.2f} | {t_method / t_forward:.0f} |")
    for n in args.lengths:
        text = text_of(tokenizer, n, 2)
        record = capture(model, text, tokenizer)
        t_forward = forward_seconds(model, tokenizer, text, args.rounds)
        t_method, _ = best_of(1, lambda record=record: hidden_attribution_maps(model, tokenizer, record))
        print(f"| hidden attribution (forward mode) | {n} | {t_forward:.3f} | {t_method:.2f} "
              f"| {t_method / t_forward:.0f} |")  # fmt: skip
    n = min(args.lengths)
    text = text_of(tokenizer, n, 2)
    t_reverse = reverse_mode_seconds(model, tokenizer, text)
    t_forward = forward_seconds(model, tokenizer, text, args.rounds)
    print(f"| hidden attribution (reverse mode, reference) | {n} | {t_forward:.3f} | {t_reverse:.2f} "
          f"| {t_reverse / t_forward:.0f} |")  # fmt: skip


if __name__ == "__main__":
    main()
