"""CorpusWidget: the grid shows each head's mean, a click lists result.extreme's texts, choosing one opens
the AttentionWidget on that text at that layer and head."""

from __future__ import annotations

import math

import pytest
from tiny_models import tiny_model

from attn_widget import AttentionWidget
from attn_widget.corpus import CorpusWidget, analyze_corpus

pytest.importorskip("ipywidgets")

TEXTS = ["the cat sat on the mat", "a dog ran", "the the cat the", "blue and red and blue", "", "it was big"]


def test_grid_click_list_and_open(tokenizer):
    model = tiny_model("bert")
    result = analyze_corpus(model, TEXTS, tokenizer, batch_size=4, progress=False)
    widget = CorpusWidget(result, model, tokenizer, statistic="previous_token", k=3)
    means = result.heads.query("statistic == 'previous_token'")
    mean = means.query("layer == 2 and head == 3")["mean"].item()
    assert widget.cells[1][2].description == f"{mean:.2f}"
    widget.cells[1][2].click()
    expected = result.extreme("previous_token", 2, 3, k=3)
    assert [value for _, value in widget.texts.options] == expected["index"].tolist()
    assert all(label.endswith(text) for (label, _), text in zip(widget.texts.options, expected["text"], strict=True))
    widget.order.value = "smallest"
    assert [value for _, value in widget.texts.options] == result.extreme("previous_token", 2, 3, 3, False)[
        "index"
    ].tolist()
    widget.texts.value = widget.texts.options[0][1]
    (shown,) = widget.shown.children
    assert isinstance(shown, AttentionWidget) and (shown.layer, shown.head) == (2, 2)
    assert shown.analysis.capture.tokens[1] == TEXTS[widget.texts.value].split()[0]
    widget.statistic.value = "entropy"
    entropy = result.heads.query("statistic == 'entropy' and layer == 1 and head == 1")["mean"].item()
    assert widget.cells[0][0].description == f"{entropy:.2f}" and not math.isnan(entropy)
    with pytest.raises(ValueError, match="was not computed"):
        CorpusWidget(result, statistic="importance")
