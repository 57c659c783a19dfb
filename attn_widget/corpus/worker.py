"""One worker's job: turn a batch of corpus rows into a shard. The same code runs in-process
(``engine="local"``) and in each Ray actor (``engine="ray"``), so both give the same rows."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from torch import nn

from ..inputs import check_model, resolve_tokenizer, unwrap
from . import extras
from .batches import BatchRunner, Limits, prepare
from .shards import shard_table, write_shard


@dataclass(frozen=True)
class Settings:
    """What a run computes; recorded in ``out/corpus.json`` (a resumed run must match)."""

    statistics: tuple[str, ...]
    methods: tuple[str, ...] | None
    references: tuple[str, ...] | None
    target: Any  # a target spec (attn_widget.targets) or None
    batch_size: int

    def manifest(self, model_name: str) -> dict:
        found = asdict(self)
        found["target"] = None if self.target is None else _describe(self.target)
        found["statistics"], found["model"] = list(self.statistics), model_name
        for key in ("methods", "references"):
            found[key] = None if found[key] is None else list(found[key])
        return found


def _describe(target) -> str:
    """A description of a target spec that is the same in a rerun (no object addresses)."""
    if isinstance(target, str):
        return repr(target)
    parts = []
    for key, value in sorted(vars(target).items()) if hasattr(target, "__dict__") else []:
        shown = getattr(value, "__qualname__", None) if callable(value) else value
        parts.append(f"{key}={shown!r}")
    return f"{type(target).__name__}({', '.join(parts)})"


def is_loader(model) -> bool:
    """Whether ``model`` is a callable that loads the model (each Ray actor then loads its own)."""
    return callable(model) and not isinstance(model, nn.Module)


def load(model, tokenizer):
    """``(model, tokenizer)`` from what the user passed: a loaded model (``analyze_corpus`` has checked it
    already), or a loader returning the model or ``(model, tokenizer)``, whose model is checked here."""
    if is_loader(model):
        loaded = model()
        model, tokenizer = loaded if isinstance(loaded, tuple) else (loaded, tokenizer)
        model = unwrap(model)
        check_model(model)
    return model, resolve_tokenizer(model, tokenizer)


class ShardWorker:
    """Computes and writes shards for one model (loaded once)."""

    def __init__(self, model, tokenizer, settings: Settings):
        self.model, self.tokenizer = model, tokenizer
        self.settings = settings
        self.limits = Limits(model, tokenizer)
        self.runner = BatchRunner(model, tokenizer, settings.statistics)
        self.shape: tuple[int, int] | None = None  # (layers, heads) from head importance, when no statistics

    def table(self, rows: list[tuple[int, str]]):
        """The pyarrow table of one batch of ``(index, value)`` rows."""
        prepared = prepare(rows, self.tokenizer, self.limits)
        good = [row for row in prepared if row.error is None]
        values: dict[str, list] = {name: [None] * len(prepared) for name in self.settings.statistics}
        if good and self.settings.statistics:
            computed = self.runner.statistics(good)
            where = {id(row): i for i, row in enumerate(prepared)}
            for name, tensor in computed.items():
                for row, value in zip(good, tensor.flatten(1).tolist(), strict=True):
                    values[name][where[id(row)]] = value
        per_row: list[dict] = [{} for _ in prepared]
        if self.settings.target is not None or self.settings.methods is not None:
            for i, row in enumerate(prepared):
                if row.error is None:
                    per_row[i] = self._extras(row)
        return shard_table(prepared, values, per_row, self.runner.shape or self.shape)

    def _extras(self, row) -> dict:
        settings = self.settings
        try:
            found = extras.per_text(
                self.model, self.tokenizer, row.text, settings.target, settings.methods, settings.references
            )
        except Exception as exc:  # one text's failure (a target that does not apply) is that row's error
            row.error = f"no importance or agreement (its statistics are kept): {type(exc).__name__}: {exc}"
            return {}
        importance = [found.pop(key) for key in [k for k in found if k.startswith("importance|")]]
        if "layers" in found:
            self.shape = (int(found.pop("layers")), int(found.pop("heads")))
        return {**found, **({"importance": importance} if importance else {})}

    def write(self, out, number: int, rows: list[tuple[int, str]]) -> int:
        """Compute batch ``number`` and write it as a shard under ``out``; the number of rows."""
        write_shard(out, number, self.table(rows))
        return len(rows)
