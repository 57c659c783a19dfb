"""Images through vision transformers with global attention (ViT, DeiT, DINOv2 with or without registers).

image → ``pixel_values`` (the user's ``AutoImageProcessor``, or a minimal offline resize and
normalisation from the model config) → the same verified capture as text (``capture.capture_encoded``).
Tokens are the prefix tokens ("[CLS]", "[DIST]", "[REG0]", ...) and then the patches, row by row,
labelled "(row,col)"; ``Capture.grid`` is ``(rows, cols)``.

Also here: the vit-explain style rollout (head fusion, discarding the smallest entries), implemented
as defined rather than as vit-explain's code does it (docstring of ``vision_rollout``).
"""

from __future__ import annotations

import numpy as np
import torch

from .capture import Capture, capture_encoded
from .errors import UnsupportedModelError
from .inputs import Encoded
from .shown_image import processor_stats

# model_type -> names of the tokens before the patches (registers are numbered after these).
PREFIX: dict[str, tuple[str, ...]] = {
    "vit": ("[CLS]",),
    "deit": ("[CLS]", "[DIST]"),
    "dinov2": ("[CLS]",),
    "dinov2_with_registers": ("[CLS]",),
}
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
FUSIONS = ("mean", "max", "min")


def is_vision_model(model) -> bool:
    return getattr(model, "main_input_name", "input_ids") == "pixel_values"


def _pair(value) -> tuple[int, int]:
    return (int(value[0]), int(value[1])) if isinstance(value, (tuple, list)) else (int(value), int(value))


def _as_chw(image) -> torch.Tensor:
    """PIL image, or array/tensor (H, W, C), (C, H, W) or (H, W) → float32 (C, H, W) in [0, 1] or as given."""
    if hasattr(image, "convert") and hasattr(image, "size") and not isinstance(image, (np.ndarray, torch.Tensor)):
        image = np.asarray(image.convert("RGB"))
    if isinstance(image, np.ndarray):
        image = torch.from_numpy(np.array(image, copy=True))
    if not isinstance(image, torch.Tensor):
        raise TypeError(
            f"image must be a PIL image or an array (H, W, C) or (C, H, W); got {type(image).__name__}. "
            "For text, pass a string."
        )
    if image.dim() == 4 and image.shape[0] == 1:
        image = image[0]
    if image.dim() == 2:
        image = image.unsqueeze(0)
    if image.dim() != 3:
        raise ValueError(f"image must have shape (H, W, C) or (C, H, W); got {tuple(image.shape)}.")
    if image.shape[-1] in (1, 3, 4) and image.shape[0] not in (1, 3, 4):
        image = image.permute(2, 0, 1)
    integer = not image.is_floating_point()
    image = image.to(torch.float32)
    return image / 255.0 if integer else image


def pixel_values(model, image, processor=None) -> torch.Tensor:
    """``(1, C, H, W)`` float32 model input from ``image``.

    With ``processor`` (an ``AutoImageProcessor``) its output is used as is. Otherwise: integer images are
    scaled to [0, 1], resized bilinearly to the config's ``image_size`` and normalised with the family's
    default processor statistics (``NORMALISATION``; mean = std = 0.5 for unknown types).
    """
    if processor is not None:
        return processor(images=image, return_tensors="pt")["pixel_values"].float()
    config = model.config
    chw = _as_chw(image)
    channels = int(getattr(config, "num_channels", 3))
    if chw.shape[0] == 4 and channels == 3:
        chw = chw[:3]  # alpha dropped
    if chw.shape[0] == 1 and channels == 3:
        chw = chw.expand(3, -1, -1)
    if chw.shape[0] != channels:
        raise ValueError(f"The image has {chw.shape[0]} channels but the model takes {channels}.")
    size = _pair(getattr(config, "image_size", chw.shape[-2:]))
    resized = torch.nn.functional.interpolate(chw[None], size=size, mode="bilinear", align_corners=False)
    mean, std = NORMALISATION.get(str(getattr(config, "model_type", "")), _HALF)
    mean_t = torch.tensor(mean[:channels] if channels <= 3 else [mean[0]] * channels).view(1, -1, 1, 1)
    std_t = torch.tensor(std[:channels] if channels <= 3 else [std[0]] * channels).view(1, -1, 1, 1)
    return (resized - mean_t) / std_t


def _patch(model) -> tuple[int, int]:
    return _pair(getattr(model.config, "patch_size", 16))


def _grid(model, pixels: torch.Tensor) -> tuple[int, int]:
    patch = _patch(model)
    return pixels.shape[-2] // patch[0], pixels.shape[-1] // patch[1]


def _stats(model, processor) -> tuple | None:
    """``(mean, std)`` that normalised the input: the processor's, else the minimal preprocessing's."""
    if processor is not None:
        return processor_stats(processor)
    return NORMALISATION.get(str(getattr(model.config, "model_type", "")), _HALF)


def prefix_tokens(model_type: str, count: int) -> list[str]:
    """Names of the ``count`` tokens before the patches: the family's own, then registers."""
    named = list(PREFIX.get(model_type, ("[CLS]",)))[:count]
    return named + [f"[REG{i}]" for i in range(count - len(named))]


# Families whose position embeddings fit their config's image size only (transformers interpolates them only
# when asked to); DINOv2 interpolates them for any size.
FIXED_SIZE = frozenset({"vit", "deit"})


def _check_input(model, pixels: torch.Tensor) -> None:
    """Refuse, before the model runs, pixels it would refuse from inside: other channels, or another size for a
    family that takes its config's size only (a processor of another model)."""
    config, name = model.config, type(model).__name__
    channels = int(getattr(config, "num_channels", pixels.shape[1]))
    if pixels.shape[1] != channels:
        raise ValueError(f"The processor gave images of {pixels.shape[1]} channels but {name} takes {channels}.")
    size = _pair(getattr(config, "image_size", pixels.shape[-2:]))
    if getattr(config, "model_type", "") in FIXED_SIZE and tuple(pixels.shape[-2:]) != size:
        raise ValueError(
            f"The processor gave {pixels.shape[-2]}×{pixels.shape[-1]} pixel images but {name} takes {size[0]}×"
            f"{size[1]} (config.image_size): pass this model's own image processor, or none (attn_widget then "
            "resizes the image to that size)."
        )


def capture_image(model, image, processor=None) -> Capture:
    """Run ``model`` once on ``image``; the capture of ``capture.capture`` with image tokens and a grid."""
    pixels = pixel_values(model, image, processor)
    _check_input(model, pixels)
    rows, cols = _grid(model, pixels)
    parameter = next(model.parameters())
    # Tokens are named once the capture says how many there are (prefix + patches).
    empty = torch.zeros(0, dtype=torch.long)
    encoded = Encoded({"pixel_values": pixels.to(parameter.device, parameter.dtype)}, empty, [], empty.bool())
    record = capture_encoded(model, encoded)
    n = record.n_tokens
    prefix = n - rows * cols
    if prefix < 0:
        raise UnsupportedModelError(
            f"{type(model).__name__} returned attention over {n} tokens, fewer than its {rows}×{cols} patches: "
            "attn_widget cannot tell which token is which patch."
        )
    record.tokens = prefix_tokens(record.model_type, prefix) + [f"({r},{c})" for r in range(rows) for c in range(cols)]
    record.token_ids = torch.arange(n)
    record.special = torch.arange(n) < prefix
    record.grid = (rows, cols)
    record.patch_size = _patch(model)
    record.pixel_stats = _stats(model, processor)  # the widget draws the input as the model saw it
    return record


def fuse_heads(attentions: torch.Tensor, head_fusion: str) -> torch.Tensor:
    """``(L, H, n, n)`` → ``(L, n, n)`` by the head mean, max or min."""
    if head_fusion == "mean":
        return attentions.mean(dim=1)
    if head_fusion == "max":
        return attentions.amax(dim=1)
    if head_fusion == "min":
        return attentions.amin(dim=1)
    raise ValueError(f"head_fusion must be one of {FUSIONS}; got {head_fusion!r}.")


def vision_rollout(
    attentions: torch.Tensor, head_fusion: str = "mean", discard_ratio: float = 0.0, protected_row: int = 0
) -> torch.Tensor:
    """``(L, n, n)`` float64 rollout with vit-explain's options (Abnar & Zuidema 2020; jacobgil/vit-explain).

    Per layer: fuse the heads (``head_fusion``); set to zero the ``floor(discard_ratio · n²)`` smallest entries
    of the fused matrix, never an entry of row ``protected_row`` (the CLS row: what the class token reads
    stays whole); ``Â = (A + I) / 2`` with each row divided by its own sum; ``R_l = Â_l R_{l-1}``.

    vit-explain's code differs in two places: it protects only the flattened entry 0 (CLS attending to
    itself), not the CLS row, and it divides ``a / a.sum(dim=-1)``, which broadcasts the row sums along
    the last axis and so divides column j by the sum of row j (rows then do not sum to 1).
    """
    if not 0.0 <= discard_ratio < 1.0:
        raise ValueError(f"discard_ratio must be in [0, 1); got {discard_ratio}.")
    fused = fuse_heads(attentions.to(torch.float64), head_fusion).clone()
    n_layers, n = fused.shape[0], fused.shape[-1]
    count = int(n * n * discard_ratio)
    eye = torch.eye(n, dtype=torch.float64)
    result = eye
    out = []
    for layer in range(n_layers):
        a = fused[layer]
        if count:
            ranked = a.clone()
            ranked[protected_row] = float("inf")  # never among the smallest
            smallest = ranked.flatten().topk(min(count, n * n - n), largest=False).indices
            a = a.flatten().index_fill(0, smallest, 0.0).view(n, n)
        a = (a + eye) / 2
        a = a / a.sum(dim=-1, keepdim=True)
        result = a @ result
        out.append(result)
    return torch.stack(out)


def patch_map(matrices: torch.Tensor, grid: tuple[int, int], layer: int | None = None, row: int = 0) -> torch.Tensor:
    """``(rows, cols)``: row ``row`` (the CLS token) of layer ``layer`` (1..L, default the last) over the patches."""
    n_layers = matrices.shape[0]
    layer = n_layers if layer is None else layer
    if not 1 <= layer <= n_layers:
        raise ValueError(f"layer must be in 1..{n_layers}; got {layer}.")
    rows, cols = grid
    return matrices[layer - 1, row, -rows * cols :].reshape(rows, cols)
