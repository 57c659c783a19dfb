"""Every layer's per-head attention ``(L, H, n, n)``, read when asked and kept within a memory budget.

A long input's heads are gigabytes (Llama-3.2-1B at 4,096 tokens: 2.1 GB a layer in float32) and costly to form
(each layer's ``softmax(q·kᵀ)`` in float32, beside the model's own fused attention), while the first picture
shows one layer. So a capture may read only some layers in its pass (``analyze(..., layers=[...])``) and the
others when first asked for, in one more pass that stops after the last layer wanted (``read``,
sdpa_reader.py). Each layer read is reduced to its head mean and max ``(n, n)``. The max is kept as its rows' tops
(``payload.RowTops``: what a top-k envelope sends of it, about a hundredth of the rows at 4,096 tokens; it is only
drawn); the mean whole while every layer's fits ``KEPT_MEANS_BYTES``, else as its rows' tops too (1 GB of means for
Llama-3.2-1B at 4,096 tokens), read again whole when rollout or flow first need them (``mean``). Its heads are kept
while ``KEPT_HEADS_BYTES`` allows, the least recently used dropped first; the widget asks for the others' rows' tops
instead (``reduce(tops=True)``, within ``KEPT_TOPS_BYTES``), so that showing another layer sends them without reading
it again. What is kept as tops is read again whole only when its exact values are asked for. A layer read a second
time must give the head mean of its first reading (its rows' tops, when only they are kept), or the model changed
and the store says so (what was read first stays). A short input (or an eager pass, which returns every layer at
once) keeps the whole stack and never reads again.
"""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager

import torch

from .errors import UnsupportedModelError
from .methods.normalize import row_normalize_
from .payload import TOPS, RowTops, row_tops

KEPT_HEADS_BYTES = 1 << 30  # per-head attention a capture keeps (all layers' when they fit, else some)
# A capture that may read some layers only reads them all while all its heads cost at most this (a short input:
# reading them later would cost a pass more than reading them now).
READ_AT_ONCE_BYTES = 64 << 20
# Every layer's head mean a long input keeps whole, when all fit (Llama-3.2-1B at 2,048 tokens: 268 MB; at 4,096:
# 1 GB, kept as rows' tops instead, and read again for rollout and flow).
KEPT_MEANS_BYTES = 256 << 20
# Row tops of layers whose heads are not kept (the most recently shown one always): every layer's of the Llama-3.2-1B
# shape at 4,096 tokens (25 MB a layer).
KEPT_TOPS_BYTES = 512 << 20

Progress = Callable[[float, float], None] | None
# read(layers, take, progress, mean, maximum, again, cut, whole): run the model again, reduce each wanted layer into
# mean[layer] and maximum[layer] (a layer read before: compared by again(layer, mean), sdpa_reader.Reads) and call
# take(layer, heads): (H, n, n) on the CPU for the layers in whole, else with cut their payload.RowTops, else None;
# progress (done, total) is told at each layer the pass goes through, and may raise to stop it.
Read = Callable[..., None]


def head_mean(heads: torch.Tensor) -> torch.Tensor:
    """``(..., H, n, n)`` → ``(..., n, n)``: the heads' mean, rows re-normalised (docs/methods.md §1.4), in the
    heads' dtype."""
    return row_normalize_(heads.mean(dim=-3))


class HeadStore:
    """Per-head attention ``(L, H, n, n)`` (row = query, column = key) read a layer at a time: ``store[layer]``
    ``(H, n, n)``; ``mean`` and ``maximum`` ``(L, n, n)`` over the heads of every layer; ``full()`` the stack.
    Layers are 0-based here."""

    def __init__(
        self,
        n_heads: int,
        mean: torch.Tensor | RowTops | None = None,
        maximum: torch.Tensor | RowTops | None = None,
        reduced: list[int] | None = None,
        kept: dict[int, torch.Tensor] | None = None,
        stack: torch.Tensor | None = None,
        tolerance: float = 0.0,
        tops: dict[int, RowTops] | None = None,
    ):
        self._stack = stack  # every layer, when all are kept
        # Rows of the reduced layers hold their head mean and max (a long input's: their rows' tops, L slices each).
        self._mean, self._maximum = mean, maximum
        self._mean_tops: dict[int, RowTops] = {}  # a reduced layer's whole mean rows' tops, made when first sent
        if stack is not None:
            self.shape, self.dtype = stack.shape, stack.dtype
        elif isinstance(mean, RowTops):
            self.shape, self.dtype = (
                torch.Size((*mean.minimum.shape[:1], n_heads, *mean.minimum.shape[1:], mean.cols)),
                mean.dtype,
            )
        else:
            assert mean is not None, "a store needs its stack or its head means"
            self.shape, self.dtype = torch.Size((mean.shape[0], n_heads, *mean.shape[-2:])), mean.dtype
        self._reduced = set(range(self.shape[0])) if reduced is None else set(reduced)
        self._first = set(self._reduced)  # layers whose mean a reading again must reproduce
        self._kept: OrderedDict[int, torch.Tensor] = OrderedDict(sorted((kept or {}).items()))
        self._tops: OrderedDict[int, RowTops] = OrderedDict(sorted((tops or {}).items()))
        self.reader: Read | None = None  # set by the capture (attach); None: nothing is read again
        self._borrow: Callable[[], AbstractContextManager] = contextlib.nullcontext
        self._tolerance = tolerance  # how far a layer read again may be from its first reading (the model's dtype)
        self._lock = threading.RLock()  # held while a pass reads (``_reading``)
        self._tops_lock = threading.Lock()  # the row tops kept: sent while a pass reads others
        self.reads = 0  # passes run to read heads again (tests count them)

    def attach(self, read: Read, borrow: Callable[[], AbstractContextManager]) -> None:
        """How this store reads layers again (the capture's model), and how it borrows the model meanwhile."""
        self.reader, self._borrow = read, borrow

    @contextlib.contextmanager
    def _reading(self) -> Iterator[None]:
        """The model's borrow, then the store's lock, in this order wherever the store reads: work that holds the
        model and then asks the store (value zeroing's checks) must not wait on a reading that waits for it."""
        with self._borrow(), self._lock:
            yield

    @classmethod
    def of(cls, stack: torch.Tensor) -> HeadStore:
        """A store that keeps ``stack`` ``(L, H, n, n)`` whole (a short input, an eager pass)."""
        return cls(stack.shape[1], stack=stack)

    # The stack's facts ----------------------------------------------------------------------------------
    @property
    def n_layers(self) -> int:
        return self.shape[0]

    def dim(self) -> int:
        return 4

    def __len__(self) -> int:
        return self.n_layers

    @property
    def most_k(self) -> int:
        """Entries a top-k envelope may send of a row (``payload.encode``): a long input's layers are kept as their
        rows' tops, or read again."""
        return self.shape[-1] if self._stack is not None else min(self.shape[-1], TOPS)

    @property
    def all_kept(self) -> bool:
        """Whether every layer's heads are at hand (nothing is ever read again)."""
        return self._stack is not None

    @property
    def kept_layers(self) -> list[int]:
        """Layers whose heads are at hand now."""
        return list(range(self.n_layers)) if self._stack is not None else sorted(self._kept)

    @property
    def reduced_layers(self) -> list[int]:
        """Layers read so far: their head mean and max are at hand."""
        return sorted(self._reduced)

    @property
    def layer_bytes(self) -> int:
        """Bytes of one layer's heads."""
        return self.shape[1:].numel() * self.dtype.itemsize

    # Reductions over the heads -----------------------------------------------------------------------------
    @property
    def mean(self) -> torch.Tensor:
        """``(L, n, n)`` the head mean of every layer, rows re-normalised (``head_mean``); reads the layers not
        read yet (a long input's, kept as their rows' tops: every layer again, in one pass)."""
        if isinstance(self._mean, RowTops):
            return self._means_again(list(range(self.n_layers)))
        self.reduce()
        mean = self.reductions()[0]
        assert isinstance(mean, torch.Tensor)  # kept whole
        return mean

    def reductions(self) -> tuple[torch.Tensor | RowTops, torch.Tensor | RowTops]:
        """``(mean, maximum)`` as they are: ``(L, n, n)``, of a long input their rows' tops (``RowTops`` of L
        slices); the rows of layers not read yet (``reduced_layers``) are not set (filled in place when read).
        Nothing is read."""
        if self._mean is None or self._maximum is None:
            assert self._stack is not None
            self._mean, self._maximum = head_mean(self._stack), self._stack.amax(dim=1)
        return self._mean, self._maximum

    def parts(self) -> tuple[torch.Tensor | ReducedPart, torch.Tensor | ReducedPart]:
        """The head mean and max ``(L, 1, n, n)`` as parts of a per-head method's data (``methods.heads.PerHead``):
        tensors when every layer is kept, else ``ReducedPart``s that hand a top-k envelope their rows' tops.
        Nothing is read."""
        mean, maximum = self.reductions()
        if self._stack is not None:
            assert isinstance(mean, torch.Tensor) and isinstance(maximum, torch.Tensor)
            return mean.unsqueeze(1), maximum.unsqueeze(1)
        return ReducedPart(self, "mean"), ReducedPart(self, "max")

    def reduced_layer(self, layer: int, kind: str) -> torch.Tensor:
        """Layer ``layer``'s head mean or max (``kind``) ``(n, n)``; one kept as its rows' tops is read again."""
        mean, maximum = self.reductions()
        kept = mean if kind == "mean" else maximum
        if isinstance(kept, torch.Tensor):
            return kept[layer]
        if kind == "mean":
            return self._means_again([layer])[0]
        return self.layers([layer])[layer].amax(dim=0)

    def reduced_tops(self, layer: int, kind: str, make: bool = False) -> RowTops | None:
        """Layer ``layer``'s head mean or max (``kind``) as its rows' tops ``(1, n, k)``, None when not read yet (or
        the max is whole: its rows are at hand). A whole mean's are made once, with ``make`` (as ``tops``): it is
        never written again."""
        mean, maximum = self.reductions()
        with self._tops_lock:
            if layer not in self._reduced:
                return None
            kept = mean if kind == "mean" else maximum
            if isinstance(kept, RowTops):
                return kept.slice(layer)
            if kind == "max":
                return None
            if layer not in self._mean_tops and make:
                self._mean_tops[layer] = _cut_to_tops(kept[layer].unsqueeze(0))
            return self._mean_tops.get(layer)

    @property
    def maximum(self) -> torch.Tensor:
        """``(L, n, n)`` the entry-wise maximum over the heads of every layer; reads the layers not read yet (a long
        input's, kept as its rows' tops: every layer again, in one pass)."""
        self.reduce()
        maximum = self.reductions()[1]
        if isinstance(maximum, torch.Tensor):
            return maximum
        out = torch.empty(self.n_layers, *self.shape[-2:], dtype=self.dtype)

        def reduce_into(layer: int, heads: torch.Tensor) -> None:
            torch.amax(heads, dim=0, out=out[layer])

        self.visit(reduce_into)
        return out

    def reduce(self, layers: list[int] | None = None, progress: Progress = None, tops: bool = False) -> None:
        """Read the ``layers`` (default: all) not read yet, in one pass, keeping their heads while the budget has
        room (no kept layer is dropped for them); with ``tops``, the others' rows' tops (``shown``: what the widget
        sends of them)."""
        wanted = set(range(self.n_layers) if layers is None else layers)
        if wanted <= self._reduced:
            return
        with self._reading():
            missing = sorted(wanted - self._reduced)
            if missing:
                self._read_again(missing, keep="spare", progress=progress, cut=tops)

    def reduced(self, head: int | str | None = None) -> torch.Tensor:
        """``(L, n, n)``: ``None`` or ``"mean"`` the head mean (``mean``), ``"max"`` the max (``maximum``), an int
        one head (negatives count from the end, as in Python; ``head``)."""
        if head is None or head == "mean":
            return self.mean
        if head == "max":
            return self.maximum
        return self.head(head)  # type: ignore[arg-type]  # checked there

    # Heads -------------------------------------------------------------------------------------------------
    def __getitem__(self, index) -> torch.Tensor:
        """``store[layer]`` ``(H, n, n)`` (negatives from the end); ``store[layer, ...]`` indexes it."""
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
        """The heads ``(H, n, n)`` of the ``wanted`` layers, those not at hand read in one pass (told to
        ``progress``); the store keeps what its budget allows, the layers read last first."""
        if self._stack is not None:
            return {layer: self._stack[layer] for layer in wanted}
        with self._lock:
            found = {layer: self._kept[layer] for layer in wanted if layer in self._kept}
        if len(found) < len(set(wanted)):
            with self._reading():
                found = {layer: self._kept[layer] for layer in wanted if layer in self._kept}
                missing = sorted(set(wanted) - set(found))
                if missing:
                    found.update(self._read_again(missing, progress=progress))
        with self._lock:
            for layer in wanted:  # most recently used last
                if layer in self._kept:
                    self._kept.move_to_end(layer)
        return {layer: found[layer] for layer in wanted}

    def tops(self, layer: int, make: bool = False) -> RowTops | None:
        """Layer ``layer``'s rows' tops, when it is kept so (``shown``); None otherwise. With ``make`` (a top-k
        envelope about to rank its rows), a layer whose heads are kept gets its tops made from them and kept, so
        that showing it again sends them without ranking its rows again (a short input's stack is sent whole)."""
        with self._tops_lock:
            tops = self._tops.get(layer)
        heads = self._kept.get(layer) if tops is None and make and self._stack is None else None
        return self._keep_tops(layer, _cut_to_tops(heads)) if heads is not None else tops

    def at_hand(self, layer: int) -> bool:
        """Whether what the widget sends of layer ``layer``'s heads is at hand, the heads or their rows' tops:
        sending them reads nothing. (Membership only: no lock, so that a pass under way does not hold the caller
        up.)"""
        return self._stack is not None or layer in self._kept or layer in self._tops

    def shown(self, layers: list[int], progress: Progress = None) -> None:
        """Have what the widget sends of ``layers`` at hand: their heads or their rows' tops, the missing ones read
        in one pass, whole while one layer's heads fit the budget, else as their rows' tops."""
        if self._stack is not None:
            return

        def missing() -> list[int]:
            with self._tops_lock:
                return sorted({layer for layer in layers if layer not in self._kept and layer not in self._tops})

        wanted = missing()
        if wanted and self.layer_bytes <= KEPT_HEADS_BYTES:
            self.layers(wanted, progress)
        elif wanted:
            with self._reading():
                wanted = missing()  # another thread may have read some meanwhile
                if wanted:
                    self._read_again(wanted, keep="tops", progress=progress)
        with self._lock, self._tops_lock:
            for layer in layers:  # most recently used last
                for kept in (self._kept, self._tops):
                    if layer in kept:
                        kept.move_to_end(layer)

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
        with self._reading():
            for layer, heads in list(self._kept.items()):
                use(layer, heads)
            missing = [layer for layer in range(self.n_layers) if layer not in self._kept]
            if missing:
                self._read_again(missing, keep="no", take=use)

    def _read_again(
        self,
        layers: list[int],
        keep: str = "yes",
        take=None,
        progress: Progress = None,
        cut: bool = False,
        again: Callable[[int, torch.Tensor], bool] | None = None,
    ) -> dict[int, torch.Tensor]:
        """Read ``layers`` in one pass (the head mean and max of those read for the first time reduced into the
        store's; the others' means checked against their first reading), each handed to ``take(layer, heads)``;
        keep: "yes" (returned, and kept within the budget, the least recently used dropped), "spare" (kept while the
        budget has room; with ``cut`` the others' rows' tops instead), "tops" (their rows' tops kept instead, within
        ``KEPT_TOPS_BYTES``) or "no". again: as ``_again`` (the reader's ``again``), which it calls."""
        if self.reader is None:
            raise RuntimeError("this store cannot read heads again: it was made without a model")
        mean, maximum = self._mean, self._maximum
        assert mean is not None and maximum is not None  # a store without a stack keeps its reductions
        found: dict[int, torch.Tensor] = {}

        def took(layer: int, heads: torch.Tensor | RowTops | None) -> None:
            self._reduced.add(layer)
            self._first.add(layer)
            if heads is None:  # not wanted whole (``whole`` below)
                return
            if isinstance(heads, RowTops):  # cut in the pass: asked for with keep="tops" or cut
                self._keep_tops(layer, heads)
                return
            if take is not None:
                take(layer, heads)
            if keep == "yes":
                found[layer] = heads
                self._keep(layer, heads)
            elif keep == "spare" and (len(self._kept) + 1) * self.layer_bytes <= KEPT_HEADS_BYTES:
                self._kept[layer] = heads
                if cut:  # as the others' (cut in the pass): showing it sends them, whenever it is first shown
                    self._keep_tops(layer, _cut_to_tops(heads))

        # The layers whose heads are formed whole on the CPU: a layer that is neither handed on nor kept is only
        # reduced, or cut to its rows' tops (its heads alone are 2.1 GB for Llama-3.2-1B at 4,096 tokens).
        if keep == "tops":
            whole: list[int] = []
        elif take is not None or keep == "yes":
            whole = layers
        elif keep == "spare":
            whole = sorted(layers)[: max(0, KEPT_HEADS_BYTES // self.layer_bytes - len(self._kept))]
        else:
            whole = []
        self.reads += 1
        self.reader(layers, took, progress, mean, maximum, again or self._again, keep == "tops" or cut, whole)
        return found

    def _means_again(self, layers: list[int]) -> torch.Tensor:
        """``(len(layers), n, n)``: the head means of ``layers`` (a long input's, kept as their rows' tops) read in one
        pass, as the first reading formed them: checked against it (``_again``), or reduced into the store's tops
        when read for the first time (heads kept as ``reduce`` keeps them)."""
        out = torch.empty(len(layers), *self.shape[-2:], dtype=self.dtype)
        at = {layer: index for index, layer in enumerate(layers)}

        def again(layer: int, mean: torch.Tensor) -> bool:
            out[at[layer]] = mean
            return self._again(layer, mean)

        with self._reading():
            self._read_again(layers, keep="spare", again=again)
        return out

    def _again(self, layer: int, mean: torch.Tensor) -> bool:
        """Whether ``layer`` was read before; if so, its head mean read now ``(n, n)`` must be its first reading's
        (the store keeps that one: what was verified and sent stays bit for bit), compared on its rows' tops and
        sums when only they are kept."""
        if layer not in self._first:
            return False
        first = self._mean
        assert first is not None
        if isinstance(first, RowTops):
            kept = first.slice(layer)
            _, _, values, total = row_tops(mean, kept.k, signed=False)
            difference = max(float((kept.values[0] - values).abs().max()), float((kept.total[0] - total).abs().max()))
        else:
            difference = float((first[layer] - mean).abs().max())
        if not difference <= self._tolerance:
            raise UnsupportedModelError(
                f"Layer {layer + 1}'s attention, read again, differs from its first reading by up to "
                f"{difference:.2g}: the model or its inputs changed since it was analysed. Analyse the text "
                "again (attn_widget.analyze) to see the model as it is now."
            )
        return True

    def _keep(self, layer: int, heads: torch.Tensor) -> None:
        """Keep ``heads``, dropping the least recently used layers beyond the budget (never this one)."""
        self._kept[layer] = heads
        budget = max(KEPT_HEADS_BYTES, self.layer_bytes)
        while len(self._kept) * self.layer_bytes > budget:
            self._kept.popitem(last=False)

    def _keep_tops(self, layer: int, tops: RowTops) -> RowTops:
        """Keep a layer's rows' tops, dropping the least recently used beyond ``KEPT_TOPS_BYTES`` (never this one);
        returns them."""
        with self._tops_lock:
            self._tops[layer] = tops
            self._tops.move_to_end(layer)
            while len(self._tops) > 1 and sum(kept.nbytes for kept in self._tops.values()) > KEPT_TOPS_BYTES:
                self._tops.popitem(last=False)
        return tops


def _cut_to_tops(heads: torch.Tensor) -> RowTops:
    """``(H, n, n)`` → its rows' tops, a head at a time."""
    tops = RowTops(heads.shape[0], heads.shape[1], heads.shape[2], heads.dtype)
    for head, weights in enumerate(heads):
        tops.set(head, weights)
    return tops


class ReducedPart:
    """A long input's head mean or max of every layer (``kind``) as a part of a per-head method's data
    (``methods.heads.PerHead``), ``(L, 1, n, n)``: ``part[layer]`` ``(1, n, n)`` (a max kept as its rows' tops is
    read again), and ``tops(layer)``: its rows' tops, which a top-k envelope reads instead of its rows
    (``payload._Joined``; ranking every layer's rows again at each layer change cost a second at 4,096 tokens)."""

    def __init__(self, store: HeadStore, kind: str):
        self._store, self._kind = store, kind
        self.shape = torch.Size((store.n_layers, 1, *store.shape[-2:]))
        self.dtype = store.dtype
        self.most_k = store.most_k

    def dim(self) -> int:
        return 4

    def __getitem__(self, index) -> torch.Tensor:
        if isinstance(index, int) and not isinstance(index, bool):
            return self._store.reduced_layer(index % self.shape[0], self._kind).unsqueeze(0)
        return self.full()[index]

    def tops(self, layer: int, make: bool = False) -> RowTops | None:
        return self._store.reduced_tops(layer, self._kind, make)

    def full(self) -> torch.Tensor:
        """``(L, 1, n, n)`` (the max: every layer read again)."""
        return (self._store.mean if self._kind == "mean" else self._store.maximum).unsqueeze(1)
