"""Timings of the closed-form metrics on the seed-002-sized cohort (not a test).

Usage::

    python benchmarks/bench_metrics.py [--resamples 2000] [--repeat 3] [--seed 1]

Uses the simulator's seed-002 preset (21 judges, 3 benchmarks, ~533k judgments)
when it is available, else a synthetic dataset of the same shape.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from judgestats.metrics import compute_metrics, item_feature_array
from judgestats.schema import empty_judgments
from judgestats.tally import tally


def cohort(seed: int):
    """The seed-002 cohort: simulated if possible, else synthetic of the same shape."""
    try:
        from judgestats.simulate import simulate
        from judgestats.simulate.presets import seed002_cohort
    except ImportError:
        return synthetic(seed), "synthetic (simulator not available)"
    return simulate(seed002_cohort(), random_seed=seed).dataset, "simulate(seed002_cohort())"


def synthetic(seed: int):
    rng = np.random.default_rng(seed)
    sizes = {"MT-Bench": 2391, "JudgeBench": 350, "RewardBench": 2981}
    items = [f"{b}/{k}" for b, n in sizes.items() for k in range(n)]
    ds = empty_judgments([f"judge{j}" for j in range(21)], items, ["AB", "BA"], 3, ["human"])
    bench = np.repeat(list(sizes), list(sizes.values()))
    label = rng.choice([0, 1, 2], size=len(items), p=[0.45, 0.45, 0.1])
    base = np.where(rng.random((21, len(items))) < 0.75, label, rng.integers(0, 3, (21, 1)))
    v = np.repeat(base[:, :, None, None], 2, 2).repeat(3, 3)
    noise = rng.random(v.shape) < 0.08
    v = np.where(noise, rng.integers(0, 4, v.shape), v).astype(np.int8)
    ds["verdict"].values[:] = v
    ds["human"].values[:, 0] = label
    lengths = rng.integers(100, 2000, (2, len(items))).astype(float)
    return ds.assign_coords(
        benchmark=("item", bench), length_a=("item", lengths[0]), length_b=("item", lengths[1])
    )


def best_of(repeat: int, fn):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    start = time.perf_counter()
    ds, source = cohort(args.seed)
    made = time.perf_counter() - start
    n = int((ds["verdict"] >= 0).sum())
    print(f"data: {source}: {n:,} judgments, sizes {dict(ds.sizes)} ({made:.1f} s to make)")

    rows = [
        ("tally (pattern counts)", lambda: tally(ds)),
        ("item features (judges x items)", lambda: item_feature_array(ds)),
        ("all metrics, point estimates", lambda: compute_metrics(ds, interval="none")),
        ("kappa with FCE SE", lambda: compute_metrics(ds, "kappa", interval="fce")),
        (
            f"all metrics + {args.resamples} item-bootstrap resamples",
            lambda: compute_metrics(ds, n_resamples=args.resamples, random_seed=0),
        ),
        (
            "all metrics by order, no interval",
            lambda: compute_metrics(ds, by="order", interval="none"),
        ),
    ]
    for name, fn in rows:
        print(f"{name:<48} {best_of(args.repeat, fn):7.3f} s (best of {args.repeat})")


if __name__ == "__main__":
    main()
