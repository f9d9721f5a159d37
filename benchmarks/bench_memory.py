"""What NumPy's huge-page advice costs on this machine (:mod:`judgestats.memory`).

Run: ``.venv/bin/python benchmarks/bench_memory.py [--mb 170] [--rounds 3] [--report DATA]``

Each round, in fresh interpreters (memory a process has touched once is cheap to
reuse, so every measurement needs a new process), alternating the two settings:
the seconds to create and fill a new array of ``--mb`` megabytes with NumPy's
advice on and off. With ``--report DATA`` (logs or a ``.nc``), also the whole
``python -m judgestats -q report DATA --fast`` with ``NUMPY_MADVISE_HUGEPAGE=1``
(the advice, as NumPy defaults) and without the variable (the command line turns
the advice off). Prints the machine's transparent-huge-page settings first.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_THP = Path("/sys/kernel/mm/transparent_hugepage")


def _fill_seconds(mb: int, advice: bool) -> float:
    code = (
        "import time, numpy as np\n"
        "from numpy._core import multiarray\n"
        f"multiarray._set_madvise_hugepage({advice})\n"
        "t = time.perf_counter()\n"
        f"a = np.full({mb} * 2**20 // 8, 1.0)\n"
        "print(time.perf_counter() - t)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "NUMPY_MADVISE_HUGEPAGE"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    return float(out.stdout)


def _report_seconds(data: str, advice: bool) -> float:
    env = {k: v for k, v in os.environ.items() if k != "NUMPY_MADVISE_HUGEPAGE"}
    if advice:
        env["NUMPY_MADVISE_HUGEPAGE"] = "1"
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "judgestats", "-q", "report", data, "-o", tmp + "/r"]
        start = time.perf_counter()
        subprocess.run([*cmd, "--fast"], capture_output=True, check=True, env=env)
        return time.perf_counter() - start


def main() -> None:
    """Time fresh allocations and, optionally, a whole report, with and without advice."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=170, help="size of the fresh array")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--report", metavar="DATA", help="also time report --fast of DATA")
    args = parser.parse_args()
    for name in ("enabled", "defrag"):
        path = _THP / name
        setting = path.read_text().strip() if path.exists() else "n/a"
        print(f"transparent_hugepage/{name}: {setting}")
    jobs = {f"fill {args.mb} MB": lambda advice: _fill_seconds(args.mb, advice)}
    if args.report:
        jobs["report --fast"] = lambda advice: _report_seconds(args.report, advice)
    print(f"{'what':<16s} {'advice on (s)':>24s} {'advice off (s)':>24s} {'ratio':>6s}")
    for name, job in jobs.items():
        times: dict[bool, list[float]] = {True: [], False: []}
        for _ in range(args.rounds):
            for advice in (True, False):
                times[advice].append(job(advice))
        on, off = (statistics.median(times[a]) for a in (True, False))
        cols = [" ".join(f"{t:.2f}" for t in times[a]) for a in (True, False)]
        print(f"{name:<16s} {cols[0]:>24s} {cols[1]:>24s} {on / off:6.1f}")


if __name__ == "__main__":
    main()
