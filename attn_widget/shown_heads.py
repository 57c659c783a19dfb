"""What a long input's per-head data holds: the layers read so far, and the heads of the shown layer.

A long input's widget reads the shown layer's attention in the model's one pass and the other layers after its
first picture, in the background (``heads_job``; ``head_store.py``). Every layer's heads of every per-head method
would be megabytes to send, cut to an edge or two per token; when they do not fit the wire with
``LONG_INPUT_TOP_K`` edges a row, a per-head method's data holds every layer's head mean and max and the heads of
one layer, the shown one (``heads_ready``). The background read keeps each layer's heads, or their rows' tops
(``HeadStore.reduce(tops=True)``), so showing another layer sends them without running the model; a layer whose
tops were not kept (beyond ``KEPT_TOPS_BYTES``) is read again, in one pass that stops after that layer. Mixed into
``AttentionWidget``, whose traits (``layer``, ``ready``, ``heads_ready``, ``heads_job``) it uses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import payload
from .jobs import BackgroundJob
from .widget_traits import LONG_INPUT_TOP_K


class ShownHeads:
    """``_sent_slices`` (when publishing) and ``_want_heads`` (after the first picture, and when the shown layer
    changes)."""

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
    _writing: Any  # held by the jobs' callbacks (WidgetTraits.hold_trait_notifications)

    def _init_shown_heads(self, store) -> None:
        """store: the analysis' ``HeadStore`` (None: an encoder-decoder's view, whose data holds every layer)."""
        self._heads_job = BackgroundJob(self._writing)
        self._store = store
        n = self.analysis.capture.n_tokens
        # Every slice of every layer, each row with LONG_INPUT_TOP_K edges (index and value) and its scale.
        whole = self.n_layers * (self.n_heads + 2) * n * (6 + 4 * LONG_INPUT_TOP_K)
        self._heads_by_layer = store is not None and whole > payload.DEFAULT_BUDGET_BYTES
        # The layer whose heads per-head data holds, when by layer. None at first: the first picture of a long input
        # sends every layer's mean and max read so far, and the shown layer's heads follow in the background (their
        # rows ranked: 0.9 s for Llama-3.2-1B's 32 heads at 4,096 tokens).
        self._heads_layer: int | None = None if self._heads_by_layer else self.layer

    def _sent_slices(self, method, present: list[int]) -> list[int] | None:
        """The slices of a method's data to send (``payload.encode``), given the layers it holds (``present``):
        those layers', but of a per-head method sent by layer only the shown layer's heads besides every layer's
        mean and max; None: every slice."""
        by_layer = method.per_head and self._heads_by_layer
        if not by_layer and (method.present is None or len(present) == self.n_layers):
            return None  # a deferred method's missing layers are sent as zero rows (they may hold a pinned row)
        per = self.n_heads + 2 if method.per_head else 1
        return [
            (layer - 1) * per + s
            for layer in present
            for s in range(per)
            if not by_layer or layer == self._heads_layer or s >= per - 2
        ]

    def _sent_budget(self, slices: list[int] | None) -> int:
        """Bytes the data of ``slices`` may take: LONG_INPUT_TOP_K edges a row at least."""
        if slices is None:
            return payload.DEFAULT_BUDGET_BYTES
        rows = len(slices) * self.analysis.capture.n_tokens
        return max(payload.DEFAULT_BUDGET_BYTES, rows * (6 + 4 * LONG_INPUT_TOP_K))

    def _sent_heads(self, method, present: list[int]) -> None:
        """``heads_ready`` after publishing ``method`` holding ``present`` layers."""
        ready = {k: v for k, v in self.heads_ready.items() if k != method.id}
        if method.per_head and self._heads_by_layer:
            ready[method.id] = [self._heads_layer] if self._heads_layer in present else []
        if ready != self.heads_ready:
            self.heads_ready = ready

    def _want_heads(self) -> None:
        """In the background (a newer call replaces a read under way): read the shown layer (its heads, when sent
        by layer) and send every computed method that shows them, then read the layers not read yet and send them
        too."""
        store, layer = self._store, self.layer
        if store is None:
            return
        shown = layer - 1
        missing_shown = shown not in store.reduced_layers or (self._heads_by_layer and layer != self._heads_layer)
        if not missing_shown and len(store.reduced_layers) == self.n_layers:
            return
        reading = [[layer]]

        def work(progress):
            if missing_shown:
                if self._heads_by_layer:
                    store.shown([shown], progress)
                else:
                    store.reduce([shown], progress)
                self._heads_layer = layer
                self._publish_read()
            rest = [n + 1 for n in range(self.n_layers) if n not in store.reduced_layers]
            if rest:
                reading[0] = rest
                store.reduce(progress=progress, tops=self._heads_by_layer)
                self._publish_read()

        def on_progress(done: float, total: float) -> None:
            self.heads_job = {"layers": reading[0], "done": done, "total": total}

        def on_finish(error: str | None) -> None:
            with self._writing:
                self.heads_job = {"layers": reading[0], "error": error} if error else {}

        self._heads_job.stop()
        self.heads_job = {"layers": reading[0], "done": 0, "total": 1}
        self._heads_job.start(work, on_progress, on_finish)

    def _publish_read(self) -> None:
        """Send again every computed method whose data follows what is read (per-head, or holding the layers read)."""
        with self.hold_sync():
            for method in self._specs.values():
                if method.id in self._computed and (method.per_head or method.present is not None):
                    self._publish(method)
