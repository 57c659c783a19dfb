"""Where the shards are computed: in this process (``"local"``), or by a pool of Ray actors (``"ray"``)
that each load the model once and write their shards themselves (the output directory must be
reachable from every node: a shared file system on a multi-node cluster, see docs/scaling.md)."""

from __future__ import annotations

import importlib
import itertools
import pickle
from collections.abc import Iterable, Iterator

from .batches import as_item
from .worker import Settings, ShardWorker, load

ENGINES = ("local", "ray")
_WINDOW = 512  # batches handed to Ray per dataset: bounds what the driver holds of an endless iterable


def batches(texts: Iterable, batch_size: int) -> Iterator[tuple[int, list[tuple[int, str]]]]:
    """``(batch number, [(index, item), ...])``: the corpus cut into fixed batches, so that batch k is
    always the same texts and a resumed run finds its shards by number; items as ``batches.as_item``."""
    numbered = enumerate(texts)
    for number in itertools.count():
        rows = [(index, as_item(value)) for index, value in itertools.islice(numbered, batch_size)]
        if not rows:
            return
        yield number, rows


Plan = Iterable[tuple[int, list[tuple[int, str]], bool]]  # (batch number, rows, needed): ShardDirectory.plan


def _bar(total: int | None, disable: bool):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc="corpus", unit="text", disable=disable, delay=1.0)


def run_local(model, tokenizer, plan: Plan, settings: Settings, out, total, progress: bool) -> None:
    """Every needed shard, one batch after another, in this process."""
    model, tokenizer = load(model, tokenizer)
    worker = ShardWorker(model, tokenizer, settings)
    with _bar(total, not progress) as bar:
        for number, rows, needed in plan:
            if needed:
                worker.write(out, number, rows)
            bar.update(len(rows))


class _RayWorker:
    """A Ray Data actor: loads the model once, then writes one shard per call."""

    def __init__(self, model_ref, tokenizer, settings: Settings, out: str):
        import ray

        model = ray.get(model_ref[0])  # in a list, so that Ray hands the reference over unresolved
        _register_output_recording(model)
        model, tokenizer = load(model, tokenizer)
        self.worker = ShardWorker(model, tokenizer, settings)
        self.out = out

    def __call__(self, batch: dict) -> dict:
        counts = []
        for number, payload in zip(batch["shard"], batch["rows"], strict=True):
            counts.append(self.worker.write(self.out, int(number), pickle.loads(payload)))
        return {"shard": list(batch["shard"]), "rows": counts}


def _register_output_recording(model) -> None:
    """transformers (5.x) records attentions through a class registry filled in ``PreTrainedModel.__init__``,
    which an unpickled model never runs: in a fresh Ray worker its ``output_attentions`` would come back
    None. Registering the classes (a global table, not the model) restores it; the worker's first batch is
    checked against a single-text capture either way (corpus.batches.BatchRunner)."""
    registry = _output_recording_registry()
    if registry is None:  # a release without the registry: nothing to do
        return
    for module in getattr(model, "modules", list)():
        recorded = getattr(module, "_can_record_outputs", None)
        key = str(module.__class__)  # every release so far keys the table by the class's name
        if recorded and not dict.get(registry, key):
            dict.__setitem__(registry, key, recorded)


def _output_recording_registry() -> dict | None:
    """The registry's home moved: ``transformers.utils.output_capturing`` in recent 5.x releases (a dict
    subclass keyed by model), ``transformers.utils.generic`` in 5.0 (a plain dict)."""
    for home in ("transformers.utils.output_capturing", "transformers.utils.generic"):
        try:
            registry = getattr(importlib.import_module(home), "_CAN_RECORD_REGISTRY", None)
        except ImportError:
            continue
        if isinstance(registry, dict):
            return registry
    return None


def run_ray(model, tokenizer, plan: Plan, settings: Settings, out, total, progress: bool, options) -> None:
    """Every needed shard by ``workers`` Ray actors (``ray.init(address=...)`` unless Ray is running)."""
    try:
        import ray
        import ray.data
    except ImportError as exc:
        raise ImportError("engine='ray' needs Ray Data: pip install 'attn_widget[corpus]'.") from exc
    if not ray.is_initialized():
        ray.init(address=options.get("address"), log_to_driver=False)
    workers = int(options.get("workers") or max(1, int(ray.available_resources().get("CPU", 1))))
    model_ref = [ray.put(model)]
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False
    with _bar(total, not progress) as bar:

        def needed(plan: Plan):
            for number, rows, compute in plan:
                if compute:
                    yield number, rows
                else:
                    bar.update(len(rows))

        pending = needed(plan)
        while window := list(itertools.islice(pending, _WINDOW)):
            items = [{"shard": number, "rows": pickle.dumps(rows)} for number, rows in window]
            dataset = ray.data.from_items(items, override_num_blocks=len(items)).map_batches(
                _RayWorker,
                fn_constructor_args=(model_ref, tokenizer, settings, str(out)),
                batch_size=1,
                compute=ray.data.ActorPoolStrategy(size=min(workers, len(items))),
                num_cpus=options.get("num_cpus", 1),
            )
            for summary in dataset.iter_rows():
                bar.update(int(summary["rows"]))
