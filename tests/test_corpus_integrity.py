"""Corpus results are never stale or silently corrupt: fault injection on the shards of a finished run
(truncated, footer broken, replaced by a folder, 64 bytes flipped with the footer intact), another corpus
or a shorter one resumed in the same folder, a damaged ``corpus.json``, bad grid selections. Each damage
is named (reading the result names the shard; resuming warns and computes it again), nothing stale is
returned, and the resumed run equals an uninterrupted one. (A killed Ray worker: tests/test_corpus_ray.py.)"""

from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pyarrow.parquet
import pytest
from tiny_models import tiny_model

from attn_widget.corpus import STATISTICS, CorpusResult, CorpusWidget, analyze_corpus
from attn_widget.corpus.integrity import DamagedShardError

pyarrow = pytest.importorskip("pyarrow")
pandas = pytest.importorskip("pandas")

WORDS = "the cat sat on mat and dog ran to big red house".split()
TEXTS = [" ".join(WORDS[(i * 5 + k) % len(WORDS)] for k in range(2 + i % 7)) for i in range(20)]
SHARD = "part-000002.parquet"  # texts 8-11 with batch_size=4


@pytest.fixture(scope="module")
def model():
    return tiny_model("bert")


@pytest.fixture(scope="module")
def whole(model, tmp_path_factory):
    """The uninterrupted run every damaged and resumed one must equal."""
    from tiny_models import tiny_tokenizer

    return analyze_corpus(
        model, TEXTS, tiny_tokenizer(), out=tmp_path_factory.mktemp("whole"), batch_size=4, progress=False
    )


def finished_run(whole, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(whole.path, out)
    return out


def assert_same(found: CorpusResult, expected: CorpusResult) -> None:
    assert found.texts["text"].tolist() == expected.texts["text"].tolist()
    assert found.texts["index"].tolist() == expected.texts["index"].tolist()
    for name in STATISTICS:  # a batch of other lengths pads differently: a rounding apart (2 ulp seen)
        np.testing.assert_allclose(found.values(name), expected.values(name), rtol=0, atol=1e-12, err_msg=name)
    pandas.testing.assert_frame_equal(found.heads, expected.heads, rtol=0, atol=1e-12)


def truncate(shard):
    shard.write_bytes(shard.read_bytes()[: shard.stat().st_size // 2])


def break_footer(shard):
    data = bytearray(shard.read_bytes())
    data[-12:-4] = b"\xff" * 8  # the footer's length and the end of its metadata
    shard.write_bytes(bytes(data))


def make_folder(shard):
    shard.unlink()
    shard.mkdir()
    (shard / "part-0.parquet").write_bytes(b"PAR1")


def flip_middle(shard):
    data = bytearray(shard.read_bytes())
    middle = len(data) // 2
    data[middle - 32 : middle + 32] = bytes(b ^ 0xFF for b in data[middle - 32 : middle + 32])
    shard.write_bytes(bytes(data))


def flip_statistic(shard):
    """Flip 64 bytes in the middle of the entropy column's values (its dictionary page), footer intact."""
    chunk = next(
        column
        for group in [pyarrow.parquet.ParquetFile(shard).metadata.row_group(0)]
        for column in (group.column(i) for i in range(group.num_columns))
        if column.path_in_schema.startswith("entropy.")
    )
    start, end = chunk.dictionary_page_offset or chunk.data_page_offset, chunk.data_page_offset
    middle = (start + end) // 2
    data = bytearray(shard.read_bytes())
    data[middle - 32 : middle + 32] = bytes(b ^ 0xFF for b in data[middle - 32 : middle + 32])
    shard.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", [truncate, break_footer, make_folder, flip_middle, flip_statistic])
def test_a_damaged_shard_is_named_on_reading_and_computed_again_on_resume(damage, model, tokenizer, whole, tmp_path):
    out = finished_run(whole, tmp_path)
    damage(out / SHARD)
    with pytest.raises(DamagedShardError, match=rf"{SHARD} is damaged: .*resume=True"):
        found = CorpusResult(out)  # the folder may be opened; no table is read from the damaged shard
        found.texts, found.heads  # noqa: B018
    kept = {p.name: os.stat(p).st_mtime_ns for p in out.glob("part-*.parquet") if p.name != SHARD}
    with pytest.warns(UserWarning, match=rf"{SHARD} is damaged.*computed again"):
        resumed = analyze_corpus(model, TEXTS, tokenizer, out=out, batch_size=4, progress=False)
    assert {p.name: os.stat(p).st_mtime_ns for p in out.glob("part-*.parquet") if p.name != SHARD} == kept
    assert_same(resumed, whole)


def test_flipped_bytes_never_become_numbers(whole, tmp_path):
    """The issue's case: 64 bytes flipped in a statistic's values with the footer intact, which Parquet
    reads without a word as other numbers; the checksum refuses the column and names the shard."""
    out = finished_run(whole, tmp_path)
    flip_statistic(out / SHARD)
    raw = np.array(pyarrow.parquet.read_table(out / SHARD, columns=["entropy"]).column("entropy").to_pylist())
    assert not np.array_equal(raw, whole.values("entropy")[8:12].reshape(4, -1))  # silently other numbers
    found = CorpusResult(out)
    with pytest.raises(DamagedShardError, match=rf"{SHARD} is damaged: its column 'entropy' does not match"):
        found.heads  # noqa: B018
    with pytest.raises(DamagedShardError, match=SHARD):
        found.values("entropy")
    assert found.texts["text"].tolist() == TEXTS  # the columns that are intact still read


def test_another_corpus_in_the_same_folder_is_refused(model, tokenizer, whole, tmp_path):
    out = finished_run(whole, tmp_path)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    other = TEXTS[:]
    other[9] = "a text that was never analysed here"
    with pytest.raises(ValueError, match=r"another corpus \(its text 9 .*resume=False"):
        analyze_corpus(model, other, tokenizer, out=out, batch_size=4, progress=False)
    shards = {name: data for name, data in before.items() if name.startswith("part-")}
    assert {p.name: p.read_bytes() for p in out.glob("part-*")} == shards  # nothing computed or removed
    assert_same(CorpusResult(out), whole)
    replaced = analyze_corpus(model, other, tokenizer, out=out, batch_size=4, resume=False, progress=False)
    assert replaced.texts["text"].tolist() == other


def test_a_shorter_corpus_gives_its_own_rows_and_keeps_the_rest(model, tokenizer, whole, tmp_path):
    out = tmp_path / "out"
    analyze_corpus(model, TEXTS, tokenizer, out=out, batch_size=5, progress=False)
    last = out / "part-000003.parquet"  # texts 15-19, beyond the shorter corpus
    stamp = os.stat(last).st_mtime_ns
    shorter = analyze_corpus(model, TEXTS[:12], tokenizer, out=out, batch_size=5, progress=False)
    assert shorter.texts["index"].tolist() == list(range(12))
    assert shorter.values("entropy").shape[0] == 12
    assert json.loads((out / "corpus.json").read_text())["texts"] == 12
    again = analyze_corpus(model, TEXTS, tokenizer, out=out, batch_size=5, progress=False)
    assert os.stat(last).st_mtime_ns == stamp  # kept, and read again by the run on all 20
    assert_same(again, whole)


def test_a_missing_shard_of_a_finished_run_is_named(whole, tmp_path):
    out = finished_run(whole, tmp_path)
    (out / SHARD).unlink()
    with pytest.raises(FileNotFoundError, match=rf"lacks 1 of its shards, the first {SHARD} \(texts 8-11\)"):
        CorpusResult(out)


@pytest.mark.parametrize(
    "content, reason",
    [(b"\xff\xfe\x00garbage", "UnicodeDecodeError"), (b"[1, 2]", "does not record"), (b'{"statistics": ', "JSON")],
)
def test_a_damaged_manifest_gets_one_sentence(content, reason, model, tokenizer, whole, tmp_path):
    out = finished_run(whole, tmp_path)
    (out / "corpus.json").write_bytes(content)
    with pytest.raises(ValueError, match=rf"corpus.json is damaged \(.*{reason}.*resume=False"):
        CorpusResult(out)
    with pytest.raises(ValueError, match=rf"corpus.json is damaged \(.*{reason}.*resume=False"):
        analyze_corpus(model, TEXTS, tokenizer, out=out, batch_size=4, progress=False)
    assert_same(analyze_corpus(model, TEXTS, tokenizer, out=out, batch_size=4, resume=False, progress=False), whole)


def test_not_a_run_folder(tmp_path):
    with pytest.raises(FileNotFoundError, match="holds no corpus run"):
        CorpusResult(tmp_path)


def test_grid_selections_outside_the_model_are_refused(whole):
    widget = CorpusWidget(whole)
    layers, heads = whole.shape
    for layer, head in [(0, 0), (layers + 1, 0), (1, heads), (1, -1), (True, 0), (1.0, 0)]:
        with pytest.raises(ValueError, match="numbered from"):
            widget.select(layer, head)
    assert widget.layer is None  # nothing selected by a refused call
    for k in (-1, 0, 2.5, True):
        with pytest.raises(ValueError, match="positive integer"):
            CorpusWidget(whole, k=k)
        with pytest.raises(ValueError, match="positive integer"):
            whole.extreme("entropy", 1, 0, k=k)
    widget.select(layers, heads - 1)
    assert len(widget.texts.options) == 10
