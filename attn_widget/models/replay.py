"""Record each transformer block's call in one forward pass, and re-run one block on a batch.

A *block* is the outermost ancestor of a site's attention module that is an item of a
``ModuleList`` and holds exactly one attention site: ``BertLayer``, ``GPT2Block``,
``LlamaDecoderLayer``, T5's ``T5Block`` (not its inner ``T5LayerSelfAttention``, also a
list item, which would leave out the feed-forward part), ALBERT's shared layer group.
Blocks are matched to layers in call order, as the capture matches sites.

Re-running a block on a batch of ``B`` edited copies of its input needs its other
arguments for a batch: masks ``(1, 1, n, n)`` and rotary ``(cos, sin)`` ``(1, n, d_r)``
usually broadcast as they are; where they do not (BLOOM's ALiBi is ``(B·H, 1, n)``) every
tensor of two or more dimensions is tiled ``B`` times along its first one. Caches are
dropped. Nothing is trusted: ``BlockReplay.check`` re-runs the block unmodified on two
copies and requires the recorded output back, trying the plain arguments first and the
tiled ones next; a block that passes neither cannot be replayed (``ReplayError``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import torch
from torch import nn

from ..errors import UnsupportedModelError
from ..model_state import borrowed_for_capture
from .sites import Site, find_sites

# Relative error allowed between a block's recorded output and its replay on a batch, by dtype
# (batched kernels round differently; Llama-like eager attention takes its softmax in float32
# even in float64 models). A wrong mask or position gives errors of order 1.
_TOLERANCE = {torch.float64: 1e-6, torch.float32: 1e-4, torch.bfloat16: 5e-2, torch.float16: 1e-2}
# Keyword arguments that carry a key/value cache, set to None on replay; use_cache is switched off.
_CACHE_KWARGS = ("past_key_value", "past_key_values", "layer_past")


class ReplayError(UnsupportedModelError):
    """A model whose blocks attn_widget cannot record or re-run on a batch (one sentence why)."""


@dataclass
class BlockCall:
    """One call of one block during the recorded forward pass (layer ``index + 1``).

    ``inputs`` ``(n, d)`` and ``output`` ``(n, d)`` are the block's hidden states in and out;
    ``value_output`` ``(n, w)`` is what the site's value (or fused QKV) projection returned.
    """

    index: int
    block: nn.Module
    site: Site
    args: tuple
    kwargs: dict
    slot: int | str  # where the hidden states go: a position in args, or a keyword
    inputs: torch.Tensor
    output: torch.Tensor
    value_output: torch.Tensor | None = None
    tiled: bool = field(default=False)  # the arguments must be tiled to the batch (found by ``check``)


def tolerance(dtype: torch.dtype) -> float:
    return _TOLERANCE.get(dtype, 1e-4)


def _first(output):
    return output[0] if isinstance(output, (tuple, list)) else output


def find_blocks(model: nn.Module, sites: list[Site] | None = None) -> list[tuple[nn.Module, Site]]:
    """``(block, site)`` for every attention site, in module order; ``ReplayError`` if a site has none."""
    sites = find_sites(model) if sites is None else sites
    names = {id(module): name for name, module in model.named_modules()}
    modules = dict(model.named_modules())
    found = []
    for site in sites:
        block = _block_of(modules, names[id(site.block)], sites)
        if block is None:
            raise ReplayError(
                f"{type(model).__name__}'s attention module {names[id(site.block)]!r} is not inside a list of "
                "transformer blocks, so attn_widget cannot re-run its layer alone."
            )
        found.append((block, site))
    return found


def _block_of(modules: dict[str, nn.Module], attention_name: str, sites: list[Site]) -> nn.Module | None:
    """The outermost list item above (or at) the attention module that holds only this one site."""
    parts = attention_name.split(".")
    for end in range(1, len(parts) + 1):  # outermost first
        parent, name = ".".join(parts[: end - 1]), ".".join(parts[:end])
        if not isinstance(modules.get(parent) if parent else None, nn.ModuleList):
            continue
        inside = [s for s in sites if any(m is s.value for m in modules[name].modules())]
        if len(inside) == 1:
            return modules[name]
    return None


class _Recorder:
    """Hooks that record, in call order, every block call and every value projection output."""

    def __init__(self, pairs: list[tuple[nn.Module, Site]]):
        self.pairs = pairs
        self.calls: list[dict] = []
        self.values: list[torch.Tensor] = []

    def install(self) -> list:
        handles = []
        for block, site in {id(b): (b, s) for b, s in self.pairs}.values():  # a shared block is hooked once
            handles.append(block.register_forward_pre_hook(self._before(block, site), with_kwargs=True))
            handles.append(block.register_forward_hook(self._after))
            handles.append(site.value.register_forward_hook(self._value))
        return handles

    def _before(self, block, site):
        def hook(_module, args, kwargs):
            call = {"block": block, "site": site, "args": args, "kwargs": dict(kwargs), "values": len(self.values)}
            self.calls.append(call)

        return hook

    def _after(self, _module, _args, output):
        self.calls[-1]["output"] = _first(output).detach()
        self.calls[-1]["values_after"] = len(self.values)

    def _value(self, _module, _inputs, output):
        self.values.append(_first(output).detach())


def record_blocks(model: nn.Module, model_inputs: dict, n_layers: int) -> list[BlockCall]:
    """Run ``model`` once on ``model_inputs`` (batch of one) and return one ``BlockCall`` per layer.

    Call under ``borrowed_for_capture`` (eager attention, eval mode): the recorded masks
    are the eager ones. Raises ``ReplayError`` if the calls do not match the layers.
    """
    name = type(model).__name__
    recorder = _Recorder(find_blocks(model))
    handles = recorder.install()
    try:
        with torch.no_grad():
            model(**model_inputs)
    finally:
        for handle in handles:
            handle.remove()
    if len(recorder.calls) != n_layers or any("output" not in c for c in recorder.calls):
        raise ReplayError(
            f"{name}'s transformer blocks ran {len(recorder.calls)} times for {n_layers} attention layers, so "
            "attn_widget cannot tell which call is which layer."
        )
    return [_block_call(index, call, recorder.values, name) for index, call in enumerate(recorder.calls)]


def _block_call(index: int, call: dict, values: list[torch.Tensor], name: str) -> BlockCall:
    args, kwargs = call["args"], call["kwargs"]
    slot, hidden = _hidden_slot(args, kwargs)
    projected = values[call["values"] : call["values_after"]]
    if hidden is None or len(projected) != 1 or call["output"].shape != hidden.shape or hidden.shape[0] != 1:
        raise ReplayError(
            f"{name}'s layer {index + 1} block does not take and return the hidden states as one (1, n, d) "
            "tensor with one value projection inside, so attn_widget cannot re-run it alone."
        )
    value_output = projected[0]
    return BlockCall(
        index=index,
        block=call["block"],
        site=call["site"],
        args=args,
        kwargs=kwargs,
        slot=slot,
        inputs=hidden.detach()[0],
        output=call["output"][0],
        value_output=value_output.reshape(hidden.shape[1], -1) if value_output.numel() % hidden.shape[1] == 0 else None,
    )


def _hidden_slot(args: tuple, kwargs: dict) -> tuple[int | str, torch.Tensor | None]:
    if args and isinstance(args[0], torch.Tensor):
        return 0, args[0]
    hidden = kwargs.get("hidden_states")
    return "hidden_states", hidden if isinstance(hidden, torch.Tensor) else None


def _is_cache(value) -> bool:
    return type(value).__name__.endswith("Cache") or any(c.__name__ == "Cache" for c in type(value).__mro__)


def _batched(value, batch: int, tile: bool):
    """``value`` for a batch of ``batch``: tensors of 2+ dims tiled along dim 0 if ``tile``; caches dropped."""
    if isinstance(value, torch.Tensor):
        return value.repeat(batch, *([1] * (value.dim() - 1))) if tile and value.dim() >= 2 else value
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return tuple(_batched(v, batch, tile) for v in value)
    if isinstance(value, list):
        return [_batched(v, batch, tile) for v in value]
    if _is_cache(value):
        return None
    return value


def run_block(call: BlockCall, hidden: torch.Tensor, tile: bool | None = None) -> torch.Tensor:
    """The block of ``call`` on ``hidden`` ``(B, n, d)``, with its recorded other arguments.

    Returns ``(B, n, d)``. Run under ``borrowed_for_capture`` and ``torch.no_grad``.
    """
    tile = call.tiled if tile is None else tile
    batch = hidden.shape[0]
    args = [_batched(a, batch, tile) for a in call.args]
    kwargs = {k: (None if k in _CACHE_KWARGS else _batched(v, batch, tile)) for k, v in call.kwargs.items()}
    if "use_cache" in kwargs:
        kwargs["use_cache"] = False
    hidden = hidden.clone()  # a block may write into its input; the recorded one must stay intact
    if isinstance(call.slot, int):
        args[call.slot] = hidden
    else:
        kwargs[call.slot] = hidden
    return _first(call.block(*args, **kwargs))


def relative_error(result: torch.Tensor, expected: torch.Tensor) -> float:
    """The largest ``‖result[b] − expected‖ / ‖expected‖`` over copies ``b``, in float64.

    result: ``(B, n, d)``; expected: ``(n, d)``.
    """
    expected = expected.to(result.device, torch.float64)
    diff = (result.double() - expected).flatten(1).norm(dim=1)
    return float(diff.max() / expected.norm().clamp(min=1e-300))


def check(call: BlockCall, tolerance: float, model_name: str) -> None:
    """Find how the block's arguments reach a batch (as recorded, else tiled) such that two
    unmodified copies give the recorded output back; ``ReplayError`` if neither does."""
    hidden = call.inputs.unsqueeze(0).expand(2, -1, -1)
    errors = []
    for tile in (False, True):
        try:
            error = relative_error(run_block(call, hidden, tile), call.output)
        except (RuntimeError, ValueError, IndexError, TypeError) as exc:  # shapes that do not broadcast
            errors.append(f"{type(exc).__name__}")
            continue
        if error <= tolerance:
            call.tiled = tile
            return
        errors.append(f"relative error {error:.2g}")
    raise ReplayError(
        f"{model_name}'s layer {call.index + 1} block, re-run on a batch of copies of its input, does not give "
        f"back the output it computed ({', '.join(errors)}), so attn_widget cannot re-run its layers alone."
    )


@contextlib.contextmanager
def hooked(module: nn.Module, hook: Callable) -> Iterator[None]:
    """``module`` with a forward hook for the duration of the block."""
    handle = module.register_forward_hook(hook)
    try:
        yield
    finally:
        handle.remove()


def record_and_check(
    model: nn.Module, model_inputs: dict, n_layers: int, tolerance: float, eager: bool = True
) -> list[BlockCall]:
    """``record_blocks`` and ``check`` of every layer, under one borrow of the model (eager attention, or the
    model's own when ``eager`` is False)."""
    with borrowed_for_capture(model, "recording transformer blocks", eager=eager):
        calls = record_blocks(model, model_inputs, n_layers)
        with torch.no_grad():
            for call in calls:
                check(call, tolerance, type(model).__name__)
    return calls
