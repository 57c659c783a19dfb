"""Value zeroing (Mohebbi et al., 2023) in the menu: each layer re-run with token j's value vectors set to zero.

The maps re-run the model's blocks, so they are computed by the analysis's mixing part (``parts/value_zeroing.py``,
reached through ``Mixing.value_zeroing``); this file declares the method.
"""

from __future__ import annotations

from .registry import register_mixing

register_mixing(
    "value_zeroing",
    "Value zeroing",
    "Mohebbi et al. (2023): re-run each layer with token j's value vectors set to zero (attention weights kept) "
    "and measure how far each token's output moves, 1 − cos; rows normalised.",
    layer_maps=lambda mixing, layers, progress: mixing.value_zeroing(layers, progress),
    explain=(
        "Re-runs the layer with the left token's value vectors set to zero (the attention weights kept) and "
        "measures how much the right token's output changes. An edge means: that share of the right token's "
        "change comes from removing the left token; the colour goes from pale (little) to dark (the most; the "
        "legend gives the scale). Definition: M[i, j] = 1 − cos(y_i, y_i with the values of j zeroed), rows "
        "normalised."
    ),
    needs="values",
    check=lambda mixing: mixing.value_zeroing_unavailable(),
    on_request=lambda analysis: (
        f"{analysis.capture.n_tokens} tokens need {analysis.capture.n_tokens} re-runs of the layer, "
        "one per zeroed token."
    ),
    hint="How far each token's output moves when another token's values are set to zero.",
    trust=(
        "An intervention (Mohebbi et al. 2023): it re-runs the layer, so it measures what the layer does with each "
        "token. Zeroed values are unlike any real input: compare sizes within a picture, not across models."
    ),
)
