"""What an adapter knows about one architecture family: where the value and output
projections live and how their weights split into heads (methods.md section 0.3)."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn


@dataclass(frozen=True)
class HeadGeometry:
    """Head counts and widths of one model."""

    n_heads: int
    n_kv_heads: int
    head_dim: int
    hidden_size: int

    @property
    def group_size(self) -> int:
        """Query heads per key/value group (1 unless GQA/MQA)."""
        return self.n_heads // self.n_kv_heads

    def kv_group(self) -> torch.Tensor:
        """``(H,)`` long: the KV group g(h) = h // (H / H_kv) of every query head (HF ``repeat_kv``)."""
        return torch.arange(self.n_heads) // self.group_size


def sliding_windows(config, n_layers: int) -> list[int | None]:
    """Per layer, the sliding-window width, or None for full attention (any model family)."""
    window = getattr(config, "sliding_window", None)
    if window is None:
        return [None] * n_layers
    layer_types = getattr(config, "layer_types", None)
    if layer_types is None:
        return [int(window)] * n_layers
    return [int(window) if t == "sliding_attention" else None for t in layer_types]


def _attr_path(root: nn.Module, path: str) -> nn.Module:
    module = root
    for name in path.split("."):
        module = getattr(module, name)
    return module


@dataclass(frozen=True)
class Adapter:
    """An architecture family whose value and output projections are ``nn.Linear``.

    Paths are dotted attribute names: ``layers`` relative to ``model.base_model``,
    ``value`` and ``output`` relative to one layer.
    """

    family: str
    model_types: tuple[str, ...]
    layers: str
    value: str
    output: str
    always_causal: bool

    def layer_modules(self, model: nn.Module) -> list[nn.Module]:
        return list(_attr_path(model.base_model, self.layers))

    def value_module(self, layer: nn.Module) -> nn.Module:
        return _attr_path(layer, self.value)

    def output_module(self, layer: nn.Module) -> nn.Module:
        return _attr_path(layer, self.output)

    def is_causal(self, config) -> bool:
        return self.always_causal or bool(getattr(config, "is_decoder", False))

    def geometry(self, config) -> HeadGeometry:
        n_heads = int(config.num_attention_heads)
        hidden = int(config.hidden_size)
        head_dim = getattr(config, "head_dim", None) or hidden // n_heads
        n_kv = getattr(config, "num_key_value_heads", None) or n_heads
        return HeadGeometry(n_heads, int(n_kv), int(head_dim), hidden)

    def split_values(self, projected: torch.Tensor, geo: HeadGeometry) -> torch.Tensor:
        """Value-projection output ``(n, H_kv * d_h)`` → value vectors ``(H_kv, n, d_h)``, bias included."""
        n = projected.shape[0]
        return projected.reshape(n, geo.n_kv_heads, geo.head_dim).transpose(0, 1)

    def output_slices(self, module: nn.Module, geo: HeadGeometry) -> tuple[torch.Tensor, torch.Tensor]:
        """Per-head output projection ``W_O`` ``(H, d_h, d)`` and bias ``b_O`` ``(d,)``.

        ``nn.Linear`` stores ``(out, in)`` = ``(d, H·d_h)``; head h owns columns
        ``h·d_h:(h+1)·d_h``, transposed so that the head's output is ``A V W_O[h]``.
        """
        weight = module.weight.detach()
        w = weight.reshape(geo.hidden_size, geo.n_heads, geo.head_dim).permute(1, 2, 0)
        return w, _bias(module, geo.hidden_size, weight)


def _bias(module: nn.Module, width: int, like: torch.Tensor) -> torch.Tensor:
    bias = getattr(module, "bias", None)
    if bias is None:
        return torch.zeros(width, dtype=like.dtype, device=like.device)
    return bias.detach()
