"""Does pairing alone bring the tiers together? Hierarchical margins, exact-tier dependence.

On replicates of :func:`judgestats.simulate.shared_difficulty_cohort`, the
hierarchical tier's kappa draws of each judge are reordered, chain by chain, so
that their ranks follow the exact tier's paired bootstrap draws of the same judge
(a rank reordering, as in the Schaake shuffle: each judge's margin is unchanged,
the dependence between judges becomes the one of the shared item weights). For the
exact tier, the hierarchical tier and the reordered draws it prints the coverage
of 90% and 95% intervals of kappa differences of two judges (mean over replicates,
Monte Carlo error), the sd of their z-scores, and how far P(judge i ranked above
judge j) is from the exact tier's.

Run: ``.venv/bin/python benchmarks/bench_pairing.py --replicates 6``
"""

from __future__ import annotations

import argparse
import time
from itertools import combinations

import numpy as np

from judgestats.models import ExactModel, HierarchicalConfig, HierarchicalModel
from judgestats.simulate import shared_difficulty_cohort, simulate, truth


def reorder(h: np.ndarray, e: np.ndarray) -> np.ndarray:
    """Draws ``h`` (chain, draw, judge, benchmark) reordered to the ranks of ``e``."""
    out = h.copy()
    for c, j, b in np.ndindex(h.shape[0], h.shape[2], h.shape[3]):
        hv, ev = h[c, :, j, b], e[c, :, j, b]
        if np.isfinite(hv).all() and np.isfinite(ev).all():
            out[c, :, j, b] = np.sort(hv)[np.argsort(np.argsort(ev, kind="stable"))]
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=6)
    parser.add_argument("--first-seed", type=int, default=1000)
    args = parser.parse_args()
    cfg = shared_difficulty_cohort()
    true = truth(cfg)
    names = ("exact", "hierarchical", "reordered")
    res = {k: {"h90": [], "h95": [], "z": [], "above": []} for k in names}
    for seed in range(args.first_seed, args.first_seed + args.replicates):
        ds = simulate(cfg, random_seed=seed).dataset
        dims = ("chain", "draw", "judge", "benchmark")
        e = ExactModel().fit(ds, random_seed=seed)["posterior"]["kappa"].transpose(*dims)
        start = time.perf_counter()
        model = HierarchicalModel(HierarchicalConfig(cores=1))
        h = model.fit(ds, random_seed=seed)["posterior"]["kappa"].transpose(*dims)
        print(f"seed {seed}: hierarchical fit {time.perf_counter() - start:.0f} s", flush=True)
        tk = true["kappa"].sel(judge=h.judge, benchmark=h.benchmark).transpose(*dims[2:]).values
        for name, k in zip(names, (e.values, h.values, reorder(h.values, e.values)), strict=True):
            k = k.reshape(-1, *k.shape[2:])
            i, j = np.array(list(combinations(range(k.shape[1]), 2))).T
            d, td = k[:, i, :] - k[:, j, :], tk[i] - tk[j]
            for p, key in ((0.9, "h90"), (0.95, "h95")):
                lo, hi = np.quantile(d, [(1 - p) / 2, (1 + p) / 2], axis=0)
                res[name][key].append(np.mean((lo <= td) & (td <= hi)))
            res[name]["z"].append(((d.mean(0) - td) / d.std(0)).ravel())
            res[name]["above"].append((d > 0).mean(0))
    for name, r in res.items():
        gap = np.abs(np.array(r["above"]) - np.array(res["exact"]["above"])).mean(0)
        cover = {k: np.array(r[k]) for k in ("h90", "h95")}
        mc = {k: v.std(ddof=1) / np.sqrt(len(v)) for k, v in cover.items()}
        print(
            f"{name:<13s} kappa difference 90%: {cover['h90'].mean():.3f} ± {mc['h90']:.3f}"
            f"  95%: {cover['h95'].mean():.3f} ± {mc['h95']:.3f}"
            f"  z sd {np.concatenate(r['z']).std():.2f}"
            f"  |P(above) - exact| median {np.median(gap):.3f}, max {gap.max():.3f}"
        )


if __name__ == "__main__":
    main()
