"""Encoder-decoder text models (the families of ``models.SEQ2SEQ``: T5, BART, Marian, M2M100, ...; those of
``models.SEQ2SEQ_NOT_READ`` are refused with the reason): ``Seq2SeqAnalysis``.

model + source text (+ target text, or the model's own greedy output) → ONE forced forward
pass with eager attention → the encoder's self-attention, the decoder's self-attention and
the decoder's cross-attention, as the model returned them. The model is borrowed and handed
back unchanged (``model_state.borrowed_for_capture``). The encoder part is an ordinary
``Analysis`` built from the same pass, so every encoder method works on ``.encoder``.
The rollout through cross-attention is defined in docs/methods.md §2.7.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Iterable
from typing import Any

import torch

from . import verify
from .analysis import Analysis
from .capture import Capture, _add_value_data, kept_hidden_states, recorded_pass, work_dtype
from .errors import UnsupportedModelError
from .head_store import HeadStore
from .inputs import Encoded, check_model, check_text, encode, max_positions, resolve_tokenizer, unwrap
from .methods.encoder_decoder_flow import encoder_decoder_flow
from .methods.flow import layer_numbers
from .methods.normalize import row_normalize
from .methods.rollout import residual_augment, rollout
from .model_state import borrowed_for_capture
from .models import SEQ2SEQ, SEQ2SEQ_NOT_READ, find_sites
from .progress import ProgressArg, progress_reporter
from .seq2seq_values import KINDS, DecoderValues, calls_of, decoder_sites, effective_of
from .text import display_token

MAX_NEW_TOKENS = 32  # the longest greedy output analysed when no target is given


class Seq2SeqAnalysis:
    """Attention of one source text and one target text through an encoder-decoder model.

    ``ns`` source tokens, ``nt`` target tokens: the decoder's inputs, the decoder start token
    first, then the target (or the model's own greedy output) with its end token. Position t's
    state predicts target token t + 1. Tensors are on the CPU (float32, float64 for float64 models).
    """

    def __init__(
        self,
        encoder: Analysis,
        target_ids: torch.Tensor,
        target_tokens: list[str],
        decoder_attentions: torch.Tensor,
        cross_attentions: torch.Tensor,
        generated: bool,
        model=None,
        decoder_values: DecoderValues | None = None,
    ):
        self.encoder = encoder  # an ordinary Analysis of the encoder (same forward pass)
        self.target_ids = target_ids  # (nt,) long: the decoder's input ids
        self.target_tokens = list(target_tokens)
        self.decoder_attentions = decoder_attentions  # (Ld, H, nt, nt)
        self.cross_attentions = cross_attentions  # (Ld, H, nt, ns): row = target query, column = source key
        self.generated = generated  # the target is the model's own greedy output
        self.model = model  # the whole encoder-decoder: gradient methods re-run it
        self._decoder_values = decoder_values  # the decoder's self- and cross-attention values, verified on use
        self._rollouts: dict[float, torch.Tensor] = {}
        self._flows: dict[tuple[float, int], torch.Tensor] = {}  # (residual, decoder layer) -> (nt, ns + nt)
        self._effective: dict[tuple[str, bool], torch.Tensor] = {}
        self._gradient_part: Any = None  # seq2seq_gradients.gradient_part makes it on first use

    @property
    def source_tokens(self) -> list[str]:
        return self.encoder.tokens

    @property
    def source_ids(self) -> torch.Tensor:
        return self.encoder.capture.token_ids

    @property
    def encoder_attentions(self) -> torch.Tensor:
        """``(Le, H, ns, ns)`` encoder self-attention."""
        return self.encoder.attentions

    @property
    def n_encoder_layers(self) -> int:
        return int(self.encoder_attentions.shape[0])

    @property
    def n_decoder_layers(self) -> int:
        return int(self.decoder_attentions.shape[0])

    def rollout(self, residual: float = 0.5) -> torch.Tensor:
        """``(Ld, nt, ns + nt)`` float64 rollout through cross-attention (docs/methods.md §2.7): row t of
        layer l is the share of each source token (first ns columns) and each target token reaching
        target position t after decoder layer l. Rows sum to 1; target columns after t are exactly 0."""
        key = float(residual)
        if key not in self._rollouts:
            self._rollouts[key] = encoder_decoder_rollout(
                self.encoder_attentions.mean(1),
                self.decoder_attentions.mean(1),
                self.cross_attentions.mean(1),
                residual,
            )
        return self._rollouts[key]

    def source_share(self, residual: float = 0.5) -> torch.Tensor:
        """``(Ld, nt)``: the share of each target position that comes from the source, per decoder layer."""
        return self.rollout(residual)[..., : len(self.source_tokens)].sum(-1)

    def __repr__(self) -> str:
        how = "greedy output" if self.generated else "given target"
        return (
            f"<Seq2SeqAnalysis {self.encoder.capture.model_name!r}: {len(self.source_tokens)} source tokens, "
            f"{len(self.target_tokens)} target tokens ({how}), {self.n_encoder_layers}+{self.n_decoder_layers} "
            f"layers, {self.encoder.n_heads} heads>"
        )

    # Gradients (seq2seq_gradients.py, docs/methods.md §6.8) -------------------------------------------------

    def attribution(self, method: str, target=None, **options) -> torch.Tensor:
        """``(ns + nt,)`` float64 token scores, source tokens then decoder inputs, for ``target`` (default: the
        logit of the last target token at the position before it; an int t: of ``target_ids[t+1]`` at t; see
        ``Seq2SeqRunner.resolve``). method: "saliency", "grad_x_input", "integrated_gradients" (``steps=``,
        ``baseline=``, ``max_steps=``, ``progress=``) or "gradient_rollout" (Chefer et al.'s relevance row)."""
        from .seq2seq_gradients import gradient_part

        return gradient_part(self).attribution(method, target, **options)

    def gradient_relevance(self, target=None):
        """Chefer et al.'s encoder-decoder relevance (``methods.encoder_decoder_relevance.Relevance``: ``ss``,
        ``tt``, ``ts``, float64; ``.scores(t)``) for ``target`` as in ``attribution``."""
        from .seq2seq_gradients import gradient_part

        return gradient_part(self).relevance(target)

    # Flow through cross-attention and effective attention of the decoder ---------------------------------

    def flow(
        self, residual: float = 0.5, layers: Iterable[int] | None = None, progress: ProgressArg = True
    ) -> torch.Tensor:
        """``(len(layers), nt, ns + nt)`` float64 attention flow through cross-attention (docs/methods.md §2.7),
        all decoder layers by default: the max flow on the joint layered graph from each input node (source
        tokens first) to target position t after decoder layer l, each row normalised to sum to 1; target
        columns after t are exactly 0. Slow for long inputs (10-16 s at 128 + 32 tokens, 6 + 6 layers, 2 cores):
        progress is ``True`` for a bar, ``False`` for none, or a callable ``(done rows, total rows)``.
        Finished layers are cached per residual."""
        wanted = layer_numbers(layers, self.n_decoder_layers)
        cache = self._flows
        missing = [layer for layer in dict.fromkeys(wanted) if (float(residual), layer) not in cache]
        if missing:
            with progress_reporter(progress, "attention flow") as report:
                # One layer at a time, so that an interruption keeps the finished layers.
                nt = len(self.target_tokens)
                for k, layer in enumerate(missing):

                    def rows_done(done: int, _total: int, before: int = k * nt) -> None:
                        report(before + done, len(missing) * nt)

                    cache[float(residual), layer] = encoder_decoder_flow(
                        self.encoder_attentions.mean(1),
                        self.decoder_attentions.mean(1),
                        self.cross_attentions.mean(1),
                        residual,
                        [layer],
                        progress=rows_done,
                    )[0]
        if not wanted:  # a joint view's encoder layers alone ask for none
            return torch.zeros(
                0, len(self.target_tokens), len(self.source_tokens) + len(self.target_tokens), dtype=torch.float64
            )
        return torch.stack([cache[float(residual), layer] for layer in wanted])

    def flow_layers_done(self, residual: float = 0.5) -> list[int]:
        """Decoder layer numbers whose ``flow`` is already computed (cheap to ask)."""
        return sorted(layer for key, layer in self._flows if key == float(residual))

    def head_dim(self, kind: str = "encoder") -> int:
        """The head dimension of one attention kind: the encoder's and the decoder's may differ (BART's
        ``encoder_attention_heads`` and ``decoder_attention_heads`` over one ``d_model``)."""
        if kind == "encoder":
            geometry = self.encoder.capture.geometry
        elif self._decoder_values is None:
            raise ValueError("This analysis was built without the decoder's values; make it with analyze(model, ...).")
        else:
            geometry = self._decoder_values.record(kind).geometry
        assert geometry is not None  # read with the values
        return geometry.head_dim

    def effective(self, kind: str = "encoder", sum_preserving: bool = False) -> torch.Tensor:
        """Signed effective attention (docs/methods.md §5) of one attention kind, float64, the shape of its
        attention: "encoder" ``(Le, H, ns, ns)`` (``.encoder.effective()``), "decoder" ``(Ld, H, nt, nt)``,
        "cross" ``(Ld, H, nt, ns)`` (rows are target queries; the null space is that of the source values,
        so it differs from raw attention only when ns exceeds the head dimension). Cached. The decoder's values
        are verified on first use: A·V must reproduce what each output projection received; else this raises."""
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(map(repr, KINDS))}; got {kind!r}.")
        if kind == "encoder":
            return self.encoder.effective(sum_preserving).to(torch.float64)
        if self._decoder_values is None:
            raise ValueError("This analysis was built without the decoder's values; make it with analyze(model, ...).")
        if (kind, sum_preserving) not in self._effective:
            self._effective[kind, sum_preserving] = effective_of(self._decoder_values.record(kind), sum_preserving)
        return self._effective[kind, sum_preserving]


def encoder_decoder_rollout(
    encoder: torch.Tensor, decoder: torch.Tensor, cross: torch.Tensor, residual: float = 0.5
) -> torch.Tensor:
    """Rollout through an encoder-decoder (docs/methods.md §2.7).

    encoder ``(Le, ns, ns)``, decoder ``(Ld, nt, nt)``, cross ``(Ld, nt, ns)``: head-aggregated
    attention (rows re-normalised here). With ``R_enc`` the encoder rollout to its last layer,
    ``S_l = (1-α)·rn(A_self) + α·I`` and ``C_l = rn(A_cross)``, and ``D_0 = [0 | I]``:

        D_l = α · S_l D_{l-1} + (1 - α) · [C_l R_enc | 0]

    Returns ``(Ld, nt, ns + nt)`` float64, ``D_1 .. D_Ld``; every row sums to 1.
    """
    r_enc = rollout(encoder, residual)[-1]  # (ns, ns)
    self_mix = residual_augment(decoder, residual)  # (Ld, nt, nt)
    alpha = float(residual)
    source = row_normalize(cross.to(torch.float64)) @ r_enc  # (Ld, nt, ns)
    nt, ns = source.shape[1], source.shape[2]
    state = torch.cat([torch.zeros(nt, ns, dtype=torch.float64), torch.eye(nt, dtype=torch.float64)], dim=1)
    layers = []
    for layer in range(decoder.shape[0]):
        state = alpha * (self_mix[layer] @ state)
        state[:, :ns] += (1.0 - alpha) * source[layer]
        layers.append(state)
    return torch.stack(layers)


def check_seq2seq_model(model) -> None:
    """An encoder-decoder text model of a family attn_widget checks (``models.SEQ2SEQ``)."""
    check_model(model, encoder_decoder=True)
    model_type = getattr(model.config, "model_type", "")
    if model_type in SEQ2SEQ_NOT_READ:
        raise UnsupportedModelError(f"{type(model).__name__} cannot be analysed: {SEQ2SEQ_NOT_READ[model_type]}.")
    if model_type not in SEQ2SEQ:
        raise UnsupportedModelError(
            f"{type(model).__name__} is an encoder-decoder model of a family attn_widget has not checked yet "
            f"({model_type!r}); the encoder-decoder families it analyses are {', '.join(SEQ2SEQ)}."
        )


def analyze_seq2seq(model, source: str, tokenizer=None, target: str | None = None) -> Seq2SeqAnalysis:
    """Run an encoder-decoder ``model`` once on ``source`` forced to produce ``target`` (default: its own
    greedy output, at most ``MAX_NEW_TOKENS`` new tokens) and return a ``Seq2SeqAnalysis``."""
    model = unwrap(model)
    check_seq2seq_model(model)
    source = check_text(source)
    tokenizer = resolve_tokenizer(model, tokenizer)
    if target is not None:
        target = check_text(target, "target")
    elif not (hasattr(model, "can_generate") and model.can_generate()):
        raise UnsupportedModelError(
            f"{type(model).__name__} is an encoder-decoder model without a language-model head, so it has no output "
            'of its own to analyse: pass target="..." (the text to force-decode), or load the model with its head '
            f"({type(model).__name__.replace('Model', 'ForConditionalGeneration')})."
        )
    encoded = _taken_inputs(model, encode(model, source, tokenizer))
    model_dtype = next(model.parameters()).dtype
    dtype = work_dtype(model_dtype)
    name = getattr(model, "name_or_path", "") or type(model).__name__
    if target is None:
        with borrowed_for_capture(model, "greedy decoding", eager=False):
            decoder_ids = _greedy(model, encoded, max_positions(model, tokenizer))
    else:
        decoder_ids = _decoder_inputs(model, tokenizer, target)
    _check_target_length(model, tokenizer, int(decoder_ids.shape[-1]))
    inputs = {**encoded.model_inputs, "decoder_input_ids": decoder_ids}
    sites = find_sites(model.get_encoder())
    decoder_kinds = decoder_sites(model)
    all_sites = sites + decoder_kinds["decoder"] + decoder_kinds["cross"]
    recorded = recorded_pass(model, inputs, all_sites, "encoder-decoder capture", use_cache=False)
    outputs, calls = recorded.outputs, recorded.calls

    encoder_att = _stack(outputs, "encoder_attentions", model, dtype)
    decoder_att = _stack(outputs, "decoder_attentions", model, dtype)
    cross_att = _stack(outputs, "cross_attentions", model, dtype)
    for field, att in (("encoder", encoder_att), ("decoder", decoder_att), ("cross", cross_att)):
        _check_weights(att, f"{field} attentions", model, model_dtype)
    ns, nt = encoder_att.shape[-1], decoder_att.shape[-1]
    if cross_att.shape[-2:] != (nt, ns) or cross_att.shape[0] != decoder_att.shape[0]:
        raise UnsupportedModelError(
            f"{type(model).__name__} returned cross-attention of shape {tuple(cross_att.shape)}, not one "
            f"(heads, {nt}, {ns}) matrix per decoder layer. Please report this model type."
        )
    full = torch.ones(encoder_att.shape[0], ns, ns, dtype=torch.bool)
    causal = torch.ones(nt, nt, dtype=torch.bool).tril().expand(decoder_att.shape[0], nt, nt)
    verify.check_masks(encoder_att, full, model_dtype, lambda layer: "encoder, bidirectional")
    verify.check_masks(decoder_att, causal, model_dtype, lambda layer: "decoder, causal")
    verify.check_masks(
        cross_att, torch.ones(cross_att.shape[0], nt, ns, dtype=torch.bool), model_dtype, lambda layer: "cross"
    )

    hidden = getattr(outputs, "encoder_hidden_states", None)
    record = Capture(
        tokens=encoded.tokens,
        token_ids=encoded.token_ids,
        special=encoded.special,
        heads=HeadStore.of(encoder_att),
        masks=full,
        causal=False,
        hidden_states=kept_hidden_states(hidden, model_dtype),
        model_name=f"{name} (encoder)",
        model_type=str(getattr(model.config, "model_type", "unknown")),
        model_dtype=model_dtype,
        model_inputs={key: value.cpu() for key, value in encoded.model_inputs.items()},
    )
    _add_value_data(record, model, calls_of(calls, sites), dtype)
    pending = {
        kind: (att, calls_of(calls, decoder_kinds[kind]))
        for kind, att in (("decoder", decoder_att), ("cross", cross_att))
    }
    # The encoder stack is what the encoder Analysis re-runs (gradients, value zeroing): its output is
    # the encoder's last hidden state, the input the decoder's cross-attention reads.
    encoder = Analysis(record, model=model.get_encoder(), tokenizer=tokenizer)
    ids = decoder_ids[0].cpu()
    tokens = [display_token(tokenizer.decode([int(i)])) for i in ids]
    values = DecoderValues(model, record, dtype, pending)
    return Seq2SeqAnalysis(
        encoder, ids, tokens, decoder_att, cross_att, generated=target is None, model=model, decoder_values=values
    )


def _taken_inputs(model, encoded: Encoded) -> Encoded:
    """``encoded`` without the tokenizer's outputs the model does not name (a BERT-style tokenizer's
    ``token_type_ids`` for T5 or BART): ``model.generate`` refuses them, the forced pass would swallow them
    unread, and the encoder's own passes (gradients) must take them too, so both forwards must name a key."""
    named = _parameters(model.forward) & _parameters(model.get_encoder().forward)
    kept = {key: value for key, value in encoded.model_inputs.items() if key in named or key == "input_ids"}
    return dataclasses.replace(encoded, model_inputs=kept)


def _parameters(forward) -> set[str]:
    """The keyword arguments ``forward`` names (not those only a ``**kwargs`` would swallow)."""
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return {name for name, p in inspect.signature(forward).parameters.items() if p.kind in kinds}


def _greedy(model, encoded: Encoded, limit: int | None) -> torch.Tensor:
    """The model's own greedy output ``(1, nt)``, decoder start token first (``model.generate``): at most
    ``MAX_NEW_TOKENS`` new tokens, fewer where the decoder's positions run out first."""
    new_tokens = MAX_NEW_TOKENS if limit is None else max(1, min(MAX_NEW_TOKENS, limit - 1))
    with torch.no_grad():
        out = model.generate(**encoded.model_inputs, do_sample=False, num_beams=1, max_new_tokens=new_tokens)
    sequences = out if isinstance(out, torch.Tensor) else out.sequences
    return sequences[:1]


def _decoder_inputs(model, tokenizer, target: str) -> torch.Tensor:
    """``(1, nt)``: the family's decoder start token (as its own label shifting puts it), then the labels."""
    batch = tokenizer(text_target=target, return_tensors="pt", return_special_tokens_mask=True)
    labels = batch["input_ids"]
    if labels.shape[-1] == 0:
        raise ValueError("The tokenizer turned the target into zero tokens; pass a longer target.")
    if batch["special_tokens_mask"].bool().all():
        raise ValueError(
            "The tokenizer turned the target into special tokens only "
            f"({tokenizer.convert_ids_to_tokens(labels[0].tolist())}); "
            "control and zero-width characters are dropped. Pass a target with words."
        )
    device = next(model.parameters()).device
    labels = labels.to(device)
    return torch.cat([_start_token(model, labels), labels], dim=1)


def _start_token(model, labels: torch.Tensor) -> torch.Tensor:
    """``(1, 1)``: the decoder's first input as the family's own label shifting makes it. Most read
    ``config.decoder_start_token_id`` (some configs lack the attribute altogether); mBART's takes the labels' last
    token (the language code) and reads no start token, so it needs none."""
    first = getattr(model.config, "decoder_start_token_id", None)
    shift = getattr(model, "prepare_decoder_input_ids_from_labels", None) or getattr(model, "_shift_right", None)
    if shift is not None:
        try:
            return shift(labels)[:, :1]
        except (AttributeError, TypeError, ValueError):  # a shift that needs the start token it was not given
            if first is not None:
                raise
    if first is None:
        raise ValueError(
            f"{type(model).__name__}'s config has no decoder_start_token_id, which its label shifting needs, so "
            "the target cannot be shifted into decoder inputs. Set model.config.decoder_start_token_id to the token "
            "its decoder starts from (the one model.generate starts from: T5, Marian and Pegasus use the pad id)."
        )
    return torch.full_like(labels[:, :1], int(first))


def _check_target_length(model, tokenizer, nt: int) -> None:
    limit = max_positions(model, tokenizer)
    if limit is not None and nt > limit:
        raise ValueError(
            f"The target is {nt} tokens long (with the decoder start token) but the model accepts at most {limit}. "
            "Shorten the target."
        )


def _check_weights(attentions: torch.Tensor, what: str, model, model_dtype: torch.dtype) -> None:
    """Every row the model returned must be a distribution over its keys: transformers 5.0's Switch Transformers
    returns its position bias (with -inf masks) where its attention weights belong."""
    sums = attentions.sum(-1)
    off = (sums - 1).abs().nan_to_num(float("inf")).flatten()  # nan: a row of -inf
    tolerance = 1e-2 if model_dtype in (torch.float16, torch.bfloat16) else 1e-4
    least = float(attentions.min()) if attentions.numel() else 0.0
    if (off.numel() and float(off.max()) > tolerance) or not least >= 0:
        row = float(sums.flatten()[int(off.argmax())])
        raise UnsupportedModelError(
            f"The {what} {type(model).__name__} returned are not attention weights (a row sums to {row:.3g}, the "
            f"smallest weight is {least:.3g}), so this transformers release returns something else in their place "
            "(5.0 returns Switch Transformers' position bias, 5.25 its weights); update transformers."
        )


def _stack(outputs, field: str, model, dtype: torch.dtype) -> torch.Tensor:
    attentions = getattr(outputs, field, None)
    if not attentions or any(a is None for a in attentions):
        raise UnsupportedModelError(
            f"{type(model).__name__} returned no {field.replace('_', ' ')} even with eager attention. "
            "Please report this model type."
        )
    return torch.stack([a[0] for a in attentions]).to("cpu", dtype)
