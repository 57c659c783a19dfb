"""Run the model with gradients (docs/methods.md §6): one backward pass for input and
attention gradients, batched integrated gradients, and blank-out as the perturbation reference.

The model is borrowed exactly as for a capture (eval mode, eager attention, restored
afterwards, one owner at a time: ``model_state``). Integrated gradients and blank-out borrow
it per batch, not for the whole run: each batch sees the same model state, and a widget built
meanwhile on the same model waits for one batch, not for the whole computation. Gradients are
taken with ``torch.autograd.grad``, so no ``.grad`` is left on any parameter and
``requires_grad`` flags are never touched. Integrated gradients of a bf16 or fp16 model run on
a float32 copy of it, dropped afterwards.
"""

from __future__ import annotations

import copy
import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from . import methods
from .capture import Capture
from .errors import UnsupportedModelError
from .model_state import borrowed_for_capture
from .targets import Context, Target, TargetSpec, as_spec

_BATCH = 16  # inputs per forward pass for integrated gradients and blank-out
# The plain outputs targets are resolved from are kept while they are small; a large vocabulary's logits at a long
# input are not (Qwen2.5's 151,936 entries at 4,096 tokens: 2.5 GB in float32, on the model's device), so a target
# spec resolved later runs a pass of its own. The widget resolves its targets once, when offered.
OUTPUTS_KEPT_BYTES = 256 << 20
# IG baselines: a reference token's embedding at every non-special position (tokenizer attribute), or zeros.
BASELINES = {"mask": "mask_token_id", "unk": "unk_token_id", "pad": "pad_token_id", "zero": None}


@dataclass(frozen=True)
class Gradients:
    """One forward and backward pass. n tokens, d embedding width, L layers, H heads."""

    value: float  # y
    embeds: torch.Tensor  # (n, d) the input embedding module's output for the text
    embed_grad: torch.Tensor  # (n, d) ∂y/∂embeds
    attentions: torch.Tensor  # (L, H, n, n)
    attention_grad: torch.Tensor  # (L, H, n, n) ∂y/∂A


@dataclass(frozen=True)
class IntegratedGradients:
    attributions: torch.Tensor  # (n, d)
    completeness_error: float  # |Σ IG − (y(e) − y(e'))| / max(|y(e) − y(e')|, 1e-6)
    steps: int  # Gauss–Legendre points of the last (returned) integration
    converged: bool  # completeness_error < tolerance; False: the step cap was hit (and a warning issued)
    baseline: str  # what e' is at non-special positions: "[MASK] embedding", "zero vector", …

    @property
    def shortfall(self) -> str | None:
        """What scores that stopped at the step cap cannot claim (shown beside the widget's bars), or None."""
        if self.converged:
            return None
        return (
            f"Completeness {self.completeness_error:.0%} after {self.steps} steps (goal 5%): these scores do not add "
            f"up to the change of the target from the baseline ({self.baseline}). See analysis.integrated_gradients()."
        )


def path_integral(
    ends: list[torch.Tensor],
    bases: list[torch.Tensor],
    steps: int,
    gradients: Callable[[list[torch.Tensor]], tuple[torch.Tensor | None, ...]],
    progress: Callable[[float, float], None] | None,
) -> list[torch.Tensor]:
    """Integrated gradients along the straight path from ``bases`` to ``ends`` (each ``(1, ...)``), by
    Gauss–Legendre quadrature in batches of ``_BATCH`` points: ``(x − x') ⊙ Σ_i w_i ∂y/∂x(x' + α_i (x − x'))``,
    float64, one per input. gradients(points) → ∂(Σ y)/∂point for each batch of points ``(b, ...)`` (None: y
    does not depend on it)."""
    alphas, weights = methods.gauss_legendre(steps)
    totals = [torch.zeros(end.shape, dtype=torch.float64, device=end.device) for end in ends]
    for start in range(0, steps, _BATCH):
        a, w = alphas[start : start + _BATCH], weights[start : start + _BATCH]
        points = [
            (base + _along(a.to(end.device, end.dtype), end) * (end - base)).requires_grad_(True)
            for end, base in zip(ends, bases, strict=True)
        ]
        for total, grad, point in zip(totals, gradients(points), points, strict=True):
            if grad is not None:
                total += (_along(w.to(total.device), point) * grad).sum(0, keepdim=True)
        if progress is not None:
            progress(min(start + _BATCH, steps), steps)
    return [(end - base).double() * total for end, base, total in zip(ends, bases, totals, strict=True)]


def _along(values: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    """``(b,)`` → ``(b, 1, ..., 1)``, to broadcast over a batch of points shaped like ``like``."""
    return values.view(-1, *[1] * (like.dim() - 1))


def until_complete(
    integrate: Callable[[int], torch.Tensor], gap: float, steps: int, tolerance: float, max_steps: int, baseline: str
) -> tuple[torch.Tensor, float, int, bool]:
    """Integrated gradients with ``integrate(steps)`` (the attributions, float64), the steps doubled until
    the completeness error ``|Σ IG − gap| / max(|gap|, 1e-6)`` is below ``tolerance``, or a ``RuntimeWarning``
    when ``2 · steps`` would pass ``max_steps``. baseline: what the run started from, for the warning.
    Returns the attributions, the error, the steps of the last run and whether it converged."""
    while True:
        attributions = integrate(steps)
        error = abs(float(attributions.sum()) - gap) / max(abs(gap), 1e-6)
        if error < tolerance or steps * 2 > max_steps:
            break
        steps *= 2
    converged = error < tolerance  # False for NaN too
    if not converged:
        warnings.warn(
            f"Integrated gradients did not converge: completeness error {error:.1%} after {steps} steps "
            f"(tolerance {tolerance:.0%}), so the scores do not add up to y(x) − y(baseline). "
            f"Pass a larger max_steps (now {max_steps}) or another baseline (this run used {baseline}).",
            RuntimeWarning,
            stacklevel=4,
        )
    return attributions, error, steps, converged


class PathIntegration:
    """Integrated gradients along the straight path from a baseline to the input, written once for every input
    kind: each runner (text here, ``Seq2SeqRunner``, ``VisionGradientRunner``) says what its inputs are
    (``_path``), how the model runs on a batch of them (``_run``), and what its scores are made of (``_joined``,
    ``_returned``)."""

    model: Any  # a Hugging Face model (typed loosely, as transformers' are)
    baseline_choices: str  # what else the warning of a run that did not converge suggests

    def integrated_gradients(
        self,
        target: Target,
        steps: int = 50,
        tolerance: float = 0.05,
        max_steps: int = 800,
        baseline="auto",
        progress: Callable[[float, float], None] | None = None,
    ) -> IntegratedGradients:
        """Gauss–Legendre integrated gradients; steps doubled until the completeness error < tolerance,
        or a ``RuntimeWarning`` with the error reached when ``2 * steps`` would exceed ``max_steps``.

        Integrated in the model's dtype when it is float32 or float64, else on a float32 copy of the
        model, dropped afterwards (the user's model is never cast). Quadrature sums are float64.
        """
        with borrowed_for_capture(self.model, "integrated gradients"):
            model = _float_model(self.model)  # a copy is made in eval mode with eager attention
        runner = self if model is self.model else self._on(model)
        # The path's ends run the model's embedding modules: under the lock, or another thread's forward pass
        # (whose hook replaces those modules' output) would count the call and hand this one its embeddings.
        with borrowed_for_capture(runner.model, "integrated gradients"):
            ends, bases, described = runner._path(baseline)
        with borrowed_for_capture(runner.model, "integrated gradients"), torch.no_grad():
            both = runner._run([torch.cat([base, end]) for base, end in zip(bases, ends, strict=True)])
            values = target.score(both).double()
        attributions, error, steps, converged = until_complete(
            lambda count: runner._joined(path_integral(ends, bases, count, runner._gradients_of(target), progress)),
            float(values[1] - values[0]),
            steps,
            tolerance,
            max_steps,
            f"the {described}; {self.baseline_choices}",
        )
        return IntegratedGradients(self._returned(attributions), error, steps, converged, described)

    def _gradients_of(self, target: Target) -> Callable[[list[torch.Tensor]], tuple[torch.Tensor | None, ...]]:
        """∂(Σ y)/∂point for a batch of points on the path (None: y does not depend on that input)."""

        def gradients(points: list[torch.Tensor]) -> tuple[torch.Tensor | None, ...]:
            with borrowed_for_capture(self.model, "integrated gradients"), torch.enable_grad():
                y = target.score(self._run(points)).sum()
                return torch.autograd.grad(y, points, allow_unused=True)

        return gradients

    def _on(self, model) -> PathIntegration:
        """This runner on ``model`` (the float32 copy of a half-precision model)."""
        raise NotImplementedError

    def _path(self, baseline) -> tuple[list[torch.Tensor], list[torch.Tensor], str]:
        """The inputs ``(1, ...)`` each, their baselines, and what the baselines are."""
        raise NotImplementedError

    def _run(self, points: list[torch.Tensor]):
        """The model's outputs on a batch ``(b, ...)`` of each input."""
        raise NotImplementedError

    def _joined(self, parts: list[torch.Tensor]) -> torch.Tensor:
        """The attributions of every input as one tensor (its sum is checked for completeness): the only input's."""
        return parts[0]

    def _returned(self, attributions: torch.Tensor) -> torch.Tensor:
        """The attributions as the runner gives them."""
        raise NotImplementedError


class GradientRunner(PathIntegration):
    """Gradient work on one text: ``record`` must come from ``capture(model, ...)``."""

    baseline_choices = 'options "auto", "mask", "unk", "pad", "zero"'

    def __init__(self, model, tokenizer, record: Capture):
        self.model, self.tokenizer, self.record = model, tokenizer, record
        self.device = next(model.parameters()).device
        self.as_float = record.heads.dtype  # float64 for float64 models, else float32
        self._inputs = {key: value.to(self.device) for key, value in (record.model_inputs or {}).items()}
        self._context: Context | None = None
        self._tables: list[torch.nn.Module] | None = None

    def resolve(self, target) -> Target:
        """Turn a target spec (or None, a token string, a callable) into a ``Target`` for this text."""
        if isinstance(target, Target):
            return target
        spec: TargetSpec = as_spec(target)
        # Resolving may run the model (similarity encodes the other text): borrowed like any forward pass.
        with borrowed_for_capture(self.model, "resolving a target", eager=self.record.eager):
            return spec.resolve(self._plain_context())

    def _plain_context(self) -> Context:
        """The model, the text and one plain forward pass on it (no gradients), kept while its outputs take at most
        ``OUTPUTS_KEPT_BYTES``."""
        if self._context is not None:
            return self._context
        # The capture's pass gave these outputs already (the same call, bit for bit); taken once. Passes
        # without gradients run in the implementation the capture's weights came from (Capture.eager).
        outputs, self.record.outputs = self.record.outputs, None
        if outputs is None:
            with borrowed_for_capture(self.model, "a forward pass", eager=self.record.eager), torch.no_grad():
                outputs = self.model(**self._inputs)
        context = Context(self.model, self.tokenizer, self.record.token_ids, self.record.causal, outputs)
        values = outputs.values() if hasattr(outputs, "values") else outputs
        if sum(value.nbytes for value in values if isinstance(value, torch.Tensor)) <= OUTPUTS_KEPT_BYTES:
            self._context = context
        return context

    def _embedding(self) -> torch.nn.Module:
        """The model's input embedding module: gradients are taken at its output."""
        try:
            return self.model.get_input_embeddings()
        except (NotImplementedError, AttributeError):
            raise UnsupportedModelError(
                f"{type(self.model).__name__} has no input embedding module to take gradients at; gradient methods "
                "are unavailable for it (attention methods still work)."
            ) from None

    def _embedding_modules(self) -> list[torch.nn.Module]:
        """The input embedding module and any other holding the same (tied) table, which the model may
        call instead (T5's encoder.embed_tokens); found once per runner."""
        if self._tables is None:
            table = self._embedding()
            self._tables = [
                module
                for module in self.model.modules()
                if module is table or (isinstance(module, torch.nn.Embedding) and module.weight is table.weight)
            ]
        return self._tables

    def _embed(self) -> torch.Tensor:
        """``(1, n, d)`` what the input embedding module gives for the text (position embeddings come later).

        Runs the module, so under the model's lock like every use of it (``_forward`` hooks it)."""
        with borrowed_for_capture(self.model, "embedding the text", eager=False), torch.no_grad():
            return self._embedding()(self._inputs["input_ids"]).detach()

    def _extra(self, batch: int) -> dict:
        """The model inputs other than the token ids (attention mask, …) for ``batch`` copies of the text."""
        return {key: value.expand(batch, -1) for key, value in self._inputs.items() if key != "input_ids"}

    def _forward(self, embeds: torch.Tensor, **kwargs):
        """The model on ``b`` copies of the text, the input embedding module's output replaced by ``embeds``
        ``(b, n, d)`` for this one forward pass.

        The model runs its own token-id path, so the scalar explained is the one it computes: passing
        ``inputs_embeds`` instead skips what some families do to embeddings of ids (ESM rescales them
        by the share of mask tokens), scales them in place (CTRL) or is not accepted at all (CLIP text).
        """
        batch = embeds.shape[0]
        calls = []
        mine = threading.get_ident()

        def replace(_module, _inputs, output):
            if threading.get_ident() != mine:  # the module run by code that ignores the model's lock: not this pass
                return None
            calls.append(output.shape)
            return embeds.to(output.dtype).clone()  # a copy: some models scale their embeddings in place

        handles = [module.register_forward_hook(replace) for module in self._embedding_modules()]
        try:
            outputs = self.model(input_ids=self._inputs["input_ids"].expand(batch, -1), **self._extra(batch), **kwargs)
        finally:
            for handle in handles:
                handle.remove()
        if len(calls) != 1:
            raise UnsupportedModelError(
                f"{type(self.model).__name__} used its input embedding module {len(calls)} times in one forward pass, "
                "so attn_widget cannot tell which use gradients are for; gradient methods are unavailable for it."
            )
        return outputs

    def gradients(self, target: Target) -> Gradients:
        """y, ∂y/∂embeds and ∂y/∂A for every layer, from one backward pass."""
        embeds = self._embed().requires_grad_(True)
        with borrowed_for_capture(self.model, "gradients"), torch.enable_grad():
            outputs = self._forward(embeds, output_attentions=True)
            attentions = list(outputs.attentions)
            y = target.score(outputs).sum()
            grads = torch.autograd.grad(y, [embeds, *attentions], allow_unused=True)
        attention_grad = [torch.zeros_like(a) if g is None else g for a, g in zip(attentions, grads[1:], strict=True)]
        as_float = self.as_float
        return Gradients(
            value=float(y.detach()),
            embeds=embeds.detach()[0].to("cpu", as_float),
            embed_grad=grads[0][0].to("cpu", as_float),
            attentions=torch.stack([a.detach()[0] for a in attentions]).to("cpu", as_float),
            attention_grad=torch.stack([g[0] for g in attention_grad]).to("cpu", as_float),
        )

    def baseline(self, kind: str = "auto") -> tuple[torch.Tensor, str]:
        """IG baseline ``e'`` ``(1, n, d)`` and what it is. Every non-special position gets one reference
        embedding; special tokens keep their own, so their IG is exactly 0.

        kind: "mask", "unk" or "pad" (that token's embedding), "zero", or "auto" (default): the first
        of [MASK], [UNK] and pad whose embedding is not near zero (norm ≥ 10% of the text's median
        token norm), else zero (blank-out's order of tokens). Not pad or zero first: models zero
        the pad row at init (and keep it zero when trained with ``padding_idx``), and on a path from
        zero the RMSNorm of models without additive position embeddings (Llama, Gemma, T5) switches
        from 0 to full scale within β ~ sqrt(eps)/|e|, or within β < 1e-8 where norms are nested
        (Gemma's sandwich norms): no practical quadrature resolves that, and the scores would
        measure eps rather than the tokens.
        """
        embeds = self._embed()
        if kind == "auto":
            floor = 0.1 * embeds[0].norm(dim=-1).median()
            usable = (k for k in ("mask", "unk", "pad") if (r := self._reference(k)) is not None and r.norm() >= floor)
            kind = next(usable, "zero")
        if kind not in BASELINES:
            raise ValueError(f'baseline must be "auto" or one of {tuple(BASELINES)}; got {kind!r}.')
        special = self.record.special.to(self.device)[None, :, None]
        if kind == "zero":
            return torch.where(special, embeds, 0.0), "zero vector"
        reference = self._reference(kind)
        if reference is None:
            raise ValueError(f'This tokenizer has no {kind} token; choose another baseline ("auto", "zero", ...).')
        name = self.tokenizer.convert_ids_to_tokens(getattr(self.tokenizer, str(BASELINES[kind])))
        return torch.where(special, embeds, reference), f"{name} embedding"

    def _reference(self, kind: str) -> torch.Tensor | None:
        """``(d,)`` the embedding of the tokenizer's mask, unk or pad token; None if it has none."""
        token_id = getattr(self.tokenizer, str(BASELINES[kind]), None)
        if token_id is None:
            return None
        with borrowed_for_capture(self.model, "an IG baseline", eager=False), torch.no_grad():
            return self._embedding()(torch.tensor([token_id], device=self.device))[0]

    # Integrated gradients (PathIntegration): at the input embedding module's output.
    def _on(self, model) -> GradientRunner:
        return GradientRunner(model, self.tokenizer, self.record)

    def _path(self, baseline) -> tuple[list[torch.Tensor], list[torch.Tensor], str]:
        embeds = self._embed()
        base, described = self.baseline(baseline)
        return [embeds], [base], described

    def _run(self, points: list[torch.Tensor]):
        return self._forward(points[0])

    def _returned(self, attributions: torch.Tensor) -> torch.Tensor:
        """``(n, d)``."""
        return attributions[0].to("cpu", self.as_float)

    def blank_out(self, target: Target) -> torch.Tensor:
        """``(n,)``: |y − y¬j| when token j is replaced by the mask token (else unk, else pad)."""
        replacement = next(
            (
                getattr(self.tokenizer, name)
                for name in ("mask_token_id", "unk_token_id", "pad_token_id")
                if getattr(self.tokenizer, name, None) is not None
            ),
            None,
        )
        if replacement is None:
            raise ValueError("Blank-out needs a mask, unknown or pad token to put in place of each token.")
        ids = self._inputs["input_ids"]
        n = ids.shape[1]
        out = torch.empty(n, dtype=torch.float64)
        for start in range(0, n, _BATCH):
            rows = torch.arange(start, min(n, start + _BATCH), device=self.device)
            # Row 0 the text as it is: y and every y¬j from one eager call (masked keys add exact zeros there), so a
            # token that cannot reach the target (after it, in a decoder) scores exactly 0.
            blanked = ids.repeat(len(rows) + 1, 1)
            blanked[torch.arange(1, len(rows) + 1), rows] = replacement
            with borrowed_for_capture(self.model, "blank-out"), torch.no_grad():
                values = target.score(self.model(input_ids=blanked, **self._extra(len(rows) + 1))).double().cpu()
            out[start : start + len(rows)] = (values[0] - values[1:]).abs()
        return out


def _float_model(model):
    """``model`` itself when it computes in float32 or float64; else a float32 copy to integrate on.

    Half precision cannot integrate: bf16 and fp16 gradients and logits carry 2-3 significant
    digits, so the quadrature sum misses y(x) − y(x') by up to 100%. The copy is built directly in
    float32 (parameters without gradients; buffers cast), so it costs the model's size in float32
    on its device, freed when the run ends; the user's model is never cast in place.
    """
    if all(p.dtype in (torch.float32, torch.float64) for p in model.parameters() if p.is_floating_point()):
        return model
    memo = {id(p): torch.nn.Parameter(p.detach().float(), requires_grad=False) for p in model.parameters()}
    return copy.deepcopy(model, memo).float()
