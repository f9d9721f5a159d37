"""Coverage of the intervals of both model tiers against the simulator's exact truth.

Two parts:

``--single`` (the earlier figure)
    Per cohort and tier, the share of (judge, benchmark, quantity) cells of one
    simulated dataset whose 95% interval holds the true value. Cohorts: the
    hand-set seed-002 preset and an exchangeable cohort of 8 judges.
default: coverage over replicates
    On :func:`judgestats.simulate.coverage.shared_difficulty_cohort` (8 judges, 3
    benchmarks of 150-300 items, shared item difficulty, label noise, two
    near-deterministic position-biased judges), each tier is fitted on
    ``--replicates`` datasets (different data seeds, one fixed truth). Per quantity
    and interval probability: the mean over replicates of the share of cells
    covered, its sd across replicates, the Monte Carlo error of the mean, the
    smallest per-cell coverage and the chance that the worst of that many calibrated
    cells is as low; the coverage of the randomised intervals (randomised PIT, the
    calibration of integer-valued quantities) with its Monte Carlo error; the sd of
    the z-scores. With both tiers, the difference between their P(judge i ranked
    above judge j) per pair: the mean over replicates of its absolute value, and
    the absolute mean difference with its standard error (the systematic part:
    each tier's P(above) is itself a Monte Carlo estimate, whose noise the absolute
    value does not average away).

Run::

    .venv/bin/python benchmarks/bench_coverage.py --tier exact --replicates 20
    .venv/bin/python benchmarks/bench_coverage.py --tier hierarchical --replicates 10
    .venv/bin/python benchmarks/bench_coverage.py --tier exact latent-class --replicates 20
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

import numpy as np

from judgestats.models import (
    ExactConfig,
    ExactModel,
    HierarchicalConfig,
    HierarchicalModel,
    summarize,
)
from judgestats.models.prior import DEFAULT_CONCENTRATION
from judgestats.models.summary import REPORTED
from judgestats.simulate import exchangeable_cohort, seed002_cohort, simulate
from judgestats.simulate.coverage import (
    coverage_table,
    replicate_coverage,
    shared_difficulty_cohort,
)
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


def single():
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


def fitter(
    tier: str,
    cores: int,
    prior: float = DEFAULT_CONCENTRATION,
    prior_scale: float = 1.0,
    classes_per_label: int | None = None,
):
    if tier == "exact":
        exact = ExactConfig(prior=prior)
        return lambda ds, seed: ExactModel(exact).fit(ds, random_seed=seed)
    if tier == "latent-class":
        from latent_class import LatentClassConfig, LatentClassModel

        latent = LatentClassConfig(prior=prior)
        if classes_per_label is not None:
            latent = replace(latent, classes_per_label=classes_per_label)
        return lambda ds, seed: LatentClassModel(latent).fit(ds, random_seed=seed)
    cfg = HierarchicalConfig(cores=cores, chains=2, prior=prior, prior_scale=prior_scale)
    return lambda ds, seed: HierarchicalModel(cfg).fit(ds, random_seed=seed)


def _progress(seed, hits, seconds):
    share = {q: np.nanmean(h[0.95]) for q, h in hits.items()}
    text = " ".join(f"{q} {v:.2f}" for q, v in share.items())
    print(f"  seed {seed} ({seconds:.0f} s), 95% coverage: {text}", flush=True)


def _save(path, results):
    """Every tier's per-replicate, per-cell arrays in one ``.npz`` (for analysis of cells)."""
    arrays = {}
    for tier, res in results.items():
        arrays[f"{tier}/p_above"] = res.p_above
        arrays[f"{tier}/seconds"] = res.seconds
        for q, by_prob in res.hits.items():
            for p, h in by_prob.items():
                arrays[f"{tier}/hits/{q}/{p}"] = h
        for q, z in res.z.items():
            arrays[f"{tier}/z/{q}"] = z
        for q, u in res.pit.items():
            arrays[f"{tier}/pit/{q}"] = u
    np.savez_compressed(path, **arrays)


def replicates(
    tiers,
    n,
    cores,
    first_seed,
    save=None,
    prior=DEFAULT_CONCENTRATION,
    prior_scale=1.0,
    classes_per_label=None,
    difficulty_sd=1.0,
):
    cfg = shared_difficulty_cohort(difficulty_sd=difficulty_sd)
    seeds = range(first_seed, first_seed + n)
    results = {}
    for tier in tiers:
        fit = fitter(tier, cores, prior, prior_scale, classes_per_label)
        res = replicate_coverage(cfg, fit, seeds, progress=_progress)
        results[tier] = res
        table = coverage_table(res)
        print(f"\n{tier} tier: {res.n_replicates} replicates, {res.seconds.mean():.1f} s per fit")
        print(
            f"{'quantity':<12s} {'prob':>5s} {'mean':>7s} {'sd':>7s} {'mc err':>7s} "
            f"{'min cell':>8s} {'chance':>6s} {'random.':>7s} {'mc err':>7s} {'z sd':>6s} "
            f"{'cells':>5s}"
        )
        for row in table.itertuples():
            print(
                f"{row.quantity:<12s} {row.prob:5.2f} {row.mean:7.3f} {row.sd:7.3f} "
                f"{row.mc_error:7.3f} {row.min_cell:8.2f} {row.min_cell_chance:6.2f} "
                f"{row.randomised:7.3f} {row.randomised_mc_error:7.3f} {row.z_sd:6.2f} "
                f"{row.cells:5d}"
            )
    if save is not None:
        _save(save, results)
    if len(results) == 2:
        a, b = (results[t].p_above for t in tiers)
        gap = np.nanmean(np.abs(a - b), axis=0)
        diff = a - b
        mean = np.nanmean(diff, axis=0)
        se = np.nanstd(diff, axis=0, ddof=1) / np.sqrt(np.sum(np.isfinite(diff), axis=0))
        worst = np.unravel_index(np.nanargmax(np.abs(mean)), mean.shape)
        print(
            f"\nP(judge i above judge j), {tiers[0]} - {tiers[1]} per pair over {n} replicates:"
            f" mean |difference| largest {np.nanmax(gap):.3f}, median {np.nanmedian(gap):.3f};"
            f" |mean difference| largest {abs(mean[worst]):.3f} +- {se[worst]:.3f} (se),"
            f" median {np.nanmedian(np.abs(mean)):.3f}"
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--single", action="store_true", help="the one-dataset figure")
    parser.add_argument(
        "--tier",
        nargs="+",
        choices=["exact", "hierarchical", "latent-class", "both"],
        default=["both"],
        help="one tier, two (compared), or both (exact and hierarchical)",
    )
    parser.add_argument(
        "--replicates", type=int, default=None, help="default: 20 exact, 10 hierarchical"
    )
    parser.add_argument("--cores", type=int, default=1)
    parser.add_argument("--first-seed", type=int, default=1000)
    parser.add_argument(
        "--save", metavar="FILE.npz", help="also save every cell's hits, z-scores and PIT"
    )
    parser.add_argument(
        "--prior",
        type=float,
        default=DEFAULT_CONCENTRATION,
        metavar="ALPHA",
        help="concentration of the Dirichlet-process prior (default: the package's)",
    )
    parser.add_argument(
        "--classes-per-label",
        type=int,
        metavar="D",
        help="the latent-class model's classes per label (default: benchmarks/latent_class.py's)",
    )
    parser.add_argument(
        "--difficulty-sd",
        type=float,
        default=1.0,
        help="the cohort's item difficulty sd (log-odds of agreement)",
    )
    parser.add_argument(
        "--prior-scale",
        type=float,
        default=1.0,
        metavar="S",
        help="the hierarchical tier's prior_scale (the pooling priors' scales times S)",
    )
    args = parser.parse_args()
    if args.single:
        single()
        return
    tiers = ["exact", "hierarchical"] if args.tier == ["both"] else args.tier
    if "both" in tiers or len(tiers) > 2 or len(set(tiers)) < len(tiers):
        parser.error("--tier: one tier, two different tiers, or both")
    # the same replicates for every tier, so that they compare
    n = args.replicates or (20 if tiers == ["exact"] else 10)
    replicates(
        tiers,
        n,
        args.cores,
        args.first_seed,
        args.save,
        args.prior,
        args.prior_scale,
        args.classes_per_label,
        args.difficulty_sd,
    )


if __name__ == "__main__":
    main()
