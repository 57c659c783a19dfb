"""Gradient-based attribution: docs/methods.md §6.7, against finite differences and Captum."""

from __future__ import annotations

import pytest
import torch
import transformers as tf
from tiny_models import _COMMON, tiny_classifier, tiny_lm

from attn_widget import AttentionWidget, analyze, methods, targets
from attn_widget import gradients as gradient_runner
from attn_widget.model_state import borrowed_for_capture

TEXT = "the cat sat on the mat and the dog ran to the big red house"


def score_at(model, analysis, embeds: torch.Tensor) -> float:
    """y for given word embeddings (1, n, d), through the same target."""
    runner = analysis._runner()
    with borrowed_for_capture(model), torch.no_grad():  # eager attention, as the gradient pass uses
        return float(analysis.target().score(runner._forward(embeds)).sum())


@pytest.mark.parametrize("build", [tiny_lm, tiny_classifier])
def test_embedding_gradient_matches_finite_differences(build, tokenizer):
    model = build()
    analysis = analyze(model, TEXT, tokenizer)
    g = analysis.gradients()
    embeds = g.embeds.unsqueeze(0)
    generator = torch.Generator().manual_seed(1)
    h = 1e-5
    for _ in range(3):
        u = torch.randn(embeds.shape, generator=generator, dtype=torch.float64)
        numeric = (score_at(model, analysis, embeds + h * u) - score_at(model, analysis, embeds - h * u)) / (2 * h)
        assert numeric == pytest.approx(float((g.embed_grad * u[0]).sum()), rel=1e-6, abs=1e-9)


def test_attention_gradient_matches_finite_differences(tokenizer, monkeypatch):
    """∂y/∂A against y with one attention weight nudged inside GPT-2's eager attention."""
    from transformers.models.gpt2 import modeling_gpt2

    model = tiny_lm()
    analysis = analyze(model, TEXT, tokenizer)
    g = analysis.gradients()
    nudge = {"layer": 1, "index": (2, 9, 4), "by": 0.0}

    def patched(module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kwargs):
        scaling = query.size(-1) ** -0.5 if scaling is None else scaling
        weights = torch.matmul(query, key.transpose(-1, -2)) * scaling
        if attention_mask is not None:
            weights = weights + attention_mask
        weights = weights.softmax(-1)
        if module.layer_idx == nudge["layer"]:
            weights = weights.clone()
            weights[(0, *nudge["index"])] += nudge["by"]
        return torch.matmul(weights, value).transpose(1, 2), weights

    monkeypatch.setattr(modeling_gpt2, "eager_attention_forward", patched)
    embeds = g.embeds.unsqueeze(0)
    h = 1e-5
    values = []
    for by in (h, -h):
        nudge["by"] = by
        values.append(score_at(model, analysis, embeds))
    numeric = (values[0] - values[1]) / (2 * h)
    assert numeric == pytest.approx(float(g.attention_grad[(1, *nudge["index"])]), rel=1e-6, abs=1e-9)


def test_causal_models_give_exact_zeros_after_the_target(tokenizer):
    analysis = analyze(tiny_lm(), TEXT, tokenizer)
    t = 6
    target = targets.next_token(position=t, which="actual")
    for method in ("saliency", "grad_x_input", "integrated_gradients", "blank_out"):
        scores = analysis.attribution(
            method, target, **({"progress": False} if method == "integrated_gradients" else {})
        )
        assert torch.all(scores[t + 1 :] == 0), method
        assert scores[: t + 1].abs().sum() > 0, method
    assert torch.all(analysis.gradient_rollout(target).triu(diagonal=1) == 0)
    assert torch.all(analysis.attention_gradient(target).triu(diagonal=1) == 0)


@pytest.mark.parametrize("build", [tiny_lm, tiny_classifier])
def test_integrated_gradients_completeness(build, tokenizer):
    analysis = analyze(build(), TEXT, tokenizer)
    ig = analysis.integrated_gradients(progress=False)
    assert ig.steps == 50 and ig.completeness_error < 0.05
    special = analysis.capture.special
    assert torch.all(ig.attributions[special] == 0)  # special tokens are kept at the baseline


def test_integrated_gradients_on_a_linear_model_are_exact():
    """y = w·vec(e): IG = w ⊙ (e − e') exactly, and equals gradient × input with a zero baseline."""
    e, w = torch.randn(5, 3, dtype=torch.float64), torch.randn(5, 3, dtype=torch.float64)
    _, weights = methods.gauss_legendre(50)
    assert float(weights.sum()) == pytest.approx(1.0, abs=1e-14)
    integrated = e * sum(weight * w for weight in weights)  # ∂y/∂e = w at every point
    assert torch.allclose(integrated, w * e, atol=1e-13)
    assert torch.allclose(integrated.sum(-1), methods.grad_times_input(w, e), atol=1e-13)


def test_chefer_identities():
    g = torch.Generator().manual_seed(2)
    att = torch.rand(4, 3, 6, 6, generator=g, dtype=torch.float64)
    att = att / att.sum(-1, keepdim=True)
    ones = torch.ones_like(att)
    assert torch.allclose(
        methods.gradient_rollout(att, ones),
        2.0 ** torch.arange(1, 5, dtype=torch.float64)[:, None, None] * methods.rollout(att.mean(1)),
        atol=1e-12,
    )
    negative = -ones
    negative[1:] = 1  # layer 1 has A ⊙ ∇A <= 0 everywhere: it leaves R unchanged
    rolled = methods.gradient_rollout(att, negative)
    assert torch.allclose(rolled[0], torch.eye(6, dtype=torch.float64))


@pytest.mark.parametrize("build", [tiny_lm, tiny_classifier])
def test_gradient_x_input_and_integrated_gradients_agree_with_captum(build, tokenizer):
    captum = pytest.importorskip("captum.attr")  # a test-only dependency (pyproject dev extra)
    model = build()
    analysis = analyze(model, TEXT, tokenizer)
    runner = analysis._runner()
    target = analysis.target()

    def forward(embeds):
        return target.score(runner._forward(embeds))

    embeds = runner._embed().requires_grad_(True)
    reference = captum.InputXGradient(forward).attribute(embeds).sum(-1)[0]
    assert torch.allclose(analysis.attribution("grad_x_input"), reference, atol=1e-6)
    ig = captum.IntegratedGradients(forward).attribute(
        embeds, baselines=runner.baseline()[0], n_steps=50, method="gausslegendre"
    )
    assert torch.allclose(analysis.attribution("integrated_gradients", progress=False), ig.sum(-1)[0], atol=1e-6)


def test_targets(tokenizer):
    lm = analyze(tiny_lm(), TEXT, tokenizer)
    assert lm.target().description.endswith("as the token after position 16")  # 17 tokens with [CLS], [SEP]
    contrast = lm.target(targets.token("dog", position=3, versus="cat"))
    assert contrast.description == "logit of 'dog' − 'cat' as the token after position 3" and contrast.position == 3
    with pytest.raises(ValueError, match="outside the text"):
        lm.target(targets.token("dog", position=40))
    with pytest.raises(ValueError, match="no actual next token"):
        lm.target(targets.next_token(which="actual"))
    classifier = analyze(tiny_classifier(), TEXT, tokenizer)
    assert classifier.target(targets.class_logit(2)).description.startswith("logit of class")
    with pytest.raises(ValueError, match="has 3 classes"):
        classifier.target(targets.class_logit(7))
    with pytest.raises(ValueError, match="needs a model with an output head"):
        analyze(tf.AutoModel.from_config(tiny_classifier().config), TEXT, tokenizer).target()
    custom = classifier.target(lambda outputs: outputs.logits[:, 0] - outputs.logits[:, 1])
    assert custom.position == 0
    # Two functions with the same name (both "<lambda>") are two targets, not one cached result.
    first = classifier.gradients(lambda outputs: outputs.logits[:, 0]).value
    second = classifier.gradients(lambda outputs: outputs.logits[:, 1]).value
    assert first != second


def test_outputs_beyond_their_bound_resolve_one_target_then_are_let_go(tokenizer, monkeypatch):
    """A large vocabulary's logits at a long input (gigabytes) are not kept: the capture's outputs resolve the first
    target without a pass of their own and are let go; a target spec resolved later runs one plain pass. The widget
    keeps the target it resolved, so its token scores run no plain pass again. Within the bound, nothing runs."""
    plain_passes = []

    def counted(model):
        model.register_forward_pre_hook(lambda *_: plain_passes.append(1) if not torch.is_grad_enabled() else None)
        return model

    kept = analyze(counted(tiny_lm()), TEXT, tokenizer)
    plain_passes.clear()
    assert kept.target().description == kept.target(targets.next_token()).description and plain_passes == []

    monkeypatch.setattr(gradient_runner, "OUTPUTS_KEPT_BYTES", 0)
    analysis = analyze(counted(tiny_lm()), TEXT, tokenizer)
    plain_passes.clear()
    first = analysis.target()
    assert analysis.capture.outputs is None and analysis._runner()._context is None and plain_passes == []
    assert analysis.target(targets.next_token()).description == first.description and plain_passes == [1]

    widget = AttentionWidget(counted(tiny_lm()), TEXT, tokenizer)
    plain_passes.clear()
    widget.attribution = "saliency"
    widget.wait()
    assert widget.attribution_data["status"] == "done" and plain_passes == []


def test_masked_lm_target_needs_a_mask(tokenizer):
    torch.manual_seed(0)
    config = tf.BertConfig(hidden_size=32, num_attention_heads=4, num_hidden_layers=2, intermediate_size=64, **_COMMON)
    mlm = tf.BertForMaskedLM(config).double().eval()
    with pytest.raises(ValueError, match="no mask token"):
        analyze(mlm, TEXT, tokenizer).target()
    masked = analyze(mlm, "the cat [MASK] on the mat", tokenizer)
    assert masked.target().position == 3
    assert masked.attribution("saliency").shape == (8,)


@pytest.mark.model
def test_minilm_similarity_target(minilm):
    model, tokenizer = minilm
    analysis = analyze(model, "A man is playing a guitar on stage.", tokenizer)
    target = targets.similarity("Someone performs music with a guitar.")
    value = analysis.gradients(target).value
    assert 0.3 < value < 1.0  # the model's own objective: similar sentences
    ig = analysis.integrated_gradients(target, progress=False)
    assert ig.completeness_error < 0.05


def test_grad_times_input_reductions_and_a_clear_refusal():
    g, e = torch.tensor([[1.0, -2.0], [3.0, 4.0]]), torch.tensor([[2.0, 1.0], [-1.0, 1.0]])
    assert methods.grad_times_input(g, e).tolist() == [0.0, 1.0]  # (2 - 2), (-3 + 4)
    assert methods.grad_times_input(g, e, "abs-sum").tolist() == [0.0, 1.0]
    assert torch.allclose(methods.grad_times_input(g, e, "l2"), torch.tensor([8.0**0.5, 5.0]))
    with pytest.raises(ValueError, match='reduce must be "sum", "l2" or "abs-sum"'):
        methods.grad_times_input(g, e, "mean")
