"""Parquet shards under ``out``: one per batch, written to a temporary name and renamed when complete.

``out/corpus.json`` records the settings of the run; ``out/part-000042.parquet`` holds batch 42
(texts ``42·B .. 43·B − 1``). A shard exists only once it is complete (``os.replace`` is atomic),
so a crash loses at most the shards in flight (their temporaries are removed by the next run),
and a rerun with ``resume=True`` computes only the missing or damaged ones. A shard written twice (a retried
task) replaces itself with the same rows.

Columns of a shard: ``index`` (int64, position in the corpus), ``text`` (string, null when not a
string), ``text_hash`` (string: the text's identity, corpus.integrity), ``n_tokens`` (int32), ``error``
(string, null when fine; a text whose target or agreement failed keeps its statistics, and its error
says so), one ``list<double>`` column of ``L·H`` values (layer-major) per statistic and for
``importance`` (null for bad rows), and a double column per agreement value
``rho|method|layer|reference`` and ``rho_signed|...``. The schema's metadata holds every column's
checksum (corpus.integrity).

``corpus.json`` also records ``texts``, the length of the corpus of the last run that finished (null
while one runs): a result reads the shards of those texts only, so a run on the first 12 of 20 texts
shows 12, and the shard of texts 16-19 is kept for a later run on all 20.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import uuid
import warnings
from collections.abc import Iterable, Iterator

from .integrity import DamagedShardError, differing_text, identities, read_verified, text_hash, with_digests

_SHARD = re.compile(r"^part-(\d{6,})\.parquet$")
_TEMPORARY = re.compile(r"^\.part-(\d{6,})\.parquet\..+\.tmp$")
MANIFEST = "corpus.json"


def require_pyarrow():
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError as exc:
        raise ImportError("Corpus analysis writes Parquet shards: pip install 'attn_widget[corpus]'.") from exc
    return pyarrow


class ShardDirectory:
    """The shards of one run under ``path``: the manifest checked (resume) or the shards removed (no resume)."""

    def __init__(self, path, settings: dict, resume: bool):
        self.path = pathlib.Path(path)
        self.path.mkdir(parents=True, exist_ok=True)
        self.resume = resume
        manifest = self.path / MANIFEST
        if manifest.exists() and resume:
            found = read_manifest(self.path, advice="pass resume=False to start over there, or another out= directory")
            found.pop("texts", None)
            if found != settings:
                changed = sorted(key for key in settings.keys() | found.keys() if settings.get(key) != found.get(key))
                raise ValueError(
                    f"{self.path} holds a run with other settings ({', '.join(changed)} differ), so its shards cannot "
                    "be resumed; pass another out= directory, or resume=False to start over there."
                )
        elif not resume:
            for shard in self.done().values():
                _remove(shard)
        for entry in self.path.iterdir():  # a shard cut short when a run was killed; never renamed, so never read
            if _TEMPORARY.match(entry.name):
                entry.unlink(missing_ok=True)
        self.settings, self.texts = settings, 0
        self._write_manifest(None)  # null: a run is under way

    def _write_manifest(self, texts: int | None) -> None:
        data = {**self.settings, "texts": texts}
        _write_atomically(self.path / MANIFEST, json.dumps(data, indent=1, sort_keys=True).encode())

    def name(self, number: int) -> pathlib.Path:
        return self.path / f"part-{number:06d}.parquet"

    def done(self) -> dict[int, pathlib.Path]:
        """Batch number → complete shard."""
        return complete_shards(self.path)

    def plan(self, batches: Iterable[tuple[int, list]]) -> Iterator[tuple[int, list, bool]]:
        """``(number, rows, needed)`` for every batch of the corpus: needed unless its shard is intact and was
        computed from the same texts. A damaged shard is removed and recomputed, with a warning that names it; a
        shard of other texts at the same positions stops the run (``out`` holds another corpus)."""
        done = self.done()
        self.texts = 0
        for number, rows in batches:
            self.texts += len(rows)
            shard = done.get(number)
            yield number, rows, shard is None or not self._keeps(shard, rows)

    def finish(self) -> None:
        """Record that the run is complete: every batch of its ``texts`` texts has its shard."""
        self._write_manifest(self.texts)

    def _keeps(self, shard: pathlib.Path, rows: list) -> bool:
        expected = [(index, text_hash(value)) for index, value in rows]
        try:
            stored = identities(read_verified(shard))
        except DamagedShardError as exc:
            warnings.warn(f"{self.path}: {exc}; it is computed again.", UserWarning, stacklevel=4)
            _remove(shard)
            return False
        if stored == expected:
            return True
        index = differing_text(stored, expected)
        if index is not None:
            raise ValueError(
                f"{self.path} holds the results of another corpus (its text {index} is not this corpus's text "
                f"{index}), so they cannot be resumed; pass another out= directory, or resume=False to replace them."
            )
        return False  # the same texts, but the corpus ends elsewhere: the last batch is computed again


def read_manifest(path: pathlib.Path, advice: str) -> dict:
    """The settings recorded in ``path/corpus.json``; a clear error when it is missing or damaged."""
    manifest = path / MANIFEST
    try:
        found = json.loads(manifest.read_bytes().decode("utf-8"))
    except FileNotFoundError:
        raise FileNotFoundError(f"{path} holds no corpus run: it has no {MANIFEST}.") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{manifest} is damaged ({type(exc).__name__}: {exc}); {advice}.") from None
    if not isinstance(found, dict) or not isinstance(found.get("statistics"), list):
        raise ValueError(f"{manifest} is damaged (it does not record a run's settings); {advice}.")
    return found


def _remove(shard: pathlib.Path) -> None:
    """Remove a shard, or whatever took its name (a directory)."""
    if shard.is_dir() and not shard.is_symlink():
        shutil.rmtree(shard)
    else:
        shard.unlink(missing_ok=True)


def complete_shards(path: pathlib.Path) -> dict[int, pathlib.Path]:
    """Batch number → complete shard under ``path``, in batch order."""
    found = {}
    for entry in path.iterdir():
        match = _SHARD.match(entry.name)
        if match:
            found[int(match.group(1))] = entry
    return dict(sorted(found.items()))


def write_shard(path: str | os.PathLike, number: int, table) -> None:
    """Write ``table`` as shard ``number`` under ``path``: to a temporary name, then renamed."""
    pyarrow = require_pyarrow()
    final = pathlib.Path(path) / f"part-{number:06d}.parquet"
    temporary = final.with_name(f".{final.name}.{os.getpid()}-{uuid.uuid4().hex[:8]}.tmp")
    try:
        pyarrow.parquet.write_table(table, temporary)
        os.replace(temporary, final)
    finally:
        temporary.unlink(missing_ok=True)


def _write_atomically(path: pathlib.Path, data: bytes) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)


def _storable(text: str | None) -> str | None:
    """The text as UTF-8 can hold it: a lone surrogate (reported in the row's error) becomes U+FFFD."""
    return None if text is None else text.encode("utf-8", "replace").decode("utf-8")


def shard_table(rows, statistics: dict[str, list], extras: list[dict], shape: tuple[int, int] | None):
    """A pyarrow table of one batch: ``rows`` (``Prepared``), per statistic a list (one ``L·H`` list or
    None per row), ``extras`` one dict per row (``importance`` → list, agreement columns → float);
    ``shape`` (layers, heads) goes into the schema's metadata (None: no row reached the model)."""
    pyarrow = require_pyarrow()
    columns: dict[str, object] = {
        "index": pyarrow.array([row.index for row in rows], pyarrow.int64()),
        "text": pyarrow.array([_storable(row.text) for row in rows], pyarrow.string()),
        "text_hash": pyarrow.array([row.identity for row in rows], pyarrow.string()),
        "n_tokens": pyarrow.array([row.n_tokens for row in rows], pyarrow.int32()),
        "error": pyarrow.array([row.error for row in rows], pyarrow.string()),
    }
    for name, values in statistics.items():
        columns[name] = pyarrow.array(values, pyarrow.list_(pyarrow.float64()))
    if any("importance" in extra for extra in extras):
        columns["importance"] = pyarrow.array(
            [extra.get("importance") for extra in extras], pyarrow.list_(pyarrow.float64())
        )
    keys = sorted({key for extra in extras for key in extra if key != "importance"})
    for key in keys:
        columns[key] = pyarrow.array([extra.get(key) for extra in extras], pyarrow.float64())
    metadata = None if shape is None else {"layers": str(shape[0]), "heads": str(shape[1])}
    return with_digests(pyarrow.table(columns, metadata=metadata))
