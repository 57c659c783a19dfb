"""Start a real app server (Jupyter, Voila, marimo, Solara) for a browser test, and stop it with
every process it started."""

from __future__ import annotations

import contextlib
import os
import pathlib
import signal
import socket
import subprocess
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


@contextlib.contextmanager
def serving(args: list[str], port: int, folder: pathlib.Path, env: dict[str, str] | None = None, timeout: float = 90):
    """Run ``args`` in ``folder`` until the server accepts connections on ``port``; stop it (and its
    kernels) when the block ends. Its kernel imports this checkout's attn_widget (and its bundle), not
    an installed one. A server that exits or never listens fails with the end of its log."""
    log_path = folder / "server.log"
    environment = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH", "")])),
        **(env or {}),
    }
    with open(log_path, "wb") as log:
        server = subprocess.Popen(
            args, cwd=folder, env=environment, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            deadline = time.monotonic() + timeout
            while not listening(port):
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(log_path.read_text(errors="replace")[-3000:])
                time.sleep(0.3)
            yield
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
