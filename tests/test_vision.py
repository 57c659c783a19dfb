"""Vision transformers from an image (attn_widget.vision): the capture is the model's own attention,
the vit-explain rollout options follow their definition, and the model is left as it was found."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch
from test_model_state import assert_unchanged, snapshot
from zoo import IMAGE_FAMILIES

from attn_widget import UnsupportedModelError, analyze
from attn_widget.vision import pixel_values, vision_rollout

IMAGE = (np.random.RandomState(0).rand(10, 12, 3) * 255).astype(np.uint8)  # (H, W, C), resized to 8×8
PREFIX = {"vit": 1, "deit": 2, "dinov2": 1, "dinov2_with_registers": 3}


def awkward(model):
    model.train()
    for i, param in enumerate(model.parameters()):
        param.requires_grad_(i % 3 != 0)
    model.register_forward_hook(lambda *args: None)
    return model


@pytest.mark.parametrize("family", IMAGE_FAMILIES, ids=lambda f: f.id)
def test_image_capture_is_the_models_own_attention(family):
    model = awkward(family.build())
    before = snapshot(model)
    analysis = analyze(model, IMAGE)
    record = analysis.capture

    twin = copy.deepcopy(model).eval()
    twin.set_attn_implementation("eager")
    with torch.no_grad():
        reference = twin(pixel_values=pixel_values(model, IMAGE), output_attentions=True).attentions
    assert torch.allclose(record.attentions, torch.stack([a[0] for a in reference]), atol=1e-6)
    assert record.masks.all() and not record.causal
    assert record.values is not None, record.values_unavailable  # A·V verified against the output projection

    prefix = PREFIX[record.model_type]
    assert analysis.grid == (2, 2) and record.n_tokens == prefix + 4
    assert analysis.tokens[0] == "[CLS]" and analysis.tokens[prefix:] == ["(0,0)", "(0,1)", "(1,0)", "(1,1)"]
    if record.model_type == "deit":
        assert analysis.tokens[1] == "[DIST]"
    if record.model_type == "dinov2_with_registers":
        assert analysis.tokens[1:3] == ["[REG0]", "[REG1]"]
    assert record.special.tolist() == [True] * prefix + [False] * 4

    ones = torch.ones(record.n_layers, record.n_tokens, dtype=torch.float64)
    assert torch.allclose(analysis.rollout().sum(-1), ones, atol=1e-10)
    for fusion in ("mean", "max", "min"):
        assert torch.allclose(analysis.vision_rollout(fusion, 0.3).sum(-1), ones, atol=1e-10)
    for method in ("rollout", "vision_rollout", "raw", "flow"):
        assert analysis.patch_map(method).shape == (2, 2)
    assert torch.equal(analysis.patch_map(layer=1), analysis.rollout()[0, 0, prefix:].reshape(2, 2))
    if "classifier" in family.name:  # gradients towards a class logit (tests/test_vision_gradients.py)
        assert analysis.gradients().attention_grad.shape == record.attentions.shape
    else:
        with pytest.raises(UnsupportedModelError, match="no classification head"):
            analysis.gradients()
    assert_unchanged(before, snapshot(model))


def test_image_layouts_and_processor_give_the_same_input():
    model = IMAGE_FAMILIES[0].build()
    hwc = torch.from_numpy(IMAGE)
    chw = hwc.permute(2, 0, 1)
    assert torch.equal(pixel_values(model, hwc), pixel_values(model, chw))
    assert torch.equal(pixel_values(model, IMAGE), pixel_values(model, chw.numpy()))
    from PIL import Image

    assert torch.equal(pixel_values(model, Image.fromarray(IMAGE)), pixel_values(model, IMAGE))

    class Processor:  # what an AutoImageProcessor returns
        def __call__(self, images, return_tensors):
            return {"pixel_values": torch.zeros(1, 3, 8, 8)}

    analysis = analyze(model, IMAGE, processor=Processor())
    assert torch.equal(analysis.capture.model_inputs["pixel_values"], torch.zeros(1, 3, 8, 8))
    with pytest.raises(TypeError, match="vision model"):
        analyze(model, "a cat")


# The vit-explain definition, written out plainly, and its code's procedure in spirit ---------------------


def rollout_by_definition(attentions, fusion, ratio):
    """Per layer: fuse, zero the smallest floor(ratio·n²) entries outside the CLS row, (A+I)/2, rows to 1."""
    n = attentions.shape[-1]
    result = torch.eye(n, dtype=torch.float64)
    for layer in attentions.double():
        fused = {"mean": layer.mean(0), "max": layer.max(0).values, "min": layer.min(0).values}[fusion]
        entries = sorted((float(fused[i, j]), i, j) for i in range(1, n) for j in range(n))
        for _, i, j in entries[: int(n * n * ratio)]:
            fused[i, j] = 0.0
        step = (fused + torch.eye(n, dtype=torch.float64)) / 2
        step = torch.stack([row / row.sum() for row in step])
        result = step @ result
    return result


def vit_explain_procedure(attentions, fusion, ratio, protect_row=False, fix_rows=False):
    """What vit-explain's rollout does: protects flattened entry 0 only, divides by a broadcast row sum."""
    n = attentions.shape[-1]
    result = torch.eye(n, dtype=torch.float64)
    for layer in attentions.double():
        fused = {"mean": layer.mean(0), "max": layer.max(0).values, "min": layer.min(0).values}[fusion][None]
        flat = fused.reshape(1, -1)
        candidates = flat.clone()
        if protect_row:
            candidates[0, :n] = float("inf")
        drop = candidates.topk(int(n * n * ratio), -1, largest=False).indices
        drop = drop[drop != 0]
        flat[0, drop] = 0
        a = (flat.reshape(1, n, n) + torch.eye(n, dtype=torch.float64)) / 2
        a = a / (a.sum(dim=-1, keepdim=True) if fix_rows else a.sum(dim=-1))
        result = a @ result
    return result[0]


def test_vision_rollout_is_the_definition_and_differs_from_vit_explain_where_its_bugs_bite():
    torch.manual_seed(0)
    attentions = torch.rand(3, 4, 5, 5).softmax(-1)
    attentions[:, :, 0, 3] = 1e-4  # the CLS row holds some of the smallest entries
    attentions = attentions / attentions.sum(-1, keepdim=True)
    for fusion in ("mean", "max", "min"):
        for ratio in (0.0, 0.3):
            ours = vision_rollout(attentions, fusion, ratio)
            assert torch.allclose(ours[-1], rollout_by_definition(attentions, fusion, ratio), atol=1e-12)
            # Both bugs fixed, vit-explain's procedure is the definition.
            fixed = vit_explain_procedure(attentions, fusion, ratio, protect_row=True, fix_rows=True)
            assert torch.allclose(ours[-1], fixed, atol=1e-12)
            # Its row normalisation divides column j by row j's sum: harmless only when the fused rows already
            # sum to 1 (head mean, nothing discarded); otherwise rows stop summing to 1 and the result differs.
            as_is = vit_explain_procedure(attentions, fusion, ratio, protect_row=True)
            bites = fusion != "mean" or ratio > 0
            assert torch.allclose(ours[-1], as_is, atol=1e-12) != bites
            assert torch.allclose(as_is.sum(-1), torch.ones(5, dtype=torch.float64), atol=1e-6) != bites
            # Protecting entry 0 only: no difference without discarding, a difference when CLS-row entries go.
            entry_only = vit_explain_procedure(attentions, fusion, ratio, fix_rows=True)
            assert torch.allclose(ours[-1], entry_only, atol=1e-12) == (ratio == 0.0)


def test_the_widget_shows_an_image_analysis_without_token_scores():
    """The graph views work on patches; gradient token scores are not offered without a classification head."""
    from attn_widget import AttentionWidget, payload

    model = IMAGE_FAMILIES[0].build()
    widget = AttentionWidget(model, IMAGE)
    assert widget.tokens[0] == "[CLS]" and widget.tokens[1] == "(0,0)"
    assert widget.attributions == [] and widget.targets == []
    ids = [m["id"] for m in widget.methods]
    assert {"raw", "rollout", "flow", "alti_rollout"} <= set(ids) and "hidden_attribution" not in ids
    widget.compute("rollout", wait=True)
    assert payload.decode(widget.data_rollout)["shape"] == [widget.n_layers, len(widget.tokens), len(widget.tokens)]


@pytest.mark.parametrize("name", ["ViT", "DeiT"])
def test_a_processor_of_another_size_is_refused_before_the_model_runs(name):
    """ViT and DeiT take their config's image size only: a processor made for another model gave transformers'
    own error from inside the forward pass; it is refused up front, saying what to pass. The model is left as
    found, and without a processor the same image is resized and analysed."""
    import transformers as tf

    model = next(family for family in IMAGE_FAMILIES if family.name == name).build()
    before = snapshot(model)
    image = (np.random.default_rng(0).random((20, 20, 3)) * 255).astype("uint8")
    wrong = tf.ViTImageProcessor(size={"height": 16, "width": 16})
    with pytest.raises(ValueError, match=r"gave 16×16 pixel images but \w+ takes 8×8 \(config.image_size\)"):
        analyze(model, image, processor=wrong)
    assert_unchanged(before, snapshot(model))
    assert analyze(model, image).capture.grid == (2, 2)
