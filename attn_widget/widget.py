"""``AttentionWidget``: construction and delegation (its traits and their checks: widget_traits.py); no
tensor maths here."""

from __future__ import annotations

import dataclasses
import pathlib
from collections.abc import Sequence

import traitlets as t

from . import checks, export, payload
from .analysis import Analysis
from .api import analyze
from .inputs import check_order, unwrap
from .jobs import BackgroundJob
from .joint import JointView
from .joint_methods import DEFAULT_METHOD as JOINT_DEFAULT
from .joint_methods import METHODS as JOINT_METHODS
from .methods import registry
from .methods.registry import MatrixMethod, ViewSettings
from .on_request import OnRequest
from .pinned_row import PinnedRow
from .quiet import shown_in_view
from .seq2seq import Seq2SeqAnalysis
from .shown_heads import ShownHeads
from .shown_image import image_fact
from .targets import Target
from .text import display_token
from .token_scores import TokenScores
from .traits import data_traits
from .widget_traits import ALL_EDGES_UP_TO, LONG_INPUT_TOP_K, WidgetTraits

_STATIC = pathlib.Path(__file__).parent / "static"


class AttentionWidget(OnRequest, TokenScores, PinnedRow, ShownHeads, WidgetTraits):
    """Interactive bipartite layer graph of how attention moves information between tokens.

    ``display(AttentionWidget(model, text))`` runs ``model`` once on ``text`` and shows,
    for the selected layer, the tokens entering it on the left and leaving it on the
    right, with edges weighted by the selected method.
    """

    _esm = _STATIC / "widget.js"
    _css = _STATIC / "widget.css"

    def __init__(
        self,
        model=None,
        text: str | None = None,
        tokenizer=None,
        *,
        target: str | None = None,
        analysis: Analysis | Seq2SeqAnalysis | None = None,
        prepare: str | Sequence[str] = (),
        **state,
    ):
        """Analyse ``text`` with ``model`` (or show an existing ``analysis``).

        target: encoder-decoders only, the text the decoder is forced to produce (None: the model's own
        greedy output); the widget then shows source and target tokens through the encoder's and the
        decoder's layers (``attn_widget.joint``).
        prepare: method ids (or "all") to compute in the background after the first picture, so that
            selecting them later answers at once (``prepare``); the others are computed when first selected.
        state: initial ``layer``, ``head`` or ``method``.
        """
        if analysis is None:
            if model is None or text is None:
                raise TypeError("AttentionWidget needs a model and a text: AttentionWidget(model, text).")
            check_order(model, text, "AttentionWidget")
            # A text model's pass reads the shown layer; a long input's other layers come after the first picture.
            layers = _first_layers(model, text, state.get("layer", 1))
            analysis = analyze(model, text, tokenizer, target=target, layers=layers)
        elif model is not None or text is not None or target is not None:
            raise TypeError("Pass either model and text (and target), or analysis=, not both.")
        # What the methods read: an Analysis, or an encoder-decoder's JointView (its .seq2seq is the analysis).
        self.analysis: Analysis | JointView
        joint: JointView | None = None
        if isinstance(analysis, Seq2SeqAnalysis):
            self.analysis = joint = JointView(analysis)
        else:
            self.analysis = analysis
        shown = self.analysis
        self._init_writes()
        self._job = BackgroundJob(self._writing)
        self._computed: set[str] = set()  # methods whose data trait holds what is computed of them
        self._init_on_request()
        self._init_pinned_row()
        record = shown.capture
        # This widget's methods: the registry as it is now (a method registered later is not added).
        available = [m for m in JOINT_METHODS if not m.applies(joint)] if joint else registry.applicable(shown)
        # The per-layer steps the cumulative methods draw as their whole-model edges (in no menu).
        graphs = registry.graphs_of(available)
        self._specs = {method.id: method for method in [*available, *graphs]}
        # Before the comm opens, so that the front end gets these traits in the first message
        # (HasTraits' add_traits: ipywidgets' own would send each at once, and list it twice).
        t.HasTraits.add_traits(self, **data_traits([*available, *graphs]))
        with self._setting_facts():
            super().__init__(
                # Display strings again: an analysis may come from a capture made elsewhere.
                tokens=[display_token(token) for token in record.tokens],
                special=[bool(s) for s in record.special],
                n_layers=record.n_layers,
                n_heads=record.n_heads,
                causal=record.causal,
                model_name=display_token(record.model_name),
                image=image_fact(shown.capture) if isinstance(shown, Analysis) else {},
                methods=[m.meta(shown) for m in available],
                graphs=[m.meta(shown) for m in graphs],
                attributions=[entry.meta() for entry in self._attribution_entries()],
                layer_names=joint.layer_names() if joint else [],
                column_names=joint.column_names() if joint else [],
                segments=joint.segments() if joint else [],
                top_k=0 if len(record.tokens) <= ALL_EDGES_UP_TO else LONG_INPUT_TOP_K,
            )
        if joint is not None:
            self.method = JOINT_DEFAULT  # where the decoder reads the source: the first question asked of a seq2seq
        elif self.method not in self._specs:
            self.method = available[0].id
        self._targets: dict[str, Target] = {}
        self._attribution_job = BackgroundJob(self._writing)
        self._offer_default_target()
        # compare_method after method: it is checked against the method shown.
        for name, value in sorted(state.items(), key=lambda item: item[0] == "compare_method"):
            if name not in self._VIEW_OPTIONS:
                raise TypeError(f"Unknown option {name!r}; the initial view accepts {', '.join(self._VIEW_OPTIONS)}.")
            setattr(self, name, value)
        # After the initial layer: the heads sent are its.
        self._init_shown_heads(analysis.capture.heads if isinstance(analysis, Analysis) else None)
        # After the initial view, so that its settings are computed with once; one message to the front end.
        # Only what the first picture shows is computed (and deferred methods' layers kept so far); the other
        # methods are sent empty and computed when first selected (on_request.py) or prepared.
        first = self._shown_ids()
        with self.hold_sync():
            for method in [*available, *graphs]:
                if method.deferred(self.analysis):
                    assert method.done is not None  # deferred() says layers; they come with done
                    # Sent with the layers it has already (an analysis shared with another widget), else empty.
                    wanted = bool(method.done(self.analysis))
                else:
                    wanted = method.id in first
                if wanted:
                    self._publish(method)
                else:
                    self._publish_empty(method)
        # From now on a method first selected (or compared) is computed then, in the background (on_request.py).
        self.observe(lambda _change: self._compute_whole(self._shown_ids()), ["method", "compare_method"])
        self.on_msg(self._handle_message)
        self._want_heads()  # a long input's other layers, after the first picture (shown_heads.py)
        if prepare:
            self.prepare(prepare)

    @t.observe("selected", "method")
    def _pin_changed(self, _change) -> None:
        self._want_pinned_row()  # pinned_row.py

    @t.observe("layer", "head", "view", "method", "compare_method")
    def _drawn_changed(self, change) -> None:
        if hasattr(self, "_heads_job"):  # not while __init__ sets the initial view
            self._send_shown()  # shown_heads.py: a long input's per-head data holds what is drawn
            if change["name"] == "layer":
                self._want_heads()

    @t.observe("target", "attribution")
    def _token_scores_chosen(self, _change) -> None:
        self._attribute()  # token_scores.py (observers are only bound when declared on the widget class)

    # Export ------------------------------------------------------------------------
    def to_html(self, path=None, title: str | None = None) -> str:
        """Write one self-contained interactive HTML file (works offline, no kernel); returns its text.
        Every method is computed first (``prepare``); a method computed layer by layer holds its layers so far."""
        self._want_heads()  # every layer read (shown_heads.py)
        self.prepare("all", wait=True)
        self._heads_job.wait()
        return export.to_html(self, path, title)

    def to_numpy(self) -> dict:
        """Exact values of every method shown: ``{method id: array}`` (see ``attn_widget.export``)."""
        return export.to_numpy(self)

    def to_frame(self, method: str | None = None, layer: int | None = None, head: int | None = None):
        """The current slice (or another) as a pandas DataFrame labelled with the tokens."""
        return export.to_frame(self, method, layer, head)

    def set_state(self, sync_data) -> None:
        """Apply a state update from the front end: settings of the view only, checked as Python's are.

        A refused update changes nothing (traitlets undoes all of it) and the front end is sent
        the kernel's values back, so both sides keep a state that draws a true picture.
        """
        try:
            # Only the view's settings and picks (and ipywidgets' view count, which its front end keeps when asked):
            # never anywidget's and ipywidgets' own traits (the front-end code, its module and model names, layout).
            refused = sorted(name for name in sync_data if name not in (*self._FROM_FRONT_END, "_view_count"))
            if refused:
                raise t.TraitError(f"{', '.join(refused)} cannot be set from the front end.")
            super().set_state(sync_data)
        except t.TraitError as error:
            self.log.warning("attn_widget refused a state update from the front end: %s", error)
            self.send_state([name for name in sync_data if name in self.keys])

    @property
    def own_keys(self) -> list[str]:
        """This widget's own synced traits (not ipywidgets' layout and the like): the class's, then
        the data traits made from the registry."""
        return [*WidgetTraits.class_own_traits(sync=True), *data_traits(self._specs.values())]

    def _publish(self, method: MatrixMethod) -> None:
        """Encode one method's data (what is computed of it) into its trait(s); only they are re-sent."""
        with shown_in_view():  # what a remark would say ("effective attention equals raw attention") is in the note
            data, done = method.values(self.analysis, self.view_settings)
        data, row = self._with_pinned_row(method.id, data, done)
        rows = None if method.row_values is None else payload.encode(method.row_values(self.analysis).unsqueeze(-1))
        self._computed.add(method.id)
        while True:
            slices = self._sent_slices(method, done)  # shown_heads.py: a long input's layers read, what is drawn
            blob = payload.encode(data, self._sent_budget(slices), slices) if done or row is not None else b""
            with self._setting_facts(), self.hold_sync():  # only writes: other threads wait for them (_writing)
                if slices != self._sent_slices(method, done):
                    continue  # the page changed what is drawn meanwhile: encode again
                setattr(self, f"data_{method.id}", blob)
                self._sent_record(method, slices)
                if row is not None or method.id in self.ready_row:
                    self.ready_row = {k: v for k, v in {**self.ready_row, method.id: row}.items() if v is not None}
                if rows is not None:
                    setattr(self, f"data_{method.id}_rows", rows)
                self.ready = {**self.ready, method.id: done}
                return

    def _publish_empty(self, method: MatrixMethod) -> None:
        """Send a method not computed yet: no data, no layer ready (the view says it is coming)."""
        self._computed.discard(method.id)
        with self._setting_facts(), self.hold_sync():
            setattr(self, f"data_{method.id}", b"")
            if method.row_values is not None:
                setattr(self, f"data_{method.id}_rows", b"")
            self.ready = {**self.ready, method.id: []}

    def _shown_ids(self) -> list[str]:
        """The methods whose data the view draws now: the shown one and the compared one, each with the method
        that draws its whole-model graph."""
        ids = []
        for method_id in (self.method, self.compare_method):
            if method_id in self._specs:
                ids += [method_id, self._specs[method_id].graph or method_id]
        return list(dict.fromkeys(ids))

    def _method_layers(self, method_id: str) -> tuple[str, list[int]] | None:
        """The method's label and the layers it is defined in, or None when it has every layer."""
        spec = self._specs.get(method_id)
        if spec is None or spec.defined_layers is None:
            return None
        return spec.label, spec.defined_layers(self.analysis)

    @t.observe("method")
    def _layer_of_method(self, change) -> None:
        """A method defined in some layers only (cross-attention: the decoder's) moves the layer to the
        nearest of them; a compared method that no longer draws the same graph is turned off."""
        defined = self._method_layers(change["new"])
        if defined is not None and self.layer not in defined[1]:
            self.layer = min(defined[1], key=lambda layer: abs(layer - self.layer))
        if self.compare_method and not checks.comparable(self._meta(self.compare_method), self._meta(change["new"])):
            self.compare_method = ""  # a comparison of graphs over different tokens or layers draws nothing true

    def _meta(self, method_id: str) -> dict:
        """The ``methods`` entry of one method id."""
        return next(m for m in self.methods if m["id"] == method_id)

    def method_spec(self, method_id: str) -> MatrixMethod:
        """The registry entry behind one of ``methods`` (KeyError if it is not one)."""
        return self._specs[method_id]

    @property
    def view_settings(self) -> ViewSettings:
        """The settings that change what the methods compute."""
        return ViewSettings(binarize_threshold=self.binarize_threshold)

    @t.observe(*(field.name for field in dataclasses.fields(ViewSettings)))
    def _recompute(self, change) -> None:
        """Publish again the computed methods that read the changed setting (not during __init__, which
        publishes the first picture afterwards)."""
        for method in self._specs.values():
            if change["name"] in method.settings and method.id in self._computed:
                self._publish(method)


def _first_layers(model, text, layer) -> list[int] | None:
    """The layer a text model's widget shows first, for its one pass to read (None: every layer; a layer that
    does not exist is refused by the widget's own check of ``layer``, after the pass)."""
    config = getattr(unwrap(model), "config", None)
    count = getattr(config, "num_hidden_layers", None)
    if not isinstance(text, str) or getattr(config, "is_encoder_decoder", False) or not isinstance(count, int):
        return None
    return [layer] if isinstance(layer, int) and not isinstance(layer, bool) and 1 <= layer <= count else None
