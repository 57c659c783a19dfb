"""Trait writes of background work, made on the thread that owns the widget.

In a notebook that thread is the kernel's: it handles the page's messages (a method chosen, a number typed) between
the cells it runs. A background thread writing the same widget's traits at that time races with it (ipywidgets'
``hold_sync`` and traitlets' held notifications are per widget, not per thread; ipykernel 7 routes a comm's replies
by the message it last sent). So background work computes in its thread and hands its writes here: they run on the
kernel's event loop when it is next free, or at once where no loop runs on the owning thread (a script: no page
to race with), or in ``drain`` when the owning thread waits for the work (``AttentionWidget.wait``).
"""

from __future__ import annotations

import asyncio
import collections
import threading
from collections.abc import Callable


class OwnerThread:
    """The thread that built the widget, and the writes queued for it."""

    def __init__(self) -> None:
        self._ident = threading.get_ident()
        try:  # the kernel's loop, running on this thread while it runs a cell
            self._loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            self._loop = None
        self._queue: collections.deque[Callable[[], None]] = collections.deque()
        self._lock = threading.Lock()

    @property
    def here(self) -> bool:
        """Whether the caller runs on the owning thread."""
        return threading.get_ident() == self._ident

    def call(self, write: Callable[[], None]) -> None:
        """Run ``write()`` on the owning thread: now when called there or when no loop runs there, else queued for
        the loop (and for ``drain``), in the order of the calls."""
        if self.here or self._loop is None:
            write()
            return
        with self._lock:
            self._queue.append(write)
        try:
            self._loop.call_soon_threadsafe(self.drain)
        except RuntimeError:  # the loop has closed (its kernel is shutting down): nobody else will run it
            self._run_queued()

    def drain(self) -> None:
        """Run the queued writes; on the owning thread only (elsewhere it does nothing)."""
        if self.here:
            self._run_queued()

    def _run_queued(self) -> None:
        while True:
            with self._lock:
                if not self._queue:
                    return
                write = self._queue.popleft()
            write()
