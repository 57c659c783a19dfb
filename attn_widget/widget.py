"""``AttentionWidget``: traits, validation and delegation; no tensor maths here."""

from __future__ import annotations

import pathlib
import warnings

import anywidget
import traitlets as t

from . import export, payload
from .analysis import Analysis, analyze
from .catalog import (
    DEFAULT_BINARIZE_THRESHOLD,
    ViewMethod,
    ViewSettings,
    view_method,
    view_methods,
)
from .jobs import BackgroundJob, cancelled_on_interrupt
from .methods.flow import layer_numbers

_STATIC = pathlib.Path(__file__).parent / "static"
MEAN_HEAD = -1
MAX_HEAD = -2
# Beyond this many tokens the view starts with the strongest few edges into each token: rows
# get too thin to tell dozens of edges apart, and drawing them all costs hundreds of
# milliseconds per picture in a browser without GPU rasterisation (benchmarks/RESULTS.md).
ALL_EDGES_UP_TO = 48
LONG_INPUT_TOP_K = 5
_VIEW_OPTIONS = (
    "view", "layer", "head", "method", "attribution", "top_k", "threshold", "specials", "binarize_threshold",
    "node_size", "window",
)  # fmt: skip


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
    data_rollout_rf = t.Bytes(help="Receptive-field normalised rollout (L, n, n); decoders only.").tag(sync=True)
    data_paths = t.Bytes(help="Path counts of the binarised head-mean graph (L, n, n).").tag(sync=True)
    data_flow = t.Bytes(help="Attention flow (L, n, n); layers not yet computed are zero.").tag(sync=True)
    data_flow_rf = t.Bytes(help="Receptive-field normalised flow (L, n, n); decoders only.").tag(sync=True)
    data_effective = t.Bytes(help="Effective attention (L, H + 2, n, n), signed.").tag(sync=True)
    data_effective_rows = t.Bytes(help="Attention removed by effective attention per row (L, H + 2, n, 1).").tag(
        sync=True
    )
    data_effective_rollout = t.Bytes(help="Rollout on clipped effective attention (L, n, n).").tag(sync=True)
    data_effective_flow = t.Bytes(help="Flow on clipped effective attention (L, n, n).").tag(sync=True)
    ready = t.Dict(help="Per method id, the layer numbers present in its data.").tag(sync=True)
    job = t.Dict(help="The running computation {method, layers, done, total}, or {} (with 'error' if it failed).").tag(
        sync=True
    )

    # Token scores from gradients or blank-out, beside the graph (methods.md section 6).
    targets = t.List(t.Dict(), help="Targets to explain: [{id, label, position}] (position None = all rows).").tag(
        sync=True
    )
    target = t.Unicode("", help="Selected target id, one of ``targets`` ('' when the model has no default).").tag(
        sync=True
    )
    attribution = t.Unicode("", help="Token-score method ('' = off): " + ", ".join(Analysis.ATTRIBUTIONS)).tag(
        sync=True
    )
    attribution_data = t.Dict(
        help="{target, method, status: 'running' | 'done' | 'error', done, total, values (bytes, (1, 1, n)), message}"
    ).tag(sync=True)

    # Small UI state: moving a control never re-sends data.
    layer = t.Int(1, help="Selected layer, 1..L as displayed (tensor index layer - 1).").tag(sync=True)
    head = t.Int(MEAN_HEAD, help="Selected head 0..H-1, or -1 for the mean of heads, -2 for their max.").tag(
        sync=True
    )
    method = t.Unicode("raw", help="Selected method id, one of ``methods``.").tag(sync=True)
    top_k = t.Int(
        0, help="Edges drawn into each token at most, strongest first (0 = all; default: all up to "
        f"{ALL_EDGES_UP_TO} tokens, else {LONG_INPUT_TOP_K})."
    ).tag(sync=True)
    threshold = t.Float(0.0, help="Edges with |weight| below this are not drawn.").tag(sync=True)
    specials = t.Unicode(
        "show", help="Edges touching special tokens: 'show', 'hide', or 'renormalise' (hide, rescale rows)."
    ).tag(sync=True)
    selected = t.Dict(
        help="The pinned token: {side: 'source' | 'target', index} (one layer) or {layer, index} (whole model), or {}."
    ).tag(sync=True)
    binarize_threshold = t.Float(
        DEFAULT_BINARIZE_THRESHOLD, help="Path counts: an edge exists where the head-mean attention exceeds this."
    ).tag(sync=True)
    node_size = t.Unicode("", help="Teaching overlay: dots sized by 'in' or 'out' degree of the slice, or ''.").tag(
        sync=True
    )
    window = t.List(
        t.Int(), default_value=[0, 0], minlen=2, maxlen=2,
        help="Token window [first row, rows shown] for long inputs; rows 0 shows all tokens.",
    ).tag(sync=True)
    view = t.Unicode("layer", help="'layer': one layer as a bipartite graph; 'model': every layer as a column.").tag(
        sync=True
    )

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
        self._job = BackgroundJob()
        record = analysis.capture
        available = view_methods(analysis)
        super().__init__(
            tokens=record.tokens,
            special=[bool(s) for s in record.special],
            n_layers=record.n_layers,
            n_heads=record.n_heads,
            causal=record.causal,
            model_name=record.model_name,
            methods=[m.meta(analysis) for m in available],
            top_k=0 if len(record.tokens) <= ALL_EDGES_UP_TO else LONG_INPUT_TOP_K,
        )
        self._target_specs: dict[str, object] = {}
        self._attribution_job = BackgroundJob()
        self._offer_default_target()
        for name, value in state.items():
            if name not in _VIEW_OPTIONS:
                raise TypeError(f"Unknown option {name!r}; the initial view accepts {', '.join(_VIEW_OPTIONS)}.")
            setattr(self, name, value)
        # After the initial view, so that its settings are computed with once; one message to the front end.
        with warnings.catch_warnings(), self.hold_sync():
            # What a warning would say ("effective attention equals raw attention") is in the method's note.
            warnings.simplefilter("ignore", UserWarning)
            for method in available:
                self._publish(method)
        self.on_msg(self._handle_message)

    # Token scores ----------------------------------------------------------------
    def set_target(self, target, label: str | None = None) -> None:
        """Explain ``target`` (see ``attn_widget.targets``) in the token-score strip, and select it."""
        resolved = self.analysis.target(target)
        target_id = f"t{len(self._target_specs)}"
        self._target_specs[target_id] = target
        self.targets = [
            *self.targets,
            {"id": target_id, "label": label or resolved.description, "position": resolved.position},
        ]
        self.target = target_id

    def _offer_default_target(self) -> None:
        if self.analysis.model is None:
            return
        try:
            self.set_target(None)
        except ValueError:
            pass  # no output head: the strip asks for set_target(...)

    @t.observe("target", "attribution")
    def _attribute(self, _change=None) -> None:
        """Compute the selected token scores in the background. A new choice replaces the running
        computation (cancelled and waited for); turning token scores off ('') cancels it."""
        self._attribution_job.stop()
        method, target_id = self.attribution, self.target
        if not method or target_id not in self._target_specs:
            return
        spec = self._target_specs[target_id]
        base = {"target": target_id, "method": method}

        def work(progress):
            options = {"progress": progress} if method == "integrated_gradients" else {}
            scores = self.analysis.attribution(method, spec, **options)
            self.attribution_data = {**base, "status": "done", "values": payload.encode(scores.reshape(1, 1, -1))}

        def on_progress(done: float, total: float) -> None:
            self.attribution_data = {**base, "status": "running", "done": done, "total": total}

        def on_finish(error: str | None) -> None:
            if error:
                self.attribution_data = {**base, "status": "error", "message": error}

        def on_wait(holder: str) -> None:  # progress so far stays; the next report clears the message
            self.attribution_data = {**self.attribution_data, "message": f"Waiting for the model, in use by {holder}."}

        self.attribution_data = {**base, "status": "running", "done": 0, "total": 1}
        self._attribution_job.start(work, on_progress, on_finish, on_wait)

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

    def wait(self, timeout: float | None = None) -> None:
        """Block until background computations (flow layers, token scores) have finished.

        Ctrl-C cancels them and waits until they have stopped (finished layers stay cached).
        """
        with cancelled_on_interrupt(self._job, self._attribution_job):
            self._job.wait(timeout)
            self._attribution_job.wait(timeout)

    # Computing on request ------------------------------------------------------
    def compute(self, method: str, layers: list[int] | None = None, wait: bool = False) -> None:
        """Compute a deferred method (flow for long inputs) for some layers (default: all).

        Runs in the background with progress shown in the view (``job``); ``wait=True``
        blocks until it is done, and Ctrl-C then cancels it. Does nothing if the layers
        are already there. A bad method or layer number raises here, before anything starts.

        One computation at a time: a request made while another runs replaces it (the
        running one stops after its current row, its finished layers stay cached, and
        ``job`` says it was cancelled), unless the running one already covers the request,
        which then just waits for it with ``wait=True``.
        """
        spec = self._method(method)
        wanted = layer_numbers(layers, self.n_layers)
        if spec.layers is None or set(wanted) <= set(self.ready.get(method, [])):
            return

        def work(progress):
            spec.layers(self.analysis, wanted, progress)

        def on_progress(done: float, total: float) -> None:
            self.job = {"method": method, "layers": wanted, "done": done, "total": total}

        def on_finish(error: str | None) -> None:
            # Computing one method's layers can complete another's (flow_rf needs flow's).
            for other in view_methods(self.analysis):
                if other.layers is not None and other.done(self.analysis) != self.ready.get(other.id):
                    self._publish(other)
            self.job = {"method": method, "layers": wanted, "error": error} if error else {}

        running = self.job if self._job.running else {}
        covered = running.get("method") == method and set(wanted) <= set(running.get("layers", []))
        # From the start: the job may report (and Ctrl-C come) before wait() is reached.
        with cancelled_on_interrupt(self._job):
            if not covered:
                self._job.stop()  # the replaced job's last report comes before this one's first
                self.job = {"method": method, "layers": wanted, "done": 0, "total": 1}
                self._job.start(work, on_progress, on_finish)
            if wait:
                self._job.wait()

    def cancel(self) -> None:
        """Stop the background computations (flow layers, token scores) after their current
        row or batch, and wait until they have stopped; finished layers stay cached, and
        ``job`` and ``attribution_data`` say cancelled."""
        for job in (self._job, self._attribution_job):
            job.cancel()
        self.wait()

    def _handle_message(self, _widget, content, _buffers) -> None:
        kind = content.get("type") if isinstance(content, dict) else None
        if kind == "compute":
            self.compute(content["method"], content.get("layers"))
        elif kind == "cancel":  # the Cancel button of the flow panel: token scores go on
            self._job.cancel()

    def _publish(self, method: ViewMethod) -> None:
        """Encode one method's data (what is computed of it) into its trait."""
        data, done = method.values(self.analysis, self.view_settings)
        setattr(self, f"data_{method.id}", payload.encode(data) if done else b"")
        if method.row_values is not None:
            setattr(self, f"data_{method.id}_rows", payload.encode(method.row_values(self.analysis).unsqueeze(-1)))
        self.ready = {**self.ready, method.id: done}

    def _method(self, method_id: str) -> ViewMethod:
        if method_id not in [m["id"] for m in self.methods]:
            raise ValueError(f"method must be one of {[m['id'] for m in self.methods]}; got {method_id!r}.")
        return view_method(method_id)

    # Validation ----------------------------------------------------------------
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

    @t.validate("attribution")
    def _check_attribution(self, proposal):
        if proposal["value"] not in ("", *Analysis.ATTRIBUTIONS):
            raise t.TraitError(f"attribution must be '' (off) or one of {list(Analysis.ATTRIBUTIONS)}; got {proposal['value']!r}.")
        return proposal["value"]

    @property
    def view_settings(self) -> ViewSettings:
        """The settings that change what the methods compute."""
        return ViewSettings(binarize_threshold=self.binarize_threshold)

    @t.observe("binarize_threshold")
    def _rebinarize(self, _change) -> None:
        if "paths" in self.ready:  # not during __init__, which publishes every method afterwards
            self._publish(view_method("paths"))

    @t.validate("binarize_threshold")
    def _check_binarize(self, proposal):
        if not 0 <= proposal["value"] < 1:
            raise t.TraitError(f"binarize_threshold must be in [0, 1); got {proposal['value']}.")
        return proposal["value"]

    _CHOICES = {"view": ("layer", "model"), "specials": ("show", "hide", "renormalise"), "node_size": ("", "in", "out")}

    @t.validate(*_CHOICES)
    def _check_choice(self, proposal):
        name, value = proposal["trait"].name, proposal["value"]
        choices = self._CHOICES[name]
        if value not in choices:
            listed = ", ".join(map(repr, choices[:-1])) + f" or {choices[-1]!r}"
            raise t.TraitError(f"{name} must be {listed}; got {value!r}.")
        return value

    @t.validate("window")
    def _check_window(self, proposal):
        first, rows = proposal["value"]
        if not (0 <= first < len(self.tokens) and rows >= 0):
            raise t.TraitError(f"window must be [first row 0..{len(self.tokens) - 1}, rows >= 0]; got {proposal['value']}.")
        return proposal["value"]

    @t.validate("top_k")
    def _check_top_k(self, proposal):
        if proposal["value"] < 0:
            raise t.TraitError(f"top_k must be 0 (all edges) or more; got {proposal['value']}.")
        return proposal["value"]

    @t.validate("threshold")
    def _check_threshold(self, proposal):
        if not proposal["value"] >= 0:
            raise t.TraitError(f"threshold must be a weight >= 0; got {proposal['value']}.")
        return proposal["value"]

    @t.validate("method")
    def _check_method(self, proposal):
        ids = [m["id"] for m in self.methods]
        if proposal["value"] not in ids:
            raise t.TraitError(f"method must be one of {ids}; got {proposal['value']!r}.")
        return proposal["value"]
