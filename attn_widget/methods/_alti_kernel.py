"""Compiled ALTI distances (numba): ‖ŷ_i − (Σ_h A^h_ij f^h_j + δ_ij x_j)‖₁ for every pair, without
the (n, n, d) tensor of pieces: one pass, parallel over contributing tokens j, each j's vectors
staying in cache while every receiving row i uses them.

The heads are taken four at a time (the caller pads H to a multiple of 4 with zero heads), so the
running sum of one row lives in registers across four heads and the last four are fused with the
distance: a few loads per multiply-add instead of a load and a store each. The kernel runs in the
inputs' precision (float32 for float32 models, float64 otherwise); the L1 sums over d are
accumulated in float64 either way.
"""

from __future__ import annotations

import numba as nb
import numpy as np

GROUP = 4  # heads per pass over d


@nb.njit(cache=True, parallel=True, fastmath={"reassoc", "contract"})
def l1_distances(att_t, f, x, y, causal):  # pragma: no cover - compiled
    """att_t: (n_j, H, n_i) A^h_ij by column; f: (n, H, d) f^h(x_j); x: (n, d); y: (n, d); H a
    multiple of 4; all of one dtype (float32 or float64). Returns (n_i, n_j) float64
    ‖y_i − Σ_h A^h_ij f^h_j − δ_ij x_j‖₁ (causal: 0 above the diagonal)."""
    n, heads, d = f.shape
    last = heads - GROUP
    out = np.zeros((n, n))
    for p in nb.prange(n):
        # interleave both ends so that causal work (more rows for small j) splits evenly
        j = p // 2 if p % 2 == 0 else n - 1 - p // 2
        fj = f[j]  # (H, d)
        acc = np.zeros_like(f[0, 0])  # Σ over all heads but the last four, + δ_ij x_j; reset after each row
        start = j if causal else 0
        for i in range(start, n):
            if i == j:
                acc[:] = x[j]
            for h in range(0, last, GROUP):
                a0, a1, a2, a3 = att_t[j, h, i], att_t[j, h + 1, i], att_t[j, h + 2, i], att_t[j, h + 3, i]
                if a0 != 0 or a1 != 0 or a2 != 0 or a3 != 0:
                    f0, f1, f2, f3 = fj[h], fj[h + 1], fj[h + 2], fj[h + 3]
                    for k in range(d):
                        acc[k] += a0 * f0[k] + a1 * f1[k] + a2 * f2[k] + a3 * f3[k]
            a0, a1, a2, a3 = att_t[j, last, i], att_t[j, last + 1, i], att_t[j, last + 2, i], att_t[j, last + 3, i]
            f0, f1, f2, f3 = fj[last], fj[last + 1], fj[last + 2], fj[last + 3]
            yi = y[i]
            s = 0.0
            for k in range(d):
                s += abs(yi[k] - (acc[k] + a0 * f0[k] + a1 * f1[k] + a2 * f2[k] + a3 * f3[k]))
                acc[k] = 0
            out[i, j] = s
    return out
