"""Effective attention (Brunner et al., ICLR 2020), docs/methods.md §5.

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
from .heads import per_head
from .masks import admissible_keys
from .normalize import row_normalize
from .registry import needs_values, register

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
    out: torch.Tensor | None = None,
) -> torch.Tensor:
    """Effective attention of one layer, ``(H, n, n)``, signed, in float64 for float64
    attention and float32 otherwise (memory: at 512 tokens a 12-head layer is 12 MB).
    out: a tensor of that shape and dtype to write into (a slice of all layers' result).

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
    bases: list[torch.Tensor | None] = [None] * n_heads if out_weights is None else list(value_bases(out_weights, eps))
    full_mask = bool(mask.all())
    # Heads that share a projector (same key/value group, W_O of full row rank) are projected together.
    batches: dict[tuple[int, int], list[int]] = {}
    for head in range(n_heads):
        batches.setdefault((int(group[head]), -1 if bases[head] is None else head), []).append(head)
    matrices = {}
    for (g, _), heads in batches.items():
        v = values[g].to(torch.float64)
        basis = bases[heads[0]]
        if basis is not None:
            v = v @ basis
        if sum_preserving:
            v = torch.cat([v, torch.ones(v.shape[0], 1, dtype=torch.float64)], dim=1)
        matrices[tuple(heads)] = v
    head_dim = values.shape[-1]
    shapes = {v.shape for v in matrices.values()}
    if len(shapes) == 1:  # one batched factorisation for every group (the usual case)
        found = _column_bases(torch.stack(list(matrices.values())), head_dim, eps)
    else:
        found = [_column_bases(v.unsqueeze(0), head_dim, eps)[0] for v in matrices.values()]
    projectors = {
        heads: _RowProjector(v, *column, mask, eps, head_dim, full_mask)
        for (heads, v), column in zip(matrices.items(), found, strict=True)
    }
    if out is None:
        out = torch.empty(att.shape, dtype=torch.float64 if att.dtype == torch.float64 else torch.float32)
    if full_mask:
        return _project_all_rows(att, projectors, out)
    for members, projector in projectors.items():
        out[list(members)] = projector.apply(att[list(members)]).to(out.dtype)
    return out


def _project_all_rows(att: torch.Tensor, projectors: dict, out: torch.Tensor) -> torch.Tensor:
    """Encoder: every head's rows times its U_r U_rᵀ, as two batched products over all heads
    (bases zero-padded to one width, which leaves U U_ᵀ unchanged), in the attention's own
    precision (float32 for float32 models: the bases are orthonormal, so rounding stays near
    1e-7). Heads whose values span all n keys come back unchanged, exactly."""
    work = out.dtype
    n_heads, n = att.shape[0], att.shape[-1]
    width = max(p.basis.shape[1] for p in projectors.values())
    basis = torch.zeros(n_heads, n, width, dtype=work)
    unchanged = []
    for heads, projector in projectors.items():
        basis[list(heads), :, : projector.basis.shape[1]] = projector.basis.to(work)
        if projector.basis.shape[1] == n:
            unchanged.extend(heads)
    a = att.to(work)
    torch.bmm(torch.bmm(a, basis), basis.transpose(1, 2), out=out)
    out[unchanged] = a[unchanged]
    return out


class _RowProjector:
    """Per-row projectors onto col(V[K_i]) for a value matrix ``V`` ``(n, k)`` and a mask ``(n, n)``.

    Rank decisions follow docs/methods.md §5.2 item 6 (singular values of V[K_i] against
    tau_i = sigma_1 · max(|K_i|, d_h) · eps). The projection itself is computed in float64
    in an orthonormal basis of col(V), never through V's own Gram matrix, whose condition
    number is squared: value vectors with a large bias are nearly rank one, and a float32
    Gram pseudo-inverse of them lost up to 16% of a Qwen2 layer's output.
    """

    _CHUNK = 64  # rows per batched SVD for the rows the fast path cannot certify

    def __init__(self, v, basis, scale, singular, mask: torch.Tensor, eps: float, head_dim: int, full_mask: bool):
        """v ``(n, k)`` float64; basis ``(n, r)`` orthonormal with V ≈ basis C, scale ``(r, r)`` L with
        L Lᵀ = C Cᵀ and singular ``(r,)`` C's singular values (``_column_bases``); mask ``(n, n)``;
        eps and head_dim set the rank tolerance."""
        self.mask, self.basis = mask, basis
        if full_mask:  # encoder: one projector, P = B Bᵀ (Brunner's formula once padding is cropped)
            return
        n, rank = basis.shape
        # Masked rows, fast path. V = B C + (directions below the global tolerance, dropped for every row
        # as in the encoder), C of full row rank r; so col(B[K_i] C) = col(B[K_i]) when that has rank r.
        # The matrix applied is G_i⁻¹ (G_i = B[K_i]ᵀ B[K_i], lambda_max <= 1): lambda_min >= 1e-6 keeps it
        # accurate to about 1e-10. The rank rule needs B[K_i] C's singular values above tau_i (and above
        # what float64 resolves): most rows pass on the bound sigma_min >= sqrt(lambda_min(G_i)) s_r; the
        # others are decided on the eigenvalues of M_i = Lᵀ G_i L, which are exactly those values squared.
        # Neither squares V's condition number into what is applied.
        sizes = mask.sum(-1)
        grams = _masked_grams(self.basis, mask)  # (n, r, r)
        self.gram_inverse, gram_min = _cholesky_inverse(grams)
        candidates = (sizes > rank) & (gram_min >= 1e-6) & (rank > 0)
        if rank:
            floor = torch.clamp(
                (sizes.clamp(min=head_dim) * eps) ** 2, min=16 * rank * float(torch.finfo(torch.float64).eps)
            )
            certified = candidates & (gram_min * singular[-1] ** 2 > singular[0] ** 2 * floor)
            check = (candidates & ~certified).nonzero().flatten()
            if check.numel():
                squares = torch.linalg.eigvalsh(scale.T @ grams[check] @ scale)  # (m, r) ascending
                certified[check] = squares[:, 0] > squares[:, -1] * floor[check]
        else:
            certified = candidates
        self.identity_rows = torch.zeros(n, dtype=torch.bool)
        if rank:
            # Rows that see at most r keys (a decoder's first r tokens): V[K_i] has full row rank |K_i|, so its
            # projector is the identity, when sigma_min(B[K_i] C) >= sqrt(lambda_min(H_i)) s_r clears the same
            # tolerance, H_i = B[K_i] B[K_i]ᵀ (|K_i| × |K_i|): the bound above on the small Gram, whose eigenvalues
            # are B[K_i]'s, so V's condition number is not squared either.
            few = ((sizes <= rank) & (sizes > 0)).nonzero().flatten()
            if few.numel():
                keys, valid = _gathered_keys(mask[few])
                rows = basis[keys] * valid.unsqueeze(-1)  # (m, p, r)
                small = rows @ rows.mT + torch.diag_embed(1 - valid)  # a padded key adds eigenvalue 1 (never below)
                smallest = torch.linalg.eigvalsh(small)[:, 0]
                self.identity_rows[few] = smallest * singular[-1] ** 2 > singular[0] ** 2 * floor[few]
        # The rest (rows whose values are near-dependent): an exact SVD of V[K_i] per row, on the admissible
        # rows only, gathered into (chunk, max |K_i|, k).
        rest = (~certified & ~self.identity_rows).nonzero().flatten()
        self.chunks = list(rest.split(self._CHUNK)) if rest.numel() else []
        self.rest_parts = []
        for chunk in self.chunks:
            keys, valid = _gathered_keys(mask[chunk])
            ub, sb, _ = torch.linalg.svd(v[keys] * valid.unsqueeze(-1), full_matrices=False)
            keep = sb > sb[:, :1] * sizes[chunk].clamp(min=head_dim).unsqueeze(-1) * eps
            self.rest_parts.append((keys, valid, ub * keep.unsqueeze(1)))  # dropped directions zeroed
            self.identity_rows[chunk] = keep.sum(-1) == sizes[chunk]

    def apply(self, a: torch.Tensor) -> torch.Tensor:
        """``(h, n, n)`` attention of heads sharing this (masked) projector → effective attention in
        float64; rows whose projector is the identity are returned exactly."""
        a64 = a.to(torch.float64)
        coefficients = torch.einsum("hir,irs->his", a64 @ self.basis, self.gram_inverse)
        result = (coefficients @ self.basis.T) * self.mask
        for chunk, (keys, valid, bases) in zip(self.chunks, self.rest_parts, strict=True):
            rows = a64[:, chunk].gather(-1, keys.expand(a64.shape[0], -1, -1)) * valid  # (h, m, max |K|)
            projected = torch.einsum("hmk,mqk->hmq", torch.einsum("hmp,mpk->hmk", rows, bases), bases) * valid
            result[:, chunk] = torch.zeros_like(result[:, chunk]).scatter_add_(-1, keys.expand_as(projected), projected)
        return torch.where(self.identity_rows.unsqueeze(1), a64, result)


def _column_bases(v: torch.Tensor, head_dim: int, eps: float) -> list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
    """For each float64 ``v[g]`` ``(n, k)``: an orthonormal basis B ``(n, r)`` of its column space above
    the rank tolerance sigma_1 · max(n, d_h) · eps, L ``(r, r)`` with L Lᵀ = C Cᵀ where V ≈ B C, and
    C's singular values ``(r,)``, descending.

    Cholesky QR twice (V = Q R from two k × k Gram factorisations) is exact to rounding while
    cond(V) stays below about 1e7, and several times faster than LAPACK's SVD of a 512 × 32
    matrix: B = Q, L = R when nothing falls below the tolerance; else the SVD of R picks the
    directions kept. A batch closer to rank deficiency than that takes LAPACK's SVD of V.
    """
    n, k = v.shape[-2:]
    q, r = v, torch.eye(k, dtype=v.dtype).expand(v.shape[0], k, k)
    for _ in range(2):
        factor, info = torch.linalg.cholesky_ex(q.mT @ q, upper=True)  # qᵀq = factorᵀ factor
        if info.any():
            break
        q = torch.linalg.solve_triangular(factor, q, upper=True, left=False)
        r = factor @ r
    else:
        s = torch.linalg.svdvals(r)
        if bool((s[:, -1] > s[:, 0] * 1e-7).all()):
            return [_kept(q[g], r[g], s[g], max(n, head_dim) * eps) for g in range(v.shape[0])]
    u, s, _ = torch.linalg.svd(v, full_matrices=False)
    return [_kept(u[g], torch.diag(s[g]), s[g], max(n, head_dim) * eps) for g in range(v.shape[0])]


def _kept(
    q: torch.Tensor, r: torch.Tensor, s: torch.Tensor, relative: float
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """V = q r with q orthonormal and s = V's singular values: what ``_column_bases`` returns."""
    rank = int((s > s[0] * relative).sum()) if s[0] > 0 else 0
    if rank == r.shape[0]:
        return q, r, s
    u_r, s_r, _ = torch.linalg.svd(r)
    return q @ u_r[:, :rank], torch.diag(s_r[:rank]), s_r[:rank]


def _gathered_keys(mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """For rows of a mask ``(m, n)``: their admissible key indices ``(m, p)`` (p = the most any row
    has; the rest padded with index 0) and which of them are real ``(m, p)`` float64."""
    count = mask.sum(-1)
    order = torch.sort(mask.to(torch.int8), dim=-1, descending=True, stable=True).indices[:, : int(count.max())]
    valid = torch.arange(order.shape[1]).unsqueeze(0) < count.unsqueeze(1)
    return torch.where(valid, order, 0), valid.to(torch.float64)


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


def _removed_stack(analysis) -> torch.Tensor:
    """``(L, H + 2, n)``: Σ_j |A - A_eff| per row, for every head slot of the effective stack."""
    effective = analysis.effective().to(torch.float64)
    return torch.cat(
        [
            analysis.effective_removed(),
            removed_mass(analysis.raw(), effective.mean(1)).unsqueeze(1),
            removed_mass(analysis.raw("max"), effective.amax(1)).unsqueeze(1),
        ],
        dim=1,
    )


def _note(analysis) -> str:
    n, head_dim = analysis.capture.n_tokens, analysis.capture.geometry.head_dim
    if analysis.effective_is_raw:
        return f"{n} tokens do not exceed the head dimension ({head_dim}): effective attention equals raw attention."
    if analysis.causal:
        return f"Rows of the first {head_dim} tokens see at most {head_dim} keys and are unchanged."
    return ""


register(
    "effective",
    "Effective attention",
    "Brunner et al. (2020): each attention row without its part in the left null space of V·W_O, which "
    "changes nothing in the head's output. Signed: blue is negative. Equal to raw attention for rows that "
    "see no more keys than the head dimension.",
    lambda analysis, _settings: per_head(analysis.effective()),
    explain=(
        "Raw attention with the part removed that has no effect on the layer's output: some weight patterns are "
        "cancelled by the value vectors and change nothing. An edge means: that much of the right token's "
        "attention to the left token actually reaches its output. Red edges are positive, blue negative. "
        "Definition: A_eff = A − (the projection of each row of A onto the null space of (V·W_O)ᵀ), with V the "
        "values and W_O the head's output projection."
    ),
    per_head=True,
    signed=True,
    applies=needs_values,
    row_values=_removed_stack,
    row_label="attention removed (Σ|A − A_eff|)",
    note=_note,
    compare=None,
    group="Effective attention",
    hint="Attention without the part the layer's values cannot pass on (can be negative).",
    trust=(
        "Exact for the head's own output (Brunner et al. 2020), but it still leaves out the residual and the "
        "feed-forward block. Negative edges are real: they cancel positive ones. Equal to raw attention while a row "
        "sees no more tokens than a head's dimension."
    ),
)
