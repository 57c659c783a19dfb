"""How a projection's output splits into per-head value vectors.

A separate value projection gives ``(n, H_kv·d_h)``. A fused query/key/value projection
packs queries, keys and values in one of several layouts, depending on the family. Each
layout below proposes value vectors when the widths fit; ``verify.py`` keeps the one whose
A·V reproduces what the model's output projection received, so a wrong guess is never used.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import torch

# (projected (n, w), query heads H, head width d_h) -> candidate values (H_kv, n, d_h)
Layout = Callable[[torch.Tensor, int, int], Iterator[torch.Tensor]]


def _heads(v: torch.Tensor, head_dim: int) -> torch.Tensor:
    """``(n, H_kv·d_h)`` → ``(H_kv, n, d_h)``."""
    return v.reshape(v.shape[0], -1, head_dim).transpose(0, 1)


def _kv_heads_of_blocks(width: int, n_heads: int, head_dim: int) -> int | None:
    """H_kv when ``width`` = (H + 2·H_kv)·d_h with H a multiple of H_kv, else None."""
    blocks, rest = divmod(width, head_dim)
    kv, odd = divmod(blocks - n_heads, 2)
    return kv if not rest and not odd and kv >= 1 and n_heads % kv == 0 else None


def separate(projected, n_heads, head_dim):
    """A value projection of its own (BERT, Llama, T5, ...): ``(n, H_kv·d_h)``."""
    kv, rest = divmod(projected.shape[1], head_dim)
    if not rest and kv >= 1 and n_heads % kv == 0:
        yield _heads(projected, head_dim)


def blocked(projected, n_heads, head_dim):
    """``[Q | K | V]`` side by side (GPT-2, Phi-3, MPT, ModernBERT, Falcon multi-query, GPTBigCode)."""
    kv = _kv_heads_of_blocks(projected.shape[1], n_heads, head_dim)
    if kv is not None:
        yield _heads(projected[:, (n_heads + kv) * head_dim :], head_dim)


def per_head(projected, n_heads, head_dim):
    """``[q k v]`` of each head in turn (BLOOM, GPT-NeoX, Persimmon, DeBERTa)."""
    if projected.shape[1] == 3 * n_heads * head_dim:
        yield projected.reshape(-1, n_heads, 3, head_dim)[:, :, 2].transpose(0, 1)


def per_group(projected, n_heads, head_dim):
    """Each key/value group's queries, then its key, then its value (Falcon's new architecture)."""
    kv = _kv_heads_of_blocks(projected.shape[1], n_heads, head_dim)
    if kv is not None and kv < n_heads:  # kv == H is the per-head layout
        yield projected.reshape(-1, kv, n_heads // kv + 2, head_dim)[:, :, -1].transpose(0, 1)


def shards(projected, n_heads, head_dim, count: int = 4):
    """``[q v k]`` in each of ``count`` model-parallel shards (CodeGen)."""
    width = projected.shape[1]
    if width == 3 * n_heads * head_dim and width % (3 * count) == 0:
        local = width // (3 * count)
        values = projected.reshape(-1, count, 3 * local)[:, :, local : 2 * local]
        yield _heads(values.reshape(-1, n_heads * head_dim), head_dim)


SEPARATE: dict[str, Layout] = {"separate": separate}
FUSED: dict[str, Layout] = {"blocked": blocked, "per-head": per_head, "per-group": per_group, "shards": shards}


def candidates(projected: torch.Tensor, fused: bool, n_heads: int, head_dim: int) -> Iterator[tuple[str, torch.Tensor]]:
    """Every ``(layout name, values (H_kv, n, d_h))`` that fits the projection's width."""
    for name, layout in (FUSED if fused else SEPARATE).items():
        for values in layout(projected, n_heads, head_dim):
            yield name, values
