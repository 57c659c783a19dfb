"""The pinned token's row of a method computed on request (flow on long inputs), layer by layer.

Whole layers of flow on a long input are computed on request; one row is n max flows a layer instead of
n² and mostly settled by a greedy flow (``methods.flow_row``), so when a token is pinned its row is
computed in the background and sent inside the method's data as each layer finishes: the shown layer
first, then the closed-form layers 1–2, then the others nearest the shown one first. Layers not in
``ready`` then hold that row (the rest zero), and the fact ``ready_row`` says which token's, in which
layers, and whether more are coming. Mixed into ``AttentionWidget``, whose traits (``selected``,
``method``, ``layer``, ``view``, ``ready``, ``ready_row``) it uses.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import torch

from .jobs import BackgroundJob
from .methods.heads import PerHead
from .payload import HeldLayers


class PinnedRow:
    """``_want_pinned_row`` (on a pin or a method change) and ``_with_pinned_row`` (when publishing)."""

    # Provided by AttentionWidget.
    _specs: dict
    analysis: Any
    selected: dict
    method: str
    layer: int
    view: str
    ready: dict
    ready_row: dict
    n_layers: int
    log: Any
    _publish: Callable[[Any], None]
    _writing: Any  # held by the jobs' callbacks (WidgetTraits.hold_trait_notifications)

    def _init_pinned_row(self) -> None:
        self._row_job = BackgroundJob(self._writing)
        self._row_lock = threading.Lock()
        self._row_wanted: tuple[str, int] | None = None
        self._row_working = False
        self._rows: dict[tuple[str, int], dict[int, torch.Tensor]] = {}  # (method id, token) -> layer -> (n,)

    def _pinned_index(self) -> int | None:
        """The pinned token when it is a row of the matrices (a token after a layer), else None."""
        pin = self.selected
        if pin.get("side") == "target" or pin.get("layer", 0) >= 1:
            return pin["index"]
        return None

    def _row_missing(self, key: tuple[str, int]) -> list[int]:
        """The layers of a row still to compute, in the order wanted: the shown layer (the pinned node's in
        the whole-model view), the closed-form ones (``row_instant``), then the others nearest the shown one."""
        kept = self._rows.get(key, {})
        whole = self.ready.get(key[0], [])
        missing = [layer for layer in range(1, self.n_layers + 1) if layer not in kept and layer not in whole]
        shown = self.selected.get("layer", 0) if self.view == "model" else self.layer
        shown = shown if shown >= 1 else self.layer
        instant = self._specs[key[0]].row_instant
        return sorted(missing, key=lambda layer: (layer != shown, layer not in instant, abs(layer - shown), layer))

    def _want_pinned_row(self) -> None:
        """Compute the pinned token's row of the shown method in the background, if it is deferred
        and lacks layers; one row at a time, the latest pin next (an earlier pin stops after its
        current layer; what it finished is kept)."""
        spec = self._specs.get(self.method)
        index = self._pinned_index()
        if index is None or spec is None or spec.row is None or not spec.deferred(self.analysis):
            return
        key = (spec.id, index)
        if not self._row_missing(key):
            if key in self._rows:
                self._publish(spec)
            return
        with self._row_lock:
            self._row_wanted = key
            if self._row_working:
                return  # the running job takes it after its current layer
            self._row_working = True
        self._publish(spec)  # says the row is coming, with the layers already kept
        self._row_job.start(self._row_work, lambda _done, _total: None, self._row_finished)

    def _row_work(self, _progress) -> None:
        """Compute the wanted row a step at a time (one layer, or the closed-form ones together), publishing
        after each; the wanted row and the shown layer are read again before every step."""
        while True:
            with self._row_lock:
                key = self._row_wanted
                missing = [] if key is None else self._row_missing(key)
                if not missing:
                    self._row_working = False
                    return
            assert key is not None
            spec = self._specs[key[0]]
            instant = spec.row_instant
            step = [layer for layer in missing if layer in instant] if missing[0] in instant else missing[:1]
            values = spec.row(self.analysis, key[1], step).to(torch.float64)
            # A new dict, not an update: the kernel's thread may be reading the old one while it publishes.
            self._rows[key] = {**self._rows.get(key, {}), **dict(zip(step, values, strict=True))}
            if len(step) == len(missing):
                with self._row_lock:  # the last step: the row is not coming any more when published
                    self._row_working = self._row_wanted != key
            self._publish(spec)

    def _row_finished(self, error: str | None) -> None:
        if error:
            with self._row_lock:
                self._row_working = False
            self.log.warning("attn_widget could not compute the pinned token's row: %s", error)
            spec = self._specs.get(self.method)
            if spec is not None:
                self._publish(spec)  # no longer computing

    def _with_pinned_row(
        self, method_id: str, data: torch.Tensor | PerHead | HeldLayers, done: list[int]
    ) -> tuple[torch.Tensor | PerHead | HeldLayers, dict[str, Any] | None]:
        """``data`` with the pinned token's row added at its computed layers that are not done, and the
        ``ready_row`` entry {index, layers, computing} (None when no row is kept or coming). Data with every
        layer done (a per-head method's ``PerHead`` always) is returned as it is."""
        index = self._pinned_index()
        if index is None or len(done) == self.n_layers:
            return data, None
        assert isinstance(data, HeldLayers)  # a method computed layer by layer
        key = (method_id, index)
        kept = self._rows.get(key, {})
        computing = self._row_working and self._row_wanted == key
        if not kept and not computing:
            return data, None
        layers = sorted(layer for layer in kept if layer not in done)
        data.rows.update({(layer - 1, index): kept[layer] for layer in layers})  # a new HeldLayers each publish
        return data, {"index": index, "layers": layers, "computing": computing}
