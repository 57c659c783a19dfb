"""``Analysis``: the one API that the widget, exports and plots use.

Each method is computed on first use and cached; the capture is never modified.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Hashable, Iterable

import torch

from . import methods
from .capture import Capture, capture
from .gradients import GradientRunner, Gradients, IntegratedGradients
from .inputs import check_model, resolve_tokenizer, unwrap
from .methods.flow import FlowSolver, layer_numbers
from .methods.heads import HeadChoice
from .progress import ProgressArg, progress_reporter
from .targets import Target

RECEPTIVE_FIELD = ("auto", "none", "rf-b", "rf-d")


class Analysis:
    """Attention-flow quantities of one text through one model.

    Layer ``l`` of every ``(L, n, n)`` result is index ``l - 1`` (layer 0 is the input).
    """

    def __init__(self, record: Capture, model=None, tokenizer=None):
        self.capture = record
        self.model, self.tokenizer = model, tokenizer  # needed only by gradient methods
        self._cache: dict[Hashable, torch.Tensor] = {}
        self._gradient_runner: GradientRunner | None = None
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
        return self._cached(
            ("rollout", float(residual), variant), lambda: _normalise(variant, plain, self._rollout_baseline(residual))
        )

    def _rollout_baseline(self, residual: float) -> torch.Tensor:
        """Rollout of the content-free attention: the RF-B/RF-D baseline R0."""
        return self._cached(("rollout-baseline", float(residual)), lambda: methods.rollout(self.null_attention(), residual))

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
        return self._flow("attention", residual, layers, receptive_field, progress)

    def flow_rows(self, position: int, residual: float = 0.5, receptive_field: str = "auto") -> torch.Tensor:
        """``(L, n)``: row ``position`` of the flow at every layer, computing only that row
        (what comparisons at one target position need; n max flows per layer instead of n²)."""
        variant = self._variant(receptive_field)

        def rows(which: str) -> torch.Tensor:
            full = self._flow_layers.get((which, float(residual)), {})
            solver = None
            out = []
            for layer in range(1, self.n_layers + 1):
                if layer in full:
                    out.append(full[layer][position])
                    continue
                if solver is None:
                    solver = FlowSolver(methods.residual_augment(self._mixing(which), residual))
                out.append(torch.from_numpy(solver.row(layer, position)))
            return torch.stack(out)

        def cached_rows(which: str) -> torch.Tensor:
            return self._cached(("flow-row", which, float(residual), position), lambda: rows(which))

        plain = methods.row_normalize(cached_rows("attention"))
        if variant == "none":
            return plain
        baseline = methods.row_normalize(cached_rows("baseline"))
        return _normalise(variant, plain.unsqueeze(1), baseline.unsqueeze(1))[:, 0]

    def effective(self, sum_preserving: bool = False) -> torch.Tensor:
        """``(L, H, n, n)`` signed effective attention (methods.md section 5).

        Each row keeps only its component that changes the head's output ``A V W_O``. Rows
        that see no more keys than the head dimension are unchanged; when no row does,
        a warning says so. Needs value vectors: raises for model families without an adapter.
        """
        key = ("effective", sum_preserving)
        if key not in self._cache:
            values, out_weights, _ = self.capture.require_values()
            if self.capture.n_tokens <= self.capture.geometry.head_dim + int(sum_preserving):
                warnings.warn(
                    f"{self.capture.n_tokens} tokens do not exceed the head dimension "
                    f"({self.capture.geometry.head_dim}): effective attention equals raw attention here.",
                    stacklevel=2,
                )
            eps = float(torch.finfo(self.capture.values_dtype).eps)
            group = self.capture.geometry.kv_group()
            dtype = torch.float64 if self.attentions.dtype == torch.float64 else torch.float32
            result = torch.empty(self.attentions.shape, dtype=dtype)
            for layer in range(self.n_layers):
                methods.effective_attention(
                    self.attentions[layer],
                    values[layer],
                    self.capture.masks[layer],
                    group=group,
                    out_weights=out_weights[layer],
                    sum_preserving=sum_preserving,
                    eps=eps,
                    out=result[layer],
                )
            self._cache[key] = result
        return self._cache[key]

    @property
    def effective_is_raw(self) -> bool:
        """No row sees more keys than the head dimension: effective attention equals raw attention."""
        return self.capture.n_tokens <= self.capture.geometry.head_dim

    def effective_removed(self) -> torch.Tensor:
        """``(L, H, n)``: per row, ``Σ_j |A - A_eff|``, the attention effective attention moved away."""
        return self._cached(("effective-removed",), lambda: methods.removed_mass(self.attentions, self.effective()))

    def effective_mixing(self, variant: str = "clip") -> torch.Tensor:
        """``(L, n, n)`` row-stochastic mixing from head-averaged effective attention (E1 "clip" or E3 "abs")."""
        return self._cached(
            ("effective-mixing", variant),
            lambda: methods.effective_mixing(self.effective().mean(1), self.raw(), variant),
        )

    def effective_rollout(self, variant: str = "clip", residual: float = 0.5, receptive_field: str = "auto"):
        """Rollout on effective attention (section 5.3): ``(L, n, n)``.

        variant: "clip" (E1, default), "abs" (E3), or "signed" (E2: the sum-preserving
        variant, unclipped; entries may be negative, rows sum to 1, no normalisation).
        """
        if variant == "signed":
            return self._cached(
                ("effective-rollout", "signed", float(residual)),
                lambda: methods.signed_rollout(self.effective(sum_preserving=True).mean(1), residual),
            )
        variant_rf = self._variant(receptive_field)
        plain = self._cached(
            ("effective-rollout", variant, float(residual)),
            lambda: methods.rollout(self.effective_mixing(variant), residual),
        )
        if variant_rf == "none":
            return plain
        return _normalise(variant_rf, plain, self._rollout_baseline(residual))

    def effective_flow(
        self,
        variant: str = "clip",
        residual: float = 0.5,
        layers: Iterable[int] | None = None,
        receptive_field: str = "auto",
        progress: ProgressArg = True,
    ) -> torch.Tensor:
        """Attention flow with effective attention as capacities (E1 "clip" or E3 "abs")."""
        if variant not in ("clip", "abs"):
            raise ValueError(f'Flow needs non-negative capacities: variant must be "clip" or "abs"; got {variant!r}.')
        return self._flow(f"effective-{variant}", residual, layers, receptive_field, progress)

    # Gradient-based attribution (methods.md section 6) --------------------------
    ATTRIBUTIONS = (
        "saliency",
        "grad_x_input",
        "integrated_gradients",
        "attention_gradient",
        "gradient_rollout",
        "blank_out",
    )

    def target(self, target=None) -> Target:
        """Resolve ``target`` (see ``attn_widget.targets``; None = the model's own prediction)."""
        return self._runner().resolve(target)

    def gradients(self, target=None) -> Gradients:
        """One forward and backward pass: y, ∂y/∂(word embeddings) ``(n, d)``, ∂y/∂A ``(L, H, n, n)``."""
        resolved = self.target(target)
        return self._cached(("gradients", resolved.key), lambda: self._runner().gradients(resolved))

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
        resolved = self.target(target)
        key = ("integrated_gradients", resolved.key, steps, baseline, max_steps)
        if key not in self._cache:
            with progress_reporter(progress, "integrated gradients") as report:
                self._cache[key] = self._runner().integrated_gradients(
                    resolved, steps=steps, max_steps=max_steps, baseline=baseline, progress=report
                )
        return self._cache[key]

    def attribution(self, method: str, target=None, **options) -> torch.Tensor:
        """Per-token scores ``(n,)`` for the target (methods.md 6.2-6.4, 7.4).

        method: "saliency" (L2 of the gradient; ``norm=``), "grad_x_input" (signed sum;
        ``reduce=``), "integrated_gradients" (signed sum; ``steps=``, ``baseline=``, ``max_steps=``,
        ``progress=`` as for ``integrated_gradients``), "attention_gradient" (row t of the last
        layer's A ⊙ ∇A), "gradient_rollout" (Chefer: row t of R minus the identity), "blank_out"
        (|y − y¬j| with token j masked). For causal models, tokens after the target position get
        exactly 0. For targets that pool every position (``targets.similarity``), the
        attention-gradient methods average all rows.
        """
        if method not in self.ATTRIBUTIONS:
            raise ValueError(f"method must be one of {self.ATTRIBUTIONS}; got {method!r}.")
        resolved = self.target(target)
        t = resolved.position
        if method == "saliency":
            return methods.saliency(self.gradients(resolved).embed_grad, **options)
        if method == "grad_x_input":
            g = self.gradients(resolved)
            return methods.grad_times_input(g.embed_grad, g.embeds, **options)
        if method == "integrated_gradients":
            return self.integrated_gradients(resolved, **options).attributions.sum(-1)
        if method == "attention_gradient":
            return row_at(self.attention_gradient(resolved, **options)[-1], t)
        if method == "gradient_rollout":
            # Chefer's R starts at the identity; its part is removed (our default, section 6.4).
            relevance = self.gradient_rollout(resolved)[-1] - torch.eye(self.capture.n_tokens, dtype=torch.float64)
            return row_at(relevance, t)
        return self._cached(("blank_out", resolved.key), lambda: self._runner().blank_out(resolved))

    def attention_gradient(self, target=None, mode: str = "signed") -> torch.Tensor:
        """``(L, n, n)`` attention × gradient per layer, head-averaged (methods.md 6.3)."""
        g = self.gradients(target)
        return methods.attention_gradient(g.attentions, g.attention_grad, mode)

    def gradient_rollout(self, target=None) -> torch.Tensor:
        """``(L, n, n)`` gradient-weighted rollout (Chefer et al. 2021), unnormalised (methods.md 6.4)."""
        g = self.gradients(target)
        return methods.gradient_rollout(g.attentions, g.attention_grad)

    def compare(self, target=None, include_special: bool = True):
        """Spearman correlations between attention methods at every layer and the gradient and
        blank-out scores for ``target`` (methods.md section 8); a pandas DataFrame.
        See ``attn_widget.compare`` for averaging over texts and ``attn_widget.plots`` for a figure."""
        from .compare import correlations

        return correlations(self, target, include_special=include_special)

    def _runner(self) -> GradientRunner:
        if self.model is None:
            raise ValueError(
                "This Analysis has no model to take gradients of; build it with analyze(model, text)."
            )
        if self._gradient_runner is None:
            self._gradient_runner = GradientRunner(self.model, self.tokenizer, self.capture)
        return self._gradient_runner

    def null_attention(self) -> torch.Tensor:
        """``(L, n, n)`` content-free attention with this input's masks (section 4.3)."""
        return self._cached(("null",), lambda: methods.null_attention(self.capture.masks))

    def flow_layers_done(self, which: str = "attention", residual: float = 0.5) -> list[int]:
        """Layer numbers whose flow on ``which`` ("attention", "baseline", "effective-clip",
        "effective-abs") is already computed (cheap to ask)."""
        return sorted(self._flow_layers.get((which, float(residual)), {}))

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

    def _flow(self, which: str, residual: float, layers, receptive_field: str, progress: ProgressArg):
        """Normalised flow on the mixing matrices ``which``, with optional RF normalisation."""
        variant = self._variant(receptive_field)
        wanted = layer_numbers(layers, self.n_layers)
        needs_baseline = variant != "none"
        total = len(wanted) * (2 if needs_baseline else 1)
        with progress_reporter(progress, "attention flow") as report:
            plain = methods.row_normalize(self._flow_raw(which, residual, wanted, report, 0, total))
            if not needs_baseline:
                return plain
            baseline = self._flow_raw("baseline", residual, wanted, report, len(wanted), total)
            return _normalise(variant, plain, methods.row_normalize(baseline))

    def _mixing(self, which: str) -> torch.Tensor:
        """The ``(L, n, n)`` matrices a flow runs on."""
        if which == "attention":
            return self.raw()
        if which == "baseline":
            return self.null_attention()
        return self.effective_mixing(which.removeprefix("effective-"))

    def _flow_raw(self, which: str, residual: float, wanted: list[int], report, offset: int, total: int):
        """Unnormalised max flows ``(len(wanted), n, n)``, computing only missing layers."""
        done = self._flow_layers.setdefault((which, float(residual)), {})
        missing = [layer for layer in wanted if layer not in done]
        if missing:
            solver = FlowSolver(methods.residual_augment(self._mixing(which), residual))
            n = self.capture.n_tokens
            for layer in missing:
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

    # Context mixing (attn_widget/mixing.py) -------------------------------------
    def mixing(self, name: str) -> torch.Tensor:
        """``(L, n, n)`` float64 per-layer context-mixing map ("norm", "norm_residual", "globenc",
        "alti"), rows summing to 1; raises ``UnsupportedModelError`` with the reason when the
        model's structure does not support it (``Mixing.unavailable(name)`` says so without raising)."""
        return self._built_mixing_part().map(name)

    def mixing_rollout(self, name: str) -> torch.Tensor:
        """``(L, n, n)`` float64 composition of ``mixing(name)`` through the layers."""
        return self._built_mixing_part().rollout(name)

    def _built_mixing_part(self):
        """The ``Mixing`` of this analysis (built on first use; it owns its cache and extra pass)."""
        if getattr(self, "_mixing_part", None) is None:
            from .mixing import Mixing

            self._mixing_part = Mixing(self)
        return self._mixing_part


def row_at(matrix: torch.Tensor, position: int | None) -> torch.Tensor:
    """Row ``position`` of ``(..., n, n)``, or the mean of all rows when the target pools positions."""
    return matrix.mean(-2) if position is None else matrix[..., position, :]


def _normalise(variant: str, values: torch.Tensor, baseline: torch.Tensor) -> torch.Tensor:
    if variant == "rf-b":
        return methods.baseline_ratio(values, baseline)
    return methods.baseline_difference(values, baseline)


def analyze(model, text: str, tokenizer=None) -> Analysis:
    """Run ``model`` on ``text`` once and return a lazily computed ``Analysis``.

    model: a PyTorch Hugging Face transformers model (left exactly as it was found), or a
    ``torch.compile`` of one (analysed through the module it wraps).
    tokenizer: optional; loaded from the model's local path when omitted.
    """
    model = unwrap(model)
    check_model(model)
    tokenizer = resolve_tokenizer(model, tokenizer)  # once: capture() and gradients use the same one
    return Analysis(capture(model, text, tokenizer), model=model, tokenizer=tokenizer)
