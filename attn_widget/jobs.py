"""Run one long computation at a time in a background thread, with progress and cancel.

The kernel stays responsive while flow for a large input or token scores are computed, so
the view can show progress and the user can cancel. Cancelling takes effect at the next
progress report (after the current source row or batch) or while the work waits for the
model (``model_state``); finished layers stay cached.
"""

from __future__ import annotations

import atexit
import contextlib
import threading
import weakref
from collections.abc import Callable, Iterator

from .model_state import waits_reported_to


class Cancelled(Exception):
    """Raised inside a job's progress callback when the user cancelled it."""


_JOBS: weakref.WeakSet[BackgroundJob] = weakref.WeakSet()
_exiting = threading.Event()  # set at exit: no job starts any more (one may start another when it finishes)


@atexit.register
def _stop_at_exit() -> None:
    """Cancel the running jobs and let them stop before the interpreter goes: a thread killed inside a forward
    pass aborts the process (a script that built a widget and ended while it read layers in the background)."""
    _exiting.set()
    jobs = list(_JOBS)
    for job in jobs:
        job.cancel()
    for job in jobs:
        job.wait(30)


class BackgroundJob:
    """At most one job at a time. ``start`` replaces the running job: it is cancelled and
    waited for first, so an old job's callbacks never arrive after the new one's."""

    def __init__(self, writes: contextlib.AbstractContextManager | None = None):
        """writes: held around each progress and wait report (a widget's write lock: its trait writes wait while a
        page's update is set, ``WidgetTraits.hold_trait_notifications``); those reports only write. ``on_finish``
        may publish data, computed first: it takes the lock for its writes itself."""
        _JOBS.add(self)
        self._writes = writes if writes is not None else contextlib.nullcontext()
        self._cancel = threading.Event()
        # Set when the job has finished, callbacks included. Waited for instead of joining the
        # thread: a join interrupted by Ctrl-C marks a running thread as stopped (CPython 3.11).
        self._finished = threading.Event()
        self._finished.set()

    @property
    def running(self) -> bool:
        return not self._finished.is_set()

    def start(
        self,
        work: Callable[[Callable[[float, float], None]], None],
        on_progress: Callable[[float, float], None],
        on_finish: Callable[[str | None], None],
        on_wait: Callable[[str], None] | None = None,
    ) -> None:
        """Run ``work(progress)`` in a thread; ``on_finish(error)`` gets None, "cancelled" or a message.

        on_wait: told what holds the model while the work waits for it.
        """
        self.stop()
        if _exiting.is_set():
            return
        # This job's own events: a late cancel cannot hit the next job.
        cancel, finished = threading.Event(), threading.Event()
        self._cancel, self._finished = cancel, finished

        def check_cancel() -> None:
            if cancel.is_set():
                raise Cancelled

        def progress(done: float, total: float) -> None:
            check_cancel()
            with self._writes:
                on_progress(done, total)

        def waiting(holder: str, _seconds: float) -> None:
            check_cancel()
            if on_wait is not None:
                with self._writes:
                    on_wait(holder)

        def run() -> None:
            try:
                with waits_reported_to(waiting):
                    work(progress)
            except Cancelled:
                on_finish("cancelled")
            except Exception as exc:  # reported in the view, not lost in a thread
                on_finish(f"{type(exc).__name__}: {exc}")
            else:
                on_finish(None)
            finally:
                finished.set()

        threading.Thread(target=run, name="attn_widget-job", daemon=True).start()

    def cancel(self) -> None:
        """Ask the running job to stop at its next progress report; returns at once."""
        self._cancel.set()

    def wait(self, timeout: float | None = None) -> None:
        self._finished.wait(timeout)

    def stop(self) -> None:
        """Cancel the running job and wait until it has stopped."""
        self.cancel()
        self.wait()


@contextlib.contextmanager
def cancelled_on_interrupt(*jobs: BackgroundJob) -> Iterator[None]:
    """Ctrl-C in this block cancels the jobs and waits until they have stopped (so their
    state says cancelled) before it goes on as KeyboardInterrupt."""
    try:
        yield
    except KeyboardInterrupt:
        for job in jobs:
            job.cancel()
        for job in jobs:
            job.wait()
        raise
