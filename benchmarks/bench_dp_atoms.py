"""Dense against sparse atom weights in the Dirichlet-process draws of a novel item.

Run: ``.venv/bin/python benchmarks/bench_dp_atoms.py [--atoms 16,64,128,256,512,1024,2448]``

:func:`judgestats.models.prior.dp_feature_draws` sums, per draw, the features of the
atoms its sticks picked, weighted by the sticks' shares. With few atoms the weights
of a block of draws are one dense (draw, atom) matrix times the atoms' features;
with many, a sparse matrix with a row of 24 sticks per draw. Both are timed here on
the same 8,192 draws of 44 features per atom count (fastest of ``--rounds``), and
checked to agree; :data:`judgestats.models.prior._DENSE_ATOMS` is where the dense
form stops being the cheaper.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy import sparse

from judgestats.models import prior

DRAWS, FEATURES, STICKS = 8192, 44, 24


def _sparse(shares: np.ndarray, picks: np.ndarray, atoms: np.ndarray) -> np.ndarray:
    rows = np.repeat(np.arange(len(shares)), shares.shape[1])
    weights = sparse.csr_array(
        (shares.ravel(), (rows, picks.ravel())), shape=(len(shares), len(atoms))
    )
    return np.asarray(weights @ atoms)


def _dense(shares: np.ndarray, picks: np.ndarray, atoms: np.ndarray) -> np.ndarray:
    saved, prior._DENSE_ATOMS = prior._DENSE_ATOMS, len(atoms)
    try:
        return prior._weighted_atoms(shares, picks, atoms)
    finally:
        prior._DENSE_ATOMS = saved


def main() -> None:
    """Time both forms per atom count."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--atoms", default="16,64,128,256,512,1024,2448")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    print(f"{'atoms':>6s} {'dense ms':>9s} {'sparse ms':>10s} {'max diff':>9s}")
    for k in (int(a) for a in args.atoms.split(",")):
        atoms = rng.random((k, FEATURES))
        shares = rng.dirichlet(np.ones(STICKS), size=DRAWS)
        picks = rng.integers(0, k, (DRAWS, STICKS))
        best = {}
        for name, fn in (("dense", _dense), ("sparse", _sparse)):
            times = []
            for _ in range(args.rounds):
                start = time.perf_counter()
                best[name + "_out"] = fn(shares, picks, atoms)
                times.append(time.perf_counter() - start)
            best[name] = min(times)
        diff = np.abs(best["dense_out"] - best["sparse_out"]).max()
        print(f"{k:6d} {best['dense'] * 1e3:9.2f} {best['sparse'] * 1e3:10.2f} {diff:9.1e}")


if __name__ == "__main__":
    main()
