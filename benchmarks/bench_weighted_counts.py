"""The hierarchical tier's item-weighted entry counts: sparse item sums against dense.

Run: ``.venv/bin/python benchmarks/bench_weighted_counts.py [--scales 1,10] [--rounds 3]``

:func:`judgestats.models.conditionals.item_weighted_counts` gives, per draw, every
judge's entry counts with each item weighted by a shared ``Exp(1)`` draw: once per
block of draws of a fit (:func:`~judgestats.models.conditionals.draws_per_block`),
timed here on 250 draws. It sums each leaf's item weights (a sparse product, one pass
over the items) and spreads them over the leaf's entries. The form it replaced
multiplied the draws' item weights by a dense (item, entry) matrix per judge. Both are
timed here on the seed-002 cohort at each scale, in alternating rounds in one process
(fastest round of each), on the same weights; the table gives the ratio and the
largest relative difference between them.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

DRAWS = 250  # draws weighted at once


def dense(lay, data, n_draw: int, rng: np.random.Generator) -> np.ndarray:
    """The dense form: per judge, the judged items' weights times their leaves' entries."""
    from judgestats.tally import LABEL_CODES

    out = np.zeros((n_draw, *lay.counts.shape))
    for c, block in enumerate(lay.blocks):
        bt = data.tally[data.benchmarks[block.benchmark]]
        in_cell = np.flatnonzero(bt.item_label == LABEL_CODES[block.label])
        weights = rng.standard_exponential((n_draw, in_cell.size))
        leaf_entry = block.tree.entry_counts(np.eye(block.tree.leaf_entries.shape[0]))
        for jj, row in enumerate(data.rows(block.benchmark)):
            pattern = bt.item_pattern[jj, in_cell]
            judged = pattern >= 0
            if judged.any():
                out[:, row, lay.entries(c)] = weights[:, judged] @ leaf_entry[pattern[judged]]
    return out


def main() -> None:
    """Time both forms at each scale and print a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", default="1,10")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    from judgestats.models.base import FitData
    from judgestats.models.conditionals import item_weighted_counts
    from judgestats.models.hierarchical import HierarchicalConfig
    from judgestats.models.layout import build_layout
    from judgestats.simulate import seed002_cohort, simulate
    from judgestats.tally import tally

    print(f"{'scale':>6} {'items':>7} {'entries':>8} {'sparse s':>9} {'dense s':>8} "
          f"{'ratio':>6} {'max rel diff':>13}")  # fmt: skip
    for scale in args.scales.split(","):
        sim = simulate(seed002_cohort(), random_seed=0, scale=float(scale))
        data = FitData.from_data(tally(sim.dataset))
        lay = build_layout(data, HierarchicalConfig().rare_per_judge)
        best = {"sparse": np.inf, "dense": np.inf}
        for _ in range(args.rounds):
            for name, fn in (("sparse", item_weighted_counts), ("dense", dense)):
                start = time.perf_counter()
                out = fn(lay, data, DRAWS, np.random.default_rng(1))
                best[name] = min(best[name], time.perf_counter() - start)
                if name == "sparse":
                    fast = out
        ref = dense(lay, data, DRAWS, np.random.default_rng(1))
        diff = np.max(np.abs(fast - ref) / np.maximum(np.abs(ref), 1e-300))
        items = sum(len(bt.items) for bt in data.tally)
        print(
            f"{scale + 'x':>6} {items:>7} {lay.counts.shape[-1]:>8} {best['sparse']:>9.3f}"
            f" {best['dense']:>8.3f} {best['dense'] / best['sparse']:>6.1f} {diff:>13.1e}"
        )


if __name__ == "__main__":
    main()
