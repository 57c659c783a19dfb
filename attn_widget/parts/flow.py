"""Attention flow on any of the analysis' mixing matrices, kept per finished layer."""

from __future__ import annotations

import numpy as np
import torch

from .. import methods
from ..methods.flow import FlowSolver, layer_numbers
from ..methods.flow_row import row_flows
from ..progress import ProgressArg, progress_reporter
from .base import Part, normalise


class FlowPart(Part):
    """Max flows per (capacities, residual) and layer.

    Unnormalised max flows are kept as each layer completes, so that an interrupted
    computation keeps the finished layers and nothing half-done.
    """

    def __init__(self, analysis):
        super().__init__(analysis)
        self.layers: dict[tuple[str, float], dict[int, torch.Tensor]] = {}
        self._last_solver: tuple[tuple[str, float], FlowSolver] | None = None

    def capacities(self, which: str) -> torch.Tensor:
        """The ``(L, n, n)`` matrices a flow runs on: "attention", "baseline" or "effective-<variant>"."""
        if which == "attention":
            return self.analysis.raw()
        if which == "baseline":
            return self.analysis.null_attention()
        return self.analysis.effective_mixing(which.removeprefix("effective-"))

    def solver(self, which: str, residual: float) -> FlowSolver:
        """The solver on ``which`` with ``residual``; the last one is kept, since a pinned row asks for it once per
        layer (building one takes 25-35 ms at 512 tokens) and one at a time keeps memory to one copy."""
        key = (which, float(residual))
        if self._last_solver is None or self._last_solver[0] != key:
            self._last_solver = key, FlowSolver(methods.residual_augment(self.capacities(which), residual))
        return self._last_solver[1]

    def flow(self, which: str, residual: float, layers, receptive_field: str, progress: ProgressArg) -> torch.Tensor:
        """``(len(layers), n, n)`` normalised flow on ``which``, with optional RF normalisation."""
        variant = self.variant(receptive_field)
        wanted = layer_numbers(layers, self.capture.n_layers)
        needs_baseline = variant != "none"
        total = len(wanted) * (2 if needs_baseline else 1)
        with progress_reporter(progress, "attention flow") as report:
            plain = methods.row_normalize(self._raw(which, residual, wanted, report, 0, total))
            if not needs_baseline:
                return plain
            baseline = self._raw("baseline", residual, wanted, report, len(wanted), total)
            return normalise(variant, plain, methods.row_normalize(baseline))

    def rows(
        self, position: int, residual: float, receptive_field: str, progress: ProgressArg = False, layers=None
    ) -> torch.Tensor:
        """``(len(layers), n)``: row ``position`` of the flow at the given layers (all by default), computing
        only that row; each finished layer is kept, so asking layer by layer costs no more than at once."""
        variant = self.variant(receptive_field)
        n = self.capture.n_tokens
        if isinstance(position, bool) or not isinstance(position, int | np.integer) or not 0 <= position < n:
            raise ValueError(f"position must be a token index 0..{n - 1}; got {position!r}.")
        wanted = layer_numbers(layers, self.capture.n_layers)
        parts = ["attention"] if variant == "none" else ["attention", "baseline"]
        with progress_reporter(progress, "attention flow, one row") as report:
            rows = []
            for k, which in enumerate(parts):

                def chunks(done: int, total: int, k: int = k) -> None:
                    report(k + done / total, len(parts))

                rows.append(methods.row_normalize(self._cached_rows(which, residual, int(position), wanted, chunks)))
        if variant == "none":
            return rows[0]
        return normalise(variant, rows[0].unsqueeze(1), rows[1].unsqueeze(1))[:, 0]

    def done(self, which: str, residual: float) -> list[int]:
        return sorted(self.layers.get((which, float(residual)), {}))

    def _cached_rows(self, which: str, residual: float, position: int, wanted: list[int], report) -> torch.Tensor:
        """``(len(wanted), n)`` unnormalised max flows of one row (``methods.flow_row``), kept per layer; whole
        layers already computed are reused."""
        kept: dict[int, torch.Tensor] = self.cached(("row", which, float(residual), position), dict)
        full = self.layers.get((which, float(residual)), {})
        for layer in wanted:
            if layer not in kept and layer in full:
                kept[layer] = full[layer][position]
        missing = sorted({layer for layer in wanted if layer not in kept})
        if missing:
            rows, _ = row_flows(self.solver(which, residual), position, missing, report)
            kept.update(zip(missing, torch.from_numpy(rows), strict=True))
        if not wanted:
            return torch.zeros(0, self.capture.n_tokens, dtype=torch.float64)
        return torch.stack([kept[layer] for layer in wanted])

    def _raw(self, which: str, residual: float, wanted: list[int], report, offset: int, total: int) -> torch.Tensor:
        """Unnormalised max flows ``(len(wanted), n, n)``, computing only missing layers."""
        done = self.layers.setdefault((which, float(residual)), {})
        missing = [layer for layer in wanted if layer not in done]
        if missing:
            solver = self.solver(which, residual)
            n = self.capture.n_tokens
            for layer in missing:
                base = offset + wanted.index(layer)

                def rows(count: int, base: int = base) -> None:
                    report(base + count / n, total)

                done[layer] = torch.from_numpy(solver.layer(layer, rows))
                report(base + 1, total)
        return torch.stack([done[layer] for layer in wanted])
