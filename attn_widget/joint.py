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
an analysis (and its token scores over both token lists); ``joint_methods.METHODS`` is its menu.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from .methods.flow import layer_numbers
from .methods.heads import per_head_stack
from .methods.rollout import residual_augment
from .progress import ProgressArg, progress_reporter
from .seq2seq import Seq2SeqAnalysis
from .seq2seq_gradients import METHODS as GRADIENT_METHODS
from .seq2seq_gradients import gradient_part
from .targets import Target

RESIDUAL = 0.5  # α of §2.7: the residual's share in every layer map


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
        # Encoder and decoder may have different head counts (BART's encoder_attention_heads and
        # decoder_attention_heads): the widget's head menu has the most, a kind with fewer leaves the rest empty.
        self.heads_of = {
            "encoder": seq2seq.encoder_attentions.shape[1],
            "decoder": seq2seq.decoder_attentions.shape[1],
            "cross": seq2seq.cross_attentions.shape[1],
        }
        self.capture = JointFacts(
            tokens=[*seq2seq.source_tokens, *seq2seq.target_tokens],
            special=[*encoder.capture.special, *(int(i) in special_ids for i in seq2seq.target_ids)],
            n_layers=self.n_encoder_layers + self.n_decoder_layers,
            n_heads=max(self.heads_of.values()),
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

    def column_names(self) -> list[list[str]]:
        """What each column 0..L holds, one name per token list (source, target): the input; after encoder
        layer m the source is mixed and the target waits; after decoder layer k the source is the encoder's
        output."""
        return [
            ["Input (layer 0)"],
            *([f"Encoder {m}", "decoder input"] for m in range(1, self.n_encoder_layers + 1)),
            *(["Encoder output", f"decoder {k}"] for k in range(1, self.n_decoder_layers + 1)),
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
        effective attention (``Seq2SeqAnalysis.effective``) instead of the weights. A kind with fewer heads
        than H (``heads_of``) fills its own; the others stay empty (``missing_heads`` says so)."""
        s2s, ns, le, h = self.seq2seq, self.ns, self.n_encoder_layers, self.heads_of[kind]
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
        stacked = per_head_stack(block.to(torch.float64))  # (layers, h + 2, rows, cols): heads, mean, max
        out[layers, :h, rows, cols] = stacked[:, :h]
        out[layers, self.n_heads :, rows, cols] = stacked[:, h:]
        return out

    def missing_heads(self, kind: str) -> str:
        """One sentence when ``kind`` has fewer heads than the head menu offers, else ""."""
        h = self.heads_of[kind]
        if h == self.n_heads:
            return ""
        empty = f"head {h} is" if h == self.n_heads - 1 else f"heads {h}-{self.n_heads - 1} are"
        return f"This attention has {h} heads (the menu offers {self.n_heads}, for the other kinds): {empty} empty."

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
