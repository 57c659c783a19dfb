"""What a long input's per-head data holds: the layers read so far, and of them what the view draws.

A long input's widget reads the shown layer's attention in the model's one pass and the other layers after its
first picture, in the background (``heads_job``; ``head_store.py``). Every slice (each head, the mean, the max) of
every layer of a per-head method would be megabytes to send, cut to an edge or two per token; when they do not fit
the wire with ``LONG_INPUT_TOP_K`` edges a row, a per-head method's data holds what the view draws (``slices_ready``
says which slices): in the layer and whole-model views, the shown head (mean, max or one head) of every layer read,
and the head mean where the data draws a cumulative method's whole-model graph; in the heads grid, every slice of
the shown layer. Changing the head, the view or the method sends the slices it needs (``_send_shown``); changing
the layer reads nothing more. The background read keeps each layer's heads, or their rows' tops
(``HeadStore.reduce(tops=True)``), so that one head of every layer is sent without running the model; a layer whose
tops were not kept (beyond ``KEPT_TOPS_BYTES``) is read again when shown, in one pass that stops after that layer.
Mixed into ``AttentionWidget``, whose traits (``layer``, ``head``, ``view``, ``method``, ``compare_method``,
``ready``, ``slices_ready``, ``heads_job``) it uses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import payload
from .checks import MEAN_HEAD
from .jobs import BackgroundJob
from .widget_traits import LONG_INPUT_TOP_K


class ShownHeads:
    """``_sent_slices`` (when publishing), ``_send_shown`` (when the view changes what it draws) and ``_want_heads``
    (after the first picture, and when the shown layer changes)."""

    # Provided by AttentionWidget.
    _specs: dict
    _computed: set
    analysis: Any
    layer: int
    head: int
    view: str
    method: str
    compare_method: str
    n_layers: int
    n_heads: int
    ready: dict
    slices_ready: dict
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

    def _sent_slices(self, method, present: list[int]) -> list[int] | None:
        """The slices of a method's data to send (``payload.encode``), given the layers it holds (``present``):
        those layers', of a per-head method sent by layer only those the view draws (``_drawn_slots``); None:
        every slice."""
        by_layer = method.per_head and self._heads_by_layer
        if not by_layer and (method.present is None or len(present) == self.n_layers):
            return None  # a deferred method's missing layers are sent as zero rows (they may hold a pinned row)
        per = self.n_heads + 2 if method.per_head else 1
        return [
            (layer - 1) * per + slot
            for layer in present
            for slot in (self._drawn_slots(method, layer) if by_layer else range(per))
        ]

    def _drawn_slots(self, method, layer: int) -> list[int]:
        """The slots of ``layer`` (heads 0..H-1, mean H, max H+1) of a per-head method sent by layer that the view
        draws: in the heads grid every slot of the shown layer; else the shown head (the mean where the method
        draws a cumulative method's whole-model graph). A head's slot only where its layer's heads are at hand
        (sending reads nothing; the shown layer's are read in the background, ``_want_heads``)."""
        heads = self.n_heads
        if self.view == "heads":
            slots = set(range(heads + 2)) if layer == self.layer else set()
        else:
            slots = {self.head if self.head >= 0 else heads if self.head == MEAN_HEAD else heads + 1}
            if self.view == "model":
                for shown_id in (self.method, self.compare_method):
                    shown = self._specs.get(shown_id)
                    if shown is not None and shown.cumulative and (shown.graph or shown.id) == method.id:
                        slots.add(heads)
        at_hand = self._store is not None and self._store.at_hand(layer - 1)
        return sorted(slot for slot in slots if slot >= heads or at_hand)

    def _sent_budget(self, slices: list[int] | None) -> int:
        """Bytes the data of ``slices`` may take: LONG_INPUT_TOP_K edges a row at least."""
        if slices is None:
            return payload.DEFAULT_BUDGET_BYTES
        rows = len(slices) * self.analysis.capture.n_tokens
        return max(payload.DEFAULT_BUDGET_BYTES, rows * (6 + 4 * LONG_INPUT_TOP_K))

    def _sent_record(self, method, slices: list[int] | None) -> None:
        """``slices_ready`` after publishing ``method`` with ``slices`` (None: every slice of its layers)."""
        ready = {k: v for k, v in self.slices_ready.items() if k != method.id}
        if method.per_head and self._heads_by_layer:
            ready[method.id] = slices or []
        if ready != self.slices_ready:
            self.slices_ready = ready

    def _send_shown(self) -> None:
        """Send again every computed per-head method sent by layer whose drawn slices changed (the head, the view,
        the method shown, or in the heads grid the layer): from what is at hand, on this thread."""
        if not self._heads_by_layer:
            return
        for method in self._specs.values():
            if method.per_head and method.id in self._computed:
                present = self.ready.get(method.id, [])
                if self._sent_slices(method, present) != self.slices_ready.get(method.id):
                    self._publish(method)

    def _want_heads(self) -> None:
        """In the background (a newer call replaces a read under way): read the shown layer (its heads, when sent
        by layer: what a head or the heads grid sends) and send every computed method that shows them, then read
        the layers not read yet and send them too."""
        store, layer = self._store, self.layer
        if store is None:
            return
        shown = layer - 1
        missing_shown = shown not in store.reduced_layers or (
            self._heads_by_layer and not (store.all_kept or store.tops(shown) is not None)
        )
        if not missing_shown and len(store.reduced_layers) == self.n_layers:
            return
        reading = [[layer]]

        def work(progress):
            if missing_shown:
                if self._heads_by_layer:
                    store.shown([shown], progress)
                    store.tops(shown, make=True)  # ranked now, not when a head is first chosen
                else:
                    store.reduce([shown], progress)
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
