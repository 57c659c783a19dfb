"""Gradients of image classifiers (attn_widget/vision_gradients.py, docs/methods.md §6.9) on tiny random ViT
and DeiT classifiers: per-patch scores equal Captum's pixel attributions summed over each patch, integrated
gradients are complete, Chefer's map equals a plain re-implementation from an independent backward pass,
class targets resolve by index and name, headless models are refused, and the model is left as found."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch
from test_model_state import assert_unchanged, snapshot
from test_vision import awkward
from zoo import _VISION, IMAGE_FAMILIES, Family

from attn_widget import UnsupportedModelError, analyze
from attn_widget.vision import pixel_values

pytestmark = pytest.mark.filterwarnings("ignore:Input Tensor:UserWarning")  # captum sets requires_grad itself
IMAGE = (np.random.RandomState(0).rand(10, 12, 3) * 255).astype(np.uint8)
VIT = next(f for f in IMAGE_FAMILIES if f.name == "ViT, image classifier")
DEIT = Family("DeiT, image classifier", "DeiTConfig", dict(_VISION, num_labels=3), model="DeiTForImageClassification")
PATCH = 4  # _VISION: 8×8 images, 4×4 patches, a 2×2 grid


def per_patch(pixels: torch.Tensor, prefix: int) -> torch.Tensor:
    """``(1, C, 8, 8) → (prefix + 4, C·16)``: each patch's pixels, sliced out one by one; zeros for the prefix."""
    rows = [torch.zeros(pixels.shape[1] * PATCH * PATCH, dtype=pixels.dtype)] * prefix
    for r in range(2):
        for c in range(2):
            rows.append(pixels[0, :, r * PATCH : (r + 1) * PATCH, c * PATCH : (c + 1) * PATCH].reshape(-1))
    return torch.stack(rows)


@pytest.mark.parametrize("family", [VIT, DEIT], ids=lambda f: f.id)
def test_patch_scores_equal_captum_on_the_pixels(family):
    captum = pytest.importorskip("captum.attr")
    model = awkward(family.build(torch.float64))
    before = snapshot(model)
    analysis = analyze(model, IMAGE)
    prefix = 1 if family is VIT else 2
    assert analysis.tokens[prefix] == "(0,0)"
    target = analysis.target(None)
    scores = {m: analysis.attribution(m, 1) for m in ("saliency", "grad_x_input", "blank_out")}
    ig = analysis.integrated_gradients(1, progress=False)
    chefer = analysis.patch_map("gradient_rollout", target=1)
    assert_unchanged(before, snapshot(model))

    twin = copy.deepcopy(model).eval()
    twin.set_attn_implementation("eager")
    x = pixel_values(model, IMAGE).double()
    with torch.no_grad():
        logits = twin(pixel_values=x).logits[0]
    assert target.description == f"logit of class 'LABEL_{int(logits.argmax())}'"  # default: the predicted class

    def forward(pixels):
        return twin(pixel_values=pixels).logits[:, 1]

    grad = captum.Saliency(forward).attribute(x, abs=False)
    assert torch.allclose(scores["saliency"], per_patch(grad, prefix).norm(dim=-1), atol=1e-14)
    product = captum.InputXGradient(forward).attribute(x)
    assert torch.allclose(scores["grad_x_input"], per_patch(product, prefix).sum(-1), atol=1e-14)
    expected = captum.IntegratedGradients(forward).attribute(
        x, baselines=torch.zeros_like(x), n_steps=ig.steps, method="gausslegendre"
    )
    assert torch.allclose(ig.attributions.sum(-1), per_patch(expected, prefix).sum(-1), atol=1e-12)
    assert (ig.attributions[:prefix] == 0).all() and (scores["saliency"][:prefix] == 0).all()
    with torch.no_grad():
        gap = float(forward(x) - forward(torch.zeros_like(x)))
    assert abs(float(ig.attributions.sum()) - gap) < 1e-4 * abs(gap)  # completeness, float64, 50 points
    assert ig.steps == 50 and ig.converged

    # Blank-out: patch (1,0) set to the zero baseline, written out.
    blanked = x.clone()
    blanked[:, :, PATCH:, :PATCH] = 0
    with torch.no_grad():
        change = abs(float(forward(x) - forward(blanked)))
    assert scores["blank_out"][prefix + 2] == pytest.approx(change, rel=1e-9, abs=1e-15)

    # Chefer's ViT map from an independent backward pass: R = I; R += Ā R per layer; the CLS row over the patches.
    outputs = twin(pixel_values=x, output_attentions=True)
    attentions = outputs.attentions
    for a in attentions:
        a.retain_grad()
    outputs.logits[0, 1].backward()
    n = attentions[0].shape[-1]
    relevance = torch.eye(n, dtype=torch.float64)
    for a in attentions:
        bar = (a.grad[0] * a.detach()[0]).clamp(min=0).mean(0)
        relevance = relevance + bar @ relevance
    assert torch.allclose(chefer, relevance[0, prefix:].reshape(2, 2), atol=1e-14)


def test_class_targets_and_refusals():
    model = VIT.build()
    analysis = analyze(model, IMAGE)
    assert analysis.target(2).description == "logit of class 'LABEL_2'"
    assert analysis.target("LABEL_1").description == "logit of class 'LABEL_1'"
    assert torch.equal(analysis.attribution("saliency", "LABEL_1"), analysis.attribution("saliency", 1))
    with pytest.raises(ValueError, match="Unknown class 'dog'"):
        analysis.target("dog")
    with pytest.raises(ValueError, match="does not exist"):
        analysis.target(7)
    with pytest.raises(ValueError, match="baseline must be"):
        analysis.integrated_gradients(baseline="mask", progress=False)

    headless = analyze(IMAGE_FAMILIES[0].build(), IMAGE)
    with pytest.raises(UnsupportedModelError, match="ViTModel has no classification head"):
        headless.attribution("saliency")
    assert "no classification head" in headless.gradient_part.unavailable()


def test_the_widget_offers_token_scores_for_an_image_classifier():
    from attn_widget import AttentionWidget

    widget = AttentionWidget(VIT.build(), IMAGE)
    offered = {entry["id"] for entry in widget.attributions}
    assert {"saliency", "grad_x_input", "integrated_gradients", "gradient_rollout", "blank_out"} <= offered
    assert widget.targets[0]["label"].startswith("logit of class") and widget.targets[0]["position"] == 0
    assert "hidden_attribution" not in {m["id"] for m in widget.methods}
