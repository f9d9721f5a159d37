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
from judgestats.models.conditionals import (
    item_sums,
    item_weighted_counts,
    split_log_probabilities,
)
from judgestats.models.layout import build_layout
from judgestats.models.traits import TRAITS
from judgestats.simulate import simulate, small_cohort
from judgestats.tally import LABEL_CODES

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


def test_weighted_counts_sum_each_items_weight_into_its_leafs_entries(twins):
    # oracle: item by item, the item's weight added to the entries on its leaf's path
    data, layout = twins
    weighted = item_weighted_counts(layout, data, 3, np.random.default_rng(2))
    rng = np.random.default_rng(2)
    expected = np.zeros_like(weighted)
    for c, block in enumerate(layout.blocks):
        bt = data.tally[data.benchmarks[block.benchmark]]
        in_cell = np.flatnonzero(bt.item_label == LABEL_CODES[block.label])
        weights = rng.standard_exponential((3, in_cell.size))
        leaf_entry = block.tree.entry_counts(np.eye(block.tree.leaf_entries.shape[0]))
        cols = layout.entries(c)
        for jj, row in enumerate(data.rows(block.benchmark)):
            for k, item in enumerate(in_cell):
                leaf = bt.item_pattern[jj, item]
                if leaf >= 0:
                    expected[:, row, cols] += weights[:, k, None] * leaf_entry[leaf]
    np.testing.assert_allclose(weighted, expected, rtol=1e-12, atol=1e-12)
    # the sparse sums built once for every block of a fit give the same draws
    sums = item_sums(layout, data)
    for _ in range(2):
        again = item_weighted_counts(layout, data, 3, np.random.default_rng(2), sums)
        np.testing.assert_array_equal(again, weighted)


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


def test_trait_spreads_are_drawn_from_their_inverse_gamma_conditionals(twins):
    # Given the traits u of a (benchmark, trait) group, s2 ~ InvGamma(a + n / 2,
    # b + sum(u**2) / 2): the draws of one group against scipy's inverse gamma (KS
    # test at 0.001, 4,000 draws).
    import xarray as xr

    from judgestats.models.conditionals import trait_spread_draws
    from judgestats.models.hierarchical import trait_groups, trait_mask

    _, layout = twins
    mask = trait_mask(layout)
    group, n_groups = trait_groups(layout, mask)
    u = np.random.default_rng(1).normal(0, 0.5, size=group.size)
    post = xr.Dataset({"trait_u": (("chain", "draw", "p"), np.tile(u, (1, N_DRAW, 1)))})
    a, b = 2.0, 0.5
    sd = trait_spread_draws(layout, post, a, b, np.random.default_rng(2))
    assert sd.shape == (1, N_DRAW, layout.n_benchmarks, len(TRAITS))
    flat = sd.reshape(1, N_DRAW, n_groups)
    g = np.bincount(group).argmax()
    n, sum_sq = (group == g).sum(), (u[group == g] ** 2).sum()
    law = stats.invgamma(a + n / 2, scale=b + sum_sq / 2)
    assert stats.kstest(flat[0, :, g] ** 2, law.cdf).pvalue > 0.001


def test_a_trait_that_is_no_parameter_has_no_spread():
    # one run: run agreement moves nothing, so its spread is undefined, not a prior draw
    import xarray as xr

    from judgestats.models.conditionals import trait_spread_draws
    from judgestats.models.hierarchical import trait_groups, trait_mask
    from judgestats.simulate.sbc import reference_cohort

    data = FitData.from_data(reference_cohort(n_items=40, runs=1))
    layout = build_layout(data, HierarchicalConfig().rare_per_judge)
    group, _ = trait_groups(layout, trait_mask(layout))
    post = xr.Dataset({"trait_u": (("chain", "draw", "p"), np.zeros((1, 3, group.size)))})
    sd = trait_spread_draws(layout, post, 2.0, 0.5, np.random.default_rng(0))
    run_agreement = TRAITS.index("pr_hit")
    assert np.isnan(sd[..., run_agreement]).all()
    assert np.isfinite(sd[..., TRAITS.index("first")]).all()


def test_a_block_of_draws_holds_as_many_as_fit_its_memory_budget(twins, monkeypatch):
    from judgestats.models import conditionals

    data, layout = twins
    cell_items = [
        int(np.sum(data.tally[data.benchmarks[b.benchmark]].item_label == LABEL_CODES[b.label]))
        for b in layout.blocks
    ]
    per_draw = 8 * max(layout.counts.size, *cell_items)  # the largest array's bytes per draw
    monkeypatch.setattr(conditionals, "BLOCK_BYTES", 3 * per_draw + per_draw // 2)
    assert conditionals.draws_per_block(layout, data, 1000) == 3
    monkeypatch.setattr(conditionals, "BLOCK_BYTES", per_draw // 2)  # not even one draw
    assert conditionals.draws_per_block(layout, data, 1000) == 1
    monkeypatch.setattr(conditionals, "BLOCK_BYTES", 2**40)
    assert conditionals.draws_per_block(layout, data, 1000) == 1000
