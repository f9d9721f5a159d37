"""The compiled likelihood of the hierarchical tier against independent oracles.

Oracles: :mod:`scipy.special` for the rising factorials, :func:`scipy.stats.betabinom`
for every (judge, split) term with the split probabilities of the array path
(:meth:`~judgestats.models.layout.Layout.split_logits`), PyTensor's automatic
gradient of the same likelihood written as a graph, and finite differences.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special, stats

from judgestats.models.base import FitData
from judgestats.models.hierarchical import (
    HierarchicalConfig,
    build_pymc_model,
    count_data,
    trait_mask,
)
from judgestats.models.kernels import (
    SMALL_COUNT,
    graph_log_likelihood,
    tree_inputs,
    tree_log_likelihood,
    tree_loglik,
    tree_loglik_op,
)
from judgestats.models.layout import apply_pt, build_layout
from judgestats.models.traits import TRAITS
from judgestats.simulate import exchangeable_cohort, seed002_cohort, simulate


@pytest.fixture(scope="module", params=["exchangeable", "seed002"])
def layout(request):
    if request.param == "exchangeable":
        res = simulate(exchangeable_cohort(3, random_seed=1), random_seed=2)
    else:
        res = simulate(seed002_cohort(), random_seed=0, scale=0.05)
    data = FitData.from_data(res.dataset)
    return build_layout(data, HierarchicalConfig().rare_per_judge)


def _point(lay, seed=0):
    """A random point: split logits, masked traits, log pooling strengths, judge offsets."""
    rng = np.random.default_rng(seed)
    eta = rng.normal(0, 1.5, lay.n_splits)
    trait = rng.normal(0, 0.7, (*lay.cell_items.shape, len(TRAITS))) * trait_mask(lay)
    log_kappa = rng.normal(2.0, 1.5, lay.n_splits)
    judge_conc = rng.normal(0.0, 0.5, (lay.cell_items.shape[0], lay.n_benchmarks))
    return eta, trait, log_kappa, judge_conc


def _log_sigmoid_pair(eta):
    return -np.logaddexp(0, -eta), -np.logaddexp(0, eta)


def test_log_gamma_and_digamma_equal_scipys():
    import numba

    from judgestats.models.kernels import _log_gamma_digamma

    both = numba.njit(lambda x: _log_gamma_digamma(x))
    xs = np.r_[np.logspace(-300, 8, 500), np.linspace(0.01, 30, 500)]
    got = np.array([both(x) for x in xs])
    np.testing.assert_allclose(got[:, 0], special.gammaln(xs), rtol=1e-14, atol=1e-13)
    np.testing.assert_allclose(got[:, 1], special.digamma(xs), rtol=1e-14, atol=1e-14)


def test_rising_factorials_equal_log_gamma_differences():
    import numba

    from judgestats.models.kernels import _rising

    rising = numba.njit(lambda x, k: _rising(x, k))
    xs = np.r_[np.logspace(-250, 5.5, 300), np.linspace(0.05, 25, 200)]
    for k in (0, 1, 2, SMALL_COUNT, SMALL_COUNT + 1, 40, 3000):
        got = np.array([rising(x, k) for x in xs])
        value = special.gammaln(xs + k) - special.gammaln(xs)
        slope = special.digamma(xs + k) - special.digamma(xs)
        # scipy's difference of two large log-gammas loses digits the product keeps
        np.testing.assert_allclose(got[:, 0], value, rtol=1e-12, atol=1e-9)
        np.testing.assert_allclose(got[:, 1], slope, rtol=1e-12, atol=1e-12)


def test_log_likelihood_is_the_beta_binomial_of_every_pair(layout):
    lay = layout
    eta, trait, log_kappa, judge_conc = _point(lay)
    log_mu, log_1mmu = _log_sigmoid_pair(eta)
    log_conc = log_kappa + lay.split_mass(log_mu, log_1mmu)
    data = count_data(lay)
    got = tree_loglik_op()(
        lay.leaf_log_prob(log_mu, log_1mmu),
        trait,
        log_conc,
        judge_conc,
        *tree_inputs(lay, data),
    )[0].eval()
    # oracle: the array path's split log-odds, scipy's beta-binomial without n-choose-k
    logit = lay.split_logits(log_mu, log_1mmu, trait)[data["pair_judge"], data["pair_split"]]
    jj, ss = data["pair_judge"], data["pair_split"]
    benchmark = np.array([lay.cells[c][0] for c in lay.split_cell[ss]], dtype=int)
    conc = np.exp(log_conc[ss] + judge_conc[jj, benchmark])
    a, b = conc * special.expit(logit), conc * special.expit(-logit)
    n, k = data["succ"] + data["rest"], data["succ"]
    expected = np.sum(stats.betabinom.logpmf(k, n, a, b) - np.log(special.comb(n, k)))
    assert len(k) > 50 and (k > SMALL_COUNT).any() and (k <= SMALL_COUNT).any()
    assert float(got) == pytest.approx(expected, rel=1e-10)


@pytest.mark.parametrize("mode", ["NUMBA", "FAST_COMPILE"])
def test_gradient_equals_pytensors_gradient_of_the_graph(layout, mode):
    import pytensor
    import pytensor.tensor as pt

    lay = layout
    data = count_data(lay)
    eta, trait, log_kappa = pt.vector("eta"), pt.tensor3("trait"), pt.vector("log_kappa")
    judge_conc = pt.matrix("judge_conc")
    log_mu, log_1mmu = -pt.softplus(-eta), -pt.softplus(eta)
    args = (
        lay,
        lay.leaf_log_prob(log_mu, log_1mmu, apply=apply_pt),
        trait,
        log_kappa + lay.split_mass(log_mu, log_1mmu, apply=apply_pt),
        judge_conc,
        {k: pt.as_tensor_variable(v) for k, v in data.items()},
    )
    kernel, graph = tree_log_likelihood(*args), graph_log_likelihood(*args)
    inputs = [eta, trait, log_kappa, judge_conc]
    f = pytensor.function(inputs, [kernel, *pt.grad(kernel, inputs)], mode=mode)
    g = pytensor.function(inputs, [graph, *pt.grad(graph, inputs)], mode="FAST_RUN")
    for seed in range(3):
        point = _point(lay, seed)
        got, expected = f(*point), g(*point)
        assert float(got[0]) == pytest.approx(float(expected[0]), rel=1e-10)
        for a, b in zip(got[1:], expected[1:], strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-7 * np.abs(b).max())


def test_gradient_equals_central_differences():
    res = simulate(exchangeable_cohort(3, random_seed=1), random_seed=2)
    lay = build_layout(FitData.from_data(res.dataset), HierarchicalConfig().rare_per_judge)
    eta, trait, log_kappa, judge_conc = _point(lay, 7)
    log_mu, log_1mmu = _log_sigmoid_pair(eta)
    point = [
        lay.leaf_log_prob(log_mu, log_1mmu),
        trait,
        log_kappa + lay.split_mass(log_mu, log_1mmu),
        judge_conc,
    ]
    rest = tree_inputs(lay, count_data(lay))

    def loglik(*params):
        return tree_loglik(*params, *rest)

    _, *grads = loglik(*point)
    rng = np.random.default_rng(0)
    h = 1e-5
    for _ in range(5):
        step = [rng.normal(size=x.shape) * (trait_mask(lay) if x.ndim == 3 else 1) for x in point]
        up = float(loglik(*[x + h * v for x, v in zip(point, step, strict=True)])[0])
        down = float(loglik(*[x - h * v for x, v in zip(point, step, strict=True)])[0])
        slope = sum(float(np.sum(g * v)) for g, v in zip(grads, step, strict=True))
        assert (up - down) / (2 * h) == pytest.approx(slope, rel=1e-6)


def test_an_underflowing_subtree_is_held_at_tiny_as_the_graph_holds_it():
    # one cell's leaves but its first far below the first: their masses underflow to
    # 0 and are held at TINY, which the value and gradient must survive as the
    # graph's maximum(mass, TINY) does
    import pytensor
    import pytensor.tensor as pt

    res = simulate(exchangeable_cohort(3, random_seed=1), random_seed=2)
    lay = build_layout(FitData.from_data(res.dataset), HierarchicalConfig().rare_per_judge)
    data = count_data(lay)
    eta, trait, log_kappa, judge_conc = _point(lay, 1)
    log_p = lay.leaf_log_prob(*_log_sigmoid_pair(eta))
    cell = 0
    leaves = np.flatnonzero(lay.leaf_cell == cell)
    log_p[leaves[1:]] = -1000.0
    trait[:, cell] = 0.0
    logit = lay.tilted_logits(log_p, trait)[data["pair_judge"], data["pair_split"]]
    held = np.abs(logit) > 600  # log(TINY) - log(mass of the first leaf)
    assert held.sum() > 3
    p, t, c, jc = pt.vector(), pt.tensor3(), pt.vector(), pt.matrix()
    d = {k: pt.as_tensor_variable(v) for k, v in data.items()}
    out = {}
    for name, form in (("kernel", tree_log_likelihood), ("graph", graph_log_likelihood)):
        ll = form(lay, p, t, c, jc, d)
        f = pytensor.function([p, t, c, jc], [ll, *pt.grad(ll, [p, t, c, jc])], mode="FAST_RUN")
        out[name] = [np.asarray(x) for x in f(log_p, trait, log_kappa, judge_conc)]
    assert all(np.isfinite(x).all() for x in out["kernel"])
    assert float(out["kernel"][0]) == pytest.approx(float(out["graph"][0]), rel=1e-10)
    for a, b in zip(out["kernel"][1:], out["graph"][1:], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-7 * np.abs(b).max())


def test_the_model_uses_the_kernel():
    from pytensor.graph.traversal import ancestors

    res = simulate(exchangeable_cohort(3, random_seed=1), random_seed=2)
    built = build_pymc_model(FitData.from_data(res.dataset), HierarchicalConfig())
    likelihood = {p.name: p for p in built.model.potentials}["dirichlet_multinomial"]
    ops = {type(v.owner.op).__name__ for v in ancestors([likelihood]) if v.owner}
    assert "TreeLogLikelihood" in ops
