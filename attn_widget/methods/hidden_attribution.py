"""Hidden-state attribution (Brunner et al., 2020) in the menu: the share of input token j in token i's hidden vector
after a layer, from the Jacobian.

The maps differentiate the model, so they are computed by the analysis's gradient part (``parts/hidden_attribution.py``,
reached through ``Analysis.hidden_attribution``); this file declares the method and when it is computed up front.
"""

from __future__ import annotations

import torch

from .registry import Comparison, register

# Forward-mode needs one tangent per input coordinate (n·d): up to this many, the widget computes the
# maps with the picture, about a second on two cores (the shipped GPT-2, d = 128: 8 tokens; 9 took
# 0.97 s). Beyond, on request: MiniLM at 10 tokens takes about 8 s (benchmarks/RESULTS.md).
UPFRONT_MAX_COORDINATES = 1024


def _layers(analysis, layers, progress) -> torch.Tensor:
    maps = analysis.hidden_attribution(progress=progress)
    return maps if layers is None else maps[[layer - 1 for layer in layers]]


register(
    "hidden_attribution",
    "Hidden-state attribution (gradients)",
    "Brunner et al. (2020): the share of input token j in token i's hidden vector after this layer, measured by "
    "the size of the Jacobian ‖∂e_i/∂x_j‖ and normalised over j. Exact gradients, costly: all layers at once.",
    lambda analysis, _settings: analysis.hidden_attribution(progress=False),
    explain=(
        "Asks the model directly, with gradients: how strongly does each input token's embedding move the right "
        "token's hidden vector after this layer? An edge means: the input token's share of that sensitivity; each"
        " row adds up to 1; the colour goes from pale (little) to dark (the most; the legend gives the scale). "
        "Definition: H_l[i, j] = ‖∂e_i/∂x_j‖ / Σ_k ‖∂e_i/∂x_k‖, with e_i the hidden vector of token i after layer"
        " l and x_j the input embedding of token j."
    ),
    cumulative=True,
    applies=lambda analysis: analysis.gradient_part.hidden_attribution_unavailable(),
    layers=_layers,
    done=lambda analysis: analysis.gradient_part.hidden_attribution_done(),
    upfront=lambda analysis: analysis.gradient_part.input_coordinates() <= UPFRONT_MAX_COORDINATES,
    on_request=lambda analysis: (
        f"{analysis.capture.n_tokens} tokens need {analysis.gradient_part.input_coordinates():,} forward-mode passes, "
        "one per input coordinate (all layers at once)."
    ),
    group="Gradients",
    heads="combined",
    # In comparisons only where it is computed with the widget: a table of texts would take minutes.
    compare=Comparison(applies=lambda analysis: analysis.gradient_part.input_coordinates() <= UPFRONT_MAX_COORDINATES),
    hint="How much each input token shapes each token's hidden vector after this layer (gradients).",
    trust=(
        "A local, first-order measure: exact for small changes of the input, not for removing a token, and small "
        "where the model saturates. A check on the attention pictures rather than ground truth."
    ),
)
