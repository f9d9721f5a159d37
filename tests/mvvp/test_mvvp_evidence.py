"""Verdicts need evidence: cases that passed on almost no data, and the definitions."""

import warnings

import numpy as np
import pytest
from mvvp_helpers import hand_design, hand_tree

from judgestats import compute_metrics, mvvp
from judgestats.models import (
    ConvergenceWarning,
    DerivedConfig,
    ExactConfig,
    ExactModel,
    HierarchicalConfig,
    HierarchicalModel,
)
from judgestats.mvvp import StepVerdict
from judgestats.mvvp.result import PROBABILITY_QUANTITIES
from judgestats.schema import Verdict, empty_judgments
from judgestats.simulate import CohortConfig, JudgeParams, preference_benchmark, simulate

PASS, FAIL, INC, NM = (
    StepVerdict.PASS,
    StepVerdict.FAIL,
    StepVerdict.INCONCLUSIVE,
    StepVerdict.NOT_MEASURED,
)


def six_items():
    """Two judges, 6 items on each of two benchmarks, always right, both orders, 3 runs."""
    items = [f"i{k}" for k in range(12)]
    ds = empty_judgments(["j1", "j2"], items, ["AB", "BA"], 3, ["r"])
    ds = ds.assign_coords(
        benchmark=("item", ["MT-Bench"] * 6 + ["JudgeBench"] * 6),
        label_kind=("item", ["preference"] * 6 + ["correctness"] * 6),
    )
    lab = np.array([Verdict.A, Verdict.B] * 6, dtype=np.int8)
    ds["human"][:, 0] = lab
    ds["verdict"][:] = lab[None, :, None, None]
    return ds


@pytest.fixture(
    scope="module",
    params=["exact", pytest.param("hierarchical", marks=pytest.mark.slow)],
)
def six(request):
    ds = six_items()
    model = (
        ExactModel(ExactConfig(draws=500))
        if request.param == "exact"
        else HierarchicalModel(HierarchicalConfig(draws=250, tune=250))
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        tree = model.fit(ds, random_seed=1)
    return ds, tree, model.summary()


def test_six_items_always_right_certify_nothing(six):
    ds, tree, _ = six
    res = mvvp.check(tree, ds)
    verdicts = [r.verdict for r in res.results]
    assert PASS not in verdicts
    assert FAIL not in verdicts  # no evidence against the judges either
    for r in res.results:
        if r.verdict is INC:
            assert "only 6" in r.reason or "only 12" in r.reason or "straddles" in r.reason


def test_six_items_no_interval_has_zero_width(six):
    _, _, s = six
    intervals = s[~s.variable.isin([*PROBABILITY_QUANTITIES, "n_paradox"])]
    intervals = intervals[np.isfinite(intervals.lo)]
    zero = intervals[intervals.hi - intervals.lo <= 0]
    assert zero.empty, sorted(set(zero.variable))


def test_kappa_above_zero_is_not_enough():
    # kappa 0.04 [0.01, 0.08]: better than chance, and it used to PASS step 1
    judges, benches = ["j", "k"], ["P", "C"]
    k = np.broadcast_to(np.linspace(0.01, 0.08, 400).reshape(2, 200, 1, 1), (2, 200, 2, 2))
    tree = hand_tree({"kappa": k}, judges, benches)
    design = hand_design(judges, benches, [{"preference"}, {"correctness"}])
    r = mvvp.check(tree, design).get(1, "j", "P")
    assert r.verdict is FAIL and "better than chance: P(kappa > 0) = 1.000" in r.reason
    assert mvvp.check(tree, design, min_kappa=0.0).get(1, "j", "P").verdict is PASS


def test_four_judges_cannot_fail_a_rank_shift_so_it_is_not_measured():
    judges, benches = ["a", "b", "c", "d"], ["P", "C"]
    kappa = np.full((2, 200, 4, 2), 0.8)
    shift = np.zeros((2, 200, 4, 1))
    tree = hand_tree(
        {"kappa": kappa, "rank": np.ones_like(kappa), "rank_shift": shift},
        judges, benches, pair_judges=4,
    )  # fmt: skip
    design = hand_design(judges, benches, [{"preference"}, {"correctness"}])
    r = mvvp.check(tree, design).get(4, "a")
    assert r.verdict is NM and "at least 5 judges are needed" in r.reason


def one_unit_replicated():
    """200 items judged once in both orders; item 0 also in runs 1 and 2."""
    cfg = CohortConfig.from_judges(
        {"j": JudgeParams(agreement=0.9)}, [preference_benchmark("P", 200, runs=3)]
    )
    ds = simulate(cfg, random_seed=0).dataset
    ds["verdict"][:, 1:, :, 1:] = Verdict.MISSING
    return ds


def test_three_runs_on_one_item_do_not_measure_test_retest():
    ds = one_unit_replicated()
    tree = ExactModel(ExactConfig(draws=300)).fit(ds, random_seed=0)
    res = mvvp.check(tree, ds)
    r3 = res.get(3, "j", "P")
    assert r3.verdict is INC and "only 2 (item, order) units with 3+ runs" in r3.reason
    assert res.get(5, "j", "P").verdict is not PASS


def test_test_retest_does_not_depend_on_the_number_of_runs():
    def judged(runs):
        cfg = CohortConfig.from_judges(
            {"j": JudgeParams(agreement=0.8, stability=0.9)},
            [preference_benchmark("P", 4000, runs=runs)],
        )
        return compute_metrics(simulate(cfg, random_seed=runs).dataset, interval="none")

    two, five = judged(2), judged(5)
    tr2, tr5 = (float(r.value.sel(metric="test_retest").squeeze()) for r in (two, five))
    assert abs(tr2 - tr5) < 0.01
    # the share identical in every run falls with the number of runs
    sh2, sh5 = (float(r.value.sel(metric="test_retest_share").squeeze()) for r in (two, five))
    assert sh2 - sh5 > 0.05


def test_deflation_is_exact_match_minus_kappa():
    cfg = CohortConfig.from_judges(
        {"j": JudgeParams(agreement=0.8, tie_rate=0.1)}, [preference_benchmark("P", 4000)]
    )
    ds = simulate(cfg, random_seed=2).dataset
    res = compute_metrics(ds, interval="none")
    v = ds["verdict"].values[0].reshape(4000, -1)  # (item, judgment)
    h = ds["human"].values[:, 0]
    ab = np.isin(h, (Verdict.A, Verdict.B))
    em = (v[ab] == h[ab, None]).sum() / (v[ab] != Verdict.MISSING).sum()
    value = res.value.sel(metric=["deflation", "kappa"]).squeeze().values
    assert value[0] == pytest.approx(em - value[1], abs=1e-12)


def test_top_k_is_not_measured_off_the_benchmarks_a_judge_was_run_on():
    cfg = CohortConfig.from_judges(
        {"a": JudgeParams(agreement=0.9), "b": JudgeParams(agreement=0.7)},
        [preference_benchmark("P", 100), preference_benchmark("Q", 100)],
    )
    ds = simulate(cfg, random_seed=0).dataset
    on_q = ds["benchmark"].values == "Q"
    v = ds["verdict"].values.copy()
    v[1, on_q] = Verdict.MISSING  # judge b was never run on Q
    ds["verdict"].values = v
    post = ExactModel(ExactConfig(draws=100)).fit(ds, random_seed=0)["posterior"]
    assert np.isnan(post["top_k_all"].sel(judge="b")).all()
    assert np.isfinite(post["top_k_all"].sel(judge="a")).all()


def test_rank_by_a_lower_is_better_metric():
    cfg = CohortConfig.from_judges(
        {"fair": JudgeParams(agreement=0.8), "biased": JudgeParams(agreement=0.8, position=0.6)},
        [preference_benchmark("P", 300)],
    )
    ds = simulate(cfg, random_seed=0).dataset
    model = ExactModel(ExactConfig(draws=100), DerivedConfig(rank_by="position_bias"))
    rank = model.fit(ds, random_seed=0)["posterior"]["rank"]
    assert float(rank.sel(judge="fair").mean()) == 1.0
    with pytest.raises(ValueError, match="direction"):
        DerivedConfig(rank_by="p_first")
