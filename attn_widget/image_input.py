"""The user's image as a vision transformer's input, ``pixel_values`` ``(1, C, H, W)``: its layout, scale,
channels and values checked (a clear refusal rather than a wrong picture), then given to the user's image
processor, or resized and normalised from the model config (a minimal offline preprocessing).
"""

from __future__ import annotations

import inspect

import numpy as np
import torch

# Normalisation the minimal preprocessing uses when no processor is given: the defaults of each family's
# own image processor (ViT: mean = std = 0.5; DeiT and DINOv2: ImageNet statistics).
_HALF = ((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))
_IMAGENET = ((0.485, 0.456, 0.406), (0.229, 0.224, 0.225))
NORMALISATION: dict[str, tuple[tuple[float, ...], tuple[float, ...]]] = {
    "vit": _HALF,
    "deit": _IMAGENET,
    "dinov2": _IMAGENET,
    "dinov2_with_registers": _IMAGENET,
}


def pair(value) -> tuple[int, int]:
    return (int(value[0]), int(value[1])) if isinstance(value, (tuple, list)) else (int(value), int(value))


# A float image may pass 0..1 by this much (rounding, resampling) and still be read as 0..1.
_ROUNDING = 1 / 255


def _model_channels(model) -> int:
    return int(getattr(model.config, "num_channels", 3))


def _takes(channels: int) -> set[int]:
    """Channel counts an image may have for a model of ``channels``: its own, and for RGB grayscale (repeated)
    and RGBA (alpha dropped)."""
    return {1, 3, 4} if channels == 3 else {channels}


def _given_pixels(image) -> torch.Tensor:
    """The user's array or tensor as a tensor of its own dtype and shape; refused when it holds no pixel values
    (not numbers, complex, boolean)."""
    if isinstance(image, np.ndarray):
        kind = image.dtype.kind
        if kind == "c":
            raise TypeError(_complex_message(image.dtype))
        if kind not in "biuf":
            raise TypeError(
                f"The image's values are {image.dtype}, not numbers: pass uint8 pixels (0..255) or float ones (0..1)."
            )
        # Native byte order, and wide unsigned integers as int64 (torch computes little on uint16..uint64).
        wanted = np.dtype(np.int64) if kind == "u" and image.dtype.itemsize > 1 else image.dtype.newbyteorder("=")
        image = torch.from_numpy(image.astype(wanted, copy=True))
    if not isinstance(image, torch.Tensor):
        raise TypeError(
            f"image must be a PIL image or an array (H, W, C) or (C, H, W); got {type(image).__name__}. "
            "For text, pass a string."
        )
    if image.is_complex():
        raise TypeError(_complex_message(image.dtype))
    if image.dtype == torch.bool:
        raise TypeError("The image is boolean: pass uint8 pixels (0..255) or float ones (0..1), e.g. mask * 255.")
    return image.detach()


def _complex_message(dtype) -> str:
    return (
        f"The image is complex ({dtype}): pass real pixel values, uint8 (0..255) or float (0..1), e.g. its "
        "magnitude abs(image) if that is the picture."
    )


def _channels_first(model, image: torch.Tensor) -> torch.Tensor:
    """``(C, H, W)`` of the dtype given, with the model's channel count, from an image of shape (H, W), (H, W, C),
    (C, H, W) or (1, C, H, W); refused when empty, not finite, of a layout that reads either way, or of channels
    the model cannot take.

    Layout: a batch of one is (1, C, H, W), the model's own layout, when its second axis is a channel count the model
    takes (else (1, H, W, C) when its last is); three axes are (C, H, W) when only the first is such a count and
    (H, W, C) when only the last is; when both are, the shape is refused (an image 3 pixels high was read as
    channels first)."""
    shape = tuple(image.shape)
    if image.dim() == 4 and shape[0] != 1:
        raise ValueError(
            f"The image's shape {shape} is a batch of {shape[0]} images: pass one image at a time, e.g. images[0]."
        )
    if image.dim() not in (2, 3, 4):
        raise ValueError(
            f"The image's shape {shape} is not an image's: pass (H, W, C), (C, H, W), (H, W) or (1, C, H, W)."
        )
    if image.numel() == 0:
        raise ValueError(f"The image is empty (shape {shape}): pass an image with pixels.")
    if image.is_floating_point():
        bad = int((~torch.isfinite(image)).sum())
        if bad:
            raise ValueError(
                f"The image has {bad} NaN or infinite value{'s' if bad > 1 else ''} (of {image.numel()}): pass finite "
                "pixel values, e.g. np.nan_to_num(image)."
            )
    channels = _model_channels(model)
    name = type(model).__name__
    takes = _takes(channels)
    also = " (grayscale and RGBA images are converted)" if channels == 3 else ""
    if image.dim() == 2:
        image = image[None]
    else:
        if image.dim() == 4:
            image = image[0]
        first, last = int(image.shape[0]), int(image.shape[-1])
        if len(shape) == 3 and first in takes and last in takes:
            raise ValueError(
                f"The image's shape {shape} can be read as (C, H, W) or as (H, W, C): pass it as (1, C, H, W), the "
                f"layout {name} takes (image[None] if its channels come first, image.transpose(2, 0, 1)[None] if "
                "they come last; permute for a torch tensor)."
            )
        if first not in takes and last in takes:
            image = image.permute(2, 0, 1)
        elif first not in takes:  # neither end: name the smaller, the likelier channel axis
            raise ValueError(
                f"The image has {min(first, last)} channels (shape {shape}) but {name} takes {channels}{also}: pass "
                f"an image of {channels} channels."
            )
    count = int(image.shape[0])
    if count == 4 and channels == 3:
        image = image[:3]  # alpha dropped
    elif count == 1 and channels == 3:
        image = image.expand(3, -1, -1)
    elif count != channels:
        raise ValueError(
            f"The image has {count} channels (shape {shape}) but {name} takes {channels}{also}: pass an image of "
            f"{channels} channels."
        )
    return image


def _check_scale(image: torch.Tensor, rescaled: bool) -> None:
    """Refuse pixel values off the scale they are read on: integers on 0..255; floats on 0..1 (``rescaled``
    False: attn_widget's own preprocessing) or 0..255 (``rescaled``: a processor that divides by 255)."""
    low, high = float(image.min()), float(image.max())
    if not image.is_floating_point():
        if low < 0 or high > 255:
            raise ValueError(
                f"The image is integer ({str(image.dtype).replace('torch.', '')}) with values from {low:g} to "
                f"{high:g}, but integer images are read as 0..255: scale it to 0..255 and pass it as uint8."
            )
    elif not rescaled and (low < -_ROUNDING or high > 1 + _ROUNDING):
        raise ValueError(
            f"The image is float with values from {low:.4g} to {high:.4g}, but float images are read as 0..1 (uint8 "
            "ones as 0..255): divide it by 255 if it is on 0..255 (or pass it as uint8), clip it to 0..1 if it only "
            "overshoots, or pass the model's image processor."
        )
    elif rescaled and (low < -255 * _ROUNDING or high > 255 * (1 + _ROUNDING)):
        raise ValueError(
            f"The image is float with values from {low:.4g} to {high:.4g}, but the processor reads images as 0..255 "
            "(do_rescale=True): scale it to 0..255, or to 0..1 and pass no processor."
        )
    elif rescaled and low >= 0 and high <= 1:
        raise ValueError(
            "The image is float with values in 0..1 but the processor reads images as 0..255 (do_rescale=True) and "
            "would divide them by 255 again: pass it as uint8 (0..255) or multiplied by 255, or no processor."
        )


def _is_pil(image) -> bool:
    return hasattr(image, "convert") and hasattr(image, "size") and not isinstance(image, (np.ndarray, torch.Tensor))


def _as_chw(model, image) -> torch.Tensor:
    """PIL image, or array/tensor (H, W, C), (C, H, W), (H, W) or (1, C, H, W) → float32 (C, H, W) in [0, 1] with
    the model's channel count (``_channels_first``); uint8 is read as 0..255, float as 0..1."""
    if _is_pil(image):
        _check_pil(image)
        image = torch.from_numpy(np.array(image.convert("RGB"))).permute(2, 0, 1)[None]  # (H, W, C): no guess
    chw = _channels_first(model, _given_pixels(image))
    _check_scale(chw, rescaled=False)
    integer = not chw.is_floating_point()
    chw = chw.to(torch.float32)
    return chw / 255.0 if integer else chw


def _check_pil(image) -> None:
    if image.size[0] * image.size[1] == 0:
        raise ValueError(f"The image is empty ({image.size[0]}×{image.size[1]} pixels): pass an image with pixels.")


def _for_processor(model, image, processor):
    """``image`` as the processor should get it: checked as without a processor and handed over as (C, H, W) of
    the model's channels (a PIL image as a uint8 array, an array or tensor in its own type and dtype), so that the
    processor's own layout guess cannot misread it: transformers 5.0 reads a PIL image 3 pixels high, once an
    (H, W, 3) array, as channels first."""
    if _is_pil(image):
        _check_pil(image)
        image = np.array(image.convert("RGB")).transpose(2, 0, 1)[None]  # (1, C, H, W): no guess
    chw = _channels_first(model, _given_pixels(image))
    rescale = getattr(processor, "do_rescale", None)
    if rescale is not None:
        _check_scale(chw, rescaled=bool(rescale))
    chw = chw.contiguous()
    return chw.numpy() if isinstance(image, np.ndarray) else chw


def _channels_first_told(processor) -> dict:
    """``input_data_format="channels_first"`` where the processor takes it (transformers' image processors do),
    so that it does not guess the layout of the (C, H, W) it is given; nothing for one that does not."""
    preprocess = getattr(processor, "preprocess", None)
    try:
        taken = preprocess is not None and "input_data_format" in inspect.signature(preprocess).parameters
    except (TypeError, ValueError):  # no signature to read
        taken = False
    return {"input_data_format": "channels_first"} if taken else {}


def pixel_values(model, image, processor=None) -> torch.Tensor:
    """``(1, C, H, W)`` float32 model input from ``image``.

    With ``processor`` (an ``AutoImageProcessor``) its output is used as is; an array or tensor is checked first
    and given to it as ``(C, H, W)`` (``_for_processor``). Otherwise: integer images are read as 0..255 and float
    ones as 0..1 (values off that scale are refused), resized bilinearly to the config's ``image_size`` and
    normalised with the family's default processor statistics (``NORMALISATION``; mean = std = 0.5 for unknown
    types).
    """
    if processor is not None:
        given = _for_processor(model, image, processor)
        return processor(images=given, return_tensors="pt", **_channels_first_told(processor))["pixel_values"].float()
    config = model.config
    chw = _as_chw(model, image)
    channels = chw.shape[0]
    size = pair(getattr(config, "image_size", chw.shape[-2:]))
    resized = torch.nn.functional.interpolate(chw[None], size=size, mode="bilinear", align_corners=False)
    mean, std = normalisation(model)
    mean_t = torch.tensor(mean[:channels] if channels <= 3 else [mean[0]] * channels).view(1, -1, 1, 1)
    std_t = torch.tensor(std[:channels] if channels <= 3 else [std[0]] * channels).view(1, -1, 1, 1)
    return (resized - mean_t) / std_t


def normalisation(model) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """``(mean, std)`` per channel of the minimal preprocessing for ``model``'s family (mean = std = 0.5 when
    unknown)."""
    return NORMALISATION.get(str(getattr(model.config, "model_type", "")), _HALF)
