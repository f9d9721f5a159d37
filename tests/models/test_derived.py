"""Derived quantities against reference implementations."""

import numpy as np
from scipy.stats import kendalltau, rankdata

from judgestats.models.derived import _kendall_tau, _pair_signs, _rank


def test_kendall_tau_matches_scipy_over_the_judges_present_in_both():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(20, 9))
    y = x + rng.normal(size=(20, 9))
    y[:, 3] = np.nan  # a judge not run on the second benchmark
    tau = _kendall_tau(_pair_signs(x), _pair_signs(y))
    ok = np.isfinite(y[0])
    expected = [kendalltau(a[ok], b[ok]).statistic for a, b in zip(x, y, strict=True)]
    np.testing.assert_allclose(tau, expected, atol=1e-12)  # no ties: tau-a = tau-b


def test_ranks_are_scipy_average_ranks_of_the_best_first():
    rng = np.random.default_rng(1)
    x = rng.integers(0, 4, size=(50, 6)).astype(float)  # many ties
    np.testing.assert_array_equal(_rank(x), rankdata(-x, axis=-1, method="average"))
    np.testing.assert_array_equal(_rank(x, False), rankdata(x, axis=-1, method="average"))
