"""Exact truth: closed-form cases that need no simulation."""

import math

import numpy as np
import pytest

from judgestats.simulate import (
    BenchmarkSpec,
    JudgeParams,
    always_first_judge,
    chosen_rejected_benchmark,
    paradox_judge,
    pattern_distribution,
    perfect_judge,
    preference_benchmark,
    random_judge,
    true_metrics,
)

PREF = preference_benchmark("pref", 10)


@pytest.mark.parametrize(
    "spec",
    [
        PREF,
        BenchmarkSpec("corr", 10, "correctness", runs=5),
        chosen_rejected_benchmark("cr", 10),
        preference_benchmark("one", 10, runs=1, orders=("BA",)),
    ],
)
def test_pattern_probabilities_sum_to_one(spec):
    p = JudgeParams(position=-0.3, stability=0.5, invalid_rate=0.1, length_preference=0.2)
    d = pattern_distribution(p, spec)
    np.testing.assert_allclose(d.probs.sum(1), 1.0, atol=1e-12)
    assert np.all(d.probs >= 0)
    assert d.expected_features()[0] == pytest.approx(spec.judgments_per_item)


def test_always_first_judge_is_reliable_without_validity():
    for ties in ("balanced", "sparse", "none"):
        m = true_metrics(always_first_judge(), preference_benchmark(ties=ties))
        assert m["kappa"] == pytest.approx(0.0, abs=1e-12)
        assert m["position_bias"] == 0.5
        assert m["test_retest"] == 1.0
        assert m["flip_rate"] == 1.0
        assert m["verbosity"] == pytest.approx(0.0, abs=1e-12)


def test_perfect_and_random_judges():
    m = true_metrics(perfect_judge(), PREF)
    assert m["kappa"] == pytest.approx(1.0) and m["exact_match"] == 1.0
    assert m["test_retest"] == 1.0 and m["position_bias"] == 0.0
    m = true_metrics(random_judge(), PREF)
    assert m["kappa"] == pytest.approx(0.0, abs=1e-12)
    assert m["exact_match"] == pytest.approx(1 / 3)
    # Runs re-decided independently: P(3 runs agree) = sum_v P(v)^3 = 3 (1/3)^3,
    # and runs agree no more than chance: Krippendorff's alpha across runs is 0.
    assert m["test_retest_share"] == pytest.approx(1 / 9)
    assert m["test_retest"] == pytest.approx(0.0, abs=1e-9)


def test_closed_form_exact_match_and_kappa_of_a_simple_judge():
    # No position preference, no length preference: per judgment P(v = h) on A/B
    # labels is (1 - eps)(1 - tau) a, and the confusion table follows in closed form.
    a, tau, recall, eps = 0.8, 0.1, 0.4, 0.05
    p = JudgeParams(agreement=a, tie_rate=tau, tie_recall=recall, invalid_rate=eps)
    m = true_metrics(p, PREF)
    assert m["exact_match"] == pytest.approx((1 - eps) * (1 - tau) * a)
    po = (2 * (1 - eps) * (1 - tau) * a + (1 - eps) * recall) / 3
    pe = (1 - eps) / 3  # uniform labels; the invalid column matches no label
    assert m["kappa"] == pytest.approx((po - pe) / (1 - pe))
    assert m["invalid_rate"] == pytest.approx(eps)


def test_stability_changes_replicates_not_marginals():
    base = JudgeParams(agreement=0.8, position=0.2, stability=1.0)
    shaky = base.replace(stability=0.5)
    m1, m2 = true_metrics(base, PREF), true_metrics(shaky, PREF)
    for k in ("kappa", "exact_match", "position_bias", "verbosity"):
        assert m1[k] == pytest.approx(m2[k])
    assert m1["test_retest"] == 1.0 > m2["test_retest"]


def test_position_bias_closed_form():
    # No ties: P(first | decisive) = phi + (1 - phi)/2, so position bias = phi/2.
    phi, tau = 0.3, 0.0
    p = JudgeParams(agreement=0.9, tie_rate=tau, tie_recall=0.0, position=phi)
    m = true_metrics(p, PREF)
    assert m["position_bias"] == pytest.approx(phi / 2)
    assert true_metrics(p.replace(position=-phi), PREF)["position_bias_signed"] == pytest.approx(
        -phi / 2
    )


def test_undefined_metrics_are_nan():
    one_run = true_metrics(JudgeParams(), preference_benchmark(runs=1))
    assert math.isnan(one_run["test_retest"]) and math.isnan(one_run["test_retest_share"])
    one_order = true_metrics(JudgeParams(), preference_benchmark(orders=("AB",)))
    assert math.isnan(one_order["flip_rate"]) and math.isnan(one_order["position_bias"])
    randomised = true_metrics(JudgeParams(), chosen_rejected_benchmark())
    assert math.isnan(randomised["position_bias"])  # no paired orders
    assert not math.isnan(randomised["kappa"])
    flat = preference_benchmark().replace(length_spread=0)
    assert math.isnan(true_metrics(JudgeParams(length_preference=0.5), flat)["verbosity"])


def test_paradox_judge_defaults():
    m = true_metrics(paradox_judge(), PREF)
    assert m["test_retest"] > 0.95 and m["position_bias"] > 0.10
