"""Targets, gradients, integrated gradients and the per-token scores built on them."""

from __future__ import annotations

import torch

from .. import methods, vision_gradients
from ..errors import UnsupportedModelError
from ..gradients import GradientRunner, Gradients, IntegratedGradients
from ..methods import registry
from ..progress import ProgressArg, progress_reporter
from ..targets import Target
from ..vision_gradients import VisionGradientRunner
from . import hidden_attribution
from .base import Part


class GradientPart(Part):
    """Quantities that run the model again (it must be known: ``analyze(model, text)``)."""

    def __init__(self, analysis):
        super().__init__(analysis)
        self._runner: GradientRunner | VisionGradientRunner | None = None

    def unavailable(self) -> str:
        """ "" when gradients can be taken here, else one sentence saying why not."""
        if self.capture.grid is not None:
            return vision_gradients.unavailable(self.analysis.model)
        return ""

    def runner(self) -> GradientRunner | VisionGradientRunner:
        if self.analysis.model is None:
            raise ValueError("This Analysis has no model to take gradients of; build it with analyze(model, text).")
        reason = self.unavailable()
        if reason:
            raise UnsupportedModelError(reason)
        if self._runner is None:
            if self.capture.grid is not None:
                self._runner = VisionGradientRunner(self.analysis.model, self.capture)
            else:
                self._runner = GradientRunner(self.analysis.model, self.analysis.tokenizer, self.capture)
        return self._runner

    def target(self, target=None) -> Target:
        return self.runner().resolve(target)

    def gradients(self, target=None) -> Gradients:
        resolved = self.target(target)
        return self.cached(("gradients", resolved.key), lambda: self.runner().gradients(resolved))

    def integrated_gradients(
        self, target, steps: int, progress: ProgressArg, baseline: str, max_steps: int
    ) -> IntegratedGradients:
        resolved = self.target(target)
        key = ("integrated_gradients", resolved.key, steps, baseline, max_steps)
        if key not in self.cache:
            with progress_reporter(progress, "integrated gradients") as report:
                self.cache[key] = self.runner().integrated_gradients(
                    resolved, steps=steps, max_steps=max_steps, baseline=baseline, progress=report
                )
        return self.cache[key]

    def blank_out(self, target=None) -> torch.Tensor:
        """``(n,)``: |y − y¬j| with token j masked."""
        resolved = self.target(target)
        return self.cached(("blank_out", resolved.key), lambda: self.runner().blank_out(resolved))

    def attention_gradient(self, target=None, mode: str = "signed") -> torch.Tensor:
        g = self.gradients(target)
        return methods.attention_gradient(g.attentions, g.attention_grad, mode)

    def gradient_rollout(self, target=None) -> torch.Tensor:
        g = self.gradients(target)
        return methods.gradient_rollout(g.attentions, g.attention_grad)

    def attribution(self, method: str, target=None, **options) -> torch.Tensor:
        """``(n,)`` scores of the registered attribution method ``method``."""
        ids = tuple(entry.id for entry in registry.attribution_methods())
        if method not in ids:
            raise ValueError(f"method must be one of {ids}; got {method!r}.")
        return registry.attribution_method(method).compute(self.analysis, self.target(target), **options)

    def hidden_attribution(self, progress: ProgressArg = True) -> torch.Tensor:
        """``(L, n, n)`` Brunner et al.'s hidden-state attribution (``parts/hidden_attribution.py``)."""
        if "hidden_attribution" not in self.cache:
            record = self.capture
            with progress_reporter(progress, "hidden-state attribution") as report:
                self.cache["hidden_attribution"] = hidden_attribution.hidden_attribution_maps(
                    self.runner().model, self.analysis.tokenizer, record, report
                )
        return self.cache["hidden_attribution"]

    def hidden_attribution_unavailable(self) -> str:
        """ "" when hidden-state attribution can be computed here, else one sentence saying why not."""
        return hidden_attribution.unavailable(self.analysis)

    def input_coordinates(self) -> int:
        """n·d: the coordinates of the input embeddings (hidden-state attribution runs one tangent each)."""
        return hidden_attribution.input_coordinates(self.analysis)

    def hidden_attribution_done(self) -> list[int]:
        """Every layer number once computed (it is computed for all layers at once), else none."""
        return list(range(1, self.capture.n_layers + 1)) if "hidden_attribution" in self.cache else []
