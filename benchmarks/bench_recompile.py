"""First fit against repeated fits of the same structure: what reusing the compiled model saves.

Run: ``.venv/bin/python benchmarks/bench_recompile.py [--scale 0.1] [--draws 1000]``

In one process, fits the hierarchical tier on a simulated cohort with the counts as
constants (the default) and with ``reuse_compiled`` (the counts as ``pm.Data``;
both compile), then on a dataset of the same structure with other counts (two judges'
verdicts swapped on half of the items: the same pattern trees), then on new
simulations of the cohort (other seeds: the same judges and benchmarks, but the
pattern trees can differ, and then the model compiles again). Prints compile and
sampling seconds of each fit, and how many distinct structures the replicates of
a calibration loop (``simulate.replicate_coverage``) would meet.
"""

from __future__ import annotations

import argparse
import time

from judgestats.models import HierarchicalConfig, HierarchicalModel
from judgestats.models.base import FitData
from judgestats.models.layout import build_layout
from judgestats.simulate import seed002_cohort, simulate, small_cohort
from judgestats.testing import swap_verdicts


def fit(label, ds, cfg, seed):
    start = time.perf_counter()
    tree = HierarchicalModel(cfg).fit(ds, random_seed=seed)
    wall = time.perf_counter() - start
    stats = tree["sample_stats"].attrs
    compile_s, sample_s = float(stats["compile_time"]), float(stats["sampling_time"])
    rest = wall - compile_s - sample_s
    print(f"{label:<44s} {compile_s:8.2f} {sample_s:9.2f} {rest:7.2f} {wall:7.2f}", flush=True)
    return compile_s, sample_s, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cohort", choices=["small", "seed002"], default="small")
    parser.add_argument("--scale", type=float, default=0.1, help="items, as a share")
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--tune", type=int, default=400)
    parser.add_argument("--replicates", type=int, default=6, help="structures counted")
    args = parser.parse_args()
    cohort = small_cohort() if args.cohort == "small" else seed002_cohort()
    cfg = HierarchicalConfig(draws=args.draws, tune=args.tune, reuse_compiled=True)
    constants = HierarchicalConfig(draws=args.draws, tune=args.tune)
    ds = simulate(cohort, random_seed=0, scale=args.scale).dataset
    print(
        f"cohort {args.cohort} x {args.scale}: {ds.sizes['judge']} judges, {ds.sizes['item']} items"
    )
    head = f"fit (2 chains x {args.draws} draws)"
    print(f"{head:<44s} {'compile':>8s} {'sampling':>9s} {'other':>7s} {'total':>7s}  (s)")
    fit("first fit, counts as constants (the default)", ds, constants, 1)
    first = fit("first fit, counts as data (compiles)", ds, cfg, 1)
    again = fit("same structure, other counts (reused)", swap_verdicts(ds), cfg, 1)
    fit(
        "new simulation, seed 1 (reused if same trees)",
        simulate(cohort, random_seed=1, scale=args.scale).dataset,
        cfg,
        1,
    )
    print(
        f"saving per repeated fit: {first[2] - again[2]:.1f} s ({first[2] / again[2]:.1f}x faster)"
    )
    structures = {
        build_layout(
            FitData.from_data(simulate(cohort, random_seed=s, scale=args.scale).dataset),
            cfg.rare_per_judge,
        ).structure()
        for s in range(args.replicates)
    }
    print(
        f"replicates of a calibration loop: {len(structures)} distinct structures"
        f" in {args.replicates}"
    )


if __name__ == "__main__":
    main()
