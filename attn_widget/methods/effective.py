"""Effective attention (Brunner et al., ICLR 2020), methods.md section 5.

A head's output is ``A V W_O``. When a query sees more keys than the value space has
dimensions, part of each attention row lies in the left null space of ``T = V W_O`` and
changes nothing in the output. Effective attention removes it: each row is projected
onto the column space of ``T`` restricted to the keys that row may see,

    a_eff[i, K_i] = a[i, K_i] · P_i,   P_i = projector onto col(T[K_i]),

which is the minimum-norm row giving the same output. Our choices (section 5.2):
``V`` includes the value bias; col(V W_O) = col(V E) with ``E`` an orthonormal basis of
col(W_O), so the work stays in the head dimension; one projector per key/value group
(GQA); a per-row (prefix) projector for masked rows, so decoders keep zeros above the
diagonal; rank tolerance ``sigma_1 · max(|K_i|, d_h) · eps`` of the dtype V was computed in.
"""

from __future__ import annotations

import torch

from .chain import cumulative_products
from .masks import admissible_keys
from .normalize import row_normalize

FLOAT32_EPS = float(torch.finfo(torch.float32).eps)


def value_bases(out_weights: torch.Tensor, eps: float = FLOAT32_EPS) -> list[torch.Tensor | None]:
    """Per head, an orthonormal basis ``(d_h, r)`` of col(W_O), or None when W_O has full row rank.

    out_weights: ``(H, d_h, d)`` the heads' slices of the output projection. Full row rank
    (the generic case, checked cheaply on W Wᵀ) means col(V W_O) = col(V): V itself serves.
    """
    w = out_weights.to(torch.float64)
    d_h, d = w.shape[-2:]
    singular_sq = torch.linalg.eigvalsh(w @ w.transpose(-1, -2))  # ascending squared singular values
    tolerance = singular_sq[:, -1].sqrt() * max(d_h, d) * eps
    bases: list[torch.Tensor | None] = []
    for head in range(w.shape[0]):
        if singular_sq[head, 0].clamp(min=0).sqrt() > tolerance[head]:
            bases.append(None)
            continue
        u, sv, _ = torch.linalg.svd(w[head], full_matrices=False)
        bases.append(u[:, : int((sv > tolerance[head]).sum())])
    return bases


def effective_attention(
    att: torch.Tensor,
    values: torch.Tensor,
    mask: torch.Tensor,
    *,
    group: torch.Tensor | None = None,
    out_weights: torch.Tensor | None = None,
    sum_preserving: bool = False,
    eps: float = FLOAT32_EPS,
) -> torch.Tensor:
    """Effective attention of one layer, ``(H, n, n)``, signed, in float64 for float64
    attention and float32 otherwise (memory: at 512 tokens a 12-head layer is 12 MB).

    att: ``(H, n, n)`` attention probabilities. values: ``(H_kv, n, d_h)`` value vectors
    including bias. mask: ``(n, n)`` bool admissible keys per query. group: ``(H,)`` key/
    value group of every query head (default: head h uses group h). out_weights:
    ``(H, d_h, d)`` W_O slices; heads whose slice lacks full row rank project onto
    col(V W_O) instead of col(V). sum_preserving: project onto col([T, 1]) so that
    every row keeps its sum (section 5.2 item 8). eps: machine epsilon of the dtype the
    values were computed in (float32 default; bf16 7.8e-3, fp16 9.8e-4).
    Rows whose admissible values already span their keys come back unchanged, exactly.
    """
    n_heads = att.shape[0]
    group = torch.arange(n_heads) if group is None else group
    bases = [None] * n_heads if out_weights is None else value_bases(out_weights, eps)
    full_mask = bool(mask.all())
    out = torch.empty(att.shape, dtype=torch.float64 if att.dtype == torch.float64 else torch.float32)
    # Heads that share a projector (same key/value group, W_O of full row rank) are projected together.
    batches: dict[tuple[int, int], list[int]] = {}
    for head in range(n_heads):
        batches.setdefault((int(group[head]), -1 if bases[head] is None else head), []).append(head)
    for (g, _), heads in batches.items():
        v = values[g].to(torch.float64)
        if bases[heads[0]] is not None:
            v = v @ bases[heads[0]]
        if sum_preserving:
            v = torch.cat([v, torch.ones(v.shape[0], 1, dtype=torch.float64)], dim=1)
        projector = _RowProjector(v, mask, eps, head_dim=values.shape[-1], full_mask=full_mask)
        out[heads] = projector.apply(att[heads]).to(out.dtype)
    return out


class _RowProjector:
    """Per-row projectors onto col(V[K_i]) for a value matrix ``V`` ``(n, k)`` and a mask ``(n, n)``.

    Rank decisions follow methods.md 5.2 item 6 (singular values of V[K_i] against
    tau_i = sigma_1 · max(|K_i|, d_h) · eps). The projection itself is computed in float64
    in an orthonormal basis of col(V), never through V's own Gram matrix, whose condition
    number is squared: value vectors with a large bias are nearly rank one, and a float32
    Gram pseudo-inverse of them lost up to 16% of a Qwen2 layer's output.
    """

    _CHUNK = 64  # rows per batched SVD for the rows the fast path cannot certify

    def __init__(self, v: torch.Tensor, mask: torch.Tensor, eps: float, head_dim: int, full_mask: bool):
        self.mask, self.full_mask = mask, full_mask
        n, k = v.shape
        u, s, _ = torch.linalg.svd(v, full_matrices=False)
        rank = int((s > s[0] * max(n, head_dim) * eps).sum()) if s.numel() and s[0] > 0 else 0
        self.basis = u[:, :rank]  # (n, r): orthonormal basis of col(V)
        if full_mask:  # encoder: one projector, P = U_r U_rᵀ (Brunner's formula once padding is cropped)
            self.identity_rows = torch.full((n,), rank == n)
            return
        # Masked rows, fast path. V = B C + (directions below the global tolerance, dropped for every row
        # as in the encoder), with B this basis and C = S_r W_rᵀ of full rank r; so col(B[K_i] C) =
        # col(B[K_i]) when that has rank r. A row is certified by the eigenvalues of M_i = S G_i S, which
        # are B[K_i] C's squared singular values (all above tau_i, and above what float64 resolves), and
        # by a Cholesky factor of B[K_i]'s own Gram G_i, the one applied (lambda_min >= 1e-6 keeps its
        # inverse accurate to about 1e-10, as lambda_max <= 1). Neither squares V's condition number.
        sizes = mask.sum(-1)
        grams = _masked_grams(self.basis, mask)  # (n, r, r)
        self.gram_inverse, gram_min = _cholesky_inverse(grams)
        singular_sq = torch.linalg.eigvalsh(grams * (s[:rank, None] * s[None, :rank]))  # (n, r) ascending
        largest = singular_sq[:, -1] if rank else torch.zeros(n, dtype=torch.float64)
        tau_sq = largest * (sizes.clamp(min=head_dim) * eps) ** 2
        resolvable = largest * 16 * k * float(torch.finfo(torch.float64).eps)
        smallest = singular_sq[:, 0] if rank else torch.zeros(n, dtype=torch.float64)
        certified = (sizes > rank) & (gram_min >= 1e-6) & (smallest > torch.maximum(tau_sq, resolvable))
        self.identity_rows = torch.zeros(n, dtype=torch.bool)
        # The rest (rows that see at most r keys, near-dependent values): an exact SVD of V[K_i] per row.
        self.rest = (~certified).nonzero().flatten()
        self.rest_bases = []
        for chunk in self.rest.split(self._CHUNK):
            rows = v.unsqueeze(0) * mask[chunk].unsqueeze(-1)  # (m, n, k): V with the hidden keys zeroed
            ub, sb, _ = torch.linalg.svd(rows, full_matrices=False)
            keep = sb > sb[:, :1] * sizes[chunk].clamp(min=head_dim).unsqueeze(-1) * eps
            self.rest_bases.append(ub * keep.unsqueeze(1))  # (m, n, k), dropped directions zeroed
            self.identity_rows[chunk] = keep.sum(-1) == sizes[chunk]

    def apply(self, a: torch.Tensor) -> torch.Tensor:
        """``(h, n, n)`` attention of heads sharing this projector → effective attention.

        Encoders project in the attention's own precision (float32 for float32 models: the
        basis is orthonormal, so rounding stays near 1e-7); masked rows always in float64.
        Rows whose projector is the identity are returned exactly.
        """
        if self.full_mask:
            work = a.dtype if a.dtype in (torch.float32, torch.float64) else torch.float32
            u = self.basis.to(work)
            result = (a.to(work) @ u) @ u.T
            return torch.where(self.identity_rows.unsqueeze(1), a.to(work), result)
        a64 = a.to(torch.float64)
        coefficients = torch.einsum("hir,irs->his", a64 @ self.basis, self.gram_inverse)
        result = (coefficients @ self.basis.T) * self.mask
        for chunk, bases in zip(self.rest.split(self._CHUNK), self.rest_bases):
            rows = a64[:, chunk]  # (h, m, n)
            result[:, chunk] = torch.einsum("hmk,mnk->hmn", torch.einsum("hmn,mnk->hmk", rows, bases), bases)
        out_dtype = torch.float64 if a.dtype == torch.float64 else torch.float32
        return torch.where(self.identity_rows.unsqueeze(1), a64, result).to(out_dtype)


def _cholesky_inverse(grams: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Inverses of positive-definite ``(n, r, r)`` matrices and a lower bound on each one's smallest
    eigenvalue (1/||G⁻¹||_F); rows that are not numerically positive definite get a bound of 0."""
    factor, info = torch.linalg.cholesky_ex(grams)
    ok = info == 0
    eye = torch.eye(grams.shape[-1], dtype=grams.dtype)
    inverse = torch.cholesky_inverse(torch.where(ok[:, None, None], factor, eye))
    return inverse, torch.where(ok, 1.0 / torch.linalg.matrix_norm(inverse), torch.zeros_like(info, dtype=grams.dtype))


def _masked_grams(v: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``(n, k, k)``: G_i = Σ_j mask[i, j] v_j v_jᵀ; cumulative sums for causal masks."""
    outer = v.unsqueeze(2) * v.unsqueeze(1)  # (n, k, k)
    if torch.equal(mask, admissible_keys(mask.shape[0], causal=True)):
        return outer.cumsum(0)
    return torch.einsum("ij,jkl->ikl", mask.to(torch.float64), outer)


def removed_mass(att: torch.Tensor, effective: torch.Tensor) -> torch.Tensor:
    """Per row, ``Σ_j |A - A_eff|``: how much attention the projection moved or removed. ``(..., n)``."""
    return (att.to(torch.float64) - effective.to(torch.float64)).abs().sum(-1)


def effective_mixing(effective_mean: torch.Tensor, raw_mean: torch.Tensor, variant: str = "clip") -> torch.Tensor:
    """Turn head-averaged effective attention ``(L, n, n)`` into rollout/flow inputs (section 5.3).

    "clip" (E1, default): rn(max(Ā_eff, 0)); a row that clips to zero falls back to the
    raw Ā row. "abs" (E3): rn(|Ā_eff|). Both are non-negative and row-stochastic.
    For E2 (signed, sum-preserving) use ``signed_rollout`` on the sum-preserving variant.
    """
    if variant == "clip":
        clipped = effective_mean.clamp(min=0)
    elif variant == "abs":
        clipped = effective_mean.abs()
    else:
        raise ValueError(f'variant must be "clip" or "abs"; got {variant!r}.')
    empty = clipped.sum(-1, keepdim=True) == 0
    return torch.where(empty, raw_mean.to(torch.float64), row_normalize(clipped))


def signed_rollout(att: torch.Tensor, residual: float = 0.5) -> torch.Tensor:
    """E2: rollout of signed matrices whose rows sum to 1, without clipping or renormalising.

    att: ``(L, n, n)``. Returns ``(L, n, n)``; rows of every result sum to 1, entries may be negative.
    """
    eye = torch.eye(att.shape[-1], dtype=torch.float64)
    return cumulative_products((1 - residual) * att.to(torch.float64) + residual * eye)
