"""Corpus analysis (issue 17): statistics-only throughput against bare batched forward passes of the same
model on the same texts, engine="ray" with 1 and 2 workers against engine="local" with one (whole runs, and
once every worker runs), the cost of agreement per method and reference, and the peak memory of a run at
2,000 and 20,000 texts. Texts: sentences of the Python documentation shipped with the standard library
(``attn_widget.corpus.sample``). Every model runs on one thread per worker.

    .venv/bin/python benchmarks/corpus.py            # all four tables (about half an hour)
    .venv/bin/python benchmarks/corpus.py --quick    # fewer texts
    .venv/bin/python benchmarks/corpus.py --skip throughput memory agreement --ray-texts 2000 10000   # Ray only
    .venv/bin/python benchmarks/corpus.py --skip ray memory agreement --shapes qwen2.5-0.5b --texts 64 --quick
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _common import machine_line  # noqa: E402

from attn_widget.corpus import analyze_corpus  # noqa: E402
from attn_widget.corpus.sample import python_doc_sentences  # noqa: E402
from attn_widget.demo import minilm, pydoc_gpt2  # noqa: E402

MODELS = {"MiniLM (6 layers, 12 heads)": minilm, "shipped pydoc GPT-2 (4 layers, 4 heads)": pydoc_gpt2}


def _pad(rows: list[list[int]], pad: int) -> torch.Tensor:
    n = max(map(len, rows))
    return torch.tensor([row + [pad] * (n - len(row)) for row in rows])


def bare_padded(model, tokenizer, texts: list[str], batch_size: int) -> None:
    """Bare forward passes of ``model`` with right padding and an attention mask, as the analysis runs them."""
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    for start in range(0, len(texts), batch_size):
        rows = tokenizer(texts[start : start + batch_size], verbose=False)["input_ids"]
        ids = _pad(rows, pad)
        mask = torch.tensor([[1] * len(r) + [0] * (ids.shape[1] - len(r)) for r in rows])
        with torch.no_grad():
            model(input_ids=ids, attention_mask=mask)


def shape_loader(shape: str):
    """A loader of ``scale.py``'s random-weight model of ``shape`` (float32) and the shipped tokenizer."""
    from scale import build

    return lambda: build(shape, "float32")


def throughput(texts: list[str], batch_size: int, repeat: int, models=MODELS) -> list[str]:
    lines = [
        f"### Statistics only vs bare forward passes: {len(texts)} texts, batch {batch_size}, 1 thread",
        "",
        "| model | bare forward, texts/s | statistics, texts/s | ratio (goal ≥ 0.8) | per text "
        "| bare forward of the base model (no head), texts/s | ratio to it |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, load in models.items():
        model, tokenizer = load()
        bare_times, base_times, stat_times = [], [], []
        for _ in range(repeat):  # alternated, so that all see the same load from other processes
            start = time.perf_counter()
            bare_padded(model, tokenizer, texts, batch_size)
            bare_times.append(time.perf_counter() - start)
            start = time.perf_counter()
            bare_padded(model.base_model, tokenizer, texts, batch_size)
            base_times.append(time.perf_counter() - start)
            with tempfile.TemporaryDirectory() as out:
                start = time.perf_counter()
                analyze_corpus(model, texts, tokenizer, out=out, batch_size=batch_size, progress=False)
                stat_times.append(time.perf_counter() - start)
        b, s, base = min(bare_times), min(stat_times), min(base_times)
        lines.append(
            f"| {name} | {len(texts) / b:.3g} | {len(texts) / s:.3g} | {b / s:.2f}x | {1000 * s / len(texts):.2f} ms "
            f"| {len(texts) / base:.3g} | {base / s:.2f}x |"
        )
    return lines


def _steady_seconds(out: str, count: int) -> float:
    """Seconds per text once every worker runs: from the first shard written to the last (their file times),
    so actor start-up (process, imports, model) is left out."""
    times = sorted(path.stat().st_mtime for path in pathlib.Path(out).glob("part-*.parquet"))
    shards = len(times)
    return (times[-1] - times[0]) / (count * (shards - 1) / shards)


def ray_speedup(texts: list[str], batch_size: int, repeat: int) -> list[str]:
    import ray

    path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    start = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, runtime_env={"env_vars": {"PYTHONPATH": path}})
    started = time.perf_counter() - start
    model, tokenizer = minilm()
    runs = (("local", 1), ("ray", 1), ("ray", 2))
    wall: dict[tuple[str, int], list[float]] = {}
    steady: dict[tuple[str, int], list[float]] = {}
    for engine, workers in runs * repeat:  # alternated, so that all see the same load from other processes
        with tempfile.TemporaryDirectory() as out:
            start = time.perf_counter()
            analyze_corpus(
                model, texts, tokenizer, engine=engine, workers=workers, out=out, batch_size=batch_size, progress=False
            )
            wall.setdefault((engine, workers), []).append(time.perf_counter() - start)
            steady.setdefault((engine, workers), []).append(_steady_seconds(out, len(texts)))
    ray.shutdown()
    best = {run: min(found) for run, found in wall.items()}
    rate = {run: min(found) for run, found in steady.items()}
    local = ("local", 1)
    names = {local: "local, 1 thread", ("ray", 1): "ray, 1 actor of 1 CPU", ("ray", 2): "ray, 2 actors of 1 CPU"}
    return [
        f"### engine='ray' vs engine='local', 1 thread per worker: MiniLM, {len(texts)} texts, batch {batch_size}",
        "",
        "| engine | seconds, whole run | speed-up over local (goal ≥ 1.6 for 2 actors) "
        "| ms per text once running | speed-up once running |",
        "|---|---|---|---|---|",
        *(
            f"| {names[run]} | {best[run]:.2f} | {best[local] / best[run]:.2f}x "
            f"| {1000 * rate[run]:.2f} | {rate[local] / rate[run]:.2f}x |"
            for run in runs
        ),
        "",
        f"ray.init(num_cpus=2) took {started:.1f} s (not included). 'Once running': from the first shard written "
        "to the last, so each actor's start-up (process, imports, model) is left out.",
    ]


def agreement_cost(texts: list[str]) -> list[str]:
    """Seconds per text of agreement, one method (against saliency) or one reference (for raw) at a time:
    each call analyses the text afresh, as ``analyze_corpus`` does per text."""
    from attn_widget import analyze, targets
    from attn_widget.compare import reference_ids
    from attn_widget.corpus import extras

    model, tokenizer = minilm()
    target = targets.sentence_embedding()

    def seconds(methods, references) -> float:
        start = time.perf_counter()
        for text in texts:
            extras.per_text(model, tokenizer, text, target, methods, references)
        return (time.perf_counter() - start) / len(texts)

    seconds(("raw",), ("saliency",))  # warm-up: first calls load kernels and fill caches
    floor = seconds(("raw",), ("saliency",))
    lines = [
        f"### Agreement: seconds per text on MiniLM ({len(texts)} texts, 1 thread), by method and by reference",
        "",
        f"raw against saliency (the least there is): {floor:.3f} s per text.",
        "",
        "| method (against saliency) or reference (for raw) | seconds per text | over the least |",
        "|---|---|---|",
    ]
    for method in extras.check_methods("all") or ():
        if method != "raw":
            found = seconds((method,), ("saliency",))
            lines.append(f"| method {method} | {found:.3f} | +{found - floor:.3f} |")
    for reference in reference_ids(analyze(model, texts[0], tokenizer)):  # those that apply to MiniLM
        if reference != "saliency":
            found = seconds(("raw",), (reference,))
            lines.append(f"| reference {reference} | {found:.3f} | +{found - floor:.3f} |")
    return lines


def memory_run(count: int, batch_size: int) -> dict:
    """In a fresh process: peak resident memory of a local run over ``count`` texts (the sentences repeated)."""
    code = (
        "import json, resource, sys, tempfile, time; sys.path.insert(0, sys.argv[1]);"
        "import torch; torch.set_num_threads(1);"
        "from attn_widget.corpus import analyze_corpus; from attn_widget.corpus.sample import python_doc_sentences;"
        "from attn_widget.demo import pydoc_gpt2; model, tok = pydoc_gpt2(); s = python_doc_sentences(None);"
        "texts = (s[i % len(s)] for i in range(int(sys.argv[2])));"
        "start = time.perf_counter();"
        "r = analyze_corpus(model, texts, tok, out=tempfile.mkdtemp(), batch_size=int(sys.argv[3]), progress=False);"
        "h = r.heads; seconds = time.perf_counter() - start;"
        "print(json.dumps({'seconds': seconds, 'rss': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(ROOT), str(count), str(batch_size)], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def memory(counts: list[int], batch_size: int) -> list[str]:
    lines = [
        f"### Peak memory of a local run (shipped GPT-2, batch {batch_size}, texts from a generator)",
        "",
        "| texts | seconds | per text | peak resident memory |",
        "|---|---|---|---|",
    ]
    for count in counts:
        found = memory_run(count, batch_size)
        seconds, mib = found["seconds"], found["rss"] / 1024
        lines.append(f"| {count} | {seconds:.1f} | {1000 * seconds / count:.2f} ms | {mib:.0f} MiB |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer texts")
    parser.add_argument("--skip", nargs="*", default=[], choices=["throughput", "ray", "memory", "agreement"])
    parser.add_argument("--ray-texts", nargs="*", type=int, help="corpus sizes of the Ray table (default 2,000)")
    parser.add_argument("--shapes", nargs="*", help="the throughput table on these shapes of scale.py instead")
    parser.add_argument("--texts", type=int, help="texts of the throughput table (default 1,000; 400 with --quick)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    sentences = python_doc_sentences(2000)
    n = 400 if args.quick else 1000
    if "throughput" not in args.skip:
        models = {f"{shape} shape, random weights": shape_loader(shape) for shape in args.shapes or []} or MODELS
        rows = throughput(sentences[: args.texts or n], 32, 2 if args.quick else 3, models)
        print("\n".join(rows), "\n", flush=True)
    if "ray" not in args.skip:
        for count in args.ray_texts or [2 * n]:  # the sentences repeated past 2,000
            texts = [sentences[i % len(sentences)] for i in range(count)]
            print("\n".join(ray_speedup(texts, 32, repeat=1 if count > 2000 else 2)), "\n", flush=True)
    if "agreement" not in args.skip:
        print("\n".join(agreement_cost(sentences[:3] if args.quick else sentences[:10])), "\n", flush=True)
    if "memory" not in args.skip:
        print("\n".join(memory([2000, 20000] if not args.quick else [500, 5000], 32)), flush=True)
    print(f"\n{machine_line()}; load average {os.getloadavg()[0]:.1f} at the end", flush=True)


if __name__ == "__main__":
    main()
