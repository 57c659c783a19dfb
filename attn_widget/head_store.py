"""Every layer's per-head attention ``(L, H, n, n)``, kept within a memory budget and read again when asked.

A long input's heads are gigabytes (Llama-3.2-1B at 4,096 tokens: 2.1 GB a layer in float32), and most views
draw a layer's head mean or max. So a capture keeps, for every layer, the head mean and the head max ``(n, n)``
each, and the heads of as many layers as ``KEPT_HEADS_BYTES`` allows; the heads of another layer are read again
when asked (``read``: one forward pass that stops after that layer, sdpa_reader.py) and must give the same head
mean as the first pass, or the model changed and the store says so. A short input (or an eager pass, which
returns every layer at once) keeps the whole stack and never reads again.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator

import torch

from .errors import UnsupportedModelError
from .methods.normalize import row_normalize_

KEPT_HEADS_BYTES = 1 << 30  # per-head attention a capture keeps (all layers' when they fit, else some)

# read(layers, take, progress): run the model again and call take(layer, heads (H, n, n) on the CPU) for each wanted
# layer; progress (done, total) is told at each layer the pass goes through, and may raise to stop it.
Progress = Callable[[float, float], None] | None
Read = Callable[[list[int], Callable[[int, torch.Tensor], None], Progress], None]


def head_mean(heads: torch.Tensor) -> torch.Tensor:
    """``(..., H, n, n)`` → ``(..., n, n)``: the heads' mean, rows re-normalised (docs/methods.md §1.4), in the
    heads' dtype."""
    return row_normalize_(heads.mean(dim=-3))


class HeadStore:
    """Per-head attention ``(L, H, n, n)`` (row = query, column = key) read a layer at a time: ``store[layer]``
    ``(H, n, n)``; ``mean`` and ``maximum`` ``(L, n, n)`` over the heads of every layer; ``full()`` the stack."""

    def __init__(
        self,
        mean: torch.Tensor | None,
        maximum: torch.Tensor | None,
        n_heads: int,
        kept: dict[int, torch.Tensor],
        read: Read | None = None,
        stack: torch.Tensor | None = None,
        tolerance: float = 0.0,
    ):
        self._stack = stack  # every layer, when all are kept
        self._mean, self._maximum = mean, maximum
        source = stack if stack is not None else mean
        assert source is not None, "a store needs its stack or its head means"
        self.shape = torch.Size((source.shape[0], n_heads, *source.shape[-2:]))
        self.dtype = source.dtype
        self._kept: OrderedDict[int, torch.Tensor] = OrderedDict(sorted(kept.items()))
        self.reader = read  # None: nothing is read again (every layer kept, or no model)
        self._tolerance = tolerance  # how far a layer read again may be from the first pass (the model's dtype)
        self._lock = threading.Lock()
        self.reads = 0  # passes run to read heads again (tests count them)

    @classmethod
    def of(cls, stack: torch.Tensor) -> HeadStore:
        """A store that keeps ``stack`` ``(L, H, n, n)`` whole (a short input, an eager pass)."""
        return cls(None, None, stack.shape[1], {}, stack=stack)

    # The stack's facts ----------------------------------------------------------------------------------
    @property
    def n_layers(self) -> int:
        return self.shape[0]

    def dim(self) -> int:
        return 4

    def __len__(self) -> int:
        return self.n_layers

    @property
    def all_kept(self) -> bool:
        """Whether every layer's heads are at hand (nothing is ever read again)."""
        return self._stack is not None

    @property
    def kept_layers(self) -> list[int]:
        """0-based layers whose heads are at hand now."""
        return list(range(self.n_layers)) if self._stack is not None else sorted(self._kept)

    @property
    def layer_bytes(self) -> int:
        """Bytes of one layer's heads."""
        return self.shape[1:].numel() * self.dtype.itemsize

    # Reductions over the heads, every layer ---------------------------------------------------------------
    @property
    def mean(self) -> torch.Tensor:
        """``(L, n, n)`` the head mean of every layer, rows re-normalised (``head_mean``)."""
        if self._mean is None:
            assert self._stack is not None
            self._mean = head_mean(self._stack)
        return self._mean

    @property
    def maximum(self) -> torch.Tensor:
        """``(L, n, n)`` the entry-wise maximum over the heads of every layer."""
        if self._maximum is None:
            assert self._stack is not None
            self._maximum = self._stack.amax(dim=1)
        return self._maximum

    # Heads -------------------------------------------------------------------------------------------------
    def __getitem__(self, index) -> torch.Tensor:
        """``store[layer]`` ``(H, n, n)`` (0-based, negatives from the end); ``store[layer, ...]`` indexes it."""
        rest = ()
        if isinstance(index, tuple) and index and isinstance(index[0], int):
            index, rest = index[0], index[1:]
        if isinstance(index, bool) or not isinstance(index, int):
            raise TypeError(f"a HeadStore is indexed by a layer (int) first; got {index!r}. full() gives the stack.")
        if not -self.n_layers <= index < self.n_layers:
            raise IndexError(f"layer index {index} out of range for {self.n_layers} layers")
        layer = index % self.n_layers
        heads = self._stack[layer] if self._stack is not None else self.layers([layer])[layer]
        return heads[rest] if rest else heads

    def __iter__(self) -> Iterator[torch.Tensor]:
        for layer in range(self.n_layers):
            yield self[layer]

    def layers(self, wanted: list[int], progress: Progress = None) -> dict[int, torch.Tensor]:
        """The heads ``(H, n, n)`` of the 0-based ``wanted`` layers, those not at hand read in one pass (told to
        ``progress``); the store keeps what its budget allows, the layers read last first."""
        if self._stack is not None:
            return {layer: self._stack[layer] for layer in wanted}
        with self._lock:
            found = {layer: self._kept[layer] for layer in wanted if layer in self._kept}
            missing = sorted(set(wanted) - set(found))
            if missing:
                found.update(self._read_again(missing, progress=progress))
            for layer in wanted:  # most recently used last
                if layer in self._kept:
                    self._kept.move_to_end(layer)
            return {layer: found[layer] for layer in wanted}

    def reduced(self, head: int | str | None = None) -> torch.Tensor:
        """``(L, n, n)``: ``None`` or ``"mean"`` the head mean (``mean``), ``"max"`` the max (``maximum``), an int
        one head (negatives count from the end, as in Python; ``head``)."""
        if head is None or head == "mean":
            return self.mean
        if head == "max":
            return self.maximum
        return self.head(head)  # type: ignore[arg-type]  # checked there

    def head(self, head: int) -> torch.Tensor:
        """``(L, n, n)``: one head (negatives from the end) of every layer, read in at most one pass."""
        n_heads = self.shape[1]
        if isinstance(head, bool) or not isinstance(head, int):
            raise TypeError(f'head must be None, "mean", "max" or an int; got {head!r}.')
        if not -n_heads <= head < n_heads:
            raise IndexError(f"head {head} does not exist; the model has {n_heads} heads (0..{n_heads - 1}).")
        if self._stack is not None:
            return self._stack[:, head]
        out = torch.empty(self.n_layers, *self.shape[-2:], dtype=self.dtype)
        self.visit(lambda layer, heads: out.__setitem__(layer, heads[head]))
        return out

    def full(self) -> torch.Tensor:
        """``(L, H, n, n)``: every layer's heads in one tensor (a long input's is gigabytes: read it by layer)."""
        if self._stack is not None:
            return self._stack
        out = torch.empty(self.shape, dtype=self.dtype)
        self.visit(out.__setitem__)
        return out

    def visit(self, use: Callable[[int, torch.Tensor], None]) -> None:
        """``use(layer, heads)`` for every layer, its heads ``(H, n, n)`` at hand only meanwhile: the kept ones,
        then the others read in one pass and not kept (what a method computed layer by layer needs)."""
        if self._stack is not None:
            for layer in range(self.n_layers):
                use(layer, self._stack[layer])
            return
        with self._lock:
            for layer, heads in self._kept.items():
                use(layer, heads)
            missing = [layer for layer in range(self.n_layers) if layer not in self._kept]
            if missing:
                self._read_again(missing, keep=False, take=use)

    def _read_again(
        self, layers: list[int], keep: bool = True, take=None, progress: Progress = None
    ) -> dict[int, torch.Tensor]:
        """Read ``layers`` again in one pass, each checked against the first pass's head mean; kept within the
        budget when ``keep``; each also handed to ``take(layer, heads)``."""
        if self.reader is None:
            raise RuntimeError("this store cannot read heads again: it was made without a model")
        found: dict[int, torch.Tensor] = {}

        def took(layer: int, heads: torch.Tensor) -> None:
            difference = float((head_mean(heads.clone()) - self.mean[layer]).abs().max())
            if not difference <= self._tolerance:
                raise UnsupportedModelError(
                    f"Layer {layer + 1}'s attention, read again, differs from the first pass by up to "
                    f"{difference:.2g}: the model or its inputs changed since it was analysed. Analyse the text "
                    "again (attn_widget.analyze) to see the model as it is now."
                )
            if take is not None:
                take(layer, heads)
            if keep:
                found[layer] = heads
                self._keep(layer, heads)

        self.reads += 1
        self.reader(layers, took, progress)
        return found

    def _keep(self, layer: int, heads: torch.Tensor) -> None:
        """Keep ``heads``, dropping the least recently used layers beyond the budget (never this one)."""
        self._kept[layer] = heads
        budget = max(KEPT_HEADS_BYTES, self.layer_bytes)
        while len(self._kept) * self.layer_bytes > budget:
            self._kept.popitem(last=False)
