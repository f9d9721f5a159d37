"""Derived quantities against reference implementations."""

import numpy as np
import pytest
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


def test_kendall_taus_of_every_benchmark_pair_match_the_pairwise_tau():
    from judgestats.models.derived import _kendall_taus

    rng = np.random.default_rng(2)
    x = rng.normal(size=(300, 4, 11))  # draws > one block of the products
    x[:, 2, 5] = np.nan  # a judge absent from one benchmark
    x[:, 1, :3] = np.round(x[:, 1, :3])  # ties
    a, b = np.triu_indices(4, 1)
    taus = _kendall_taus(x, a, b)
    for k, (i, j) in enumerate(zip(a, b, strict=True)):
        expected = _kendall_tau(_pair_signs(x[:, i]), _pair_signs(x[:, j]))
        np.testing.assert_array_equal(taus[:, k], expected)


def test_ranks_of_many_rankings_at_once_with_nan_are_scipy_average_ranks():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 5, size=(40, 3, 9)).astype(float)
    x[rng.random(x.shape) < 0.2] = np.nan
    ranks = _rank(x)
    for idx in np.ndindex(x.shape[:-1]):
        ok = np.isfinite(x[idx])
        expected = np.full(x.shape[-1], np.nan)
        expected[ok] = rankdata(-x[idx][ok], method="average")
        np.testing.assert_array_equal(ranks[idx], expected)


def test_sample_quantiles_are_numpy_nanquantile_exactly():
    from judgestats.models.summary import sample_quantiles

    rng = np.random.default_rng(4)
    x = rng.normal(size=(7, 5, 201))
    x[0, 0] = np.nan  # no finite draw
    x[1, 1, :200] = np.nan  # one finite draw
    x[2, 2, rng.random(201) < 0.3] = np.nan  # some
    x[3] = np.round(x[3])  # ties
    probs = [0.025, 0.05, 0.5, 0.975]
    with np.errstate(invalid="ignore"), pytest.warns(RuntimeWarning):
        expected = np.nanquantile(x, probs, axis=-1)
    np.testing.assert_array_equal(sample_quantiles(x, probs), expected)


def test_pair_ranks_are_the_ranks_among_the_judges_on_both_benchmarks():
    from judgestats.models.derived import _pair_ranks

    rng = np.random.default_rng(5)
    x = rng.integers(0, 6, size=(30, 4, 8)).astype(float)  # (draw, benchmark, judge), ties
    x[:, 1, 6:] = np.nan  # two judges never run on benchmark 1
    x[::3, 3, 0] = np.nan  # one judge missing in some draws of benchmark 3
    a, b = np.triu_indices(4, 1)
    ok = np.isfinite(x)
    both = ok[:, a] & ok[:, b]
    for side in (a, b):
        got = _pair_ranks(x, _rank(x), side, both, True)
        for d, k in np.ndindex(got.shape[:2]):
            expected = np.full(8, np.nan)
            keep = both[d, k]
            expected[keep] = rankdata(-x[d, side[k], keep], method="average")
            np.testing.assert_array_equal(got[d, k], expected)


def test_kendall_taus_of_float32_values_are_the_float64_taus():
    from judgestats.models.derived import _kendall_taus

    rng = np.random.default_rng(6)
    x = rng.normal(size=(40, 3, 7)).astype(np.float32).astype(float)  # drawn metrics: float32
    x[:, 0, 2] = x[:, 0, 3]  # ties, exact in both precisions
    x[::2, 2, 6] = np.nan
    a, b = np.triu_indices(3, 1)
    taus = _kendall_taus(x, a, b)
    for k, (i, j) in enumerate(zip(a, b, strict=True)):
        expected = _kendall_tau(_pair_signs(x[:, i]), _pair_signs(x[:, j]))
        np.testing.assert_array_equal(taus[:, k], expected)
