"""Speed of the model tiers on the simulated seed-002 cohort, and the ratio to a
straightforward per-judgment PyMC model measured in the same run on the same data.

Run: ``.venv/bin/python benchmarks/bench_models.py [--scale 0.2] [--draws 1000]``

The per-judgment model has the same pooling idea (each judge's verdict
distribution per benchmark, label and order is Dirichlet around a benchmark mean)
but one Categorical likelihood term per judgment; it needs minutes where the
tallied model needs seconds, so by default both are compared on a subset of the
cohort (``--scale``) and the full cohort is timed for the judgestats tiers only.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from judgestats.models import ExactModel, HierarchicalConfig, HierarchicalModel
from judgestats.simulate import seed002_cohort, simulate
from judgestats.tally import consensus_label, tally


def timed(label, fn):
    start = time.perf_counter()
    out = fn()
    elapsed = time.perf_counter() - start
    print(f"{label:<58s} {elapsed:8.2f} s", flush=True)
    return out, elapsed


def per_judgment_fit(ds, draws, tune, seed):
    """One Categorical term per judgment (the design judgestats avoids).

    Sampled with BLAS held as the tier's own sampler holds it
    (:func:`judgestats.parallel.blas_threads`), so that the two are timed alike.
    """
    import pymc as pm

    from judgestats.parallel import blas_threads

    chains = 2

    v = ds["verdict"].transpose("judge", "item", "order", "run").values
    label = consensus_label(ds["human"].values)
    bench = np.unique(ds["benchmark"].values, return_inverse=True)[1]
    j, i, o, _ = np.nonzero(v >= 0)
    y = v[j, i, o, np.nonzero(v >= 0)[3]]
    lab = np.where(label[i] < 0, 3, label[i])
    nj, nb, no = v.shape[0], bench.max() + 1, v.shape[2]
    with pm.Model():
        mu = pm.Dirichlet("mu", a=np.ones(4), shape=(nb, 4, no, 4))
        log_kappa = pm.Normal("log_kappa", 4.6, 1.5)
        theta = pm.Dirichlet(
            "theta", a=pm.math.exp(log_kappa) * mu[None] + 1e-3, shape=(nj, nb, 4, no, 4)
        )
        pm.Categorical("y", p=theta[j, bench[i], lab, o], observed=y)
        with blas_threads(chains):
            pm.sample(
                draws=draws,
                tune=tune,
                chains=chains,
                cores=chains,
                random_seed=seed,
                progressbar=False,
                compute_convergence_checks=False,
            )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=0.2, help="subset for the comparison")
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--skip-full", action="store_true", help="skip the full-cohort timings")
    args = parser.parse_args()
    cfg = HierarchicalConfig(draws=args.draws, tune=args.draws)

    if not args.skip_full:
        full = simulate(seed002_cohort(), random_seed=1).dataset
        n = int((full["verdict"].values >= 0).sum())
        print(f"full seed-002 cohort: {n:,} judgments")
        t, _ = timed("tally", lambda: tally(full))
        timed("exact tier (2 x 1000 draws)", lambda: ExactModel().fit(t, random_seed=1))
        timed(
            f"hierarchical tier incl. compile (2 x {args.draws})",
            lambda: HierarchicalModel(cfg).fit(t, random_seed=1),
        )

    sub = simulate(seed002_cohort(), random_seed=2, scale=args.scale).dataset
    n = int((sub["verdict"].values >= 0).sum())
    print(f"comparison subset (scale {args.scale}): {n:,} judgments")
    _, ours = timed(
        "judgestats hierarchical, tally + fit incl. compile",
        lambda: HierarchicalModel(cfg).fit(tally(sub), random_seed=1),
    )
    _, naive = timed(
        "per-judgment Categorical model incl. compile",
        lambda: per_judgment_fit(sub, args.draws, args.draws, 1),
    )
    print(f"ratio per-judgment / judgestats: {naive / ours:.1f}x")


if __name__ == "__main__":
    main()
