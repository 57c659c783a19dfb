"""The whole-model view draws each cumulative method's own per-layer step as its edges (issue 34): rollout and flow
(plain and receptive-field normalised) 0.5·Ā + 0.5·I, effective rollout and flow 0.5·E + 0.5·I with E the clipped,
re-normalised effective attention (E1), path counts the 0/1 graph, a mixing rollout its map; each checked against
its own computation from the captured tensors, as the widget sends it. The steps are held a layer at a time."""

from __future__ import annotations

import pytest
import torch
from tiny_models import tiny_lm, tiny_model

from attn_widget import AttentionWidget, demo, head_store, payload
from attn_widget.methods import registry
from attn_widget.methods.heads import joined
from attn_widget.parts import mixing
from attn_widget.shown_heads import ShownHeads

# Longer than the tiny models' head dimension (8): effective attention differs from attention here.
TEXT = "the cat sat on the mat and the dog ran to the cat"


def head_mean(analysis) -> torch.Tensor:
    """``(L, n, n)`` float64: the captured attentions averaged over the heads, rows summing to 1."""
    mean = analysis.capture.heads.full().to(torch.float64).mean(1)
    return mean / mean.sum(-1, keepdim=True)


def residual_step(matrices: torch.Tensor) -> torch.Tensor:
    """0.5·M + 0.5·I of each layer (docs/methods.md §2.1)."""
    return 0.5 * matrices + 0.5 * torch.eye(matrices.shape[-1], dtype=torch.float64)


def clipped_effective(analysis) -> torch.Tensor:
    """E1 (docs/methods.md §5.3): the head mean of effective attention, negatives set to 0, rows re-normalised; a
    row that clips to nothing keeps the attention's."""
    mean = analysis.effective().to(torch.float64).mean(1).clamp(min=0)
    totals = mean.sum(-1, keepdim=True)
    return torch.where(totals > 0, mean / totals.clamp(min=1e-300), head_mean(analysis))


def expected_edges(analysis, method_id: str) -> torch.Tensor:
    """Each layer's edges of ``method_id``'s whole-model view, computed here from the captured tensors."""
    if method_id in ("rollout", "rollout_rf", "flow", "flow_rf"):
        return residual_step(head_mean(analysis))
    if method_id in ("effective_rollout", "effective_flow"):
        return residual_step(clipped_effective(analysis))
    if method_id == "paths":
        return (head_mean(analysis) > registry.DEFAULT_BINARIZE_THRESHOLD).to(torch.float64)
    if method_id.endswith("_rollout"):  # a mixing rollout: its per-layer map
        return analysis.mixing(method_id.removesuffix("_rollout")).to(torch.float64)
    raise AssertionError(f"no expected edges for {method_id}")


@pytest.mark.parametrize("family", ["bert", "gpt2"])
def test_each_cumulative_methods_edges_are_its_own_step(tokenizer, family):
    w = AttentionWidget(tiny_model(family), TEXT, tokenizer, view="model")
    analysis = w.analysis
    assert analysis.capture.n_tokens > analysis.capture.geometry.head_dim
    cumulative = [m["id"] for m in w.methods if m["cumulative"] and m["id"] != "hidden_attribution"]
    assert {"rollout", "flow", "effective_rollout", "effective_flow", "paths"} <= set(cumulative)
    assert ({"rollout_rf", "flow_rf"} <= set(cumulative)) == (family == "gpt2")
    for method_id in cumulative:
        w.method = method_id
        w.wait()
        graph = w.method_spec(method_id).graph
        expected = expected_edges(analysis, method_id)
        drawn = joined(w.method_spec(graph).values(analysis, w.view_settings)[0])
        torch.testing.assert_close(drawn.to(torch.float64), expected, rtol=0, atol=1e-9, msg=method_id)
        # What the front end gets: every layer, within the envelope's quantisation.
        sent = payload.decode(getattr(w, f"data_{graph}"))
        assert w.ready[graph] == [1, 2, 3], method_id
        values = torch.as_tensor(sent["matrices"])
        torch.testing.assert_close(values.to(torch.float64), expected, rtol=0, atol=2e-5, msg=method_id)
    # Rollout's step is not the attention it was drawn from before: the test tells them apart.
    assert not torch.allclose(expected_edges(analysis, "rollout"), head_mean(analysis))
    assert not torch.allclose(expected_edges(analysis, "effective_rollout"), expected_edges(analysis, "rollout"))


def test_the_steps_are_declared_once_in_the_registry_and_listed_in_no_menu(tokenizer):
    w = AttentionWidget(tiny_model("bert"), TEXT, tokenizer)
    steps = {m["id"]: m for m in w.graphs}
    assert set(steps) == {"attention_step", "effective_step"}
    assert not steps.keys() & {m["id"] for m in w.methods}  # in no menu, and no method to select
    assert steps["attention_step"]["label"] == "Attention step 0.5·Ā + 0.5·I"
    for method in registry.matrix_methods():
        if method.cumulative:  # every cumulative method names the data its edges are drawn from
            assert method.graph and method.graph != method.id, method.id
    # A step is sent only once a method that draws it is shown, then with every layer.
    assert w.ready["attention_step"] == [] and w.data_attention_step == b""
    w.method = "flow"
    w.wait()
    assert w.ready["attention_step"] == [1, 2, 3] and w.ready["effective_step"] == []
    with pytest.raises(Exception, match="method must be one of"):
        w.method = "attention_step"


def test_a_step_is_made_a_layer_at_a_time_from_the_stack_the_method_uses(tokenizer, monkeypatch):
    """No second (L, n, n) stack: the step's data holds the head mean rollout and flow read anyway and makes each
    layer's step when it is encoded."""
    w = AttentionWidget(tiny_model("gpt2"), TEXT, tokenizer)
    data, layers = registry.graph_entry("attention_step").values(w.analysis, w.view_settings)
    assert isinstance(data, payload.HeldLayers) and layers == [1, 2, 3]
    made = []
    read = data.read

    def layer(index: int) -> torch.Tensor:
        made.append(read(index).shape)
        return read(index)

    monkeypatch.setattr(data, "read", layer)
    payload.encode(data)
    n = w.analysis.capture.n_tokens
    assert made and set(made) == {(n, n)}  # one layer at a time


def test_an_encoder_decoders_rollout_and_flow_draw_the_layer_maps_they_compose():
    """Docs/methods.md §2.7: an encoder layer mixes the source by 0.5·Ā + 0.5·I; a decoder layer gives each target
    position half from the source through cross-attention, half from the target through 0.5·Ā + 0.5·I."""
    model, tokenizer = demo.reversal_bart()
    w = AttentionWidget(model, "one small boy", tokenizer, method="rollout", view="model")
    w.wait()
    s2s = w.analysis.seq2seq
    ns, le = w.analysis.ns, w.analysis.n_encoder_layers
    n = len(w.tokens)

    def mean(attentions: torch.Tensor) -> torch.Tensor:
        heads = attentions.to(torch.float64).mean(1)
        return heads / heads.sum(-1, keepdim=True)

    expected = torch.eye(n, dtype=torch.float64).repeat(w.n_layers, 1, 1)
    expected[:le, :ns, :ns] = residual_step(mean(s2s.encoder_attentions))
    expected[le:, ns:, :ns] = 0.5 * mean(s2s.cross_attentions)
    expected[le:, ns:, ns:] = 0.5 * residual_step(mean(s2s.decoder_attentions))
    for method_id in ("rollout", "flow"):
        graph = w.method_spec(method_id).graph
        drawn = joined(w.method_spec(graph).values(w.analysis, w.view_settings)[0])
        # The model runs in float32: its head means are taken in float32 there, here in float64.
        torch.testing.assert_close(drawn, expected, rtol=0, atol=1e-6, msg=method_id)
    sent = torch.as_tensor(payload.decode(w.data_layer_maps)["matrices"])
    torch.testing.assert_close(sent, expected, rtol=0, atol=2e-5)


def test_a_long_inputs_step_holds_the_layers_read_and_reads_nothing_itself(tokenizer, monkeypatch):
    """A long input (READ_AT_ONCE_BYTES and FLOW_UPFRONT_MAX_TOKENS made small) shown on flow in the whole-model
    view: its first picture reads the shown layer only, and the step holds that layer, made from the head mean the
    capture keeps; the layers read after the first picture, in the background, are sent as they come, as raw
    attention's are."""
    monkeypatch.setattr(head_store, "READ_AT_ONCE_BYTES", 0)
    monkeypatch.setattr(mixing, "PROBE_TOKENS", 4)
    monkeypatch.setattr(registry, "FLOW_UPFRONT_MAX_TOKENS", 4)  # flow computed on request, as on a long text
    read_later = ShownHeads._want_heads
    monkeypatch.setattr(ShownHeads, "_want_heads", lambda self: None)  # the first picture alone
    w = AttentionWidget(tiny_lm(), TEXT, tokenizer, layer=2, method="flow", view="model")
    store = w.analysis.capture.heads
    assert store.reduced_layers == [1] and store.reads == 0
    assert w.ready["attention_step"] == [2]
    sent = payload.decode(w.data_attention_step)["matrices"]
    assert sent[1].any() and not sent[[0, 2]].any()
    read_later(w)
    w.wait()
    assert w.ready["attention_step"] == [1, 2, 3] and store.reads == 1
    sent = torch.as_tensor(payload.decode(w.data_attention_step)["matrices"])
    torch.testing.assert_close(sent, residual_step(head_mean(w.analysis)), rtol=0, atol=2e-5)
