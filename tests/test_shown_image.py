"""The widget's ``image`` fact (attn_widget.shown_image): the model's input as it saw it, cut to the patches,
shrunk past 256 px, checked, exported; the model is left as it was found."""

from __future__ import annotations

import base64
import dataclasses

import numpy as np
import pytest
import torch
from test_model_state import assert_unchanged, snapshot
from zoo import IMAGE_FAMILIES

from attn_widget import AttentionWidget, analyze, checks
from attn_widget.export import widget_state
from attn_widget.shown_image import MAX_SIDE

IMAGE = (np.random.RandomState(0).rand(10, 12, 3) * 255).astype(np.uint8)


def vit(**options):
    family = IMAGE_FAMILIES[0]
    return dataclasses.replace(family, options={**family.options, **options}).build()


def pixels_of(fact) -> np.ndarray:
    height, width = fact["size"]
    return np.frombuffer(fact["rgb"], dtype=np.uint8).reshape(height, width, 3)


@pytest.mark.parametrize("family", IMAGE_FAMILIES[2:4], ids=lambda f: f.id)  # ImageNet statistics (DeiT, DINOv2)
def test_the_image_is_the_models_input_with_the_normalisation_undone(family):
    model = family.build()
    before = snapshot(model)
    widget = AttentionWidget(model, IMAGE)
    # Reference: the resize the minimal preprocessing does, before normalising, in [0, 255].
    resized = torch.nn.functional.interpolate(
        torch.from_numpy(IMAGE).permute(2, 0, 1)[None].double() / 255, size=(8, 8), mode="bilinear"
    )[0]
    expected = (resized * 255).permute(1, 2, 0).numpy()
    assert np.abs(pixels_of(widget.image).astype(float) - expected).max() <= 0.51
    rows, cols = widget.image["grid"]
    assert widget.image["prefix"] + rows * cols == len(widget.tokens)
    assert widget.image["prefix"] == widget.special.count(True)
    assert_unchanged(before, snapshot(model))


def test_a_processors_statistics_undo_its_normalisation_and_the_picture_is_cut_to_the_patches():
    model = vit(image_size=10, patch_size=4)  # 2×2 patches cover 8×8 of the 10×10 input
    wanted = torch.rand(3, 10, 10, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    mean, std = [0.2, 0.3, 0.4], [0.5, 0.6, 0.7]

    class Processor:
        image_mean, image_std = mean, std

        def __call__(self, images, return_tensors):
            m, s = torch.tensor(mean).view(3, 1, 1), torch.tensor(std).view(3, 1, 1)
            return {"pixel_values": ((wanted - m) / s)[None].float()}

    widget = AttentionWidget(analysis=analyze(model, IMAGE, processor=Processor()))
    assert widget.image["size"] == [8, 8] and widget.image["grid"] == [2, 2]
    expected = (wanted[:, :8, :8] * 255).permute(1, 2, 0).numpy()
    assert np.abs(pixels_of(widget.image).astype(float) - expected).max() <= 0.51 + 255 * 1e-6


def test_a_large_input_is_shrunk_to_256_pixels_by_area_averaging():
    model = vit(image_size=512, patch_size=64)
    image = (np.random.RandomState(2).rand(512, 512, 3) * 255).astype(np.uint8)  # no resize: 512 is the size
    widget = AttentionWidget(model, image, method="rollout")
    assert widget.image["size"] == [MAX_SIDE, MAX_SIDE] and widget.image["grid"] == [8, 8]
    assert len(widget.image["rgb"]) == 256 * 256 * 3
    blocks = image.astype(float).reshape(256, 2, 256, 2, 3).mean(axis=(1, 3))  # 2×2 means, by hand
    assert np.abs(pixels_of(widget.image).astype(float) - blocks).max() <= 0.51 + 1e-3


def test_text_has_no_image_and_the_fact_is_checked(tokenizer):
    from tiny_models import tiny_model

    assert AttentionWidget(tiny_model("bert"), "the cat sat", tokenizer).image == {}
    good = {"rgb": bytes(2 * 3 * 3), "size": [2, 3], "grid": [1, 2], "prefix": 1}
    assert checks.image(good, 3, 256) == good
    for bad, message in [
        ({**good, "rgb": bytes(5)}, "18 bytes"),
        ({**good, "prefix": 2}, "must be the 3 tokens"),
        ({**good, "size": [300, 3], "rgb": bytes(300 * 9)}, "at most 256"),
        ({**good, "grid": [0, 2]}, "pairs of whole numbers"),
        ({"rgb": b""}, "keys rgb, size, grid and prefix"),
    ]:
        with pytest.raises(ValueError, match=message):
            checks.image(bad, 3, 256)


def test_the_front_end_cannot_set_the_image_and_the_export_carries_it():
    widget = AttentionWidget(IMAGE_FAMILIES[0].build(), IMAGE)
    before = widget.image
    widget.set_state({"image": {}})  # refused and logged; the kernel's value stays
    assert widget.image == before
    state = widget_state(widget)
    assert base64.b64decode(state["image"]["rgb"]["base64"]) == before["rgb"]
    assert {k: state["image"][k] for k in ("size", "grid", "prefix")} == {"size": [8, 8], "grid": [2, 2], "prefix": 1}
    assert '"image":{"rgb":{"base64":' in widget.to_html()


def test_a_processor_that_does_not_say_how_it_normalised_gets_the_inputs_range_stretched():
    model = vit()
    pixels = torch.randn(1, 3, 8, 8, generator=torch.Generator().manual_seed(3))

    class Processor:  # no image_mean / image_std
        def __call__(self, images, return_tensors):
            return {"pixel_values": pixels}

    widget = AttentionWidget(analysis=analyze(model, IMAGE, processor=Processor()))
    x = pixels[0].double()
    expected = ((x - x.min()) / (x.max() - x.min()) * 255).permute(1, 2, 0).numpy()  # one range for all channels
    assert np.abs(pixels_of(widget.image).astype(float) - expected).max() <= 0.51
