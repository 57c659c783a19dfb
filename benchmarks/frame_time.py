"""Time from a control change to the next drawn picture, in real Chromium, and payload sizes.

    .venv/bin/python benchmarks/frame_time.py

A 12-layer, 12-head BERT (width 384, MiniLM's shape; random weights, since no 12-layer model
is available offline) on 128 and 512 tokens. The widget is exported with ``to_html`` and
opened in Debian Chromium (headless, software rendering), then the layer, head and method
controls are changed 40 times each. Two figures per change:
- paint: the time our code spends redrawing (decode the slice, edges, canvas, labels);
- latency: from the control's event to the end of that redraw, including the wait for
  the next animation frame (up to one display frame, 16.7 ms at 60 Hz).
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

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking"]

MEASURE = """async ([selector, values]) => {
    const root = document.querySelector(".attnw-root");
    const control = document.querySelector(selector);
    const out = [];
    for (const value of values) {
        const before = Number(root.dataset.paintEnd);
        const start = performance.now();
        control.value = String(value);
        control.dispatchEvent(new Event(control.tagName === "INPUT" ? "input" : "change"));
        while (!(Number(root.dataset.paintEnd) > before && Number(root.dataset.paintEnd) > start)) {
            await new Promise((resolve) => requestAnimationFrame(resolve));
        }
        out.push([Number(root.dataset.paintEnd) - start, Number(root.dataset.paintMs)]);
        await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return out;
}"""


def random_bert(seed: int = 0):
    torch.manual_seed(seed)
    config = tf.BertConfig(
        vocab_size=30522, hidden_size=384, num_hidden_layers=12, num_attention_heads=12, intermediate_size=1536,
        max_position_embeddings=512,
    )  # fmt: skip
    return tf.BertModel(config).eval()


def main() -> None:
    from playwright.sync_api import sync_playwright

    from attn_widget.demo import minilm

    _, tokenizer = minilm()
    model = random_bert()
    print(f"# frame time in Chromium\n\n{platform.platform()}, {os.cpu_count()} CPUs\n")
    sizes = []
    timings = []
    with sync_playwright() as playwright, tempfile.TemporaryDirectory() as folder:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for n in (128, 512):
            ids = tokenizer(" ".join(["word"] * 600), add_special_tokens=False)["input_ids"][: n - 2]
            widget = AttentionWidget(model, tokenizer.decode(ids), tokenizer)
            assert len(widget.tokens) == n
            for meta in widget.methods:
                data = getattr(widget, f"data_{meta['id']}")
                if data:
                    sizes.append((n, meta["id"], len(data)))
            path = os.path.join(folder, f"view{n}.html")
            widget.to_html(path)
            page = browser.new_page(viewport={"width": 1000, "height": 900})
            page.goto(f"file://{path}")
            page.wait_for_function("document.querySelector('.attnw-root')?.dataset.paintEnd")
            for label, selector, values in [
                ("layer", ".attnw-layer", [(i % 12) + 1 for i in range(1, 41)]),
                ("head", ".attnw-head", [(i % 14) - 2 for i in range(1, 41)]),
                ("method", ".attnw-method", ["rollout", "raw", "effective", "effective_rollout"] * 10),
            ]:
                results = page.evaluate(MEASURE, [selector, values])
                latency = statistics.median(r[0] for r in results)
                paint = statistics.median(r[1] for r in results)
                timings.append((n, label, latency, paint, max(r[0] for r in results)))
            page.close()
        browser.close()
    print("| tokens | control changed | latency median ms | paint median ms | latency max ms |")
    print("|---|---|---|---|---|")
    for n, label, latency, paint, worst in timings:
        print(f"| {n} | {label} | {latency:.1f} | {paint:.1f} | {worst:.1f} |")
    print("\n| tokens | method | payload bytes |")
    print("|---|---|---|")
    for n, method, size in sizes:
        print(f"| {n} | {method} | {size:,} |")


if __name__ == "__main__":
    main()
