"""``CorpusResult``: the tables of a corpus run, read from its shards.

Per-(layer, head) summaries are accumulated one shard at a time (Chan et al.'s pairwise update of
count, mean and sum of squared deviations), so memory does not grow with the number of texts; the
per-text values of one statistic are read only when asked for. Layers are numbered from 1 and heads
from 0, as in the ``AttentionWidget`` (its ``layer`` and ``head``).
"""

from __future__ import annotations

import pathlib
from collections.abc import Callable

import numpy as np

from .. import checks
from ..compare import summarise
from .extras import SEPARATOR
from .integrity import DamagedShardError, read_verified
from .shards import complete_shards, read_manifest, require_pyarrow
from .statistics import STATISTICS, describe

_TEXT_COLUMNS = ["index", "text", "n_tokens", "error"]


class _Moments:
    """count, mean and M2 per column of a stream of ``(rows, k)`` arrays, NaN values left out."""

    def __init__(self, width: int):
        self.count = np.zeros(width)
        self.mean = np.zeros(width)
        self.m2 = np.zeros(width)

    def add(self, values: np.ndarray) -> None:
        count = (~np.isnan(values)).sum(0)
        if not count.any():
            return
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(count > 0, np.nansum(values, 0) / np.maximum(count, 1), 0.0)
            m2 = np.nansum((values - mean) ** 2, 0)
            total = self.count + count
            delta = mean - self.mean
            self.mean = np.where(total > 0, self.mean + delta * count / np.maximum(total, 1), 0.0)
            self.m2 = self.m2 + m2 + delta**2 * self.count * count / np.maximum(total, 1)
        self.count = total

    def std(self) -> np.ndarray:
        """Sample standard deviation (n − 1), NaN for fewer than two values (as pandas)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.count > 1, np.sqrt(self.m2 / (self.count - 1)), np.nan)


class CorpusResult:
    """The result of ``analyze_corpus``, backed by the Parquet shards under ``path``."""

    def __init__(self, path):
        require_pyarrow()
        self.path = pathlib.Path(path)
        self.settings = read_manifest(self.path, advice="run analyze_corpus again with resume=False there")
        self._shards = self._find_shards()
        self.shape = self._read_shape()
        self._texts = None
        self._heads = None

    def _find_shards(self) -> list[pathlib.Path]:
        """The shards of the run's texts: every shard while a run is under way (``texts`` null), else exactly
        the batches of its ``texts`` texts (a longer corpus's shards beyond them are kept, not read)."""
        found = complete_shards(self.path)
        count = self.settings.get("texts")
        if count is None:
            return list(found.values())
        size = self.settings["batch_size"]
        missing = [number for number in range(-(-count // size)) if number not in found]
        if missing:
            first = missing[0]
            raise FileNotFoundError(
                f"{self.path} lacks {len(missing)} of its shards, the first part-{first:06d}.parquet (texts "
                f"{first * size}-{min(count, (first + 1) * size) - 1}); run analyze_corpus on the same texts with "
                "this out= to compute them again."
            )
        return [found[number] for number in range(-(-count // size))]

    def _verified(self, shard: pathlib.Path, columns: list[str] | Callable[[str], bool]):
        try:
            return read_verified(shard, columns)
        except DamagedShardError as exc:
            raise DamagedShardError(
                shard,
                f"{exc.reason}. It is under {self.path}; run analyze_corpus on the same texts with this out= and "
                "resume=True to compute it again",
            ) from None

    def _read_shape(self) -> tuple[int, int] | None:
        for shard in self._shards:
            metadata = self._verified(shard, []).schema.metadata or {}
            if b"layers" in metadata:
                return int(metadata[b"layers"]), int(metadata[b"heads"])
        return None

    def _read(self, columns: list[str]):
        for shard in self._shards:  # only the columns asked for are read (a shard holds every statistic)
            yield self._verified(shard, columns)

    @property
    def texts(self):
        """pandas DataFrame, one row per text in corpus order: index, text, n_tokens, error (missing when fine)."""
        if self._texts is None:
            import pandas

            frames = [table.to_pandas() for table in self._read(_TEXT_COLUMNS)]
            texts = pandas.concat(frames, ignore_index=True) if frames else pandas.DataFrame(columns=_TEXT_COLUMNS)
            texts = texts.sort_values("index", kind="stable").reset_index(drop=True)
            if texts["index"].duplicated().any():
                raise RuntimeError(f"The shards under {self.path} hold some texts twice; rerun with resume=False.")
            self._texts = texts
        return self._texts

    def _stat_columns(self) -> list[str]:
        names = [name for name in STATISTICS if name in self.settings["statistics"]]
        return names + (["importance"] if self.settings.get("target") is not None else [])

    @property
    def heads(self):
        """pandas DataFrame, one row per (statistic, layer, head): mean, std (n − 1) and count over the texts."""
        if self._heads is None:
            import pandas

            rows = []
            if self.shape is not None:
                layers, heads = self.shape
                for name in self._stat_columns():
                    moments = _Moments(layers * heads)
                    for table in self._read([name]):
                        moments.add(_matrix(table.column(name), layers * heads))
                    std = moments.std()
                    for k in range(layers * heads):
                        layer, head = divmod(k, heads)
                        rows.append((name, layer + 1, head, moments.mean[k], std[k], int(moments.count[k])))
            self._heads = pandas.DataFrame(rows, columns=["statistic", "layer", "head", "mean", "std", "count"])
            self._heads.loc[self._heads["count"] == 0, "mean"] = np.nan
        return self._heads

    def values(self, statistic: str) -> np.ndarray:
        """``(N, L, H)`` float64: the statistic of every text in corpus order (NaN for bad texts)."""
        if statistic not in self._stat_columns():
            raise ValueError(f"{statistic!r} was not computed in this run; it has {', '.join(self._stat_columns())}.")
        if self.shape is None:
            return np.full((len(self.texts), 0, 0), np.nan)
        layers, heads = self.shape
        order, blocks = [], []
        for table in self._read(["index", statistic]):
            order.append(table.column("index").to_numpy())
            blocks.append(_matrix(table.column(statistic), layers * heads))
        found = np.concatenate(blocks)[np.argsort(np.concatenate(order), kind="stable")]
        return found.reshape(-1, layers, heads)

    def extreme(self, statistic: str, layer: int, head: int, k: int = 10, largest: bool = True):
        """pandas DataFrame: the ``k`` texts where head ``head`` (from 0) of layer ``layer`` (from 1) has the largest
        (or smallest) value of ``statistic``, with that value."""
        self.check_head(layer, head)
        if not is_count(k) or k < 1:
            raise ValueError(f"k is how many texts to list, a positive integer; got {k!r}.")
        values = self.values(statistic)[:, layer - 1, head]
        texts = self.texts.assign(value=values).dropna(subset=["value"])
        return texts.sort_values("value", ascending=not largest, kind="stable").head(k).reset_index(drop=True)

    def check_head(self, layer, head) -> None:
        """A clear error unless ``layer`` (from 1) and ``head`` (from 0) name a head of the run's model."""
        layers, heads = self.shape or (0, 0)
        if not is_count(layer) or not 1 <= layer <= layers:
            raise ValueError(f"layer must be an integer from 1 to {layers} (numbered from 1); got {layer!r}.")
        if not is_count(head) or not 0 <= head < heads:
            raise ValueError(f"head must be an integer from 0 to {heads - 1} (numbered from 0); got {head!r}.")

    @property
    def agreement(self):
        """pandas DataFrame, one row per (method, layer, reference): Spearman's rho over the texts (mean, std,
        mean of the signed variant, examples, undefined count), as ``attn_widget.compare.summarise``."""
        import pandas

        frames = []
        for shard in self._shards:
            table = self._verified(shard, lambda name: name.startswith(("rho" + SEPARATOR, "rho_signed")))
            if table.num_columns:
                frames.append(table.to_pandas())
        columns = ["method", "layer", "reference", "rho_mean", "rho_std", "rho_signed_mean", "examples", "undefined"]
        if not frames:
            return pandas.DataFrame(columns=columns)
        data = pandas.concat(frames, ignore_index=True)
        # One long frame per rho column, as compare.correlations gives per text; summarise aggregates them.
        long = []
        for name in [c for c in data.columns if c.startswith("rho" + SEPARATOR)]:
            _, method, layer, reference = name.split(SEPARATOR)
            signed = data.get(f"rho_signed{SEPARATOR}{method}{SEPARATOR}{layer}{SEPARATOR}{reference}")
            rho_signed = signed if signed is not None else np.nan
            long.append(
                pandas.DataFrame(
                    {
                        "method": method,
                        "layer": int(layer),
                        "reference": reference,
                        "rho": data[name],
                        "rho_signed": rho_signed,
                    }
                )
            )
        return summarise(long)[columns] if long else pandas.DataFrame(columns=columns)

    def figure(self, statistic: str = "entropy"):
        """A bokeh heat map, layers (rows, layer 1 at the top) × heads, of the mean of ``statistic`` over the
        texts; show it with ``attn_widget.plots.show_inline``."""
        from ..plots import heatmap_figure

        if statistic not in self._stat_columns() or self.shape is None:
            raise ValueError(f"{statistic!r} was not computed in this run; it has {', '.join(self._stat_columns())}.")
        layers, heads = self.shape
        means = self.heads.query("statistic == @statistic")["mean"].to_numpy().reshape(layers, heads)
        described = describe(statistic)
        return heatmap_figure(
            means,
            [str(layer) for layer in range(1, layers + 1)],
            [str(head) for head in range(heads)],
            title=f"{described}: mean over {len(self.texts)} texts",
            x_axis_label="head",
            y_axis_label="layer",
        )

    def __repr__(self) -> str:
        texts = self.texts
        bad = int(texts["error"].notna().sum())
        return f"<CorpusResult {len(texts)} texts ({bad} with errors), {self.shape} layers × heads, at {self.path}>"


def is_count(value) -> bool:
    """An integer as ``checks.integer`` takes one (numpy's included; not a bool, which would read as 1)."""
    try:
        checks.integer(value, "value")
    except TypeError:
        return False
    return True


def _matrix(column, width: int) -> np.ndarray:
    """A ``list<double>`` column (nulls for bad rows) → ``(rows, width)`` float64 with NaN rows."""
    values = column.to_pylist()
    return np.array([row if row is not None else [np.nan] * width for row in values], dtype=np.float64).reshape(
        -1, width
    )
