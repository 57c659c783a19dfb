"""Words that say what is drawn (issue 34), read in real Chromium: the encoder-decoder captions say each
thing once, and the legend's coverage line says "of the attention" only where the edges are attention
weights (ALTI's, a rollout's or a path count's share is of the rows' totals)."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from zoo import FAMILIES, zoo_tokenizer

from attn_widget import AttentionWidget

from .page import TEXT, and_paint, open_widget

pytestmark = pytest.mark.browser


def repeats(text: str) -> list[str]:
    """Runs of three words said more than once."""
    words = re.findall(r"[\w-]+", text.lower())
    return [" ".join(run) for run, n in Counter(zip(words, words[1:], words[2:], strict=False)).items() if n > 1]


def show(page, method: str, view: str) -> str:
    """Select a method and a view; the caption they paint."""
    and_paint(
        page,
        lambda: page.evaluate(
            "([m, v]) => { window.model.set('method', m); window.model.set('view', v); window.model.save_changes(); }",
            [method, view],
        ),
    )
    return page.inner_text(".attnw-caption")


def test_encoder_decoder_captions_say_each_thing_once(browser, page_server, artifacts):
    """Every encoder-decoder method, in the layer view and the whole-model view: what its caption says of
    the edges repeats no run of three words (it said "Attention of each layer (both kinds) of each layer")."""
    bart = next(f for f in FAMILIES if f.name == "BART").build()
    widget = AttentionWidget(bart, "the cat sat on the mat", zoo_tokenizer(), target="a dog ran home")
    widget.prepare("all", wait=True)
    page, errors = open_widget(browser, page_server, widget)
    seen = {}
    for method in widget.methods:
        for view in ("layer", "model"):
            caption = show(page, method["id"], view)
            seen[method["id"], view] = caption
            # The layer view's whole caption; the model view's part on the edges (its dots name the method).
            edges = re.search(r"edges: [^;]*", caption) if view == "model" else None
            said = edges[0] if edges else caption
            assert not repeats(said), (method["id"], view, caption, repeats(said))
    # Rollout's edges are what it composes, the layer maps; the joint attention's are its own.
    assert "edges: Layer maps (attention + residual) of each layer" in seen["rollout", "model"], seen[
        "rollout", "model"
    ]
    assert "Self- and cross-attention" in seen["attention", "model"], seen["attention", "model"]
    page.locator(".attnw-root").screenshot(path=str(artifacts / "wording-seq2seq-flow-model.png"))
    assert errors == []
    page.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_legend_says_of_the_attention_only_for_attention(browser, page_server, minilm, artifacts, lang):
    """MiniLM with 3 edges per token: raw attention's drawn edges carry a share "of the attention"; ALTI's,
    path counts' and rollout's a share of the rows' totals; the whole-model view names the share of the
    edges it draws (ALTI rolled out: its per-layer map's)."""
    model, tokenizer = minilm
    widget = AttentionWidget(model, TEXT, tokenizer, top_k=3, layer=3, lang=lang)
    widget.prepare("all", wait=True)
    page, errors = open_widget(browser, page_server, widget)
    attention, rows = {
        "en": ("% of the attention", "% of the rows' totals"),
        "zh": ("的注意力", "各行总和的"),
    }[lang]
    coverage = {}
    for method, view in [
        ("raw", "layer"),
        ("alti", "layer"),
        ("paths", "layer"),
        ("rollout", "layer"),
        ("raw", "model"),
        ("alti_rollout", "model"),
    ]:
        show(page, method, view)
        coverage[method, view] = page.locator(".attnw-legend-coverage:not(.attnw-legend-scale)").first.inner_text()
        if (method, view) == ("alti", "layer"):
            page.locator(".attnw-root").screenshot(path=str(artifacts / f"wording-alti-legend-{lang}.png"))
    assert attention in coverage["raw", "layer"], coverage
    for method in ("alti", "paths", "rollout"):
        assert rows in coverage[method, "layer"] and attention not in coverage[method, "layer"], coverage
    all_attention, all_rows = {"en": ("all of the attention", "all of each row"), "zh": ("全部注意力", "每行的全部")}[
        lang
    ]
    assert all_attention in coverage["raw", "model"], coverage
    # Rolled out, ALTI's whole-model view draws its per-layer map as edges.
    assert next(m["graph"] for m in widget.methods if m["id"] == "alti_rollout") == "alti"
    assert all_rows in coverage["alti_rollout", "model"] and all_attention not in coverage["alti_rollout", "model"]
    assert errors == []
    page.close()


@pytest.mark.parametrize(("lang", "shade"), [("en", "the colour goes from pale"), ("zh", "颜色从浅")])
def test_the_about_panel_of_alti_rolled_out_says_how_colours_go_once(
    browser, page_server, minilm, artifacts, lang, shade
):
    """The About panel of "ALTI, rolled out", as the reader sees it: the rollout's text, then its per-layer map's,
    with how the colours go said once (it was said twice)."""
    model, tokenizer = minilm
    widget = AttentionWidget(model, TEXT, tokenizer, method="alti_rollout", layer=3, lang=lang)
    page, errors = open_widget(browser, page_server, widget)
    page.click(".attnw-explain-toggle")
    panel = page.locator(".attnw-explain")
    panel.wait_for(state="visible")
    text = panel.inner_text()
    page.locator(".attnw-root").screenshot(path=str(artifacts / f"wording-about-alti-rollout-{lang}.png"))
    assert {"en": "ALTI", "zh": "ALTI"}[lang] in text and text.count(shade) == 1, text
    assert errors == []
    page.close()
