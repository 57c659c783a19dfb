"""The registry of what the widget, exports and ``compare()`` can show.

A method is one file in this package: its maths, then one ``register(...)`` (a matrix method)
or ``register_attribution(...)`` (a per-token score) call at the bottom. ``methods/__init__.py``
imports the method files in menu order, and registration order is menu order.

The callables receive an ``Analysis`` (duck-typed: nothing here imports it), so this module
stays free of transformers, traitlets and IPython.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import torch

from ..payload import HeldLayers
from .heads import PerHead, joined

# Flow needs one max-flow problem per (layer, token, input token). Up to this many
# tokens it is computed with the widget (about a second for 12 layers on two cores,
# benchmarks/RESULTS.md); beyond, each layer is computed when the view asks for it.
FLOW_UPFRONT_MAX_TOKENS = 40
DEFAULT_BINARIZE_THRESHOLD = 0.05
# The whole-model graph of a cumulative method that declares no per-layer step of its own (``graph=``): the
# head-averaged attention, which the caption names as such.
WHOLE_MODEL_GRAPH = "raw"


@dataclass(frozen=True)
class ViewSettings:
    """The widget's settings that change what a method computes (not just how it is drawn)."""

    binarize_threshold: float = DEFAULT_BINARIZE_THRESHOLD  # path counts: an edge exists where Ā > this


def row_at(matrix: torch.Tensor, position: int | None) -> torch.Tensor:
    """Row ``position`` of ``(..., n, n)``, or the mean of all rows when the target pools positions."""
    return matrix.mean(-2) if position is None else matrix[..., position, :]


def _always(_analysis) -> str:
    return ""


def _no_note(_analysis) -> str:
    return ""


def needs_values(analysis) -> str:
    """Applicability of methods built on effective attention."""
    if not analysis.capture.has_values:
        return "This model family has no adapter for its value vectors, which effective attention needs."
    return ""


def decoders_only(analysis) -> str:
    """Applicability of receptive-field normalised methods."""
    return (
        "" if analysis.causal else "Receptive-field normalisation is for decoders; every encoder token sees all keys."
    )


@dataclass(frozen=True)
class Comparison:
    """How a matrix method enters ``compare()``.

    name: its label in the rows (default: the method id). rows: ``(analysis, t) -> (L, n)``,
    row t of every layer (t None: the mean of all rows); default: from ``compute`` with default
    settings (the head mean of per-head methods). applies: ``(analysis) -> bool``, beyond ``applies``.
    """

    name: str = ""
    rows: Callable[[Any, int | None], torch.Tensor] | None = None
    applies: Callable[[Any], bool] = lambda analysis: True


@dataclass(frozen=True)
class MatrixMethod:
    """One entry of the method menu: a stack of token-to-token matrices per layer."""

    id: str
    label: str
    description: str
    # (analysis, settings) -> (L, n, n), or (L, H + 2, n, n) when per_head (each head, mean, max); a
    # register_graph step's: a HeldLayers, each layer made when sent
    compute: Callable[[Any, ViewSettings], torch.Tensor | PerHead | HeldLayers]
    # Plain-language help shown in the widget's "About this method" panel (plain text, no HTML): what an
    # edge means, what its colour means, the definition in one formula; every abbreviation spelled out.
    explain: str = ""
    # One line for a learner choosing from the menu (what an edge means), and when to trust the picture
    # (its assumptions, and what it leaves out), shown in "About this method". Plain text.
    hint: str = ""
    trust: str = ""
    per_head: bool = False
    integer: bool = False  # the values are whole numbers (path counts): printed without decimals
    # The values are attention weights (softmax rows): the legend says what share of "the attention" the drawn
    # edges carry; of any other method, what share of the rows' totals.
    attention_weights: bool = False
    cumulative: bool = False  # sources are the input tokens (layer 0), not the previous layer
    signed: bool = False  # values may be negative (drawn in a second colour)
    # (analysis) -> "" when the method applies, else one sentence saying why not.
    applies: Callable[[Any], str] = _always
    # Deferred layer-by-layer computing (flow on long inputs): (analysis, layers or None, progress)
    # -> (len(layers), n, n), and the layer numbers already computed, (analysis) -> [1..L].
    layers: Callable[..., torch.Tensor] | None = None
    done: Callable[[Any], list[int]] | None = None
    # A deferred method whose row t can be computed alone, layer by layer: (analysis, t, layers) ->
    # (len(layers), n). The widget computes the pinned token's row with it when the method is deferred
    # (flow: n max flows a layer), the shown layer first.
    row: Callable[[Any, int, list[int]], torch.Tensor] | None = None
    # Layers whose row is closed form (flow: 1 and 2), computed together at once before the slow ones.
    row_instant: tuple[int, ...] = ()
    # A per-row quantity shown with the method: (analysis) -> (L, S, n), S the slices per layer.
    row_values: Callable[[Any], torch.Tensor] | None = None
    row_label: str = ""
    # A remark about this input shown with the method (e.g. "nothing changes here").
    note: Callable[[Any], str] = _no_note
    compare: Comparison | None = field(default_factory=Comparison)  # None: not in compare()
    # The id whose per-layer data draws this one's edges in the whole-model view ("" = its own): a cumulative
    # method's own step where it has one (rollout's 0.5·Ā + 0.5·I, a ``register_graph`` entry; a mixing
    # rollout's map), so that the edges are what the method composes.
    graph: str = ""
    settings: tuple[str, ...] = ()  # the ViewSettings fields compute reads (a change recomputes it)
    group: str = ""  # the heading the menu lists it under ("": none, after the headed groups)
    # How a method that is not per head uses the heads, for captions: "mean" (built on the head-averaged
    # attention) or "combined" (every head's contribution together, through the output projection).
    heads: str = "mean"
    # A method not deferred whose data holds the layers read so far: (analysis) -> their numbers 1..L (a long
    # input's raw attention, read layer by layer: head_store.py); None: every layer.
    present: Callable[[Any], list[int]] | None = None
    # The layers (1..L) where the method is defined, (analysis) -> list; None: every layer. An
    # encoder-decoder's cross-attention exists in its decoder layers only (attn_widget.joint).
    defined_layers: Callable[[Any], list[int]] | None = None

    # Deferred methods: whether this input is small enough to compute with the widget (default:
    # up to FLOW_UPFRONT_MAX_TOKENS tokens), and what computing a layer costs, said to the user.
    upfront: Callable[[Any], bool] | None = None
    on_request: Callable[[Any], str] = _no_note

    def deferred(self, analysis) -> bool:
        """Whether to compute this method layer by layer when asked rather than up front."""
        if self.layers is None:
            return False
        if self.upfront is not None:
            return not self.upfront(analysis)
        return analysis.capture.n_tokens > FLOW_UPFRONT_MAX_TOKENS

    def values(self, analysis, settings: ViewSettings) -> tuple[torch.Tensor | PerHead | HeldLayers, list[int]]:
        """The data to show and the layer numbers it holds. A deferred method's is a new ``HeldLayers`` each call:
        its computed layers, read one at a time when encoded, the others zero (the widget adds a pinned token's
        row to it)."""
        if not self.deferred(analysis):
            present = self.present(analysis) if self.present is not None else range(1, analysis.n_layers + 1)
            return self.compute(analysis, settings), list(present)
        layers = self.layers
        assert self.done is not None and layers is not None  # deferred() says layers; register_flow pairs them
        done = self.done(analysis)
        n = analysis.capture.n_tokens

        def read(index: int) -> torch.Tensor:
            return layers(analysis, [index + 1], False)[0]

        return HeldLayers((analysis.n_layers, n, n), [layer - 1 for layer in done], read), done

    def compare_rows(self, analysis, t: int | None) -> torch.Tensor:
        """``(L, n)``: row t of every layer (the mean of all rows when t is None)."""
        if self.compare is not None and self.compare.rows is not None:
            return self.compare.rows(analysis, t)
        stack = self.compute(analysis, ViewSettings())
        if isinstance(stack, HeldLayers):
            stack = joined(stack)
        elif isinstance(stack, PerHead):
            stack = stack.mean[:, 0]
        elif self.per_head:
            stack = stack[:, analysis.n_heads]  # the head mean
        return row_at(stack, t)

    def meta(self, analysis) -> dict:
        """What the front end needs to label, index and draw the data (JSON-safe)."""
        return {
            "id": self.id,
            "label": self.label,
            "per_head": self.per_head,
            "cumulative": self.cumulative,
            "signed": self.signed,
            "description": self.description,
            "explain": self.explain,
            "hint": self.hint,
            "trust": self.trust,
            "integer": self.integer,
            "attention_weights": self.attention_weights,
            "row_label": self.row_label,
            "graph": self.graph,
            "settings": list(self.settings),
            "group": self.group,
            "heads": self.heads,
            "on_request": self.on_request(analysis) if self.deferred(analysis) else "",
            "note": self.note(analysis),
            "layers": None if self.defined_layers is None else self.defined_layers(analysis),
        }


@dataclass(frozen=True)
class AttributionMethod:
    """One entry of the token-score menu: a score per input token for a target."""

    id: str
    label: str  # menu label
    description: str
    # (analysis, target, **options) -> (n,); target is resolved (targets.Target: .position, .key)
    compute: Callable[..., torch.Tensor]
    signed: bool = False
    hint: str = ""  # one line for a learner choosing from the menu, as a matrix method's
    trust: str = ""  # when to trust the scores, as a matrix method's
    progress: bool = False  # compute accepts progress= (True: a bar, False: none, or (done, total))
    # (analysis, target) -> an optional plain-text warning to show with the scores, after compute.
    warning: Callable[[Any, Any], str | None] = lambda analysis, target: None
    # (analysis) -> "" when the method applies to this model, else one sentence saying why not
    # (default: whether gradients and re-runs can be taken on this input; not yet for images).
    applies: Callable[[Any], str] = lambda analysis: analysis.gradient_part.unavailable()

    def meta(self) -> dict:
        return {
            "id": self.id,
            "label": self.label,
            "description": self.description,
            "signed": self.signed,
            "hint": self.hint,
            "trust": self.trust,
        }


@dataclass(frozen=True)
class MixingMethod:
    """A per-layer context-mixing map (docs/methods.md §7), computed by the analysis' mixing part."""

    id: str
    label: str
    # (mixing part) -> (L, n, n) float64, non-negative, rows summing to 1 (row = receiving token)
    maps: Callable[[Any], torch.Tensor]
    rollout: str  # "identity": 0.5·M + 0.5·I multiplied through; "none": M as it is (the residual is inside)
    needs: str  # what the part must have verified: "values" (A, V, W_O) or "structure" (the block's norms too)
    # Costly maps computed layer by layer: (mixing part, layer indices 0..L-1, progress) -> (len, n, n);
    # with the widget only while ``upfront(analysis)``, otherwise on request (``MatrixMethod.layers``).
    layer_maps: Callable[..., torch.Tensor] | None = None
    # (mixing part) -> "" or one sentence why not, beyond what ``needs`` checks (asked once, kept).
    check: Callable[[Any], str] | None = None
    note: Callable[[Any], str] | None = None  # (analysis) -> a remark shown with the map and its rollout
    upfront: Callable[[Any], bool] | None = None
    on_request: Callable[[Any], str] = _no_note


ROLLOUT_STYLES = ("identity", "none")
MIXING_NEEDS = ("values", "structure")

_MATRIX: dict[str, MatrixMethod] = {}
_ATTRIBUTION: dict[str, AttributionMethod] = {}
_MIXING: dict[str, MixingMethod] = {}
_GRAPHS: dict[str, MatrixMethod] = {}  # per-layer steps drawn as cumulative methods' whole-model edges, in no menu


def register(id: str, label: str, description: str, compute, **options) -> MatrixMethod:
    """Add a matrix method at the end of the menu (fields: ``MatrixMethod``); returns the entry.

    A cumulative method draws its whole-model graph with ``WHOLE_MODEL_GRAPH`` unless ``graph=``
    says otherwise.
    """
    if id in _MATRIX:
        raise ValueError(f"a matrix method {id!r} is already registered.")
    if options.get("cumulative") and "graph" not in options:
        options["graph"] = WHOLE_MODEL_GRAPH
    entry = MatrixMethod(id=id, label=label, description=description, compute=compute, **options)
    _MATRIX[id] = entry
    return entry


def register_graph(
    id: str,
    label: str,
    description: str,
    stack: Callable[[Any], torch.Tensor],
    step: Callable[[torch.Tensor], torch.Tensor],
    **options,
) -> MatrixMethod:
    """Add the per-layer step of cumulative methods, which they name with ``graph=id``: the edges their
    whole-model view draws, in no menu (``AttentionWidget.graphs``). label: what the edges are, said in the
    view's caption and legend ("Attention step 0.5·Ā + 0.5·I"). stack: ``(analysis) -> (L, n, n)``, the matrices
    the methods are built from (of the layers ``present`` says, default all); step: ``(1, n, n) -> (1, n, n)``, one
    layer's step from them. Each layer's step is made when sent (a ``HeldLayers``), so that no second ``(L, n, n)``
    stack is built beside the one the methods themselves use (a long input's head mean is hundreds of megabytes).
    The other fields as ``MatrixMethod``'s."""
    if id in _MATRIX or id in _GRAPHS:
        raise ValueError(f"a matrix method or graph {id!r} is already registered.")
    present = options.get("present")

    def compute(analysis, _settings) -> HeldLayers:
        matrices = stack(analysis)
        layers, rows, cols = matrices.shape
        held = range(layers) if present is None else [layer - 1 for layer in present(analysis)]
        return HeldLayers((layers, rows, cols), held, lambda index: step(matrices[index : index + 1])[0])

    entry = MatrixMethod(id=id, label=label, description=description, compute=compute, compare=None, **options)
    _GRAPHS[id] = entry
    return entry


def graphs_of(methods) -> list[MatrixMethod]:
    """The ``register_graph`` entries these methods name as their whole-model graph, in order."""
    ids = dict.fromkeys(method.graph for method in methods if method.graph in _GRAPHS)
    return [_GRAPHS[graph] for graph in ids]


def graph_entry(graph_id: str) -> MatrixMethod:
    """A ``register_graph`` entry by id (KeyError if there is none)."""
    return _GRAPHS[graph_id]


def register_mixing(
    id: str,
    label: str,
    description: str,
    maps=None,
    rollout: str = "none",
    needs: str = "structure",
    explain: str = "",
    hint: str = "",
    trust: str = "",
    **deferred,
) -> MixingMethod:
    """Add a context-mixing map and its rollout to the menu (ids ``id`` and ``id + "_rollout"``).

    maps: ``(mixing part) -> (L, n, n)``, or ``layer_maps=`` (with ``upfront=``, ``on_request=``) for a
    costly map computed layer by layer on request; rollout, needs: as ``MixingMethod``. Both entries apply
    when the model's structure supports the method (``Analysis.mixing_unavailable``), and the
    rollout's whole-model graph is drawn from the per-layer map. explain, hint, trust: the map's plain-language
    help, menu line and when to trust it (``MatrixMethod``); the rollout's are composed from them.
    """
    if rollout not in ROLLOUT_STYLES or needs not in MIXING_NEEDS:
        raise ValueError(f"rollout must be one of {ROLLOUT_STYLES} and needs one of {MIXING_NEEDS}.")
    if id in _MIXING:
        raise ValueError(f"a mixing method {id!r} is already registered.")
    if (maps is None) == ("layer_maps" not in deferred):
        raise ValueError("pass either maps or layer_maps.")
    spec = MixingMethod(id=id, label=label, maps=maps, rollout=rollout, needs=needs, **deferred)

    def applies(analysis) -> str:
        return analysis.mixing_unavailable(id)

    def deferral(layers, done) -> dict:
        """Layer-by-layer computing for a costly map: ``layers(part)``, ``done(part)`` pick the mixing
        part's methods for the map or for its rollout."""
        if spec.layer_maps is None:
            return {}
        return {
            "layers": lambda analysis, wanted, progress: layers(analysis.mixing_part)(id, wanted, progress),
            "done": lambda analysis: done(analysis.mixing_part)(id),
            "upfront": spec.upfront,
            "on_request": spec.on_request,
        }

    common = {
        "applies": applies,
        "group": "Context mixing (values, residual, norms)",
        "heads": "combined",
        "note": spec.note or _no_note,
    }
    register(
        id,
        label,
        description,
        lambda analysis, _settings: analysis.mixing(id),
        explain=explain,
        hint=hint,
        trust=trust,
        **common,
        **deferral(lambda part: part.map_layers, lambda part: part.map_layers_done),
    )
    composed = (
        "0.5·M + 0.5·I multiplied through the layers (the map holds no residual)"
        if rollout == "identity"
        else "the maps multiplied through the layers, with no added identity (the residual is inside each map)"
    )
    # The rollout's text says how its colours go; the map's, quoted after it, says what one layer's edge is.
    shade = "the colour goes from pale (little) to dark (the most; the legend gives the scale)"
    per_layer = explain.replace(f"; {shade}", "").replace("An edge means:", "In one layer's map, an edge means:")
    register(
        f"{id}_rollout",
        f"{label}, rolled out",
        f"{label} composed: {composed}. How much of each input token reaches each position after this layer.",
        lambda analysis, _settings: analysis.mixing_rollout(id),
        explain=(
            f"The per-layer map ({label}) followed through all layers up to this one. An edge from an input token "
            "on the left to a token on the right after this layer means: that share of the right token traces back "
            f"to the input token; {shade}. "
            + (
                "Definition: R_l = (0.5·M_l + 0.5·I) · … · (0.5·M_1 + 0.5·I), with M the per-layer map and I the "
                "identity (half of each step is the residual, which the map leaves out)."
                if rollout == "identity"
                else "Definition: R_l = M_l · … · M_1, with M the per-layer map (the residual is already inside it)."
            )
            + f" The per-layer map: {per_layer}"
        ),
        hint=f"{label} through the layers: how much of each input token reaches each token.",
        trust=f"Composing the layers assumes they combine linearly. The per-layer map: {trust}",
        cumulative=True,
        graph=id,
        **common,
        **deferral(lambda part: part.rollout_layers, lambda part: part.rollout_layers_done),
    )
    _MIXING[id] = spec
    return spec


def register_attribution(id: str, label: str, description: str, compute, **options) -> AttributionMethod:
    """Add a token-score method at the end of its menu (fields: ``AttributionMethod``)."""
    if id in _ATTRIBUTION:
        raise ValueError(f"an attribution method {id!r} is already registered.")
    entry = AttributionMethod(id=id, label=label, description=description, compute=compute, **options)
    _ATTRIBUTION[id] = entry
    return entry


def unregister(id: str) -> None:
    """Remove a matrix or attribution method (for tests); unknown ids are a KeyError."""
    if id in _MIXING:
        del _MIXING[id], _MATRIX[id], _MATRIX[f"{id}_rollout"]
    elif id in _MATRIX:
        del _MATRIX[id]
    elif id in _ATTRIBUTION:
        del _ATTRIBUTION[id]
    else:
        raise KeyError(id)


@contextlib.contextmanager
def registered(
    entry: MatrixMethod | AttributionMethod | MixingMethod,
) -> Iterator[MatrixMethod | AttributionMethod | MixingMethod]:
    """Unregister ``entry`` (the value ``register`` returned) on leaving the block."""
    try:
        yield entry
    finally:
        unregister(entry.id)


def matrix_methods() -> tuple[MatrixMethod, ...]:
    """Every registered matrix method, in menu order."""
    return tuple(_MATRIX.values())


def matrix_method(method_id: str) -> MatrixMethod:
    return _known(_MATRIX, method_id, "matrix")


def applicable(analysis) -> list[MatrixMethod]:
    """The matrix methods that apply to this analysis, in menu order."""
    return [method for method in _MATRIX.values() if not method.applies(analysis)]


def attribution_methods() -> tuple[AttributionMethod, ...]:
    """Every registered attribution method, in menu order."""
    return tuple(_ATTRIBUTION.values())


def attribution_method(method_id: str) -> AttributionMethod:
    return _known(_ATTRIBUTION, method_id, "attribution")


def _known(entries: dict, method_id: str, kind: str):
    """The registered entry ``method_id``, or a ValueError that lists the ids there are."""
    if method_id not in entries:
        raise ValueError(f"{method_id!r} is not a registered {kind} method; the ids are {', '.join(entries)}.")
    return entries[method_id]


def applicable_attributions(analysis) -> list[AttributionMethod]:
    """The attribution methods that apply to this analysis, in menu order."""
    return [entry for entry in _ATTRIBUTION.values() if not entry.applies(analysis)]


def mixing_methods() -> tuple[MixingMethod, ...]:
    """Every registered context-mixing map, in menu order."""
    return tuple(_MIXING.values())


def mixing_method(method_id: str) -> MixingMethod:
    return _MIXING[method_id]
