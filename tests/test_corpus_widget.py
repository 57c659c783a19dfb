"""CorpusWidget: the grid shows each head's mean, a click lists result.extreme's texts, choosing one opens
the AttentionWidget on that text at that layer and head."""

from __future__ import annotations

import math

import pytest
from grid_checks import contrast, hex_rgb, shows
from tiny_models import tiny_model

from attn_widget import AttentionWidget
from attn_widget.corpus import CorpusWidget, analyze_corpus
from attn_widget.corpus.widget import _PALETTE, _UNDEFINED, _set_sentence, text_colour

pytest.importorskip("ipywidgets")

TEXTS = ["the cat sat on the mat", "a dog ran", "the the cat the", "blue and red and blue", "", "it was big"]


def test_cell_text_is_legible_on_every_colour():
    for background in (*_PALETTE, _UNDEFINED):
        ink = {"black": (0, 0, 0), "white": (255, 255, 255)}[text_colour(background)]
        assert contrast(hex_rgb(background), ink) >= 4.5, background


def test_sentences_are_shown_as_text_never_as_markup():
    """The caption, the selection and the opened text's line are HTML widgets only so that they wrap (a Label
    cuts them at an ellipsis in a narrow output: tests/browser/test_jupyter.py); what they show is escaped."""
    import ipywidgets as w

    box = w.HTML()
    _set_sentence(box, 'a <img src=x onerror="alert(1)"> & b')
    assert box.value == 'a &lt;img src=x onerror="alert(1)"&gt; &amp; b'


def test_grid_click_list_and_open(tokenizer):
    model = tiny_model("bert")
    result = analyze_corpus(model, TEXTS, tokenizer, batch_size=4, progress=False)
    widget = CorpusWidget(result, model, tokenizer, statistic="previous_token", k=3)
    means = result.heads.query("statistic == 'previous_token'")
    mean = means.query("layer == 2 and head == 2")["mean"].item()
    assert shows(widget.cells[1][2].description, mean)
    edges = [float(swatch.value) for swatch in widget.swatches]  # the colour key: distinct, rising values
    assert edges == sorted(set(edges)) and shows(widget.swatches[0].value, means["mean"].min())
    widget.cells[1][2].click()
    ringed = [(i, j) for i, row in enumerate(widget.cells) for j, cell in enumerate(row) if cell.layout.border]
    assert ringed == [(1, 2)] and "layer 2, head 2" in widget.selection.value
    expected = result.extreme("previous_token", 2, 2, k=3)
    assert [value for _, value in widget.texts.options] == expected["index"].tolist()
    assert all(label.endswith(text) for (label, _), text in zip(widget.texts.options, expected["text"], strict=True))
    widget.order.value = "smallest"
    assert [value for _, value in widget.texts.options] == result.extreme("previous_token", 2, 2, 3, False)[
        "index"
    ].tolist()
    widget.texts.value = widget.texts.options[0][1]
    (shown,) = widget.shown.children
    assert isinstance(shown, AttentionWidget) and (shown.layer, shown.head) == (2, 2)
    assert widget.opened.value.startswith(f"Text {widget.texts.value} at layer 2, head 2.")
    assert shown.analysis.capture.tokens[1] == TEXTS[widget.texts.value].split()[0]
    widget.statistic.value = "entropy"
    entropy = result.heads.query("statistic == 'entropy' and layer == 1 and head == 0")["mean"].item()
    assert shows(widget.cells[0][0].description, entropy) and not math.isnan(entropy)
    assert [(i, j) for i, row in enumerate(widget.cells) for j, cell in enumerate(row) if cell.layout.border] == [
        (1, 2)
    ], "the selection stays across statistics"
    with pytest.raises(ValueError, match="was not computed"):
        CorpusWidget(result, statistic="importance")


def test_the_order_can_change_before_a_head_is_chosen(tokenizer):
    result = analyze_corpus(tiny_model("bert"), TEXTS[:3], tokenizer, progress=False)
    widget = CorpusWidget(result)
    widget.order.value = "smallest"  # main raised AssertionError here: no head to list texts for yet
    assert widget.texts.options == () and widget.selection.value.startswith("Click a cell")


def test_the_words_follow_lang_and_reach_the_opened_widget(tokenizer):
    model = tiny_model("bert")
    result = analyze_corpus(model, TEXTS[:3], tokenizer, progress=False)
    widget = CorpusWidget(result, model, tokenizer, statistic="previous_token", k=2, lang="zh")
    assert widget.statistic.description == "统计量" and widget.corner.value == "层 \\ 头"
    assert widget.caption.value == "每格：前一个 token 上的注意力质量，3 个文本的平均（行：层，列：头）。"
    assert [label for label, _ in widget.order.options] == ["最大", "最小"]
    assert widget.cells[0][1].tooltip.startswith("第 1 层，头 1：")
    widget.cells[0][1].click()
    assert widget.selection.value.startswith("已选：第 1 层，头 1。它的 previous_token 最大的 2 个文本")
    widget.order.value = "smallest"
    widget.texts.value = widget.texts.options[0][1]
    assert widget.opened.value.startswith("文本 ") and widget.shown.children[0].lang == "zh"
    # Switched from the kernel: every word again, in English, with the choices and the opened text kept.
    widget.lang = "en"
    assert widget.statistic.description == "Statistic" and widget.key_name.value == "colour from"
    assert widget.caption.value.startswith("Each cell: attention mass on the previous token, averaged over 3 texts")
    assert widget.order.value == "smallest" and [label for label, _ in widget.order.options] == ["largest", "smallest"]
    assert widget.selection.value.startswith("Selected: layer 1, head 1. The 2 texts where its previous_token is small")
    assert widget.opened.value == f"Text {widget.texts.value} at layer 1, head 1."
    assert widget.shown.children[0].lang == "en"
    with pytest.raises(Exception, match="lang.*'en'.*'zh'"):
        CorpusWidget(result, lang="fr")
