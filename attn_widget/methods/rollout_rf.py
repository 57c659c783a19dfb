"""Rollout, receptive-field normalised (RF-B, docs/methods.md §4): decoders only.

The maths: ``receptive_field.baseline_ratio`` of rollout and the rollout of ``null_attention``.
"""

from __future__ import annotations

from .receptive_field import RF_NOTE
from .registry import Comparison, decoders_only, register

register(
    "rollout_rf",
    "Rollout, receptive-field normalised",
    "Attention rollout." + RF_NOTE,
    lambda analysis, _settings: analysis.rollout(receptive_field="rf-b"),
    cumulative=True,
    applies=decoders_only,
    compare=Comparison(name="rollout (RF-B)"),
)
