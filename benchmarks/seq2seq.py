"""Cost of analysing an encoder-decoder and a vision transformer, in forward passes, side by side.

    .venv/bin/python benchmarks/seq2seq.py [--repeat 5] [--no-flow]

Encoder-decoder: a T5-small-shaped T5 with random weights (6 + 6 layers, d_model 512, 8 heads of
width 64, d_ff 2048, vocabulary 32128) on a 128-token source and a given 32-token target (the
decoder start token and 31 labels; MiniLM's WordPiece tokenizer). "analyze + rollout" is
``analyze(model, source, tokenizer, target=...)`` followed by ``.rollout()``; the forward pass is the
same model called once on the same inputs (eager attention, ``torch.no_grad``). Both are timed in
turns, ``--repeat`` times each, and the medians compared. Two loadings of the model: with
``attn_implementation="eager"`` and with transformers' default (sdpa), for which attn_widget first
computes the model's own output to check the eager pass against it (one pass more).
Then ``.flow()`` (exact attention flow through cross-attention, all 6 decoder layers), once.

Vision: a ViT-B/16-shaped ViT with random weights (12 layers, 12 heads, 768 wide, 224 px, patch 16:
197 tokens); ``analyze(model, image)`` + ``.rollout()`` against one forward pass of the same pixels.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from _common import machine_line, text_of  # noqa: E402

from attn_widget import analyze  # noqa: E402
from attn_widget.demo import minilm  # noqa: E402
from attn_widget.vision import pixel_values  # noqa: E402


def t5_small(attn_implementation: str | None):
    import transformers as tf

    config = tf.T5Config(
        vocab_size=32128, d_model=512, d_kv=64, d_ff=2048, num_layers=6, num_decoder_layers=6, num_heads=8,
        decoder_start_token_id=0,
    )  # fmt: skip
    torch.manual_seed(0)
    options = {} if attn_implementation is None else {"attn_implementation": attn_implementation}
    return tf.T5ForConditionalGeneration._from_config(config, **options).eval()


def vit_base():
    import transformers as tf

    config = tf.ViTConfig(image_size=224, patch_size=16, hidden_size=768, num_hidden_layers=12,
                          num_attention_heads=12, intermediate_size=3072)  # fmt: skip
    torch.manual_seed(0)
    return tf.ViTModel._from_config(config, attn_implementation="eager", add_pooling_layer=False).eval()


def in_turns(repeat: int, bare, analysed) -> tuple[float, float]:
    """Medians ``(bare seconds, analysed seconds)`` over ``repeat`` alternating runs (after one warm-up each)."""
    bare()
    analysed()
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeat):
        for kept, function in zip(times, (bare, analysed), strict=True):
            start = time.perf_counter()
            function()
            kept.append(time.perf_counter() - start)
    return statistics.median(times[0]), statistics.median(times[1])


def seq2seq_rows(repeat: int, flow: bool) -> list[str]:
    _, tokenizer = minilm()
    source, target = text_of(tokenizer, 128, 2), text_of(tokenizer, 31, 2)
    rows = []
    for loading in ("eager", None):
        model = t5_small(loading)
        batch = tokenizer(source, return_tensors="pt")
        analysis = analyze(model, source, tokenizer, target=target)
        ns, nt = len(analysis.source_tokens), len(analysis.target_tokens)
        assert (ns, nt) == (128, 32), (ns, nt)
        decoder_ids = analysis.target_ids[None]
        eager = t5_small("eager")  # the bare pass: eager attention, as attn_widget runs it

        def bare(eager=eager, batch=batch, decoder_ids=decoder_ids):
            with torch.no_grad():
                eager(**batch, decoder_input_ids=decoder_ids)

        def analysed(model=model):
            analyze(model, source, tokenizer, target=target).rollout()

        forward, full = in_turns(repeat, bare, analysed)
        name = f"T5-small shape, loaded {'eager' if loading else 'default (sdpa)'}"
        rows.append(f"| {name} | {ns} + {nt} | {forward:.3f} | {full:.3f} | **{full / forward:.2f}** |")
        if flow and loading == "eager":
            start = time.perf_counter()
            analysis.flow(progress=False)
            seconds = time.perf_counter() - start
            rows.append(f"| T5-small shape: `.flow()` alone (6 decoder layers, {nt} rows each) | {ns} + {nt} | "
                        f"{forward:.3f} | {seconds:.1f} (flow) | {seconds / forward:.0f} |")  # fmt: skip
    return rows


def vit_row(repeat: int) -> str:
    model = vit_base()
    image = (torch.rand(224, 224, 3, generator=torch.Generator().manual_seed(0)) * 255).to(torch.uint8)
    pixels = pixel_values(model, image)

    def bare():
        with torch.no_grad():
            model(pixel_values=pixels)

    def analysed():
        analyze(model, image).rollout()

    tokens = len(analyze(model, image).tokens)
    forward, full = in_turns(repeat, bare, analysed)
    return f"| ViT-B/16 shape (224 px) | {tokens} | {forward:.3f} | {full:.3f} | **{full / forward:.2f}** |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-flow", action="store_true", help="skip the flow timing (10-30 s on 2 cores)")
    parser.add_argument("--threads", type=int, default=0, help="torch threads (default: torch's own choice)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    print(f"{machine_line()}; {torch.get_num_threads()} threads; medians of {args.repeat} runs taken in turns\n")
    print("| model | tokens | forward s | analyze + rollout s | forward passes |")
    print("|---|---|---|---|---|")
    for row in seq2seq_rows(args.repeat, not args.no_flow):
        print(row, flush=True)
    print(vit_row(args.repeat), flush=True)


if __name__ == "__main__":
    main()
