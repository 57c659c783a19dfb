"""attn_widget on a GPU: the first picture, the views and memory beside the bare forward pass, on the model's device.

    .venv/bin/python benchmarks/gpu.py                                   # cuda: every shape, 2,048 and 4,096 tokens
    .venv/bin/python benchmarks/gpu.py --shapes llama-3.2-1b --tokens 8192 --dtypes bfloat16
    .venv/bin/python benchmarks/gpu.py --device cpu --shapes gpt2-small --tokens 256 --dtypes float32  # a smoke run

The random-weight models of ``scale.py`` (the real shapes of GPT-2 small, Qwen2.5-0.5B and Llama-3.2-1B) are moved
to the device, and each case runs in two fresh processes, as in ``scale.py``: the bare forward pass (best of two,
synchronised), then ``AttentionWidget(model, text, tokenizer)`` until its first picture, every layer read
(``wait()``), a layer change and the views a user opens next (head 0, the heads grid, the whole-model view). Device
memory is ``torch.cuda.max_memory_allocated`` (peak; "extra" is the widget's minus the forward's); host memory is
the process's peak resident set, which says whether only the shown data came to the CPU. A run checks first that
the model's parameters are on the device (attn_widget reads the model where it is) and prints the device's name.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

from _common import machine_line, text_of  # benchmarks/ is on the path: the script's folder
from scale import SHAPES, binary_bytes, build, layer_changes, view_changes


def _synchronise(device: str) -> None:
    import torch

    if device.startswith("cuda"):
        torch.cuda.synchronize()


def _peaks(device: str) -> dict:
    """Device peak (GB) since the last reset, and the host's peak resident set (GB)."""
    import torch

    on_device = torch.cuda.max_memory_allocated() / 2**30 if device.startswith("cuda") else 0.0
    return {"device_gb": on_device, "host_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}


def worker(what: str, shape: str, tokens: int, dtype: str, device: str) -> dict:
    """One measurement in this (fresh) process."""
    import torch

    model, tokenizer = build(shape, dtype)
    model.to(device)
    assert all(p.device.type == torch.device(device).type for p in model.parameters()), "the model is not moved"
    text = text_of(tokenizer, tokens, 0)
    result: dict = {"device_name": torch.cuda.get_device_name() if device.startswith("cuda") else device}
    if device.startswith("cuda"):
        torch.cuda.reset_peak_memory_stats()
    if what == "forward":
        inputs = tokenizer(text, return_tensors="pt").to(device)
        times = []
        for _ in range(2):
            start = time.perf_counter()
            with torch.no_grad():
                model(**inputs)
            _synchronise(device)
            times.append(time.perf_counter() - start)
        return {**result, "forward_s": min(times), **_peaks(device)}
    from attn_widget import AttentionWidget

    start = time.perf_counter()
    widget = AttentionWidget(model, text, tokenizer)
    _synchronise(device)
    result.update(first_s=time.perf_counter() - start, first_mb=binary_bytes(widget) / 2**20, first=_peaks(device))
    widget.wait()
    _synchronise(device)
    result.update(all_s=time.perf_counter() - start, layer_s=layer_changes(widget), views=view_changes(widget))
    return {**result, **_peaks(device)}


def run_case(what: str, shape: str, tokens: int, dtype: str, device: str, limit_s: float) -> dict:
    command = [sys.executable, __file__, "--worker", what, shape, str(tokens), dtype, device]
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=limit_s)
    except subprocess.TimeoutExpired:
        return {"stopped": f"stopped over {limit_s:.0f} s"}
    if out.returncode != 0:
        return {"stopped": f"failed: {(out.stderr.strip().splitlines() or ['?'])[-1][:120]}"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def row(shape: str, tokens: int, dtype: str, forward: dict, widget: dict) -> str:
    head = f"| {shape} | {tokens:,} | {dtype} "
    if "stopped" in forward or "stopped" in widget:
        return head + f"| {forward.get('stopped', '')} {widget.get('stopped', '')} |"
    f_s, f_gb = forward["forward_s"], forward["device_gb"]
    views = " / ".join(f"{size / 2**20:.1f} ({s:.2f} s)" for s, size in widget["views"])
    return (
        head + f"| {f_s:.3f} | {widget['first_s']:.2f} ({widget['first_s'] / f_s:.1f}x; goal {1.5 * f_s + 1:.1f}) "
        f"| {widget['first_mb']:.1f} | {f_gb:.1f} | {widget['first']['device_gb'] - f_gb:+.1f} "
        f"| {widget['all_s']:.2f} | {widget['device_gb'] - f_gb:+.1f} | {widget['host_gb'] - forward['host_gb']:+.1f} "
        f"| {' / '.join(f'{s:.2f}' for s in widget['layer_s'])} | {views} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--shapes", nargs="+", default=list(SHAPES), choices=list(SHAPES))
    parser.add_argument("--tokens", nargs="+", type=int, default=[2048, 4096])
    parser.add_argument("--dtypes", nargs="+", default=["bfloat16", "float32"], choices=["float32", "bfloat16"])
    parser.add_argument("--limit-s", type=float, default=600.0, help="stop a case after this many seconds")
    parser.add_argument("--worker", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        what, shape, tokens, dtype, device = args.worker
        print(json.dumps(worker(what, shape, int(tokens), dtype, device)), flush=True)
        return
    print(f"# attn_widget on {args.device}\n\n{machine_line()}\n")
    header = False
    for shape in args.shapes:
        for dtype in args.dtypes:
            for tokens in sorted(args.tokens):
                forward = run_case("forward", shape, tokens, dtype, args.device, args.limit_s)
                widget = run_case("widget", shape, tokens, dtype, args.device, args.limit_s)
                if not header:
                    print(f"Device: {forward.get('device_name', args.device)}\n")
                    print(
                        "| shape | tokens | dtype | forward s | first picture s (x forward; goal s) | binary MB "
                        "| forward device GB | extra device GB, first picture | all layers read s "
                        "| extra device GB, end | extra host GB, end | layer change s (last / 2nd) "
                        "| MB a view (s): head 0 / heads grid / whole model |"
                    )
                    print("|---" * 13 + "|")
                    header = True
                print(row(shape, tokens, dtype, forward, widget), flush=True)


if __name__ == "__main__":
    main()
