"""Images the model cannot be given honestly are refused up front, in one sentence about the image (issue 36):
float pixels beyond 0..1, a layout that could be read either way, complex or non-finite values, channel counts
the model does not take, empty images. Each is checked without a processor (attn_widget's own resize and
normalisation) and with one (a tiny ``ViTImageProcessor``); what is accepted is read the same on both paths."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import transformers as tf
from PIL import Image
from test_model_state import assert_unchanged, snapshot
from zoo import IMAGE_FAMILIES

from attn_widget import analyze
from attn_widget.image_input import pixel_values

RGB = (np.random.RandomState(0).rand(10, 12, 3) * 255).astype(np.uint8)  # (H, W, C)


@pytest.fixture(scope="module")
def vit():
    return IMAGE_FAMILIES[0].build()


def processor():
    """ViT's own processor at the tiny model's size: rescales by 1/255 (do_rescale), normalises with 0.5."""
    return tf.ViTImageProcessor(size={"height": 8, "width": 8})


PATHS = [None, processor]


def refused(model, image, path, error, match):
    """``analyze`` refuses ``image`` with ``error`` matching ``match``, and the model is left as found."""
    before = snapshot(model)
    with pytest.raises(error, match=match) as caught:
        analyze(model, image, processor=path() if path else None)
    assert_unchanged(before, snapshot(model))
    message = str(caught.value)
    assert message.startswith("The image"), message  # about the image, never the model
    return message


@pytest.mark.parametrize("path", PATHS, ids=["own", "processor"])
def test_float_images_are_read_on_one_scale_and_refused_off_it(vit, path):
    """Without a processor float pixels are read as 0..1 (uint8 as 0..255): a float image on 0..255 fed the
    model 255 times its input while the picture looked normal. A processor that rescales reads every image as
    0..255, so there a float image within 0..1 is the one it would misread."""
    given = None if path is None else path()
    expected = pixel_values(vit, RGB, given)
    if path is None:
        assert torch.allclose(pixel_values(vit, RGB / 255.0), expected, atol=1e-6)
        assert torch.allclose(pixel_values(vit, np.clip(RGB / 255.0 + 1e-4, 0, None)), expected, atol=1e-3)
        refused(vit, RGB.astype(np.float32), path, ValueError, r"values from \d+ to 2\d\d.*read as 0\.\.1")
        refused(vit, RGB / 255.0 - 0.5, path, ValueError, r"values from -0\.\d+ to 0\.\d+.*read as 0\.\.1")
        wide = r"integer \(int32\) with values from \d+ to 10\d\d.*read as 0\.\.255"
        refused(vit, RGB.astype(np.int32) * 4, path, ValueError, wide)
    else:
        assert torch.allclose(pixel_values(vit, RGB.astype(np.float32), given), expected, atol=1e-6)
        refused(vit, RGB / 255.0, path, ValueError, r"values in 0\.\.1 but the processor reads images as 0\.\.255")
        refused(
            vit,
            RGB * 257.0,
            path,
            ValueError,
            r"values from \d+ to 6\.\d+e\+04, but the processor reads images as 0\.\.255",
        )


@pytest.mark.parametrize("path", PATHS, ids=["own", "processor"])
def test_a_layout_that_reads_either_way_is_refused_and_a_batch_of_one_is_channels_first(vit, path):
    """A (3, W, 3) or (4, W, 3) array was read channels-first: an image 3 or 4 pixels high came out as a picture
    of its columns. Shapes that could be either are refused, saying how to pass them; (1, C, H, W) is the
    model's own layout, never guessed."""
    strip = np.ascontiguousarray(RGB[:3])  # (3, 12, 3): 3 pixels high, RGB
    for image in (strip, RGB[:4]):
        message = refused(vit, image, path, ValueError, r"can be read as \(C, H, W\) or as \(H, W, C\)")
        assert "(1, C, H, W)" in message and f"{image.shape}" in message
    given = None if path is None else path()
    as_pil = pixel_values(vit, Image.fromarray(strip), given)
    assert torch.equal(pixel_values(vit, strip.transpose(2, 0, 1)[None], given), as_pil)
    assert torch.equal(pixel_values(vit, torch.from_numpy(strip).permute(2, 0, 1)[None], given), as_pil)
    assert torch.equal(
        pixel_values(vit, np.ascontiguousarray(RGB[:2]), given), pixel_values(vit, RGB[:2].transpose(2, 0, 1), given)
    )


@pytest.mark.parametrize("path", PATHS, ids=["own", "processor"])
def test_complex_and_non_finite_images_are_refused_as_the_image(vit, path):
    refused(vit, RGB / 255.0 + 0j, path, TypeError, "complex")
    refused(vit, RGB.astype(object), path, TypeError, "not numbers")
    for bad in (np.nan, np.inf):
        image = RGB / 255.0
        image[2, 3, 1] = bad
        refused(vit, image, path, ValueError, r"The image has 1 NaN or infinite value")


@pytest.mark.parametrize("path", PATHS, ids=["own", "processor"])
@pytest.mark.parametrize("shape,channels", [((16, 16, 2), 2), ((5, 16, 16), 5), ((1, 16, 16, 2), 2)])
def test_a_channel_count_the_model_does_not_take_is_named(vit, path, shape, channels):
    image = np.zeros(shape, np.uint8)
    message = refused(vit, image, path, ValueError, f"The image has {channels} channels .* ViTModel takes 3")
    assert "16 channels" not in message


@pytest.mark.parametrize("path", PATHS, ids=["own", "processor"])
def test_empty_images_are_refused(vit, path):
    for image in (np.zeros((0, 0, 3), np.uint8), np.zeros((3, 0, 8)), torch.zeros(8, 0), Image.new("RGB", (0, 0))):
        refused(vit, image, path, ValueError, r"The image is empty")
