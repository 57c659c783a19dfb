"""The user's model comes back exactly as it was found (guide: Standards)."""

from __future__ import annotations

import pytest
import torch
from tiny_models import FAMILIES, tiny_model

from attn_widget import AttentionWidget, analyze

TEXT = "the cat sat on the mat"


def snapshot(model: torch.nn.Module) -> dict:
    configs = {id(m.config): m.config for m in model.modules() if hasattr(m, "config")}
    return {
        "training": [m.training for m in model.modules()],
        "attn": [(c._attn_implementation_internal, c._attn_implementation) for c in configs.values()],
        "requires_grad": [p.requires_grad for p in model.parameters()],
        "grads": [p.grad for p in model.parameters()],
        "hooks": [(len(m._forward_hooks), len(m._forward_pre_hooks), len(m._backward_hooks)) for m in model.modules()],
        "state": {k: v.clone() for k, v in model.state_dict().items()},
        "grad_enabled": torch.is_grad_enabled(),
    }


def assert_unchanged(before: dict, after: dict) -> None:
    for key in ("training", "attn", "requires_grad", "hooks", "grad_enabled"):
        assert before[key] == after[key], key
    assert all(g is None for g in after["grads"])
    assert before["state"].keys() == after["state"].keys()
    for name, value in before["state"].items():
        assert torch.equal(value, after["state"][name]), name


def awkward_model(family: str) -> torch.nn.Module:
    """Train mode with one submodule in eval, sdpa attention, some frozen weights, a user hook."""
    model = tiny_model(family).train()
    list(model.modules())[3].eval()
    for i, param in enumerate(model.parameters()):
        param.requires_grad_(i % 3 != 0)
    model.register_forward_hook(lambda *args: None)
    return model


@pytest.mark.parametrize("family", FAMILIES)
def test_analyze_and_widget_leave_the_model_unchanged(family, tokenizer):
    model = awkward_model(family)
    before = snapshot(model)
    assert before["attn"][0][1] == "sdpa"
    analysis = analyze(model, TEXT, tokenizer)
    analysis.rollout()
    assert_unchanged(before, snapshot(model))
    AttentionWidget(model, TEXT, tokenizer)
    assert_unchanged(before, snapshot(model))


def test_eager_model_stays_eager(tokenizer):
    model = tiny_model("bert")
    model.set_attn_implementation("eager")
    before = snapshot(model)
    analyze(model, TEXT, tokenizer)
    assert_unchanged(before, snapshot(model))


def test_model_is_restored_when_the_forward_pass_fails(tokenizer):
    model = awkward_model("gpt2")
    before = snapshot(model)

    def explode(*_args):
        raise RuntimeError("boom")

    handle = model.h[1].register_forward_hook(explode)
    before["hooks"] = snapshot(model)["hooks"]
    with pytest.raises(RuntimeError, match="boom"):
        analyze(model, TEXT, tokenizer)
    assert_unchanged(before, snapshot(model))
    handle.remove()


def test_attentions_are_taken_in_eval_mode(tokenizer):
    """Dropout must not corrupt the weights even when the user's model is training."""
    model = tiny_model("bert", attention_probs_dropout_prob=0.5).train()
    first = analyze(model, TEXT, tokenizer).attentions
    second = analyze(model, TEXT, tokenizer).attentions
    assert torch.equal(first, second)
    assert torch.allclose(first.sum(-1), torch.ones_like(first.sum(-1)), atol=1e-12)


def test_gradient_work_leaves_the_model_unchanged(tokenizer):
    from tiny_models import tiny_lm

    model = tiny_lm(n_layer=2).train()
    for i, param in enumerate(model.parameters()):
        param.requires_grad_(i % 2 == 0)
    model.register_forward_hook(lambda *args: None)
    before = snapshot(model)
    analysis = analyze(model, TEXT, tokenizer)
    for method in analysis.ATTRIBUTIONS:
        options = {"progress": False} if method == "integrated_gradients" else {}
        analysis.attribution(method, **options)
    assert_unchanged(before, snapshot(model))
