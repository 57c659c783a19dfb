"""``Analysis``: the one API that the widget, exports and plots use.

Each quantity is computed on first use and cached by the part that owns it (``parts/``):
attention, effective attention, flow, gradients. The capture is never modified.
"""

from __future__ import annotations

from collections.abc import Iterable

import torch

from .capture import Capture
from .compare import correlations
from .gradients import GradientRunner, Gradients, IntegratedGradients
from .methods import registry
from .methods.heads import HeadChoice
from .methods.registry import row_at
from .parts.attention import AttentionPart
from .parts.base import RECEPTIVE_FIELD
from .parts.effective import EffectivePart
from .parts.flow import FlowPart
from .parts.gradients import GradientPart
from .parts.mixing import Mixing
from .progress import ProgressArg
from .targets import Target
from .vision_gradients import VisionGradientRunner

__all__ = ["RECEPTIVE_FIELD", "Analysis", "row_at"]


class Analysis:
    """Attention-flow quantities of one text through one model.

    Layer ``l`` of every ``(L, n, n)`` result is index ``l - 1`` (layer 0 is the input).
    """

    def __init__(self, record: Capture, model=None, tokenizer=None):
        self.capture = record
        self.model, self.tokenizer = model, tokenizer  # needed only by gradient methods
        self.attention_part = AttentionPart(self)
        self.effective_part = EffectivePart(self)
        self.flow_part = FlowPart(self)
        self.gradient_part = GradientPart(self)
        self.mixing_part = Mixing(self)

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
    def grid(self) -> tuple[int, int] | None:
        """Images: ``(rows, cols)`` of the patch tokens, which follow the prefix tokens; None for text."""
        return self.capture.grid

    @property
    def causal(self) -> bool:
        return self.capture.causal

    @property
    def n_layers(self) -> int:
        return self.capture.n_layers

    @property
    def n_heads(self) -> int:
        return self.capture.n_heads

    # Attention (parts/attention.py) ------------------------------------------
    def raw(self, head: HeadChoice = None) -> torch.Tensor:
        """``(L, n, n)`` raw attention of one head, or the head mean (default) or max."""
        return self.attention_part.raw(head)

    def rollout(self, residual: float = 0.5, receptive_field: str = "none") -> torch.Tensor:
        """``(L, n, n)`` float64 rollout to every layer (docs/methods.md §2): the widget's "Attention rollout"
        (method id ``rollout``).

        receptive_field (docs/methods.md §4): ``"none"`` (default: plain rollout, as Abnar & Zuidema),
        ``"rf-b"`` (receptive-field normalised: ratio to content-free rollout, rows re-normalised; the
        widget's "Rollout, receptive-field normalised", id ``rollout_rf``, recommended for decoders),
        ``"rf-d"`` (signed difference) or ``"auto"`` (RF-B for decoders, none for encoders).
        """
        return self.attention_part.rollout(residual, receptive_field)

    def vision_rollout(self, head_fusion: str = "mean", discard_ratio: float = 0.0) -> torch.Tensor:
        """``(L, n, n)`` float64 rollout with vit-explain's options (``attn_widget.vision.vision_rollout``):
        heads fused by "mean", "max" or "min"; the smallest ``discard_ratio`` of each layer's fused entries set
        to zero, never the CLS row's; then ``(A + I) / 2`` with rows normalised. Rows sum to 1."""
        from .vision import vision_rollout

        key = ("vision_rollout", head_fusion, float(discard_ratio))
        return self.attention_part.cached(key, lambda: vision_rollout(self.attentions, head_fusion, discard_ratio))

    def patch_map(self, method: str = "rollout", layer: int | None = None, **options) -> torch.Tensor:
        """Images: ``(rows, cols)``, the CLS row of ``method``'s matrix at ``layer`` (1..L, default the last)
        over the patch tokens. method: "rollout", "vision_rollout", "raw", "flow", "effective_rollout" or
        any other ``Analysis`` method returning ``(L, n, n)``; ``options`` go to it."""
        from .vision import patch_map

        if self.grid is None:
            raise ValueError("patch_map needs an image analysis (analyze(model, image)); this one is of a text.")
        if method.startswith("_") or not callable(getattr(self, method, None)) or method == "patch_map":
            raise ValueError(f"Unknown method {method!r}; e.g. 'rollout', 'vision_rollout', 'raw', 'flow'.")
        if method == "flow":
            options = {"layers": [layer or self.n_layers], "progress": False, **options}
            return patch_map(getattr(self, method)(**options), self.grid)
        return patch_map(getattr(self, method)(**options), self.grid, layer)

    def null_attention(self) -> torch.Tensor:
        """``(L, n, n)`` content-free attention with this input's masks (section 4.3)."""
        return self.attention_part.null_attention()

    def binarised(self, threshold: float = 0.0, head: HeadChoice = None) -> torch.Tensor:
        """``(L, n, n)`` float64 0/1 graph ``1[A > threshold]`` whose paths ``path_counts`` counts (§1.2)."""
        return self.attention_part.binarised(threshold, head)

    def path_counts(self, threshold: float = 0.0, head: HeadChoice = None) -> torch.Tensor:
        """``(L, n, n)`` number of paths in the binarised graph ``A > threshold`` (docs/methods.md §1.2)."""
        return self.attention_part.path_counts(threshold, head)

    # Flow (parts/flow.py) -----------------------------------------------------
    def flow(
        self,
        residual: float = 0.5,
        layers: Iterable[int] | None = None,
        receptive_field: str = "none",
        progress: ProgressArg = True,
    ) -> torch.Tensor:
        """Attention flow (docs/methods.md §3), ``(len(layers), n, n)``; all layers by default: the widget's
        "Attention flow" (method id ``flow``).

        layers: layer numbers 1..L. receptive_field: as for ``rollout`` (default ``"none"``, plain flow;
        ``"rf-b"`` is the widget's "Flow, receptive-field normalised", id ``flow_rf``); for flow the
        baseline is the flow of the content-free attention with the same masks.
        progress: ``True`` for a progress bar, ``False`` for none, or a callable
        ``(done, total)``. Finished layers are cached, also when interrupted.
        """
        return self.flow_part.flow("attention", residual, layers, receptive_field, progress)

    def flow_rows(
        self,
        position: int,
        residual: float = 0.5,
        receptive_field: str = "none",
        progress: ProgressArg = False,
        layers: Iterable[int] | None = None,
    ) -> torch.Tensor:
        """``(len(layers), n)``: row ``position`` (a token index) of the flow at the given layers (all by
        default), computing only that row: n max flows per layer instead of n², most settled by a greedy
        flow (docs/methods.md §3.3); what a pinned token and comparisons at one target position need.
        Exact, equal to ``flow(layers=layers, receptive_field=receptive_field)[:, position]``; each finished
        layer is kept. receptive_field, progress: as for ``flow`` (default ``"none"``, plain flow)."""
        return self.flow_part.rows(position, residual, receptive_field, progress, layers)

    def flow_layers_done(self, which: str = "attention", residual: float = 0.5) -> list[int]:
        """Layer numbers whose flow on ``which`` ("attention", "baseline", "effective-clip",
        "effective-abs") is already computed (cheap to ask)."""
        return self.flow_part.done(which, residual)

    # Effective attention (parts/effective.py) -----------------------------------
    def effective(self, sum_preserving: bool = False) -> torch.Tensor:
        """``(L, H, n, n)`` signed effective attention (docs/methods.md §5).

        Each row keeps only its component that changes the head's output ``A V W_O``. Rows
        that see no more keys than the head dimension are unchanged; when no row does,
        a warning says so. Needs value vectors: raises for model families without an adapter.
        """
        return self.effective_part.effective(sum_preserving)

    @property
    def effective_is_raw(self) -> bool:
        """No row sees more keys than the head dimension: effective attention equals raw attention."""
        return self.effective_part.is_raw

    def effective_removed(self) -> torch.Tensor:
        """``(L, H, n)``: per row, ``Σ_j |A - A_eff|``, the attention effective attention moved away."""
        return self.effective_part.removed()

    def effective_mixing(self, variant: str = "clip") -> torch.Tensor:
        """``(L, n, n)`` row-stochastic mixing from head-averaged effective attention (E1 "clip" or E3 "abs")."""
        return self.effective_part.mixing(variant)

    def effective_rollout(self, variant: str = "clip", residual: float = 0.5, receptive_field: str = "none"):
        """Rollout on effective attention (section 5.3): ``(L, n, n)``; receptive_field as for ``rollout``
        (default ``"none"``: the widget's "Effective rollout", id ``effective_rollout``).

        variant: "clip" (E1, default), "abs" (E3), or "signed" (E2: the sum-preserving
        variant, unclipped; entries may be negative, rows sum to 1, no normalisation).
        """
        return self.effective_part.rollout(variant, residual, receptive_field)

    def effective_flow(
        self,
        variant: str = "clip",
        residual: float = 0.5,
        layers: Iterable[int] | None = None,
        receptive_field: str = "none",
        progress: ProgressArg = True,
    ) -> torch.Tensor:
        """Attention flow with effective attention as capacities (E1 "clip" or E3 "abs"); receptive_field as
        for ``rollout`` (default ``"none"``)."""
        if variant not in ("clip", "abs"):
            raise ValueError(f'Flow needs non-negative capacities: variant must be "clip" or "abs"; got {variant!r}.')
        return self.flow_part.flow(f"effective-{variant}", residual, layers, receptive_field, progress)

    # Gradient-based attribution, docs/methods.md §6 (parts/gradients.py) -------
    @property
    def ATTRIBUTIONS(self) -> tuple[str, ...]:  # noqa: N802 - the name it always had
        """The registered attribution method ids, in menu order."""
        return tuple(entry.id for entry in registry.attribution_methods())

    def target(self, target=None) -> Target:
        """Resolve ``target`` (see ``attn_widget.targets``; None = the model's own prediction)."""
        return self.gradient_part.target(target)

    def gradients(self, target=None) -> Gradients:
        """One forward and backward pass: y, ∂y/∂(word embeddings) ``(n, d)``, ∂y/∂A ``(L, H, n, n)``."""
        return self.gradient_part.gradients(target)

    def integrated_gradients(
        self,
        target=None,
        steps: int = 50,
        progress: ProgressArg = True,
        baseline: str = "auto",
        max_steps: int = 800,
    ) -> IntegratedGradients:
        """Gauss–Legendre IG on the word embeddings; steps doubled until completeness error < 5%.

        baseline: "auto" (the [MASK], else [UNK], else pad embedding; see ``GradientRunner.baseline``),
        "mask", "unk", "pad" or "zero"; special tokens keep their embeddings. Half-precision models
        are integrated on a float32 copy. When ``max_steps`` is reached first, a RuntimeWarning
        says so and the result has ``converged=False`` (``completeness_error`` and ``steps`` say how far).
        """
        return self.gradient_part.integrated_gradients(target, steps, progress, baseline, max_steps)

    def attribution(self, method: str, target=None, **options) -> torch.Tensor:
        """Per-token scores ``(n,)`` for the target (docs/methods.md §6.2–6.4, §7.4, §7.8), from the registry.

        method: "saliency" (L2 of the gradient; ``norm=``), "grad_x_input" (signed sum;
        ``reduce=``), "integrated_gradients" (signed sum; ``steps=``, ``baseline=``, ``max_steps=``,
        ``progress=`` as for ``integrated_gradients``), "attention_gradient" (row t of the last
        layer's A ⊙ ∇A), "gradient_rollout" (Chefer: row t of R minus the identity), "blank_out"
        (|y − y¬j| with token j masked), or any method added with ``registry.register_attribution``.
        For causal models, tokens after the target position get exactly 0. For targets that pool
        every position (``targets.similarity``), the attention-gradient methods average all rows.
        """
        return self.gradient_part.attribution(method, target, **options)

    def blank_out(self, target=None) -> torch.Tensor:
        """``(n,)``: |y − y¬j| when token j is masked (docs/methods.md §7.4)."""
        return self.gradient_part.blank_out(target)

    def attention_gradient(self, target=None, mode: str = "signed") -> torch.Tensor:
        """``(L, n, n)`` attention × gradient per layer, head-averaged (docs/methods.md §6.3)."""
        return self.gradient_part.attention_gradient(target, mode)

    def gradient_rollout(self, target=None) -> torch.Tensor:
        """``(L, n, n)`` gradient-weighted rollout (Chefer et al. 2021), unnormalised (docs/methods.md §6.4)."""
        return self.gradient_part.gradient_rollout(target)

    def _runner(self) -> GradientRunner | VisionGradientRunner:
        return self.gradient_part.runner()

    # Comparison ---------------------------------------------------------------
    def compare(self, target=None, include_special: bool = True):
        """Spearman correlations between attention methods at every layer and the gradient and
        blank-out scores for ``target`` (docs/methods.md §8); a pandas DataFrame.
        See ``attn_widget.compare`` for averaging over texts and ``attn_widget.plots`` for a figure."""
        return correlations(self, target, include_special=include_special)

    def __repr__(self) -> str:
        kind = "decoder" if self.causal else "encoder"
        return (
            f"<Analysis {self.capture.model_name!r} ({kind}): {self.capture.n_tokens} tokens, "
            f"{self.n_layers} layers, {self.n_heads} heads>"
        )

    # Context mixing (parts/mixing.py) -------------------------------------------
    def mixing(self, name: str) -> torch.Tensor:
        """``(L, n, n)`` float64 per-layer context-mixing map (docs/methods.md §7): "norm", "norm_residual",
        "globenc", "alti", "value_zeroing"; rows sum to 1. Raises ``UnsupportedModelError`` with the reason
        when the model's structure does not support it (``mixing_unavailable(name)`` says so without raising)."""
        return self.mixing_part.map(name)

    def mixing_rollout(self, name: str) -> torch.Tensor:
        """``(L, n, n)`` float64 composition of ``mixing(name)`` through the layers."""
        return self.mixing_part.rollout(name)

    def mixing_unavailable(self, name: str) -> str:
        """ "" when the mixing method ``name`` works for this model, else one sentence saying why not."""
        return self.mixing_part.unavailable(name)

    def hidden_attribution(self, progress: ProgressArg = True) -> torch.Tensor:
        """``(L, n, n)`` float64 hidden-state attribution (Brunner et al. 2020, docs/methods.md §7.7): row i of
        layer l is each input token's share of token i's hidden vector after layer l; rows sum to 1."""
        return self.gradient_part.hidden_attribution(progress)

    def alti_logit(self, target=None) -> torch.Tensor:
        """``(n,)`` float64 ALTI-Logit scores of the input tokens for ``target`` (decoders with an LM head)."""
        return self.mixing_part.alti_logit(self.target(target))
