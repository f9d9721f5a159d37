"""Posterior predictive checks on data with and without shared item difficulty.

Fits the hierarchical tier (2 x 300 draws after 300 tuning steps) on
:func:`~judgestats.simulate.shared_difficulty_cohort` with 5 judges and
``--difficulty-sd`` (default 3), and prints per benchmark the observed inter-judge
agreement against its replicated 90% interval and p-value, the smallest p-value of
the judges' pattern-frequency and trait checks, and every flagged check
(:mod:`judgestats.models.ppc`). ``--difficulty-sd 0`` is data without item effects.

Run: ``.venv/bin/python benchmarks/bench_ppc.py [--difficulty-sd 3]``
"""

from __future__ import annotations

import argparse
import json
import time
import warnings

import pandas as pd

from judgestats.models import HierarchicalConfig, HierarchicalModel, MisfitWarning
from judgestats.report.predictive import predictive_table
from judgestats.simulate import shared_difficulty_cohort, simulate


def main() -> None:
    """Fit once and print the checks."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--difficulty-sd", type=float, default=3.0)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    cfg = shared_difficulty_cohort(5, difficulty_sd=args.difficulty_sd)
    ds = simulate(cfg, random_seed=args.seed).dataset
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MisfitWarning)
        model = HierarchicalModel(HierarchicalConfig(draws=300, tune=300, cores=1))
        tree = model.fit(ds, random_seed=1)
    print(f"difficulty sd {args.difficulty_sd}: fit {time.perf_counter() - start:.0f} s")
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(predictive_table(tree["predictive"].to_dataset()).round(3).to_string(index=False))
    flagged = json.loads(tree.attrs["misfits"])
    print(f"{len(flagged)} flagged check(s)")
    for line in flagged:
        print(" ", line)


if __name__ == "__main__":
    main()
