"""``AttentionWidget``: traits, validation and delegation; no tensor maths here."""

from __future__ import annotations

import contextlib
import dataclasses
import pathlib
import threading
import warnings

import anywidget
import traitlets as t

from . import checks, export, payload
from .analysis import Analysis
from .api import analyze
from .jobs import BackgroundJob
from .joint import JointView
from .joint_methods import DEFAULT_METHOD as JOINT_DEFAULT
from .joint_methods import METHODS as JOINT_METHODS
from .methods import registry
from .methods.registry import DEFAULT_BINARIZE_THRESHOLD, MatrixMethod, ViewSettings
from .on_request import OnRequest
from .pinned_row import PinnedRow
from .seq2seq import Seq2SeqAnalysis
from .shown_image import MAX_SIDE, image_fact
from .text import display_token
from .token_scores import TokenScores
from .traits import Choice, Count, data_traits, fact, option, pick, tagged

_STATIC = pathlib.Path(__file__).parent / "static"
MEAN_HEAD = checks.MEAN_HEAD
MAX_HEAD = checks.MAX_HEAD
# Beyond this many tokens the view starts with the strongest few edges into each token: rows
# get too thin to tell dozens of edges apart, and drawing them all costs hundreds of
# milliseconds per picture in a browser without GPU rasterisation (benchmarks/RESULTS.md).
ALL_EDGES_UP_TO = 48
LONG_INPUT_TOP_K = 5


class AttentionWidget(OnRequest, TokenScores, PinnedRow, anywidget.AnyWidget):
    """Interactive bipartite layer graph of how attention moves information between tokens.

    ``display(AttentionWidget(model, text))`` runs ``model`` once on ``text`` and shows,
    for the selected layer, the tokens entering it on the left and leaving it on the
    right, with edges weighted by the selected method.
    """

    _esm = _STATIC / "widget.js"
    _css = _STATIC / "widget.css"

    # Facts about the analysed text and what was computed from it (``traits.fact``): the widget sets
    # them, assigning one raises a TraitError, and the front end cannot change them.
    tokens = fact(t.List(t.Unicode()), "Display text of every token, in order (see attn_widget.text.display_token).")
    special = fact(t.List(t.Bool()), "Whether each token is a special token ([CLS], <s>, ...).")
    n_layers = fact(t.Int(), "Number of attention layers L.")
    n_heads = fact(t.Int(), "Query heads per layer H.")
    causal = fact(t.Bool(), "True for decoders: token i sees only tokens 0..i.")
    model_name = fact(t.Unicode(), "Model name or path, for the caption.")
    layer_names = fact(
        t.List(t.Unicode()),
        "Name of each layer 1..L for the labels ([] = 'layer 1', ...); encoder-decoders: 'encoder 1', ..., "
        "'decoder 1', ... (attn_widget.joint).",
    )
    column_names = fact(
        t.List(t.List(t.Unicode())),
        "What each column 0..L holds, one name per token list of ``segments`` or one for all ([] = 'Input (layer "
        "0)', 'Layer 1', ...); encoder-decoders: e.g. ['Encoder output', 'decoder 1'].",
    )
    segments = fact(
        t.List(t.Dict()),
        "The token lists the tokens are made of, in order: [{label, size}] ([] = one text); encoder-decoders: "
        "the source tokens, then the decoder's tokens.",
    )
    methods = fact(
        t.List(t.Dict()),
        "The matrix methods that apply, in menu order (MatrixMethod.meta): id, label, per_head, cumulative, "
        "signed, description, row_label, graph, settings, note. Each has its data in a trait data_<id> (and "
        "data_<id>_rows when it has a row_label), made per widget from the registry.",
    )
    attributions = fact(t.List(t.Dict()), "Token-score methods, in menu order: id, label, description, signed.")
    ready = fact(t.Dict(), "Per method id, the layer numbers present in its data.")
    ready_row = fact(
        t.Dict(),
        "Per method id computed on request, the pinned token whose row its data also holds in the layers not in "
        "``ready`` (the other rows there are zero); attn_widget.pinned_row.",
    )
    image = fact(
        t.Dict(),
        "Images: the model's input as it saw it, drawn beside the graph (attn_widget.shown_image): {rgb: bytes "
        f"(h·w·3, uint8 RGB, row-major), size: [h, w] (at most {MAX_SIDE} a side), grid: [rows, cols], prefix: the "
        "number of tokens before the patches}; {} for text.",
        lambda self, value: checks.image(value, len(self.tokens), MAX_SIDE),
    )
    job = t.Dict(
        help="The running computation {method, layers, done, total}, or {} (with 'error' if it failed). "
        "Set by compute(); numbers must be finite."
    ).tag(sync=True, check=lambda self, value: checks.serialisable(value, "job"))

    # Token scores from gradients or blank-out, beside the graph (docs/methods.md §6, §7.4).
    targets = fact(
        t.List(t.Dict()),
        "Targets to explain: [{id, label, position}] (position None = all rows). "
        "Read-only: add one with set_target(...).",
    )
    target = pick(
        t.Unicode("", help="Selected target id, one of ``targets`` ('' when the model has no default)."),
        lambda self, value: checks.target(value, [target["id"] for target in self.targets]),
    )
    attribution_data = t.Dict(
        help="{} or {target, method, status: 'running' (done, total) | 'done' (values: bytes, (1, 1, n); warning: "
        "an optional plain string shown with the bars) | 'error' (message)}; numbers must be finite."
    ).tag(sync=True, check=lambda self, value: checks.attribution_data(value))
    selected = pick(
        t.Dict(
            help="The pinned token: {side: 'source' | 'target', index: 0..n-1} (one layer), "
            "{layer: 0..L, index: 0..n-1} "
            "(whole model), or {} (nothing pinned)."
        ),
        lambda self, value: checks.selected(value, len(self.tokens), self.n_layers),
    )

    # Settings of the view (``traits.option``), in the order the initial state lists them. Moving a
    # control never re-sends data.
    view = option(
        Choice(
            ("layer", "model", "heads"),
            "layer",
            help="'layer': one layer as a bipartite graph; 'model': every layer as a column; "
            "'heads': a layers × heads grid of small heat maps (click one to open it).",
        )
    )
    layer = option(
        t.Int(1, help="Selected layer, 1..L as displayed (tensor index layer - 1)."),
        lambda self, value: checks.layer(value, self.n_layers, self._method_layers(self.method)),
    )
    head = option(
        t.Int(MEAN_HEAD, help="Selected head 0..H-1, or -1 for the mean of heads, -2 for their max."),
        lambda self, value: checks.head(value, self.n_heads),
    )
    method = option(
        t.Unicode("raw", help="Selected method id, one of ``methods``."),
        lambda self, value: checks.method(value, self._method_ids),
    )
    attribution = option(
        t.Unicode("", help="Token-score method ('' = off), one of ``attributions``."),
        lambda self, value: checks.choice("attribution", value, ["", *(a["id"] for a in self.attributions)]),
    )
    top_k = option(
        Count(
            0,
            min=0,
            help="Edges drawn into each token at most, strongest first (0 = all; default: all up to "
            f"{ALL_EDGES_UP_TO} tokens, else {LONG_INPUT_TOP_K}).",
        )
    )
    threshold = option(
        t.Float(0.0, help="Edges with |weight| below this (finite, >= 0) are not drawn."),
        lambda self, value: checks.threshold(value),
    )
    specials = option(
        Choice(
            ("show", "hide", "renormalise"),
            "show",
            help="Edges touching special tokens: 'show', 'hide', or 'renormalise' (hide, rescale rows).",
        )
    )
    binarize_threshold = option(
        t.Float(
            DEFAULT_BINARIZE_THRESHOLD,
            help="Path counts: an edge exists where the head-mean attention exceeds this, in [0, 1).",
        ),
        lambda self, value: checks.binarize_threshold(value),
    )
    node_size = option(
        Choice(("", "in", "out"), "", help="Teaching overlay: dots sized by 'in' or 'out' degree of the slice, or ''.")
    )
    window = option(
        t.List(
            t.Int(),
            default_value=[0, 0],
            minlen=2,
            maxlen=2,
            help=(
                "Token window [first row 0..n-1, rows shown >= 0]: the rows the graph shows. Rows 0 shows as many "
                "as fit with legible labels (all of a short text); the front end writes where the user scrolled "
                "or zoomed to (wheel, keys, minimap)."
            ),
        ),
        lambda self, value: checks.window(value, len(self.tokens)),
    )
    lang = option(
        Choice(
            ("en", "zh"),
            "en",
            help="The language of the widget's words: 'en' (English) or 'zh' (Chinese). Token text, the model's "
            "own names and per-input notes stay as they are.",
        )
    )

    compare_method = option(
        t.Unicode(
            "",
            help="A second method id drawn beside ``method`` on the same graph ('' = off): one drawn from the same "
            "tokens (both cumulative, or both per layer) in the same layers. Changing ``method`` to one it cannot "
            "be compared with turns it off.",
        ),
        lambda self, value: checks.compare_method(
            value, self._meta(self.method), self.methods, [a["id"] for a in self.attributions]
        ),
    )
    compare_mode = option(
        Choice(
            ("side", "difference"),
            "side",
            help="With ``compare_method``: 'side' draws both methods side by side on one colour scale; "
            "'difference' draws method − compare_method per edge on a diverging scale centred at 0.",
        )
    )

    # What the tags say, derived once from the class body (declaration order).
    _FACTS = tagged(locals(), "fact")
    _VIEW_OPTIONS = tagged(locals(), "view")
    _FROM_FRONT_END = (*_VIEW_OPTIONS, *tagged(locals(), "front_end"))
    _CHECKED = tagged(locals(), "check")

    def __init__(
        self,
        model=None,
        text: str | None = None,
        tokenizer=None,
        *,
        target: str | None = None,
        analysis: Analysis | Seq2SeqAnalysis | None = None,
        **state,
    ):
        """Analyse ``text`` with ``model`` (or show an existing ``analysis``).

        target: encoder-decoders only, the text the decoder is forced to produce (None: the model's own
        greedy output); the widget then shows source and target tokens through the encoder's and the
        decoder's layers (``attn_widget.joint``).
        state: initial ``layer``, ``head`` or ``method``.
        """
        if analysis is None:
            if model is None or text is None:
                raise TypeError("AttentionWidget needs a model and a text: AttentionWidget(model, text).")
            analysis = analyze(model, text, tokenizer, target=target)
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
        self._job = BackgroundJob()
        self._init_pinned_row()
        self._fact_writer = threading.local()
        record = shown.capture
        # This widget's methods: the registry as it is now (a method registered later is not added).
        available = [m for m in JOINT_METHODS if not m.applies(joint)] if joint else registry.applicable(shown)
        self._specs = {method.id: method for method in available}
        # Before the comm opens, so that the front end gets these traits in the first message
        # (HasTraits' add_traits: ipywidgets' own would send each at once, and list it twice).
        t.HasTraits.add_traits(self, **data_traits(available))
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
        self._target_specs: dict[str, object] = {}
        self._attribution_job = BackgroundJob()
        self._offer_default_target()
        # compare_method after method: it is checked against the method shown.
        for name, value in sorted(state.items(), key=lambda item: item[0] == "compare_method"):
            if name not in self._VIEW_OPTIONS:
                raise TypeError(f"Unknown option {name!r}; the initial view accepts {', '.join(self._VIEW_OPTIONS)}.")
            setattr(self, name, value)
        # After the initial view, so that its settings are computed with once; one message to the front end.
        with warnings.catch_warnings(), self.hold_sync():
            # What a warning would say ("effective attention equals raw attention") is in the method's note.
            warnings.simplefilter("ignore", UserWarning)
            for method in available:
                self._publish(method)
        self.on_msg(self._handle_message)

    @t.observe("selected", "method")
    def _pin_changed(self, _change) -> None:
        self._want_pinned_row()  # pinned_row.py

    @t.observe("target", "attribution")
    def _token_scores_chosen(self, _change) -> None:
        self._attribute()  # token_scores.py (observers are only bound when declared on the widget class)

    # Export ------------------------------------------------------------------------
    def to_html(self, path=None, title: str | None = None) -> str:
        """Write one self-contained interactive HTML file (works offline, no kernel); returns its text."""
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
            own = self.own_keys  # ipywidgets' own traits (layout, ...) pass as before
            refused = sorted(name for name in sync_data if name in own and name not in self._FROM_FRONT_END)
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
        return [*AttentionWidget.class_own_traits(sync=True), *data_traits(self._specs.values())]

    def _publish(self, method: MatrixMethod) -> None:
        """Encode one method's data (what is computed of it) into its trait(s); only they are re-sent."""
        data, done = method.values(self.analysis, self.view_settings)
        data, row = self._with_pinned_row(method.id, data, done)
        with self._setting_facts(), self.hold_sync():
            setattr(self, f"data_{method.id}", payload.encode(data) if done or row is not None else b"")
            if row is not None or method.id in self.ready_row:
                self.ready_row = {k: v for k, v in {**self.ready_row, method.id: row}.items() if v is not None}
            if method.row_values is not None:
                setattr(self, f"data_{method.id}_rows", payload.encode(method.row_values(self.analysis).unsqueeze(-1)))
            self.ready = {**self.ready, method.id: done}

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

    @contextlib.contextmanager
    def _setting_facts(self):
        """The widget's own writes to its facts (in this thread: background jobs publish too)."""
        before = getattr(self._fact_writer, "active", False)
        self._fact_writer.active = True
        try:
            yield
        finally:
            self._fact_writer.active = before

    @property
    def view_settings(self) -> ViewSettings:
        """The settings that change what the methods compute."""
        return ViewSettings(binarize_threshold=self.binarize_threshold)

    @t.observe(*(field.name for field in dataclasses.fields(ViewSettings)))
    def _recompute(self, change) -> None:
        """Publish again the methods that read the changed setting (not during __init__, which
        publishes every method afterwards)."""
        for method in self._specs.values():
            if change["name"] in method.settings and method.id in self.ready:
                self._publish(method)

    # Validation: every trait is checked, whether Python or the front end sets it --------------
    @t.validate(*_FACTS)
    def _check_fact(self, proposal):
        trait = proposal["trait"]
        self._refuse_unless_writing(trait.name)
        check = trait.metadata.get("fact_check")
        try:
            return proposal["value"] if check is None else check(self, proposal["value"])
        except (TypeError, ValueError) as error:
            raise t.TraitError(str(error)) from None

    def _refuse_unless_writing(self, name: str) -> None:
        """Facts are written by the widget only (``_setting_facts``)."""
        if not getattr(self._fact_writer, "active", False):
            how = "add targets with set_target(...)" if name == "targets" else "make a new AttentionWidget(model, text)"
            raise t.TraitError(f"{name} comes from the analysis of the text and cannot be set; {how}.")

    @t.validate(*_CHECKED)
    def _check(self, proposal):
        trait = proposal["trait"]
        try:
            return trait.metadata["check"](self, proposal["value"])
        except (TypeError, ValueError) as error:
            raise t.TraitError(str(error)) from None
