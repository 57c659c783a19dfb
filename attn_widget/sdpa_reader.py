"""Attention weights read from the model's own scaled-dot-product attention, in the one pass it runs anyway.

A model loaded with ``attn_implementation="sdpa"`` (transformers' default) never forms its attention weights,
and switching it to eager attention costs a second pass that must then be checked against the first. Instead,
every call the model makes to ``torch.nn.functional.scaled_dot_product_attention`` is watched (a
``TorchFunctionMode``: this thread only, nothing patched): the call runs unchanged, and from the very query, key,
mask and scale it was given the weights ``softmax(q·kᵀ·scale + mask)`` are formed and must reproduce the call's
own output (``A·V`` against what it returned). So the weights are the ones the model used, by construction and
by test, layer by layer as the pass goes.

A call this cannot account for (a batch, dropout, a key cache, an unknown argument, weights that do not
reproduce the output) makes the reader give up with a reason; the capture then takes the eager pass instead.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F  # noqa: N812
from torch.overrides import TorchFunctionMode

from . import verify

_SDPA = F.scaled_dot_product_attention
# The documented signature: query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa.
_PARAMETERS = ("query", "key", "value", "attn_mask", "dropout_p", "is_causal", "scale", "enable_gqa")

Keep = Callable[[int, torch.Tensor], None]  # (layer index, weights (H, n, n) in the reader's dtype, on the CPU)


class SdpaReader(TorchFunctionMode):
    """Within ``with SdpaReader(dtype, keep):``, each sdpa call's weights go to ``keep(call index, weights)``,
    checked against the call's output; ``refusal`` says why the reader gave up (then nothing more is kept)."""

    def __init__(self, dtype: torch.dtype, model_dtype: torch.dtype, keep: Keep):
        super().__init__()
        self.dtype = dtype  # float32, or float64 for a float64 model
        self.model_dtype = model_dtype
        self.keep = keep
        self.calls = 0
        self.refusal = ""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        output = func(*args, **kwargs)
        if func is _SDPA and not self.refusal:
            try:
                self._read(output, *args, **kwargs)
            except _CannotRead as reason:
                self.refusal = f"call {self.calls + 1}: {reason}"
            self.calls += 1
        return output

    def _read(self, output: torch.Tensor, *args, **kwargs) -> None:
        call = _bind(args, kwargs)
        query, key, value = call["query"], call["key"], call["value"]
        if any(not isinstance(x, torch.Tensor) or x.dim() != 4 for x in (query, key, value, output)):
            raise _CannotRead("query, key and value are not (batch, heads, tokens, width) tensors")
        if query.shape[0] != 1:
            raise _CannotRead(f"a batch of {query.shape[0]}")
        if call.get("dropout_p", 0.0):
            raise _CannotRead(f"dropout {call['dropout_p']}")
        n_heads, n_queries, width = query.shape[1:]
        n_kv, n_keys = key.shape[1:3]
        if n_queries != n_keys:
            raise _CannotRead(f"{n_queries} queries over {n_keys} keys (a key cache or cross-attention)")
        if n_kv != n_heads and not (call.get("enable_gqa", False) and n_heads % n_kv == 0):
            raise _CannotRead(f"{n_heads} query heads over {n_kv} key heads")
        scale = call.get("scale")
        scale = 1 / width**0.5 if scale is None else float(scale)
        group = torch.arange(n_heads, device=key.device) // (n_heads // n_kv)  # query head → its key head
        mask = call.get("attn_mask")
        if mask is not None and (mask.dim() != 4 or mask.shape[0] != 1 or mask.shape[1] not in (1, n_heads)):
            raise _CannotRead(f"a mask of shape {tuple(mask.shape)}")
        weights = torch.empty(n_heads, n_queries, n_keys, dtype=self.dtype)
        worst = 0.0
        for head in range(n_heads):  # one head at a time on the model's device: (n, n) in the working dtype
            q, k, v = (x[0, h].to(self.dtype) for x, h in ((query, head), (key, group[head]), (value, group[head])))
            scores = q @ k.T * scale
            if mask is not None:
                m = mask[0, head if mask.shape[1] > 1 else 0]
                scores = scores.masked_fill(~m, float("-inf")) if m.dtype == torch.bool else scores + m.to(self.dtype)
            if call.get("is_causal", False):
                scores = scores.masked_fill(torch.ones_like(scores, dtype=torch.bool).triu(1), float("-inf"))
            a = torch.softmax(scores, dim=-1)
            if not torch.isfinite(a).all():
                raise _CannotRead("a query sees no key (a row of its weights is not a distribution)")
            worst = max(worst, verify.scaled_error(a @ v, output[0, head], a @ v.abs()))  # |A| = A: a softmax
            weights[head] = a.to("cpu")
        if worst > verify.reproduction_tolerance(self.model_dtype):
            raise _CannotRead(f"its weights reproduce its output only to a relative error of {worst:.2g}")
        self.keep(self.calls, weights)


class _CannotRead(Exception):
    """Why one sdpa call's weights cannot be read."""


def _bind(args: tuple, kwargs: dict) -> dict:
    """The call's arguments by name; an argument this reader does not know refuses the call."""
    unknown = set(kwargs) - set(_PARAMETERS)
    if unknown or len(args) > len(_PARAMETERS):
        raise _CannotRead(f"arguments it does not know ({', '.join(sorted(unknown)) or 'extra positional'})")
    return {**dict(zip(_PARAMETERS, args, strict=False)), **kwargs}
