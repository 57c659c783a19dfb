"""The background job runner: one at a time, progress, cancel, errors."""

from __future__ import annotations

import threading

from attn_widget.jobs import BackgroundJob


def test_progress_then_cancel():
    job = BackgroundJob()
    go_on = threading.Event()
    seen, finished = [], []

    def work(progress):
        progress(1, 3)
        go_on.wait(5)
        progress(2, 3)  # raises Cancelled: the job was cancelled meanwhile
        progress(3, 3)

    job.start(work, lambda d, t: seen.append(d), finished.append)
    job.cancel()
    go_on.set()
    job.wait(5)
    assert seen == [1] and finished == ["cancelled"] and not job.running


def test_a_new_job_replaces_the_running_one():
    """The first job is cancelled and has finished before the second reports anything."""
    job = BackgroundJob()
    started = threading.Event()
    events = []

    def first(progress):
        while True:  # stops only when cancelled
            progress(1, 2)

    job.start(first, lambda d, t: (events.append("first running"), started.set()), events.append)
    started.wait(5)
    job.start(lambda progress: progress(1, 1), lambda d, t: events.append("second running"), events.append)
    job.wait(5)
    assert events[-3:] == ["cancelled", "second running", None] and "second running" not in events[:-2]


def test_errors_are_reported_not_lost():
    job = BackgroundJob()
    finished = []

    def work(progress):
        raise ValueError("bad layer")

    job.start(work, lambda d, t: None, finished.append)
    job.wait(5)
    assert finished == ["ValueError: bad layer"]
    job.start(lambda progress: progress(1, 1), lambda d, t: None, finished.append)
    job.wait(5)
    assert finished[-1] is None
