"""The pinned token's row of a method computed on request (flow on long inputs), at every layer at once.

Whole layers of flow on a long input are computed on request; one row is n max flows a layer instead of
n² and mostly settled by a greedy flow (``methods.flow_row``), so when a token is pinned its row is
computed in the background for every layer and sent inside the method's data: layers not in ``ready``
then hold that row (the rest zero), and the fact ``ready_row`` says which token's. Mixed into
``AttentionWidget``, whose traits (``selected``, ``method``, ``ready``, ``ready_row``) it uses.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import torch

from .jobs import BackgroundJob


class PinnedRow:
    """``_want_pinned_row`` (on a pin or a method change) and ``_with_pinned_row`` (when publishing)."""

    # Provided by AttentionWidget.
    _specs: dict
    analysis: Any
    selected: dict
    method: str
    ready: dict
    ready_row: dict
    n_layers: int
    log: Any
    _publish: Callable[[Any], None]

    def _init_pinned_row(self) -> None:
        self._row_job = BackgroundJob()
        self._row_lock = threading.Lock()
        self._row_wanted: tuple[str, int] | None = None
        self._row_working = False
        self._rows: dict[tuple[str, int], torch.Tensor] = {}  # (method id, token) -> (L, n)

    def _pinned_index(self) -> int | None:
        """The pinned token when it is a row of the matrices (a token after a layer), else None."""
        pin = self.selected
        if pin.get("side") == "target" or pin.get("layer", 0) >= 1:
            return pin["index"]
        return None

    def _want_pinned_row(self) -> None:
        """Compute the pinned token's row of the shown method in the background, if it is deferred
        and lacks layers; one row at a time, the latest pin next (an earlier pin is not cancelled:
        its row is cached, and stopping mid-layer would block the kernel)."""
        spec = self._specs.get(self.method)
        index = self._pinned_index()
        if index is None or spec is None or spec.row is None or not spec.deferred(self.analysis):
            return
        if len(self.ready.get(spec.id, [])) == self.n_layers:
            return
        key = (spec.id, index)
        if key in self._rows:
            self._publish(spec)
            return
        with self._row_lock:
            self._row_wanted = key
            if self._row_working:
                return  # the running job takes it next
            self._row_working = True
        self._row_job.start(self._row_work, lambda _done, _total: None, self._row_finished)

    def _row_work(self, _progress) -> None:
        while True:
            with self._row_lock:
                key = self._row_wanted
                if key is None or key in self._rows:
                    self._row_working = False
                    return
            spec = self._specs[key[0]]
            self._rows[key] = spec.row(self.analysis, key[1]).to(torch.float64)
            self._publish(spec)

    def _row_finished(self, error: str | None) -> None:
        if error:
            with self._row_lock:
                self._row_working = False
            self.log.warning("attn_widget could not compute the pinned token's row: %s", error)

    def _with_pinned_row(self, method_id: str, data: torch.Tensor, done: list[int]) -> tuple[torch.Tensor, int | None]:
        """``data`` ``(L, n, n)`` with the pinned token's row filled in where the layer is not done, and that
        token (None when its row is not computed)."""
        index = self._pinned_index()
        row = None if index is None else self._rows.get((method_id, index))
        if row is None or len(done) == data.shape[0]:
            return data, None
        missing = [layer for layer in range(data.shape[0]) if layer + 1 not in done]
        data = data.clone()
        data[missing, index] = row[missing]
        return data, index
