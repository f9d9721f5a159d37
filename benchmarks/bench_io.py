"""Speed and memory of reading logs, against pyarrow reading the same file.

Run: ``.venv/bin/python benchmarks/bench_io.py [--rows 595770] [--csv-rows 1000000]``

Simulated long tables (the seed-002 cohort, :func:`judgestats.simulate.judgments_table`)
are written into a temporary folder: a Parquet file of ``--rows`` rows and a CSV of
``--csv-rows`` rows. Printed: ``read_logs`` of the Parquet file against pyarrow's
``read_table`` + ``to_pandas`` of it in the same process (the ratio; goal at most 3),
and ``read_logs`` of the CSV in a fresh process, with its peak resident memory
(goals: at most 4 s and 600 MB).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

_CHILD = """
import json, resource, sys, time
import judgestats as js
start = time.perf_counter()
ds, report = js.read_logs(sys.argv[1])
elapsed = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"seconds": elapsed, "peak": peak, "read": report.read}))
"""


def cohort_table(rows: int, seed: int = 0) -> pd.DataFrame:
    """A long table of about ``rows`` simulated judgments (the seed-002 cohort, scaled)."""
    from judgestats.simulate import judgments_table, seed002_cohort, simulate

    base = judgments_table(simulate(seed002_cohort(), random_seed=seed).dataset)
    reps = -(-rows // len(base))
    parts = [base.assign(run=base["run"] + k * (base["run"].max() + 1)) for k in range(reps)]
    return pd.concat(parts, ignore_index=True).iloc[:rows]


def best_of(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return float(np.min(times))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=595_770, help="rows of the Parquet table")
    parser.add_argument("--csv-rows", type=int, default=1_000_000, help="rows of the CSV")
    parser.add_argument("--repeat", type=int, default=3, help="timings per measurement (best)")
    args = parser.parse_args(argv)

    import pyarrow.parquet as pq

    import judgestats as js

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        table = cohort_table(max(args.rows, args.csv_rows))
        parquet = folder / "cohort.parquet"
        table.iloc[: args.rows].to_parquet(parquet, index=False)
        csv = folder / "cohort.csv"
        table.iloc[: args.csv_rows].to_csv(csv, index=False, lineterminator="\n")
        del table

        js.read_logs(parquet)  # warm: imports, registry, first-call costs
        arrow = best_of(lambda: pq.read_table(parquet).to_pandas(), args.repeat)
        ours = best_of(lambda: js.read_logs(parquet), args.repeat)
        print(f"Parquet, {args.rows:,} rows")
        print(f"  pyarrow read_table + to_pandas   {arrow:7.2f} s")
        print(
            f"  judgestats read_logs             {ours:7.2f} s  ({ours / arrow:.1f}x; goal <= 3x)"
        )

        out = subprocess.run(
            [sys.executable, "-c", _CHILD, str(csv)],
            capture_output=True,
            text=True,
            check=True,
        )
        child = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"CSV, {args.csv_rows:,} rows ({csv.stat().st_size / 2**20:.0f} MiB), fresh process")
        print(f"  judgestats read_logs             {child['seconds']:7.2f} s  (goal <= 4 s)")
        print(f"  peak resident memory             {child['peak'] / 1e6:7.0f} MB (goal <= 600 MB)")
        assert child["read"] == args.csv_rows
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
