"""Borrow a user's model for one capture and hand it back exactly as it was found.

What may change during a capture, and is restored afterwards:
- the attention implementation (switched to eager, the only one that returns weights);
- train/eval mode (eval, so that dropout does not corrupt the weights), per module;
- forward hooks: ours, and the output-capturing hooks transformers v5 installs on a
  model the first time attentions are requested. Hooks the user had are kept.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from torch import nn

from .errors import UnsupportedModelError

# transformers marks a model whose output-capturing hooks are installed with this attribute.
_HOOKS_FLAG = "_output_capturing_hooks_installed"


def _configs(model: nn.Module) -> list:
    """Every distinct config object reachable from the model and its sub-models."""
    seen: dict[int, object] = {}
    for module in model.modules():
        config = getattr(module, "config", None)
        if config is not None and hasattr(config, "_attn_implementation_internal"):
            seen.setdefault(id(config), config)
            for key in getattr(config, "sub_configs", {}) or {}:
                sub = getattr(config, key, None)
                if sub is not None and hasattr(sub, "_attn_implementation_internal"):
                    seen.setdefault(id(sub), sub)
    return list(seen.values())


class _HookSnapshot:
    """The forward (pre-)hook ids of every module, to remove whatever is added later."""

    def __init__(self, model: nn.Module):
        self.modules = [
            (module, set(module._forward_hooks), set(module._forward_pre_hooks), vars(module).get(_HOOKS_FLAG))
            for module in model.modules()
        ]

    def restore(self) -> None:
        for module, hooks, pre_hooks, flag in self.modules:
            for key in set(module._forward_hooks) - hooks:
                del module._forward_hooks[key]
                module._forward_hooks_with_kwargs.pop(key, None)
                module._forward_hooks_always_called.pop(key, None)
            for key in set(module._forward_pre_hooks) - pre_hooks:
                del module._forward_pre_hooks[key]
                module._forward_pre_hooks_with_kwargs.pop(key, None)
            if flag is None:
                vars(module).pop(_HOOKS_FLAG, None)
            else:
                setattr(module, _HOOKS_FLAG, flag)


def uses_eager(model: nn.Module) -> bool:
    """Whether every config of the model (and its sub-models) selects eager attention."""
    return all(config._attn_implementation == "eager" for config in _configs(model))


@contextlib.contextmanager
def borrowed_for_capture(model: nn.Module, eager: bool = True) -> Iterator[None]:
    """Put ``model`` in eval mode (and eager attention unless ``eager=False``); restore
    everything on exit, even on error. Refuses a model that ignores the switch to eager."""
    modes = [(module, module.training) for module in model.modules()]
    implementations = [(config, config._attn_implementation_internal) for config in _configs(model)]
    hooks = _HookSnapshot(model)
    try:
        model.eval()
        if eager and not uses_eager(model):
            model.set_attn_implementation("eager")
            if not uses_eager(model):  # some families keep their implementation and only log a warning
                raise UnsupportedModelError(
                    f"{type(model).__name__} cannot switch to eager attention after loading, and only eager "
                    'attention returns the weights it uses. Load it with attn_implementation="eager", e.g. '
                    f'{type(model).__name__}.from_pretrained(path, attn_implementation="eager").'
                )
        yield
    finally:
        hooks.restore()
        for config, implementation in implementations:
            config._attn_implementation_internal = implementation
        for module, training in modes:
            module.training = training
