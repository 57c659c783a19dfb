"""Train the small encoder-decoder that ships with attn_widget (attn_widget/data/reversal-bart).

An encoder-decoder whose alignment is known in advance: it reverses a list of 3 to 10 words
("one small boy" → "boy small one"), so target word i comes from source word m-1-i. It exists to
show and test cross-attention offline: a model that has learnt the task should read, when it
writes target word i, the source word it copies. A BART (2 encoder + 2 decoder layers, 4 heads,
width 64) with learned positions and a word-level tokenizer over 207 common English words
(lower-cased, split on whitespace; ``</s>`` ends source and target, the decoder starts at ``<s>``).

Reproduce (one thread; 18 minutes wall-clock when measured on two CPU cores shared with several other
jobs, much less on an idle machine; CI never runs this)::

    PYTHONPATH=. .venv/bin/python scripts/train_seq2seq.py

The script is deterministic for a given torch build. It prints the exact-match accuracy of the
model's greedy output on held-out lists (never drawn for training) and, per decoder layer, the share
of target words whose head-mean cross-attention peaks on the source word they copy. Measured: exact match
1.000 over 1,000 held-out lists; alignment 0.07 in decoder layer 1 and 0.88 in layer 2 (200 lists). The loss
sits near 4.6 for the first ~700 steps and then falls fast.
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import random
import time

import torch
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors
from transformers import BartConfig, BartForConditionalGeneration, PreTrainedTokenizerFast

OUT = pathlib.Path(__file__).resolve().parents[1] / "attn_widget" / "data" / "reversal-bart"
SPECIALS = ["<s>", "<pad>", "</s>", "<unk>"]  # ids 0..3, as in BART
WORDS = """
the of and to in is you that it he was for on are as with his they at be this have from or one had by
word but not what all were we when your can said there use an each which she do how their if will up
other about out many then them these so some her would make like him into time has look two more write
go see number no way could people my than first water been call who oil its now find long down day did
get come made may part over new sound take only little work know place year live me back give most very
after thing our just name good sentence man think say great where help through much before line right
too mean old any same tell boy follow came want show also around form three small set put end does
another well large must big even such because turn here why ask went men read need land different home
us move try kind hand picture again change off play spell air away animal house point page letter mother
answer found study still learn should world high every near add food between own below country plant
""".split()
MIN_WORDS, MAX_WORDS = 3, 10
MAX_POSITIONS = 16  # longest sequence: 10 words + </s> (source) or <s> + 10 words + </s> (decoder)


def word_list(rng: random.Random, vocabulary: list[str], distinct: bool = False) -> list[str]:
    """A list of MIN_WORDS..MAX_WORDS words drawn uniformly (with repeats unless ``distinct``)."""
    m = rng.randint(MIN_WORDS, MAX_WORDS)
    return rng.sample(vocabulary, m) if distinct else rng.choices(vocabulary, k=m)


def build_tokenizer() -> PreTrainedTokenizerFast:
    vocab = {token: i for i, token in enumerate(SPECIALS + sorted(set(WORDS)))}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.post_processor = processors.TemplateProcessing(
        single="$A </s>", pair="$A </s> $B </s>", special_tokens=[("</s>", vocab["</s>"])]
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token="<s>",
        eos_token="</s>",
        pad_token="<pad>",
        unk_token="<unk>",
        model_max_length=MAX_POSITIONS,
    )


def batch_of(tokenizer, lists: list[list[str]]) -> dict[str, torch.Tensor]:
    """Sources and labels (the reversed lists, padding ignored by the loss) of a batch."""
    sources = [" ".join(words) for words in lists]
    targets = [" ".join(reversed(words)) for words in lists]
    batch = tokenizer(sources, text_target=targets, padding=True, return_tensors="pt")
    batch["labels"][batch["labels"] == tokenizer.pad_token_id] = -100
    return dict(batch)


@torch.no_grad()
def exact_match(model, tokenizer, lists: list[list[str]], batch: int = 250) -> float:
    """Share of lists whose greedy output is exactly the reversed list."""
    right = 0
    for start in range(0, len(lists), batch):
        chunk = lists[start : start + batch]
        inputs = tokenizer([" ".join(w) for w in chunk], padding=True, return_tensors="pt")
        out = model.generate(**inputs, do_sample=False, num_beams=1, max_new_tokens=MAX_WORDS + 1)
        decoded = tokenizer.batch_decode(out, skip_special_tokens=True)
        right += sum(text.split() == list(reversed(words)) for text, words in zip(decoded, chunk, strict=True))
    return right / len(lists)


@torch.no_grad()
def alignment_shares(model, tokenizer, lists: list[list[str]]) -> list[float]:
    """Per decoder layer: the share of target words i (over all lists) whose head-mean cross-attention,
    from the decoder position that predicts word i, peaks on source word m-1-i."""
    hits = torch.zeros(model.config.decoder_layers)
    total = 0
    for words in lists:
        m = len(words)
        batch = tokenizer(" ".join(words), text_target=" ".join(reversed(words)), return_tensors="pt")
        out = model(**batch, output_attentions=True)
        for layer, cross in enumerate(out.cross_attentions):
            peaks = cross[0].mean(0)[:m].argmax(-1)  # (m,): decoder position i predicts target word i
            hits[layer] += (peaks == torch.arange(m - 1, -1, -1)).sum()
        total += m
    return (hits / total).tolist()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(args.threads)

    tokenizer = build_tokenizer()
    vocabulary = sorted(set(WORDS))
    held_rng = random.Random(2)
    held_out = [word_list(held_rng, vocabulary) for _ in range(1000)]
    held_keys = {tuple(words) for words in held_out}

    config = BartConfig(
        vocab_size=len(tokenizer),
        max_position_embeddings=MAX_POSITIONS,
        d_model=64,
        encoder_layers=2,
        decoder_layers=2,
        encoder_attention_heads=4,
        decoder_attention_heads=4,
        encoder_ffn_dim=256,
        decoder_ffn_dim=256,
        dropout=0.0,
        attention_dropout=0.0,
        activation_dropout=0.0,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        decoder_start_token_id=tokenizer.bos_token_id,
        forced_bos_token_id=None,
        forced_eos_token_id=None,
        attn_implementation="eager",
    )
    model = BartForConditionalGeneration(config)
    model.generation_config.forced_eos_token_id = None
    print(f"{len(vocabulary)} words; {sum(p.numel() for p in model.parameters()) / 1e6:.2f}M parameters")
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    warmup = 200

    def lr_at(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        return 0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * (step - warmup) / (args.steps - warmup)))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_at)
    rng = random.Random(1)
    start = time.time()
    model.train()
    for step in range(args.steps):
        lists: list[list[str]] = []
        while len(lists) < args.batch:
            words = word_list(rng, vocabulary)
            if tuple(words) not in held_keys:
                lists.append(words)
        loss = model(**batch_of(tokenizer, lists)).loss
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        if step % 250 == 0 or step == args.steps - 1:
            print(f"step {step:5d}  loss {loss.item():.4f}  {time.time() - start:.0f} s", flush=True)
    seconds = time.time() - start

    model.eval()
    accuracy = exact_match(model, tokenizer, held_out)
    distinct = [word_list(random.Random(3 + i), vocabulary, distinct=True) for i in range(200)]
    shares = alignment_shares(model, tokenizer, distinct)
    print(f"held-out exact match {accuracy:.3f} over {len(held_out)} lists")
    print("cross-attention argmax on source word m-1-i, by decoder layer: " + ", ".join(f"{s:.3f}" for s in shares))

    OUT.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(OUT)
    tokenizer.save_pretrained(OUT)
    (OUT / "training.json").write_text(
        json.dumps(
            {
                "task": "reverse a list of 3-10 words drawn with repeats from 207 common English words",
                "steps": args.steps,
                "batch": args.batch,
                "training_seconds": round(seconds),
                "held_out_lists": len(held_out),
                "held_out_exact_match": round(accuracy, 4),
                "cross_attention_alignment_by_layer": [round(s, 4) for s in shares],
                "torch": torch.__version__,
            },
            indent=1,
        )
        + "\n"
    )
    print(f"saved to {OUT}")


if __name__ == "__main__":
    main()
