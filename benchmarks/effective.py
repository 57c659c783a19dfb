"""Cost and exactness of effective attention against the model's own forward pass, side by side.

    .venv/bin/python benchmarks/effective.py [--rounds 5]

Models: MiniLM (pretrained encoder, 6 layers, 12 heads, head width 32) at 128 and 512 tokens;
the shipped decoder (4 layers, prefix projectors) at 128 and 256 tokens; a random Qwen2-style
decoder with value bias (6 layers, 12 heads, 2 key/value groups, head width 32, biases drawn
large so that value vectors are ill-conditioned, as in trained Qwen2 models) at 512 tokens; and
a random model of GPT-2 small's shape (12 layers, 12 heads, head width 64; benchmarks/scale.py),
whose first 64 rows see at most a head width of keys, at 96 and 512 tokens. Times are the best
of ``--rounds`` runs in this process; the forward pass is the model called the way attn_widget
calls it (eager attention, attentions and hidden states returned). "output error" is the largest
relative difference, over layers, between Σ_h A_eff·V·W_O and Σ_h A·V·W_O computed in float64
from the captured float32 tensors: what effective attention promises to keep unchanged.
"""

from __future__ import annotations

import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from _common import best_of, machine_line, text_of  # noqa: E402
from scale import build as scale_model  # noqa: E402

from attn_widget import analyze  # noqa: E402
from attn_widget.demo import minilm, pydoc_gpt2  # noqa: E402


def qwen2_with_value_bias():
    """A random Qwen2-style decoder whose value biases dominate its value vectors."""
    import transformers as tf

    config = tf.Qwen2Config(
        vocab_size=1000, hidden_size=384, num_attention_heads=12, num_key_value_heads=2, num_hidden_layers=6,
        intermediate_size=768, max_position_embeddings=1024,
    )  # fmt: skip
    torch.manual_seed(0)
    model = tf.AutoModel.from_config(config, attn_implementation="eager").eval()
    with torch.no_grad():
        for layer in model.layers:
            layer.self_attn.v_proj.bias.normal_(0, 4.0)
    tokenizer = _word_tokenizer(1000)
    return model, tokenizer


def _word_tokenizer(size: int):
    from _common import WORDS
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {"[UNK]": 0, **{w: i + 1 for i, w in enumerate(sorted(set(WORDS)))}}
    for i in range(len(vocab), size):
        vocab[f"w{i}"] = i
    backend = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    backend.pre_tokenizer = pre_tokenizers.Whitespace()
    return PreTrainedTokenizerFast(tokenizer_object=backend, unk_token="[UNK]", model_max_length=1024)


def output_error(analysis) -> float:
    record = analysis.capture
    values, weights, _ = record.require_values()
    group = record.geometry.kv_group()
    effective = analysis.effective()
    worst = 0.0
    for layer in range(record.n_layers):
        v = values[layer][group].double()
        w = weights[layer].double()
        exact = torch.einsum("hnd,hde->ne", record.attentions[layer].double() @ v, w)
        kept = torch.einsum("hnd,hde->ne", effective[layer].double() @ v, w)
        worst = max(worst, float((kept - exact).norm() / exact.norm()))
    return worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    torch.set_num_threads(os.cpu_count() or 1)
    print(f"# effective attention cost\n\n{machine_line()}\n")
    print("| model | tokens | forward pass s | effective attention s | effective / forward | output error |")
    print("|---|---|---|---|---|---|")
    for name, (model, tokenizer), sizes, specials in [
        ("MiniLM", minilm(), (128, 512), 2),
        ("pydoc GPT-2", pydoc_gpt2(), (128, 256), 0),
        ("Qwen2-style, value bias", qwen2_with_value_bias(), (512,), 0),
        ("GPT-2-small shape (random)", scale_model("gpt2-small", "float32"), (96, 512), 0),
    ]:
        for n in sizes:
            text = text_of(tokenizer, n, specials)
            analysis = analyze(model, text, tokenizer)
            assert analysis.capture.n_tokens == n, analysis.capture.n_tokens
            inputs = tokenizer(text, return_tensors="pt")

            # Defaults bind this iteration's objects (the closures run within it; B023).
            def forward(model=model, inputs=inputs):
                with torch.no_grad():
                    model(**inputs, output_attentions=True, output_hidden_states=True)

            def effective(analysis=analysis):
                analysis.effective_part.cache.pop(("effective", False), None)
                analysis.effective()

            forward()
            t_forward, _ = best_of(args.rounds, forward)
            t_effective, _ = best_of(args.rounds, effective)
            print(
                f"| {name} | {n} | {t_forward:.3f} | {t_effective:.3f} | {t_effective / t_forward:.2f} "
                f"| {output_error(analysis):.1e} |"
            )


if __name__ == "__main__":
    main()
