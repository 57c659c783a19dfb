"""``Analysis``: the one API that the widget, exports and plots use.

Each method is computed on first use and cached; the capture is never modified.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable

import torch

from . import methods
from .capture import Capture, capture
from .methods.flow import FlowSolver, layer_numbers
from .methods.heads import HeadChoice
from .progress import ProgressArg, progress_reporter

RECEPTIVE_FIELD = ("auto", "none", "rf-b", "rf-d")


class Analysis:
    """Attention-flow quantities of one text through one model.

    Layer ``l`` of every ``(L, n, n)`` result is index ``l - 1`` (layer 0 is the input).
    """

    def __init__(self, record: Capture):
        self.capture = record
        self._cache: dict[Hashable, torch.Tensor] = {}
        # Unnormalised max flows per layer, kept as each layer completes, so that an
        # interrupted computation keeps the finished layers and nothing half-done.
        self._flow_layers: dict[tuple[str, float], dict[int, torch.Tensor]] = {}

    # Facts about the input -------------------------------------------------
    @property
    def tokens(self) -> list[str]:
        """Display text of each of the n tokens."""
        return list(self.capture.tokens)

    @property
    def attentions(self) -> torch.Tensor:
        """``(L, H, n, n)`` attention probabilities, row = query, column = key."""
        return self.capture.attentions

    @property
    def causal(self) -> bool:
        return self.capture.causal

    @property
    def n_layers(self) -> int:
        return self.capture.n_layers

    @property
    def n_heads(self) -> int:
        return self.capture.n_heads

    # Methods -----------------------------------------------------------------
    def raw(self, head: HeadChoice = None) -> torch.Tensor:
        """``(L, n, n)`` raw attention of one head, or the head mean (default) or max."""
        key = ("raw", "mean" if head is None else head)
        return self._cached(key, lambda: methods.aggregate_heads(self.attentions, head))

    def rollout(self, residual: float = 0.5, receptive_field: str = "auto") -> torch.Tensor:
        """``(L, n, n)`` float64 rollout to every layer (methods.md section 2).

        receptive_field: ``"auto"`` (RF-B for decoders, none for encoders), ``"none"``,
        ``"rf-b"`` (ratio to content-free rollout, rows re-normalised) or ``"rf-d"``
        (signed difference), methods.md section 4.
        """
        variant = self._variant(receptive_field)
        plain = self._cached(("rollout", float(residual)), lambda: methods.rollout(self.raw(), residual))
        if variant == "none":
            return plain
        baseline = self._cached(
            ("rollout-baseline", float(residual)), lambda: methods.rollout(self.null_attention(), residual)
        )
        return self._cached(("rollout", float(residual), variant), lambda: _normalise(variant, plain, baseline))

    def flow(
        self,
        residual: float = 0.5,
        layers: Iterable[int] | None = None,
        receptive_field: str = "auto",
        progress: ProgressArg = True,
    ) -> torch.Tensor:
        """Attention flow (methods.md section 3), ``(len(layers), n, n)``; all layers by default.

        layers: layer numbers 1..L. receptive_field: as for ``rollout``; for flow the
        baseline is the flow of the content-free attention with the same masks.
        progress: ``True`` for a progress bar, ``False`` for none, or a callable
        ``(done, total)``. Finished layers are cached, also when interrupted.
        """
        variant = self._variant(receptive_field)
        wanted = layer_numbers(layers, self.n_layers)
        report = progress_reporter(progress, "attention flow")
        needs_baseline = variant != "none"
        total = len(wanted) * (2 if needs_baseline else 1)
        done = 0
        with report:
            raw = self._flow_raw("attention", residual, wanted, report, done, total)
            done += len(wanted)
            plain = methods.row_normalize(raw)
            if not needs_baseline:
                return plain
            baseline = self._flow_raw("baseline", residual, wanted, report, done, total)
            return _normalise(variant, plain, methods.row_normalize(baseline))

    def null_attention(self) -> torch.Tensor:
        """``(L, n, n)`` content-free attention with this input's masks (section 4.3)."""
        return self._cached(("null",), lambda: methods.null_attention(self.capture.masks))

    def flow_layers_done(self, residual: float = 0.5, baseline: bool = False) -> list[int]:
        """Layer numbers whose flow is already computed (cheap to ask)."""
        return sorted(self._flow_layers.get(("baseline" if baseline else "attention", float(residual)), {}))

    def path_counts(self, threshold: float = 0.0, head: HeadChoice = None) -> torch.Tensor:
        """``(L, n, n)`` number of paths in the binarised graph ``A > threshold`` (methods.md 1.2)."""
        key = ("path_counts", float(threshold), "mean" if head is None else head)
        return self._cached(key, lambda: methods.path_counts(methods.binarize(self.raw(head), threshold)))

    # Internals -----------------------------------------------------------------
    def _variant(self, receptive_field: str) -> str:
        if receptive_field not in RECEPTIVE_FIELD:
            raise ValueError(f"receptive_field must be one of {RECEPTIVE_FIELD}; got {receptive_field!r}.")
        if receptive_field == "auto":
            return "rf-b" if self.causal else "none"
        return receptive_field

    def _flow_raw(self, which: str, residual: float, wanted: list[int], report, offset: int, total: int):
        """Unnormalised max flows ``(len(wanted), n, n)``, computing only missing layers."""
        done = self._flow_layers.setdefault((which, float(residual)), {})
        missing = [layer for layer in wanted if layer not in done]
        if missing:
            attention = self.raw() if which == "attention" else self.null_attention()
            solver = FlowSolver(methods.residual_augment(attention, residual))
            n = self.capture.n_tokens
            for index, layer in enumerate(missing):
                base = offset + wanted.index(layer)

                def rows(count: int, base: int = base) -> None:
                    report(base + count / n, total)

                done[layer] = torch.from_numpy(solver.layer(layer, rows))
                report(base + 1, total)
        return torch.stack([done[layer] for layer in wanted])

    def _cached(self, key: Hashable, compute: Callable[[], torch.Tensor]) -> torch.Tensor:
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    def __repr__(self) -> str:
        kind = "decoder" if self.causal else "encoder"
        return (
            f"<Analysis {self.capture.model_name!r} ({kind}): {self.capture.n_tokens} tokens, "
            f"{self.n_layers} layers, {self.n_heads} heads>"
        )


def _normalise(variant: str, values: torch.Tensor, baseline: torch.Tensor) -> torch.Tensor:
    if variant == "rf-b":
        return methods.baseline_ratio(values, baseline)
    return methods.baseline_difference(values, baseline)


def analyze(model, text: str, tokenizer=None) -> Analysis:
    """Run ``model`` on ``text`` once and return a lazily computed ``Analysis``.

    model: a PyTorch Hugging Face transformers model (left exactly as it was found).
    tokenizer: optional; loaded from the model's local path when omitted.
    """
    return Analysis(capture(model, text, tokenizer))
