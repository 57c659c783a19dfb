"""Time from a control change to the picture's pixels, in real Chromium, and payload sizes.

    .venv/bin/python benchmarks/frame_time.py

Two 12-layer, 12-head encoders (no 12-layer model is available offline):
- "MiniLM x2": all-MiniLM-L6-v2 with its six trained layers used twice (layers 7-12 repeat
  1-6), so the attention is as peaked as a trained model's;
- "random": a BERT of the same shape with random weights, whose near-uniform attention is the
  worst case for drawing (every edge about as strong as the strongest).
The text is English prose from CPython's pydoc topics, cut to 128 and 512 tokens. The widget is
exported with ``to_html`` and opened in Debian Chromium (headless, no GPU: the canvas is
rasterised in software). Each control is changed 20 times. Figures per change:
- paint: the time our code spends redrawing (frames, scene, canvas calls, labels);
- to pixels: from the control's event until the canvas holds the new picture. Chromium defers
  canvas drawing to a display list; reading one pixel back forces its rasterisation, which
  would otherwise happen before the next frame is shown. This is the figure the goals are about.
Flow is left out (it is computed on request at these sizes).
"""

from __future__ import annotations

import os
import platform
import statistics
import sys
import tempfile

import torch
import transformers as tf

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from attn_widget import AttentionWidget  # noqa: E402
from attn_widget.widget import ALL_EDGES_UP_TO, LONG_INPUT_TOP_K  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking"]
CHANGES = 20

MEASURE = """async ([selector, values]) => {
    const root = document.querySelector(".attnw-root");
    const canvas = root.querySelector(".attnw-canvas");
    const control = root.querySelector(selector);
    const out = [];
    for (const value of values) {
        const before = Number(root.dataset.paintEnd);
        const start = performance.now();
        control.value = String(value);
        control.dispatchEvent(new Event(control.type === "range" ? "input" : "change"));
        while (!(Number(root.dataset.paintEnd) > before && Number(root.dataset.paintEnd) > start)) {
            await new Promise((resolve) => requestAnimationFrame(resolve));
        }
        canvas.getContext("2d").getImageData(0, 0, 1, 1);  // rasterise the recorded drawing
        out.push([performance.now() - start, Number(root.dataset.paintMs)]);
        await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return out;
}"""

CONTROLS = [
    # label, selector, values (consecutive values differ, so each one is a change)
    ("layer", ".attnw-layer", [(i % 12) + 1 for i in range(1, CHANGES + 1)]),
    ("head", ".attnw-head", [(i % 14) - 2 for i in range(1, CHANGES + 1)]),
    ("method", ".attnw-method", ["rollout", "raw", "effective", "effective_rollout"] * (CHANGES // 4)),
    ("edges per token", ".attnw-top-k", [1, 3, 10, 5] * (CHANGES // 4)),
    ("layer, all stored edges", ".attnw-layer", [(i % 12) + 1 for i in range(1, CHANGES + 1)]),
    ("view (to whole model and back)", ".attnw-view", ["model", "layer"] * (CHANGES // 2)),
]


def minilm_twice():
    """MiniLM's six trained layers, each used twice: a 12-layer model with trained attention."""
    from attn_widget.demo import minilm

    small, tokenizer = minilm()
    config = small.config.to_dict() | {"num_hidden_layers": 12}
    model = tf.BertModel(tf.BertConfig(**config), add_pooling_layer=False).eval()
    weights = {}
    for name, value in small.state_dict().items():
        if name.startswith("encoder.layer."):
            index, rest = name[len("encoder.layer.") :].split(".", 1)
            weights[f"encoder.layer.{index}.{rest}"] = value
            weights[f"encoder.layer.{int(index) + 6}.{rest}"] = value
        elif not name.startswith("pooler."):
            weights[name] = value
    model.load_state_dict(weights)
    return model, tokenizer


def random_bert(seed: int = 0):
    torch.manual_seed(seed)
    config = tf.BertConfig(
        vocab_size=30522, hidden_size=384, num_hidden_layers=12, num_attention_heads=12, intermediate_size=1536,
        max_position_embeddings=512,
    )  # fmt: skip
    return tf.BertModel(config).eval()


def prose(tokenizer, n: int) -> str:
    """English text of exactly n tokens (with [CLS] and [SEP])."""
    from pydoc_data.topics import topics

    lines = "\n".join(topics[key] for key in sorted(topics)).splitlines()
    text = " ".join(line for line in lines if not set(line.strip()) <= set("*=-~^"))  # no underlines
    ids = tokenizer(text[:20000], add_special_tokens=False)["input_ids"][: n - 2]
    return tokenizer.decode(ids)


def main() -> None:
    from playwright.sync_api import sync_playwright

    trained, tokenizer = minilm_twice()
    models = {"MiniLM x2": trained, "random": random_bert()}
    print(f"# frame time in Chromium\n\n{platform.platform()}, {os.cpu_count()} CPUs\n")
    sizes = []
    timings = []
    with sync_playwright() as playwright, tempfile.TemporaryDirectory() as folder:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for name, model in models.items():
            for n in (128, 512):
                widget = AttentionWidget(model, prose(tokenizer, n), tokenizer)
                assert len(widget.tokens) == n, len(widget.tokens)
                if name == "MiniLM x2":
                    for meta in widget.methods:
                        data = getattr(widget, f"data_{meta['id']}")
                        if data:
                            sizes.append((n, meta["id"], len(data)))
                path = os.path.join(folder, f"view{n}.html")
                widget.to_html(path)
                page = browser.new_page(viewport={"width": 1000, "height": 900})
                page.goto(f"file://{path}")
                page.wait_for_function("document.querySelector('.attnw-root')?.dataset.paintEnd")
                start_k = widget.top_k
                for label, selector, values in CONTROLS:
                    if label == "layer, all stored edges":
                        page.eval_on_selector(".attnw-top-k", "c => { c.value = '0'; c.dispatchEvent(new Event('change')); }")
                    results = page.evaluate(MEASURE, [selector, values])
                    if label == "layer, all stored edges":
                        page.eval_on_selector(".attnw-top-k", "(c, k) => { c.value = String(k); c.dispatchEvent(new Event('change')); }", start_k)
                    pixels = [r[0] for r in results]
                    paint = statistics.median(r[1] for r in results)
                    timings.append((name, n, label, statistics.median(pixels), paint, max(pixels)))
                    print(timings[-1], flush=True)
                page.close()
        browser.close()
    print(f"\nEdges per token at the start: {LONG_INPUT_TOP_K} (inputs over {ALL_EDGES_UP_TO} tokens).\n")
    print("| model | tokens | control changed | to pixels median ms | paint median ms | to pixels max ms |")
    print("|---|---|---|---|---|---|")
    for name, n, label, pixels, paint, worst in timings:
        print(f"| {name} | {n} | {label} | {pixels:.1f} | {paint:.1f} | {worst:.1f} |")
    print("\n| tokens | method | payload bytes |")
    print("|---|---|---|")
    for n, method, size in sizes:
        print(f"| {n} | {method} | {size:,} |")


if __name__ == "__main__":
    main()
