"""What makes a shard trustworthy: a checksum of every column and the identity of every text it holds.

A shard's schema metadata carries ``digests`` (column → SHA-256 of the column's values in a canonical
form, independent of Parquet's encoding and of how Arrow chunks what it reads), and its ``text_hash``
column the SHA-256 of each text. Reading a shard checks the digests of the columns read, so flipped
bytes, a truncated file or a broken footer are named instead of read as numbers; resuming compares
the texts of the corpus with those a shard was computed from, so another corpus in the same folder is
refused and a moved end of the corpus is recomputed.
"""

from __future__ import annotations

import hashlib
import json
import pathlib
from collections.abc import Callable

import numpy as np

DIGESTS = b"digests"
IDENTITY = "text_hash"


class DamagedShardError(ValueError):
    """A shard that cannot be read or does not match its checksums; ``reason`` says which."""

    def __init__(self, shard: pathlib.Path, reason: str):
        super().__init__(f"{shard.name} is damaged: {reason}")
        self.shard, self.reason = shard, reason


class Rejected(str):
    """A corpus item that is not a string, replaced (before it travels to a worker) by its error message:
    an object of a class defined in a notebook cannot be unpickled in a Ray worker, and the message is
    all a worker needs of it."""


def text_hash(value: str) -> str:
    """The identity of one corpus item: SHA-256 of the text (of the error, for an item that is no text)."""
    tag = "rejected:" if isinstance(value, Rejected) else "text:"
    return hashlib.sha256((tag + value).encode("utf-8", "surrogatepass")).hexdigest()


def column_digest(column) -> str:
    """SHA-256 of a pyarrow (chunked) array's type and values, the same however it is chunked or encoded."""
    import pyarrow

    array = column.combine_chunks() if isinstance(column, pyarrow.ChunkedArray) else column
    kind = array.type
    named = f"list<{kind.value_type}>" if pyarrow.types.is_list(kind) else str(kind)  # Parquet renames list items
    digest = hashlib.sha256(f"{named}|{len(array)}|".encode())
    if pyarrow.types.is_list(kind) and pyarrow.types.is_floating(kind.value_type):
        digest.update(_bytes(array.value_lengths().fill_null(-1), "<i8"))
        digest.update(_bytes(array.flatten(), "<f8"))
    elif pyarrow.types.is_integer(kind) or pyarrow.types.is_floating(kind):
        digest.update(_bytes(array.is_null(), "u1"))
        digest.update(_bytes(array.fill_null(0), "<f8"))
    else:
        digest.update(json.dumps(array.to_pylist()).encode())
    return digest.hexdigest()


def _bytes(array, dtype: str) -> memoryview:
    """A pyarrow array's values as contiguous bytes of ``dtype`` (no copy where they are already so)."""
    return np.ascontiguousarray(array.to_numpy(zero_copy_only=False), dtype=dtype).data


def with_digests(table):
    """``table`` with the digest of every column in its schema metadata."""
    digests = {name: column_digest(table.column(name)) for name in table.column_names}
    return table.replace_schema_metadata({**(table.schema.metadata or {}), DIGESTS: json.dumps(digests).encode()})


def read_verified(shard: pathlib.Path, columns: list[str] | Callable[[str], bool] | None = None):
    """The columns of ``shard`` that it has among ``columns`` (or those it names true; None: all), each checked
    against its digest; ``DamagedShardError`` when the shard cannot be read or a column does not match."""
    import pyarrow
    import pyarrow.parquet

    if not shard.is_file():
        raise DamagedShardError(shard, "it is not a file")
    try:
        schema = pyarrow.parquet.read_schema(shard)
        if callable(columns):
            columns = [name for name in schema.names if columns(name)]
        digests = json.loads((schema.metadata or {}).get(DIGESTS, b"null"))
        if not isinstance(digests, dict):
            raise DamagedShardError(shard, "it has no checksums (it was written before attn_widget checked shards)")
        wanted = schema.names if columns is None else [name for name in columns if name in schema.names]
        table = pyarrow.parquet.read_table(shard, columns=wanted)
    except DamagedShardError:
        raise
    except (OSError, ValueError, pyarrow.ArrowException) as exc:  # a cut file, a broken footer or page
        said = " ".join("".join(c if c.isprintable() else " " for c in str(exc)).split())  # pyarrow's can hold bytes
        raise DamagedShardError(shard, f"it cannot be read ({type(exc).__name__}: {said})") from None
    for name in wanted:
        if digests.get(name) != column_digest(table.column(name)):
            raise DamagedShardError(shard, f"its column {name!r} does not match its checksum")
    return table


def identities(table) -> list[tuple[int, str]]:
    """``(index, text hash)`` of every row of a shard read with its ``index`` and ``text_hash`` columns."""
    return list(zip(table.column("index").to_pylist(), table.column(IDENTITY).to_pylist(), strict=True))


def differing_text(stored: list[tuple[int, str]], expected: list[tuple[int, str]]) -> int | None:
    """The first index whose text differs between a shard and the batch of the corpus (None: the texts
    they share are the same, though one may hold more of them)."""
    held = dict(stored)
    for index, identity in expected:
        if index in held and held[index] != identity:
            return index
    return None
