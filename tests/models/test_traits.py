"""Trait loadings: the derivative of each split's log-odds under an exponential tilt."""

import numpy as np
import pytest

from judgestats.features import feature_index
from judgestats.models.base import FitData
from judgestats.models.hierarchical import HierarchicalConfig
from judgestats.models.layout import build_layout, with_novel
from judgestats.models.traits import SD_FLOOR, TRAITS, split_loadings
from judgestats.simulate import exchangeable_cohort, simulate


def _cell(lay, bt, c):
    """Arguments of split_loadings for cell c, as the layout builds them."""
    _, li = lay.cells[c]
    tree = lay.trees[c]
    s_idx = np.flatnonzero(lay.split_cell == c)
    sl = slice(lay.entry_offset[c], lay.entry_offset[c] + tree.n_entries)
    later = lay.later[s_idx, sl]
    return (
        tree,
        with_novel(bt.counts[:, li, :].sum(0)),  # the novel leaf: no items, G0's mean
        lay.leaf_features[c],
        lay.split_entry[s_idx] - lay.entry_offset[c],
        later,
    )


def _split_log_odds(tree, leaf_weights, split_entry, later):
    """Log-odds of every split under leaf weights: mass of its child vs the later ones."""
    mass = tree.entry_counts(leaf_weights)
    return np.log(mass[split_entry]) - np.log(later @ mass)


@pytest.fixture(scope="module")
def first_cell():
    res = simulate(exchangeable_cohort(3, random_seed=1), random_seed=2)
    data = FitData.from_data(res.dataset)
    lay = build_layout(data, HierarchicalConfig().rare_per_judge)
    return _cell(lay, next(iter(data.tally)), 0)


def test_loadings_are_the_derivative_of_an_exponential_tilt(first_cell):
    tree, w, feats, split_entry, later = first_cell
    loadings = split_loadings(tree, w, feats, split_entry, later)
    weights = w + 0.01  # the pseudo-count split_loadings uses
    for t, name in enumerate(TRAITS):
        if not np.any(loadings[:, t]):
            continue
        f = feats[:, feature_index(name)].astype(float)
        sd = np.sqrt(np.cov(f, aweights=weights, bias=True))
        eps = 1e-5
        up = _split_log_odds(tree, weights * np.exp(eps * f / sd), split_entry, later)
        down = _split_log_odds(tree, weights * np.exp(-eps * f / sd), split_entry, later)
        np.testing.assert_allclose(loadings[:, t], (up - down) / (2 * eps), atol=1e-5)


def test_constant_and_collinear_traits_have_no_loadings(first_cell):
    tree, w, feats, split_entry, later = first_cell
    feats = feats.copy()
    feats[:, feature_index("pr_hit")] = 3.0  # constant: as with a single run
    feats[:, feature_index("flip")] = 2 * feats[:, feature_index("n_a")]  # collinear
    loadings = split_loadings(tree, w, feats, split_entry, later)
    assert not np.any(loadings[:, TRAITS.index("pr_hit")])
    assert not np.any(loadings[:, TRAITS.index("flip")])
    assert np.any(loadings[:, TRAITS.index("n_a")])
    assert np.any(loadings[:, TRAITS.index("first")])


def test_a_feature_seen_on_a_handful_of_items_is_standardised_by_the_floor(first_cell):
    # One pattern showing an invalid answer carries almost no weight: its sd would be
    # tiny, and its loadings in the thousands (no finite starting point of the sampler).
    tree, w, feats, split_entry, later = first_cell
    t = TRAITS.index("invalid")
    f = np.zeros(len(w))
    f[np.argmin(w)] = 1.0
    feats = feats.copy()
    feats[:, feature_index("invalid")] = f
    heavy = w * 1e4  # a benchmark of many items: the one pattern is ever rarer
    loadings = split_loadings(tree, heavy, feats, split_entry, later)[:, t]
    weights = heavy + 0.01
    sd = np.sqrt(np.cov(f, aweights=weights, bias=True))
    assert sd < SD_FLOOR  # the floor binds
    # the tilt's derivative, for the feature standardised by the floor
    eps = 1e-5
    up = _split_log_odds(tree, weights * np.exp(eps * f / SD_FLOOR), split_entry, later)
    down = _split_log_odds(tree, weights * np.exp(-eps * f / SD_FLOOR), split_entry, later)
    np.testing.assert_allclose(loadings, (up - down) / (2 * eps), atol=1e-4)
    assert np.abs(loadings).max() <= 1 / SD_FLOOR + 1e-9
