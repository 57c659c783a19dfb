"""Time from a control change to the picture's pixels, in real Chromium, and payload sizes.

    .venv/bin/python benchmarks/frame_time.py [--against REVISION] [--rounds N]
        [--only SCENARIO ...] [--tokens N ...] [--models NAME ...]

Two 12-layer, 12-head encoders (no 12-layer model is available offline):
- "MiniLM x2": all-MiniLM-L6-v2 with its six trained layers used twice (layers 7-12 repeat
  1-6), so the attention is as peaked as a trained model's;
- "random": a BERT of the same shape with random weights, whose near-uniform attention is the
  worst case for drawing (every edge about as strong as the strongest).
The text is English prose from CPython's pydoc topics, cut to 128 and 512 tokens. With
``--models vit``: a ViT-B/16-shaped vision transformer (12 layers, 12 heads, random weights) on a
224 x 224 picture, 197 tokens ([CLS] and 14 x 14 patches), judged by the same goals as text. With
``--models gpt2-long --tokens 2048 4096``: a GPT-2-small-shaped decoder (random weights, scale.py's model and news-like
text) on long inputs, exported as the widget is once every layer is read (raw attention alone: the other methods are
computed when selected, which an offline page cannot ask for), in the scenarios that draw raw attention
(``LONG_SCENARIOS``). The widget is exported with ``to_html`` and opened in Debian Chromium (headless, no GPU:
the canvas is rasterised in software). Each scenario starts on a freshly loaded page. Figures per change:
- to pixels: from the control's event until both canvases (edges; highlights and dots) hold the
  new picture and the page's layout is done. Chromium defers canvas drawing to a display list
  and layout to the next frame; reading one pixel back, and the root's height, forces both,
  which would otherwise happen before the next frame is shown. This is the figure the goals are
  about (it leaves out painting and compositing the page, about a millisecond).
- paint: the part of that spent in our code and the canvas calls it makes;
- how the edges got on the canvas: drawn stroke by stroke, or copied from a picture kept or
  drawn ahead while the page was idle (the layer and head one step away, the other view and
  the other methods are drawn ahead).
"Steps" wait 300 ms between changes, as a person does (layers and heads: the next value, as
arrow keys give); "jumps" wait 20 ms (layers and heads: values not shown before; the counts say
how many of those had been drawn ahead).
Flow is left out (it is computed on request at these sizes).
Comparisons (``compare_method``): raw attention beside effective attention (two panes of half the
width on one colour scale) or their difference (one picture), hovering and changing layer; the
same changes without a comparison are the scenarios above, in the same run.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import tempfile

import torch
import transformers as tf

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _common import machine_line  # noqa: E402

from attn_widget import AttentionWidget  # noqa: E402
from attn_widget.export import inline_script  # noqa: E402
from attn_widget.export import to_html as exported_page  # noqa: E402
from attn_widget.widget import ALL_EDGES_UP_TO, LONG_INPUT_TOP_K  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking"]
CHANGES = 20

# One change per item of `changes`: [selector, value] sets a control, ["hover", row] moves the
# pointer over a token of the right column, ["wheel", pixels] turns the wheel over the middle of
# the graph and ["zoom", pixels] does so with Ctrl held. A change that draws nothing within a
# second (a wheel at the window's end) is left out of the figures.
MEASURE = """async ([changes, pause]) => {
    const root = document.querySelector(".attnw-root");
    const canvas = root.querySelector(".attnw-canvas");
    const plot = root.querySelector(".attnw-plot");
    const out = [];
    for (const [what, value] of changes) {
        const before = Number(root.dataset.paintEnd);
        const start = performance.now();
        if (what === "hover") {
            const box = canvas.getBoundingClientRect(), d = canvas.dataset;
            const y = box.top + Number(d.top) + (value + 0.5) * Number(d.rowHeight);
            const clientX = box.left + Number(d.rightX) + 20;
            plot.dispatchEvent(new PointerEvent("pointermove", { clientX, clientY: y, bubbles: true }));
        } else if (what === "wheel" || what === "zoom") {
            const box = canvas.getBoundingClientRect();
            const clientX = box.left + box.width / 2, clientY = box.top + box.height / 2;
            const ctrlKey = what === "zoom";
            plot.dispatchEvent(new WheelEvent("wheel", { clientX, clientY, deltaY: value, ctrlKey, bubbles: true }));
        } else {
            const control = root.querySelector(what);
            control.value = String(value);
            control.dispatchEvent(new Event(control.type === "range" ? "input" : "change"));
        }
        let drawn = true;
        while (!(Number(root.dataset.paintEnd) > before && Number(root.dataset.paintEnd) > start)) {
            if (performance.now() - start > 1000) { drawn = false; break; }
            await new Promise((resolve) => requestAnimationFrame(resolve));
        }
        if (!drawn) continue;
        root.offsetHeight;  // style and layout
        for (const c of root.querySelectorAll("canvas")) c.getContext("2d").getImageData(0, 0, 1, 1);  // rasterise
        out.push([performance.now() - start, Number(root.dataset.paintMs), canvas.dataset.edgesFrom]);
        await new Promise((resolve) => setTimeout(resolve, pause));
    }
    return out;
}"""

STEP, JUMP = 300, 20  # ms between changes
LAYERS = 12
HEADS = [-1, -2, *range(12)]  # the head list's order: mean, max, head 0..11
# Jumps visit every 5th value (mod the count), each once. A value next to one shown before may
# have been drawn ahead while the page was idle: the drawn and copied counts show how many were.
LAYER_JUMPS = [6, 11, 4, 9, 2, 7, 12, 5, 10, 3, 8]
HEAD_JUMPS = [HEADS[(5 * i) % 14] for i in range(1, 14)]
METHODS = ["rollout", "raw", "effective", "effective_rollout"]


def control(selector: str, values: list) -> list:
    return [[selector, v] for v in values]


SIDE = {"compare_method": "effective", "compare_mode": "side"}
DIFFERENCE = {"compare_method": "effective", "compare_mode": "difference"}
MODEL = {"view": "model"}
HOVERS = [["hover", (3 + 7 * i) % 128] for i in range(CHANGES)]

SCENARIOS = [
    # label, changes, pause, edges per token (None: the widget's default)[, view settings]
    ("layer, steps", control(".attnw-layer", list(range(2, LAYERS + 1))), STEP, None),
    ("layer, jumps", control(".attnw-layer", LAYER_JUMPS), JUMP, None),
    ("head, steps", control(".attnw-head", HEADS[1:]), STEP, None),
    ("head, jumps", control(".attnw-head", HEAD_JUMPS), JUMP, None),
    ("method, steps", control(".attnw-method", METHODS * (CHANGES // 4)), STEP, None),
    ("method, jumps", control(".attnw-method", METHODS * (CHANGES // 4)), JUMP, None),
    ("edges per token", control(".attnw-top-k", [1, 3, 10, 5] * (CHANGES // 4)), JUMP, None),
    ("hover a token", HOVERS, JUMP, None),
    # Long inputs (js/src/navigate.js): the wheel scrolls a window of legible rows, Ctrl + wheel
    # zooms (out: 37, 56, 84, ... rows up to all of them, labels thinned; then back in).
    ("wheel scroll step", [["wheel", 100]] * (CHANGES // 2) + [["wheel", -100]] * (CHANGES // 2), STEP, None),
    ("wheel scroll, fast", [["wheel", 100]] * (CHANGES // 2) + [["wheel", -100]] * (CHANGES // 2), JUMP, None),
    ("zoom step (Ctrl + wheel)", [["zoom", 100]] * 7 + [["zoom", -100]] * 7, STEP, None),
    ("view (to whole model and back)", control(".attnw-view", ["model", "layer"] * (CHANGES // 2)), JUMP, None),
    # A token of the last layer hovered in the whole-model view: its paths traced back through every layer.
    ("whole model, hover a token", HOVERS, JUMP, None, MODEL),
    ("whole model, hover, all stored edges", HOVERS, JUMP, 0, MODEL),
    ("layer jumps, all stored edges", control(".attnw-layer", LAYER_JUMPS), JUMP, 0),
    # The all-heads grid: 12 layers x 14 heat maps (raw, effective) or 12 (rollout), redrawn whole.
    ("heads view (to all heads and back)", control(".attnw-view", ["heads", "layer"] * (CHANGES // 2)), JUMP, None),
    (
        "heads view, method",
        [[".attnw-view", "heads"]] + control(".attnw-method", ["effective", "raw"] * (CHANGES // 2)),
        JUMP,
        None,
    ),
    ("compare side by side, hover a token", HOVERS, JUMP, None, SIDE),
    ("compare side by side, layer steps", control(".attnw-layer", list(range(2, LAYERS + 1))), STEP, None, SIDE),
    ("compare side by side, layer jumps", control(".attnw-layer", LAYER_JUMPS), JUMP, None, SIDE),
    ("compare difference, hover a token", HOVERS, JUMP, None, DIFFERENCE),
    ("compare difference, layer steps", control(".attnw-layer", list(range(2, LAYERS + 1))), STEP, None, DIFFERENCE),
    ("compare difference, layer jumps", control(".attnw-layer", LAYER_JUMPS), JUMP, None, DIFFERENCE),
]


# What a long input's offline page can draw without a kernel: raw attention's head mean of every layer, the heads
# of the shown layer (``shown_heads.py``).
LONG_SCENARIOS = (
    "layer, steps",
    "layer, jumps",
    "hover a token",
    "wheel scroll step",
    "zoom step (Ctrl + wheel)",
    "view (to whole model and back)",
    "whole model, hover a token",
    "heads view (to all heads and back)",
)


def gpt2_long_widget(n: int) -> AttentionWidget:
    """scale.py's GPT-2-small-shaped model (float32) on its text of exactly n tokens, every layer read."""
    from scale import build, text_of

    model, tokenizer = build("gpt2-small", "float32")
    widget = AttentionWidget(model, text_of(tokenizer, n, 0), tokenizer)
    widget.wait()
    return widget


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


def random_vit_widget() -> AttentionWidget:
    """A ViT-B/16-shaped model (width 384 to keep the capture quick) on a 224 x 224 picture: 197 tokens."""
    import numpy as np

    torch.manual_seed(0)
    config = tf.ViTConfig(
        image_size=224, patch_size=16, hidden_size=384, num_hidden_layers=12, num_attention_heads=12,
        intermediate_size=1536,
    )  # fmt: skip
    model = tf.ViTModel(config, add_pooling_layer=False).eval()
    y, x = np.mgrid[0:224, 0:224]
    image = np.stack([x, y, ((x - 112) ** 2 + (y - 112) ** 2 < 60**2) * 255], -1).astype(np.uint8)
    return AttentionWidget(model, image)


def prose(tokenizer, n: int) -> str:
    """English text of exactly n tokens (with [CLS] and [SEP])."""
    from pydoc_data.topics import topics

    lines = "\n".join(topics[key] for key in sorted(topics)).splitlines()
    text = " ".join(line for line in lines if not set(line.strip()) <= set("*=-~^"))  # no underlines
    ids = tokenizer(text[:20000], add_special_tokens=False)["input_ids"][: n - 2]
    return tokenizer.decode(ids)


def cpu_model() -> str:
    """The processor (figures differ by about two times between the machines this runs on)."""
    fields = {}
    for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
        key, _, value = line.partition(":")
        fields.setdefault(key.strip(), value.strip())
    if "model name" not in fields:
        return platform.processor() or "unknown processor"
    return f"{fields['model name']}, family {fields.get('cpu family', '?')} model {fields.get('model', '?')}"


def summary(results: list) -> dict:
    """Medians of all changes, and of those drawn stroke by stroke or copied."""
    if not results:
        return {
            "n": 0,
            "all": float("nan"),
            "paint": float("nan"),
            "max": float("nan"),
            "strokes": (0, None),
            "copy": (0, None),
        }
    pixels = [r[0] for r in results]
    paint = statistics.median(r[1] for r in results)
    out = {"n": len(results), "all": statistics.median(pixels), "paint": paint, "max": max(pixels)}
    for how in ("strokes", "copy"):
        some = [r[0] for r in results if r[2] == how]
        out[how] = (len(some), statistics.median(some) if some else None)
    return out


def bundle_at(revision: str) -> str:
    """The front-end bundle committed at a git revision."""
    show = ["git", "show", f"{revision}:attn_widget/static/widget.js"]
    return subprocess.run(show, cwd=ROOT, capture_output=True, text=True, check=True).stdout


def export(widget, path: str, bundle: str | None, every_method: bool = True) -> None:
    """The widget's offline page (every method computed first, or as it is); with `bundle`, running that front end
    instead of this one."""
    page = widget.to_html() if every_method else exported_page(widget)
    if bundle is not None:
        current = inline_script((ROOT / "attn_widget" / "static" / "widget.js").read_text())
        assert page.count(current) == 1
        page = page.replace(current, inline_script(bundle))
    pathlib.Path(path).write_text(page, encoding="utf-8")


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--against", metavar="REVISION", help="also run the front end committed at this git revision, side by side"
    )
    parser.add_argument("--rounds", type=int, default=1, help="run every scenario this many times (changes pooled)")
    parser.add_argument(
        "--only", nargs="+", metavar="SCENARIO", help="run only the scenarios whose label starts with one of these"
    )
    parser.add_argument("--tokens", nargs="+", type=int, choices=(128, 512, 2048, 4096), default=[128, 512])
    parser.add_argument(
        "--models", nargs="+", choices=("minilm", "random", "vit", "gpt2-long"), default=["minilm", "random"]
    )
    args = parser.parse_args()
    scenarios = [s for s in SCENARIOS if not args.only or s[0].startswith(tuple(args.only))]
    if not scenarios:
        parser.error(f"no scenario starts with {args.only}; the scenarios: {[s[0] for s in SCENARIOS]}")
    builds = {"this build": None} | ({args.against: bundle_at(args.against)} if args.against else {})

    text_models = [name for name in args.models if name in ("minilm", "random")]
    trained, tokenizer = minilm_twice() if text_models else (None, None)  # MiniLM's tokenizer serves both
    models = {"MiniLM x2": trained} if "minilm" in args.models else {}
    if "random" in args.models:
        models["random"] = random_bert()

    def widgets():
        """(model name, tokens, widget) for every model and length asked for."""
        for name, model in models.items():
            for n in [n for n in args.tokens if n <= 512]:  # BERT's positions
                widget = AttentionWidget(model, prose(tokenizer, n), tokenizer)
                assert len(widget.tokens) == n, len(widget.tokens)
                yield name, n, widget
        if "vit" in args.models:
            widget = random_vit_widget()
            yield "ViT-B/16 shape, random", len(widget.tokens), widget
        if "gpt2-long" in args.models:
            for n in [n for n in args.tokens if n > 512]:
                yield "GPT-2 small shape, random", n, gpt2_long_widget(n)

    sizes = []
    rows = []
    with sync_playwright() as playwright, tempfile.TemporaryDirectory() as folder:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        print(f"# frame time in Chromium\n\n{machine_line()} ({cpu_model()}), Chromium {browser.version}\n")
        for name, n, widget in widgets():
            if name == "MiniLM x2":
                for meta in widget.methods:
                    data = getattr(widget, f"data_{meta['id']}")
                    if data:
                        sizes.append((n, meta["id"], len(data)))
            path = os.path.join(folder, f"view{n}.html")
            long = name.startswith("GPT-2")
            for label, changes, pause, top_k, *settings in scenarios:
                if long and label not in LONG_SCENARIOS:
                    continue
                widget.top_k = LONG_INPUT_TOP_K if top_k is None else top_k
                view = {"compare_method": "", "compare_mode": "side", "view": "layer"} | (
                    settings[0] if settings else {}
                )
                for key, value in view.items():
                    setattr(widget, key, value)
                results = {build: [] for build in builds}
                # Builds take turns in both orders, so that neither is always the first one run.
                turns = [build for r in range(args.rounds) for build in list(builds)[:: 1 if r % 2 == 0 else -1]]
                for build in turns:
                    export(widget, path, builds[build], every_method=not long)
                    page = browser.new_page(viewport={"width": 1000, "height": 900})
                    page.add_init_script("window.attnwProbes = true;")  # paint times (js/src/probes.js)
                    page.goto(f"file://{path}")
                    page.wait_for_function("document.querySelector('.attnw-root')?.dataset.paintEnd")
                    page.wait_for_timeout(300)  # the first picture settles (kept while idle)
                    results[build] += page.evaluate(MEASURE, [changes, pause])
                    page.close()
                for build, measured in results.items():
                    rows.append((name, n, label, build, summary(measured)))
                    print(rows[-1], flush=True)
        browser.close()
    print(f"\nEdges per token at the start: {LONG_INPUT_TOP_K} (inputs over {ALL_EDGES_UP_TO} tokens).\n")
    print(
        "| model | tokens | change | build | n | to pixels median ms | drawn: n, median ms | copied: n, median ms "
        "| paint median ms | to pixels max ms |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    cell = lambda c: f"{c[0]}, {c[1]:.1f}" if c[0] else "0"  # noqa: E731
    for name, n, label, build, s in rows:
        print(
            f"| {name} | {n} | {label} | {build} | {s['n']} | {s['all']:.1f} | {cell(s['strokes'])} "
            f"| {cell(s['copy'])} | {s['paint']:.1f} | {s['max']:.1f} |"
        )
    print("\n| tokens | method | payload bytes |")
    print("|---|---|---|")
    for n, method, size in sizes:
        print(f"| {n} | {method} | {size:,} |")


if __name__ == "__main__":
    main()
