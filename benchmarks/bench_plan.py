"""What ``report --plan`` adds: the plan's time on the demo logs and on LLMBar.

Times :func:`judgestats.plan.plan` with the report's settings
(:data:`judgestats.report.plan.REPORT_PLAN`) on the bundled demo logs and, when
present, the shared LLMBar logs (``../shared/data/llmbar``), after the exact-tier
fit and check that ``report --fast`` does anyway; prints the open verdicts, the
seconds of the fit and check and of the plan (wall and process CPU time: the CPU
time is the fairer figure on a shared machine).

Run: ``.venv/bin/python benchmarks/bench_plan.py``
"""

from __future__ import annotations

import time
import warnings
from pathlib import Path

import judgestats as js
from judgestats.models import ConvergenceWarning, ExactModel
from judgestats.mvvp import check
from judgestats.plan import plan
from judgestats.report.plan import REPORT_PLAN

ROOT = Path(__file__).resolve().parents[1]
LOGS = {"demo": ROOT / "data" / "demo", "llmbar": ROOT / ".." / "shared" / "data" / "llmbar"}


def _timed(fn):
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def main():
    for name, path in LOGS.items():
        if not path.exists():
            print(f"{name}: {path} absent, skipped")
            continue
        ds, _ = js.read_logs(path)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            result, w_fit, c_fit = _timed(
                lambda ds=ds: check(ExactModel().fit(ds, random_seed=0), ds)
            )
        planned, w_plan, c_plan = _timed(
            lambda ds=ds, result=result: plan(ds, result, REPORT_PLAN, random_seed=0)
        )
        with_runs = sum(1 for c in planned.cases if c.runs)
        print(
            f"{name}: {len(planned.cases)} open verdicts ({with_runs} with runs planned); "
            f"fit + check {w_fit:.1f} s wall / {c_fit:.1f} s CPU; "
            f"plan {w_plan:.1f} s wall / {c_plan:.1f} s CPU"
        )


if __name__ == "__main__":
    main()
