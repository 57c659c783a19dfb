"""The encoder-decoder widget's data (attn_widget/joint.py, docs/methods.md §2.7): source tokens then
decoder tokens through the encoder's then the decoder's layers. Each attention kind sits in its own
block and layers, the joint rollout's target rows are Seq2SeqAnalysis.rollout(), the layer maps are
row-stochastic, the widget keeps layer and method consistent, and the model is left as found."""

from __future__ import annotations

import dataclasses

import pytest
import torch
import traitlets
from test_model_state import assert_unchanged, snapshot
from test_seq2seq import SEQ2SEQ, SOURCE, TARGET, plain_pass
from test_zoo import awkward
from zoo import met_as_user, zoo_tokenizer

from attn_widget import AttentionWidget, analyze
from attn_widget.joint import JointView


@pytest.fixture(scope="module")
def tokenizer():
    return zoo_tokenizer()


@pytest.mark.parametrize("family", SEQ2SEQ, ids=lambda f: f.id)
def test_each_kind_sits_in_its_block_and_the_rollout_is_the_analysis_rollout(family, tokenizer):
    model = awkward(family.build())
    before = snapshot(model)
    widget = met_as_user(family, AttentionWidget, model, SOURCE, tokenizer, target=TARGET)
    assert_unchanged(before, snapshot(model))
    if widget is None:  # a release that refuses the family, with one sentence naming its reason
        pytest.skip(f"this transformers release refuses {family.name} (its sentence checked)")
    view = widget.analysis
    s2s = view.seq2seq
    ns, nt, le, heads = view.ns, view.nt, view.n_encoder_layers, view.n_heads
    assert widget.tokens == [*s2s.source_tokens, *s2s.target_tokens]
    assert widget.segments == [{"label": "source", "size": ns}, {"label": "target", "size": nt}]
    assert widget.layer_names[le - 1 : le + 1] == [f"encoder {le}", "decoder 1"]

    blocks = {
        "encoder": (s2s.encoder_attentions, slice(None, le), slice(None, ns), slice(None, ns)),
        "decoder": (s2s.decoder_attentions, slice(le, None), slice(ns, None), slice(ns, None)),
        "cross": (s2s.cross_attentions, slice(le, None), slice(ns, None), slice(None, ns)),
    }
    for kind, (attention, layers, rows, cols) in blocks.items():
        data = view.per_head(kind)
        assert torch.equal(data[layers, :heads, rows, cols], attention.double())
        assert torch.allclose(data[layers, heads, rows, cols], attention.double().mean(1))
        assert torch.equal(data[layers, heads + 1, rows, cols], attention.double().amax(1))
        rest = data.clone()
        rest[layers, :, rows, cols] = 0
        assert not rest.any(), f"{kind}: nothing outside its block"

    maps = view.layer_maps()
    assert torch.allclose(maps.sum(-1), torch.ones(view.n_layers, ns + nt, dtype=torch.float64), atol=1e-12)
    rollout = view.rollout()
    assert torch.allclose(rollout[le:, ns:], s2s.rollout(), atol=1e-12)
    assert torch.allclose(rollout[le - 1, :ns, :ns], s2s.encoder.rollout()[-1].double(), atol=1e-6)
    waiting = torch.cat([torch.zeros(le, nt, ns), torch.eye(nt).expand(le, nt, nt)], -1).double()
    assert torch.equal(rollout[:le, ns:], waiting), "target tokens wait through the encoder"

    graph = view.attention()
    assert torch.allclose(graph[le:, ns:].sum(-1), torch.full((view.n_decoder_layers, nt), 2.0, dtype=torch.float64))
    exported = widget.to_numpy()
    assert set(exported) == {m["id"] for m in widget.methods}


def test_layer_follows_the_method_and_a_layer_without_it_is_refused(tokenizer):
    t5 = next(f for f in SEQ2SEQ if f.name == "T5").build()
    widget = AttentionWidget(analysis=analyze(t5, SOURCE, tokenizer, target=TARGET))
    le = widget.analysis.n_encoder_layers
    assert widget.method == "cross" and widget.layer == le + 1, "opens on cross-attention, first decoder layer"
    widget.method = "encoder_self"
    assert widget.layer == le
    widget.method = "cross"
    assert widget.layer == le + 1
    with pytest.raises(traitlets.TraitError, match=f"Cross-attention exists in layers {le + 1} to"):
        widget.layer = 1
    widget.method = "rollout"
    widget.layer = 1  # rollout has every layer
    widget.set_state({"method": "decoder_self", "layer": le + 2})  # the front end sends both at once
    assert (widget.method, widget.layer) == ("decoder_self", le + 2)
    meta = {m["id"]: m for m in widget.methods}
    assert meta["cross"]["layers"] == list(range(le + 1, widget.n_layers + 1))
    assert meta["rollout"]["layers"] is None and meta["rollout"]["graph"] == "layer_maps"
    assert isinstance(widget.analysis, JointView)
    assert all("Definition:" in m["explain"] and "<" not in m["explain"] for m in widget.methods), "each explains"
    with pytest.raises(TypeError, match="not both"):
        AttentionWidget(t5, SOURCE, tokenizer, analysis=widget.analysis.seq2seq)


def test_effective_kinds_and_flow_in_the_joint_view(tokenizer):
    """Effective attention of each kind sits in its block (Seq2SeqAnalysis.effective); the joint flow is
    the encoder's flow on the source rows and Seq2SeqAnalysis.flow() on the decoder rows."""
    t5 = next(f for f in SEQ2SEQ if f.name == "T5").build().double()  # relative positions: no length limit
    source, target = " ".join([SOURCE] * 4), " ".join([TARGET] * 3)  # 25 + 20 tokens > head dimension 8, > 40
    widget = AttentionWidget(t5, source, tokenizer, target=target)
    view = widget.analysis
    s2s, ns, le, heads = view.seq2seq, view.ns, view.n_encoder_layers, view.n_heads
    ids = {m["id"] for m in widget.methods}
    assert {"effective_encoder_self", "effective_decoder_self", "effective_cross", "flow"} <= ids
    cross = view.per_head("cross", effective=True)
    assert torch.equal(cross[le:, :heads, ns:, :ns], s2s.effective("cross"))
    assert not torch.allclose(cross[le:, :heads, ns:, :ns], s2s.cross_attentions), "26 source tokens > d_head 8"
    meta = {m["id"]: m for m in widget.methods}
    assert meta["effective_cross"]["signed"] and meta["effective_cross"]["layers"] == view.decoder_layers()
    assert meta["effective_decoder_self"]["note"] == "Rows of the first 8 target positions are unchanged."

    assert widget.ready["flow"] == [], "beyond 40 tokens flow is computed on request"
    widget.compute("flow", wait=True)
    assert widget.ready["flow"] == list(range(1, widget.n_layers + 1))
    flow = view.flow()
    assert torch.allclose(flow.sum(-1), torch.ones(widget.n_layers, len(widget.tokens), dtype=torch.float64))
    assert torch.equal(flow[le:, ns:], s2s.flow(progress=False))
    assert all(torch.equal(view.flow([layer])[0], flow[layer - 1]) for layer in (1, le, le + 1))  # a layer alone
    encoder_flow = s2s.encoder.flow(receptive_field="none", progress=False)
    assert torch.allclose(flow[:le, :ns, :ns], encoder_flow)
    assert torch.allclose(flow[le:, :ns, :ns], encoder_flow[-1].expand(view.n_decoder_layers, ns, ns))
    exported = widget.to_numpy()["flow"]
    assert abs(exported - flow.numpy()).max() < 1e-12


@pytest.mark.parametrize(("encoder_heads", "decoder_heads"), [(4, 2), (2, 4)])
def test_encoder_and_decoder_with_different_head_counts(tokenizer, encoder_heads, decoder_heads):
    """BART's encoder_attention_heads and decoder_attention_heads differ: the head menu offers the most, each
    kind fills its own heads (equal to an independent eager pass), mean and max are over its own heads, and the
    rest are empty and said to be."""
    bart = next(family for family in SEQ2SEQ if family.name == "BART")
    options = dict(bart.options, encoder_attention_heads=encoder_heads, decoder_attention_heads=decoder_heads)
    model = awkward(dataclasses.replace(bart, options=options).build())
    assert AttentionWidget(model, SOURCE, tokenizer).n_heads == max(encoder_heads, decoder_heads)  # greedy target
    widget = AttentionWidget(model, SOURCE, tokenizer, target=TARGET)
    view, heads = widget.analysis, max(encoder_heads, decoder_heads)
    ns, le = view.ns, view.n_encoder_layers
    eager = plain_pass(model, tokenizer, view.seq2seq.target_ids)
    blocks = {
        "encoder": (eager.encoder_attentions, slice(None, le), slice(None, ns), slice(None, ns)),
        "decoder": (eager.decoder_attentions, slice(le, None), slice(ns, None), slice(ns, None)),
        "cross": (eager.cross_attentions, slice(le, None), slice(ns, None), slice(None, ns)),
    }
    notes = {meta["id"]: meta.get("note", "") for meta in widget.methods}
    for kind, (attentions, layers, rows, cols) in blocks.items():
        expected = torch.stack(attentions)[:, 0].double()  # (layers, h, rows, cols)
        own = expected.shape[1]
        data = view.per_head(kind)
        torch.testing.assert_close(data[layers, :own, rows, cols], expected, atol=1e-6, rtol=0)
        torch.testing.assert_close(data[layers, heads, rows, cols], expected.mean(1), atol=1e-6, rtol=0)
        torch.testing.assert_close(data[layers, heads + 1, rows, cols], expected.amax(1), atol=1e-6, rtol=0)
        assert not data[:, own:heads].any(), f"{kind}: heads it does not have are empty"
        said = f"heads {own}-{heads - 1} are empty" if own < heads else ""
        assert (said in notes[{"encoder": "encoder_self", "decoder": "decoder_self", "cross": "cross"}[kind]]) and (
            bool(said) == bool(view.missing_heads(kind))
        )
    for kind in ("decoder", "cross"):  # the decoder's own head dimension, not the encoder's
        assert view.seq2seq.head_dim(kind) == 32 // decoder_heads
    assert view.seq2seq.head_dim("encoder") == 32 // encoder_heads
    assert set(widget.to_numpy()) == {meta["id"] for meta in widget.methods}
