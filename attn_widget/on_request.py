"""Background work of the widget: methods computed when first selected or prepared ahead (whole), or on
request layer by layer (``compute``: flow on long inputs), and waiting for or cancelling it and the token
scores. Mixed into ``AttentionWidget``, whose traits (``job``, ``ready``, ``n_layers``, ``methods``), jobs
(``_job``, ``_attribution_job``) and published methods (``_computed``) it uses."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from . import checks
from .jobs import cancelled_on_interrupt
from .methods.flow import layer_numbers


class OnRequest:
    """``compute``, ``wait``, ``cancel`` and the front end's compute and cancel messages."""

    # Provided by AttentionWidget.
    _writing: Any  # the widget's write lock (WidgetTraits.hold_trait_notifications)
    _job: Any
    _attribution_job: Any
    _row_job: Any
    _heads_job: Any
    _want_heads: Callable[[], None]
    _specs: dict
    analysis: Any
    job: dict
    ready: dict
    n_layers: int
    log: Any
    methods: list
    method_spec: Callable[[str], Any]
    _publish: Callable[[Any], None]
    _computed: set

    _whole_lock: Any  # guards the three below
    _whole_queue: list[str]  # methods the whole job computes next, in order
    _whole_running: bool
    _prepared: list[str]  # the ``prepare=`` methods, computed after what is selected

    def _init_on_request(self) -> None:
        self._whole_lock = threading.Lock()
        self._whole_queue, self._whole_running, self._prepared = [], False, []

    @property
    def _method_ids(self) -> list[str]:
        return [m["id"] for m in self.methods]

    def wait(self, timeout: float | None = None) -> None:
        """Block until background work (a long input's layers, flow layers, the pinned token's flow row, token
        scores) has finished: the model is then as the user left it.

        Ctrl-C cancels them and waits until they have stopped (finished layers stay cached).
        """
        with cancelled_on_interrupt(self._job, self._attribution_job, self._row_job, self._heads_job):
            self._job.wait(timeout)
            self._attribution_job.wait(timeout)
            self._row_job.wait(timeout)
            self._heads_job.wait(timeout)

    def compute(self, method: str, layers: list[int] | None = None, wait: bool = False) -> None:
        """Compute a method sent without its data: any method not shown yet (the widget computes what it
        shows; this computes one ahead), or some layers (default: all) of a method computed layer by layer
        on request (``methods[i]["on_request"]`` says why: flow and value zeroing on long inputs,
        hidden-state attribution beyond a second's work).

        Runs in the background with progress shown in the view (``job``); ``wait=True``
        blocks until it is done, and Ctrl-C then cancels it. Does nothing if the layers
        are already there. A bad method or layer number raises here, before anything starts.

        One computation at a time: a request made while another runs replaces it (the
        running one stops after its current row or method, what it finished stays cached, and
        ``job`` says it was cancelled), unless the running one already covers the request,
        which then just waits for it with ``wait=True``.
        """
        spec = self.method_spec(checks.method(method, self._method_ids))
        wanted = layer_numbers(layers, self.n_layers)
        if not spec.deferred(self.analysis):
            self._compute_whole([method], wait)
            self._want_heads()  # a long input's heads of the shown layer, if they are missing (shown_heads.py)
            return
        if set(wanted) <= set(self.ready.get(method, [])):
            return

        compute_layers = spec.layers

        def work(progress):
            compute_layers(self.analysis, wanted, progress)

        def on_progress(done: float, total: float) -> None:
            self.job = {"method": method, "layers": wanted, "done": done, "total": total}

        def on_finish(error: str | None) -> None:
            # Computing one method's layers can complete another's (flow_rf needs flow's).
            for other in self._specs.values():
                if other.done is not None and other.done(self.analysis) != self.ready.get(other.id):
                    self._publish(other)
            with self._writing:
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

    def _compute_whole(self, ids: list[str], wait: bool = False) -> None:
        """Compute methods that are not deferred, all layers at once, in the background: ``ids`` first, then
        what was asked before and what ``prepare=`` still wants; each is published as it finishes. A running
        job of this kind takes the new order after its current method; a layered one (flow) is replaced."""
        wanted = [i for i in ids if i not in self._computed and not self._specs[i].deferred(self.analysis)]
        if wanted:
            with self._whole_lock:
                rest = [i for i in (*self._whole_queue, *self._prepared) if i not in wanted]
                self._whole_queue = list(dict.fromkeys([*wanted, *rest]))
                start, self._whole_running = not self._whole_running, True
            if start:
                with cancelled_on_interrupt(self._job):
                    self._job.stop()
                    self._start_whole()
        if wait and self._whole_running:
            with cancelled_on_interrupt(self._job):
                self._job.wait()

    def _start_whole(self) -> None:
        every_layer = list(range(1, self.n_layers + 1))
        current = [""]

        def next_method() -> tuple[str, int]:
            """The next method to compute and how many are left, read again after each (a selection reorders)."""
            with self._whole_lock:
                queue = self._whole_queue = [i for i in self._whole_queue if i not in self._computed]
                self._whole_running = bool(queue)
                return (queue[0] if queue else ""), len(queue)

        def work(progress):
            done = 0
            while True:
                method_id, left = next_method()
                if not method_id:
                    return
                current[0] = method_id
                progress(done, done + left)  # a cancel takes effect here, between methods
                self._publish(self._specs[method_id])
                done += 1

        def on_progress(done: float, total: float) -> None:
            self.job = {"method": current[0], "layers": every_layer, "done": done, "total": total}

        def on_finish(error: str | None) -> None:
            with self._whole_lock:
                self._whole_running = False
                if error:
                    self._whole_queue = []  # cancelled or failed: the next selection starts afresh
            with self._writing:
                self.job = {"method": current[0], "layers": every_layer, "error": error} if error else {}

        self._job.start(work, on_progress, on_finish)

    def prepare(self, methods: str | Sequence[str] = "all", wait: bool = False) -> None:
        """Compute methods ahead, in the background, so that selecting them answers at once: "all" or a list of
        method ids (``AttentionWidget(prepare=...)`` does this after the first picture). What is selected is
        computed first; ``wait=True`` blocks until these are done (Ctrl-C cancels). Methods computed layer by
        layer on this input (flow on long inputs) are refused: ask for their layers with ``compute``."""
        whole = [m for m in self._method_ids if not self._specs[m].deferred(self.analysis)]
        if isinstance(methods, str):
            if methods != "all":
                raise ValueError(f'prepare takes "all" or a list of method ids; got {methods!r}.')
            methods = whole
        chosen = [checks.method(m, self._method_ids) for m in methods]
        deferred = [m for m in chosen if m not in whole]
        if deferred:
            raise ValueError(
                f"{', '.join(deferred)} is computed layer by layer on this input; ask for its layers with "
                f'w.compute("{deferred[0]}") (all layers) or w.compute("{deferred[0]}", layers=[...]), not prepare.'
            )
        # With the graphs their whole-model views draw (an exported page has no kernel to ask for them).
        chosen += [self._specs[m].graph for m in chosen if self._specs[m].graph in self._specs]
        with self._whole_lock:
            self._prepared = list(dict.fromkeys([*self._prepared, *chosen]))
        self._compute_whole(chosen, wait)

    def cancel(self) -> None:
        """Stop the background computations (flow layers, token scores) after their current
        row or batch, and wait until they have stopped; finished layers stay cached, and
        ``job`` and ``attribution_data`` say cancelled."""
        for job in (self._job, self._attribution_job, self._heads_job):
            job.cancel()
        self.wait()

    def _handle_message(self, _widget, content, _buffers) -> None:
        """The front end's requests, {type: 'compute', method, layers: [1..L]} and {type: 'cancel'}, checked
        as Python's calls are; one the kernel cannot follow is logged and changes nothing."""
        kind = content.get("type") if isinstance(content, dict) else None
        try:
            if kind == "compute":
                self.compute(*checks.compute_request(content, self._method_ids, self.n_layers))
            elif kind == "cancel":  # the Cancel button of the pending panel: token scores go on
                self._job.cancel()
                self._heads_job.cancel()
            else:
                raise ValueError(f"unknown message {content!r}; expected type 'compute' or 'cancel'.")
        except (ValueError, RuntimeError) as error:
            self.log.warning("attn_widget ignored a message from the front end: %s", error)
