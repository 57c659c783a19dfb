"""Tensors → compact binary envelopes for the front end (decoded by ``js/src/codec.js``).

An envelope holds a stack of matrices ``(..., R, C)``: every leading dimension is
flattened into "slices". Layout, little-endian, every section 4-byte aligned::

    b"AWP1" | uint32 header length | JSON header (space-padded) | sections...

Header: ``{"version": 1, "layout": "dense" | "rows" | "topk", "shape": [...], "k": int,
"sections": {name: {"dtype": "f32" | "u16" | "i16" | "u32", "offset": bytes, "length": items}}}``,
offsets counted from the end of the padded header.

* ``scale`` (f32, one per row): the row's largest absolute value.
* ``values`` (u16 for non-negative data, i16 for signed): ``value / scale`` quantised
  to 65535 (or 32767) steps, so every value is within scale / 131070 of the truth.
* dense layout: ``values`` has R·C entries per slice.
* rows layout: the dense rows that are not all zero, the others left out: ``rows`` (u32) their
  indices among all rows (slices × R), ``scale`` one per kept row, ``values`` C per kept row. Chosen
  when it is under half the dense size and fits the budget (a long input's deferred flow holding a
  pinned token's row: 6 rows of 3,072, instead of 3 MB of zeros or a top-k cut of that row).
* topk layout: ``indices`` (u16) and ``values`` hold the k largest-magnitude entries
  of each row, strongest first; ``coverage`` (u16, /65535) is the share of the row's
  absolute mass those k entries carry, so the view can say how much it leaves out.
* a part of ``(L, S_i, R, C)`` parts may hold some layers as ``RowTops`` instead of rows (``tops(layer)``: a long
  input's heads of the shown layer, too large to keep): a top-k envelope is made from them with the same bytes.
* some slices only (dense and topk): ``slices`` (u32) lists the slices held, in order, and every other
  section holds theirs only; the others decode as zero (a long input's heads of the shown layer,
  ``shown_heads.py``). In the rows layout, the ``rows`` of the slices held say it.
"""

from __future__ import annotations

import functools
import json
import struct
from collections.abc import Callable, Iterator, Sequence

import numpy as np
import torch

# Rows cut to their k strongest entries (``row_tops``): kept ranks, indices, values (m, k), magnitude sums (m,)
Tops = tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]

MAGIC = b"AWP1"
VERSION = 1
DEFAULT_BUDGET_BYTES = 2_000_000
_U16 = 65535
_I16 = 32767


# Rows converted to float64 at a time while encoding: the stack itself is never copied whole (a long input's
# per-head raw attention is gigabytes), and each row is encoded alone, so the bytes do not depend on it.
CHUNK_ENTRIES = 1 << 22


def encode(
    matrices: torch.Tensor | HeldLayers | Sequence,
    budget_bytes: int = DEFAULT_BUDGET_BYTES,
    slices: Sequence[int] | None = None,
) -> bytes:
    """Encode ``(..., R, C)`` as its non-zero rows when most rows are zero, as dense when it fits
    ``budget_bytes``, otherwise as top-k per row (k the largest that keeps the envelope within the
    budget, at least 1; of parts that keep only their rows' tops, always top-k, with at most the k they keep:
    ``most_k``). Any float dtype; the rows are read ``CHUNK_ENTRIES`` entries at a time, in their own
    dtype (a float32 stack is never copied to float64: extremes, ranks and sums do not need it; what is quantised
    is converted first).

    matrices: a tensor, a ``HeldLayers`` (read as the whole stack, the rows not held zero), or parts
    ``(L, S_i, R, C)`` encoded as if joined along dim 1 (``methods.heads.PerHead``), the join never made.
    slices: encode these slices only (indices into the leading dims flattened, increasing); None: all.
    """
    whole = (
        _Flat(matrices)
        if isinstance(matrices, torch.Tensor)
        else _Held(matrices)
        if isinstance(matrices, HeldLayers)
        else _Joined(matrices)
    )
    whole_shape = whole.shape
    source = whole if slices is None else _Slices(whole, slices)
    shape = source.shape
    rows_total = int(np.prod(shape[:-1]))
    n_cols = shape[-1]
    if n_cols > _U16 + 1:
        raise ValueError(f"at most {_U16 + 1} columns fit the u16 indices; got {n_cols}")
    step = max(1, CHUNK_ENTRIES // max(n_cols, 1))
    chunks = [(start, min(start + step, rows_total)) for start in range(0, rows_total, step)]
    rows = source.rows  # dense and rows layouts: whole rows

    # Each row's smallest value and largest absolute value without an |x| copy; NaN and infinities reach the
    # latter, so one check on it is enough.
    row_min = torch.empty(rows_total, dtype=torch.float64)
    row_max = torch.empty(rows_total, dtype=torch.float64)
    for start, stop in chunks:
        low, high = source.extremes(start, stop)
        row_min[start:stop] = low  # exact in float64: an entry of the row
        row_max[start:stop] = torch.maximum(high.double(), -row_min[start:stop]).abs()  # +0.0 for a zero row
    if not torch.isfinite(row_max).all():
        raise ValueError("cannot encode NaN or infinite values")
    signed = bool((row_min < 0).any())
    scale = row_max.to(torch.float32).to(torch.float64)  # as stored, so decoding uses the same scale
    # Whole rows (dense and rows layouts) only where they are at hand: not of parts that keep their rows' tops alone.
    whole_rows = source.most_k >= n_cols
    dense_bytes = rows_total * (4 + 2 * n_cols) if whole_rows else budget_bytes + 1
    kept = torch.nonzero(row_max > 0).flatten()
    rows_bytes = len(kept) * (8 + 2 * n_cols)
    if whole_rows and rows_bytes <= budget_bytes and 2 * rows_bytes <= dense_bytes:
        within = [kept[(kept >= start) & (kept < stop)] for start, stop in chunks]
        values = np.concatenate(
            [
                _dense_rows(rows(start, stop)[here - start].double(), scale[here], signed)
                for (start, stop), here in zip(chunks, within, strict=True)
            ]
        )
        held = kept if slices is None else torch.tensor(slices)[kept // shape[-2]] * shape[-2] + kept % shape[-2]
        sections = {"rows": held.numpy().astype("<u4"), "scale": _scales(scale[kept]), "values": values}
        return _pack({"layout": "rows", "shape": whole_shape, "k": n_cols}, sections)
    held_slices = {} if slices is None else {"slices": np.asarray(slices, dtype="<u4")}
    if dense_bytes <= budget_bytes:
        values = np.concatenate(
            [_dense_rows(rows(start, stop).double(), scale[start:stop], signed) for start, stop in chunks]
        )
        sections = {**held_slices, "scale": _scales(scale), "values": values}
        return _pack({"layout": "dense", "shape": whole_shape, "k": n_cols}, sections)
    k = max(1, min(source.most_k, (budget_bytes // rows_total - 6) // 4))
    parts = [_topk(*source.tops(start, stop, k, signed), scale[start:stop], signed) for start, stop in chunks]
    sections = {
        **held_slices,
        "scale": _scales(scale),
        **{name: np.concatenate([part[name] for part in parts]) for name in ("indices", "values", "coverage")},
    }
    return _pack({"layout": "topk", "shape": whole_shape, "k": k}, sections)


class _Flat:
    """A stack ``(..., R, C)`` read as rows, on the CPU in its dtype."""

    def __init__(self, matrices: torch.Tensor):
        if matrices.dim() < 2:
            raise ValueError(f"expected a stack of matrices (..., rows, cols); got shape {tuple(matrices.shape)}")
        self.shape = list(matrices.shape)
        self.flat = matrices.detach().reshape(-1, self.shape[-1])
        self.most_k = self.shape[-1]

    def rows(self, start: int, stop: int) -> torch.Tensor:
        return self.flat[start:stop].to("cpu")

    def extremes(self, start: int, stop: int) -> tuple[torch.Tensor, torch.Tensor]:
        return _extremes(self.rows(start, stop))

    def tops(self, start: int, stop: int, k: int, signed: bool) -> Tops:
        return row_tops(self.rows(start, stop), k, signed)


class _Joined:
    """Parts ``(L, S_i, R, C)`` read as the rows of their join along dim 1, on the CPU (in their promoted dtype).
    A part is read a layer at a time (``part[layer]``: a ``head_store.HeadStore`` reads its heads then)."""

    def __init__(self, parts: Sequence):
        layers, rows, cols = parts[0].shape[0], parts[0].shape[-2], parts[0].shape[-1]
        if any(p.dim() != 4 or (p.shape[0], p.shape[-2], p.shape[-1]) != (layers, rows, cols) for p in parts):
            raise ValueError(f"parts must be (L, S_i, R, C) alike; got {[tuple(p.shape) for p in parts]}")
        self.shape = [layers, sum(p.shape[1] for p in parts), rows, cols]
        self.cols = cols
        # Entries a top-k envelope may send a row: at most a part's rows' tops (``most_k``) when it keeps only them.
        self.most_k = min(getattr(part, "most_k", cols) for part in parts)
        # Every row in the dtype the parts promote to, whichever part it comes from: a row is encoded the same
        # however the rows are chunked.
        self.dtype = functools.reduce(torch.promote_types, [p.dtype for p in parts])
        # Blocks of consecutive rows, in order: each part's slices of layer 0, then of layer 1, ...
        self.blocks = [(part, layer) for layer in range(layers) for part in parts]
        self.starts = np.cumsum([0] + [part.shape[1] * rows for part, _ in self.blocks])
        self._read: tuple[int, torch.Tensor | None] = (-1, None)  # the block read last (rows are read in order)

    def _block(self, index: int) -> torch.Tensor:
        if self._read[0] != index:
            part, layer = self.blocks[index]
            self._read = (index, part[layer].detach().reshape(-1, self.cols))
        block = self._read[1]
        assert block is not None
        return block

    def _pieces(self, start: int, stop: int) -> Iterator[tuple[int, int, int]]:
        """``(block, first row, end row)`` of rows ``start:stop``, the rows counted within each block."""
        first = int(np.searchsorted(self.starts, start, side="right")) - 1
        for index in range(first, len(self.blocks)):
            begin = int(self.starts[index])
            if begin >= stop:
                break
            yield index, max(start - begin, 0), stop - begin

    def _rows_of(self, index: int, a: int, b: int) -> torch.Tensor:
        """Rows ``a:b`` of block ``index``, on the CPU in the join's dtype (from its rows' tops when they hold every
        entry: a part kept so is not read again)."""
        tops = self._tops_of(index)
        if tops is not None and tops.k == self.cols:
            return tops.whole(a, b)
        return self._block(index)[a:b].to("cpu", self.dtype)

    def _tops_of(self, index: int, make: bool = False) -> RowTops | None:
        """The block's row tops, when its part keeps them (``HeadStore.tops``; ``make``: or would make and keep
        them now), in the dtype of the rows (so that either gives the same bytes)."""
        part, layer = self.blocks[index]
        tops = part.tops(layer, make) if hasattr(part, "tops") else None
        return tops if tops is not None and tops.values.dtype == self.dtype else None

    def rows(self, start: int, stop: int) -> torch.Tensor:
        return _cat([self._rows_of(i, a, b) for i, a, b in self._pieces(start, stop)])

    def extremes(self, start: int, stop: int) -> tuple[torch.Tensor, torch.Tensor]:
        pieces = []
        for index, a, b in self._pieces(start, stop):
            tops = self._tops_of(index)
            pieces.append(tops.extremes(a, b) if tops is not None else _extremes(self._rows_of(index, a, b)))
        low, high = _cat_columns(pieces)
        return low, high

    def tops(self, start: int, stop: int, k: int, signed: bool) -> Tops:
        pieces = []
        for index, a, b in self._pieces(start, stop):
            tops = self._tops_of(index, make=k <= TOPS)
            if tops is not None and k <= tops.k:
                pieces.append(tops.rows(a, b, k))
            else:
                pieces.append(row_tops(self._rows_of(index, a, b), k, signed))
        kept, indices, values, total = _cat_columns(pieces)
        return kept, indices, values, total


class HeldLayers:
    """A stack ``(L, R, C)`` float64 of which some layers and some rows are held and the rest is zero: a deferred
    method's data (the layers computed, a pinned token's row in others), never made whole (12 layers at 4,096
    tokens: 1.6 GB). Held layers are read one at a time when encoded (``read(layer)``, 0-based: ``(R, C)``)."""

    def __init__(self, shape: tuple[int, int, int], layers: Sequence[int], read: Callable[[int], torch.Tensor]):
        self.shape = tuple(shape)
        self.layers = sorted(layers)
        self.read = read
        self.rows: dict[tuple[int, int], torch.Tensor] = {}  # (layer, row) -> (C,): rows held in layers not held

    def __getitem__(self, layer: int) -> torch.Tensor:
        """Layer ``layer`` (0-based) whole, ``(R, C)``."""
        if layer in self.layers:
            return self.read(layer).to(torch.float64)
        out = torch.zeros(self.shape[1:], dtype=torch.float64)
        for (at, row), values in self.rows.items():
            if at == layer:
                out[row] = values
        return out


class _Held:
    """A ``HeldLayers`` read as rows: the rows held are read (a held layer at a time), the others are zero and
    never scanned."""

    def __init__(self, held: HeldLayers):
        self.held, self.shape = held, list(held.shape)
        self.most_k = self.shape[-1]
        self._read: tuple[int, torch.Tensor | None] = (-1, None)  # the layer read last (rows are read in order)

    def _layer(self, layer: int) -> torch.Tensor:
        if self._read[0] != layer:
            self._read = (layer, self.held.read(layer).to("cpu", torch.float64))
        block = self._read[1]
        assert block is not None
        return block

    def _pieces(self, start: int, stop: int) -> Iterator[tuple[int, torch.Tensor]]:
        """``(first row within start:stop, held rows (m, C))`` of every held piece in rows ``start:stop``."""
        per = self.shape[-2]
        for layer in self.held.layers:
            a, b = max(start, layer * per), min(stop, (layer + 1) * per)
            if a < b:
                yield a - start, self._layer(layer)[a - layer * per : b - layer * per]
        for (layer, row), values in sorted(self.held.rows.items()):
            if start <= layer * per + row < stop and layer not in self.held.layers:
                yield layer * per + row - start, values.to(torch.float64)[None]

    def rows(self, start: int, stop: int) -> torch.Tensor:
        out = torch.zeros(stop - start, self.shape[-1], dtype=torch.float64)
        for at, block in self._pieces(start, stop):
            out[at : at + len(block)] = block
        return out

    def extremes(self, start: int, stop: int) -> tuple[torch.Tensor, torch.Tensor]:
        low, high = (torch.zeros(stop - start, dtype=torch.float64) for _ in range(2))
        for at, block in self._pieces(start, stop):
            low[at : at + len(block)], high[at : at + len(block)] = _extremes(block)
        return low, high

    def tops(self, start: int, stop: int, k: int, signed: bool) -> Tops:
        zero = row_tops(torch.zeros(1, self.shape[-1], dtype=torch.float64), k, signed)  # every row not held
        kept, indices, values, total = (t.expand(stop - start, *t.shape[1:]).clone() for t in zero)
        for at, block in self._pieces(start, stop):
            end = at + len(block)
            kept[at:end], indices[at:end], values[at:end], total[at:end] = row_tops(block, k, signed)
        return kept, indices, values, total


class _Slices:
    """Some slices of a source (indices into its leading dims flattened, increasing), read as the rows of their
    stack ``(S, R, C)``; the others are never read."""

    def __init__(self, source: _Flat | _Joined | _Held, slices: Sequence[int]):
        self.source, self.slices = source, [int(s) for s in slices]
        n_slices = int(np.prod(source.shape[:-2]))
        if any(b <= a for a, b in zip(self.slices, self.slices[1:], strict=False)) or not all(
            0 <= s < n_slices for s in self.slices
        ):
            raise ValueError(f"slices must be increasing indices below {n_slices}; got {self.slices}")
        self.shape = [len(self.slices), *source.shape[-2:]]
        self.most_k = source.most_k

    def _ranges(self, start: int, stop: int) -> Iterator[tuple[int, int]]:
        """Rows ``start:stop`` of the stack of slices as ranges of rows of the source."""
        per, row = self.shape[-2], start
        while row < stop:
            index, offset = divmod(row, per)
            end = min(stop, (index + 1) * per)
            first = self.slices[index] * per + offset
            yield first, first + end - row
            row = end

    def rows(self, start: int, stop: int) -> torch.Tensor:
        return _cat([self.source.rows(a, b) for a, b in self._ranges(start, stop)])

    def extremes(self, start: int, stop: int) -> tuple[torch.Tensor, torch.Tensor]:
        low, high = _cat_columns([self.source.extremes(a, b) for a, b in self._ranges(start, stop)])
        return low, high

    def tops(self, start: int, stop: int, k: int, signed: bool) -> Tops:
        ranges = self._ranges(start, stop)
        kept, indices, values, total = _cat_columns([self.source.tops(a, b, k, signed) for a, b in ranges])
        return kept, indices, values, total


def _cat(pieces: list[torch.Tensor]) -> torch.Tensor:
    return pieces[0] if len(pieces) == 1 else torch.cat(pieces)


def _cat_columns(pieces: Sequence[tuple[torch.Tensor, ...]]) -> tuple[torch.Tensor, ...]:
    """Pieces of rows, each a tuple of per-row tensors (``extremes``, ``row_tops``), joined column by column."""
    return tuple(_cat(list(column)) for column in zip(*pieces, strict=True))


def _extremes(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Each row's smallest and largest entry, ``(m,)`` each, of rows ``(m, C)``."""
    return x.amin(dim=1), x.amax(dim=1)


# Entries a top-k cut ranks per row, whatever its k (the first k of them are sent): a row cut from its tops
# (``RowTops``) or from the row itself gives the same entries, ties included.
TOPS = 32


def row_tops(x: torch.Tensor, k: int, signed: bool | None = None) -> Tops:
    """Rows ``(m, C)`` → their ``k`` largest magnitudes and those entries' indices and values ``(m, k)``, strongest
    first, and each row's magnitude sum ``(m,)``; all in x's dtype (ranks and sums are exact enough there).
    signed: whether any entry is negative, when the caller knows (None: looked up). Non-negative rows (attention
    weights) are their own magnitudes: no |x| copy, no gather (the same numbers, a third of the time)."""
    if signed is None:
        signed = bool((x < 0).any())
    magnitude = x.abs() if signed else x
    kept, indices = torch.topk(magnitude, min(x.shape[1], max(k, TOPS)), dim=1)
    kept, indices = kept[:, :k], indices[:, :k]
    return kept, indices, torch.gather(x, 1, indices) if signed else kept, magnitude.sum(dim=1)


class RowTops:
    """The rows of a stack of matrices ``(S, R, C)`` as a top-k envelope needs them, kept instead of the rows when
    these are too large to keep (a long input's heads of one layer: 2.1 GB for Llama-3.2-1B at 4,096 tokens, its
    tops 34 MB): per row its smallest and largest entry and its magnitude sum ``(S, R)``, and its ``k`` (``TOPS``)
    strongest entries' values and indices ``(S, R, k)``, as ``row_tops`` gives them. Filled a slice at a time
    (``set``); encoded as the rows would be, with any k up to its own (``payload.encode``)."""

    def __init__(self, slices: int, rows: int, cols: int, dtype: torch.dtype):
        self.k, self.cols, self.dtype = min(cols, TOPS), cols, dtype
        self.minimum, self.maximum, self.total = (torch.empty(slices, rows, dtype=dtype) for _ in range(3))
        self.values = torch.empty(slices, rows, self.k, dtype=dtype)
        # Column indices as the envelope sends them (u16: at most 65,536 columns, encode's limit).
        self.indices = torch.empty(slices, rows, self.k, dtype=torch.uint16 if cols <= _U16 + 1 else torch.int32)

    def slice(self, index: int) -> RowTops:
        """Slice ``index`` alone, as a ``RowTops`` of one slice sharing this one's memory."""
        one = RowTops.__new__(RowTops)
        one.k, one.cols, one.dtype = self.k, self.cols, self.dtype
        one.minimum, one.maximum, one.total, one.values, one.indices = (
            t[index : index + 1] for t in (self.minimum, self.maximum, self.total, self.values, self.indices)
        )
        return one

    def set(self, index: int, matrix: torch.Tensor) -> None:
        """Slice ``index``'s rows from its matrix ``(R, C)`` (on any device)."""
        low, self.maximum[index] = _extremes(matrix)
        self.minimum[index] = low
        _, indices, self.values[index], self.total[index] = row_tops(matrix, self.k, bool((low < 0).any()))
        self.indices[index] = indices

    @property
    def nbytes(self) -> int:
        return sum(
            t.numel() * t.element_size() for t in (self.minimum, self.maximum, self.total, self.values, self.indices)
        )

    def extremes(self, start: int, stop: int) -> tuple[torch.Tensor, torch.Tensor]:
        """Rows ``start:stop`` (counted through the slices): their smallest and largest entries."""
        return self.minimum.reshape(-1)[start:stop], self.maximum.reshape(-1)[start:stop]

    def whole(self, start: int, stop: int) -> torch.Tensor:
        """Rows ``start:stop`` themselves ``(m, C)``: the tops of rows no longer than ``TOPS`` hold every entry."""
        assert self.k == self.cols, "only tops holding every entry of their rows give the rows"
        indices = self.indices.reshape(-1, self.k)[start:stop].long()  # stop may pass the end, as in a slice
        return torch.zeros(len(indices), self.cols, dtype=self.dtype).scatter_(
            1, indices, self.values.reshape(-1, self.k)[start:stop]
        )

    def rows(self, start: int, stop: int, k: int) -> Tops:
        """Rows ``start:stop`` cut to their ``k`` (at most ``self.k``) strongest entries, as ``row_tops``."""
        values = self.values.reshape(-1, self.k)[start:stop, :k]
        indices = self.indices.reshape(-1, self.k)[start:stop, :k].long()
        return values.abs(), indices, values, self.total.reshape(-1)[start:stop]


def _quantise(x: torch.Tensor, scale: torch.Tensor, signed: bool) -> np.ndarray:
    """Values ``(rows, m)`` divided by their row's ``scale`` ``(rows,)`` → u16 or i16 codes."""
    safe = torch.where(scale == 0, torch.ones_like(scale), scale).unsqueeze(1)
    if signed:
        return torch.round(x / safe * _I16).to(torch.int16).numpy()
    return torch.round(x / safe * _U16).to(torch.int32).numpy().astype(np.uint16)


def _scales(scale: torch.Tensor) -> np.ndarray:
    """The ``scale`` section: each row's largest absolute value, as float32."""
    return scale.numpy().astype("<f4")


def _dense_rows(values: torch.Tensor, scale: torch.Tensor, signed: bool) -> np.ndarray:
    """The ``values`` of whole rows ``(m, C)`` with their scales ``(m,)``; ``signed``: whether any value of the
    stack is negative (i16 codes, else u16)."""
    return _quantise(values, scale, signed).astype("<i2" if signed else "<u2").reshape(-1)


def _topk(
    kept: torch.Tensor,
    indices: torch.Tensor,
    values: torch.Tensor,
    total: torch.Tensor,
    scale: torch.Tensor,
    signed: bool,
) -> dict[str, np.ndarray]:
    """The ``indices``, ``values`` and ``coverage`` sections of rows cut to their k largest magnitudes
    (``row_tops``: ``kept``, ``indices``, ``values`` ``(m, k)``, ``total`` ``(m,)``), with their ``scale`` ``(m,)``."""
    values = values.double()
    # Sums in the rows' dtype (float32 sums 5x faster than with a float64 accumulator; coverage is kept to 1/65535)
    total = total.double()
    kept_sum = kept.sum(dim=1).double()
    coverage = torch.where(total == 0, 1.0, kept_sum / torch.where(total == 0, 1.0, total))
    return {
        "indices": indices.numpy().astype("<u2").reshape(-1),
        "values": _quantise(values, scale, signed).astype("<i2" if signed else "<u2").reshape(-1),
        "coverage": torch.round(coverage.clamp(0, 1) * _U16).to(torch.int32).numpy().astype("<u2"),
    }


_DTYPES = {"f32": "<f4", "u16": "<u2", "i16": "<i2", "u32": "<u4"}  # the header's names, little-endian
_DTYPE_NAMES = {np.dtype(code): name for name, code in _DTYPES.items()}


def _pack(header: dict, sections: dict[str, np.ndarray]) -> bytes:
    table: dict[str, dict[str, int | str]] = {}
    offset = 0
    for name, a in sections.items():
        table[name] = {"dtype": _DTYPE_NAMES[a.dtype], "offset": offset, "length": int(a.size)}
        offset = _align(offset + a.nbytes)
    text = json.dumps({"version": VERSION, **header, "sections": table}).encode()
    header_len = _align(len(text))
    data_start = 8 + header_len
    out = bytearray(data_start + offset)
    out[0:4] = MAGIC
    out[4:8] = struct.pack("<I", header_len)
    out[8:data_start] = text.ljust(header_len, b" ")
    for name, a in sections.items():
        start = data_start + int(table[name]["offset"])
        out[start : start + a.nbytes] = np.ascontiguousarray(a).tobytes()
    return bytes(out)


def _align(size: int) -> int:
    return (size + 3) // 4 * 4


def decode(blob: bytes) -> dict:
    """Python mirror of the JS decoder, for tests and data export.

    Returns ``{"layout", "shape", "k", "matrices"}`` where ``matrices`` is the dense
    float64 array of the given shape (entries not kept by top-k are 0), and, for
    top-k, ``"coverage"`` with one value per row.
    """
    if blob[:4] != MAGIC:
        raise ValueError("not an attn_widget payload (bad magic)")
    (header_len,) = struct.unpack("<I", blob[4:8])
    header = json.loads(blob[8 : 8 + header_len])
    arrays = {}
    for name, spec in header["sections"].items():
        dtype = _DTYPES[spec["dtype"]]
        offset = 8 + header_len + spec["offset"]
        arrays[name] = np.frombuffer(blob, dtype=dtype, count=spec["length"], offset=offset)
    shape = header["shape"]
    rows, cols = int(np.prod(shape[:-1])), shape[-1]
    full_scale = _I16 if arrays["values"].dtype == np.dtype("<i2") else _U16
    if "slices" in arrays:  # some slices only: the others' rows zero
        arrays = _all_slices(arrays, rows // shape[-2], shape[-2])
    scale = arrays["scale"].astype(np.float64)[:, None]
    if header["layout"] == "dense":
        dense = arrays["values"].reshape(rows, cols) / full_scale * scale
        return {"layout": "dense", "shape": shape, "k": header["k"], "matrices": dense.reshape(shape)}
    if header["layout"] == "rows":
        dense = np.zeros((rows, cols))
        dense[arrays["rows"].astype(np.int64)] = arrays["values"].reshape(-1, cols) / full_scale * scale
        return {"layout": "rows", "shape": shape, "k": header["k"], "matrices": dense.reshape(shape)}
    k = header["k"]
    dense = np.zeros((rows, cols))
    values = arrays["values"].reshape(rows, k) / full_scale * scale
    np.put_along_axis(dense, arrays["indices"].reshape(rows, k).astype(np.int64), values, axis=1)
    return {
        "layout": "topk",
        "shape": shape,
        "k": k,
        "matrices": dense.reshape(shape),
        "coverage": (arrays["coverage"] / _U16).reshape(shape[:-1]),
    }


def _all_slices(arrays: dict, n_slices: int, per: int) -> dict:
    """The sections of an envelope holding some slices only spread over all ``n_slices`` (``per`` rows each)."""
    held = arrays["slices"].astype(np.int64)
    out = {}
    for name, a in arrays.items():
        if name == "slices":
            continue
        whole = np.zeros((n_slices, per, a.size // (len(held) * per)), dtype=a.dtype)
        whole[held] = a.reshape(len(held), per, -1)
        out[name] = whole.reshape(-1)
    return out
