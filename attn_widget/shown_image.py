"""The image an image analysis was made of, as the widget's ``image`` fact (drawn beside the graph).

The picture is the model's own input, ``pixel_values`` ``(1, C, H, W)``, with the normalisation undone, not
the user's image: a processor may crop (DeiT's and DINOv2's centre-crop 224 of 256), so only the model's
input lines up with the patch grid. It is cut to the part the patches cover (``rows·p × cols·p``: a
convolution of stride p drops the remainder) and, when its long side exceeds ``MAX_SIDE``, shrunk by area
averaging, so that the patch grid divides the picture evenly and the fact stays small (≤ 196 KB).
"""

from __future__ import annotations

import torch

from .capture import Capture

MAX_SIDE = 256


def image_fact(record: Capture) -> dict:
    """``{}`` for text; for an image ``{"rgb": bytes (h·w·3, uint8, row-major RGB), "size": [h, w],
    "grid": [rows, cols], "prefix": tokens before the patches}``."""
    if record.grid is None or record.model_inputs is None or "pixel_values" not in record.model_inputs:
        return {}
    rows, cols = record.grid
    pixels = record.model_inputs["pixel_values"][0]
    patch = record.patch_size or (pixels.shape[-2] // rows, pixels.shape[-1] // cols)
    rgb = shown_pixels(pixels[:, : rows * patch[0], : cols * patch[1]], record.pixel_stats)
    return {
        "rgb": rgb.numpy().tobytes(),
        "size": [int(rgb.shape[0]), int(rgb.shape[1])],
        "grid": [int(rows), int(cols)],
        "prefix": int(record.n_tokens - rows * cols),
    }


def shown_pixels(pixels: torch.Tensor, stats=None) -> torch.Tensor:
    """``(C, H, W)`` model input (cut to the patches) → ``(h, w, 3)`` uint8: normalisation undone, shrunk.

    stats: ``(mean, std)`` per channel that normalised the input (``x = (v - mean) / std``, v in [0, 1]);
    None (a processor that does not say) stretches the input's own range to [0, 1] instead, all
    channels together, which keeps the picture's hues but not its brightness.
    """
    x = pixels.detach().to(torch.float64)
    channels = x.shape[0]
    if stats is not None:
        mean, std = (torch.tensor(s, dtype=torch.float64)[:channels].view(-1, 1, 1) for s in stats)
        x = x * std + mean
    if stats is None or x.min() < -0.5 or x.max() > 1.5:  # not in [0, 1]: the stats did not fit the input
        low, high = x.min(), x.max()
        x = (x - low) / (high - low) if high > low else torch.zeros_like(x)
    x = x[:3] if channels >= 3 else x[:1].expand(3, -1, -1)
    long_side = max(x.shape[1:])
    if long_side > MAX_SIDE:
        size = [max(1, round(side * MAX_SIDE / long_side)) for side in x.shape[1:]]
        x = torch.nn.functional.interpolate(x[None], size=size, mode="area")[0]
    return (x.clamp(0, 1) * 255).round().to(torch.uint8).permute(1, 2, 0).contiguous()


def processor_stats(processor) -> tuple[tuple[float, ...], tuple[float, ...]] | None:
    """``(mean, std)`` an image processor normalises with (identity when it does not normalise), or None."""
    if getattr(processor, "do_normalize", True) is False:
        return (0.0, 0.0, 0.0), (1.0, 1.0, 1.0)
    mean, std = getattr(processor, "image_mean", None), getattr(processor, "image_std", None)
    if mean is None or std is None or getattr(processor, "do_rescale", True) is False:
        return None  # unknown, or not scaled to [0, 1] first

    def per_channel(value) -> tuple[float, ...]:
        return tuple(float(v) for v in value) if isinstance(value, (list, tuple)) else (float(value),) * 3

    return per_channel(mean), per_channel(std)
