"""Effective attention on real model internals: tiny random models (float64) and MiniLM."""

from __future__ import annotations

import pytest
import torch
from test_models import TEXT, capture_with_output_hooks
from tiny_models import tiny_model

from attn_widget import analyze


def reconstruct(record, attentions, layer):
    """Σ_h A_h V_g(h) W_O^h + b_O for one layer, with the given attention in place of A."""
    values, weights, bias = record.require_values()
    heads = attentions[layer].to(torch.float64) @ values[layer][record.geometry.kv_group()].to(torch.float64)
    return torch.einsum("hnd,hde->ne", heads, weights[layer].to(torch.float64)) + bias[layer]


@pytest.mark.parametrize("family", ["bert", "gpt2", "llama"])
def test_effective_attention_reproduces_the_attention_output(family, tokenizer):
    model = tiny_model(family)  # head dimension 8; the text has 16 tokens
    analysis, outputs = capture_with_output_hooks(model, family, tokenizer)
    effective = analysis.effective()
    record = analysis.capture
    assert record.n_tokens > record.geometry.head_dim
    for layer in range(record.n_layers):
        rebuilt = reconstruct(record, effective, layer)
        rel = (rebuilt - outputs[layer]).norm() / outputs[layer].norm()
        assert rel < 1e-8, f"{family} layer {layer}: {rel:.1e}"
    assert (effective - analysis.attentions).abs().max() > 1e-3
    if analysis.causal:
        assert torch.all(effective.triu(diagonal=1) == 0)
        # Rows that see at most d_h keys are unchanged, unless two of their keys have the same
        # value vector: Llama has no position embedding, so at layer 1 the repeated "the"
        # (tokens 1 and 5) has identical values, and effective attention averages the two columns.
        first = 1 if family == "llama" else 0
        assert torch.equal(effective[first:, :, :8], analysis.attentions[first:, :, :8].to(torch.float64))
        if family == "llama":
            assert record.tokens[1] == record.tokens[5] == "the"
            a = analysis.attentions[0, :, 5:8].to(torch.float64)
            average = (a[..., 1] + a[..., 5]) / 2
            assert torch.allclose(effective[0, :, 5:8, 1], average, atol=1e-12)
            assert torch.allclose(effective[0, :, 5:8, 5], average, atol=1e-12)


def test_heads_of_a_kv_group_share_one_projector(tokenizer):
    analysis = analyze(tiny_model("llama"), TEXT, tokenizer)
    effective, att = analysis.effective(), analysis.attentions
    values = analysis.capture.values
    # Heads 0 and 1 share group 0: each is its attention projected with the same P.
    for head, group in [(0, 0), (1, 0), (2, 1), (3, 1)]:
        v = values[0, group].to(torch.float64)
        for i in range(8, analysis.capture.n_tokens):
            vk = v[: i + 1]
            projector = vk @ torch.linalg.pinv(vk)
            assert torch.allclose(effective[0, head, i, : i + 1], att[0, head, i, : i + 1] @ projector, atol=1e-8)


def test_short_texts_are_unchanged_and_the_user_is_told(tokenizer):
    analysis = analyze(tiny_model("bert"), "the cat sat", tokenizer)
    with pytest.warns(UserWarning, match="do not exceed the head dimension"):
        effective = analysis.effective()
    assert torch.equal(effective, analysis.attentions.to(torch.float64))


def test_effective_rollout_and_flow_are_stochastic(tokenizer):
    analysis = analyze(tiny_model("gpt2"), TEXT, tokenizer)
    for result in (analysis.effective_rollout(receptive_field="none"), analysis.effective_flow(progress=False)):
        assert (result >= -1e-15).all()
        assert torch.allclose(result.sum(-1), torch.ones_like(result.sum(-1)), atol=1e-10)
    signed = analysis.effective_rollout("signed")
    assert torch.allclose(signed.sum(-1), torch.ones_like(signed.sum(-1)), atol=1e-10)
    with pytest.raises(ValueError, match="non-negative capacities"):
        analysis.effective_flow("signed")


LONG = (
    "The committee said on Tuesday that the new bridge over the river would open next spring, after years of "
    "delays caused by funding disputes, flooding and a shortage of steel."
)


@pytest.mark.model
def test_minilm_effective_attention(minilm):
    model, tokenizer = minilm
    outputs = {}
    handles = [
        layer.attention.output.dense.register_forward_hook(
            lambda _m, _i, out, index=index: outputs.__setitem__(index, out[0].detach().double())
        )
        for index, layer in enumerate(model.encoder.layer)
    ]
    try:
        analysis = analyze(model, LONG, tokenizer)
    finally:
        for handle in handles:
            handle.remove()
    record = analysis.capture
    assert record.n_tokens > 32 and record.geometry.head_dim == 32
    effective = analysis.effective()
    for layer in range(6):
        rel = (reconstruct(record, effective, layer) - outputs[layer]).norm() / outputs[layer].norm()
        assert rel < 1e-5
    assert (effective - analysis.attentions).abs().max() > 1e-3
    short = analyze(model, "A short sentence of fewer than thirty-two tokens.", tokenizer)
    assert short.capture.n_tokens <= 32
    with pytest.warns(UserWarning):
        assert torch.equal(short.effective(), short.attentions.to(torch.float64))
