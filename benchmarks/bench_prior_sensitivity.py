"""How much the hierarchical tier's headline quantities move with the pooling prior.

Fits :class:`~judgestats.models.HierarchicalModel` on one simulated cohort at
``prior_scale`` 0.5, 1 and 2 (every pooling prior's scale halved and doubled; see
``HierarchicalConfig.prior_scale``) and prints, per headline quantity, the largest
change of a posterior mean over judges and benchmarks against the default, next to
the largest posterior sd at the default (a move well below the sd is immaterial).

Run: ``.venv/bin/python benchmarks/bench_prior_sensitivity.py [--judges 5 --items 60]``
(small cohorts are where the prior matters most).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from judgestats.models import HierarchicalConfig, HierarchicalModel
from judgestats.simulate import exchangeable_cohort, simulate
from judgestats.simulate.cases import correctness_benchmark, preference_benchmark

HEADLINE = ("kappa", "exact_match", "p_first", "test_retest", "rank")
SCALES = (0.5, 1.0, 2.0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judges", type=int, default=5)
    parser.add_argument("--items", type=int, default=60)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--cores", type=int, default=1)
    args = parser.parse_args()
    benchmarks = (
        preference_benchmark("preference", args.items),
        correctness_benchmark("correctness", args.items),
    )
    cfg = exchangeable_cohort(args.judges, benchmarks, random_seed=args.seed)
    ds = simulate(cfg, random_seed=args.seed + 1).dataset
    post = {}
    for scale in SCALES:
        start = time.perf_counter()
        model = HierarchicalModel(HierarchicalConfig(prior_scale=scale, cores=args.cores))
        post[scale] = model.fit(ds, random_seed=args.seed)["posterior"]
        print(f"prior_scale {scale:g}: fitted in {time.perf_counter() - start:.1f} s", flush=True)
    print(f"\n{args.judges} judges x {args.items} items per benchmark; change of posterior means")
    print(f"{'quantity':<12s} {'x0.5':>8s} {'x2':>8s} {'max sd':>8s}")
    base = post[1.0]
    for q in HEADLINE:
        mean = {s: post[s][q].mean(("chain", "draw")).values for s in SCALES}
        moves = [np.nanmax(np.abs(mean[s] - mean[1.0])) for s in (0.5, 2.0)]
        sd = np.nanmax(base[q].std(("chain", "draw")).values)
        print(f"{q:<12s} {moves[0]:8.3f} {moves[1]:8.3f} {sd:8.3f}")
    for s in SCALES:
        pool = post[s]["pooling_concentration"].median(("chain", "draw"))
        print(f"prior_scale {s:g}: median pooling concentration {float(np.nanmedian(pool)):.1f}")


if __name__ == "__main__":
    main()
