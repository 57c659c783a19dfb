"""ALTI (Ferrando, Gállego & Costa-jussà, EMNLP 2022), methods.md 7.2.

Each token's output of the attention block is split into one vector per contributing token,
residual included: T_i(x_j) = L_i(Σ_h A^h_ij f^h(x_j) + δ_ij x_j), with L_i the post-LN block's
first layer norm linearised at token i's own scale (the true LN formula, sqrt(Var + ε)), or the
identity for pre-LN and parallel blocks (the stream after attention has no norm on it; f uses V
from the normalised input). Then y_i = Σ_j T_i(x_j) + L_i(b_O) + β exactly, and

    c_ij = max(0, ‖y_i‖₁ − ‖y_i − T_i(x_j)‖₁),   C = rn(c),

rolled out as C^L ··· C^1 with no added identity (the residual is inside T_i(x_i)). The (n, n, d)
tensor of all T_i(x_j) never exists whole: rows are processed in chunks.
"""

from __future__ import annotations

import torch

from .decomposition import LinearNorm
from .normalize import row_normalize

# Elements of one chunk of T_i(x_j) (rows × columns × d): 4M float64 = 32 MB.
CHUNK_ELEMENTS = 1 << 22


def pieces(
    att: torch.Tensor,
    transformed: torch.Tensor,
    x: torch.Tensor,
    norm: LinearNorm | None = None,
    rows: slice = slice(None),
    columns: int | None = None,
) -> torch.Tensor:
    """T_i(x_j) for the receiving tokens ``rows`` and the contributing tokens ``0..columns-1``:
    ``(r, m, d)`` float64 (bias terms not included).

    att: ``(H, n, n)``; transformed: ``(H, n, d)`` f^h(x_j); x: ``(n, d)`` the block input;
    norm: the linearised norm applied to the stream (None: no norm).
    """
    n = att.shape[-1]
    m = n if columns is None else columns
    start, stop, _ = rows.indices(n)
    a = att[:, start:stop, :m].to(torch.float64)
    t = torch.einsum("hrm,hmd->rmd", a, transformed[:, :m].to(torch.float64))
    diagonal = torch.arange(start, min(stop, m))
    t[diagonal - start, diagonal] += x[diagonal].to(torch.float64)
    return t if norm is None else norm.apply(t, slice(start, stop))


def contributions(
    att: torch.Tensor,
    transformed: torch.Tensor,
    x: torch.Tensor,
    y: torch.Tensor,
    norm: LinearNorm | None = None,
    chunk_elements: int = CHUNK_ELEMENTS,
) -> torch.Tensor:
    """``(n, n)`` float64 c_ij = max(0, ‖y_i‖₁ − ‖y_i − T_i(x_j)‖₁) (unnormalised).

    y: ``(n, d)`` the block's output of this decomposition (post-LN: LN1's output; pre-LN: the
    stream x + attention output, b_O included). Causal attention (no weight above the diagonal)
    skips the columns after each chunk's last row; their c is exactly 0 (T_i(x_j) = 0).
    """
    n, d = att.shape[-1], x.shape[-1]
    causal = bool((att.triu(1) == 0).all())
    y = y.to(torch.float64)
    y_norm = y.abs().sum(-1)
    out = torch.zeros(n, n, dtype=torch.float64)
    step = max(1, chunk_elements // max(1, n * d))
    for start in range(0, n, step):
        stop = min(n, start + step)
        m = stop if causal else n
        t = pieces(att, transformed, x, norm, slice(start, stop), m)
        distance = t.sub_(y[start:stop, None]).abs_().sum(-1)  # ‖T − y‖₁ = ‖y − T‖₁
        out[start:stop, :m] = (y_norm[start:stop, None] - distance).clamp_min_(0.0)
    if causal:
        out = out.tril()  # T_i(x_j) = 0 there, so c = ‖y‖ − ‖y‖ up to rounding: exactly 0
    return out


def alti_map(att, transformed, x, y, norm: LinearNorm | None = None, chunk_elements: int = CHUNK_ELEMENTS):
    """``(n, n)`` float64 C = rn(c) of ``contributions``: rows sum to 1, non-negative."""
    return row_normalize(contributions(att, transformed, x, y, norm, chunk_elements))
