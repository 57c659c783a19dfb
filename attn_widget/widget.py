"""``AttentionWidget``: traits, validation and delegation; no tensor maths here."""

from __future__ import annotations

import pathlib

import anywidget
import traitlets as t

from . import payload
from .analysis import Analysis, analyze
from .catalog import VIEW_METHODS

_STATIC = pathlib.Path(__file__).parent / "static"
MEAN_HEAD = -1
MAX_HEAD = -2


class AttentionWidget(anywidget.AnyWidget):
    """Interactive bipartite layer graph of how attention moves information between tokens.

    ``display(AttentionWidget(model, text))`` runs ``model`` once on ``text`` and shows,
    for the selected layer, the tokens entering it on the left and leaving it on the
    right, with edges weighted by the selected method.
    """

    _esm = _STATIC / "widget.js"
    _css = _STATIC / "widget.css"

    # Facts about the analysed text, set once.
    tokens = t.List(t.Unicode(), help="Display text of every token, in order.").tag(sync=True)
    special = t.List(t.Bool(), help="Whether each token is a special token ([CLS], <s>, ...).").tag(sync=True)
    n_layers = t.Int(help="Number of attention layers L.").tag(sync=True)
    n_heads = t.Int(help="Query heads per layer H.").tag(sync=True)
    causal = t.Bool(help="True for decoders: token i sees only tokens 0..i.").tag(sync=True)
    model_name = t.Unicode(help="Model name or path, for the caption.").tag(sync=True)
    methods = t.List(t.Dict(), help="Available methods: id, label, per_head, cumulative, description.").tag(
        sync=True
    )

    # Data: one binary envelope per method (see payload.py), never JSON lists of floats.
    data_raw = t.Bytes(help="Raw attention (L, H + 2, n, n): each head, mean, max.").tag(sync=True)
    data_rollout = t.Bytes(help="Rollout to every layer (L, n, n).").tag(sync=True)

    # Small UI state: moving a control never re-sends data.
    layer = t.Int(1, help="Selected layer, 1..L as displayed (tensor index layer - 1).").tag(sync=True)
    head = t.Int(MEAN_HEAD, help="Selected head 0..H-1, or -1 for the mean of heads, -2 for their max.").tag(
        sync=True
    )
    method = t.Unicode("raw", help="Selected method id, one of ``methods``.").tag(sync=True)

    def __init__(self, model=None, text: str | None = None, tokenizer=None, *, analysis: Analysis | None = None, **state):
        """Analyse ``text`` with ``model`` (or show an existing ``analysis``).

        state: initial ``layer``, ``head`` or ``method``.
        """
        if analysis is None:
            if model is None or text is None:
                raise TypeError("AttentionWidget needs a model and a text: AttentionWidget(model, text).")
            analysis = analyze(model, text, tokenizer)
        elif model is not None or text is not None:
            raise TypeError("Pass either model and text, or analysis=, not both.")
        self.analysis = analysis
        record = analysis.capture
        super().__init__(
            tokens=record.tokens,
            special=[bool(s) for s in record.special],
            n_layers=record.n_layers,
            n_heads=record.n_heads,
            causal=record.causal,
            model_name=record.model_name,
            methods=[m.meta() for m in VIEW_METHODS],
            **{f"data_{m.id}": payload.encode(m.stack(analysis)) for m in VIEW_METHODS},
        )
        for name, value in state.items():
            if name not in ("layer", "head", "method"):
                raise TypeError(f"Unknown option {name!r}; the initial view accepts layer, head and method.")
            setattr(self, name, value)

    @t.validate("layer")
    def _check_layer(self, proposal):
        layer = proposal["value"]
        if not 1 <= layer <= self.n_layers:
            raise t.TraitError(f"layer must be between 1 and {self.n_layers} (as displayed); got {layer}.")
        return layer

    @t.validate("head")
    def _check_head(self, proposal):
        head = proposal["value"]
        if not MAX_HEAD <= head < self.n_heads:
            raise t.TraitError(
                f"head must be 0..{self.n_heads - 1}, {MEAN_HEAD} for the mean or {MAX_HEAD} for the max; got {head}."
            )
        return head

    @t.validate("method")
    def _check_method(self, proposal):
        ids = [m["id"] for m in self.methods]
        if proposal["value"] not in ids:
            raise t.TraitError(f"method must be one of {ids}; got {proposal['value']!r}.")
        return proposal["value"]
