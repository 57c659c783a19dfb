"""The encoder-decoder widget's menu (``joint.JointView``): each attention kind per head and its
effective attention, the whole-model graph, the joint layer maps, and the rollout and exact flow
through them (docs/methods.md §2.7). Entries are ``MatrixMethod``s, not registered: the registry's
methods read an ``Analysis`` of one token list."""

from __future__ import annotations

import dataclasses
import warnings

from .errors import UnsupportedModelError
from .methods.registry import MatrixMethod, matrix_method

DEFAULT_METHOD = "cross"  # what the widget opens on: where the decoder reads the source


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


def _kind(id: str, label: str, description: str, kind: str, reads: str, effective: bool = False) -> MatrixMethod:
    # The menu line and "when to trust it" of the one-text methods these are the kinds of.
    like = matrix_method("effective" if effective else "raw")
    return MatrixMethod(
        id=id,
        label=label,
        description=description,
        explain=_explain(kind, effective),
        hint=like.hint if effective else f"{reads[0].upper()}{reads[1:]}.",
        trust=like.trust,
        compute=lambda view, _settings: view.per_head(kind, effective),
        per_head=True,
        signed=effective,
        attention_weights=not effective,
        defined_layers=_defined_in("encoder" if kind == "encoder" else "decoder"),
        note=lambda view: view.missing_heads(kind),
        compare=None,
        group="Effective attention" if effective else "Attention as a graph",
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
        head_dim = view.seq2seq.head_dim(kind)
        keys = view.nt if kind == "decoder" else view.ns
        if keys <= head_dim:
            said = f"{keys} keys do not exceed the head dimension ({head_dim}): equal to the weights here."
        else:
            said = f"Rows of the first {head_dim} target positions are unchanged." if kind == "decoder" else ""
        return " ".join(part for part in (said, view.missing_heads(kind)) if part)

    return note


def _flow_cost(view) -> str:
    return (
        f"{view.capture.n_tokens} tokens need a max-flow problem for every (layer, position, input token); "
        "about 10 s at 128 + 32 tokens through 6 + 6 layers."
    )


_WHOLE = "Through the whole model (encoder → decoder)"
_COMPOSED_TRUST = (
    "Assumes each layer mixes tokens linearly with the residual as half, and ignores value vectors and "
    "feed-forward blocks."
)
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
        _kind(_IDS[kind], label.capitalize(), f"Attention weights of the {label}: {reads}.", kind, reads)
        for kind, label, reads in _KINDS
    ),
    *(
        dataclasses.replace(
            _kind(f"effective_{_IDS[kind]}", f"Effective {label}", f"{_EFFECTIVE} Here: {reads}.", kind, reads, True),
            applies=_effective_applies(kind),
            note=_effective_note(kind),
        )
        for kind, label, reads in _KINDS
    ),
    MatrixMethod(
        id="attention",
        label="Self- and cross-attention",
        description="Every attention weight of a layer (head means): encoder self-attention among the source "
        "tokens; in a decoder layer, cross-attention to the source and self-attention to the target together. "
        "Tokens a layer does not touch carry their state unchanged (horizontal edges of weight 1).",
        compute=lambda view, _settings: view.attention(),
        attention_weights=True,
        hint="Every attention weight of a layer: in a decoder layer, cross- and self-attention together.",
        trust=matrix_method("raw").trust,
        explain="Every attention weight of a layer as one graph: in an encoder layer, the source tokens' attention to "
        "each other; in a decoder layer, each target position's cross-attention to the source and self-attention to "
        "the target before it, together. Tokens a layer does not touch keep their state: a horizontal edge of weight "
        "1. Definition: encoder layer Ā_enc on the source rows; decoder layer [C̄ | Ā_self] on the target rows "
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
        hint="Each layer's step as rollout composes it: attention, with the residual as half.",
        trust=_COMPOSED_TRUST,
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
        hint="How much of each source and target token reaches each token after this layer.",
        trust=_COMPOSED_TRUST,
        explain="Follows the layer maps from the input through the encoder and across cross-attention into the "
        "decoder. An edge from an input token (left: source and target tokens) to a token after this layer "
        "(right) is the share of that token tracing back to the input token; dark is the most. Definition: "
        "J_l = M_l · … · M_1, the product of the layer maps (docs/methods.md §2.7).",
        cumulative=True,
        graph="layer_maps",  # what it composes: the whole-model view's edges
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
        hint="The most that can flow from each source and target token to each token, with layers as pipes.",
        trust=_COMPOSED_TRUST + " Flow measures a bottleneck, not an amount: it often spreads evenly.",
        explain="Treats the layer maps as pipes with capacities and asks how much can flow from an input token "
        "(left) to a token after this layer (right) at once, through every path together; each row is then "
        "scaled to sum to 1. Unlike rollout it is not a sum over paths: shared bottlenecks limit it. Definition: "
        "max-flow from input j to token t in the layered graph of the layer maps, normalised per row.",
        cumulative=True,
        graph="layer_maps",  # what it composes: the whole-model view's edges
        group=_WHOLE,
        compare=None,
        layers=lambda view, wanted, progress: view.flow(wanted, progress),
        done=lambda view: view.flow_layers_done(),
        on_request=_flow_cost,
    ),
)
