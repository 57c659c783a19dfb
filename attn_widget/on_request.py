"""Background work of the widget: methods computed on request (``compute``), and waiting for or
cancelling it and the token scores. Mixed into ``AttentionWidget``, whose traits (``job``, ``ready``,
``n_layers``, ``methods``) and jobs (``_job``, ``_attribution_job``) it uses."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import checks
from .jobs import cancelled_on_interrupt
from .methods.flow import layer_numbers


class OnRequest:
    """``compute``, ``wait``, ``cancel`` and the front end's compute and cancel messages."""

    # Provided by AttentionWidget.
    _job: Any
    _attribution_job: Any
    _row_job: Any
    _specs: dict
    analysis: Any
    job: dict
    ready: dict
    n_layers: int
    log: Any
    methods: list
    method_spec: Callable[[str], Any]
    _publish: Callable[[Any], None]

    @property
    def _method_ids(self) -> list[str]:
        return [m["id"] for m in self.methods]

    def wait(self, timeout: float | None = None) -> None:
        """Block until background computations (flow layers, the pinned token's flow row, token scores) have finished.

        Ctrl-C cancels them and waits until they have stopped (finished layers stay cached).
        """
        with cancelled_on_interrupt(self._job, self._attribution_job, self._row_job):
            self._job.wait(timeout)
            self._attribution_job.wait(timeout)
            self._row_job.wait(timeout)

    def compute(self, method: str, layers: list[int] | None = None, wait: bool = False) -> None:
        """Compute a method sent without its data (``methods[i]["on_request"]`` says why: flow and value
        zeroing on long inputs, hidden-state attribution beyond a second's work) for some layers (default: all).

        Runs in the background with progress shown in the view (``job``); ``wait=True``
        blocks until it is done, and Ctrl-C then cancels it. Does nothing if the layers
        are already there. A bad method or layer number raises here, before anything starts.

        One computation at a time: a request made while another runs replaces it (the
        running one stops after its current row, its finished layers stay cached, and
        ``job`` says it was cancelled), unless the running one already covers the request,
        which then just waits for it with ``wait=True``.
        """
        spec = self.method_spec(checks.method(method, self._method_ids))
        wanted = layer_numbers(layers, self.n_layers)
        if spec.layers is None or set(wanted) <= set(self.ready.get(method, [])):
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
        """The front end's requests, {type: 'compute', method, layers: [1..L]} and {type: 'cancel'}, checked
        as Python's calls are; one the kernel cannot follow is logged and changes nothing."""
        kind = content.get("type") if isinstance(content, dict) else None
        try:
            if kind == "compute":
                self.compute(*checks.compute_request(content, self._method_ids, self.n_layers))
            elif kind == "cancel":  # the Cancel button of the flow panel: token scores go on
                self._job.cancel()
            else:
                raise ValueError(f"unknown message {content!r}; expected type 'compute' or 'cancel'.")
        except (ValueError, RuntimeError) as error:
            self.log.warning("attn_widget ignored a message from the front end: %s", error)
