"""Run one long computation at a time in a background thread, with progress and cancel.

The kernel stays responsive while flow for a large input is computed, so the view can
show progress and the user can cancel. Cancelling takes effect at the next progress
report (after the current source row); finished layers stay cached.
"""

from __future__ import annotations

import threading
from collections.abc import Callable


class Cancelled(Exception):
    """Raised inside a job's progress callback when the user cancelled it."""


class BackgroundJob:
    """At most one job at a time; ``start`` refuses a second while one runs."""

    def __init__(self):
        self._thread: threading.Thread | None = None
        self._cancel = threading.Event()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(
        self,
        work: Callable[[Callable[[float, float], None]], None],
        on_progress: Callable[[float, float], None],
        on_finish: Callable[[str | None], None],
    ) -> bool:
        """Run ``work(progress)`` in a thread; ``on_finish(error)`` gets None, "cancelled" or a message."""
        if self.running:
            return False
        self._cancel.clear()

        def progress(done: float, total: float) -> None:
            if self._cancel.is_set():
                raise Cancelled
            on_progress(done, total)

        def run() -> None:
            try:
                work(progress)
            except Cancelled:
                on_finish("cancelled")
            except Exception as exc:  # reported in the view, not lost in a thread
                on_finish(f"{type(exc).__name__}: {exc}")
            else:
                on_finish(None)

        self._thread = threading.Thread(target=run, name="attn_widget-job", daemon=True)
        self._thread.start()
        return True

    def cancel(self) -> None:
        self._cancel.set()

    def wait(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)
