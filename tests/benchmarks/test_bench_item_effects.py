"""bench_item_effects' crossed model: its likelihood against direct integration per item."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import bench_item_effects
import numpy as np
import pytest
from scipy import integrate, special, stats


@pytest.fixture(scope="module")
def data():
    """A small shared-difficulty cohort: 3 judges, 65 items."""
    from judgestats.models.base import FitData
    from judgestats.simulate import shared_difficulty_cohort, simulate

    return FitData.from_data(
        simulate(shared_difficulty_cohort(3, scale=0.1), random_seed=5).dataset
    )


@pytest.mark.slow  # compiles a PyMC model
def test_items_likelihood_is_the_integral_over_each_items_effect(data):
    """With the residuals at 0, an item's likelihood is the integral over its effect
    ``b ~ Normal(0, 1)`` of the product over its judges of each judge's tilted
    pattern probability ``q_j(b)[k] ~ p[k] exp(scores[k] @ (trait_j + b loading))``,
    computed here item by item (not by joint rows) with adaptive quadrature
    (``scipy.integrate.quad``, not Gauss-Hermite). At this point (small traits, the
    first loading of each cell about 1) 41 nodes match it to 1e-6 relative (7 nodes
    are 0.49 log units off of 473, 1 node 7.7: the model's own quadrature error)."""
    from judgestats.models import HierarchicalConfig
    from judgestats.models.layout import build_layout
    from judgestats.tally import LABEL_CODES

    config = HierarchicalConfig()
    model = bench_item_effects.crossed_model(data, config, n_nodes=41, item_sigma=2.0)
    rng = np.random.default_rng(0)
    point = {
        name: (rng.normal(0, 0.05, np.shape(v)) if name != "residual_z" else np.zeros(np.shape(v)))
        for name, v in model.initial_point().items()
    }
    outputs = model.replace_rvs_by_values(
        [model["items"], model["eta"], model["trait"], model["item_loading"]]
    )
    items, eta, trait, loaded = model.compile_fn(outputs, on_unused_input="ignore")(point)
    observed = float(items)

    lay = build_layout(data, config.rare_per_judge)
    log_p = lay.leaf_log_prob(-np.logaddexp(0, -eta), -np.logaddexp(0, eta))
    expected = 0.0
    for c, block in enumerate(lay.blocks):
        bt = data.tally[data.benchmarks[block.benchmark]]
        rows = data.rows(block.benchmark)
        leaves = slice(int(lay.leaf_offset[c]), int(lay.leaf_offset[c]) + len(block.scores))
        pattern = bt.item_pattern[:, bt.item_label == LABEL_CODES[block.label]]

        def q(b, j, k, c=c, leaves=leaves, rows=rows):
            tilt = log_p[leaves] + lay.scores[leaves] @ (trait[rows[j], c] + b * loaded[c])
            return np.exp(tilt[k] - np.logaddexp.reduce(tilt))

        for column in pattern.T:
            judged = [(j, k) for j, k in enumerate(column) if k >= 0]
            if not judged:
                continue

            def integrand(b, judged=judged):
                return stats.norm.pdf(b) * np.prod([q(b, j, k) for j, k in judged])

            value, _ = integrate.quad(integrand, -12, 12, epsabs=0, epsrel=1e-10, limit=200)
            expected += np.log(value)
    assert observed == pytest.approx(expected, rel=1e-5)


def test_the_orthogonal_residual_cannot_move_a_split_along_a_trait(data):
    """Per cell, the residuals' projection removes the trait loadings' directions and
    keeps every direction orthogonal to them (a symmetric, idempotent projection)."""
    from judgestats.models import HierarchicalConfig
    from judgestats.models.layout import build_layout

    lay = build_layout(data, HierarchicalConfig().rare_per_judge)
    p = bench_item_effects._orthogonal_to_loadings(lay)
    np.testing.assert_allclose(p @ lay.loadings, 0.0, atol=1e-10)
    np.testing.assert_allclose(p @ p, p, atol=1e-10)
    np.testing.assert_allclose(p, p.T, atol=1e-12)
    across = lay.split_cell[:, None] != lay.split_cell[None, :]
    assert not p[across].any()  # cells do not mix
    rank = np.linalg.matrix_rank(lay.loadings[lay.split_cell == 0])
    assert np.trace(p[np.ix_(lay.split_cell == 0, lay.split_cell == 0)]) == pytest.approx(
        (lay.split_cell == 0).sum() - rank
    )


@pytest.mark.slow  # compiles two PyMC models
def test_the_centred_residual_is_the_explicit_one_reparameterised(data, monkeypatch):
    """``residual="centred"`` is the same model: with its centred residuals set to the
    explicit model's ``z * sd`` and its non-centred ones to ``z``, every judge's
    patterns have the same likelihood (both branches exercised: a split with at
    least 3 items is centred here)."""
    from judgestats.models import HierarchicalConfig
    from judgestats.models.hierarchical import count_data
    from judgestats.models.layout import build_layout

    monkeypatch.setattr(bench_item_effects, "CENTRED_FROM", 3)
    config = HierarchicalConfig()
    pairs = count_data(build_layout(data, config.rare_per_judge))
    many = pairs["succ"] + pairs["rest"] >= 3
    assert 0 < many.sum() < len(many)

    def compiled(residual):
        model = bench_item_effects.crossed_model(data, config, 3, 2.0, residual=residual)
        outputs = model.replace_rvs_by_values([model["items"], model["residual_sd"]])
        return model, model.compile_fn(outputs, on_unused_input="ignore")

    rng = np.random.default_rng(1)
    explicit, items_of = compiled("explicit")
    point = {k: rng.normal(0, 0.3, np.shape(v)) for k, v in explicit.initial_point().items()}
    items, sd = items_of(point)
    z = point["residual_z"]
    centred, centred_items_of = compiled("centred")
    values = dict(point, residual=z[many] * sd[many], residual_z=z[~many])
    items_c, sd_c = centred_items_of({k: values[k] for k in centred.initial_point()})
    np.testing.assert_allclose(sd_c, sd, rtol=1e-12)
    assert float(items_c) == pytest.approx(float(items), rel=1e-10)
    # and the residuals matter: at z = 0 the likelihood is another
    assert float(items_of(dict(point, residual_z=0 * z))[0]) != pytest.approx(float(items))


def _beta_logit_cdf(a, b):
    """The CDF of ``logit(v)``, ``v ~ Beta(a, b)``, accurate in both tails."""

    def cdf(x):
        upper = 1.0 - stats.beta(b, a).cdf(special.expit(-x))
        return np.where(x < 0, stats.beta(a, b).cdf(special.expit(x)), upper)

    return cdf


def _gamma_ratio_draws(a, b, e_scale=1.0, n=20_000):
    rng = np.random.default_rng(0)
    shape = np.array([[a], [b]])
    log_h = np.log(rng.gamma(shape + 1.0, size=(2, n)))
    e = rng.exponential(e_scale, size=(2, n))
    return bench_item_effects.gamma_ratio_logit(shape, log_h, e)


@pytest.mark.parametrize("a, b", [(0.05, 5.0), (0.3, 0.02), (40.0, 60.0)])
def test_the_beta_residual_is_a_ratio_of_gammas(a, b):
    """``residual="beta"`` draws a judge's split probability as ``G_a / (G_a + G_b)``
    from ``H ~ Gamma(k + 1)`` and ``E ~ Exp(1)``: its logit has the law of
    ``logit(Beta(a, b))`` (scipy's CDF; Kolmogorov-Smirnov, 20,000 draws, seed 0,
    p > 0.01), small shapes included, where that logit's tail is nearly flat."""
    assert stats.kstest(_gamma_ratio_draws(a, b), _beta_logit_cdf(a, b)).pvalue > 0.01


def test_the_beta_residual_needs_the_uniforms_exponent():
    """The same check fails for ``E ~ Exp(scale 2)`` (``exp(-E)`` no longer uniform)."""
    draws = _gamma_ratio_draws(0.05, 5.0, e_scale=2.0)
    assert stats.kstest(draws, _beta_logit_cdf(0.05, 5.0)).pvalue < 1e-6


@pytest.mark.slow  # compiles three PyMC models
def test_the_residuals_variance_bound_tapers_by_its_slope(data):
    """``variance_slope=1`` leaves the residuals' sd unbounded (as a bound far above
    every value), 0 keeps it under ``exp(max_log_variance / 2)``, and a slope between
    gives sds between the two, above the bound where the unbounded sd is."""
    from judgestats.models import HierarchicalConfig

    config = HierarchicalConfig()
    rng = np.random.default_rng(2)
    start = bench_item_effects.crossed_model(data, config, 3, 2.0).initial_point()
    point = {k: rng.normal(0, 1.5, np.shape(v)) for k, v in start.items()}

    def sd(**options):
        model = bench_item_effects.crossed_model(data, config, 3, 2.0, **options)
        out = model.replace_rvs_by_values([model["residual_sd"]])
        fn = model.compile_fn(out[0], inputs=model.value_vars, on_unused_input="ignore")
        return fn(point)

    free = sd(max_log_variance=200.0)
    np.testing.assert_allclose(sd(max_log_variance=1.0, variance_slope=1.0), free, rtol=1e-12)
    bounded = sd(max_log_variance=1.0)
    tapered = sd(max_log_variance=1.0, variance_slope=0.25)
    assert (free > np.exp(0.5)).any() and (bounded <= np.exp(0.5) * (1 + 1e-12)).all()
    assert (bounded <= tapered).all() and (tapered <= free).all()
    assert (tapered[free > np.exp(1.0)] > np.exp(0.5)).all()
