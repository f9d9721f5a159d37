"""Coverage of the 95% intervals of both model tiers against the simulator's exact truth.

Run: ``.venv/bin/python benchmarks/bench_coverage.py``. Prints, per cohort and tier, the
share of (judge, benchmark, quantity) cells whose interval holds the true value.
Cohorts: the hand-set seed-002 preset (21 judges, deliberately extreme ones) and
an exchangeable cohort of 8 judges drawn from one population.
"""

from __future__ import annotations

import time

import numpy as np

from judgestats.models import ExactModel, HierarchicalModel, summarize
from judgestats.models.summary import REPORTED
from judgestats.simulate import exchangeable_cohort, seed002_cohort, simulate
from judgestats.tally import tally

# |P(first) - 0.5| is biased away from a truth near 0; P(first) is checked instead
QUANTITIES = [q for q in REPORTED if q != "position_bias"]


def coverage(tree, truth):
    s = summarize(tree, var_names=QUANTITIES)
    t = np.array(
        [
            float(truth[v].sel(judge=j, benchmark=b))
            for v, j, b in zip(s.variable, s.judge, s.benchmark, strict=True)
        ]
    )
    ok = np.isfinite(t) & np.isfinite(s["mean"].to_numpy())
    hit = (s.lo.to_numpy() <= t) & (t <= s.hi.to_numpy())
    return hit[ok].mean(), int(ok.sum())


def main():
    cohorts = {
        "seed-002 preset": simulate(seed002_cohort(), random_seed=1),
        "exchangeable, 8 judges": simulate(exchangeable_cohort(8, random_seed=21), random_seed=22),
    }
    for name, res in cohorts.items():
        t = tally(res.dataset)
        for model in (ExactModel(), HierarchicalModel()):
            start = time.perf_counter()
            tree = model.fit(t, random_seed=1)
            cover, n = coverage(tree, res.truth)
            print(
                f"{name:<24s} {model.name:<13s} coverage {cover:.3f} of {n} cells"
                f"  ({time.perf_counter() - start:.1f} s)",
                flush=True,
            )


if __name__ == "__main__":
    main()
