"""Train the small GPT-2 that ships with attn_widget (attn_widget/data/pydoc-gpt2).

No decoder with real weights can be downloaded here, so the package carries its own: a
4-layer, 4-head GPT-2 (width 128, head dimension 32) trained on the Python reference
documentation that ships with CPython (``pydoc_data.topics``, 465k characters), with a
byte-level BPE tokenizer trained on the same text. It exists to show and test decoder
behaviour offline: causal attention, the first-token bias that receptive-field
normalisation removes, and effective attention beyond 32 tokens.

Reproduce (about 15 minutes on two CPU cores; CI never runs this)::

    .venv/bin/python scripts/train_decoder.py

The script is deterministic for a given torch build and prints the held-out loss.
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import time

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

OUT = pathlib.Path(__file__).resolve().parents[1] / "attn_widget" / "data" / "pydoc-gpt2"


def corpus() -> str:
    from pydoc_data.topics import topics

    return "\n\n".join(topics[key] for key in sorted(topics))


def train_tokenizer(text: str, vocab_size: int) -> PreTrainedTokenizerFast:
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=["<|endoftext|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator([text[i : i + 10_000] for i in range(0, len(text), 10_000)], trainer)
    return PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token="<|endoftext|>",
        eos_token="<|endoftext|>",
        unk_token="<|endoftext|>",
        model_max_length=256,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=1500)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--context", type=int, default=128)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(args.threads)

    text = corpus()
    tokenizer = train_tokenizer(text, vocab_size=4096)
    ids = torch.tensor(tokenizer(text)["input_ids"], dtype=torch.long)
    split = int(len(ids) * 0.95)
    train, held_out = ids[:split], ids[split:]
    print(f"{len(text)} characters -> {len(ids)} tokens; {len(train)} for training, {len(held_out)} held out")

    config = GPT2Config(
        vocab_size=len(tokenizer),
        n_positions=256,
        n_embd=128,
        n_layer=4,
        n_head=4,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        attn_implementation="eager",
    )
    model = GPT2LMHeadModel(config)
    print(f"{sum(p.numel() for p in model.parameters()) / 1e6:.2f}M parameters")
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.1, betas=(0.9, 0.95))
    warmup = 100

    def lr_at(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        return 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * (step - warmup) / (args.steps - warmup)))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_at)
    g = torch.Generator().manual_seed(1)
    start = time.time()
    model.train()
    for step in range(args.steps):
        offsets = torch.randint(0, len(train) - args.context - 1, (args.batch,), generator=g)
        batch = torch.stack([train[o : o + args.context] for o in offsets.tolist()])
        loss = model(input_ids=batch, labels=batch).loss
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        if step % 100 == 0 or step == args.steps - 1:
            rate = (step + 1) * args.batch * args.context / (time.time() - start)
            print(f"step {step:5d}  loss {loss.item():.3f}  {rate:,.0f} tokens/s", flush=True)

    model.eval()
    with torch.no_grad():
        chunks = held_out[: len(held_out) // args.context * args.context].view(-1, args.context)
        held_loss = sum(model(input_ids=c[None], labels=c[None]).loss.item() for c in chunks) / len(chunks)
    print(f"held-out loss {held_loss:.3f} (perplexity {math.exp(held_loss):.1f}) over {len(chunks)} windows")

    OUT.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(OUT)
    tokenizer.save_pretrained(OUT)
    (OUT / "training.json").write_text(
        json.dumps(
            {
                "corpus": "pydoc_data.topics (CPython documentation)",
                "characters": len(text),
                "tokens": len(ids),
                "steps": args.steps,
                "batch": args.batch,
                "context": args.context,
                "held_out_loss": round(held_loss, 4),
                "torch": torch.__version__,
            },
            indent=1,
        )
        + "\n"
    )
    print(f"saved to {OUT}")


if __name__ == "__main__":
    main()
