"""Simulation-based calibration of the hierarchical tier on a small cohort.

Runs :func:`judgestats.simulate.sbc.sbc_ranks` on
:func:`~judgestats.simulate.sbc.reference_cohort` (3 judges, 40 preference items,
both orders, 2 runs; 2 chains x 300 draws after 300 tuning steps per refit, ranks
among 99 thinned draws) and prints, per parameter group, the number of parameters,
the Bonferroni-adjusted smallest chi-square p-value of their rank histograms
(:func:`~judgestats.simulate.sbc.rank_uniformity`; uniform ranks: above 0.01), the
pooled rank histogram in 10 bins, and the refits with divergences.

Run: ``.venv/bin/python benchmarks/bench_sbc.py [--simulations 100]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from judgestats.models import HierarchicalConfig
from judgestats.simulate.sbc import BINS, rank_uniformity, reference_cohort, sbc_ranks


def main() -> None:
    """Run the calibration and print its table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    start = time.perf_counter()
    cfg = HierarchicalConfig(draws=300, tune=300, cores=1)
    res = sbc_ranks(reference_cohort(), args.simulations, config=cfg, random_seed=args.seed)
    seconds = time.perf_counter() - start
    p = rank_uniformity(res)
    print(f"{args.simulations} simulations in {seconds:.0f} s; ranks among {res.draws} draws")
    print(f"refits with divergences: {int((res.divergences > 0).sum())}")
    edges = np.linspace(0, res.draws + 1, BINS + 1)
    for group, ranks in res.ranks.items():
        hist = np.histogram(ranks.ravel(), edges)[0]
        pg = p.get(group, np.nan)
        print(f"{group:<16s} {ranks.shape[1]:3d} parameters  p = {pg:.3f}  {hist}")


if __name__ == "__main__":
    main()
