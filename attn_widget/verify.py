"""Checks that what a capture recorded is what the model computed.

transformers differs per family, and some implementations silently ignore a switch, so
nothing the capture assumes is trusted:

- the eager pass (the one that returns attention weights) gives the output the model gives
  with its own attention implementation (``check_same_output``);
- the attention weights are zero exactly where the masks say a key is hidden, and nowhere
  else in every head (``check_masks``);
- every layer's heads, A·V, reproduce what the output projection received, and the sliced
  output weights reproduce what it returned (``pick_values``, ``output_error``).

Errors are relative to the magnitude rounding works on (|A|·|V|, not |A·V|), so that
cancellation cannot make an exact reproduction look wrong.
"""

from __future__ import annotations

from collections.abc import Iterable

import torch

from .errors import UnsupportedModelError

# Relative error allowed when reproducing the model's own arithmetic, by the dtype it ran in.
# A wrong layout or a wrong attention tensor gives errors of order 1.
_REPRODUCTION = {torch.float64: 1e-10, torch.float32: 1e-4, torch.bfloat16: 5e-2, torch.float16: 1e-2}
# The eager pass against the model's own implementation (different kernels, same maths; Llama-like
# eager attention takes its softmax in float32 even for float64 models).
_SAME_OUTPUT = {torch.float64: 1e-6, torch.float32: 1e-3, torch.bfloat16: 1e-1, torch.float16: 5e-2}


def reproduction_tolerance(dtype: torch.dtype) -> float:
    return _REPRODUCTION.get(dtype, 1e-4)


def _work_dtype(*tensors: torch.Tensor) -> torch.dtype:
    """float64 when any input is float64 (its tolerance, 1e-10, needs it), else float32: recomputing there
    rounds to about 1e-6 of the scale, far below the 1e-4 allowed for float32 (and more for half
    precision), at half the cost of float64 and without copying every tensor into it."""
    return torch.float64 if any(t.dtype == torch.float64 for t in tensors) else torch.float32


def scaled_error(result: torch.Tensor, expected: torch.Tensor, scale: torch.Tensor) -> float:
    """``‖result − expected‖ / ‖scale‖``, scale being the magnitudes summed (|A|·|V|); in float64 when
    any input is float64, else float32."""
    work = _work_dtype(result, expected, scale)
    diff = (result.to("cpu", work) - expected.to("cpu", work)).norm()
    return float(diff / scale.to("cpu", work).norm().clamp(min=1e-300 if work == torch.float64 else 1e-30))


def heads_error(att: torch.Tensor, values: torch.Tensor, context: torch.Tensor) -> float:
    """How far the heads' outputs A_h·V_g(h) are from ``context``, what the output projection received.

    att: ``(H, nq, nk)`` (nq = nk but for cross-attention); values: ``(H_kv, nk, d_h)``; context:
    ``(nq, H·d_h)``, heads side by side.
    """
    n_heads, n_kv = att.shape[0], values.shape[0]
    work = _work_dtype(att, values, context)
    v = values.to("cpu", work)[torch.arange(n_heads) // (n_heads // n_kv)]  # HF repeat_kv grouping
    a = att.to("cpu", work)
    heads = (a @ v).transpose(0, 1).reshape(context.shape)
    return scaled_error(heads, context, (a.abs() @ v.abs()).transpose(0, 1).reshape(context.shape))


def output_error(context: torch.Tensor, weights: torch.Tensor, bias: torch.Tensor, output: torch.Tensor) -> float:
    """How far ``context @ W_O + b_O`` is from the output projection's output.

    context: ``(n, H·d_h)``; weights: ``(H, d_h, d)``; bias: ``(d,)``; output: ``(n, d)``.
    """
    work = _work_dtype(context, weights, bias, output)
    c = context.to("cpu", work)
    w = weights.to("cpu", work).reshape(-1, weights.shape[-1])
    b = bias.to("cpu", work)
    return scaled_error(c @ w + b, output, c.abs() @ w.abs() + b.abs())


def spread_rows(n: int, count: int) -> torch.Tensor:
    """``count`` row indices evenly spaced from 0 to n - 1 (every row when n <= count)."""
    if n <= count:
        return torch.arange(n)
    return torch.linspace(0, n - 1, count).round().long().unique()


def pick_values(candidates, att: torch.Tensor, context: torch.Tensor, dtype: torch.dtype):
    """The first ``(layout, values)`` candidate whose A·V reproduces ``context``, else ``(None, best error)``."""
    best = float("inf")
    for layout, values in candidates:
        error = heads_error(att, values, context)
        if error <= reproduction_tolerance(dtype):
            return layout, values
        best = min(best, error)
    return None, best


def pick_seen_values(
    candidates, seen_values: torch.Tensor, seen_output: torch.Tensor, rows: torch.Tensor, received: torch.Tensor, dtype
):
    """For weights read from a layer's sdpa call (each checked against the call's own output): the first
    ``(layout, values)`` candidate equal to the values the call received, the call's output being what the output
    projection received; else ``(None, best error)``. No attention weights are needed.

    seen_values: ``(H_v, R, d_h)`` and seen_output ``(H, R, d_h)``, the call's on ``rows`` ``(R,)``; candidates'
    values ``(H_kv, n, d_h)``, H_v a multiple of H_kv (transformers repeats grouped heads before some calls);
    received: ``(R, H·d_h)`` what the output projection received on those rows.
    """
    best = scaled_error(seen_output.transpose(0, 1).reshape(received.shape), received, received)
    if best > reproduction_tolerance(dtype):
        return None, best
    best = float("inf")
    for layout, values in candidates:
        if seen_values.shape[0] % values.shape[0] or values.shape[-1] != seen_values.shape[-1]:
            continue
        grouped = values[:, rows][torch.arange(seen_values.shape[0]) // (seen_values.shape[0] // values.shape[0])]
        error = scaled_error(grouped, seen_values, seen_values)
        if error <= reproduction_tolerance(dtype):
            return layout, values
        best = min(best, error)
    return None, best


def check_same_output(eager: torch.Tensor, plain: torch.Tensor, dtype: torch.dtype, model_name: str) -> None:
    """The eager pass must give the model's own output; otherwise the weights explain another computation."""
    eager, plain = eager.to("cpu", torch.float64), plain.to("cpu", torch.float64)
    error = float((eager - plain).norm() / plain.norm().clamp(min=1e-300))
    if not error <= _SAME_OUTPUT.get(dtype, 1e-3):
        raise UnsupportedModelError(
            f"{model_name} computes a different output when switched to eager attention (relative difference "
            f"{error:.2g}), so the attention weights it returns are not the ones it uses. Load it with "
            'attn_implementation="eager" from the start, or report the model type.'
        )


def check_allowed(allowed: dict[int, torch.Tensor], masks: torch.Tensor, describe) -> None:
    """The keys each layer's sdpa call let each query see (``allowed``, layer → ``(n, n)`` bool for every layer,
    read from the masks the model passed) must be the masks attn_widget derived from the configuration (``masks``
    ``(L, n, n)``): the normalisations and effective attention read the latter."""
    assert sorted(allowed) == list(range(len(masks))), "a mask for every layer"
    for layer, mask in enumerate(masks):
        seen = allowed[layer]
        differ = seen != mask
        if differ.any():
            i, j = (int(x) for x in differ.nonzero()[0])
            what = "hides" if mask[i, j] else "lets it see"
            raise UnsupportedModelError(
                f"Layer {layer + 1}'s mask differs from its configuration's ({describe(layer)}) at "
                f"{int(differ.sum())} places, for example query {i} and key {j}, which the model {what}: the model "
                "masks keys in a way attn_widget does not know, so masks, normalisations and effective attention "
                "would be wrong. Please report this model type."
            )


def check_masks(attentions: Iterable[torch.Tensor], masks: torch.Tensor, dtype: torch.dtype, describe) -> None:
    """Attention must be zero on hidden keys, and somewhere non-zero on every admissible key.

    attentions: ``(L, H, n, n)``; masks: ``(L, n, n)`` bool. describe(layer) names the layer's
    mask for the message. A key that every head of a layer ignores exactly is a mask attn_widget
    does not know about (a float16 softmax can underflow, so that half is skipped there).
    """
    # A layer at a time, copying only the hidden entries (none for an encoder, half for a decoder): a long
    # input's whole stack is gigabytes.
    for layer, (weights, mask) in enumerate(zip(attentions, masks, strict=True)):
        hidden = weights[:, ~mask]  # (H, hidden keys)
        mass = max(float(hidden.amax()), -float(hidden.amin())) if hidden.numel() else 0.0  # weight on hidden keys
        if mass > 1e-6:
            raise UnsupportedModelError(
                f"Layer {layer + 1} puts attention weight {mass:.3g} on keys its configuration hides "
                f"({describe(layer)}): its mask is not the one attn_widget derived. Please report this model type."
            )
    if dtype == torch.float16:
        return
    for layer, (weights, mask) in enumerate(zip(attentions, masks, strict=True)):
        unseen = mask & (weights.amax(dim=0) == 0) & (weights.amin(dim=0) == 0)  # zero in every head
        if unseen.any():
            i, j = (int(x) for x in unseen.nonzero()[0])
            raise UnsupportedModelError(
                f"Layer {layer + 1} gives exactly zero weight, in every head, to {int(unseen.sum())} keys "
                f"that its configuration ({describe(layer)}) lets it see, for example query {i} and key {j}: the "
                "model masks keys in a way attn_widget does not know, so masks, normalisations and effective "
                "attention would be wrong. Please report this model type."
            )
