"""Find, by structure, where a model computes its value vectors and its attention output.

An attention *site* is one self-attention block: the module whose output holds the value
vectors (a value projection, or a fused query/key/value projection) and the output
projection that receives the heads' outputs. Sites are found from the module names that
transformers families use; nothing here is trusted: ``verify.py`` checks at capture time
that every layer's heads, A·V, reproduce what the output projection received, and that
the projection's weights reproduce its output. A site may run several times in one
forward pass (ALBERT shares one layer): calls are matched to layers in call order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import torch
from torch import nn

# Last component of a value projection's name, and of a fused query/key/value projection's.
VALUE_NAMES = ("value", "v_proj", "v", "v_lin", "value_proj", "Wv")
FUSED_NAMES = ("c_attn", "query_key_value", "qkv_proj", "Wqkv", "qkv", "in_proj", "W_pack")
# Output projections, relative to the value projection's parent or grandparent.
OUTPUT_NAMES = ("o_proj", "out_proj", "c_proj", "dense", "o", "out_lin", "Wo", "output.dense")
# A site lives under a module whose name mentions attention; cross-attention is not self-attention.
_ATTENTION_PART = re.compile(r"att", re.IGNORECASE)
_CROSS_PART = re.compile(r"cross|encdec|encoder_attn", re.IGNORECASE)


@dataclass(frozen=True)
class Site:
    """One self-attention block's value and output projections."""

    name: str  # dotted name of the value (or fused QKV) projection
    value: nn.Module
    fused: bool  # the value projection also computes queries and keys
    output: nn.Module
    block: nn.Module  # the value projection's parent: the attention module itself

    @property
    def value_bias(self) -> torch.Tensor | None:
        """A value bias kept beside the projection rather than in it (DeBERTa v1's ``v_bias``)."""
        bias = getattr(self.block, "v_bias", None)
        return bias.detach() if isinstance(bias, torch.Tensor) else None

    @property
    def declared_causal(self) -> bool | None:
        """The attention module's own ``is_causal`` flag, where it has one."""
        flag = getattr(self.block, "is_causal", None)
        return flag if isinstance(flag, bool) else None


def _is_projection(module: nn.Module) -> bool:
    weight = getattr(module, "weight", None)
    return isinstance(weight, torch.Tensor) and weight.dim() == 2


def _child(root: nn.Module, dotted: str) -> nn.Module | None:
    module: nn.Module | None = root
    for part in dotted.split("."):
        module = module._modules.get(part) if isinstance(module, nn.Module) else None
        if module is None:
            return None
    return module


def find_sites(model: nn.Module, cross: bool = False) -> list[Site]:
    """Every self-attention site of ``model``, in module order (one per distinct block); with ``cross=True``
    every cross-attention site instead (an encoder-decoder's decoder: T5's ``EncDecAttention``, BART's
    ``encoder_attn``), whose value projection reads the encoder's output."""
    modules = dict(model.named_modules())
    sites = []
    for name, module in modules.items():
        *parents, last = name.split(".")
        if last not in VALUE_NAMES + FUSED_NAMES or not parents or not _is_projection(module):
            continue
        if not any(_ATTENTION_PART.search(p) for p in parents) or any(_CROSS_PART.search(p) for p in parents) != cross:
            continue
        block_name = ".".join(parents)
        output = _output_projection(modules, block_name, module)
        if output is not None:
            sites.append(Site(name, module, last in FUSED_NAMES, output, modules[block_name]))
    return sites


def _output_projection(modules: dict[str, nn.Module], block_name: str, value: nn.Module) -> nn.Module | None:
    """The output projection beside the value projection, or one level up (BERT's ``output.dense``)."""
    scopes = [block_name]
    if "." in block_name:
        scopes.append(block_name.rsplit(".", 1)[0])
    for scope in scopes:
        for candidate in OUTPUT_NAMES:
            found = _child(modules[scope], candidate)
            if found is not None and found is not value and _is_projection(found):
                return found
    return None
