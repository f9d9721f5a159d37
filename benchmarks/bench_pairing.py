"""What the hierarchical tier's item coupling buys: kappa differences of two judges.

On replicates of :func:`judgestats.simulate.shared_difficulty_cohort` (a shared item
difficulty; ``--difficulty-sd`` sets how strong), it fits the exact tier and the
hierarchical tier twice, with its judges coupled through the items they rated (the
default, ``pair_items=True``; see :mod:`judgestats.models.conditionals`) and drawn
independently given the hyper-parameters (``pair_items=False``; same seed, so the
same hyper-parameter draws). For each it prints the coverage of 90% and 95%
intervals of kappa differences of two judges (mean over replicates, Monte Carlo
error), the sd of their z-scores, the median correlation of two judges' kappa draws,
and how far P(judge i ranked above judge j) is from the exact tier's.

Run: ``.venv/bin/python benchmarks/bench_pairing.py --replicates 6``
"""

from __future__ import annotations

import argparse
import time
from itertools import combinations

import numpy as np

from judgestats.models import ExactModel, HierarchicalConfig, HierarchicalModel
from judgestats.simulate import shared_difficulty_cohort, simulate, truth


def _pair_correlation(k: np.ndarray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Correlation of the draws of judges ``i`` and ``j``, per pair and benchmark."""
    z = (k - k.mean(0)) / k.std(0)
    return (z[:, i, :] * z[:, j, :]).mean(0).ravel()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=6)
    parser.add_argument("--first-seed", type=int, default=1000)
    parser.add_argument("--judges", type=int, default=8)
    parser.add_argument("--difficulty-sd", type=float, default=1.0)
    args = parser.parse_args()
    cfg = shared_difficulty_cohort(args.judges, difficulty_sd=args.difficulty_sd)
    true = truth(cfg)
    names = ("exact", "hierarchical, paired", "hierarchical, independent")
    res = {k: {"h90": [], "h95": [], "z": [], "above": [], "corr": []} for k in names}
    for seed in range(args.first_seed, args.first_seed + args.replicates):
        ds = simulate(cfg, random_seed=seed).dataset
        dims = ("chain", "draw", "judge", "benchmark")
        e = ExactModel().fit(ds, random_seed=seed)["posterior"]["kappa"].transpose(*dims)
        fits = [e.values]
        for pair in (True, False):
            start = time.perf_counter()
            model = HierarchicalModel(HierarchicalConfig(cores=1, pair_items=pair))
            h = model.fit(ds, random_seed=seed)["posterior"]["kappa"].transpose(*dims)
            print(f"seed {seed}: hierarchical fit {time.perf_counter() - start:.0f} s", flush=True)
            fits.append(h.values)
        tk = true["kappa"].sel(judge=e.judge, benchmark=e.benchmark).transpose(*dims[2:]).values
        for name, k in zip(names, fits, strict=True):
            k = k.reshape(-1, *k.shape[2:])
            i, j = np.array(list(combinations(range(k.shape[1]), 2))).T
            d, td = k[:, i, :] - k[:, j, :], tk[i] - tk[j]
            for p, key in ((0.9, "h90"), (0.95, "h95")):
                lo, hi = np.quantile(d, [(1 - p) / 2, (1 + p) / 2], axis=0)
                res[name][key].append(np.mean((lo <= td) & (td <= hi)))
            res[name]["z"].append(((d.mean(0) - td) / d.std(0)).ravel())
            res[name]["above"].append((d > 0).mean(0))
            res[name]["corr"].append(_pair_correlation(k, i, j))
    for name, r in res.items():
        gap = np.abs(np.array(r["above"]) - np.array(res["exact"]["above"])).mean(0)
        cover = {k: np.array(r[k]) for k in ("h90", "h95")}
        mc = {k: v.std(ddof=1) / np.sqrt(len(v)) for k, v in cover.items()}
        print(
            f"{name:<26s} kappa difference 90%: {cover['h90'].mean():.3f} ± {mc['h90']:.3f}"
            f"  95%: {cover['h95'].mean():.3f} ± {mc['h95']:.3f}"
            f"  z sd {np.concatenate(r['z']).std():.2f}"
            f"  corr median {np.nanmedian(np.concatenate(r['corr'])):.2f}"
            f"  |P(above) - exact| median {np.median(gap):.3f}, max {gap.max():.3f}"
        )


if __name__ == "__main__":
    main()
