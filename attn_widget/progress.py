"""Progress reporting for long computations: a notebook-friendly bar, a callback, or nothing."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

ProgressArg = bool | Callable[[float, float], None]


class _Reporter(contextlib.AbstractContextManager):
    """Call as ``report(done, total)``; closes its bar on exit."""

    def __init__(self, callback: Callable[[float, float], None] | None, description: str, bar: bool):
        self._callback = callback
        self._description = description
        self._want_bar = bar
        self._bar: Any = None  # a tqdm bar, made on the first report

    def __call__(self, done: float, total: float) -> None:
        if self._callback is not None:
            self._callback(done, total)
        if self._want_bar and total > 0:
            if self._bar is None:
                from tqdm.auto import tqdm

                # Shown only if the work lasts over a second; updates at most twice a second.
                self._bar = tqdm(total=total, desc=self._description, unit="layer", leave=False, delay=1.0)
            self._bar.update(done - self._bar.n)

    def __exit__(self, *exc) -> None:
        if self._bar is not None:
            self._bar.close()


def progress_reporter(progress: ProgressArg, description: str) -> _Reporter:
    if callable(progress):
        return _Reporter(progress, description, bar=False)
    return _Reporter(None, description, bar=bool(progress))


class WaitingBar(contextlib.AbstractContextManager):
    """A bar saying what work waits for, shown from the first report: call as ``bar(holder, seconds)``."""

    def __init__(self):
        self._bar: Any = None

    def __call__(self, holder: str, seconds: float) -> None:
        description = f"waiting for the model, in use by {holder}"
        if self._bar is None:
            from tqdm.auto import tqdm

            self._bar = tqdm(desc=description, total=None, bar_format="{desc}: {elapsed}", leave=False)
        self._bar.set_description_str(description, refresh=False)
        self._bar.refresh()

    def __exit__(self, *exc) -> None:
        if self._bar is not None:
            self._bar.close()
