"""Gradients of image classifiers towards a class logit (docs/methods.md §6.9).

The input is the image: gradients are taken w.r.t. ``pixel_values`` and gathered per patch, so a
patch token's "embedding" is its ``C·p·p`` pixels (row-major patches, the token order of
``vision.capture_image``) and the text methods apply unchanged: saliency = ‖∂y/∂x‖₂ over the
patch's pixels, gradient × input = Σ x ∂y/∂x over them, integrated gradients from a baseline image
summed over them. Prefix tokens ([CLS], [DIST], registers) are learned constants, not inputs: their
rows are zero, so every input-gradient score is exactly 0 there. Attention gradients (attention ×
gradient, Chefer's gradient rollout) come from the same backward pass as for text.
"""

from __future__ import annotations

import torch

from . import targets
from .capture import Capture
from .gradients import _BATCH, Gradients, PathIntegration
from .image_input import pair
from .model_state import borrowed_for_capture
from .targets import Context, Target


def unavailable(model) -> str:
    """ "" when ``model`` has a classification head to explain, else one sentence saying why not."""
    if model is None:
        return "Gradient methods re-run the model; build the analysis with analyze(model, image)."
    if "ImageClassification" not in type(model).__name__:
        return (
            f"Gradient methods for images explain a class logit, and {type(model).__name__} has no classification "
            "head: load the model with one (e.g. ViTForImageClassification); attention methods work as they are."
        )
    return ""


class VisionGradientRunner(PathIntegration):
    """Gradient work on one image (``record`` from ``vision.capture_image``); the interface of ``GradientRunner``."""

    baseline_choices = "or pass another baseline image"

    def __init__(self, model, record: Capture):
        assert record.grid is not None and record.model_inputs is not None
        self.model, self.record = model, record
        self.tokenizer = None
        self.device = next(model.parameters()).device
        self.as_float = record.heads.dtype
        self.pixels = record.model_inputs["pixel_values"].to(self.device, next(model.parameters()).dtype)
        self.patch = pair(getattr(model.config, "patch_size", 16))
        self._context: Context | None = None

    def resolve(self, target) -> Target:
        """None: the predicted class; an int or a label name (``config.id2label``): that class's logit;
        or a spec from ``attn_widget.targets`` (``class_logit``, ``function``, ...)."""
        if isinstance(target, Target):
            return target
        if (isinstance(target, int) and not isinstance(target, bool)) or isinstance(target, str):
            target = targets.class_logit(target)
        spec = targets.as_spec(target)
        with borrowed_for_capture(self.model, "resolving a target", eager=self.record.eager):
            return spec.resolve(self._plain_context())

    def _plain_context(self) -> Context:
        if self._context is None:
            with borrowed_for_capture(self.model, "a forward pass", eager=self.record.eager), torch.no_grad():
                outputs = self.model(pixel_values=self.pixels)
            self._context = Context(self.model, None, self.record.token_ids, False, outputs)
        return self._context

    def to_tokens(self, pixels: torch.Tensor) -> torch.Tensor:
        """``(b, C, H, W) → (b, n, C·p·p)``: each patch's pixels on its token's row, zeros on prefix rows.
        Pixels past the last whole patch (when H or W is not a multiple of p) are left out."""
        rows, cols = self.record.grid or (0, 0)
        b, c = pixels.shape[:2]
        ph, pw = self.patch
        patches = pixels[:, :, : rows * ph, : cols * pw].reshape(b, c, rows, ph, cols, pw)
        patches = patches.permute(0, 2, 4, 1, 3, 5).reshape(b, rows * cols, c * ph * pw)
        prefix = self.record.n_tokens - rows * cols
        return torch.cat([patches.new_zeros(b, prefix, patches.shape[-1]), patches], dim=1)

    def gradients(self, target: Target) -> Gradients:
        """y, ∂y/∂pixels per patch token and ∂y/∂A for every layer, from one backward pass."""
        pixels = self.pixels.clone().requires_grad_(True)
        with borrowed_for_capture(self.model, "gradients"), torch.enable_grad():
            outputs = self.model(pixel_values=pixels, output_attentions=True)
            attentions = list(outputs.attentions)
            y = target.score(outputs).sum()
            grads = torch.autograd.grad(y, [pixels, *attentions], allow_unused=True)
        attention_grad = [torch.zeros_like(a) if g is None else g for a, g in zip(attentions, grads[1:], strict=True)]
        as_float = self.as_float
        pixel_grad = torch.zeros_like(pixels) if grads[0] is None else grads[0]
        return Gradients(
            value=float(y.detach()),
            embeds=self.to_tokens(pixels.detach())[0].to("cpu", as_float),
            embed_grad=self.to_tokens(pixel_grad)[0].to("cpu", as_float),
            attentions=torch.stack([a.detach()[0] for a in attentions]).to("cpu", as_float),
            attention_grad=torch.stack([g[0] for g in attention_grad]).to("cpu", as_float),
        )

    def baseline(self, kind="auto") -> tuple[torch.Tensor, str]:
        """The IG baseline image ``(1, C, H, W)``: "auto" or "zero" (default): the zero model input, i.e.
        the normalisation's mean colour everywhere (grey for ViT's 0.5/0.5); or a tensor of the input's shape."""
        if isinstance(kind, torch.Tensor):
            if kind.shape != self.pixels.shape:
                raise ValueError(
                    f"A baseline image must have the input's shape {tuple(self.pixels.shape)}; got {tuple(kind.shape)}."
                )
            return kind.to(self.pixels.device, self.pixels.dtype), "given image"
        if kind not in ("auto", "zero"):
            raise ValueError(f'An image baseline must be "auto", "zero" or a tensor of the input shape; got {kind!r}.')
        return torch.zeros_like(self.pixels), "zero input (the normalisation's mean colour)"

    # Integrated gradients (PathIntegration): on the pixels, summed per patch token.
    def _on(self, model) -> VisionGradientRunner:
        return VisionGradientRunner(model, self.record)

    def _path(self, baseline) -> tuple[list[torch.Tensor], list[torch.Tensor], str]:
        base, described = self.baseline(baseline)
        return [self.pixels.to(base.dtype)], [base], described

    def _run(self, points: list[torch.Tensor]):
        return self.model(pixel_values=points[0])

    def _returned(self, attributions: torch.Tensor) -> torch.Tensor:
        """``(n, C·p·p)``: each patch token's pixels' scores, zeros on prefix rows."""
        return self.to_tokens(attributions)[0].to("cpu", self.as_float)

    def blank_out(self, target: Target) -> torch.Tensor:
        """``(n,)``: |y − y¬j| when patch j's pixels are set to the zero baseline; prefix tokens 0."""
        n = self.record.n_tokens
        rows, cols = self.record.grid or (0, 0)
        prefix = n - rows * cols
        ph, pw = self.patch
        out = torch.zeros(n, dtype=torch.float64)
        for start in range(0, rows * cols, _BATCH):
            patches = range(start, min(rows * cols, start + _BATCH))
            blanked = self.pixels.repeat(len(patches) + 1, 1, 1, 1)  # row 0 as it is: y from the same call
            for i, j in enumerate(patches, start=1):
                r, c = divmod(j, cols)
                blanked[i, :, r * ph : (r + 1) * ph, c * pw : (c + 1) * pw] = 0.0
            with borrowed_for_capture(self.model, "blank-out"), torch.no_grad():
                values = target.score(self.model(pixel_values=blanked)).double().cpu()
            out[prefix + start : prefix + start + len(patches)] = (values[0] - values[1:]).abs()
        return out
