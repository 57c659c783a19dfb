"""Effective attention of an encoder-decoder's three attention kinds and flow through cross-attention on the
zoo's tiny T5, BART, mBART, Marian and Pegasus (attn_widget/seq2seq_values.py, docs/methods.md §2.7, §5):
the captured values reproduce each attention module's own output (hooked in an independent pass of a copy),
effective attention keeps every head's output while differing from raw attention where keys outnumber the
head dimension, and a capture whose A·V does not match what the output projection received is refused."""

from __future__ import annotations

import copy

import pytest
import torch
from test_model_state import assert_unchanged, snapshot
from test_zoo import awkward, built_in
from zoo import FAMILIES, analysed, zoo_tokenizer

from attn_widget import UnsupportedModelError, analyze
from attn_widget.methods.encoder_decoder_flow import encoder_decoder_flow

SEQ2SEQ = [f for f in FAMILIES if f.expect == "seq2seq"]
# 19 source and 16 decoder tokens with the zoo tokenizer: more than the head dimension (8) for every kind.
SOURCE = "the cat sat on the mat and the dog ran to the house while the bird sang"
TARGET = "a dog ran to the house and the cat sat on the mat"
OUTPUT_NAMES = {
    "decoder": ("SelfAttention.o", "self_attn.out_proj"),
    "cross": ("EncDecAttention.o", "encoder_attn.out_proj", "cross_attention.out_proj"),  # the last: NLLB-MoE
}


@pytest.fixture(scope="module")
def tokenizer():
    return zoo_tokenizer()


def module_outputs(model, tokenizer, decoder_ids, kind):
    """``(Ld, nt, d)``: what each decoder layer's attention output projection of ``kind`` returned, in an
    eager pass of a copy of the model, hooked here by module name."""
    twin = copy.deepcopy(model).eval()
    twin.set_attn_implementation("eager")
    seen = []
    for name, module in twin.named_modules():
        if "decoder" in name and name.endswith(OUTPUT_NAMES[kind]):
            module.register_forward_hook(lambda _m, _args, out: seen.append(out[0].detach()))
    batch = tokenizer(SOURCE, return_tensors="pt")
    with torch.no_grad():
        twin(**batch, decoder_input_ids=decoder_ids[None], use_cache=False)
    return torch.stack(seen).double()


def heads_output(att, values, weights, bias):
    """``(L, nq, d)``: Σ_h A_h V_g(h) W_O[h] + b_O, from the captured tensors."""
    group = torch.arange(att.shape[1]) // (att.shape[1] // values.shape[1])
    per_head = att.double() @ values.double()[:, group]  # (L, H, nq, d_h)
    return torch.einsum("lhqd,lhde->lqe", per_head, weights.double()) + bias.double()[:, None]


@pytest.mark.parametrize("family", SEQ2SEQ, ids=lambda f: f.id)
def test_values_reproduce_the_model_and_effective_attention_keeps_the_output(family, tokenizer):
    model = awkward(built_in(family, torch.float64, tokenizer))
    before = snapshot(model)
    analysis = analysed(family, model, SOURCE, tokenizer, target=TARGET)
    assert_unchanged(before, snapshot(model))
    ns, nt = len(analysis.source_tokens), len(analysis.target_tokens)
    head_dim = 8
    assert ns > head_dim and nt > head_dim
    attentions = {"decoder": analysis.decoder_attentions, "cross": analysis.cross_attentions}
    for kind, att in attentions.items():
        record = analysis._decoder_values.record(kind)
        values, weights, bias = record.require_values()
        keys = ns if kind == "cross" else nt
        assert values.shape[-2:] == (keys, head_dim)
        expected = module_outputs(model, tokenizer, analysis.target_ids, kind)
        assert torch.allclose(heads_output(att, values, weights, bias), expected, atol=1e-10)

        effective = analysis.effective(kind)
        assert effective.dtype == torch.float64 and effective.shape == att.shape
        # Every head's output is kept (float64 model: to rounding), while the weights change.
        group = torch.arange(att.shape[1])
        assert torch.allclose(effective @ values[:, group], att.double() @ values[:, group], atol=1e-10)
        assert (effective - att.double()).abs().amax() > 1e-5  # far above rounding (1e-15)
        if kind == "decoder":  # causal: nothing above the diagonal; rows seeing <= d_h keys unchanged, exactly
            assert (effective.triu(diagonal=1) == 0).all()
            assert torch.equal(effective[:, :, :head_dim], att.double()[:, :, :head_dim])
    encoder = analysis.effective("encoder")
    assert encoder.dtype == torch.float64 and torch.equal(encoder, analysis.encoder.effective().double())
    with pytest.raises(ValueError, match="kind must be one of 'encoder', 'decoder', 'cross'"):
        analysis.effective("self")


def test_cross_attention_equals_raw_when_the_source_is_short(tokenizer):
    model = SEQ2SEQ[1].build(torch.float64)  # BART
    analysis = analyze(model, "the cat sat", tokenizer, target=TARGET)
    assert len(analysis.source_tokens) <= 8
    with pytest.warns(UserWarning, match="cross-attention.*equals raw attention"):
        effective = analysis.effective("cross")
    assert torch.equal(effective, analysis.cross_attentions.double())


def test_values_that_do_not_reproduce_the_output_are_refused(tokenizer):
    model = SEQ2SEQ[0].build()  # T5
    cross_output = next(m for n, m in model.named_modules() if n.endswith("EncDecAttention.o"))
    # What the output projection receives is no longer A·V: the weights do not explain the computation.
    cross_output.register_forward_pre_hook(lambda _m, args: (args[0] * 1.5,))
    analysis = analyze(model, SOURCE, tokenizer, target=TARGET)  # values are read when first asked for
    with pytest.raises(UnsupportedModelError, match=r"^In the cross-attention, the attention weights .* layer 1 "):
        analysis.effective("cross")
    assert analysis.effective("decoder").shape == analysis.decoder_attentions.shape  # the other kind is fine


def test_flow_is_cached_per_layer_and_equals_the_function(tokenizer):
    analysis = analyze(SEQ2SEQ[0].build(), "the cat sat on the mat", tokenizer, target="a dog ran")
    reports = []
    last = analysis.flow(layers=[2], progress=lambda done, total: reports.append((done, total)))
    nt = len(analysis.target_tokens)
    assert reports[-1] == (nt, nt)
    expected = encoder_decoder_flow(
        analysis.encoder_attentions.mean(1), analysis.decoder_attentions.mean(1), analysis.cross_attentions.mean(1)
    )
    assert torch.equal(last[0], expected[1])
    reports.clear()
    both = analysis.flow(progress=lambda done, total: reports.append((done, total)))
    assert torch.equal(both, expected) and reports[-1] == (nt, nt)  # only layer 1 was left to compute
