"""The encoder-decoder widget (attn_widget/joint.py) in real Chromium: source tokens above the
decoder's tokens, encoder layers then decoder layers; each attention kind draws only in its own
block and layers, and the whole-model view traces a target token back to the source."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest
from zoo import FAMILIES, zoo_tokenizer

from attn_widget import AttentionWidget

from .page import and_paint, download, geometry, max_alpha, max_alpha_of, open_widget, row_point

pytestmark = pytest.mark.browser

SOURCE = "the cat sat on the mat"
TARGET = "a dog ran home"


@pytest.fixture(scope="module")
def widget():
    bart = next(f for f in FAMILIES if f.name == "BART").build()
    return AttentionWidget(bart, SOURCE, zoo_tokenizer(), target=TARGET)


def edge_rows(page, x: float, rows: range) -> list[int]:
    """The rows in ``rows`` where the edge canvas has ink at column x."""
    g = geometry(page)
    return [i for i in rows if max_alpha(page, x, g["top"] + (i + 0.5) * g["row"], radius=2) > 0]


def test_cross_attention_runs_from_source_rows_to_target_rows(browser, page_server, widget, artifacts):
    ns, n = widget.segments[0]["size"], len(widget.tokens)
    page, errors = open_widget(browser, page_server, widget)
    assert page.evaluate("window.model.get('method')") == "cross", "opens on cross-attention"
    # The layer moved to the first decoder layer, and the slider offers the decoder's layers only.
    assert page.evaluate("window.model.get('layer')") == 3
    assert page.get_attribute(".attnw-layer", "min") == "3" and page.get_attribute(".attnw-layer", "max") == "4"
    assert page.text_content(".attnw-layer-value") == "decoder 1"
    assert "decoder 1 (layer 3 of 4)" in page.text_content(".attnw-caption")
    titles = page.text_content(".attnw-title-left"), page.text_content(".attnw-title-right")
    assert titles == ("Encoder 2 · decoder input", "Encoder output · decoder 1"), "what each column's rows hold"
    page.locator(".attnw-root").screenshot(path=str(artifacts / "seq2seq-cross.png"))
    g = geometry(page)
    assert edge_rows(page, g["left"] + 1, range(n)) == list(range(ns)), "edges leave the source rows only"
    assert edge_rows(page, g["right"] - 1, range(n)) == list(range(ns, n)), "and reach the target rows only"

    idle = page.eval_on_selector_all(
        ".attnw-token.attnw-idle", "labels => labels.map(l => [l.parentElement.className, +l.dataset.index])"
    )
    left = sorted(i for column, i in idle if "left" in column)
    right = sorted(i for column, i in idle if "right" in column)
    assert (left, right) == (list(range(ns, n)), list(range(ns))), "labels without edges are faded"

    download(page, ".attnw-save-svg", artifacts / "seq2seq-cross.svg")
    svg = ET.parse(artifacts / "seq2seq-cross.svg").getroot()
    title = next(node for node in svg.iter("{http://www.w3.org/2000/svg}text") if node.text == titles[1])
    width = float(svg.get("width"))
    assert (title.get("text-anchor"), float(title.get("x"))) == ("end", width), "the long title ends at the edge"

    and_paint(page, lambda: page.select_option(".attnw-method", "encoder_self"))
    assert page.evaluate("window.model.get('layer')") == 2
    assert edge_rows(page, g["right"] - 1, range(n)) == list(range(ns))
    assert errors == []
    page.close()


def test_whole_model_traces_a_target_token_back_to_the_source(browser, page_server, widget, artifacts, tmp_path):
    ns, n = widget.segments[0]["size"], len(widget.tokens)
    page, errors = open_widget(browser, page_server, widget)
    page.select_option(".attnw-method", "rollout")
    page.select_option(".attnw-view", "model")
    page.wait_for_function("document.querySelector('.attnw-canvas').dataset.view === 'model'")
    columns = page.eval_on_selector(".attnw-canvas", "c => JSON.parse(c.dataset.columns)")
    assert len(columns) == 5  # input, 2 encoder and 2 decoder layers
    point = row_point(page, columns[4], n - 1)
    and_paint(page, lambda: page.mouse.click(*point))
    assert page.evaluate("window.model.get('selected')") == {"layer": 4, "index": n - 1}
    tooltip = page.text_content(".attnw-tooltip")
    assert "after decoder 2" in tooltip
    assert any(token in tooltip for token in widget.tokens[:ns]), "the last target token draws on the source"
    # The traced paths cross over to the source and on through the encoder's layers: cross-attention
    # spreads thin over the source, so no source edge is among a node's strongest two, but together
    # they carry most of what the token draws on.
    g = geometry(page)
    for c in (0, 1):  # halfway between the input and encoder 1, and between encoder 1 and 2
        x = (columns[c] + columns[c + 1]) / 2
        inked = [
            max_alpha_of(page, "canvas.attnw-overlay", x, g["top"] + (i + 0.5) * g["row"], radius=4) for i in range(ns)
        ]
        assert max(inked) > 0, f"a traced edge between columns {c} and {c + 1} among the source tokens"
    page.locator(".attnw-root").screenshot(path=str(artifacts / "seq2seq-model.png"))
    download(page, ".attnw-save-svg", tmp_path / "model.svg")
    root = ET.parse(tmp_path / "model.svg").getroot()
    svg = "{http://www.w3.org/2000/svg}"
    texts = [node.text for node in root.iter(f"{svg}text")]
    assert {"E1", "E2", "D1"} <= set(texts), "columns are marked encoder and decoder"
    rules = [line for line in root.iter(f"{svg}line") if line.get("stroke-dasharray")]
    assert len(rules) == 1, "one line between the source and the target tokens"
    assert errors == []
    page.close()


def test_token_scores_cover_source_and_target_tokens(browser, page_server, artifacts):
    """Chefer et al.'s encoder-decoder relevance of the default target (the last target token's logit)
    as bars beside both token lists; the target row is marked among the decoder's tokens."""
    bart = next(f for f in FAMILIES if f.name == "BART").build()
    widget = AttentionWidget(bart, SOURCE, zoo_tokenizer(), target=TARGET, attribution="gradient_rollout")
    widget.wait()
    assert widget.attribution_data["status"] == "done"
    ns, n = widget.segments[0]["size"], len(widget.tokens)
    page, errors = open_widget(browser, page_server, widget)
    assert page.locator(".attnw-bar").count() == n
    target_row = int(page.locator(".attnw-labels-right .attnw-target-row").get_attribute("data-index"))
    assert target_row == widget.targets[0]["position"] == n - 2, "the position before the last target token"
    scores = widget.analysis.seq2seq.attribution("gradient_rollout")
    widths = page.eval_on_selector_all(".attnw-bar", "bars => bars.map(b => b.getBoundingClientRect().width)")
    assert int(np.argmax(widths)) == int(scores.abs().argmax())
    assert all(w == 0 for w in widths[target_row + 1 :]), "no relevance from decoder inputs after the target row"
    assert max(widths[:ns]) > 0, "the source carries relevance through cross-attention"
    page.locator(".attnw-root").screenshot(path=str(artifacts / "seq2seq-token-scores.png"))
    assert errors == []
    page.close()


def test_the_shipped_reversal_model_reads_the_word_it_copies(browser, page_server, artifacts):
    """The trained word-reversal BART at decoder 2: hovering each target position lists, first, the source
    word it is about to write (the anti-diagonal docs/methods.md §0.4 measures)."""
    from attn_widget.demo import reversal_bart

    model, tokenizer = reversal_bart()
    widget = AttentionWidget(model, "the old man found this letter from his mother", tokenizer, layer=4)
    s2s = widget.analysis.seq2seq
    ns = len(s2s.source_tokens)
    page, errors = open_widget(browser, page_server, widget)
    g = geometry(page)
    box = page.locator("canvas.attnw-canvas").bounding_box()
    read = []
    for t, written in enumerate(s2s.target_tokens[1:4]):  # the first three words written
        page.mouse.move(box["x"] + g["right"] + 20, box["y"] + g["top"] + (ns + t + 0.5) * g["row"])
        page.wait_for_function(f"document.querySelector('.attnw-tooltip-title')?.textContent.includes('#{ns + t} ·')")
        read.append((page.locator(".attnw-tooltip-list tr").first.inner_text().split("”")[0].strip("“"), written))
    assert read == [(word, word) for _, word in read], read
    page.mouse.move(box["x"] + g["right"] + 20, box["y"] + g["top"] + (ns + 0.5) * g["row"])
    page.wait_for_function(f"document.querySelector('.attnw-tooltip-title')?.textContent.includes('#{ns} ·')")
    page.locator(".attnw-root").screenshot(path=str(artifacts / "seq2seq-reversal.png"))
    assert errors == []
    page.close()
