"""Gradients of encoder-decoder models (docs/methods.md §6.8): token scores over the source and the
decoder inputs, and Chefer et al.'s relevance through encoder, decoder and cross-attention.

Gradients are taken at the output of the token-embedding module of each stack (the encoder's and the
decoder's ``embed_tokens``), replaced by a forward hook for one pass while the model runs its own
id path. Encoder and decoder often share one embedding module (BART, T5): pre-hooks on the two
stacks say which sequence a call embeds, so each gets its own tensor and its own gradient. Passing
``inputs_embeds`` would not do: Marian and Pegasus scale ``embed_tokens``' output by ``embed_scale``
only when they embed ids themselves in the encoder, but always in the decoder.
The model is borrowed as for a capture (``model_state``) and left as it was found.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import torch

from . import methods, targets
from .errors import UnsupportedModelError
from .gradients import BASELINES, IntegratedGradients, PathIntegration
from .methods.encoder_decoder_relevance import Relevance, encoder_decoder_relevance
from .model_state import borrowed_for_capture
from .progress import ProgressArg, progress_reporter
from .targets import Context, Target

METHODS = ("saliency", "grad_x_input", "integrated_gradients", "gradient_rollout")


@dataclass(frozen=True)
class Seq2SeqGradients:
    """One forward and backward pass: y, and its gradients at both embeddings and every attention map."""

    value: float
    source_embeds: torch.Tensor  # (ns, d) the encoder's token-embedding module output
    source_grad: torch.Tensor  # (ns, d)
    target_embeds: torch.Tensor  # (nt, d) the decoder's
    target_grad: torch.Tensor  # (nt, d)
    attentions: dict[str, torch.Tensor]  # "encoder" (Le,H,ns,ns), "decoder" (Ld,H,nt,nt), "cross" (Ld,H,nt,ns)
    attention_grads: dict[str, torch.Tensor]  # the same shapes: ∂y/∂A

    @property
    def embeds(self) -> torch.Tensor:
        """``(ns + nt, d)``: the source's rows, then the decoder inputs'."""
        return torch.cat([self.source_embeds, self.target_embeds])

    @property
    def embed_grad(self) -> torch.Tensor:
        return torch.cat([self.source_grad, self.target_grad])


class Seq2SeqRunner(PathIntegration):
    """Gradient work on one ``Seq2SeqAnalysis`` (its ``model`` must be the whole encoder-decoder)."""

    baseline_choices = 'options "auto", "mask", "unk", "pad", "zero"'

    def __init__(self, analysis):
        if getattr(analysis, "model", None) is None:
            raise ValueError("This analysis has no model to take gradients of; build it with analyze(model, source).")
        self.analysis, self.model, self.tokenizer = analysis, analysis.model, analysis.encoder.tokenizer
        self.device = next(self.model.parameters()).device
        self.as_float = analysis.decoder_attentions.dtype
        inputs = analysis.encoder.capture.model_inputs or {}
        self._inputs = {key: value.to(self.device) for key, value in inputs.items()}
        self._decoder_ids = analysis.target_ids[None].to(self.device)
        self._context: Context | None = None
        self._stacks = (self.model.get_encoder(), self.model.get_decoder())
        self._tables = tuple(_embedding_module(self.model, stack) for stack in self._stacks)

    # Targets ------------------------------------------------------------------------------
    def resolve(self, target) -> Target:
        """A decoder position t (the logit of the token that follows it, ``target_ids[t+1]``; default the last
        position that has one), a token string or id (its logit at that default position), or a spec of
        ``attn_widget.targets``: ``token(w, position=t, versus=w2)``, ``next_token(t, which)``, ``predicted()``,
        ``function(fn, position)``."""
        if isinstance(target, Target):
            return target
        nt = len(self.analysis.target_ids)
        if nt < 2:
            raise ValueError("The decoder has one input token only, so no target token follows it; pass a target.")
        last = nt - 2
        spec: targets.TargetSpec
        if target is None:
            spec = targets.next_token(last, "actual")
        elif isinstance(target, int) and not isinstance(target, bool):
            if not -(nt - 1) <= target <= last:
                raise ValueError(
                    f"position {target} has no next token among the {nt} decoder inputs; pick one of 0..{last}."
                )
            spec = targets.next_token(target % (nt - 1), "actual")
        elif isinstance(target, (str, targets.token)):
            spec = targets.token(target) if isinstance(target, str) else target
            if spec.position is None:
                spec = targets.token(spec.token, last, spec.versus, spec.log_prob)
        elif isinstance(target, targets.predicted):
            spec = targets.next_token(last, "predicted")
        elif isinstance(target, targets.next_token) and target.position is None:
            spec = targets.next_token(last, target.which)
        elif isinstance(target, (targets.class_logit, targets.similarity)):
            raise ValueError(
                f"{type(target).__name__} targets are for classifiers and sentence encoders; explain a decoder "
                "position, a token (targets.token(w, position=t)) or a function of the outputs instead."
            )
        else:
            spec = targets.as_spec(target)
        context = self._plain_context()
        if isinstance(spec, (targets.token, targets.next_token)) and getattr(context.outputs, "logits", None) is None:
            raise ValueError(
                f"{type(self.model).__name__} has no language-model head, so it has no token logits to explain: "
                "pass target=attn_widget.targets.function(fn) or load the ...ForConditionalGeneration model."
            )
        with borrowed_for_capture(self.model, "resolving a target"):
            return spec.resolve(context)

    def _plain_context(self) -> Context:
        if self._context is None:
            with borrowed_for_capture(self.model, "a forward pass"), torch.no_grad():
                outputs = self.model(**self._inputs, decoder_input_ids=self._decoder_ids, use_cache=False)
            self._context = Context(self.model, self.tokenizer, self.analysis.target_ids, True, outputs)
        return self._context

    # Forward passes -----------------------------------------------------------------------
    def embed(self) -> tuple[torch.Tensor, torch.Tensor]:
        """``(1, ns, d)``, ``(1, nt, d)``: what each stack's token-embedding module gives for its ids. Under the
        model's lock like every use of those modules (``forward`` hooks them)."""
        with borrowed_for_capture(self.model, "embedding the texts", eager=False), torch.no_grad():
            source = self._tables[0](self._inputs["input_ids"]).detach()
            target = self._tables[1](self._decoder_ids).detach()
        return source, target

    def forward(self, source: torch.Tensor, target: torch.Tensor, **kwargs):
        """The model on ``b`` copies of the input, the embedding outputs replaced by ``source`` ``(b, ns, d)``
        for the encoder and ``target`` ``(b, nt, d)`` for the decoder."""
        batch = source.shape[0]
        phase: list[str] = []
        replaced: list[str] = []
        given = {"encoder": source, "decoder": target}

        def enter(name: str) -> Callable:
            return lambda _module, _args: phase.append(name)

        mine = threading.get_ident()

        def replace(_module, _inputs, output):
            if threading.get_ident() != mine:  # the module run by code that ignores the model's lock: not this pass
                return None
            which = phase[-1] if phase else "outside"
            replaced.append(which)
            if which not in given:
                return output
            return given[which].to(output.dtype).clone()  # a copy: some models scale embeddings in place

        handles = [
            self._stacks[0].register_forward_pre_hook(enter("encoder")),
            self._stacks[1].register_forward_pre_hook(enter("decoder")),
        ]
        handles += [table.register_forward_hook(replace) for table in {id(t): t for t in self._tables}.values()]
        extra = {key: value.expand(batch, -1) for key, value in self._inputs.items() if key != "input_ids"}
        try:
            outputs = self.model(
                input_ids=self._inputs["input_ids"].expand(batch, -1),
                decoder_input_ids=self._decoder_ids.expand(batch, -1),
                use_cache=False,
                **extra,
                **kwargs,
            )
        finally:
            for handle in handles:
                handle.remove()
        if sorted(replaced) != ["decoder", "encoder"]:
            raise UnsupportedModelError(
                f"{type(self.model).__name__} called its token-embedding modules as {replaced} in one pass, not once "
                "for the encoder and once for the decoder; gradient methods are unavailable for it."
            )
        return outputs

    def gradients(self, target: Target) -> Seq2SeqGradients:
        """y, ∂y/∂(both embeddings) and ∂y/∂A for every attention map, from one backward pass."""
        source, decoder = (e.requires_grad_(True) for e in self.embed())
        names = ("encoder_attentions", "decoder_attentions", "cross_attentions")
        with borrowed_for_capture(self.model, "gradients"), torch.enable_grad():
            outputs = self.forward(source, decoder, output_attentions=True)
            maps = [list(getattr(outputs, name)) for name in names]
            y = target.score(outputs).sum()
            flat = [a for stack in maps for a in stack]
            grads = torch.autograd.grad(y, [source, decoder, *flat], allow_unused=True)
        cpu = {"device": "cpu", "dtype": self.as_float}
        attentions, attention_grads, start = {}, {}, 2
        for key, stack in zip(("encoder", "decoder", "cross"), maps, strict=True):
            found = grads[start : start + len(stack)]
            start += len(stack)
            attentions[key] = torch.stack([a.detach()[0] for a in stack]).to(**cpu)
            attention_grads[key] = torch.stack(
                [(torch.zeros_like(a) if g is None else g)[0] for a, g in zip(stack, found, strict=True)]
            ).to(**cpu)
        return Seq2SeqGradients(
            float(y.detach()),
            source.detach()[0].to(**cpu),
            _or_zero(grads[0], source)[0].to(**cpu),
            decoder.detach()[0].to(**cpu),
            _or_zero(grads[1], decoder)[0].to(**cpu),
            attentions,
            attention_grads,
        )

    # Integrated gradients -----------------------------------------------------------------
    def baseline(self, kind: str = "auto") -> tuple[torch.Tensor, torch.Tensor, str]:
        """IG baselines ``(1, ns, d)``, ``(1, nt, d)``: one reference token's embedding (each stack's own table)
        at every position that is not a special token; special tokens (the decoder start and end tokens among
        them) keep theirs. kind as ``GradientRunner.baseline``: "auto" is the first of [MASK], [UNK], pad
        whose source embedding is not near zero (norm ≥ 10% of the source's median token norm), else zero."""
        source, target = self.embed()
        if kind == "auto":
            floor = 0.1 * source[0].norm(dim=-1).median()
            kinds = ("mask", "unk", "pad")
            usable = (k for k in kinds if (r := self._reference(k, 0)) is not None and r.norm() >= floor)
            kind = next(usable, "zero")
        if kind not in BASELINES:
            raise ValueError(f'baseline must be "auto" or one of {tuple(BASELINES)}; got {kind!r}.')
        special_ids = torch.tensor(sorted(set(getattr(self.tokenizer, "all_special_ids", []) or [])), dtype=torch.long)
        keep_source = self.analysis.encoder.capture.special.to(self.device)[None, :, None]
        keep_target = torch.isin(self.analysis.target_ids, special_ids).to(self.device)[None, :, None]
        if kind == "zero":
            return torch.where(keep_source, source, 0.0), torch.where(keep_target, target, 0.0), "zero vector"
        references = [self._reference(kind, i) for i in (0, 1)]
        if references[0] is None or references[1] is None:
            raise ValueError(f'This tokenizer has no {kind} token; choose another baseline ("auto", "zero", ...).')
        name = self.tokenizer.convert_ids_to_tokens(getattr(self.tokenizer, str(BASELINES[kind])))
        return (
            torch.where(keep_source, source, references[0]),
            torch.where(keep_target, target, references[1]),
            f"{name} embedding",
        )

    def _reference(self, kind: str, stack: int) -> torch.Tensor | None:
        token_id = getattr(self.tokenizer, str(BASELINES[kind]), None)
        if token_id is None:
            return None
        with borrowed_for_capture(self.model, "an IG baseline", eager=False), torch.no_grad():
            return self._tables[stack](torch.tensor([token_id], device=self.device))[0]

    # Integrated gradients (PathIntegration): over both sequences at once, one straight path from both baselines.
    def _on(self, model) -> Seq2SeqRunner:
        return _on_copy(self, model)

    def _path(self, baseline) -> tuple[list[torch.Tensor], list[torch.Tensor], str]:
        ends = self.embed()
        source, target, described = self.baseline(baseline)
        return list(ends), [source, target], described

    def _run(self, points: list[torch.Tensor]):
        return self.forward(*points)

    def _joined(self, parts: list[torch.Tensor]) -> torch.Tensor:
        """``(ns + nt, d)``: the source's rows, then the decoder inputs'."""
        return torch.cat([part[0] for part in parts])

    def _returned(self, attributions: torch.Tensor) -> torch.Tensor:
        return attributions.cpu()


def _or_zero(grad: torch.Tensor | None, like: torch.Tensor) -> torch.Tensor:
    return torch.zeros_like(like) if grad is None else grad


def _on_copy(runner: Seq2SeqRunner, model) -> Seq2SeqRunner:
    """A runner for the float32 copy of a half-precision model (same analysis, other model)."""
    twin = object.__new__(Seq2SeqRunner)
    twin.__dict__.update(runner.__dict__)
    twin.model = model
    twin._stacks = (model.get_encoder(), model.get_decoder())
    twin._tables = tuple(_embedding_module(model, stack) for stack in twin._stacks)
    twin._context = None
    return twin


def _embedding_module(model, stack) -> torch.nn.Module:
    table = getattr(stack, "embed_tokens", None)
    if not isinstance(table, torch.nn.Module):
        raise UnsupportedModelError(
            f"{type(model).__name__}'s {type(stack).__name__} has no embed_tokens module to take gradients at; "
            "gradient methods are unavailable for it (attention methods still work)."
        )
    return table


class Seq2SeqGradientPart:
    """What ``Seq2SeqAnalysis``' gradient methods compute, cached per target (and options)."""

    def __init__(self, analysis):
        self.runner = Seq2SeqRunner(analysis)
        self.cache: dict = {}

    def target(self, target=None) -> Target:
        return self.runner.resolve(target)

    def _cached(self, key, make):
        if key not in self.cache:
            self.cache[key] = make()
        return self.cache[key]

    def gradients(self, target=None) -> Seq2SeqGradients:
        resolved = self.target(target)
        return self._cached(("gradients", resolved.key), lambda: self.runner.gradients(resolved))

    def integrated_gradients(
        self, target=None, steps: int = 50, progress: ProgressArg = True, baseline: str = "auto", max_steps: int = 800
    ) -> IntegratedGradients:
        resolved = self.target(target)
        key = ("integrated_gradients", resolved.key, steps, baseline, max_steps)
        if key not in self.cache:
            with progress_reporter(progress, "integrated gradients") as report:
                self.cache[key] = self.runner.integrated_gradients(
                    resolved, steps=steps, max_steps=max_steps, baseline=baseline, progress=report
                )
        return self.cache[key]

    def relevance(self, target=None) -> Relevance:
        resolved = self.target(target)
        g = self.gradients(resolved)
        pairs = {key: (g.attentions[key], g.attention_grads[key]) for key in ("encoder", "decoder", "cross")}
        return self._cached(
            ("relevance", resolved.key),
            lambda: encoder_decoder_relevance(pairs["encoder"], pairs["decoder"], pairs["cross"]),
        )

    def attribution(self, method: str, target=None, **options) -> torch.Tensor:
        """``(ns + nt,)`` float64 scores of ``method`` (``METHODS``): source tokens, then decoder inputs."""
        resolved = self.target(target)
        if method == "saliency":
            return methods.saliency(self.gradients(resolved).embed_grad.double(), **options)
        if method == "grad_x_input":
            g = self.gradients(resolved)
            return methods.grad_times_input(g.embed_grad.double(), g.embeds.double(), **options)
        if method == "integrated_gradients":
            return self.integrated_gradients(resolved, **options).attributions.sum(-1)
        if method == "gradient_rollout":
            if resolved.position is None:
                raise ValueError("gradient_rollout needs a target at one decoder position; this one pools positions.")
            return self.relevance(resolved).scores(resolved.position)
        raise ValueError(f"method must be one of {METHODS} for an encoder-decoder model; got {method!r}.")


def gradient_part(analysis) -> Seq2SeqGradientPart:
    """The analysis' gradient part, made on first use and kept on it."""
    if analysis._gradient_part is None:
        analysis._gradient_part = Seq2SeqGradientPart(analysis)
    return analysis._gradient_part
