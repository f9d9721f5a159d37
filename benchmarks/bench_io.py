"""Speed and memory of reading logs, against pyarrow reading the same file.

Run: ``.venv/bin/python benchmarks/bench_io.py [--rows 595770] [--csv-rows 1000000] [--pairs 15]``

Simulated long tables (the seed-002 cohort, :func:`judgestats.simulate.judgments_table`)
are written into a temporary folder: a Parquet file of ``--rows`` rows and a CSV of
``--csv-rows`` rows.

Parquet: ``--pairs`` paired runs in one process, each pyarrow's ``read_table`` +
``to_pandas`` of the file then ``read_logs`` of it (the order alternates from pair to
pair, so that neither always runs first). Printed: the median and best of each, in
wall-clock and in CPU time (all threads of the process, so that a machine shared
with other work shows less in it), and the ratio read_logs / pyarrow: the median of
the pairs' ratios (goal at most 3 on a quiet machine) and the best pair's. The load
average is printed first: on a busy machine pyarrow, which reads with several
threads, loses more than read_logs, and the ratios look better than they are.

CSV: ``read_logs`` in a fresh process, with its peak resident memory (goals: at most
4 s and 600 MB).
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from _child import child_result

_CHILD = """
import json, resource, sys, time
import judgestats as js
start = time.perf_counter()
ds, report = js.read_logs(sys.argv[1])
elapsed = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"seconds": elapsed, "peak": peak, "read": report.read}))
"""
#: Goal of the Parquet comparison: read_logs at most this many times pyarrow.
RATIO_GOAL = 3.0


def cohort_table(rows: int, seed: int = 0) -> pd.DataFrame:
    """A long table of about ``rows`` simulated judgments (the seed-002 cohort, scaled)."""
    from judgestats.simulate import judgments_table, seed002_cohort, simulate

    base = judgments_table(simulate(seed002_cohort(), random_seed=seed).dataset)
    reps = -(-rows // len(base))
    parts = [base.assign(run=base["run"] + k * (base["run"].max() + 1)) for k in range(reps)]
    return pd.concat(parts, ignore_index=True).iloc[:rows]


@dataclass(frozen=True)
class Timing:
    """One timed call: wall-clock and CPU seconds (every thread of the process)."""

    wall: float
    cpu: float


def timed(fn: Callable[[], object]) -> Timing:
    """Time one call of ``fn``, after a garbage collection (not timed)."""
    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return Timing(time.perf_counter() - wall, time.process_time() - cpu)


def paired(
    first: Callable[[], object], second: Callable[[], object], pairs: int
) -> list[tuple[Timing, Timing]]:
    """Time ``first`` and ``second`` ``pairs`` times, interleaved, alternating which goes first."""
    out = []
    for k in range(pairs):
        if k % 2 == 0:
            a = timed(first)
            b = timed(second)
        else:
            b = timed(second)
            a = timed(first)
        out.append((a, b))
    return out


def _line(label: str, values: list[float], unit: str = "s") -> str:
    return (
        f"  {label:34s} median {statistics.median(values):6.3f} {unit}"
        f"   best {min(values):6.3f} {unit}"
    )


def report_pairs(runs: list[tuple[Timing, Timing]]) -> float:
    """Print the paired timings; return the median ratio (wall-clock)."""
    for clock in ("wall", "cpu"):
        arrow = [getattr(a, clock) for a, _ in runs]
        ours = [getattr(b, clock) for _, b in runs]
        ratios = [o / a for a, o in zip(arrow, ours, strict=True)]
        name = "wall-clock" if clock == "wall" else "CPU time"
        print(f" {name}:")
        print(_line("pyarrow read_table + to_pandas", arrow))
        print(_line("judgestats read_logs", ours))
        print(
            f"  {'ratio read_logs / pyarrow':34s} median {statistics.median(ratios):6.2f} x"
            f"   best {min(ratios):6.2f} x   (pairs: {', '.join(f'{r:.1f}' for r in ratios)})"
        )
    return statistics.median(b.wall / a.wall for a, b in runs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=595_770, help="rows of the Parquet table")
    parser.add_argument("--csv-rows", type=int, default=1_000_000, help="rows of the CSV")
    parser.add_argument("--pairs", type=int, default=15, help="paired Parquet timings")
    args = parser.parse_args(argv)

    import pyarrow.parquet as pq

    import judgestats as js

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        table = cohort_table(max(args.rows, args.csv_rows))
        parquet = folder / "cohort.parquet"
        table.iloc[: args.rows].to_parquet(parquet, index=False)
        csv = folder / "cohort.csv"
        if args.csv_rows:
            table.iloc[: args.csv_rows].to_csv(csv, index=False, lineterminator="\n")
        del table

        # Warm: imports, the registry, first-call costs of both.
        js.read_logs(parquet)
        pq.read_table(parquet).to_pandas()
        load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
        print(f"Parquet, {args.rows:,} rows, {args.pairs} paired runs in one process")
        print(f" load average {load} on {os.cpu_count()} CPUs (quiet: well under 1 per CPU)")
        runs = paired(
            lambda: pq.read_table(parquet).to_pandas(), lambda: js.read_logs(parquet), args.pairs
        )
        ratio = report_pairs(runs)
        print(f"  median ratio {ratio:.2f}x; goal <= {RATIO_GOAL:g}x on a quiet machine")

        if not args.csv_rows:
            return 0
        child = child_result([sys.executable, "-c", _CHILD, str(csv)])
        print(f"CSV, {args.csv_rows:,} rows ({csv.stat().st_size / 2**20:.0f} MiB), fresh process")
        print(f"  judgestats read_logs             {child['seconds']:7.2f} s  (goal <= 4 s)")
        print(f"  peak resident memory             {child['peak'] / 1e6:7.0f} MB (goal <= 600 MB)")
        if child["read"] != args.csv_rows:
            raise SystemExit(f"read {child['read']} records of {args.csv_rows}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
