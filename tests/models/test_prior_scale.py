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
        trait_sd, level, spread = pm.draw(
            [model["trait_sd"], model["log_kappa_level"], model["log_kappa_sd"]],
            draws=4000,
            random_seed=1,
        )
        half = math.sqrt(1 - 2 / math.pi)
        assert np.std(trait_sd[:, 0, 0]) == pytest.approx(scale * cfg.trait_sigma * half, rel=0.05)
        assert np.std(spread) == pytest.approx(scale * cfg.log_kappa_spread * half, rel=0.05)
        assert np.std(level[:, 0]) == pytest.approx(scale * cfg.log_kappa_sigma, rel=0.05)
        assert np.mean(level[:, 0]) == pytest.approx(cfg.log_kappa_mu, abs=0.05 * scale)


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
