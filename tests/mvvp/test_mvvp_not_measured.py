"""Steps the data cannot support say NOT MEASURED, with the reason, instead of passing."""

from __future__ import annotations

import numpy as np
import pytest
from mvvp_helpers import fit, verdict_cohort

from judgestats import mvvp
from judgestats.mvvp import Design, Step, StepVerdict
from judgestats.schema import Verdict
from judgestats.simulate import simulate

NM = StepVerdict.NOT_MEASURED


def checked(ds):
    return mvvp.check(fit(ds), ds)


def small(**kwargs):
    return simulate(verdict_cohort(n_pref=120, n_corr=80, **kwargs), random_seed=5).dataset


@pytest.fixture(scope="module")
def one_run():
    return checked(small(runs=1))


def test_one_run_cannot_replicate(one_run):
    for r in one_run.select(step=Step.REPLICATE):
        assert r.verdict is NM
        assert "1 run per item" in r.reason and "at least 3" in r.reason
    for r in one_run.select(step=Step.AUDIT_PARADOX):
        assert r.verdict is NM
        assert "step 3 (test-retest) is not measured" in r.reason
    # Other steps are still measured.
    assert one_run.get(2, "paradox", "Pref").verdict is StepVerdict.FAIL


def test_two_runs_are_too_few_but_test_retest_is_shown():
    res = checked(small(runs=2))
    r = res.get(Step.REPLICATE, "steady", "Pref")
    assert r.verdict is NM and "2 runs per item" in r.reason
    assert np.isfinite(r.estimate)  # reported, not judged
    # The paradox audit is measured only where step 3 is: two-run test-retest is not
    # evidence of stability for the paradox either.
    r5 = res.get(5, "paradox", "Pref")
    assert r5.verdict is NM and "step 3 (test-retest) is not measured" in r5.reason


def test_one_order_cannot_measure_position_bias():
    res = checked(small(orders=("AB",)))
    for r in res.select(step=Step.SWAP_POSITIONS):
        assert r.verdict is NM
        assert "order(s) AB only" in r.reason
    assert {r.verdict for r in res.select(step=Step.AUDIT_PARADOX)} == {NM}


def test_unknown_order_says_so():
    ds = small(orders=("AB",)).assign_coords(order=["unknown"])
    res = checked(ds)
    assert "'unknown' order" in res.get(2, "steady", "Pref").reason


def test_unlabelled_data_cannot_chance_correct_or_cross_validate():
    ds = small()
    ds["human"][:] = Verdict.MISSING
    ds = ds.assign_coords(label_kind=("item", np.full(ds.sizes["item"], "unlabelled")))
    res = checked(ds)
    for r in res.select(step=Step.CHANCE_CORRECT):
        assert r.verdict is NM and "no human or gold labels" in r.reason
    for r in res.select(step=Step.CROSS_VALIDATE):
        assert r.verdict is NM and "0 labelled benchmark" in r.reason
    assert res.get(2, "paradox", "Corr").verdict is StepVerdict.FAIL


def test_one_benchmark_cannot_cross_validate():
    ds = small()
    ds = ds.isel(item=np.flatnonzero(ds["benchmark"].values == "Pref"))
    res = checked(ds)
    r = res.get(Step.CROSS_VALIDATE, "steady")
    assert r.verdict is NM
    assert "1 labelled benchmark(s) (Pref)" in r.reason


def test_benchmarks_of_one_label_kind_cannot_cross_validate():
    ds = small()
    ds = ds.assign_coords(label_kind=("item", np.full(ds.sizes["item"], "preference")))
    res = checked(ds)
    r = res.get(Step.CROSS_VALIDATE, "steady")
    assert r.verdict is NM
    assert "all have preference labels" in r.reason and "correctness-style" in r.reason


def test_design_counts():
    ds = small(runs=2)
    d = Design.from_judgments(ds)
    assert d.benchmarks == ("Pref", "Corr")
    assert d.swapped and d.orders == ("AB", "BA")
    assert d.cell("steady", "Pref") == {
        "n_items": 120,
        "labelled": 120,
        "runs": 2,
        "paired": 240,
        "paired_items": 120,
    }
    assert d.units_with_runs("steady", "Pref", 2) == 240  # 120 items x 2 orders
    assert d.units_with_runs("steady", "Pref", 3) == 0
    assert d.kinds("Corr") == frozenset({"correctness"})
    assert d.cell("nobody", "Pref")["n_items"] == 0
