"""Blank-out (docs/methods.md §7.4): how much the target changes when one token is masked.

The model runs live in ``attn_widget.gradients.GradientRunner.blank_out``.
"""

from __future__ import annotations

from .registry import register_attribution

register_attribution(
    "blank_out",
    "blank-out |y − y¬j|",
    "|y − y¬j|: the change of the target when token j is replaced by the mask token (else unk, else pad).",
    lambda analysis, target: analysis.blank_out(target),
    hint="How much the target changes when one token is replaced by the mask token.",
    trust=(
        "An intervention, one re-run per token; the replacement is unlike real text, and tokens that matter only "
        "together are missed."
    ),
)
