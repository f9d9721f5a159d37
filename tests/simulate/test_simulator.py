"""The simulated dataset: schema, determinism and the edge cases one can build."""

import numpy as np
import pytest

from judgestats.schema import Verdict, check
from judgestats.simulate import (
    TRUTH_METRICS,
    CohortConfig,
    JudgeParams,
    always_first_judge,
    chosen_rejected_benchmark,
    correctness_benchmark,
    paradox_judge,
    preference_benchmark,
    simulate,
    single_judge,
    small_cohort,
)


@pytest.fixture(scope="module")
def small():
    return simulate(small_cohort(), random_seed=11)


def test_schema_valid_and_shapes(small):
    ds = check(small.dataset)
    assert dict(ds.sizes) == {"judge": 5, "item": 500, "order": 2, "run": 3, "rater": 1}
    assert (ds["verdict"] != Verdict.MISSING).sum() == small.config.n_judgments == 15_000
    assert set(np.unique(ds["verdict"])) <= {0, 1, 2, 3}
    assert list(small.truth.data_vars)[: len(TRUTH_METRICS)] == list(TRUTH_METRICS)
    assert small.truth["kappa"].dims == ("judge", "benchmark")
    assert small.params["stability"].dims == ("judge", "benchmark")
    assert ds["item"].values[0] == "MT-Bench/000"
    assert set(ds["label_kind"].values) == {"preference", "correctness"}
    assert np.all(ds["length_a"] > 0) and np.all(ds["length_b"] > 0)


def test_determinism(small):
    again = simulate(small_cohort(), random_seed=11)
    assert again.dataset.identical(small.dataset)
    other = simulate(small_cohort(), random_seed=12)
    assert not np.array_equal(other.dataset["verdict"].values, small.dataset["verdict"].values)


def test_judge_verdicts_do_not_depend_on_the_rest_of_the_cohort(small):
    alone = simulate(small_cohort().subset(judges=["Qwen 3 8B"]), random_seed=11)
    np.testing.assert_array_equal(
        alone.dataset["verdict"].values[0],
        small.dataset["verdict"].sel(judge="Qwen 3 8B").values,
    )


def test_scale_changes_items_not_truth(small):
    half = simulate(small_cohort(), random_seed=11, scale=0.5)
    assert half.dataset.sizes["item"] == 250
    assert half.truth["kappa"].equals(small.truth["kappa"])


def test_judge_missing_from_a_benchmark():
    cfg = small_cohort().drop("Llama 3.3 70B", "JudgeBench")
    res = simulate(cfg, random_seed=1)
    ds = res.dataset
    jb = ds["benchmark"] == "JudgeBench"
    assert (ds["verdict"].sel(judge="Llama 3.3 70B").where(jb, drop=True) == -1).all()
    assert (ds["verdict"].sel(judge="Llama 3.3 70B").where(~jb, drop=True) >= 0).all()
    t = res.truth.sel(judge="Llama 3.3 70B")
    assert np.isnan(t["kappa"].sel(benchmark="JudgeBench"))
    assert np.isfinite(t["kappa"].sel(benchmark="MT-Bench"))
    assert not res.params["run_by_judge"].sel(judge="Llama 3.3 70B", benchmark="JudgeBench")


def test_one_run_one_order_and_single_judge():
    cfg = single_judge(JudgeParams(), preference_benchmark(runs=1, orders=("AB",)))
    res = simulate(cfg, random_seed=2)
    assert dict(res.dataset.sizes) == {"judge": 1, "item": 300, "order": 1, "run": 1, "rater": 1}
    assert np.isnan(res.truth["test_retest"].item())
    assert np.isnan(res.truth["position_bias"].item())
    assert np.isfinite(res.truth["kappa"].item())


def test_benchmarks_with_different_runs_and_orders():
    cfg = CohortConfig.from_judges(
        {"j": JudgeParams()},
        [
            preference_benchmark("p", 50, runs=5),
            correctness_benchmark("c", 40, runs=2, orders=("BA",)),
            chosen_rejected_benchmark("r", 60, runs=1),
        ],
    )
    ds = simulate(cfg, random_seed=3).dataset
    assert ds.sizes["run"] == 5 and list(ds["order"].values) == ["AB", "BA"]
    present = (ds["verdict"] != Verdict.MISSING).sum(["judge", "order", "run"])
    by_bench = present.groupby(ds["benchmark"]).max()
    assert by_bench.sel(benchmark="p") == 10
    assert by_bench.sel(benchmark="c") == 2
    assert by_bench.sel(benchmark="r") == 1
    c = ds["verdict"].where(ds["benchmark"] == "c", drop=True)
    assert (c.sel(order="AB") == -1).all()


@pytest.mark.parametrize("ties, share", [("none", 0.0), ("sparse", 0.05), ("balanced", 1 / 3)])
def test_tie_label_structures(ties, share):
    res = simulate(single_judge(JudgeParams(), preference_benchmark(n_items=4000, ties=ties)), 4)
    tie = (res.dataset["human"] == Verdict.TIE).mean().item()
    assert tie == pytest.approx(share, abs=4 * np.sqrt(share * (1 - share) / 4000) + 1e-12)


def test_chosen_rejected_presents_one_random_order_per_item():
    res = simulate(single_judge(JudgeParams(), chosen_rejected_benchmark(n_items=4000)), 5)
    shown = (res.dataset["verdict"][0] != Verdict.MISSING).any("run")
    assert (shown.sum("order") == 1).all()
    share_ab = shown.sel(order="AB").mean().item()
    assert share_ab == pytest.approx(0.5, abs=4 * 0.5 / np.sqrt(4000))


def test_always_first_and_paradox_judges_in_data():
    cfg = CohortConfig.from_judges(
        {"first": always_first_judge(), "paradox": paradox_judge()},
        [preference_benchmark(n_items=2000)],
    )
    res = simulate(cfg, random_seed=6)
    v = res.dataset["verdict"]
    assert (v.sel(judge="first", order="AB") == Verdict.A).all()
    assert (v.sel(judge="first", order="BA") == Verdict.B).all()
    t = res.truth.sel(judge="paradox").squeeze()
    assert t["test_retest"] > 0.95 and t["position_bias"] > 0.10
