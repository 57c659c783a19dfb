"""What checking a corpus shard costs (issue 36): reading a shard with and without verifying the checksums of its
columns (``attn_widget.corpus.integrity.read_verified``), and computing them when it is written. The shard is the
size a long run writes: ``--rows`` texts (one batch) × the seven statistics × ``--layers`` · ``--heads`` values.

    .venv/bin/python benchmarks/shard_checks.py                      # 128 texts, 32 layers × 32 heads
    .venv/bin/python benchmarks/shard_checks.py --rows 32 --layers 12 --heads 12
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import tempfile
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _common import machine_line  # noqa: E402

from attn_widget.corpus.integrity import read_verified, with_digests  # noqa: E402
from attn_widget.corpus.statistics import STATISTICS  # noqa: E402


def _best_ms(run, repeats: int) -> float:
    """The fastest of ``repeats`` runs, in milliseconds (the least disturbed by other work on the machine)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return 1000 * min(times)


def main() -> None:
    import pyarrow
    import pyarrow.parquet

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=128)
    parser.add_argument("--layers", type=int, default=32)
    parser.add_argument("--heads", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    print(machine_line())
    random = np.random.default_rng(0)
    columns = {
        "index": pyarrow.array(np.arange(args.rows)),
        "text": pyarrow.array(["the committee said on tuesday that the new bridge would open"] * args.rows),
    }
    for name in STATISTICS:
        values = random.random((args.rows, args.layers * args.heads))
        columns[name] = pyarrow.array(list(values), pyarrow.list_(pyarrow.float64()))
    table = pyarrow.table(columns)
    with tempfile.TemporaryDirectory() as folder:
        shard = pathlib.Path(folder, "part-000000.parquet")
        pyarrow.parquet.write_table(with_digests(table), shard)
        size = shard.stat().st_size / 1e6
        plain = _best_ms(lambda: pyarrow.parquet.read_table(shard), args.repeats)
        checked = _best_ms(lambda: read_verified(shard), args.repeats)
        written = _best_ms(lambda: pyarrow.parquet.write_table(table, shard), args.repeats)
        digests = _best_ms(lambda: with_digests(table), args.repeats)
    print(f"shard: {args.rows} texts x {len(STATISTICS)} statistics x {args.layers * args.heads} heads, {size:.1f} MB")
    ratio = checked / plain
    print(f"read: {plain:.1f} ms plain, {checked:.1f} ms with every column's checksum checked ({ratio:.1f}x)")
    print(f"write: {written:.1f} ms, checksums {digests:.1f} ms more")


if __name__ == "__main__":
    main()
