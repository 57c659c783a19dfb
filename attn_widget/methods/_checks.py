"""Input checks shared by the pure methods: clear errors instead of deep torch tracebacks."""

from __future__ import annotations

import torch


def check_layer_stack(att: torch.Tensor, name: str = "att") -> None:
    """Require a finite, non-negative ``(L, n, n)`` stack of attention matrices."""
    if not isinstance(att, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor of shape (layers, n, n); got {type(att).__name__}.")
    if att.dim() != 3 or att.shape[-1] != att.shape[-2]:
        raise ValueError(
            f"{name} must have shape (layers, n, n) with square matrices; got {tuple(att.shape)}. "
            "Average the heads first (att.mean(1) on an (L, H, n, n) tensor)."
        )
    if att.shape[0] == 0 or att.shape[-1] == 0:
        raise ValueError(f"{name} is empty: shape {tuple(att.shape)}.")
    # Two reductions, no mask the size of the stack: NaN and infinities reach the extremes.
    low, high = att.amin(), att.amax()
    if not (torch.isfinite(low) and torch.isfinite(high)):
        raise ValueError(f"{name} contains NaN or infinite values.")
    if low < 0:
        raise ValueError(f"{name} has negative entries; attention weights must be non-negative.")


def check_residual(residual: float) -> float:
    """The residual weight alpha of 0.5*A + 0.5*I generalised: a number in [0, 1]."""
    alpha = float(residual)
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"residual must lie in [0, 1]; got {residual}.")
    return alpha
