"""Replicated inter-judge agreement: the compiled one-pass kernel vs a sort in NumPy.

Run: ``.venv/bin/python benchmarks/bench_ppc_matches.py [--draws 500] [--rounds 2]``

The predictive check of inter-judge agreement replicates every judge's pattern on
every item in every replicated draw and counts the matching pairs of judges item by
item (:func:`judgestats.models.ppc._replicated_matches`). Timed here on 21 judges
with random pattern distributions, at about the seed-002 cohort's size of a
(benchmark, label) cell at 1x (1,400 items, 60 patterns) and at 10x (14,000 items,
120 patterns), in alternating rounds in one process, against the way it was done
before: the patterns found by a binary search of every (draw, judge) row in NumPy,
then sorted per item to count equal neighbours. Both take the same uniforms, so their
counts are checked equal.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from judgestats.models import ppc

JUDGES = 21
SIZES = ((1_400, 60), (14_000, 120))


def _numpy_matches(theta: np.ndarray, shown: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The replicated matches by a NumPy search and a sort per item, block by block."""
    step = max(1, ppc._BLOCK_ELEMENTS // (theta.shape[1] * shown.shape[1]))
    out = []
    for a in range(0, len(theta), step):
        block = theta[a : a + step]
        n_draw, n_judge, n_k = block.shape
        cdf = np.cumsum(block, -1)
        cdf[..., -1] = 1.0
        u = rng.random((n_draw, n_judge, shown.shape[1]))
        offset = np.arange(n_draw * n_judge, dtype=float).reshape(n_draw, n_judge, 1)
        k = np.searchsorted((cdf + offset).ravel(), (u + offset).ravel(), side="right")
        k = k.reshape(u.shape) - (offset * n_k).astype(np.int64)
        k = np.where(shown[None], k, -1 - np.arange(n_judge)[None, :, None])
        k = np.sort(k.transpose(0, 2, 1), axis=-1)  # (draw, item, judge)
        position = np.arange(n_judge)
        starts = np.ones(k.shape, dtype=bool)
        starts[..., 1:] = k[..., 1:] != k[..., :-1]
        run_start = np.maximum.accumulate(np.where(starts, position, 0), axis=-1)
        out.append((position - run_start).sum((1, 2)).astype(float))
    return np.concatenate(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=500, help="replicated draws")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    ppc._compiled_count_matches()  # compiled (or loaded) before timing
    print(f"{'items':>6s} {'patterns':>8s} {'numpy s':>8s} {'kernel s':>8s} {'ratio':>6s}")
    for n_item, n_k in SIZES:
        theta = rng.dirichlet(np.ones(n_k), size=(args.draws, JUDGES))
        shown = rng.random((JUDGES, n_item)) < 0.95
        times: dict[str, list[float]] = {"numpy": [], "kernel": []}
        for _ in range(args.rounds):
            for name, fn in (("numpy", _numpy_matches), ("kernel", ppc._replicated_matches)):
                start = time.perf_counter()
                counts = fn(theta, shown, np.random.default_rng(1))
                times[name].append(time.perf_counter() - start)
                if name == "numpy":
                    reference = counts
                else:
                    np.testing.assert_array_equal(counts, reference)
        numpy_s, kernel_s = min(times["numpy"]), min(times["kernel"])
        print(f"{n_item:6d} {n_k:8d} {numpy_s:8.3f} {kernel_s:8.3f} {numpy_s / kernel_s:6.1f}")


if __name__ == "__main__":
    main()
