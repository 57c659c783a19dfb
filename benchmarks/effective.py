"""Cost of effective attention against the model's own forward pass, side by side.

    .venv/bin/python benchmarks/effective.py

MiniLM (pretrained, 6 layers, 12 heads, head dimension 32) at 128 and 512 tokens, and
the shipped decoder (4 layers, prefix projectors) at 128 and 256 tokens. Each figure is
the best of 5 runs in this process; the forward pass is the model called the way
attn_widget calls it (eager attention, attentions and hidden states returned).
"""

from __future__ import annotations

import os
import platform
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from attn_widget import analyze  # noqa: E402
from attn_widget.demo import minilm, pydoc_gpt2  # noqa: E402

from _common import best_of, text_of  # noqa: E402

def main() -> None:
    torch.set_num_threads(os.cpu_count() or 1)
    print(f"# effective attention cost\n\n{platform.platform()}, {os.cpu_count()} CPUs, torch {torch.__version__}\n")
    print("| model | tokens | forward pass s | effective attention s | effective / forward |")
    print("|---|---|---|---|---|")
    for name, (model, tokenizer), sizes, specials in [
        ("MiniLM", minilm(), (128, 512), 2),
        ("pydoc GPT-2", pydoc_gpt2(), (128, 256), 0),
    ]:
        for n in sizes:
            text = text_of(tokenizer, n, specials)
            analysis = analyze(model, text, tokenizer)
            assert analysis.capture.n_tokens == n, analysis.capture.n_tokens
            inputs = tokenizer(text, return_tensors="pt")

            def forward():
                with torch.no_grad():
                    model(**inputs, output_attentions=True, output_hidden_states=True)

            def effective():
                analysis._cache.pop(("effective", False), None)
                analysis.effective()

            forward()
            t_forward, _ = best_of(5, forward)
            t_effective, _ = best_of(5, effective)
            print(f"| {name} | {n} | {t_forward:.3f} | {t_effective:.3f} | {t_effective / t_forward:.2f} |")


if __name__ == "__main__":
    main()
