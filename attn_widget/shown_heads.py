"""The heads of the shown layer: what a long input's per-head methods send.

Every layer's heads of every per-head method would be gigabytes to compute and megabytes to send, cut to an
edge or two per token. When they do not fit the wire with ``LONG_INPUT_TOP_K`` edges a row, a per-head method's
data holds every layer's head mean and max and the heads of one layer, the shown one (``heads_ready`` says
which). Showing another layer reads its heads (again, when the capture did not keep them: one pass of the model
that stops after that layer, ``head_store.py``) in the background (``heads_job``) and sends them. Mixed into
``AttentionWidget``, whose traits (``layer``, ``heads_ready``, ``heads_job``) it uses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import payload
from .jobs import BackgroundJob
from .widget_traits import LONG_INPUT_TOP_K


class ShownHeads:
    """``_heads_slices`` (when publishing) and ``_want_heads`` (when the shown layer changes)."""

    # Provided by AttentionWidget.
    _specs: dict
    _computed: set
    analysis: Any
    layer: int
    n_layers: int
    n_heads: int
    heads_ready: dict
    heads_job: dict
    hold_sync: Callable
    _publish: Callable[[Any], None]

    def _init_shown_heads(self) -> None:
        self._heads_job = BackgroundJob()
        self._heads_layer = self.layer  # the layer whose heads per-head data holds, when by layer
        n = self.analysis.capture.n_tokens
        # Every slice of every layer, each row with LONG_INPUT_TOP_K edges (index and value) and its scale.
        whole = self.n_layers * (self.n_heads + 2) * n * (6 + 4 * LONG_INPUT_TOP_K)
        self._heads_by_layer = whole > payload.DEFAULT_BUDGET_BYTES and hasattr(self.analysis.capture, "heads")

    def _heads_slices(self, method) -> list[int] | None:
        """The slices of a per-head method's data to send (``payload.encode``): every layer's mean and max, and
        the heads of the shown layer; None: all of them."""
        if not (method.per_head and self._heads_by_layer):
            return None
        per, shown = self.n_heads + 2, self._heads_layer - 1
        return [layer * per + s for layer in range(self.n_layers) for s in range(per) if layer == shown or s >= per - 2]

    def _heads_budget(self, slices: list[int]) -> int:
        """Bytes the data of ``slices`` may take: LONG_INPUT_TOP_K edges a row at least."""
        rows = len(slices) * self.analysis.capture.n_tokens
        return max(payload.DEFAULT_BUDGET_BYTES, rows * (6 + 4 * LONG_INPUT_TOP_K))

    def _sent_heads(self, method_id: str, slices: list[int] | None) -> None:
        """``heads_ready`` after publishing ``method_id`` with ``slices``."""
        ready = {k: v for k, v in self.heads_ready.items() if k != method_id}
        if slices is not None:
            ready[method_id] = [self._heads_layer]
        if ready != self.heads_ready:
            self.heads_ready = ready

    def _want_heads(self) -> None:
        """Read the shown layer's heads and send every computed per-head method with them (in the background;
        a newer layer replaces a read under way)."""
        layer = self.layer
        if not self._heads_by_layer or layer == self._heads_layer:
            return
        store = self.analysis.capture.heads

        def work(progress):
            store.layers([layer - 1], progress)

        def on_progress(done: float, total: float) -> None:
            self.heads_job = {"layers": [layer], "done": done, "total": total}

        def on_finish(error: str | None) -> None:
            if error:
                self.heads_job = {"layers": [layer], "error": error}
                return
            self._heads_layer = layer
            with self.hold_sync():
                for method in self._specs.values():
                    if method.per_head and method.id in self._computed:
                        self._publish(method)
                self.heads_job = {}

        self._heads_job.stop()
        self.heads_job = {"layers": [layer], "done": 0, "total": 1}
        self._heads_job.start(work, on_progress, on_finish)
