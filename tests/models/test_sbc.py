"""Simulation-based calibration of the hierarchical tier (Talts et al. 2018).

The calibration itself (100 refits, minutes) runs with ``--run-calibration``; the
parts it is built from are tested on their own: the rank test accepts uniform ranks
and rejects skewed ones, and the simulated counts keep every judge's items per cell.
"""

import numpy as np
import pytest

from judgestats.models import HierarchicalConfig
from judgestats.models.base import FitData
from judgestats.models.hierarchical import build_pymc_model
from judgestats.simulate.sbc import (
    SBCResult,
    _prior_traits,
    _simulate_counts,
    rank_uniformity,
    reference_cohort,
    sbc_ranks,
)

LEVEL = 0.01


def _result(ranks):
    return SBCResult({"x": ranks}, 99, np.zeros(len(ranks), dtype=int))


def test_rank_test_accepts_uniform_and_rejects_skewed_ranks():
    rng = np.random.default_rng(0)
    uniform = rng.integers(0, 100, size=(200, 5))
    assert rank_uniformity(_result(uniform))["x"] > LEVEL
    narrow = np.where(rng.random((200, 5)) < 0.5, 0, 99)  # a U: intervals too narrow
    narrow[:, 1:] = uniform[:, 1:]  # one bad parameter among five is enough
    assert rank_uniformity(_result(narrow))["x"] < LEVEL
    skewed = np.minimum(uniform, rng.integers(0, 100, size=(200, 5)))
    assert rank_uniformity(_result(skewed))["x"] < LEVEL


@pytest.mark.slow  # builds the PyMC model and its prior sampler: about 30 s
def test_simulated_counts_keep_every_judges_items_per_cell():
    import pymc as pm

    ref = reference_cohort()
    built = build_pymc_model(FitData.from_data(ref), HierarchicalConfig())
    lay = built.layout
    with built.model:
        prior = (
            pm.sample_prior_predictive(draws=5, var_names=["eta", "log_kappa"], random_seed=1)[
                "prior"
            ]
            .isel(chain=0)
            .to_dataset()
        )
    rng = np.random.default_rng(2)
    _, trait = _prior_traits(lay, HierarchicalConfig(), 5, rng)
    prior["trait"] = (("draw", "judge", "cell", "trait_name"), trait)
    differ = 0
    for s in range(5):
        counts = _simulate_counts(lay, prior, s, rng)
        for c, block in enumerate(lay.blocks):
            root = np.flatnonzero(block.tree.entry_node == 0)
            cols = counts[:, lay.entries(c)]
            np.testing.assert_array_equal(cols[:, root].sum(1), lay.cell_items[:, c])
        differ += not np.array_equal(counts, lay.counts)
    assert differ == 5


@pytest.mark.calibration  # 100 refits of the hierarchical tier: many minutes
def test_hierarchical_tier_passes_simulation_based_calibration():
    cfg = HierarchicalConfig(draws=300, tune=300, cores=1)
    res = sbc_ranks(reference_cohort(), 100, config=cfg, random_seed=1)
    p = rank_uniformity(res)
    assert set(p) >= {"eta", "log_kappa_level", "trait"}
    assert min(p.values()) > LEVEL, p
    assert (res.divergences > 0).mean() <= 0.05
