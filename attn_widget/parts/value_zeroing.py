"""Value zeroing (Mohebbi, Zuidema, Chrupała & Alishahi, EACL 2023), docs/methods.md §7.3.

For layer l and source token j, block l is re-run on its recorded input X^(l-1) with token
j's value vectors set to zero in every head (value bias included; queries, keys and the
residual untouched), and

    C_ij = 1 − cos(x̃_i^{¬j}, x_i),   clipped at 0,   C ← rn(C),

x_i being the block's recorded output. All n choices of j run as one batch of n copies
(chunked to bound memory), the zeroing done by a forward hook on the value projection: the
whole output row for a separate projection, only the value columns for a fused one (the
layout the capture verified), every key/value group for GQA. DeBERTa's value bias, kept
beside its projection, is cancelled by writing −bias into the row.

Nothing is trusted: each layer's replay must give the recorded output back unmodified
(``models/replay.py``), the value columns must give the captured value vectors, and in the
first batch the output projection must receive exactly A·V with V_j = 0. A model failing
any of these gets ``ValueZeroingUnavailable`` with one sentence saying why.

Roll out with no added identity (the residual is inside the block): ``value_zeroing_rollout``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

from .. import verify
from ..capture import Capture
from ..errors import UnsupportedModelError
from ..inputs import unwrap
from ..methods.normalize import row_normalize
from ..methods.rollout import rollout
from ..model_state import borrowed_for_capture
from ..models import replay
from ..models.layouts import FUSED, SEPARATE

# Activation memory one batch of copies may take (estimated, see ``_batch_size``).
_BUDGET_BYTES = 256 * 2**20
# Copies of the first batch whose output-projection input is checked against A·V with V_j = 0.
_CHECKED_COPIES = 4


class ValueZeroingUnavailable(UnsupportedModelError):
    """Value zeroing cannot be computed for this model; the message says why in one sentence."""


@dataclass(frozen=True)
class _Zeroing:
    """Where token j's value vectors are in the value projection's output, and what to write there."""

    columns: torch.Tensor  # (H_kv·d_h,) long, ordered (group, dim)
    fill: torch.Tensor  # (H_kv·d_h,): zeros, or −bias for a bias added after the projection


def value_zeroing_maps(
    model,
    tokenizer,
    capture: Capture,
    progress: Callable[[float, float], None] | None = None,
    layers: list[int] | None = None,
    prepared: tuple[list[replay.BlockCall], list[_Zeroing]] | None = None,
) -> torch.Tensor:
    """Per-layer value-zeroing maps ``(L, n, n)`` float64: row i = receiving token, column j = zeroed
    token; rows sum to 1 (a row that no zeroing changes stays 0). Entries for keys the layer's
    mask hides (j > i in decoders) are exactly 0.

    tokenizer: unused (the capture holds the model inputs); kept for the methods' common signature.
    progress: called as ``progress(done, total)`` after each batch of copies (total = layers·n); it may
    raise to cancel. layers: layer indices 0..L-1 to compute (default all); the result is
    ``(len(layers), n, n)``. prepared: ``prepare(model, capture)`` made before (it records every block
    once), for computing layer by layer. Raises ``ValueZeroingUnavailable``.
    """
    model = unwrap(model)
    calls, plans = prepare(model, capture) if prepared is None else prepared
    wanted = list(range(capture.n_layers)) if layers is None else list(layers)
    n_layers, n = len(wanted), capture.n_tokens
    batch = _batch_size(capture, next(model.parameters()).element_size())
    maps = torch.zeros(n_layers, n, n, dtype=torch.float64)
    done = 0
    for layer, index in enumerate(wanted):
        call, plan = calls[index], plans[index]
        for start in range(0, n, batch):
            tokens = torch.arange(start, min(n, start + batch))
            with borrowed_for_capture(model, "value zeroing", eager=capture.eager), torch.no_grad():
                outputs = _zeroed_outputs(call, plan, tokens, capture if start == 0 else None)
            maps[layer][:, tokens] = _distances(outputs, call.output)
            done += len(tokens)
            if progress is not None:
                progress(done, n_layers * n)
    maps.masked_fill_(~capture.masks[wanted], 0.0)  # exact: A_ij = 0 there, so V_j cannot reach x_i
    return row_normalize(maps)


def value_zeroing_rollout(maps: torch.Tensor) -> torch.Tensor:
    """``(L, n, n)`` float64: C^(l)···C^(1) with no added identity, as in the authors' demo
    (``compute_joint_attention(..., res=False)``)."""
    return rollout(maps, residual=0.0)


def prepare(model, capture: Capture) -> tuple[list[replay.BlockCall], list[_Zeroing]]:
    """Record and check every block, and find each layer's value columns; or say why not."""
    name = type(model).__name__
    if capture.values is None or capture.value_layout is None:
        raise ValueZeroingUnavailable(
            f"Value zeroing is unavailable for {name}: it needs the value vectors, and {capture.values_unavailable}"
        )
    inputs = {key: value.to(next(model.parameters()).device) for key, value in (capture.model_inputs or {}).items()}
    try:
        calls = replay.record_and_check(
            model, inputs, capture.n_layers, replay.tolerance(capture.model_dtype), capture.eager
        )
    except replay.ReplayError as exc:
        raise ValueZeroingUnavailable(f"Value zeroing is unavailable: {exc}") from None
    return calls, [_zeroing(call, capture, name) for call in calls]


def _zeroing(call: replay.BlockCall, capture: Capture, model_name: str) -> _Zeroing:
    """The value columns of layer ``call.index``: the capture's layout whose columns give its values."""
    geometry, layer = capture.geometry, call.index
    projected = call.value_output
    # prepare refused captures without these
    assert geometry is not None and capture.value_layout is not None and capture.values is not None
    assert projected is not None
    bias = call.site.value_bias
    for layout in capture.value_layout.split("/"):
        columns = _columns(layout, projected.shape[-1], geometry.n_heads, geometry.head_dim)
        if columns is None:
            continue
        values = projected[:, columns].reshape(projected.shape[0], -1, geometry.head_dim).transpose(0, 1)
        if bias is not None:
            values = values + bias.reshape(-1, 1, geometry.head_dim).to(values)
        expected, tolerance = capture.values[layer], verify.reproduction_tolerance(capture.model_dtype)
        if values.shape == expected.shape and replay.relative_error(values[None], expected) <= tolerance:
            fill = torch.zeros(len(columns)) if bias is None else -bias.reshape(-1).cpu()
            return _Zeroing(columns.to(projected.device), fill.to(projected.device, projected.dtype))
    raise ValueZeroingUnavailable(
        f"Value zeroing is unavailable for {model_name}: in layer {layer + 1}, no column layout of its value "
        "projection gives the value vectors the capture verified."
    )


def _columns(layout: str, width: int, n_heads: int, head_dim: int) -> torch.Tensor | None:
    """``(H_kv·d_h,)`` the value columns of a ``width``-wide projection output under ``layout``:
    the layout applied to the column numbers themselves."""
    split = {**SEPARATE, **FUSED}.get(layout)
    numbers = torch.arange(width, dtype=torch.float64)[None, :]
    found = next(iter(split(numbers, n_heads, head_dim)), None) if split else None
    return None if found is None else found.reshape(-1).long()


def _batch_size(capture: Capture, element_size: int) -> int:
    """Copies per batch: the block's activations per copy, about n·(16·d + 4·H·n) numbers, within the budget."""
    assert capture.geometry is not None  # captures with value vectors have their geometry
    n, d, heads = capture.n_tokens, capture.geometry.hidden_size, capture.n_heads
    per_copy = element_size * n * (16 * d + 4 * heads * n)
    return max(1, min(n, _BUDGET_BYTES // per_copy))


def _zeroed_outputs(
    call: replay.BlockCall, plan: _Zeroing, tokens: torch.Tensor, check: Capture | None
) -> torch.Tensor:
    """``(B, n, d)``: block ``call`` on B copies of its input, copy b with token ``tokens[b]``'s values zeroed.

    check: the capture, to verify the zeroing against A·V in this batch; None to skip.
    """
    device = call.inputs.device
    rows, where = torch.arange(len(tokens), device=device), tokens.to(device)

    def zero(_module, _inputs, output):
        out = output.clone()
        view = out.view(len(tokens), -1, out.shape[-1])
        view[rows[:, None], where[:, None], plan.columns[None, :]] = plan.fill
        return out

    seen = []
    with replay.hooked(call.site.value, zero):
        if check is None:
            return replay.run_block(call, call.inputs.expand(len(tokens), -1, -1))

        def keep(_module, inputs, _output) -> None:
            seen.append(inputs[0].detach())

        with replay.hooked(call.site.output, keep):
            outputs = replay.run_block(call, call.inputs.expand(len(tokens), -1, -1))
    _check_zeroing(seen, check, call.index, tokens)
    return outputs


def _check_zeroing(seen: list[torch.Tensor], capture: Capture, layer: int, tokens: torch.Tensor) -> None:
    """The output projection must have received A·V with V_j = 0 for copy j (queries and keys unchanged)."""
    if len(seen) != 1:
        raise ValueZeroingUnavailable(
            f"Value zeroing is unavailable: layer {layer + 1}'s output projection ran {len(seen)} times in one block."
        )
    k = min(len(tokens), _CHECKED_COPIES)
    assert capture.values is not None and capture.geometry is not None  # checked by prepare
    att = capture.heads[layer].double()  # (H, n, n)
    values = capture.values[layer][capture.geometry.kv_group()].double()  # (H, n, d_h)
    context = att @ values
    scale = (att.abs() @ values.abs()).transpose(0, 1).reshape(att.shape[1], -1)
    for b, j in enumerate(tokens[:k].tolist()):
        expected = context - att[:, :, j, None] * values[:, j, None, :]  # (H, n, d_h)
        expected = expected.transpose(0, 1).reshape(att.shape[1], -1)
        error = verify.scaled_error(seen[0][b].reshape(expected.shape), expected, scale)
        if error > verify.reproduction_tolerance(capture.model_dtype):
            raise ValueZeroingUnavailable(
                f"Value zeroing is unavailable: zeroing token {j}'s value vectors in layer {layer + 1} did not change "
                f"the heads' outputs as A·V says (relative error {error:.2g}), so the model computes its values in "
                "a way attn_widget cannot intercept."
            )


def _distances(outputs: torch.Tensor, reference: torch.Tensor) -> torch.Tensor:
    """``(n, B)``: 1 − cos(outputs[b, i], reference[i]), as ‖â − b̂‖²/2 of unit vectors (never
    negative, and without the cancellation of 1 − cos when the two are close).

    outputs: ``(B, n, d)``; reference: ``(n, d)``.
    """
    a = torch.nn.functional.normalize(outputs.to("cpu", torch.float64), dim=-1)
    b = torch.nn.functional.normalize(reference.to("cpu", torch.float64), dim=-1)
    return (0.5 * (a - b).pow(2).sum(-1)).T


def _blocks(mixing):
    """The blocks recorded and checked for value zeroing, once per analysis (kept by its mixing part)."""
    return mixing.shared("value zeroing blocks", lambda: prepare(unwrap(mixing.model), mixing.capture))


def unavailable(mixing) -> str:
    """ "" when every block re-runs faithfully with token values zeroed (one recorded forward pass and
    one re-run per block), else the sentence ``ValueZeroingUnavailable`` would carry."""
    if mixing.model is None:
        return "it re-runs the model's layers; build the analysis with analyze(model, text)"
    try:
        _blocks(mixing)
    except ValueZeroingUnavailable as exc:
        return str(exc)
    return ""


def layer_maps(mixing, layers: list[int], progress) -> torch.Tensor:
    """``(len(layers), n, n)`` the maps of the given 1-based layers, on the blocks recorded once per analysis."""
    return value_zeroing_maps(mixing.model, mixing.tokenizer, mixing.capture, progress, layers, _blocks(mixing))
