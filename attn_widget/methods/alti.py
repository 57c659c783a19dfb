"""ALTI (Ferrando, Gállego & Costa-jussà, EMNLP 2022), docs/methods.md §7.2.

Each token's output of the attention block is split into one vector per contributing token,
residual included: T_i(x_j) = L_i(Σ_h A^h_ij f^h(x_j) + δ_ij x_j), with L_i the post-LN block's
first layer norm linearised at token i's own scale (the true LN formula, sqrt(Var + ε)), or the
identity for pre-LN and parallel blocks (the stream after attention has no norm on it; f uses V
from the normalised input). Then y_i = Σ_j T_i(x_j) + L_i(b_O) + β exactly, and

    c_ij = max(0, ‖y_i‖₁ − ‖y_i − T_i(x_j)‖₁),   C = rn(c),

rolled out as C^L ··· C^1 with no added identity (the residual is inside T_i(x_i)). The (n, n, d)
tensor of all T_i(x_j) never exists: a compiled kernel takes every distance in one pass
(``contributions``); ``contributions_by_chunks`` is the same in torch, rows in chunks.
"""

from __future__ import annotations

import torch

from ._threads import torch_threads
from .decomposition import LinearNorm
from .normalize import row_normalize
from .registry import register_mixing

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
) -> torch.Tensor:
    """``(n, n)`` float64 c_ij = max(0, ‖y_i‖₁ − ‖y_i − T_i(x_j)‖₁) (unnormalised), by a compiled
    kernel that never builds the pieces (``_alti_kernel``): the norm's linear part is folded into
    the vectors, L_i(u) = (u C ⊙ γ) / σ_i, so ‖y_i − T_i(x_j)‖₁ = ‖σ_i y_i − Σ_h A^h_ij f'^h_j − δ_ij x'_j‖₁ / σ_i
    with f' = f C ⊙ γ and x' = x C ⊙ γ. Float32 attention (a float32 model) runs the kernel in float32
    with float64 sums over d (about 1e-7 relative, the model's own precision); float64 stays float64.

    y: ``(n, d)`` the block's output of this decomposition (post-LN: LN1's output; pre-LN: the
    stream x + attention output, b_O included). Causal attention (no weight above the diagonal):
    c_ij = 0 exactly for j > i (T_i(x_j) = 0).
    """
    if norm is None:
        return contributions_through(att, transformed, x, y)
    return contributions_through(att, norm.unscaled(transformed), norm.unscaled(x), y, norm.scale)


def contributions_through(
    att: torch.Tensor,
    f: torch.Tensor,
    x: torch.Tensor,
    y: torch.Tensor,
    scale: torch.Tensor | None = None,
    causal: bool | None = None,
) -> torch.Tensor:
    """``contributions`` from vectors already through the norm's fixed map: f ``(H, n, d)``
    f'^h(x_j), x ``(n, d)`` x'_j, y ``(n, d)``, scale ``(n,)`` σ_i (None: 1). causal: whether no
    weight lies above the diagonal (None: looked up in ``att``; a verified capture knows it).
    Returns ``(n, n)`` float64."""
    with torch_threads():  # loading the kernel may start numba's threading layer
        from ._alti_kernel import GROUP, l1_distances

    heads, n = att.shape[0], att.shape[-1]
    if causal is None:
        causal = bool((att.triu(1) == 0).all())
    # float32 attention (a float32 model's capture): the kernel runs in float32, sums in float64
    dtype = torch.float32 if att.dtype == torch.float32 else torch.float64
    y = y.to(torch.float64)
    scale = torch.ones(n, dtype=torch.float64) if scale is None else scale
    padded = -heads % GROUP  # zero heads, so that H is a multiple of GROUP
    att_t = torch.empty(n, heads + padded, n, dtype=dtype)  # (n_j, H', n_i)
    att_t[:, :heads].copy_(att.permute(2, 0, 1))
    att_t[:, heads:].zero_()
    f_t = torch.zeros(n, heads + padded, f.shape[-1], dtype=dtype)  # (n, H', d)
    f_t[:, :heads].copy_(f.transpose(0, 1))
    y_scaled = (y * scale[:, None]).to(dtype)
    with torch_threads():
        distances = l1_distances(att_t.numpy(), f_t.numpy(), x.to(dtype).numpy(), y_scaled.numpy(), causal)
    out = (y.abs().sum(-1)[:, None] - torch.from_numpy(distances) / scale[:, None]).clamp_min_(0.0)
    return out.tril() if causal else out


def contributions_by_chunks(
    att: torch.Tensor,
    transformed: torch.Tensor,
    x: torch.Tensor,
    y: torch.Tensor,
    norm: LinearNorm | None = None,
    chunk_elements: int = CHUNK_ELEMENTS,
) -> torch.Tensor:
    """The same c as ``contributions``, in torch: the pieces built ``chunk_elements`` at a time
    (rows × columns × d) and their distances taken. The reference the kernel is tested against."""
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
    return out.tril() if causal else out


def alti_map(att, transformed, x, y, norm: LinearNorm | None = None) -> torch.Tensor:
    """``(n, n)`` float64 C = rn(c) of ``contributions``: rows sum to 1 (a row where every c_ij is
    0, because the bias terms outweigh every token, stays zero), non-negative."""
    return row_normalize(contributions(att, transformed, x, y, norm))


def _maps(mixing) -> torch.Tensor:
    """``(L, n, n)`` for every layer of a mixing part (``parts/mixing.py``)."""
    layers = mixing.structure().layers
    maps = []
    for l in mixing.layers:
        att, x, y, norm = mixing.capture.heads[l], layers[l].x, layers[l].stream, layers[l].linear1
        causal = mixing.capture.causal  # verified at capture: no weight above the diagonal then
        if norm is None:
            c = contributions_through(att, mixing.transformed(l), x, y, causal=causal)
        else:  # the norm's map folded into W_O: no pass over the (H, n, d) vectors
            f = mixing.transformed(l, norm.unscaled)
            c = contributions_through(att, f, norm.unscaled(x), y, norm.scale, causal=causal)
        maps.append(row_normalize(c))
    return torch.stack(maps)


register_mixing(
    "alti",
    "ALTI",
    "Ferrando et al. (2022): how close each token's transformed vector T_i(x_j) (attention, residual and layer "
    "norm) is to the block's output y_i in L1 distance, max(0, ‖y_i‖₁ − ‖y_i − T_i(x_j)‖₁), rows normalised.",
    _maps,
    explain=(
        "ALTI (aggregation of layer-wise token-to-token interactions) asks how close each token's contribution is"
        " to the right token's output: a contribution close to the output counts much. An edge means: that share "
        "of the right token's block output is made by the left token; the colour goes from pale (little) to dark "
        "(the most; the legend gives the scale). Definition: M[i, j] = max(0, ‖y_i‖₁ − ‖y_i − T_i(x_j)‖₁), rows "
        "normalised, with T_i(x_j) token j's transformed vector and y_i the output."
    ),
    hint="Each token's share of the block's output, measured by how close its part is to the whole.",
    trust=(
        "Ferrando et al. (2022) found its rollout more faithful than attention rollout in their tests; it is a "
        "distance-based measure, not an intervention."
    ),
)
