"""Value vectors and output slices found by structure: the slice reconstruction test of
docs/methods.md §0.3, value vectors cross-checked against hidden states, masks, and what the
capture refuses when the model does not do what it says. tests/test_zoo.py runs the
same checks over every family."""

from __future__ import annotations

import pytest
import torch
import transformers as tf
from tiny_models import _COMMON, FAMILIES, tiny_lm, tiny_model

from attn_widget import analyze, capture
from attn_widget.methods import registry
from attn_widget.methods.heads import joined
from attn_widget.methods.registry import ViewSettings

TEXT = "the cat sat on the mat and the dog ran to the big red house"

# Where each family keeps its output projection, written out independently of the structural search.
OUTPUT_PROJECTION = {
    "bert": lambda m, l: m.encoder.layer[l].attention.output.dense,
    "distilbert": lambda m, l: m.transformer.layer[l].attention.out_lin,
    "gpt2": lambda m, l: m.h[l].attn.c_proj,
    "llama": lambda m, l: m.layers[l].self_attn.o_proj,
}


def capture_with_output_hooks(model, family, tokenizer):
    outputs = {}
    handles = [
        OUTPUT_PROJECTION[family](model, layer).register_forward_hook(
            lambda _m, _i, out, layer=layer: outputs.__setitem__(layer, out[0].detach())
        )
        for layer in range(model.config.num_hidden_layers)
    ]
    try:
        analysis = analyze(model, TEXT, tokenizer)
    finally:
        for handle in handles:
            handle.remove()
    return analysis, outputs


@pytest.mark.parametrize("dtype,tol", [(torch.float64, 1e-10), (torch.float32, 1e-5)])
@pytest.mark.parametrize("family", FAMILIES)
def test_slice_reconstruction(family, dtype, tol, tokenizer):
    model = tiny_model(family, dtype)
    analysis, outputs = capture_with_output_hooks(model, family, tokenizer)
    record = analysis.capture
    values, weights, bias = record.require_values()
    group = record.geometry.kv_group()
    for layer in range(record.n_layers):
        att = record.attentions[layer]  # (H, n, n)
        heads = att @ values[layer][group]  # (H, n, d_h)
        rebuilt = torch.einsum("hnd,hde->ne", heads, weights[layer]) + bias[layer]
        expected = outputs[layer].to(rebuilt.dtype)
        rel = (rebuilt - expected).norm() / expected.norm()
        assert rel < tol, f"{family} layer {layer}: relative error {rel:.2e}"


def test_gqa_geometry(tokenizer):
    record = analyze(tiny_model("llama"), TEXT, tokenizer).capture
    assert record.geometry.n_heads == 4 and record.geometry.n_kv_heads == 2
    assert record.values.shape[1] == 2  # (L, H_kv, n, d_h)
    assert record.geometry.kv_group().tolist() == [0, 0, 1, 1]


@pytest.mark.parametrize("family", ["bert", "gpt2", "llama"])
def test_values_match_recomputation_from_hidden_states(family, tokenizer):
    """The hook-captured V equals V recomputed from hidden_states (docs/methods.md §0.3 cross-check)."""
    model = tiny_model(family)
    record = analyze(model, TEXT, tokenizer).capture
    d, dh = 32, 8
    for layer in range(record.n_layers):
        x = record.hidden_states[layer]
        if family == "bert":
            lin = model.encoder.layer[layer].attention.self.value
            v = x @ lin.weight.T + lin.bias
        elif family == "gpt2":
            block = model.h[layer]
            v = block.ln_1(x) @ block.attn.c_attn.weight[:, 2 * d :] + block.attn.c_attn.bias[2 * d :]
        else:
            block = model.layers[layer]
            v = block.input_layernorm(x) @ block.self_attn.v_proj.weight.T
        expected = v.detach().reshape(x.shape[0], -1, dh).transpose(0, 1)
        assert torch.allclose(record.values[layer], expected, atol=1e-10)


def test_hidden_states_beyond_their_bound_are_not_kept_and_no_method_needed_them(tokenizer, monkeypatch):
    """A long input's hidden states are gigabytes and nothing in attn_widget reads them: beyond KEPT_HIDDEN_BYTES the
    capture keeps none, and every method that applies gives the same numbers as with them kept."""
    kept = analyze(tiny_model("gpt2"), TEXT, tokenizer)
    monkeypatch.setattr(capture, "KEPT_HIDDEN_BYTES", 0)
    bare = analyze(tiny_model("gpt2"), TEXT, tokenizer)
    assert kept.capture.hidden_states is not None and bare.capture.hidden_states is None
    methods = registry.applicable(kept)
    assert [m.id for m in registry.applicable(bare)] == [m.id for m in methods] and len(methods) > 10
    for method in methods:
        ours, theirs = (method.values(a, ViewSettings())[0] for a in (kept, bare))
        assert torch.equal(joined(ours), joined(theirs)), method.id


def test_causal_flag_and_masks(tokenizer):
    for family, causal in [("bert", False), ("distilbert", False), ("gpt2", True), ("llama", True)]:
        record = analyze(tiny_model(family), TEXT, tokenizer).capture
        assert record.causal is causal
        n = record.n_tokens
        expected = torch.ones(n, n, dtype=torch.bool)
        if causal:
            expected = expected.tril()
        assert torch.equal(record.masks, expected.expand(record.n_layers, n, n))
        assert torch.all(record.attentions.masked_fill(record.masks.unsqueeze(1), 0) == 0)


def test_sliding_window_mask(tokenizer):
    config = tf.MistralConfig(
        hidden_size=32,
        num_attention_heads=4,
        num_key_value_heads=2,
        num_hidden_layers=2,
        intermediate_size=64,
        sliding_window=3,
        **_COMMON,
    )
    torch.manual_seed(0)
    record = analyze(tf.AutoModel.from_config(config).double(), TEXT, tokenizer).capture
    i, j = torch.meshgrid(torch.arange(record.n_tokens), torch.arange(record.n_tokens), indexing="ij")
    assert torch.equal(record.masks[0], (j <= i) & (j > i - 3))
    assert torch.all(record.attentions.masked_fill(record.masks.unsqueeze(1), 0) == 0)


def test_models_with_heads_use_the_base_model(tokenizer):
    lm = tiny_lm(n_layer=2)
    record = analyze(lm, TEXT, tokenizer).capture
    assert record.value_layout == "blocked" and record.values.shape[:2] == (2, 4)


def test_attention_that_is_not_what_the_model_used_is_refused(tokenizer, monkeypatch):
    """An eager attention that returns other weights than it multiplies with V (as an implementation
    that silently ignores a switch would) is caught by reproducing the output projection's input."""
    from transformers.models.llama import modeling_llama

    from attn_widget import UnsupportedModelError

    original = modeling_llama.eager_attention_forward

    def returns_other_weights(*args, **kwargs):
        output, weights = original(*args, **kwargs)
        sharper = weights**2  # zero exactly where the weights are: the masks cannot tell
        return output, sharper / sharper.sum(-1, keepdim=True)

    monkeypatch.setattr(modeling_llama, "eager_attention_forward", returns_other_weights)
    model = tiny_model("llama")
    model.set_attn_implementation("eager")  # the eager pass (a model on sdpa is read from its sdpa calls)
    with pytest.raises(UnsupportedModelError, match="layer 1 do not reproduce what its attention output received"):
        analyze(model, TEXT, tokenizer)


def test_the_mask_check_finds_weight_on_hidden_keys_and_keys_no_head_reads():
    from attn_widget import verify
    from attn_widget.errors import UnsupportedModelError

    n = 6
    causal = torch.ones(n, n, dtype=torch.bool).tril().expand(2, n, n)
    weights = torch.rand(2, 3, n, n, dtype=torch.float64).masked_fill(~causal.unsqueeze(1), 0)
    verify.check_masks(weights, causal, torch.float32, lambda layer: "causal")  # as it should be: no complaint
    leaking = weights.clone()
    leaking[1, 2, 0, 4] = -0.01  # a negative weight on a hidden key is a leak too
    with pytest.raises(UnsupportedModelError, match=r"Layer 2 puts attention weight 0.01 on keys"):
        verify.check_masks(leaking, causal, torch.float32, lambda layer: "causal")
    unread = weights.clone()
    unread[0, :, 3, 1] = 0  # no head of layer 1 reads key 1 from query 3
    with pytest.raises(UnsupportedModelError, match=r"Layer 1 gives exactly zero weight, in every head, to 1 keys"):
        verify.check_masks(unread, causal, torch.float32, lambda layer: "causal")
    verify.check_masks(unread, causal, torch.float16, lambda layer: "causal")  # float16 may underflow: not checked
    full = torch.ones(2, n, n, dtype=torch.bool)
    verify.check_masks(torch.rand(2, 3, n, n, dtype=torch.float64), full, torch.float32, lambda layer: "full")
    with pytest.raises(UnsupportedModelError, match=r"to 15 keys that its configuration \(full\)"):
        verify.check_masks(weights, full, torch.float32, lambda layer: "full")  # a causal model said to be an encoder
