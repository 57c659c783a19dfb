"""Picklable model loaders for the Ray tests: each Ray actor imports this module (tests/ is on the
workers' PYTHONPATH) and calls the loader once."""

from __future__ import annotations

import os
import pathlib
import time

from tiny_models import tiny_model, tiny_tokenizer


class SlowTinyBert:
    """Loads the tiny float64 BERT; each forward pass sleeps ``delay`` s (so that a run lasts long enough
    to kill a worker midway), and the worker writes its process id under ``pids`` (to be killed by it)."""

    def __init__(self, pids: str, delay: float):
        self.pids, self.delay = pids, delay

    def __call__(self):
        pathlib.Path(self.pids, str(os.getpid())).touch()
        model = tiny_model("bert")
        model.register_forward_pre_hook(lambda *_: time.sleep(self.delay))
        return model, tiny_tokenizer()
