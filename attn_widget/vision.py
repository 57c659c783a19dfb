"""Images through vision transformers with global attention (ViT, DeiT, DINOv2 with or without registers).

image → ``pixel_values`` (``image_input``: the user's ``AutoImageProcessor``, or a minimal offline resize
and normalisation from the model config) → the same verified capture as text (``capture.capture_encoded``).
Tokens are the prefix tokens ("[CLS]", "[DIST]", "[REG0]", ...) and then the patches, row by row,
labelled "(row,col)"; ``Capture.grid`` is ``(rows, cols)``.

Also here: the vit-explain style rollout (head fusion, discarding the smallest entries), implemented
as defined rather than as vit-explain's code does it (docstring of ``vision_rollout``).
"""

from __future__ import annotations

import torch

from .capture import Capture, capture_encoded
from .errors import UnsupportedModelError
from .image_input import normalisation, pair, pixel_values
from .inputs import Encoded
from .shown_image import processor_stats

# model_type -> names of the tokens before the patches (registers are numbered after these).
PREFIX: dict[str, tuple[str, ...]] = {
    "vit": ("[CLS]",),
    "deit": ("[CLS]", "[DIST]"),
    "dinov2": ("[CLS]",),
    "dinov2_with_registers": ("[CLS]",),
}
FUSIONS = ("mean", "max", "min")


def is_vision_model(model) -> bool:
    return getattr(model, "main_input_name", "input_ids") == "pixel_values"


def _patch(model) -> tuple[int, int]:
    return pair(getattr(model.config, "patch_size", 16))


def _grid(model, pixels: torch.Tensor) -> tuple[int, int]:
    patch = _patch(model)
    return pixels.shape[-2] // patch[0], pixels.shape[-1] // patch[1]


def _stats(model, processor) -> tuple | None:
    """``(mean, std)`` that normalised the input: the processor's, else the minimal preprocessing's."""
    if processor is not None:
        return processor_stats(processor)
    return normalisation(model)


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
    size = pair(getattr(config, "image_size", pixels.shape[-2:]))
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
