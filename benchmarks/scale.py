"""attn_widget on today's model shapes and text lengths, side by side with the model's bare forward pass.

    .venv/bin/python benchmarks/scale.py                       # every shape, 512..4096 tokens, float32 and bfloat16
    .venv/bin/python benchmarks/scale.py --shapes gpt2-small --tokens 512 1024 --dtypes float32
    .venv/bin/python benchmarks/scale.py --limit-s 600 --limit-gb 20

Random-weight models with the real configurations of GPT-2 small, Qwen2.5-0.5B and Llama-3.2-1B (the
vocabulary cut to the shipped pydoc-gpt2 tokenizer's 4,096 entries, the position table raised to fit) run
on a news-like text of exactly n tokens. Each case runs in two fresh processes, one after the other:

- **forward**: the model as loaded (sdpa), ``model(**inputs)`` under ``torch.no_grad()``, best of two;
- **widget**: ``AttentionWidget(model, text, tokenizer)`` until it returns with its first picture (its pass
  reads the shown layer; the bytes of its binary traits then), and until it has read every layer in the
  background (``widget.wait()``: "all layers" seconds and peak; the menu's check comes first), then two
  layer changes as the slider makes them (``layer_changes``), the bytes and seconds of the views a user opens next
  (``view_changes``: head 0, the heads grid, the whole-model view) and the peak at the end;
- with ``--breakdown``, a third: ``analyze``, then each method the widget computes, timed alone in menu
  order with its encoding (a method reusing another's cached work shows only its own).

Peak memory is each process's peak resident set (``ru_maxrss``); "extra" is the widget process's peak
minus the forward process's. A case that passes ``--limit-s`` or ``--limit-gb`` is stopped and reported
as such (the watchdog reads the child's resident set every 0.2 s), and longer inputs of that shape and
dtype are skipped: they would only cost more. The goals of issue 30 are printed beside the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import resource
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _common import machine_line, text_of  # noqa: E402

# name -> (config class, its arguments): the published configurations, vocabulary and positions aside.
SHAPES = {
    "gpt2-small": ("GPT2Config", dict(n_layer=12, n_head=12, n_embd=768)),
    "qwen2.5-0.5b": (
        "Qwen2Config",
        dict(
            num_hidden_layers=24,
            num_attention_heads=14,
            num_key_value_heads=2,
            hidden_size=896,
            intermediate_size=4864,
            tie_word_embeddings=True,
            rope_theta=1_000_000.0,
        ),
    ),
    "llama-3.2-1b": (
        "LlamaConfig",
        dict(
            num_hidden_layers=16,
            num_attention_heads=32,
            num_key_value_heads=8,
            hidden_size=2048,
            intermediate_size=8192,
            tie_word_embeddings=True,
            rope_theta=500_000.0,
        ),
    ),
}
POSITIONS = 8192  # every shape gets a position table at least this long (GPT-2's is learned: 1024 in the original)


def build(shape: str, dtype: str):
    """The random-weight model in eval mode and the shipped tokenizer, with no length limit of its own."""
    import torch
    import transformers as tf

    from attn_widget.demo import PYDOC_GPT2

    tokenizer = tf.AutoTokenizer.from_pretrained(PYDOC_GPT2)
    tokenizer.model_max_length = 10**9
    name, options = SHAPES[shape]
    positions = {"n_positions": POSITIONS} if name == "GPT2Config" else {"max_position_embeddings": POSITIONS}
    ids = dict(bos_token_id=tokenizer.bos_token_id or 0, eos_token_id=tokenizer.eos_token_id or 0)
    config = getattr(tf, name)(vocab_size=len(tokenizer), **positions, **ids, **options)
    torch.manual_seed(0)
    model = tf.AutoModelForCausalLM.from_config(config, dtype=getattr(torch, dtype))
    return model.eval(), tokenizer


def binary_bytes(widget) -> int:
    """Bytes the widget's binary traits hold (what its first message carries beside the small JSON state)."""
    return sum(len(value) for name in widget.keys if isinstance(value := getattr(widget, name), bytes | memoryview))


def method_costs(analysis) -> dict[str, float]:
    """Seconds each method the widget computes before its first picture takes, computed and encoded alone
    in menu order (a method reusing another's cached work, rollout_rf after rollout, shows only its own)."""
    from attn_widget import payload
    from attn_widget.methods import registry

    costs = {}
    for method in registry.applicable(analysis):
        start = time.perf_counter()
        data, _done = method.values(analysis, registry.ViewSettings())
        payload.encode(data)
        costs[method.id] = time.perf_counter() - start
    return costs


def layer_changes(widget) -> list[float]:
    """Seconds from setting ``layer`` (as the slider does) until the kernel has sent what that layer shows, every
    layer read before: to the last layer, then to the second. Only a long input sent by layer does work here (its
    heads of the new layer, read again when they were not kept: a pass that stops after that layer)."""
    seconds = []
    for layer in (widget.n_layers, 2):
        start = time.perf_counter()
        widget.layer = layer
        widget.wait()
        seconds.append(time.perf_counter() - start)
    return seconds


def view_changes(widget) -> list[tuple[float, int]]:
    """``(seconds, bytes of the binary traits)`` after each change a user makes from the first view (every layer
    read, layer 2): head 0, the heads grid, the whole-model view of the head mean. A long input's per-head data
    holds what the view draws (``shown_heads.py``), so each change sends that view's slices."""
    out = []
    for name, value in (("head", 0), ("view", "heads"), ("view", "model"), ("head", -1)):
        start = time.perf_counter()
        setattr(widget, name, value)
        widget.wait()
        out.append((time.perf_counter() - start, binary_bytes(widget)))
    return [out[0], out[1], (out[2][0] + out[3][0], out[3][1])]  # the model view asked with the mean: one view


def worker(what: str, shape: str, tokens: int, dtype: str) -> dict:
    """One measurement in this (fresh) process."""
    import torch

    torch.set_num_threads(os.cpu_count() or 1)
    model, tokenizer = build(shape, dtype)
    text = text_of(tokenizer, tokens, 0)  # the shipped tokenizer adds no special tokens
    assert len(tokenizer(text)["input_ids"]) == tokens, "the text does not round-trip to the asked length"
    result: dict = {}
    if what == "forward":
        inputs = tokenizer(text, return_tensors="pt")
        times = []
        for _ in range(2):
            start = time.perf_counter()
            with torch.no_grad():
                model(**inputs)
            times.append(time.perf_counter() - start)
        result["forward_s"] = min(times)
    else:
        from attn_widget import AttentionWidget, analyze

        start = time.perf_counter()
        if what == "methods":
            result["methods"] = method_costs(analyze(model, text, tokenizer))
        else:
            widget = AttentionWidget(model, text, tokenizer)
            result["widget_s"] = time.perf_counter() - start
            result["binary_bytes"] = binary_bytes(widget)
            result["first_peak_gb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
            widget.wait()
            result["all_s"] = time.perf_counter() - start
            result["binary_all_bytes"] = binary_bytes(widget)
            result["all_peak_gb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
            result["layer_change_s"] = layer_changes(widget)
            result["views"] = view_changes(widget)
    result["peak_gb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    return result


def _resident_gb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as status:
            line = next(line for line in status if line.startswith("VmRSS:"))
        return int(line.split()[1]) / 2**20
    except (OSError, StopIteration):
        return 0.0


def run_case(what: str, shape: str, tokens: int, dtype: str, limit_s: float, limit_gb: float) -> dict:
    """``worker`` in a child process, stopped past the limits: ``{"stopped": "..."}`` then."""
    command = [sys.executable, __file__, "--worker", what, shape, str(tokens), dtype]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    start, peak = time.perf_counter(), 0.0
    while child.poll() is None:
        peak = max(peak, _resident_gb(child.pid))
        elapsed = time.perf_counter() - start
        if elapsed > limit_s or peak > limit_gb:
            child.kill()
            child.wait()
            why = f"over {limit_s:.0f} s" if elapsed > limit_s else f"over {limit_gb:.0f} GB"
            return {"stopped": f"stopped {why}"}
        time.sleep(0.2)
    out, err = child.communicate()
    if child.returncode != 0:
        return {"stopped": f"failed: {(err.strip().splitlines() or ['?'])[-1][:120]}"}
    return json.loads(out.strip().splitlines()[-1])


COLUMNS = 14  # of the table main prints


def padded(*cells: str) -> str:
    """A table row of ``cells``, then empty cells up to ``COLUMNS``."""
    return "| " + " | ".join([*cells, *[""] * (COLUMNS - len(cells))]) + " |"


def row(shape: str, tokens: int, dtype: str, forward: dict, widget: dict) -> str:
    if "stopped" in forward:
        return padded(shape, f"{tokens:,}", dtype, forward["stopped"])
    f_s, f_gb = forward["forward_s"], forward["peak_gb"]
    if "stopped" in widget:
        return padded(shape, f"{tokens:,}", dtype, f"{f_s:.2f}", widget["stopped"], "", f"{f_gb:.1f}")
    goal = 1.5 * f_s + 1
    return (
        f"| {shape} | {tokens:,} | {dtype} | {f_s:.2f} | {widget['widget_s']:.2f} "
        f"({widget['widget_s'] / f_s:.1f}x; goal {goal:.1f}) | {widget['binary_bytes'] / 2**20:.1f} | {f_gb:.1f} "
        f"| {widget['first_peak_gb'] - f_gb:+.1f} | {widget['all_s']:.2f} | {widget['all_peak_gb'] - f_gb:+.1f} "
        f"| {widget['binary_all_bytes'] / 2**20:.1f} | {' / '.join(f'{s:.2f}' for s in widget['layer_change_s'])} "
        f"| {' / '.join(f'{b / 2**20:.1f} ({s:.2f} s)' for s, b in widget['views'])} "
        f"| {widget['peak_gb'] - f_gb:+.1f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shapes", nargs="+", default=list(SHAPES), choices=list(SHAPES))
    parser.add_argument("--tokens", nargs="+", type=int, default=[512, 1024, 2048, 4096])
    parser.add_argument("--dtypes", nargs="+", default=["float32", "bfloat16"], choices=["float32", "bfloat16"])
    parser.add_argument("--limit-s", type=float, default=900.0, help="stop a case after this many seconds")
    parser.add_argument("--limit-gb", type=float, default=20.0, help="stop a case past this resident memory")
    parser.add_argument("--breakdown", action="store_true", help="also time each method, in a third process")
    parser.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        what, shape, tokens, dtype = args.worker
        print(json.dumps(worker(what, shape, int(tokens), dtype)), flush=True)
        return

    print(
        f"# attn_widget at scale\n\n{machine_line()}; limits {args.limit_s:.0f} s and {args.limit_gb:.0f} GB a case\n"
    )
    print(
        "Goals (issue 30): the widget within 1.5 forward passes + 1 s; at most 2 GB above the forward at 4,096 "
        "tokens (Llama-3.2-1B shape); at most 5 MB sent per view.\n"
    )
    print(
        "| shape | tokens | dtype | forward s | first picture s (x forward; goal s) | binary MB | forward peak GB "
        "| extra GB, first picture | all layers read s | extra GB, all layers | binary MB, all layers "
        "| layer change s (last / 2nd) | MB a view (s): head 0 / heads grid / whole model | extra GB, end |"
    )
    print("|---" * COLUMNS + "|")
    costs: list[tuple[str, dict]] = []
    for shape in args.shapes:
        for dtype in args.dtypes:
            stopped = False
            for tokens in sorted(args.tokens):
                if stopped:
                    print(padded(shape, f"{tokens:,}", dtype, "skipped: a shorter input was stopped"))
                    continue
                forward = run_case("forward", shape, tokens, dtype, args.limit_s, args.limit_gb)
                widget = run_case("widget", shape, tokens, dtype, args.limit_s, args.limit_gb)
                stopped = "stopped" in widget or "stopped" in forward
                print(row(shape, tokens, dtype, forward, widget), flush=True)
                if args.breakdown and not stopped:
                    methods = run_case("methods", shape, tokens, dtype, args.limit_s, args.limit_gb)
                    costs.append((f"{shape}, {tokens:,} tokens, {dtype}", methods.get("methods", {})))
    for case, methods in costs:
        if methods:
            slowest = sorted(methods.items(), key=lambda item: -item[1])
            print(
                f"\n{case}: {sum(methods.values()):.1f} s in methods; "
                + ", ".join(f"{name} {seconds:.2f}" for name, seconds in slowest)
            )
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
