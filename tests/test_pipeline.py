"""The pipeline carries one set of thresholds from the command through the posterior."""

import numpy as np

from judgestats import mvvp
from judgestats.models import load_posterior
from judgestats.mvvp import MVVPConfig
from judgestats.pipeline import create_report
from judgestats.simulate import simulate, small_cohort


def test_thresholds_reach_the_posterior_and_a_re_rendered_check(tmp_path):
    ds = simulate(small_cohort(), random_seed=0).dataset
    config = MVVPConfig(min_kappa=0.2, paradox_test_retest=0.9, paradox_position_bias=0.05)
    report = create_report(ds, tmp_path / "r", fast=True, draws=100, config=config)
    post = report.tree["posterior"]
    # the posterior's paradox indicator uses the check's thresholds
    assert post.attrs["paradox_test_retest"] == 0.9
    expected = (post["test_retest"] > 0.9) & (post["position_bias"] > 0.05)
    defined = post["paradox"].notnull()
    np.testing.assert_array_equal(post["paradox"].where(defined) == 1, expected.where(defined))
    # a check of the saved posterior, without a config, uses the stored one
    tree = load_posterior(tmp_path / "r" / "posterior.nc")
    again = mvvp.check(tree, ds)
    assert again.config == config
    assert [r.verdict for r in again.results] == [r.verdict for r in report.mvvp.results]
