"""Compiled ALTI distances (numba): ‖ŷ_i − (Σ_h A^h_ij f^h_j + δ_ij x_j)‖₁ for every pair, without
the (n, n, d) tensor of pieces: one pass, parallel over contributing tokens j, each j's vectors
staying in cache while every receiving row i uses them."""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(cache=True, parallel=True, fastmath={"reassoc", "contract"})
def l1_distances(att_t, f, x, y, causal):  # pragma: no cover - compiled
    """att_t: (n_j, H, n_i) A^h_ij by column; f: (n, H, d) f^h(x_j); x: (n, d); y: (n, d).
    Returns (n_i, n_j) float64 ‖y_i − Σ_h A^h_ij f^h_j − δ_ij x_j‖₁ (causal: 0 above the diagonal)."""
    n, heads, d = f.shape
    out = np.zeros((n, n))
    for p in nb.prange(n):
        # interleave both ends so that causal work (more rows for small j) splits evenly
        j = p // 2 if p % 2 == 0 else n - 1 - p // 2
        acc = np.empty(d)
        start = j if causal else 0
        for i in range(start, n):
            if i == j:
                for k in range(d):
                    acc[k] = x[j, k]
            else:
                for k in range(d):
                    acc[k] = 0.0
            for h in range(heads):
                a = att_t[j, h, i]
                if a != 0.0:
                    for k in range(d):
                        acc[k] += a * f[j, h, k]
            s = 0.0
            for k in range(d):
                s += abs(y[i, k] - acc[k])
            out[i, j] = s
    return out
