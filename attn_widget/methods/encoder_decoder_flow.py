"""Attention flow through an encoder-decoder's cross-attention, exact (docs/methods.md §2.7).

The rollout of §2.7 is the target rows of a product of JOINT layer matrices over the
``N = ns + nt`` tokens [source; target]. Encoder layer m and decoder layer l are

    E_m = [[Â_enc^(m), 0], [0, I]]            D_l = [[I, 0], [(1-α)·C_l, α·S_l]]

(source nodes pass through the decoder layers unchanged, target nodes wait through the
encoder layers). Flow is Abnar & Zuidema's max flow on the layered graph whose layer
capacities are these ``Le + Ld`` matrices (row = upper node), solved by the same compiled
kernel as text flow (``flow.FlowSolver``), for the target rows of the decoder layers only.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import torch

from ._checks import check_residual
from .flow import FlowSolver, Progress, in_threads, layer_numbers
from .normalize import row_normalize
from .rollout import residual_augment


def joint_layers(
    encoder: torch.Tensor, decoder: torch.Tensor, cross: torch.Tensor, residual: float = 0.5
) -> torch.Tensor:
    """``(Le + Ld, N, N)`` float64 joint layer matrices, N = ns + nt, encoder layers first.

    encoder ``(Le, ns, ns)``, decoder ``(Ld, nt, nt)``, cross ``(Ld, nt, ns)``: head-aggregated
    attention (rows re-normalised here, as ``encoder_decoder_rollout`` does). Every row sums to 1.
    """
    alpha = check_residual(residual)
    if decoder.dim() != 3 or cross.dim() != 3 or cross.shape[0] != decoder.shape[0]:
        raise ValueError(
            f"decoder must be (Ld, nt, nt) and cross (Ld, nt, ns) with the same Ld; got {tuple(decoder.shape)} "
            f"and {tuple(cross.shape)}."
        )
    encoder_hat = residual_augment(encoder, residual)  # (Le, ns, ns), checks the stack
    self_mix = residual_augment(decoder, residual)  # (Ld, nt, nt)
    le, ns, ld, nt = encoder_hat.shape[0], encoder_hat.shape[-1], self_mix.shape[0], self_mix.shape[-1]
    if cross.shape[1:] != (nt, ns):
        raise ValueError(
            f"cross must be (Ld, {nt}, {ns}) for {ns} source and {nt} target tokens; got {tuple(cross.shape)}."
        )
    if not torch.isfinite(cross).all() or (cross < 0).any():
        raise ValueError("cross must hold finite, non-negative attention weights.")
    n = ns + nt
    joint = torch.zeros(le + ld, n, n, dtype=torch.float64)
    joint[:le, :ns, :ns] = encoder_hat
    joint[:le, ns:, ns:] = torch.eye(nt, dtype=torch.float64)
    joint[le:, :ns, :ns] = torch.eye(ns, dtype=torch.float64)
    joint[le:, ns:, :ns] = (1.0 - alpha) * row_normalize(cross.to(torch.float64))
    joint[le:, ns:, ns:] = alpha * self_mix
    return joint


def encoder_decoder_flow(
    encoder: torch.Tensor,
    decoder: torch.Tensor,
    cross: torch.Tensor,
    residual: float = 0.5,
    layers: Iterable[int] | None = None,
    *,
    normalize: bool = True,
    progress: Progress | None = None,
) -> torch.Tensor:
    """Attention flow from every input node to every target position after every decoder layer.

    encoder ``(Le, ns, ns)``, decoder ``(Ld, nt, nt)``, cross ``(Ld, nt, ns)``: head-aggregated attention.
    layers: decoder layer numbers 1..Ld to compute (default: all), in the order wanted.
    Returns ``(len(layers), nt, ns + nt)`` float64 (``(Ld, nt, ns + nt)`` by default): entry
    ``[k, t, j]`` is the max flow between target position t after decoder layer l = layers[k]
    (joint layer Le + l) and input node j (source token j at layer 0
    for j < ns, target token j - ns at the decoder's input otherwise), each row divided by its sum
    as text flow does (``normalize=False``: the max-flow values themselves). Target columns after t
    are exactly 0. progress: called as ``progress(done, total)`` with counts of rows.
    """
    joint = joint_layers(encoder, decoder, cross, residual)
    le = encoder.shape[0]
    wanted = layer_numbers(layers, decoder.shape[0])
    nt = decoder.shape[-1]
    ns = joint.shape[-1] - nt
    solver = FlowSolver(joint)
    jobs = [(le + layer, ns + t) for layer in wanted for t in range(nt)]
    out = np.empty((len(jobs), ns + nt))
    for k, values in enumerate(in_threads(lambda job: solver.row(*job), jobs)):  # in order: progress row by row
        out[k] = values
        if progress is not None:
            progress(k + 1, len(jobs))
    result = torch.from_numpy(out).reshape(len(wanted), nt, ns + nt)
    return row_normalize(result) if normalize else result
