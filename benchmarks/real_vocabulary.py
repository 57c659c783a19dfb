"""What a real vocabulary's logits cost a widget at a long input, and what letting them go saves:

    .venv/bin/python benchmarks/real_vocabulary.py                  # Qwen2.5-0.5B shape, 4 layers, 4,096 tokens
    .venv/bin/python benchmarks/real_vocabulary.py --layers 24 --tokens 2048

``scale.py`` cuts each shape's vocabulary to the shipped tokenizer's 4,096 entries, so its logits are small. Here
the Qwen2.5-0.5B shape keeps its real 151,936 (logits at 4,096 tokens: 2.5 GB in float32), with fewer layers to
fit the machine; the shipped tokenizer gets unused tokens up to that size (its text's ids are unchanged). Each case
runs in a fresh process: ``AttentionWidget(model, text, tokenizer)``, every layer read (``wait()``), then the
resident memory and the process's peak. "let go": as shipped (the capture's outputs resolve the default target and
are let go beyond ``gradients.OUTPUTS_KEPT_BYTES``); "kept": that bound raised, as before it existed.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import subprocess
import sys

from _common import machine_line, text_of  # benchmarks/ is on the path: the script's folder
from scale import SHAPES, build

VOCABULARY = 151_936  # Qwen2.5's


def _resident_gb() -> float:
    return int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**30


def worker(case: str, layers: int, tokens: int) -> dict:
    import torch
    import transformers as tf

    from attn_widget import AttentionWidget
    from attn_widget import gradients as gradient_runner

    SHAPES["qwen2.5-0.5b"][1]["num_hidden_layers"] = layers
    small, tokenizer = build("qwen2.5-0.5b", "float32")
    text = text_of(tokenizer, tokens, 0)
    tokenizer.add_tokens([f"<unused{i}>" for i in range(VOCABULARY - len(tokenizer))])
    config = small.config
    config.vocab_size = VOCABULARY
    torch.manual_seed(0)
    model = tf.AutoModelForCausalLM.from_config(config).eval()
    del small
    if case == "kept":
        gradient_runner.OUTPUTS_KEPT_BYTES = 1 << 50
    gc.collect()
    before = _resident_gb()
    widget = AttentionWidget(model, text, tokenizer)
    widget.wait()
    gc.collect()
    return {
        "resident": _resident_gb(),
        "extra": _resident_gb() - before,
        "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--tokens", type=int, default=4096)
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        case, layers, tokens = args.worker
        print(json.dumps(worker(case, int(layers), int(tokens))))
        return
    print(f"# A real vocabulary's logits: Qwen2.5-0.5B shape, {args.layers} layers, {args.tokens:,} tokens, float32\n")
    print(machine_line(), "\n")
    columns = ("outputs after the default target", "resident GB, every layer read", "of which since the widget began")
    print(f"| {' | '.join(columns)} | peak GB |\n|---|---|---|---|")
    for case in ("let go", "kept"):
        command = [sys.executable, __file__, "--worker", case.replace(" ", "_"), str(args.layers), str(args.tokens)]
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        result = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"| {case} | {result['resident']:.2f} | +{result['extra']:.2f} | {result['peak']:.2f} |", flush=True)


if __name__ == "__main__":
    main()
