"""The prior-sensitivity option: ``HierarchicalConfig.prior_scale`` and ``fit --prior-scale``."""

import math

import numpy as np
import pytest

from judgestats.models import HierarchicalConfig
from judgestats.models.base import FitData
from judgestats.models.hierarchical import build_pymc_model
from judgestats.simulate import simulate, small_cohort


@pytest.mark.parametrize("scale", [0.0, -1.0, float("nan"), float("inf")])
def test_prior_scale_checked(scale):
    with pytest.raises(ValueError, match="prior_scale="):
        HierarchicalConfig(prior_scale=scale)


def test_prior_scale_multiplies_the_pooling_priors():
    # Prior draws against closed forms: HalfNormal(s) has sd s * sqrt(1 - 2 / pi), and
    # the level mean of log kappa is Normal(mu, s * sigma). 4,000 draws: the sd of a
    # sample sd is about sd / sqrt(2 n) = 1.1%, so 5% tolerance is 4.5 standard errors.
    import pymc as pm

    data = FitData.from_data(simulate(small_cohort(), random_seed=0, scale=0.1).dataset)
    cfg = HierarchicalConfig()
    for scale in (0.5,):
        model = build_pymc_model(data, HierarchicalConfig(prior_scale=scale)).model
        level, spread = pm.draw(
            [model["log_kappa_level"], model["log_kappa_sd"]], draws=4000, random_seed=1
        )
        half = math.sqrt(1 - 2 / math.pi)
        assert np.std(spread) == pytest.approx(scale * cfg.log_kappa_spread * half, rel=0.05)
        assert np.std(level[:, 0]) == pytest.approx(scale * cfg.log_kappa_sigma, rel=0.05)
        assert np.mean(level[:, 0]) == pytest.approx(cfg.log_kappa_mu, abs=0.05 * scale)


@pytest.mark.parametrize("scale", [0.5, 2.0])
def test_the_traits_prior_is_the_student_t_of_an_inverse_gamma_variance(scale):
    # Integrating s2 ~ InvGamma(a, b) out of u_i ~ Normal(0, s2), i = 1..n, gives the
    # multivariate t with 2a degrees of freedom and shape (b / a) I: scipy's density,
    # differenced against u = 0 (the model's potential drops the constants).
    from scipy.stats import multivariate_t

    from judgestats.models.hierarchical import trait_groups, trait_mask

    data = FitData.from_data(simulate(small_cohort(), random_seed=0, scale=0.1).dataset)
    cfg = HierarchicalConfig(prior_scale=scale)
    built = build_pymc_model(data, cfg)
    group, _ = trait_groups(built.layout, trait_mask(built.layout))
    model = built.model
    (potential,) = [p for p in model.potentials if p.name == "trait_prior"]
    (potential,) = model.replace_rvs_by_values([potential])
    logp = model.compile_fn(potential, inputs=[model.rvs_to_values[model["trait_u"]]])
    point = model.initial_point()
    rng = np.random.default_rng(0)
    u = rng.normal(0, 0.7, size=point["trait_u"].shape)
    a, b = cfg.trait_shape, 0.5 * (scale * cfg.trait_sigma) ** 2
    expected = 0.0
    for g in np.unique(group):
        n = int((group == g).sum())
        t = multivariate_t(np.zeros(n), (b / a) * np.eye(n), df=2 * a)
        expected += t.logpdf(u[group == g]) - t.logpdf(np.zeros(n))
    assert logp({"trait_u": u}) - logp({"trait_u": 0 * u}) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize(
    "extra, message",
    [(["--prior-scale", "0"], "--prior-scale 0.0"), (["--prior-scale", "2", "--fast"], "--fast")],
)
def test_fit_prior_scale_option_is_checked(tmp_path, capsys, extra, message):
    from judgestats.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["fit", str(tmp_path / "x.nc"), "-o", str(tmp_path / "p.nc"), *extra])
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err
