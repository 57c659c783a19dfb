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

    assert job.start(work, lambda d, t: seen.append(d), finished.append)
    assert not job.start(work, lambda d, t: None, finished.append)  # one at a time
    job.cancel()
    go_on.set()
    job.wait(5)
    assert seen == [1] and finished == ["cancelled"] and not job.running


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
