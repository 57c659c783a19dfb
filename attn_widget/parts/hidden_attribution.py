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
for every layer and every token at once, so n·d tangents cover all layers (reverse mode needs
L·n·d cotangents: 5.4 times slower on MiniLM at 8 tokens). The tangents of a batch go through
``torch.func.vmap`` over ``torch.func.jvp`` (the primal pass is shared; 2.3 times faster than
dual-number copies on MiniLM); a model that vmap cannot trace runs them as a batch of
dual-number copies of the text, and a model with an operation that has no forward derivative in
torch (BLOOM's custom autograd function, MoE grouped matmuls) runs in reverse mode, one copy of
the text per output coordinate. ``progress(done, total)`` after each batch (it may raise to
cancel). Cost: about 3·n·d forward passes of n tokens, O(n²·d·parameters); benchmarks/RESULTS.md
has the figures and the length up to which the widget should compute it up front.
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
from ..methods.normalize import row_normalize
from ..model_state import borrowed_for_capture
from ..models import replay

# Activation memory one batch of tangents may take (estimated, as for value zeroing, twice: primal + tangent).
_BUDGET_BYTES = 256 * 2**20


class _NoForwardDerivative(UnsupportedModelError):
    """An operation of the model has no forward-mode derivative in torch (custom autograd functions, MoE kernels)."""


def hidden_attribution_maps(
    model, tokenizer, capture: Capture, progress: Callable[[float, float], None] | None = None
) -> torch.Tensor:
    """``(L, n, n)`` float64: row i of layer l is g_i·^l, the share of each input token j in
    token i's hidden vector after block l; rows sum to 1. Causal models: exactly 0 for j > i.

    Runs in float32 or float64 (a bf16/fp16 model is attributed on a float32 copy).
    progress: ``progress(done, total)`` with total = n·d input coordinates (L·n·d output
    coordinates for models without forward-mode derivatives, which run in reverse mode); it
    may raise to cancel.
    """
    model = unwrap(model)
    with borrowed_for_capture(model, "hidden token attribution"):
        work_model = _float_model(model)
    runner = GradientRunner(work_model, tokenizer, capture)
    blocks = [block for block, _ in replay.find_blocks(work_model)]
    try:
        squares = _forward_mode(runner, blocks, capture, progress)
    except _NoForwardDerivative:
        squares = _reverse_mode(runner, blocks, capture, progress)
    scores = squares.sqrt()
    if capture.causal:
        scores = scores.tril()  # exact: a causal mask stops every path from j > i
    return row_normalize(scores)


def _forward_mode(runner: GradientRunner, blocks, capture: Capture, progress) -> torch.Tensor:
    """``(L, n, n)`` float64 ‖∂e_i^l/∂x_j‖_F², one tangent per input coordinate."""
    embeds = runner._embed()  # (1, n, d)
    n, d = embeds.shape[1], embeds.shape[2]
    squares = torch.zeros(capture.n_layers, n, n, dtype=torch.float64)
    batch = _batch_size(capture, n, d, embeds.element_size())
    total = n * d
    tangents_of = _shared_primal
    for start in range(0, total, batch):
        directions = torch.arange(start, min(total, start + batch))
        with borrowed_for_capture(runner.model, "hidden token attribution"):
            try:
                tangents = tangents_of(runner, blocks, embeds, directions, capture.n_layers)
            except (RuntimeError, NotImplementedError, ValueError):
                if tangents_of is _dual_copies:
                    raise
                tangents_of = _dual_copies  # vmap cannot trace this model: one dual-number copy per tangent
                tangents = tangents_of(runner, blocks, embeds, directions, capture.n_layers)
        # tangents: (L, B, n, d) = ∂e^l / ∂x_{j_b, k_b}; add ‖·‖² over output dims to column j_b
        squares.index_add_(2, directions // d, tangents.double().pow(2).sum(-1).permute(0, 2, 1).cpu())
        if progress is not None:
            progress(int(directions[-1]) + 1, total)
    return squares


def _reverse_mode(runner: GradientRunner, blocks, capture: Capture, progress) -> torch.Tensor:
    """``(L, n, n)`` float64 ‖∂e_i^l/∂x_j‖_F², one copy of the text per output coordinate (l, i, a):
    copy b's gradient is the row ∂e_{i,a}^l/∂x, exact and independent of the other copies."""
    embeds = runner._embed()
    n, d = embeds.shape[1], embeds.shape[2]
    width = capture.geometry.hidden_size if capture.geometry else d
    squares = torch.zeros(capture.n_layers, n, n, dtype=torch.float64)
    total = capture.n_layers * n * width
    batch = _batch_size(capture, n, d, embeds.element_size())
    for start in range(0, total, batch):
        coordinates = torch.arange(start, min(total, start + batch))
        layer, token, dim = coordinates // (n * width), coordinates // width % n, coordinates % width
        copies = embeds.expand(len(coordinates), -1, -1).clone().requires_grad_(True)
        with borrowed_for_capture(runner.model, "hidden token attribution"), torch.enable_grad():
            outputs = _outputs(runner, blocks, copies, capture.n_layers)  # (L, B, n, width)
            picked = outputs[layer, torch.arange(len(coordinates)), token, dim].sum()
            (rows,) = torch.autograd.grad(picked, [copies])
        squares.index_put_((layer, token), rows.double().pow(2).sum(-1).cpu(), accumulate=True)
        if progress is not None:
            progress(int(coordinates[-1]) + 1, total)
    return squares


def _outputs(runner: GradientRunner, blocks, x: torch.Tensor, n_layers: int) -> torch.Tensor:
    """``(L, B, n, d)``: every block's output for the input embeddings ``x`` ``(B, n, d)``."""
    seen = []

    def keep(_module, _inputs, out) -> None:
        seen.append(out[0] if isinstance(out, (tuple, list)) else out)

    handles = [block.register_forward_hook(keep) for block in {id(b): b for b in blocks}.values()]
    try:
        runner._forward(x)
    finally:
        for handle in handles:
            handle.remove()
    return _stacked(seen, n_layers)


def _batch_size(capture: Capture, n: int, d: int, element_size: int) -> int:
    per_copy = 2 * element_size * n * (16 * d + 4 * capture.n_heads * n) * max(1, capture.n_layers // 4)
    return max(1, min(n * d, _BUDGET_BYTES // per_copy))


def _shared_primal(runner: GradientRunner, blocks, embeds: torch.Tensor, directions: torch.Tensor, n_layers: int):
    """``(L, B, n, d)`` as ``_dual_copies``, with ``vmap`` over ``jvp``: one primal pass for the batch."""
    batch, n, d = len(directions), embeds.shape[1], embeds.shape[2]
    tangents = torch.zeros(batch, n * d, dtype=embeds.dtype, device=embeds.device)
    tangents[torch.arange(batch), directions.to(embeds.device)] = 1.0

    def block_outputs(x: torch.Tensor) -> torch.Tensor:
        return _outputs(runner, blocks, x, n_layers)[:, 0]  # (L, n, d)

    def column(tangent: torch.Tensor) -> torch.Tensor:
        return torch.func.jvp(block_outputs, (embeds,), (tangent.view_as(embeds),))[1]

    with torch.no_grad(), warnings.catch_warnings():
        warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated", DeprecationWarning)
        return torch.func.vmap(column)(tangents).transpose(0, 1)  # (B, L, n, d) -> (L, B, n, d)


def _dual_copies(runner: GradientRunner, blocks, embeds: torch.Tensor, directions: torch.Tensor, n_layers: int):
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
        raise _NoForwardDerivative(
            f"Hidden token attribution is unavailable for {type(runner.model).__name__}: one of its operations has "
            f"no forward-mode derivative in torch ({str(exc).splitlines()[0][:120]})."
        ) from None
    finally:
        for handle in handles:
            handle.remove()
    return _stacked(seen, n_layers)


def _stacked(seen: list[torch.Tensor], n_layers: int) -> torch.Tensor:
    """``(L, ...)`` the blocks' outputs in call order, or why they do not match the layers."""
    if len(seen) != n_layers:
        raise UnsupportedModelError(
            f"Hidden token attribution is unavailable: the transformer blocks ran {len(seen)} times for "
            f"{n_layers} layers."
        )
    return torch.stack(seen)


def input_coordinates(analysis) -> int:
    """n·d: the input coordinates, one tangent each."""
    record = analysis.capture
    if record.hidden_states is not None:
        return record.n_tokens * record.hidden_states.shape[-1]
    return record.n_tokens * unwrap(analysis.model).get_input_embeddings().embedding_dim


def unavailable(analysis) -> str:
    """ "" when hidden-state attribution can be computed for this analysis, else one sentence saying why not."""
    if analysis.model is None:
        return "Hidden-state attribution differentiates the model; build the analysis with analyze(model, text)."
    if analysis.grid is not None:
        return "Hidden-state attribution differentiates the token embeddings of a text; it is not available for images."
    if analysis.gradient_part.unavailable():
        return analysis.gradient_part.unavailable()
    try:
        replay.find_blocks(unwrap(analysis.model))
    except UnsupportedModelError as exc:
        return str(exc)
    return ""
