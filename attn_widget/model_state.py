"""Borrow a user's model for one piece of work and hand it back exactly as it was found.

What may change during a borrow, and is restored afterwards:
- the attention implementation (switched to eager, the only one that returns weights);
- train/eval mode (eval, so that dropout does not corrupt the weights), per module;
- forward hooks: ours, and the output-capturing hooks transformers v5 installs on a
  model the first time attentions are requested. Hooks the user had are kept.

One owner at a time: every borrow takes the model's own lock (re-entrant, first come first
served), so work in several threads (widgets built on one model while token scores run in
the background) never runs in another's switched state or fires another's hooks, and the
state restored is the one the outermost borrow found. A borrow that has to wait says so:
through the callback of ``waits_reported_to`` (a widget's status), else with a progress bar.
"""

from __future__ import annotations

import collections
import contextlib
import threading
import time
import weakref
from collections.abc import Callable, Iterator

from torch import nn

from . import progress
from .errors import UnsupportedModelError

# transformers marks a model whose output-capturing hooks are installed with this attribute.
_HOOKS_FLAG = "_output_capturing_hooks_installed"
# How often a borrow that waits for the model reports it (and may give up, when cancelled).
_REPORT_EVERY = 0.25  # seconds

WaitReport = Callable[[str, float], None]  # (what holds the model, seconds waited so far)


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


class _ModelLock:
    """Re-entrant and first come first served: work that releases the model between batches
    (integrated gradients) lets waiting work in, instead of taking it straight back."""

    def __init__(self):
        self._changed = threading.Condition()
        self._owner: int | None = None
        self._depth = 0
        self._queue: collections.deque[int] = collections.deque()  # waiting threads, in arrival order
        self._holder = ""  # what holds the model, for the waiting ones to say

    def acquire(self, purpose: str, on_wait: WaitReport) -> None:
        """Wait for the model; ``on_wait`` is called every ``_REPORT_EVERY`` s meanwhile, and may raise to give up."""
        me = threading.get_ident()
        with self._changed:
            if self._owner == me:
                self._depth += 1
                return
            self._queue.append(me)
        started = time.monotonic()
        try:
            while True:
                with self._changed:
                    if self._changed.wait_for(lambda: self._owner is None and self._queue[0] == me, _REPORT_EVERY):
                        self._queue.popleft()
                        self._owner, self._depth = me, 1
                        self._holder = f"{purpose} (thread {threading.current_thread().name!r})"
                        return
                    holder = self._holder
                on_wait(holder, time.monotonic() - started)  # outside the lock: it may update a widget
        except BaseException:  # given up (cancelled, Ctrl-C): let the next in line have it
            with self._changed:
                if me in self._queue:
                    self._queue.remove(me)
                self._changed.notify_all()
            raise

    def depth_here(self) -> int:
        """How many times this thread holds the lock (0: not at all)."""
        return self._depth if self._owner == threading.get_ident() else 0

    def release(self) -> None:
        with self._changed:
            self._depth -= 1
            if self._depth == 0:
                self._owner = None
                self._changed.notify_all()


_locks: weakref.WeakKeyDictionary[nn.Module, _ModelLock] = weakref.WeakKeyDictionary()
_locks_guard = threading.Lock()
_reporting = threading.local()


def _lock_for(model: nn.Module) -> _ModelLock:
    with _locks_guard:
        if model not in _locks:
            _locks[model] = _ModelLock()
        return _locks[model]


@contextlib.contextmanager
def waits_reported_to(on_wait: WaitReport) -> Iterator[None]:
    """In this block, borrows in this thread that wait for the model call ``on_wait(holder, seconds)``
    (every quarter second) instead of showing a progress bar; ``on_wait`` may raise to stop waiting."""
    previous = getattr(_reporting, "on_wait", None)
    _reporting.on_wait = on_wait
    try:
        yield
    finally:
        _reporting.on_wait = previous


def uses_eager(model: nn.Module) -> bool:
    """Whether every config of the model (and its sub-models) selects eager attention."""
    return uses_implementation(model, "eager")


def uses_implementation(model: nn.Module, name: str) -> bool:
    """Whether every config of the model (and its sub-models) selects the attention implementation ``name``."""
    return all(config._attn_implementation == name for config in _configs(model))


@contextlib.contextmanager
def borrowed_for_capture(model: nn.Module, purpose: str = "attention capture", eager: bool = True) -> Iterator[None]:
    """Own ``model`` (waiting for other work on it to finish), put it in eval mode with eager
    attention (unless ``eager=False``); restore everything on exit, even on error. Refuses a
    model that ignores the switch to eager.

    purpose: what the borrow is for, shown to work that waits meanwhile.
    """
    lock = _lock_for(model)
    depth = lock.depth_here()
    on_wait = getattr(_reporting, "on_wait", None)
    try:
        with contextlib.nullcontext(on_wait) if on_wait else progress.WaitingBar() as report:
            lock.acquire(purpose, report)
        # Taken under the lock: the outermost borrow sees the model as its user left it.
        modes = [(module, module.training) for module in model.modules()]
        implementations = [(config, config._attn_implementation_internal) for config in _configs(model)]
        hooks = _HookSnapshot(model)
        try:
            model.eval()
            if eager and not uses_eager(model):
                model.set_attn_implementation("eager")  # type: ignore[operator]  # a transformers model
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
    finally:
        if lock.depth_here() > depth:  # acquired, even if Ctrl-C came right after: never left locked
            lock.release()
