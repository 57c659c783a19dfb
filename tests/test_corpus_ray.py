"""engine="ray" on a real local Ray (two CPUs, one session for the module): the same rows as the local
engine; an item no worker can unpickle is one bad row; a worker process killed midway loses no text and
repeats none; a whole run killed midway (its
driver process) resumes without losing or repeating a text."""

from __future__ import annotations

import os
import pathlib
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
from corpus_helpers import SlowTinyBert
from tiny_models import tiny_model

from attn_widget.corpus import STATISTICS, CorpusResult, analyze_corpus

ray = pytest.importorskip("ray")
pytestmark = pytest.mark.ray

TESTS = pathlib.Path(__file__).parent
WORDS = "the cat sat on mat and dog ran to big red house".split()
TEXTS = [" ".join(WORDS[(i * 7 + k) % len(WORDS)] for k in range(3 + i % 9)) for i in range(40)] + ["", 7]


PATH = os.pathsep.join([str(TESTS.parent), str(TESTS), os.environ.get("PYTHONPATH", "")])


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    """One local Ray for the module. Its processes start with this checkout and tests/ (the helpers) on
    PYTHONPATH, so that the workers of every job, another process's too, import them."""
    if ray.is_initialized():
        ray.shutdown()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTHONPATH", PATH)
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def assert_same_rows(found, expected):
    assert found.texts["index"].tolist() == list(range(len(TEXTS)))
    assert found.texts["text"].tolist() == expected.texts["text"].tolist()
    assert found.texts["error"].fillna("").tolist() == expected.texts["error"].fillna("").tolist()
    for name in STATISTICS:
        np.testing.assert_allclose(found.values(name), expected.values(name), atol=1e-12, rtol=0, err_msg=name)


def test_ray_gives_the_rows_of_the_local_engine(tokenizer, tmp_path):
    model = tiny_model("bert")
    local = analyze_corpus(model, TEXTS, tokenizer, batch_size=4, progress=False)
    distributed = analyze_corpus(
        model, TEXTS, tokenizer, engine="ray", workers=2, out=tmp_path, batch_size=4, progress=False
    )
    assert_same_rows(distributed, local)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []  # no temporary file left


def test_an_item_of_a_notebook_class_is_one_bad_row(tokenizer, tmp_path, monkeypatch):
    """In a notebook a class lives in ``__main__``, which no Ray worker can import: an item of such a class is
    reported in its row, as with the local engine, and the run goes on (it used to abort the whole run)."""
    note = type("Note", (), {"__module__": "__main__", "__qualname__": "Note"})
    monkeypatch.setattr(sys.modules["__main__"], "Note", note, raising=False)
    texts = [*TEXTS[:5], note(), TEXTS[5]]
    found = analyze_corpus(
        tiny_model("bert"), texts, tokenizer, engine="ray", workers=2, out=tmp_path, batch_size=4, progress=False
    )
    local = analyze_corpus(tiny_model("bert"), texts, tokenizer, batch_size=4, progress=False)
    assert found.texts["error"].fillna("").tolist() == [""] * 5 + ["text must be a string; got Note.", ""]
    assert found.texts["error"].fillna("").tolist() == local.texts["error"].fillna("").tolist()
    np.testing.assert_allclose(found.values("entropy"), local.values("entropy"), atol=1e-12, rtol=0)


def test_a_killed_worker_loses_no_text_and_repeats_none(tokenizer, tmp_path):
    pids, out = tmp_path / "pids", tmp_path / "out"
    pids.mkdir()
    loader = SlowTinyBert(str(pids), delay=0.4)
    failure: list[BaseException] = []

    def run():
        try:
            analyze_corpus(loader, TEXTS, engine="ray", workers=2, out=out, batch_size=2, progress=False)
        except BaseException as exc:  # the run may fail, or Ray may restart the actor and finish
            failure.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.monotonic() + 120
    while len(list(out.glob("part-*.parquet"))) < 3 and time.monotonic() < deadline:
        time.sleep(0.1)
    started = sorted(int(p.name) for p in pids.iterdir())
    assert started, "no Ray worker started"
    os.kill(started[0], signal.SIGKILL)  # a worker process this test's run started
    thread.join(timeout=240)
    assert not thread.is_alive()
    # Ray restarts the actor and retries its batch; should the run fail instead, a rerun finishes it
    # (test_a_killed_run_resumes_without_losing_or_repeating_a_text kills a whole run).
    found = (
        CorpusResult(out)
        if not failure
        else analyze_corpus(loader, TEXTS, engine="ray", workers=2, out=out, batch_size=2, progress=False)
    )
    assert_same_rows(found, analyze_corpus(tiny_model("bert"), TEXTS, tokenizer, batch_size=2, progress=False))
    assert len(list(out.glob("part-*.parquet"))) == (len(TEXTS) + 1) // 2
    print(f"killed worker {started[0]}; run {'failed: ' + repr(failure[0])[:80] if failure else 'finished'}")


DRIVER = """
import sys
sys.path[:0] = sys.argv[1].split({sep!r})
from corpus_helpers import SlowTinyBert
from attn_widget.corpus import analyze_corpus
texts = {texts!r}
loader, address, out = SlowTinyBert(sys.argv[3], 0.4), sys.argv[2], sys.argv[4]
analyze_corpus(loader, texts, engine="ray", address=address, workers=2, out=out, batch_size=2, progress=False)
"""


def test_a_killed_run_resumes_without_losing_or_repeating_a_text(tokenizer, tmp_path):
    """The whole run dies (its driver process, joined to the running cluster with ``address=``, killed as a
    crash or a closed terminal would): Ray ends its actors, shards in flight are lost, a rerun finishes the rest."""
    pids, out = tmp_path / "pids", tmp_path / "out"
    pids.mkdir()
    script = DRIVER.format(sep=os.pathsep, texts=TEXTS)
    address = ray.get_runtime_context().gcs_address
    driver = subprocess.Popen([sys.executable, "-c", script, PATH, address, str(pids), str(out)])
    try:
        deadline = time.monotonic() + 120
        while len(list(out.glob("part-*.parquet"))) < 3 and time.monotonic() < deadline and driver.poll() is None:
            time.sleep(0.1)
        assert driver.poll() is None, "the run ended before it could be killed"
        driver.kill()
        driver.wait(timeout=30)
    finally:
        if driver.poll() is None:
            driver.kill()
    killed_with = sorted(int(p.name.split("-")[1].split(".")[0]) for p in out.glob("part-*.parquet"))
    assert 3 <= len(killed_with) < (len(TEXTS) + 1) // 2, killed_with
    (out / ".part-000020.parquet.4242-deadbeef.tmp").write_bytes(b"PAR1")  # as a write cut short by the kill leaves
    resumed = analyze_corpus(
        SlowTinyBert(str(pids), 0.0), TEXTS, engine="ray", workers=2, out=out, batch_size=2, progress=False
    )
    assert_same_rows(resumed, analyze_corpus(tiny_model("bert"), TEXTS, tokenizer, batch_size=2, progress=False))
    assert len(list(out.glob("part-*.parquet"))) == (len(TEXTS) + 1) // 2
    assert not [p.name for p in out.iterdir() if p.name.startswith(".")]  # no temporary left by the killed run
    print(f"killed the run with shards {killed_with} written")
