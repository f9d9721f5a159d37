"""The hierarchical tier's post-sampling draws: judges coupled through shared items.

The coupled draw of a split probability must keep the exact Beta conditional of every
judge (oracle: scipy's Beta distribution) and add only the dependence that rating the
same items brings: two judges with identical verdicts on the same items get
near-identical draws when the data dominate the pooling, independent ones do not.
"""

import numpy as np
import pytest
from scipy import stats

from judgestats.models import HierarchicalConfig
from judgestats.models.base import FitData
from judgestats.models.conditionals import item_weighted_counts, split_log_probabilities
from judgestats.models.layout import build_layout
from judgestats.models.traits import TRAITS
from judgestats.simulate import simulate, small_cohort

N_DRAW = 4000
LOG_KAPPA = np.log(2.0)  # few pseudo-items: the items decide


class _Ones:
    """A generator whose exponential draws are all 1."""

    def standard_exponential(self, shape):
        return np.ones(shape)


@pytest.fixture(scope="module")
def twins():
    """The small cohort with its second judge's verdicts replaced by the first's."""
    ds = simulate(small_cohort(), random_seed=0).dataset.copy(deep=True)
    ds["verdict"][dict(judge=1)] = ds["verdict"].isel(judge=0).values
    data = FitData.from_data(ds)
    return data, build_layout(data, HierarchicalConfig().rare_per_judge)


def _draw(layout, weighted, rng):
    n_split = layout.n_splits
    eta = np.zeros((N_DRAW, n_split))
    trait = np.zeros((N_DRAW, layout.counts.shape[0], len(layout.blocks), len(TRAITS)))
    log_kappa = np.full((N_DRAW, n_split), LOG_KAPPA)
    log_v, _ = split_log_probabilities(layout, eta, trait, log_kappa, rng, weighted)
    return np.exp(log_v)


def _pseudo_items(layout):
    """Pseudo-items (a, b) of every split at eta = 0, no traits: the code's own mean."""
    zero = np.zeros((1, layout.n_splits))
    mass = layout.split_mass(-np.logaddexp(0, -zero), -np.logaddexp(0, zero))[0]
    return np.exp(LOG_KAPPA + mass) * 0.5


def test_unit_weights_give_the_counts(twins):
    data, layout = twins
    weighted = item_weighted_counts(layout, data, 3, _Ones())
    for d in range(3):
        np.testing.assert_array_equal(weighted[d], layout.counts)


def test_coupled_draws_keep_every_judges_beta_conditional(twins):
    data, layout = twins
    rng = np.random.default_rng(5)
    v = _draw(layout, item_weighted_counts(layout, data, N_DRAW, rng), rng)
    succ, rest = layout.split_counts(layout.counts)
    a = _pseudo_items(layout)
    tested = 0
    for j in range(layout.counts.shape[0]):
        for s in np.flatnonzero((succ[j] > 0) & (rest[j] > 0))[:6]:
            oracle = stats.beta(a[s] + succ[j, s], a[s] + rest[j, s])
            assert stats.kstest(v[:, j, s], oracle.cdf).pvalue > 0.001, (j, s)
            tested += 1
    assert tested >= 12


def test_judges_with_the_same_verdicts_are_paired_only_when_coupled(twins):
    data, layout = twins
    succ, rest = layout.split_counts(layout.counts)
    # splits the twins reach with many items on both sides
    big = np.flatnonzero((succ[0] >= 8) & (rest[0] >= 8))
    assert big.size >= 3
    rng = np.random.default_rng(6)
    paired = _draw(layout, item_weighted_counts(layout, data, N_DRAW, rng), rng)
    alone = _draw(layout, None, rng)
    for s in big:
        assert np.corrcoef(paired[:, 0, s], paired[:, 1, s])[0, 1] > 0.8
        assert abs(np.corrcoef(alone[:, 0, s], alone[:, 1, s])[0, 1]) < 0.1
