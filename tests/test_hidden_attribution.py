"""Hidden token attribution (Brunner et al. 2020) against central finite differences, and its properties."""

from __future__ import annotations

import copy

import pytest
import torch
from test_model_state import assert_unchanged, awkward_model, snapshot
from tiny_models import tiny_model

from attn_widget.capture import capture
from attn_widget.parts.hidden_attribution import hidden_attribution_maps

TEXT = "the cat sat on the mat"


def block_outputs(model, embeds: torch.Tensor, extra: dict) -> torch.Tensor:
    """``(L, B, n, d)``: every block's output for a batch of word embeddings ``embeds`` ``(B, n, d)``."""
    blocks = model.encoder.layer if hasattr(model, "encoder") else model.h
    seen = []

    def keep(_module, _inputs, o) -> None:
        seen.append(o[0] if isinstance(o, tuple) else o)

    handles = [b.register_forward_hook(keep) for b in blocks]
    with torch.no_grad():
        model(inputs_embeds=embeds, **{k: v.expand(len(embeds), -1) for k, v in extra.items()})
    for handle in handles:
        handle.remove()
    return torch.stack(seen)


def finite_differences(model, tokenizer, text: str, h: float = 1e-5) -> torch.Tensor:
    """``(L, n, n)``: ‖∂e_i^l/∂x_j‖_F by central differences over every input coordinate, normalised over j."""
    twin = copy.deepcopy(model).eval()
    twin.set_attn_implementation("eager")
    inputs = tokenizer(text, return_tensors="pt")
    extra = {k: v for k, v in inputs.items() if k != "input_ids"}
    x = twin.get_input_embeddings()(inputs["input_ids"]).detach()  # (1, n, d)
    n, d = x.shape[1:]
    steps = torch.eye(n * d, dtype=x.dtype).view(n * d, n, d) * h
    columns = (block_outputs(twin, x + steps, extra) - block_outputs(twin, x - steps, extra)) / (2 * h)
    squares = columns.pow(2).sum(-1).view(columns.shape[0], n, d, n).sum(2)  # (L, j, i)
    norms = squares.sqrt().transpose(1, 2)
    return norms / norms.sum(-1, keepdim=True)


@pytest.mark.parametrize("family", ["bert", "gpt2"])
def test_hidden_attribution_equals_finite_differences(family, tokenizer):
    model = tiny_model(family, **({"num_hidden_layers": 2} if family == "bert" else {"n_layer": 2}))
    record = capture(model, TEXT, tokenizer)
    maps = hidden_attribution_maps(model, tokenizer, record)
    expected = finite_differences(model, tokenizer, TEXT)
    assert maps.dtype == torch.float64 and maps.shape == expected.shape == (2, 8, 8)
    assert torch.allclose(maps, expected, rtol=1e-6, atol=1e-9)
    assert torch.allclose(maps.sum(-1), torch.ones(2, 8, dtype=torch.float64), atol=1e-12)
    if family == "gpt2":
        assert (maps.triu(1) == 0).all()


def test_last_layer_is_the_block_output_not_the_final_norm(tokenizer):
    """GPT-2's hidden_states[-1] has ln_f applied; the attribution uses block L's own output."""
    model = tiny_model("gpt2", n_layer=2)
    record = capture(model, TEXT, tokenizer)
    maps = hidden_attribution_maps(model, tokenizer, record)
    expected = finite_differences(model, tokenizer, TEXT)  # hooks the blocks, never ln_f
    assert torch.allclose(maps[-1], expected[-1], rtol=1e-6, atol=1e-9)


def test_model_is_left_as_found_and_progress_cancels(tokenizer):
    model = awkward_model("bert")
    before = snapshot(model)
    record = capture(model, TEXT, tokenizer)
    seen = []
    hidden_attribution_maps(model, tokenizer, record, progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (8 * 32, 8 * 32)
    assert_unchanged(before, snapshot(model))

    def cancel(_done, _total):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        hidden_attribution_maps(model, tokenizer, record, progress=cancel)
    assert_unchanged(before, snapshot(model))


def test_half_precision_model_is_attributed_in_float32_and_left_in_bf16(tokenizer):
    model = tiny_model("llama", dtype=torch.bfloat16, num_hidden_layers=2)
    before = snapshot(model)
    maps = hidden_attribution_maps(model, tokenizer, capture(model, TEXT, tokenizer))
    assert torch.isfinite(maps).all() and (maps.triu(1) == 0).all()
    assert torch.allclose(maps.sum(-1), torch.ones(2, 8, dtype=torch.float64), atol=1e-12)
    assert_unchanged(before, snapshot(model))


def test_models_vmap_cannot_trace_fall_back_to_dual_copies(tokenizer, monkeypatch):
    from attn_widget.parts import hidden_attribution

    model = tiny_model("gpt2", n_layer=2)
    record = capture(model, TEXT, tokenizer)
    shared = hidden_attribution_maps(model, tokenizer, record)

    def untraceable(*_args):
        raise RuntimeError("vmap: an operation without a batching rule")

    monkeypatch.setattr(hidden_attribution, "_shared_primal", untraceable)
    assert torch.allclose(hidden_attribution_maps(model, tokenizer, record), shared, rtol=1e-9, atol=1e-12)


def test_models_without_forward_derivatives_run_in_reverse_mode(tokenizer, monkeypatch):
    """BLOOM's custom autograd function and MoE kernels have no forward-mode derivative."""
    from attn_widget.parts import hidden_attribution

    model = tiny_model("bert", num_hidden_layers=2)
    record = capture(model, TEXT, tokenizer)
    forward = hidden_attribution_maps(model, tokenizer, record)

    def no_jvp(*_args):
        raise hidden_attribution._NoForwardDerivative("no jvp")

    monkeypatch.setattr(hidden_attribution, "_forward_mode", no_jvp)
    seen = []
    reverse = hidden_attribution_maps(model, tokenizer, record, progress=lambda *report: seen.append(report))
    assert torch.allclose(reverse, forward, rtol=1e-9, atol=1e-12)
    assert seen[-1] == (2 * 8 * 32,) * 2
