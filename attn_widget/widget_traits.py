"""The widget's synced traits, each declared once (``traits.py`` says how), and the checks every
value passes whoever sets it, Python or the front end: facts only the widget writes, the front end's
picks, and the settings of the view."""

from __future__ import annotations

import contextlib
import threading

import anywidget
import traitlets as t

from . import checks
from .methods.registry import DEFAULT_BINARIZE_THRESHOLD
from .shown_image import MAX_SIDE
from .traits import Choice, Count, FactBytes, Number, fact, option, pick, tagged

MEAN_HEAD = checks.MEAN_HEAD
MAX_HEAD = checks.MAX_HEAD
# Beyond this many tokens the view starts with the strongest few edges into each token: rows
# get too thin to tell dozens of edges apart, and drawing them all costs hundreds of
# milliseconds per picture in a browser without GPU rasterisation (benchmarks/RESULTS.md).
ALL_EDGES_UP_TO = 48
LONG_INPUT_TOP_K = 5


def language() -> Choice:
    """The ``lang`` option, declared once for ``AttentionWidget`` and ``CorpusWidget`` (each class needs its
    own trait object): the languages js/src/i18n.js has tables for."""
    return Choice(
        ("en", "zh"),
        "en",
        help="The language of the widget's words: 'en' (English) or 'zh' (Chinese). Token text, the model's "
        "own names and per-input notes stay as they are.",
    )


class WidgetTraits(anywidget.AnyWidget):
    """The traits of ``AttentionWidget`` and their validation (the widget itself: widget.py)."""

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
    graphs = fact(
        t.List(t.Dict()),
        "The per-layer steps that ``methods`` name as their whole-model graph (``graph``) and no menu lists, as "
        "``methods``' entries (registry.register_graph): e.g. rollout's and flow's 0.5·Ā + 0.5·I. Each has its data "
        "in a trait data_<id>.",
    )
    attributions = fact(t.List(t.Dict()), "Token-score methods, in menu order: id, label, description, signed.")
    ready = fact(t.Dict(), "Per method id, the layer numbers present in its data.")
    ready_row = fact(
        t.Dict(),
        "Per method id computed on request, the pinned token whose row its data also holds in some layers not in "
        "``ready`` (the other rows there are zero), computed layer by layer: {index, layers: the layers holding it, "
        "computing: whether more are coming}; attn_widget.pinned_row.",
    )
    slices_ready = fact(
        t.Dict(),
        "Per per-head method id whose data holds some slices only of the layers in ``ready`` (a long input's: what "
        "the view draws), those slice indices (layer index × (H + 2) + slot: heads, mean, max); a method not "
        "listed holds every slice of its layers (attn_widget.shown_heads).",
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
    heads_job = t.Dict(
        help="Reading the heads of the shown layer (attn_widget.shown_heads): {layers: [layer], done, total}, or {} "
        "(with 'error' if it failed)."
    ).tag(sync=True, check=lambda self, value: checks.serialisable(value, "heads_job"))

    # Token scores from gradients or blank-out, beside the graph (docs/methods.md §6, §7.4).
    targets = fact(
        t.List(t.Dict()),
        "Targets to explain: [{id, label, position}] (position: the token row 0..n-1 compared with the scores, None = "
        "all rows). Read-only: add one with set_target(...).",
        lambda self, value: checks.targets(value, len(self.tokens)),
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
        Number(0.0, help="Edges with |weight| below this (finite, >= 0) are not drawn."),
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
        Number(
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
    lang = option(language())
    controls = option(
        Choice(
            ("basic", "all"),
            "basic",
            help="The control bar: 'basic' shows view, method, layer, head and About, the rest behind a "
            "'More' button (which switches to 'all'); 'all' shows every control.",
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

    # What the tags say, derived from the class body (declaration order); a subclass's own traits count too
    # (``__init_subclass__``): an option is one declaration.
    _FACTS = tagged(locals(), "fact")
    _VIEW_OPTIONS = tagged(locals(), "view")
    _FROM_FRONT_END = (*_VIEW_OPTIONS, *tagged(locals(), "front_end"))
    _CHECKED = tagged(locals(), "check")

    def __init_subclass__(cls, **kwargs):
        """A subclass's tagged traits join the base's (after them), and get the same validation. Data traits
        (``FactBytes``, added per widget from the registry) check themselves."""
        super().__init_subclass__(**kwargs)
        own = {name: trait for name, trait in vars(cls).items() if not isinstance(trait, FactBytes)}
        cls._FACTS = (*cls._FACTS, *tagged(own, "fact"))
        cls._VIEW_OPTIONS = (*cls._VIEW_OPTIONS, *tagged(own, "view"))
        cls._FROM_FRONT_END = (*cls._FROM_FRONT_END, *tagged(own, "view"), *tagged(own, "front_end"))
        cls._CHECKED = (*cls._CHECKED, *tagged(own, "check"))
        if tagged(own, "fact"):
            cls._check_own_fact = t.validate(*tagged(own, "fact"))(WidgetTraits._check_fact.func)
        if tagged(own, "check"):
            cls._check_own = t.validate(*tagged(own, "check"))(WidgetTraits._check.func)

    def _init_writes(self) -> None:
        """What ``_setting_facts`` and ``hold_trait_notifications`` share; before traitlets' own ``__init__``."""
        self._fact_writer = threading.local()  # whether this thread is inside _setting_facts
        self._writing = threading.RLock()  # the widget's own writes, and a page's update being set
        self._told_later = threading.local()  # changes a hold on this thread tells after releasing _writing

    @contextlib.contextmanager
    def _setting_facts(self):
        """The widget's own writes to its facts (in this thread: background jobs publish too), one thread at a
        time and never while a page's update is being set (``hold_trait_notifications``)."""
        before = getattr(self._fact_writer, "active", False)
        with self._writing:
            self._fact_writer.active = True
            try:
                yield
            finally:
                self._fact_writer.active = before

    @contextlib.contextmanager
    def hold_trait_notifications(self):
        """traitlets' hold (``set_state`` sets a page's update in one) is the instance's, not the thread's: a fact
        a background job wrote inside it was checked on this thread, refused as not the widget's own write, and
        undone together with the page's change (and the job's write with it). So the widget's own writes wait while
        the values are set and checked (``_writing``), and the changes are told after it is released: an observer
        may wait for a job, and the job write."""
        if self._cross_validation_lock:  # nested in a hold: that one decides
            yield
            return
        told: list = []
        try:
            with self._writing:
                self._told_later.changes = told
                try:
                    with super().hold_trait_notifications():
                        before = dict(self._trait_values)
                        yield
                        self._tell_retyped(before)
                finally:
                    self._told_later.changes = None
        finally:
            for change in told:
                self.notify_change(change)

    def _tell_retyped(self, before: dict) -> None:
        """Inside a hold: a value set equal to the one it replaced but of another type (``True`` where the layer
        was 1, ``{"index": True}``) counts as a change. traitlets stores it without telling, so its check would
        never run, nor would a refused update undo it."""
        for name, old in before.items():
            new = self._trait_values.get(name, old)
            if new is not old and not _same(old, new):
                with contextlib.suppress(Exception):  # values that cannot compare were told by traitlets already
                    if old == new:
                        self._notify_trait(name, old, new)

    def notify_change(self, change):
        told = getattr(self._told_later, "changes", None)
        if told is not None:  # a hold on this thread tells it once _writing is released
            told.append(change)
        else:
            super().notify_change(change)

    # Validation: every trait is checked, whether Python or the front end sets it --------------
    @t.validate(*_FACTS)
    def _check_fact(self, proposal):
        self._refuse_unless_writing(proposal["trait"].name)
        return self._checked(proposal, "fact_check")

    def _refuse_unless_writing(self, name: str) -> None:
        """Facts are written by the widget only (``_setting_facts``)."""
        if not getattr(self._fact_writer, "active", False):
            how = "add targets with set_target(...)" if name == "targets" else "make a new AttentionWidget(model, text)"
            raise t.TraitError(f"{name} comes from the analysis of the text and cannot be set; {how}.")

    @t.validate(*_CHECKED)
    def _check(self, proposal):
        return self._checked(proposal, "check")

    def _checked(self, proposal, key: str):
        """The value the trait's check (its metadata ``key``; none: the value as given) returns; what the
        check refuses becomes a TraitError with its message."""
        check = proposal["trait"].metadata.get(key)
        try:
            return proposal["value"] if check is None else check(self, proposal["value"])
        except (TypeError, ValueError) as error:
            raise t.TraitError(str(error)) from None


def _same(a, b) -> bool:
    """Equal and of the same types throughout (``True == 1`` and ``1 == 1.0`` in Python; not here)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[key], b[key]) for key in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    try:
        return bool(a == b)
    except Exception:  # values that cannot compare are not the same
        return False
