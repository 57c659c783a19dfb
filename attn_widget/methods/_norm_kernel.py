"""Compiled quadratic forms of the norm-based methods (numba): ``decomposition.weighted_norms``'s inner
pass, in its own module so that numba is imported only when a norm is first computed."""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(cache=True, parallel=True, fastmath={"reassoc", "contract"})
def quadratic_forms(a, g, residual):  # pragma: no cover - compiled
    """a: (P, n, n) coefficients a_ij[p]; g: (P', P', n) G_j by pair of vectors, P' = P (+ 1 with
    ``residual``: the last vector x_j, coefficient δ_ij). Returns (n, n) float64
    sqrt(max(0, Σ_pq a_ij[p] a_ij[q] G_j[p, q])), rows in parallel."""
    p_count, n = a.shape[0], a.shape[-1]
    out = np.empty((n, n))
    for i in nb.prange(n):
        acc = np.zeros(n)  # (n_j,) Σ_pq over the pairs so far
        for p in range(p_count):
            ap = a[p, i]
            for q in range(p, p_count):
                aq, gpq = a[q, i], g[p, q]
                w = 1.0 if q == p else 2.0  # G symmetric: the pair (q, p) counted with (p, q)
                for j in range(n):
                    acc[j] += w * (np.float64(ap[j]) * np.float64(aq[j])) * gpq[j]
        if residual:  # δ_ij: only j = i gains 2 Σ_p a_ii[p] G_i[p, x] + G_i[x, x]
            extra = g[p_count, p_count, i]
            for p in range(p_count):
                extra += 2.0 * np.float64(a[p, i, i]) * g[p, p_count, i]
            acc[i] += extra
        for j in range(n):
            out[i, j] = np.sqrt(max(acc[j], 0.0))
    return out
