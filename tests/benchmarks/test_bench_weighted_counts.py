"""bench_weighted_counts times the tier's function against the dense form it replaced."""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import bench_weighted_counts


def test_the_dense_form_gives_the_tiers_weighted_counts():
    from judgestats.models.base import FitData
    from judgestats.models.conditionals import item_weighted_counts
    from judgestats.models.hierarchical import HierarchicalConfig
    from judgestats.models.layout import build_layout
    from judgestats.simulate import seed002_cohort, simulate

    data = FitData.from_data(simulate(seed002_cohort(), random_seed=0, scale=0.1).dataset)
    lay = build_layout(data, HierarchicalConfig().rare_per_judge)
    dense = bench_weighted_counts.dense(lay, data, 7, np.random.default_rng(3))
    sparse = item_weighted_counts(lay, data, 7, np.random.default_rng(3))
    assert dense.any()
    np.testing.assert_allclose(sparse, dense, rtol=1e-12, atol=1e-12)
