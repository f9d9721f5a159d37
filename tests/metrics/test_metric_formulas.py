"""Closed-form formulas against seed 002's numbers and reference implementations."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from judgestats.features import FEATURES, item_features
from judgestats.metrics import formulas
from judgestats.metrics.formulas import (
    cohen_kappa,
    cohen_kappa_se,
    krippendorff_alpha_nominal,
    krippendorff_alpha_runs,
)

# Seed 002's MT-Bench-like table: rows human A, B, tie; columns judge A, B, tie.
MT_BENCH = np.array([[770, 55, 15], [45, 65, 10], [18, 7, 15]])


def test_seed002_kappa_deflation_table():
    kappa = float(cohen_kappa(MT_BENCH))
    raw = np.trace(MT_BENCH) / MT_BENCH.sum()
    assert raw == pytest.approx(0.850, abs=1e-12)
    assert kappa == pytest.approx(0.471, abs=5e-4)
    assert abs(kappa - 0.48) < 0.02  # the paper's anchor
    assert round((raw - kappa) * 100, 1) == 37.9


def test_seed002_always_first_and_degenerate_tables():
    assert float(cohen_kappa(np.array([[250, 250], [250, 250]]))) == 0.0
    assert np.isnan(cohen_kappa(np.array([[1000, 0], [0, 0]])))
    assert np.isnan(cohen_kappa(np.zeros((3, 4))))


def test_fleiss_cohen_everitt_se_oracle():
    table = np.array([[1395, 118], [261, 158]])
    assert float(cohen_kappa(table)) == pytest.approx(0.341197, abs=5e-7)
    assert float(cohen_kappa_se(table)) == pytest.approx(0.0262914, abs=5e-8)


def test_fce_se_vectorised_over_leading_axes():
    tables = np.stack([np.array([[1395, 118], [261, 158]]), np.array([[10, 2], [3, 12]])])
    se = cohen_kappa_se(tables)
    assert se.shape == (2,)
    assert se[1] == pytest.approx(float(cohen_kappa_se(tables[1])))


def _expand(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    rows, cols = np.indices(table.shape)
    counts = table.ravel()
    return np.repeat(rows.ravel(), counts), np.repeat(cols.ravel(), counts)


@pytest.mark.parametrize("seed", range(25))
def test_kappa_and_alpha_match_sklearn_and_krippendorff(seed):
    rng = np.random.default_rng(seed)
    # Labels A/B/tie (rows) vs verdicts A/B/tie/invalid (columns), skewed marginals.
    table = rng.multinomial(rng.integers(20, 400), rng.dirichlet(np.ones(12) * 0.7)).reshape(3, 4)
    human, judge = _expand(table)
    expected = cohen_kappa_score(human, judge, labels=[0, 1, 2, 3])
    assert float(cohen_kappa(table)) == pytest.approx(expected, abs=1e-12)
    data = np.stack([human, judge]).astype(float)
    expected_alpha = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    assert float(krippendorff_alpha_nominal(table)) == pytest.approx(expected_alpha, abs=1e-12)


def test_alpha_two_raters_closed_form_from_stack():
    # alpha = 1 - (2N - 1)(1 - p_o) / (2N (1 - sum pbar^2))
    table = np.array([[40.0, 10.0], [5.0, 45.0]])
    n = table.sum()
    po = np.trace(table) / n
    pbar = (table.sum(0) + table.sum(1)) / (2 * n)
    expected = 1 - (2 * n - 1) * (1 - po) / (2 * n * (1 - (pbar**2).sum()))
    assert float(krippendorff_alpha_nominal(table)) == pytest.approx(expected, abs=1e-14)


@pytest.mark.parametrize("seed", range(10))
def test_alpha_across_runs_matches_krippendorff(seed):
    rng = np.random.default_rng(seed)
    n_items, n_runs = 60, int(rng.integers(2, 6))
    orders = ["AB", "BA"]
    v = rng.choice([-1, 0, 1, 2, 3], size=(n_items, 2, n_runs), p=[0.15, 0.35, 0.3, 0.15, 0.05])
    feats = item_features(v, np.zeros(n_items, dtype=int), orders).sum(0)
    # Units are (item, order); runs are coders; missing is NaN.
    units = v.reshape(-1, n_runs).T.astype(float)
    units[units < 0] = np.nan
    expected = krippendorff.alpha(reliability_data=units, level_of_measurement="nominal")
    assert float(krippendorff_alpha_runs(feats)) == pytest.approx(expected, abs=1e-12)


def test_alpha_runs_undefined_with_one_run():
    feats = item_features(np.zeros((5, 2, 1), dtype=int), np.zeros(5, dtype=int), ["AB", "BA"])
    x = feats.sum(0)
    assert np.isnan(krippendorff_alpha_runs(x))
    assert "fewer than two runs" in formulas.reason("test_retest", x)


def test_derive_keeps_every_metric_and_reasons_are_vectorised():
    x = np.zeros((4, 3, len(FEATURES)))
    out = formulas.derive(x)
    why = formulas.reasons(x)
    assert set(out) == set(formulas.METRICS) == set(why) == set(formulas.UNITS)
    assert all(v.shape == (4, 3) for v in out.values())
    assert why["kappa"][0, 0] == "no judgments on items with a human label"
    assert "swap" in why["position_bias"][0, 0]


def test_reason_of_chance_agreement_one():
    # Judge always A and every label A: kappa is 0/0.
    feats = item_features(np.zeros((10, 1, 1), dtype=int), np.zeros(10, dtype=int), ["AB"])
    x = feats.sum(0)
    assert np.isnan(formulas.derive(x)["kappa"])
    assert formulas.reason("kappa", x).startswith("chance agreement is 1")
    assert formulas.reason("exact_match", x) == ""
