"""An encoder-decoder as one sequence, for the widget (docs/methods.md §2.7).

The widget draws one token list and one chain of layers. An encoder-decoder fits that as the
JOINT system: the ``ns`` source tokens then the ``nt`` decoder tokens (N = ns + nt rows), the
``Le`` encoder layers then the ``Ld`` decoder layers (L = Le + Ld columns). Encoder layers mix the
source rows and leave the target rows as they are; decoder layers leave the source rows (the
encoder's output, which cross-attention reads) as they are and mix the target rows from both.
The rollout through cross-attention of §2.7 is exactly the target rows of the product of the
joint layer maps, so the whole-model view of the joint system is the encoder's columns feeding
the decoder's.

``JointView`` gives a ``Seq2SeqAnalysis`` the few fields the widget and ``MatrixMethod`` read from
an analysis (and its token scores over both token lists); ``METHODS`` are its menu: each attention
kind per head and its effective attention, the whole-model graph, the joint layer maps, and the
rollout and exact flow through them.
"""

from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass

import torch

from .errors import UnsupportedModelError
from .methods.flow import layer_numbers
from .methods.heads import per_head_stack
from .methods.registry import MatrixMethod
from .methods.rollout import residual_augment
from .progress import ProgressArg, progress_reporter
from .seq2seq import Seq2SeqAnalysis
from .seq2seq_gradients import METHODS as GRADIENT_METHODS
from .seq2seq_gradients import gradient_part
from .targets import Target

RESIDUAL = 0.5  # α of §2.7: the residual's share in every layer map
DEFAULT_METHOD = "cross"  # what the widget opens on


@dataclass(frozen=True)
class JointFacts:
    """What the widget reads from ``analysis.capture``: source tokens, then decoder tokens."""

    tokens: list[str]
    special: list[bool]
    n_layers: int  # Le + Ld
    n_heads: int
    model_name: str
    causal: bool = False  # the joint system is neither: the encoder sees all, the decoder is causal

    @property
    def n_tokens(self) -> int:
        return len(self.tokens)


class JointView:
    """A ``Seq2SeqAnalysis`` seen as one sequence of ``ns + nt`` tokens through ``Le + Ld`` layers."""

    def __init__(self, seq2seq: Seq2SeqAnalysis):
        self.seq2seq = seq2seq
        encoder = seq2seq.encoder
        self.ns, self.nt = len(seq2seq.source_tokens), len(seq2seq.target_tokens)
        self.n_encoder_layers, self.n_decoder_layers = seq2seq.n_encoder_layers, seq2seq.n_decoder_layers
        special_ids = set(getattr(encoder.tokenizer, "all_special_ids", []) or [])
        self.capture = JointFacts(
            tokens=[*seq2seq.source_tokens, *seq2seq.target_tokens],
            special=[*encoder.capture.special, *(int(i) in special_ids for i in seq2seq.target_ids)],
            n_layers=self.n_encoder_layers + self.n_decoder_layers,
            n_heads=encoder.n_heads,
            model_name=encoder.capture.model_name.removesuffix(" (encoder)"),
        )
        self.model = seq2seq.model
        self._rollout: torch.Tensor | None = None

    @property
    def n_layers(self) -> int:
        return self.capture.n_layers

    @property
    def n_heads(self) -> int:
        return self.capture.n_heads

    @property
    def causal(self) -> bool:
        return False

    # Token scores: over the joint token list, source tokens then decoder inputs (docs/methods.md §6.8).
    def attributions(self) -> tuple[str, ...]:
        """The token-score methods an encoder-decoder offers (``seq2seq_gradients.METHODS``)."""
        return GRADIENT_METHODS

    def target(self, target=None) -> Target:
        """The resolved target; its ``position`` is a decoder position (row ``ns + position`` here)."""
        return gradient_part(self.seq2seq).target(target)

    def attribution(self, method: str, target=None, **options) -> torch.Tensor:
        """``(ns + nt,)`` float64 scores, source tokens then decoder inputs."""
        return self.seq2seq.attribution(method, target, **options)

    def integrated_gradients(self, target=None, **options):
        return gradient_part(self.seq2seq).integrated_gradients(target, **options)

    def layer_names(self) -> list[str]:
        """``"encoder 1" .. "encoder Le"``, then ``"decoder 1" .. "decoder Ld"``."""
        return [f"encoder {i}" for i in range(1, self.n_encoder_layers + 1)] + [
            f"decoder {i}" for i in range(1, self.n_decoder_layers + 1)
        ]

    def column_names(self) -> list[str]:
        """What each column 0..L holds, source rows then target rows: the input; after encoder layer m the
        source is mixed and the target waits; after decoder layer k the source is the encoder's output."""
        return [
            "Input (layer 0)",
            *(f"Encoder {m} · decoder input" for m in range(1, self.n_encoder_layers + 1)),
            *(f"Encoder output · decoder {k}" for k in range(1, self.n_decoder_layers + 1)),
        ]

    def segments(self) -> list[dict]:
        """The two token lists, in order: ``[{label, size}]``."""
        return [{"label": "source", "size": self.ns}, {"label": "target", "size": self.nt}]

    def encoder_layers(self) -> list[int]:
        return list(range(1, self.n_encoder_layers + 1))

    def decoder_layers(self) -> list[int]:
        return list(range(self.n_encoder_layers + 1, self.n_layers + 1))

    # Data --------------------------------------------------------------------------------
    def per_head(self, kind: str, effective: bool = False) -> torch.Tensor:
        """``(L, H + 2, N, N)`` float64: one attention kind placed in its block (each head, mean, max),
        zero elsewhere. kind: "encoder" (source × source at encoder layers), "decoder" (target × target
        at decoder layers) or "cross" (target queries × source keys at decoder layers); effective: its
        effective attention (``Seq2SeqAnalysis.effective``) instead of the weights."""
        s2s, ns, le = self.seq2seq, self.ns, self.n_encoder_layers
        out = torch.zeros(self.n_layers, self.n_heads + 2, ns + self.nt, ns + self.nt, dtype=torch.float64)
        layers, rows, cols = {
            "encoder": (slice(0, le), slice(0, ns), slice(0, ns)),
            "decoder": (slice(le, None), slice(ns, None), slice(ns, None)),
            "cross": (slice(le, None), slice(ns, None), slice(0, ns)),
        }[kind]
        if effective:
            block = s2s.effective(kind)
        else:
            block = {"encoder": s2s.encoder_attentions, "decoder": s2s.decoder_attentions}.get(
                kind, s2s.cross_attentions
            )
        out[layers, :, rows, cols] = per_head_stack(block.to(torch.float64))
        return out

    def attention(self) -> torch.Tensor:
        """``(L, N, N)`` float64, the whole-model graph: each layer's attention weights (head means) as
        edges, ``Ā_enc`` on the source tokens at encoder layers and both ``C̄`` (to the source) and
        ``Ā_self`` (to the target) on the target tokens at decoder layers; the tokens a layer does not
        touch carry their state (weight 1), so that paths run from the last decoder layer to the input."""
        s2s, ns, le = self.seq2seq, self.ns, self.n_encoder_layers
        graph = torch.eye(ns + self.nt, dtype=torch.float64).repeat(self.n_layers, 1, 1)
        graph[:le, :ns, :ns] = s2s.encoder_attentions.mean(1)
        graph[le:, ns:, :ns] = s2s.cross_attentions.mean(1)
        graph[le:, ns:, ns:] = s2s.decoder_attentions.mean(1)
        return graph

    def layer_maps(self, residual: float = RESIDUAL) -> torch.Tensor:
        """``(L, N, N)`` float64 row-stochastic joint layer maps (head means, §2.7):
        encoder layer ``[[(1-α)·Ā_enc + α·I, 0], [0, I]]``, decoder layer ``[[I, 0], [(1-α)·C̄, α·S]]``
        with ``S = (1-α)·Ā_self + α·I``. Their product is the rollout."""
        s2s, ns, le, alpha = self.seq2seq, self.ns, self.n_encoder_layers, float(residual)
        n = ns + self.nt
        maps = torch.eye(n, dtype=torch.float64).repeat(self.n_layers, 1, 1)
        maps[:le, :ns, :ns] = residual_augment(s2s.encoder_attentions.mean(1), alpha)
        self_mix = residual_augment(s2s.decoder_attentions.mean(1), alpha)  # (Ld, nt, nt)
        cross = s2s.cross_attentions.mean(1).to(torch.float64)
        cross = cross / cross.sum(-1, keepdim=True).clamp_min(1e-300)
        maps[le:, ns:, :ns] = (1.0 - alpha) * cross
        maps[le:, ns:, ns:] = alpha * self_mix
        return maps

    def flow(self, layers=None, progress: ProgressArg = False) -> torch.Tensor:
        """``(len(layers), N, N)`` float64 joint attention flow (all layers by default): source rows are the
        encoder's flow (through the decoder layers, its last layer's), target rows at decoder layers are
        ``Seq2SeqAnalysis.flow()``, target rows at encoder layers wait (identity). Rows sum to 1."""
        le, ns = self.n_encoder_layers, self.ns
        wanted = layer_numbers(layers, self.n_layers)
        decoder = [layer - le for layer in wanted if layer > le]
        encoder = sorted({layer for layer in wanted if layer <= le} | ({le} if decoder else set()))
        # One bar over both parts, counted in rows of max flows.
        source_rows = len(encoder) * ns
        total = source_rows + len(decoder) * self.nt
        with progress_reporter(progress, "attention flow") as report:
            encoder_flow = self.seq2seq.encoder.flow(
                layers=encoder,
                receptive_field="none",
                progress=lambda done, all_: report(done / all_ * source_rows, total),
            )
            decoder_flow = self.seq2seq.flow(
                RESIDUAL, layers=decoder, progress=lambda done, _all: report(source_rows + done, total)
            )
        source = {layer: encoder_flow[k] for k, layer in enumerate(encoder)}
        target = {layer: decoder_flow[k] for k, layer in enumerate(decoder)}
        out = torch.eye(ns + self.nt, dtype=torch.float64).repeat(len(wanted), 1, 1)
        for k, layer in enumerate(wanted):
            out[k, :ns, :ns] = source[min(layer, le)].to(torch.float64)
            if layer > le:
                out[k, ns:] = target[layer - le]
        return out

    def flow_layers_done(self) -> list[int]:
        """Joint layers whose flow is computed (a decoder layer also needs the encoder's last)."""
        encoder = self.seq2seq.encoder.flow_layers_done("attention", RESIDUAL)
        le = self.n_encoder_layers
        decoder = [le + layer for layer in self.seq2seq.flow_layers_done(RESIDUAL)] if le in encoder else []
        return encoder + decoder

    def rollout(self) -> torch.Tensor:
        """``(L, N, N)`` float64: the joint state after each layer, the products of ``layer_maps``
        from the input. Target rows of decoder layer l are ``Seq2SeqAnalysis.rollout()[l]``."""
        if self._rollout is None:
            maps = self.layer_maps()
            state = torch.eye(maps.shape[-1], dtype=torch.float64)
            layers = []
            for layer_map in maps:
                state = layer_map @ state
                layers.append(state)
            self._rollout = torch.stack(layers)
        return self._rollout


def _defined_in(part: str):
    return lambda view: view.encoder_layers() if part == "encoder" else view.decoder_layers()


_ROWS = {
    "encoder": "a source token after an encoder layer (right) and the source tokens it read (left)",
    "decoder": "a target position after a decoder layer (right) and the target positions up to it that it read (left)",
    "cross": "a target position (right, the decoder's query) and the source tokens it read (left, the encoder output)",
}


def _explain(kind: str, effective: bool) -> str:
    what = (
        "the attention weights with the part that changes nothing in the head's output removed (signed: blue "
        "edges are negative)"
        if effective
        else "how strongly one attends to the other, its attention weight (pale: little, dark: the most; the "
        "legend gives the scale)"
    )
    definition = (
        "A_eff = A − (the part of each row in the left null space of the values); equal to A where a row has no "
        "more keys than the head dimension."
        if effective
        else "A = softmax(Q·Kᵀ/√d) of this layer's "
        + (
            "cross-attention: queries from the decoder, keys from the encoder's output."
            if kind == "cross"
            else "self-attention."
        )
    )
    return f"An edge joins {_ROWS[kind]}; its colour is {what}. Definition: {definition}"


def _kind(id: str, label: str, description: str, kind: str, effective: bool = False) -> MatrixMethod:
    return MatrixMethod(
        id=id,
        label=label,
        description=description,
        explain=_explain(kind, effective),
        compute=lambda view, _settings: view.per_head(kind, effective),
        per_head=True,
        signed=effective,
        defined_layers=_defined_in("encoder" if kind == "encoder" else "decoder"),
        compare=None,
        group="Effective attention" if effective else "Attention weights",
    )


_EFFECTIVE = (
    "Brunner et al. (2020): each row without its part in the left null space of the values, which changes "
    "nothing in the head's output (signed: blue is negative). Equal to the weights where a row sees no more "
    "keys than the head dimension."
)


def _effective_applies(kind: str):
    """ "" when the analysis' captured values give this kind's effective attention, else why not."""

    def applies(view) -> str:
        try:
            with warnings.catch_warnings():  # "equals raw attention here" is the method's note
                warnings.simplefilter("ignore", UserWarning)
                view.seq2seq.effective(kind)
        except (ValueError, UnsupportedModelError) as error:
            return str(error)
        return ""

    return applies


def _effective_note(kind: str):
    """A remark when the kind's rows never see more keys than the head dimension (nothing changes)."""

    def note(view) -> str:
        head_dim = view.seq2seq.encoder.capture.geometry.head_dim
        keys = view.nt if kind == "decoder" else view.ns
        if keys <= head_dim:
            return f"{keys} keys do not exceed the head dimension ({head_dim}): equal to the weights here."
        return f"Rows of the first {head_dim} target positions are unchanged." if kind == "decoder" else ""

    return note


def _flow_cost(view) -> str:
    return (
        f"{view.capture.n_tokens} tokens need a max-flow problem for every (layer, position, input token); "
        "about 10 s at 128 + 32 tokens through 6 + 6 layers."
    )


_WHOLE = "Through the whole model (encoder → decoder)"
_KINDS = (
    ("encoder", "encoder self-attention", "each source token (right) reads every source token (left)"),
    (
        "decoder",
        "decoder self-attention",
        "each target position (right) reads the target positions up to itself (left)",
    ),
    (
        "cross",
        "cross-attention",
        "each target position (right, a decoder query) reads the source tokens (left, the encoder's output)",
    ),
)
_IDS = {"encoder": "encoder_self", "decoder": "decoder_self", "cross": "cross"}
METHODS: tuple[MatrixMethod, ...] = (
    *(
        _kind(_IDS[kind], label.capitalize(), f"Attention weights of the {label}: {reads}.", kind)
        for kind, label, reads in _KINDS
    ),
    *(
        dataclasses.replace(
            _kind(f"effective_{_IDS[kind]}", f"Effective {label}", f"{_EFFECTIVE} Here: {reads}.", kind, True),
            applies=_effective_applies(kind),
            note=_effective_note(kind),
        )
        for kind, label, reads in _KINDS
    ),
    MatrixMethod(
        id="attention",
        label="Attention of each layer (both kinds)",
        description="Every attention weight of a layer (head means): encoder self-attention among the source "
        "tokens; in a decoder layer, cross-attention to the source and self-attention to the target together. "
        "Tokens a layer does not touch carry their state unchanged (horizontal edges of weight 1).",
        compute=lambda view, _settings: view.attention(),
        explain="The graph the whole-model view draws: in an encoder layer, the source tokens' attention to each "
        "other; in a decoder layer, each target position's cross-attention to the source and self-attention to the "
        "target before it, together. Tokens a layer does not touch keep their state: a horizontal edge of weight 1. "
        "Definition: encoder layer Ā_enc on the source rows; decoder layer [C̄ | Ā_self] on the target rows "
        "(head means).",
        group=_WHOLE,
        compare=None,
    ),
    MatrixMethod(
        id="layer_maps",
        label="Layer maps (attention + residual)",
        description="Each layer's mixing as rollout composes it (head means, residual share 0.5): an encoder "
        "layer mixes the source tokens, a decoder layer gives each target position half from the source "
        "through cross-attention and half from the target through self-attention plus residual. Tokens a "
        "layer does not touch keep their state (horizontal edges).",
        compute=lambda view, _settings: view.layer_maps(),
        explain="What rollout multiplies, one layer at a time. An edge says what share of a token after this layer "
        "comes from a token before it, counting the residual connection as half of each attention step. "
        "Definition: encoder layer 0.5·Ā + 0.5·I on the source; decoder layer: half from the source through "
        "cross-attention (0.5·C̄), half from the target through self-attention plus residual (0.5·(0.5·Ā + 0.5·I)).",
        group=_WHOLE,
        compare=None,
    ),
    MatrixMethod(
        id="rollout",
        label="Rollout through cross-attention",
        description="How much of each input token (source and target) reaches each position after this layer: "
        "the layer maps multiplied from the input (docs/methods.md §2.7). After the last decoder layer, a "
        "target row splits between the source tokens and the target tokens before it.",
        compute=lambda view, _settings: view.rollout(),
        explain="Follows the layer maps from the input through the encoder and across cross-attention into the "
        "decoder. An edge from an input token (left: source and target tokens) to a token after this layer "
        "(right) is the share of that token tracing back to the input token; dark is the most. Definition: "
        "J_l = M_l · … · M_1, the product of the layer maps (docs/methods.md §2.7).",
        cumulative=True,
        graph="attention",
        group=_WHOLE,
        compare=None,
    ),
    MatrixMethod(
        id="flow",
        label="Attention flow through cross-attention",
        description="Abnar & Zuidema's exact attention flow on the joint graph whose capacities are the layer "
        "maps: the maximum flow from each input token (source and target) to each position after this layer, "
        "normalised per row (docs/methods.md §2.7).",
        compute=lambda view, _settings: view.flow(),
        explain="Treats the layer maps as pipes with capacities and asks how much can flow from an input token "
        "(left) to a token after this layer (right) at once, through every path together; each row is then "
        "scaled to sum to 1. Unlike rollout it is not a sum over paths: shared bottlenecks limit it. Definition: "
        "max-flow from input j to token t in the layered graph of the layer maps, normalised per row.",
        cumulative=True,
        graph="attention",
        group=_WHOLE,
        compare=None,
        layers=lambda view, wanted, progress: view.flow(wanted, progress),
        done=lambda view: view.flow_layers_done(),
        on_request=_flow_cost,
    ),
)
