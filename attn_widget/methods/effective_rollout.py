"""Effective rollout (E1, docs/methods.md §5.3): rollout on clipped, re-normalised effective attention.

The maths: ``effective.effective_mixing`` then ``rollout.rollout``.
"""

from __future__ import annotations

from .registry import Comparison, needs_values, register

register(
    "effective_rollout",
    "Effective rollout",
    "Rollout on effective attention: head-averaged, negative entries clipped, rows re-normalised (E1), "
    "then 0.5·Ā + 0.5·I multiplied through the layers. Clipping gives up exact output preservation.",
    lambda analysis, _settings: analysis.effective_rollout(receptive_field="none"),
    cumulative=True,
    applies=needs_values,
    # Where no row sees more keys than the head dimension it equals rollout: nothing to compare.
    compare=Comparison(name="effective rollout", applies=lambda analysis: not analysis.effective_is_raw),
    group="Effective attention",
)
