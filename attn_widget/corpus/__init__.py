"""The analyses of one text over a whole corpus, in this process or on a Ray cluster (docs/scaling.md).

>>> from attn_widget.corpus import analyze_corpus
>>> result = analyze_corpus(model, texts, tokenizer, out="runs/pydoc")
>>> result.heads            # one row per statistic, layer, head: mean, std, count over the texts
>>> result.extreme("previous_token", layer=2, head=3)   # the texts where that head is most extreme
>>> CorpusWidget(result, model, tokenizer)                # in a notebook: the grid, the texts, one text's widget

Needs the ``corpus`` extra (pyarrow; Ray for ``engine="ray"``): ``pip install 'attn_widget[corpus]'``.
"""

from __future__ import annotations

import tempfile

from ..inputs import check_model, unwrap
from .engines import ENGINES, batches, run_local, run_ray
from .extras import check_methods
from .result import CorpusResult
from .shards import ShardDirectory, require_pyarrow
from .statistics import STATISTICS, check_names
from .widget import CorpusWidget
from .worker import Settings, is_loader

__all__ = ["STATISTICS", "CorpusResult", "CorpusWidget", "analyze_corpus"]


def analyze_corpus(
    model,
    texts,
    tokenizer=None,
    *,
    stats=None,
    methods=None,
    target=None,
    references=None,
    engine: str = "local",
    out=None,
    batch_size: int = 32,
    resume: bool = True,
    progress: bool = True,
    address: str | None = None,
    workers: int | None = None,
) -> CorpusResult:
    """Per-head attention statistics (and, with a target, head importance and method agreement) of every
    text in ``texts``, written as Parquet shards under ``out`` and summarised in a ``CorpusResult``.

    model: a loaded transformers model (left as found), or a callable returning one or ``(model, tokenizer)``
    (each Ray actor then loads its own). texts: a list, pandas Series, ``datasets`` column or any iterable;
    text i is the i-th item. Bad items (not strings, empty, too long) get an ``error`` in ``result.texts``.
    stats: names from ``STATISTICS`` (default all). target: a target spec (``attn_widget.targets``) for head
    importance (Michel et al. 2019) and agreement. methods: matrix method ids (or "all") whose per-text
    Spearman agreement with the gradient ``references`` (default: every applicable one) is computed, as
    ``Analysis.compare`` does for one text; None: none.
    engine: "local" (in-process, batched) or "ray" (a Ray Data actor pool of ``workers``, one model each;
    ``ray.init(address=address)`` unless Ray is already initialised). out: the shard directory (default: a
    new temporary one). resume: keep the shards already under ``out`` that are intact and were computed from the same
    texts, and compute the rest (the settings must match; a damaged shard is named in a warning and computed again;
    another corpus in the same folder is refused); False deletes them first. batch_size: texts per forward pass
    and per shard.
    """
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(map(repr, ENGINES))}; got {engine!r}.")
    if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer; got {batch_size!r}.")
    texts = _check_texts(texts)
    require_pyarrow()
    if not is_loader(model):
        model = unwrap(model)
        check_model(model)
    settings = Settings(
        check_names(stats),
        check_methods(methods),
        None if references is None else tuple(references),
        target,
        batch_size,
    )
    name = getattr(model, "name_or_path", "") or getattr(model, "__qualname__", "") or type(model).__name__
    directory = ShardDirectory(out or tempfile.mkdtemp(prefix="attn_widget-corpus-"), settings.manifest(name), resume)
    plan = directory.plan(batches(texts, batch_size))
    total = len(texts) if hasattr(texts, "__len__") else None
    if engine == "local":
        run_local(model, tokenizer, plan, settings, directory.path, total, progress)
    else:
        options = dict(address=address, workers=workers)
        run_ray(model, tokenizer, plan, settings, directory.path, total, progress, options)
    directory.finish()
    return CorpusResult(directory.path)


def _check_texts(texts):
    """The corpus as an iterable of items; a clear error for one string or a whole table."""
    if isinstance(texts, (str, bytes)):
        raise TypeError("texts must be a collection of texts, not one string; pass [text] to analyse one text.")
    if hasattr(texts, "columns") or hasattr(texts, "column_names"):  # a pandas DataFrame, a datasets.Dataset
        raise TypeError(f"texts must be one column of texts, not a whole {type(texts).__name__}: pass data['text'].")
    try:
        iter(texts)
    except TypeError:
        raise TypeError(f"texts must be an iterable of strings; got {type(texts).__name__}.") from None
    return texts
