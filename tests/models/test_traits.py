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


@pytest.fixture(scope="module")
def layout3():
    res = simulate(exchangeable_cohort(3, random_seed=1), random_seed=2)
    data = FitData.from_data(res.dataset)
    return data, build_layout(data, HierarchicalConfig().rare_per_judge)


def _empirical_logits(data, lay):
    """Split log-odds of every cell's pooled patterns, with split_loadings' pseudo-count."""
    eta = np.zeros(lay.n_splits)
    for c, (bi, li) in enumerate(lay.cells):
        bt = data.tally[data.benchmarks[bi]]
        s = np.flatnonzero(lay.split_cell == c)
        entries = lay.entries(c)
        weights = with_novel(bt.counts[:, li, :].sum(0)) + 0.01
        eta[s] = _split_log_odds(
            lay.trees[c],
            weights,
            lay.split_entry[s] - entries.start,
            lay.later[np.ix_(s, np.arange(entries.start, entries.stop))],
        )
    return eta


def _log_sigmoid_pair(eta):
    return -np.logaddexp(0, -eta), -np.logaddexp(0, eta)


def test_split_logits_are_the_exact_tilt_of_the_cell_mean(layout3):
    _, lay = layout3
    rng = np.random.default_rng(3)
    eta = rng.normal(0, 1.5, lay.n_splits)
    n_judges, n_cells = lay.cell_items.shape
    trait = rng.normal(0, 1.0, (n_judges, n_cells, len(TRAITS)))
    got = lay.split_logits(*_log_sigmoid_pair(eta), trait)
    # at trait 0: the benchmark mean itself
    zero = lay.split_logits(*_log_sigmoid_pair(eta), np.zeros_like(trait))
    np.testing.assert_allclose(zero, np.broadcast_to(eta, zero.shape), atol=1e-12)
    # otherwise: the log-odds of the leaf distribution p * exp(scores @ trait), built
    # leaf by leaf from the tree's own entry probabilities
    entry_p = np.exp(lay.entry_log_prob(*_log_sigmoid_pair(eta)))
    for c in range(n_cells):
        tree, entries = lay.trees[c], lay.entries(c)
        s = np.flatnonzero(lay.split_cell == c)
        leaves = lay.leaf_cell == c
        p = tree.leaf_probabilities(entry_p[entries])
        assert p.sum() == pytest.approx(1.0)
        later = lay.later[np.ix_(s, np.arange(entries.start, entries.stop))]
        for j in range(n_judges):
            q = p * np.exp(lay.scores[leaves] @ trait[j, c])
            want = _split_log_odds(tree, q, lay.split_entry[s] - entries.start, later)
            np.testing.assert_allclose(got[j, s], want, rtol=1e-10, atol=1e-10)


def test_the_tilt_moves_the_splits_by_their_loadings_at_the_cell_mean(layout3):
    data, lay = layout3
    eta = _empirical_logits(data, lay)
    n_judges, n_cells = lay.cell_items.shape
    eps = 1e-6
    for t in range(len(TRAITS)):
        step = np.zeros((n_judges, n_cells, len(TRAITS)))
        step[..., t] = eps
        up = lay.split_logits(*_log_sigmoid_pair(eta), step)
        down = lay.split_logits(*_log_sigmoid_pair(eta), -step)
        np.testing.assert_allclose((up - down)[0] / (2 * eps), lay.loadings[:, t], atol=1e-6)


def test_a_strong_trait_reaches_feature_means_a_linear_shift_does_not(layout3):
    # The tilt is an exponential family in the trait, its mean feature that of the
    # tilted leaf weights; a shift of every split's log-odds by loadings @ trait is
    # only its first-order approximation, which falls behind for a strong trait.
    data, lay = layout3
    eta = _empirical_logits(data, lay)
    t = TRAITS.index("first")
    c = int(lay.leaf_cell[np.flatnonzero(lay.scores[:, t])[0]])
    tree, entries = lay.trees[c], lay.entries(c)
    z = lay.scores[lay.leaf_cell == c, t]

    def leaf_p(logit):
        entry_p = np.exp(lay.entry_log_prob(*_log_sigmoid_pair(logit)))
        return tree.leaf_probabilities(entry_p[entries])

    trait = np.zeros((1, len(lay.blocks), len(TRAITS)))
    trait[0, c, t] = 3.0
    base = leaf_p(eta) @ z
    tilted = leaf_p(lay.split_logits(*_log_sigmoid_pair(eta), trait)[0]) @ z
    linear = leaf_p(eta + 3.0 * lay.loadings[:, t]) @ z
    q = leaf_p(eta) * np.exp(3.0 * z)
    assert tilted == pytest.approx(q @ z / q.sum(), rel=1e-9)
    assert tilted > base
    assert linear - base < 0.5 * (tilted - base)  # measured: 0.24 against 2.63 sd


def test_the_model_graph_and_the_draws_compute_the_same_tilt(layout3):
    import pytensor
    import pytensor.tensor as pt

    from judgestats.models.layout import apply_pt

    _, lay = layout3
    rng = np.random.default_rng(5)
    eta = rng.normal(0, 1.5, lay.n_splits)
    trait = rng.normal(0, 1.0, (*lay.cell_items.shape, len(TRAITS)))
    e, tr = pt.vector("eta"), pt.tensor3("trait")
    graph = lay.split_logits(-pt.softplus(-e), -pt.softplus(e), tr, apply=apply_pt)
    f = pytensor.function([e, tr], graph)
    np.testing.assert_allclose(
        f(eta, trait), lay.split_logits(*_log_sigmoid_pair(eta), trait), rtol=1e-10, atol=1e-10
    )
