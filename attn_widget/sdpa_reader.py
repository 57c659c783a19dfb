"""Attention weights read from the model's own scaled-dot-product attention, in the one pass it runs anyway.

A model loaded with ``attn_implementation="sdpa"`` (transformers' default) never forms its attention weights,
and switching it to eager attention costs a second pass that must then be checked against the first. Instead,
every call the model makes to ``torch.nn.functional.scaled_dot_product_attention`` is watched (a
``TorchFunctionMode``: this thread only, nothing patched): the call runs unchanged, and from the very query, key,
mask and scale it was given the weights ``softmax(q·kᵀ·scale + mask)`` are formed and must reproduce the call's
own output (``A·V`` against what it returned, on ``CHECKED_ROWS`` evenly spaced query rows of a long input). So
the weights are the ones the model used, by construction and by test, layer by layer as the pass goes.

A call this cannot account for (a batch, dropout, a key cache, an unknown argument, a mask that differs between
heads, more calls than layers, weights that do not reproduce the output) makes the reader give up with a reason;
the capture then takes the eager pass instead.

Where the weights go is a ``Sink``'s business: ``Reads`` reduces each layer it wants to its head mean and max and
keeps its heads (within a byte budget), or hands them on and stops the pass after the last layer wanted
(``head_store.py`` reads heads again with it).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Protocol

import torch
import torch.nn.functional as F  # noqa: N812
from torch.overrides import TorchFunctionMode

from . import verify
from .methods.normalize import row_normalize_
from .payload import RowTops

_SDPA = F.scaled_dot_product_attention
# The documented signature: query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa.
_PARAMETERS = ("query", "key", "value", "attn_mask", "dropout_p", "is_causal", "scale", "enable_gqa")


class ReadEnough(Exception):
    """Raised out of the model's pass once the sink has every layer it wanted (a pass that stops early)."""


class Sink(Protocol):
    """Where a reader puts each call's weights, head by head."""

    def wants(self, call: int, n_heads: int, n: int) -> bool:
        """Whether to form call ``call``'s weights (``n_heads`` heads over ``n`` tokens) at all."""

    def begin(self, call: int, n_heads: int, n: int, device: torch.device) -> None: ...

    def head(self, call: int, head: int, weights: torch.Tensor) -> None:
        """One head's weights ``(n, n)`` in the reader's dtype, on the model's device (reused after this)."""

    def end(self, call: int) -> None: ...

    def finished(self, call: int) -> bool:
        """Whether nothing after call ``call`` is wanted (the pass is then stopped: ``ReadEnough``)."""


class SdpaReader(TorchFunctionMode):
    """Within ``with SdpaReader(...)``, each sdpa call's weights ``(H, n, n)`` go to ``sink`` head by head, the call
    checked against its own output; ``allowed[i]`` holds the keys call ``i``'s mask lets each query see ``(n, n)``
    bool, and ``seen[i]`` its values and output on the checked rows, ``(H_v, R, d)`` and ``(H, R, d)`` (on the CPU,
    in the reader's dtype), for every call (the sink's or not). ``refusal`` says why the reader gave up (then nothing
    more is read)."""

    def __init__(self, dtype: torch.dtype, model_dtype: torch.dtype, layers: int, sink: Sink):
        super().__init__()
        self.dtype = dtype  # float32, or float64 for a float64 model
        self.model_dtype = model_dtype
        self.layers = layers  # calls expected: one per attention layer
        self.sink = sink
        self.shape: tuple[int, int] | None = None  # (heads, tokens) of the first call
        self.allowed: dict[int, torch.Tensor] = {}
        self.seen: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}
        self.calls = 0
        self.refusal = ""
        # Each distinct mask a call passed (the tensor, or ("causal", n)) and what it became (``_prepared_mask``):
        # most models pass every layer the same one, prepared once (a causal mask at 4,096 tokens: 16 MB, 0.03 s).
        self._masks: list[tuple[object, tuple[torch.Tensor, torch.Tensor | None, torch.Tensor | None]]] = []

    def _prepared_mask(
        self, mask: torch.Tensor | None, causal: bool, n: int, device
    ) -> tuple[torch.Tensor, torch.Tensor | None, torch.Tensor | None]:
        """A call's mask as ``(allowed, hidden, bias)``: the keys it lets each query see ``(n, n)`` bool on the CPU
        (calls with equal masks share one tensor), and for the scores either the keys it hides ``(1 or H, n, n)``
        bool (a boolean or causal mask) or what it adds ``(1 or H, n, n)`` in the reader's dtype (an additive one);
        both None: every key seen."""
        source = ("causal", n) if mask is None and causal else mask
        for known, prepared in self._masks:
            if known is source or (isinstance(known, tuple) and isinstance(source, tuple) and known == source):
                return prepared
        boolean = _mask(mask, causal, n, device)
        allowed = _allowed(boolean, n)
        # Calls with equal masks in different tensors share one too (16 MB a layer at 4,096 tokens).
        allowed = next((seen for _, (seen, _, _) in self._masks if torch.equal(seen, allowed)), allowed)
        if boolean is None:
            prepared = (allowed, None, None)
        elif boolean.dtype == torch.bool:
            prepared = (allowed, ~boolean, None)
        else:
            prepared = (allowed, None, boolean.to(self.dtype))
        self._masks.append((source, prepared))
        return prepared

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        output = func(*args, **kwargs)
        if func is _SDPA and not self.refusal:
            try:
                self._read(output, *args, **kwargs)
            except _CannotRead as reason:
                self.refusal = f"call {self.calls + 1}: {reason}"
            self.calls += 1
            if not self.refusal and self.sink.finished(self.calls - 1):
                raise ReadEnough
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
        n_heads, n, width = query.shape[1:]
        n_kv, n_keys = key.shape[1:3]
        if n != n_keys:
            raise _CannotRead(f"{n} queries over {n_keys} keys (a key cache or cross-attention)")
        if n_kv != n_heads and not (call.get("enable_gqa", False) and n_heads % n_kv == 0):
            raise _CannotRead(f"{n_heads} query heads over {n_kv} key heads")
        if self.calls >= self.layers:
            raise _CannotRead(f"more calls than the {self.layers} attention layers")
        if self.shape is None:
            self.shape = (n_heads, n)
        elif self.shape != (n_heads, n):
            raise _CannotRead(f"{n_heads} heads over {n} tokens, unlike the first call")
        allowed, hidden, bias = self._prepared_mask(
            call.get("attn_mask"), bool(call.get("is_causal", False)), n, query.device
        )
        rows = checked_rows(n, device=query.device)
        # Every call's mask and values are recorded (cheap): the capture checks them for every layer.
        self.allowed[self.calls] = allowed
        self.seen[self.calls] = (value[0][:, rows].to("cpu", self.dtype), output[0][:, rows].to("cpu", self.dtype))
        if not self.sink.wants(self.calls, n_heads, n):
            return
        scale = call.get("scale")
        scale = 1 / width**0.5 if scale is None else float(scale)
        self.sink.begin(self.calls, n_heads, n, query.device)
        worst = 0.0
        for head in range(n_heads):  # one head at a time on the model's device: (n, n) in the working dtype
            kv = head // (n_heads // n_kv)
            q, k, v = query[0, head].to(self.dtype), key[0, kv].to(self.dtype), value[0, kv].to(self.dtype)
            if bias is None:
                scores = torch.mm(q, k.T).mul_(scale)
                if hidden is not None:
                    scores.masked_fill_(hidden[head % len(hidden)], float("-inf"))
            else:
                scores = torch.addmm(bias[head % len(bias)], q, k.T, alpha=scale)
            a = torch.softmax(scores, dim=-1)
            del scores
            # A·V and A·|V| (|A| = A: a softmax) in one product, on the checked rows
            both = a[rows] @ torch.cat([v, v.abs()], dim=-1)
            if not torch.isfinite(both).all():
                raise _CannotRead("a query sees no key (a row of its weights is not a distribution)")
            worst = max(worst, verify.scaled_error(both[:, :width], output[0, head, rows], both[:, width:]))
            self.sink.head(self.calls, head, a)
        if worst > verify.reproduction_tolerance(self.model_dtype):
            raise _CannotRead(f"its weights reproduce its output only to a relative error of {worst:.2g}")
        self.sink.end(self.calls)


class Reads:
    """Where a pass's weights go. Each wanted call (``wanted``, 0-based; None: every call) is reduced to its head
    mean (row-normalised, as ``head_store.head_mean``) and max in ``mean[call]`` and ``maximum[call]`` (``(L, n,
    n)`` on the CPU: given, or made at the first call) and its heads ``(H, n, n)`` are kept, on the CPU:

    - a capture's first pass (``budget`` bytes): every layer's in one ``stack`` when all are read and fit,
      else in ``kept`` those of the first layers read that fit; a long input's first pass may read the
      wanted layers only, but reads them all while all cost at most ``at_once`` bytes (a short input);
    - a pass that reads layers again: handed to ``take(call, heads)``, those of the calls in ``whole`` (None: every
      call); the others' are never whole (a long input's layer: gigabytes), and ``take`` gets None instead.

    With ``cut``, a wanted call whose heads are not kept is cut to its rows' tops instead (``payload.RowTops``, a
    head at a time: the layer's heads are never whole): in ``tops[call]``, or handed to ``take``.

    A long input's first pass (one that reads the wanted layers only) keeps every layer's max as its rows' tops
    (``RowTops`` of L slices: it is only drawn), and the means too when all would take more than ``means`` bytes (they
    are read again whole for the methods built on them, ``HeadStore.mean``). A pass reading layers again writes the
    mean and max of a layer read for the first time; ``again(call, mean)`` compares a layer read before with its
    first reading (raising when they differ) and says True, and the store's rows stay as first read.

    With ``stop``, the pass ends after the last wanted call (``ReadEnough``); ``progress(done, total)`` is told at
    each call and may raise to stop the pass. ``reduced`` lists the calls reduced, in order."""

    def __init__(
        self,
        layers: int,
        dtype: torch.dtype,
        wanted=None,
        *,
        budget: int = 0,
        at_once: int = 0,
        means: int = 0,
        take=None,
        mean: torch.Tensor | RowTops | None = None,
        maximum: torch.Tensor | RowTops | None = None,
        again: Callable[[int, torch.Tensor], bool] | None = None,
        stop: bool = False,
        cut: bool = False,
        whole: Collection[int] | None = None,
        progress=None,
    ):
        self.layers, self.dtype, self.cut = layers, dtype, cut
        self.whole = None if whole is None else set(whole)
        self.wanted = None if wanted is None else set(wanted)
        self.budget, self.at_once, self.means = budget, at_once, means
        self.take, self.stop, self.progress = take, stop, progress
        self.mean, self.maximum, self.again = mean, maximum, again
        self.stack: torch.Tensor | None = None
        self.kept: dict[int, torch.Tensor] = {}
        self.tops: dict[int, RowTops] = {}
        self.reduced: list[int] = []
        self._heads: torch.Tensor | None = None  # the call's heads being handed to take
        self._sum: torch.Tensor | None = None
        self._max: torch.Tensor | None = None

    def wants(self, call: int, n_heads: int, n: int) -> bool:
        layer_bytes = n_heads * n * n * self.dtype.itemsize
        if call == 0 and self.layers * layer_bytes <= self.at_once:
            self.wanted = None  # all of a short input's layers cost less than asking for them later
        if self.progress is not None:  # a cancel raises out of the pass here
            last = max(self.wanted) + 1 if self.stop and self.wanted else self.layers
            self.progress(min(call, last), last)
        return self.wanted is None or call in self.wanted

    def finished(self, call: int) -> bool:
        return self.stop and self.wanted is not None and call >= max(self.wanted)

    def begin(self, call: int, n_heads: int, n: int, device: torch.device) -> None:
        layer_bytes = n_heads * n * n * self.dtype.itemsize
        if self.mean is None or self.maximum is None:  # rows written as layers are read (untouched: no memory)
            long = self.wanted is not None  # a short input reads every layer (wants)
            whole = torch.empty(self.layers, n, n, dtype=self.dtype)  # untouched: no memory
            tops = lambda: RowTops(self.layers, n, n, self.dtype)  # noqa: E731
            self.mean = tops() if long and whole.nbytes > self.means else whole
            self.maximum = tops() if long else torch.empty_like(whole)
        if call == 0 and self.wanted is None and self.layers * layer_bytes <= self.budget:
            self.stack = torch.empty(self.layers, n_heads, n, n, dtype=self.dtype)
        elif self.stack is None and self.budget and (len(self.kept) + 1) * layer_bytes <= self.budget:
            self.kept[call] = torch.empty(n_heads, n, n, dtype=self.dtype)
        elif self.cut and (self.whole is None or call not in self.whole):
            self.tops[call] = RowTops(n_heads, n, n, self.dtype)
        if self.take is not None and call not in self.tops and (self.whole is None or call in self.whole):
            self._heads = torch.empty(n_heads, n, n, dtype=self.dtype)
        self._n_heads = n_heads

    def head(self, call: int, head: int, weights: torch.Tensor) -> None:
        for heads in (self.stack[call] if self.stack is not None else None, self.kept.get(call), self._heads):
            if heads is not None:
                heads[head] = weights.to("cpu")
        if call in self.tops:
            self.tops[call].set(head, weights)
        if self._sum is None or self._max is None:  # the first head (the reader reuses its tensor after this)
            self._sum, self._max = weights.clone(), weights.clone()
        else:  # in the heads' dtype, as head_store.head_mean takes the mean of heads read again
            self._sum.add_(weights)
            torch.maximum(self._max, weights, out=self._max)

    def end(self, call: int) -> None:
        assert self.mean is not None and self.maximum is not None and self._sum is not None and self._max is not None
        mean = row_normalize_(self._sum.div_(self._n_heads))
        if self.again is None or not self.again(call, mean.to("cpu")):
            for kept, reduced in ((self.mean, mean), (self.maximum, self._max)):
                if isinstance(kept, RowTops):
                    kept.set(call, reduced)
                else:
                    kept[call] = reduced
        self._sum = self._max = None
        self.reduced.append(call)
        if self.take is not None:
            heads, self._heads = self._heads, None
            self.take(call, heads if heads is not None else self.tops.pop(call, None))


def _mask(mask, causal: bool, n: int, device) -> torch.Tensor | None:
    """The call's mask ``(1 or H, n, n)``, boolean (True: seen) or additive, with ``is_causal`` made a boolean
    one; None: every key seen."""
    if mask is not None and (mask.dim() != 4 or mask.shape[0] != 1 or mask.shape[-2:] != (n, n)):
        raise _CannotRead(f"a mask of shape {tuple(mask.shape)}")
    if mask is None and causal:
        return torch.ones(1, n, n, dtype=torch.bool, device=device).tril()
    return None if mask is None else mask[0]


def _allowed(mask: torch.Tensor | None, n: int) -> torch.Tensor:
    """The keys the mask lets each query see, ``(n, n)`` bool on the CPU: the same for every head, or the call is
    refused. An additive mask hides a key with -inf or its dtype's minimum (ALiBi and the like add finite biases)."""
    if mask is None:
        return torch.ones(n, n, dtype=torch.bool)
    seen = mask if mask.dtype == torch.bool else mask > torch.finfo(mask.dtype).min / 2
    if any(not torch.equal(seen[0], other) for other in seen[1:]):
        raise _CannotRead("a mask that differs between heads")
    return seen[0].cpu()


CHECKED_ROWS = 256  # query rows whose A·V is checked per head, evenly spaced with the first and the last


def checked_rows(n: int, device=None) -> torch.Tensor:
    """The query rows checked against a call's output: all of a short input's, else ``CHECKED_ROWS`` evenly spaced
    from the first to the last. The weights are formed from the call's own arguments; the check guards against
    reading them wrongly (a scale, a mask's sense, the head grouping), which shows in most rows, and the rows beyond
    any window are among those checked."""
    return verify.spread_rows(n, CHECKED_ROWS).to(device)


class _CannotRead(Exception):
    """Why one sdpa call's weights cannot be read."""


def _bind(args: tuple, kwargs: dict) -> dict:
    """The call's arguments by name; an argument this reader does not know refuses the call."""
    unknown = set(kwargs) - set(_PARAMETERS)
    if unknown or len(args) > len(_PARAMETERS):
        raise _CannotRead(f"arguments it does not know ({', '.join(sorted(unknown)) or 'extra positional'})")
    return {**dict(zip(_PARAMETERS, args, strict=False)), **kwargs}
