"""The verdict rules, on posteriors made by hand (every number is known exactly)."""

from __future__ import annotations

import numpy as np
import pytest
from mvvp_helpers import hand_design, hand_tree

from judgestats import mvvp
from judgestats.mvvp import (
    MVVPConfig,
    StepVerdict,
    Threshold,
    interval_verdict,
    probability_verdict,
)

PASS, FAIL, INC, NM = (
    StepVerdict.PASS,
    StepVerdict.FAIL,
    StepVerdict.INCONCLUSIVE,
    StepVerdict.NOT_MEASURED,
)


@pytest.mark.parametrize(
    ("lo", "hi", "threshold", "expected"),
    [
        (0.02, 0.06, Threshold("<", 0.10), PASS),
        (0.12, 0.20, Threshold("<", 0.10), FAIL),
        (0.08, 0.13, Threshold("<", 0.10), INC),
        (0.05, 0.10, Threshold("<", 0.10), INC),  # touching the threshold is not below it
        (0.05, 0.10, Threshold("<=", 0.10), PASS),
        (0.10, 0.30, Threshold(">", 0.0), PASS),
        (-0.3, -0.1, Threshold(">", 0.0), FAIL),
        (np.nan, 0.3, Threshold(">", 0.0), NM),
    ],
)
def test_interval_verdict(lo, hi, threshold, expected):
    assert interval_verdict(lo, hi, threshold) is expected


@pytest.mark.parametrize(
    ("p", "prob", "expected"),
    [(0.0, 0.95, PASS), (0.025, 0.95, PASS), (0.03, 0.95, INC), (0.975, 0.95, FAIL),
     (0.3, 0.5, INC), (0.2, 0.5, PASS), (0.8, 0.5, FAIL), (np.nan, 0.95, NM)],
)  # fmt: skip
def test_probability_verdict(p, prob, expected):
    assert probability_verdict(p, prob) is expected


@pytest.mark.parametrize(
    ("field", "value"),
    [("prob", 1.0), ("max_position_bias", 0.7), ("min_runs", 1), ("min_test_retest", 1.2),
     ("min_benchmarks", 1), ("max_rank_shift", -1), ("min_kappa", 1.0)],
)  # fmt: skip
def test_config_rejects_bad_values(field, value):
    with pytest.raises(ValueError, match=f"{field}={value!r}"):
        MVVPConfig(**{field: value})


def test_threshold_rejects_unknown_op():
    with pytest.raises(ValueError, match="'=='"):
        Threshold("==", 0.1)


# A hand-made posterior: judges j, k on benchmarks P (preference) and C (correctness),
# 2 chains x 200 draws on evenly spaced grids, so medians, intervals and
# probabilities are known in closed form.
J, B = ["j", "k"], ["P", "C"]
N = 400


def grid(lo: float, hi: float) -> np.ndarray:
    return np.linspace(lo, hi, N)


def cells(values: dict[tuple[str, str], np.ndarray], dims=(J, B)) -> np.ndarray:
    out = np.full((N, len(dims[0]), len(dims[1])), np.nan)
    for (a, b), x in values.items():
        out[:, dims[0].index(a), dims[1].index(b)] = x
    return out.reshape(2, N // 2, len(dims[0]), len(dims[1]))


def flat_const(value: float) -> np.ndarray:
    return np.full(N, value)


@pytest.fixture(scope="module")
def hand():
    kappa = cells(
        {("j", "P"): grid(0.2, 0.4), ("j", "C"): grid(-0.1, 0.1),
         ("k", "P"): grid(-0.4, -0.2), ("k", "C"): grid(0.5, 0.6)}
    )  # fmt: skip
    pb = cells(
        {("j", "P"): grid(0.15, 0.25), ("j", "C"): grid(0.01, 0.05),
         ("k", "P"): grid(0.05, 0.15), ("k", "C"): grid(0.0, 0.02)}
    )  # fmt: skip
    tr = cells(
        {("j", "P"): grid(0.96, 0.99), ("j", "C"): grid(0.5, 0.7),
         ("k", "P"): grid(0.9, 1.0), ("k", "C"): grid(0.96, 0.99)}
    )  # fmt: skip
    rank = cells(
        {("j", "P"): flat_const(1), ("j", "C"): flat_const(2),
         ("k", "P"): flat_const(2), ("k", "C"): flat_const(1)}
    )  # fmt: skip
    shift = cells(
        {("j", "P -> C"): flat_const(5.0),
         ("k", "P -> C"): np.r_[np.zeros(N // 2), np.full(N // 2, 5.0)]},
        dims=(J, ["P -> C"]),
    )  # fmt: skip
    tree = hand_tree(
        {"kappa": kappa, "position_bias": pb, "test_retest": tr, "rank": rank,
         "rank_shift": shift},
        J, B,
    )  # fmt: skip
    design = hand_design(J, B, [{"preference"}, {"correctness"}])
    return tree, design, {"kappa": kappa, "position_bias": pb, "test_retest": tr}


def test_hand_posterior_verdicts(hand):
    tree, design, _ = hand
    res = mvvp.check(tree, design, min_kappa=0.0)
    expected = {
        (1, "j", "P"): PASS, (1, "j", "C"): INC, (1, "k", "P"): FAIL, (1, "k", "C"): PASS,
        (2, "j", "P"): FAIL, (2, "j", "C"): PASS, (2, "k", "P"): INC, (2, "k", "C"): PASS,
        (3, "j", "P"): PASS, (3, "j", "C"): FAIL, (3, "k", "P"): PASS, (3, "k", "C"): PASS,
        # k's shift straddles 3, but its kappa on P is credibly below the floor
        (4, "j", None): FAIL, (4, "k", None): FAIL,
        # j/P: test-retest > 0.95 and position bias > 0.10 in every draw.
        (5, "j", "P"): FAIL,
        # j/C: test-retest never above 0.95: the audit does not apply.
        (5, "j", "C"): PASS,
        # k/P: test-retest > 0.95 in the upper half of the draws and position bias
        # > 0.10 in the same half: P(paradox) = 0.5.
        (5, "k", "P"): INC,
        # k/C: test-retest high, position bias credibly low.
        (5, "k", "C"): PASS,
    }  # fmt: skip
    got = {(int(r.step), r.judge, r.benchmark): r.verdict for r in res.results}
    assert got == expected
    assert "does not apply" in res.get(5, "j", "C").reason
    assert "credibly at most 0.1" in res.get(5, "k", "C").reason


def test_hand_posterior_numbers(hand):
    tree, design, draws = hand
    res = mvvp.check(tree, design, min_kappa=0.0)
    for step, name, op in ((1, "kappa", np.greater), (3, "test_retest", np.greater)):
        for judge in J:
            for bench in B:
                r = res.get(step, judge, bench)
                x = draws[name][:, :, J.index(judge), B.index(bench)].ravel()
                assert r.estimate == pytest.approx(np.median(x), abs=1e-12)
                assert (r.lo, r.hi) == pytest.approx(tuple(np.quantile(x, [0.025, 0.975])))
                t = {"kappa": 0.0, "test_retest": 0.8}[name]
                assert r.p_threshold_met == pytest.approx(np.mean(op(x, t)), abs=1e-12)
    tr = draws["test_retest"][:, :, 1, 0].ravel()
    pb = draws["position_bias"][:, :, 1, 0].ravel()
    joint = np.mean((tr > 0.95) & (pb > 0.10))
    r5 = res.get(5, "k", "P")
    assert r5.estimate == pytest.approx(joint, abs=1e-12)
    assert r5.p_threshold_met == pytest.approx(1 - joint, abs=1e-12)
    assert {e.quantity: e.p_threshold for e in r5.related} == pytest.approx(
        {"test_retest": np.mean(tr > 0.95), "position_bias": np.mean(pb > 0.10)}
    )
    r4 = res.get(4, "k")
    assert r4.p_threshold_met == pytest.approx(0.5)
    assert [e.quantity for e in r4.related] == ["rank", "rank", "rank_shift"]
    assert "ranks among the 10 judges" in r4.reason


def test_thresholds_and_prob_are_parameters(hand):
    tree, design, _ = hand
    strict = mvvp.check(tree, design, min_kappa=0.3, max_position_bias=0.2, max_rank_shift=5)
    assert strict.get(1, "j", "P").verdict is INC  # kappa [0.2, 0.4] straddles 0.3
    assert strict.get(2, "k", "P").verdict is PASS  # [0.05, 0.15] < 0.2
    # a shift of 5 is allowed, but kappa is credibly below 0.3 on j/C
    r4 = strict.get(4, "j")
    assert r4.verdict is FAIL and "credibly below the step-1 floor" in r4.reason
    assert mvvp.check(tree, design, min_kappa=-0.5, max_rank_shift=5).get(4, "j").verdict is PASS
    assert strict.config.min_kappa == 0.3
    narrow = mvvp.check(tree, design, prob=0.5)
    # The central 50% of kappa on j/C is [-0.05, 0.05]: still straddles 0.
    assert narrow.get(1, "j", "C").lo == pytest.approx(-0.05, abs=1e-3)
    # k/P's paradox probability 0.5 lies between the tails 0.25 and 0.75.
    assert narrow.get(5, "k", "P").estimate == pytest.approx(0.5)
    assert narrow.get(5, "k", "P").verdict is INC


def test_diagnostic_problems_reach_reasons_and_warnings(hand):
    tree, design, _ = hand
    bad = tree.copy()
    kappa = bad["posterior"]["kappa"].values.copy()
    kappa[1] += 0.05  # chain 1 shifted: R-hat > 1.01
    bad["posterior"] = (
        bad["posterior"].to_dataset().assign(kappa=(bad["posterior"]["kappa"].dims, kappa))
    )
    bad.attrs["warnings"] = '["kappa: R-hat up to 1.2 (> 1.01) for 4 of 4 cells"]'
    res = mvvp.check(bad, design)
    assert res.warnings == ("kappa: R-hat up to 1.2 (> 1.01) for 4 of 4 cells",)
    # a failed diagnostic on kappa withholds the PASS its interval would give
    r1 = res.get(1, "k", "C")
    assert r1.verdict is INC and "failed diagnostics (R-hat" in r1.reason
    assert mvvp.check(tree, design).get(1, "k", "C").verdict is PASS
    assert "sampler diagnostics failed" in res.format()
    # flagged predictive checks travel with the result and are named, verdicts unchanged
    bad.attrs["misfits"] = '["posterior predictive check: inter-judge agreement on benchmark C"]'
    flagged = mvvp.check(bad, design)
    assert flagged.misfits == ("posterior predictive check: inter-judge agreement on benchmark C",)
    assert "posterior predictive checks flagged (1)" in flagged.format()
    assert [r.verdict for r in flagged.results] == [r.verdict for r in res.results]


def test_data_must_match_the_posterior(hand):
    tree, _, _ = hand
    other = hand_design(["j", "x"], B, [{"preference"}, {"correctness"}])
    with pytest.raises(ValueError, match=r"judges \['k'\] of the posterior"):
        mvvp.check(tree, other)
