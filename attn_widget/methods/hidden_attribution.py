"""Hidden token attribution (Brunner et al., "On Identifiability in Transformers", ICLR 2020).

How much input token j contributes to the hidden vector of token i after layer l:

    ĝ_ij^l = ‖∂e_i^l / ∂x_j‖_F,    g_ij^l = ĝ_ij^l / Σ_k ĝ_ik^l      (rows sum to 1; L1 over j),

the Frobenius norm of the d×d Jacobian block, normalised over input tokens as in the paper.

Choices (ours, documented):

* x_j is the input embedding module's output (``gradients.py``). Position and token-type
  embeddings are added to it, so the Jacobian is the same as with respect to their sum;
  constant scalings (Gemma's √d) cancel in the normalisation.
* e_i^l is block l's own output, hooked in the same pass, not ``hidden_states[l]``: for
  language models transformers overwrites the last hidden state with the final norm's
  output, which is not a layer's mixing.

Exact, no sampling: forward-mode AD gives the Jacobian column of one input coordinate (j, k)
for every layer and every token at once, so n·d tangents cover all layers (reverse mode would
need L·n·d cotangents). Tangents run as a batch of copies of the text, ``_BATCH`` per pass,
with ``progress(done, total)`` after each pass (it may raise to cancel). Cost: n·d/B forward
passes of B copies, i.e. O(n²·d) token-passes: see benchmarks/RESULTS.md for the limit.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import torch
import torch.autograd.forward_ad as fwad

from ..capture import Capture
from ..errors import UnsupportedModelError
from ..gradients import GradientRunner, _float_model
from ..inputs import unwrap
from ..model_state import borrowed_for_capture
from ..models import replay
from .normalize import row_normalize

# Activation memory one batch of tangents may take (estimated, as for value zeroing, twice: primal + tangent).
_BUDGET_BYTES = 256 * 2**20


def hidden_attribution_maps(
    model, tokenizer, capture: Capture, progress: Callable[[float, float], None] | None = None
) -> torch.Tensor:
    """``(L, n, n)`` float64: row i of layer l is g_i·^l, the share of each input token j in
    token i's hidden vector after block l; rows sum to 1. Causal models: exactly 0 for j > i.

    Runs in float32 or float64 (a bf16/fp16 model is attributed on a float32 copy).
    progress: ``progress(done, total)`` with total = n·d input coordinates; may raise to cancel.
    """
    model = unwrap(model)
    with borrowed_for_capture(model, "hidden token attribution"):
        work_model = _float_model(model)
    runner = GradientRunner(work_model, tokenizer, capture)
    blocks = [block for block, _ in replay.find_blocks(work_model)]
    embeds = runner._embed()  # (1, n, d)
    n, d = embeds.shape[1], embeds.shape[2]
    squares = torch.zeros(capture.n_layers, n, n, dtype=torch.float64)
    batch = _batch_size(capture, n, d, embeds.element_size())
    total = n * d
    for start in range(0, total, batch):
        directions = torch.arange(start, min(total, start + batch))
        with borrowed_for_capture(work_model, "hidden token attribution"):
            tangents = _block_tangents(runner, blocks, embeds, directions, capture.n_layers)
        # tangents: (L, B, n, d) = ∂e^l / ∂x_{j_b, k_b}; add ‖·‖² over output dims to column j_b
        squares.index_add_(2, directions // d, tangents.double().pow(2).sum(-1).permute(0, 2, 1).cpu())
        if progress is not None:
            progress(int(directions[-1]) + 1, total)
    scores = squares.sqrt()
    if capture.causal:
        scores = scores.tril()  # exact: a causal mask stops every path from j > i
    return row_normalize(scores)


def _batch_size(capture: Capture, n: int, d: int, element_size: int) -> int:
    per_copy = 2 * element_size * n * (16 * d + 4 * capture.n_heads * n) * max(1, capture.n_layers // 4)
    return max(1, min(n * d, _BUDGET_BYTES // per_copy))


def _block_tangents(runner: GradientRunner, blocks, embeds: torch.Tensor, directions: torch.Tensor, n_layers: int):
    """``(L, B, n, d)``: the forward-mode derivative of every block's output along input coordinate
    ``directions[b]`` (flattened (token, dim)) for copy b, from one batched pass."""
    batch, n, d = len(directions), embeds.shape[1], embeds.shape[2]
    tangent = torch.zeros(batch, n * d, dtype=embeds.dtype, device=embeds.device)
    tangent[torch.arange(batch), directions.to(embeds.device)] = 1.0
    seen: list[torch.Tensor] = []

    def keep(_module, _inputs, output):
        out = output[0] if isinstance(output, (tuple, list)) else output
        derivative = fwad.unpack_dual(out).tangent
        seen.append(torch.zeros_like(out) if derivative is None else derivative.detach())

    handles = [block.register_forward_hook(keep) for block in {id(b): b for b in blocks}.values()]
    try:
        with fwad.dual_level(), torch.no_grad(), warnings.catch_warnings():
            # torch registers its forward-AD decompositions on first use with torch.jit.script, which warns.
            warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated", DeprecationWarning)
            dual = fwad.make_dual(embeds.expand(batch, -1, -1).contiguous(), tangent.view(batch, n, d))
            runner._forward(dual)
    except (NotImplementedError, RuntimeError) as exc:
        if "forward" not in str(exc).lower() and "dual" not in str(exc).lower():
            raise
        raise UnsupportedModelError(
            f"Hidden token attribution is unavailable for {type(runner.model).__name__}: one of its operations has "
            f"no forward-mode derivative in torch ({str(exc).splitlines()[0][:120]})."
        ) from None
    finally:
        for handle in handles:
            handle.remove()
    if len(seen) != n_layers:
        raise UnsupportedModelError(
            f"Hidden token attribution is unavailable: the transformer blocks ran {len(seen)} times for "
            f"{n_layers} layers."
        )
    return torch.stack(seen)
