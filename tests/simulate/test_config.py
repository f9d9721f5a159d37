import pytest

from judgestats.simulate import BenchmarkSpec, CohortConfig, JudgeParams, small_cohort


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"agreement": 1.5}, "agreement=1.5"),
        ({"position": -2}, "position=-2"),
        ({"invalid_rate": 1.0}, "invalid_rate=1.0"),
        ({"stability": float("nan")}, "stability=nan"),
    ],
)
def test_judge_params_checked(kwargs, match):
    with pytest.raises(ValueError, match=match):
        JudgeParams(**kwargs)


def test_tie_recall_follows_tie_rate_unless_given():
    assert JudgeParams(tie_rate=0.2).tie_recall == 0.2
    assert JudgeParams(tie_rate=0.2).replace(tie_rate=0.1).tie_recall == 0.1
    assert JudgeParams(tie_rate=0.2, tie_recall=0.5).replace(tie_rate=0.1).tie_recall == 0.5


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n_items": 0}, "n_items=0"),
        ({"label_structure": "likert"}, "label_structure='likert'"),
        ({"label_probs": (0.5, 0.6, 0.0)}, "label_probs"),
        ({"orders": ("AB", "XY")}, "orders"),
        ({"runs": 0}, "runs=0"),
        ({"models": ("only",)}, "models"),
    ],
)
def test_benchmark_spec_checked(kwargs, match):
    with pytest.raises(ValueError, match=match):
        BenchmarkSpec(**{"name": "b", "n_items": 10, **kwargs})


def test_benchmark_defaults_follow_label_structure():
    cr = BenchmarkSpec("rb", 10, "chosen_rejected")
    assert cr.random_order and cr.label_probs == (0.5, 0.5, 0.0) and cr.judgments_per_item == 3
    pref = BenchmarkSpec("mt", 10)
    assert not pref.random_order and pref.judgments_per_item == 6
    assert pref.replace(orders=("AB",)).judgments_per_item == 3


def test_cohort_checks_and_helpers():
    with pytest.raises(ValueError, match="unknown judge"):
        CohortConfig(("a",), (BenchmarkSpec("b", 3),), {("z", "b"): JudgeParams()})
    with pytest.raises(ValueError, match="distinct"):
        CohortConfig(("a", "a"), (BenchmarkSpec("b", 3),))
    cfg = small_cohort()
    assert cfg.drop("Qwen 3 8B").judges == tuple(j for j in cfg.judges if j != "Qwen 3 8B")
    assert cfg.get("Qwen 3 8B", "MT-Bench") is not None
    assert cfg.drop("Qwen 3 8B", "MT-Bench").get("Qwen 3 8B", "MT-Bench") is None
    renamed = cfg.with_benchmark("MT-Bench", name="MT")
    assert renamed.get("Qwen 3 8B", "MT") == cfg.get("Qwen 3 8B", "MT-Bench")
    added = cfg.with_judge("new", {"JudgeBench": JudgeParams()})
    assert added.judges[-1] == "new" and added.get("new", "MT-Bench") is None
    assert cfg.scaled(0.01).benchmark("MT-Bench").n_items == 3
    with pytest.raises(ValueError, match="scale=0"):
        cfg.scaled(0)
