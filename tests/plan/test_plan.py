"""The plan: configuration, the settle rule with its evidence floor, the run noise, structure,
the command."""

import json
from dataclasses import replace

import numpy as np
import pytest

from judgestats.cli import main
from judgestats.features import FEATURES, feature_index
from judgestats.futures import PriorCache, cell, run_noise
from judgestats.models import ExactModel
from judgestats.mvvp import MVVPConfig, Step, StepResult, StepVerdict, check
from judgestats.plan import PlanConfig, is_open, plan, settle_probability
from judgestats.schema import Verdict
from judgestats.simulate import BenchmarkSpec, CohortConfig, JudgeParams, simulate, small_cohort
from judgestats.tally import tally, unique_patterns


@pytest.mark.parametrize(
    ("field", "value"),
    [("target", 1.0), ("futures", 0), ("max_items", 5), ("max_runs", -1), ("confirm_below", 1.5)],
)
def test_config_rejects_bad_values(field, value):
    with pytest.raises(ValueError, match=field):
        PlanConfig(**{field: value})


def test_item_grid_is_increasing_and_reaches_max():
    grid = PlanConfig(max_items=500, grid_points=6).item_grid
    assert list(grid) == sorted(set(grid)) and grid[0] == 25 and grid[-1] == 500


@pytest.mark.parametrize(("most", "grid"), [(0, ()), (1, (1,)), (4, (1, 2, 4)), (6, (1, 2, 4, 6))])
def test_run_grid(most, grid):
    assert PlanConfig(max_runs=most).run_grid == grid


def _judge_cell(runs, **params):
    spec = BenchmarkSpec("bench", 300, "correctness", runs=runs)
    cohort = CohortConfig.from_judges({"j": JudgeParams(agreement=0.8, **params)}, [spec])
    ds = simulate(cohort, random_seed=5).dataset
    bt = tally(ds)["bench"]
    return cell(bt, "j", 3, PriorCache(3, 1.0, np.random.default_rng(0))), bt


def test_run_noise_agreement_is_the_pairwise_run_agreement():
    """The urn's agreement equals the closed-form pairwise run agreement (pr_hit / pr_den)."""
    c, bt = _judge_cell(3, stability=0.8, invalid_rate=0.05)
    noise = run_noise(c)
    sums = bt.feature_sums()[0]
    pr = sums[feature_index("pr_hit")] / sums[feature_index("pr_den")]
    assert noise.agreement == pytest.approx(pr, rel=1e-12)
    assert 0 < noise.concentration < 1e6
    assert np.allclose(noise.mean.sum(-1), 1)


def test_run_noise_of_weighted_items_spreads_as_the_item_bootstrap():
    """Gamma(count) weights per pattern (a Bayesian bootstrap of the items) give the
    pairwise run agreement the spread of the classical item bootstrap (oracle:
    items resampled with replacement and their agreement counted by hand)."""
    c, _ = _judge_cell(3, stability=0.85)
    assert run_noise(c, c.counts).agreement == run_noise(c).agreement  # weights = counts
    rng = np.random.default_rng(1)
    bayes = [run_noise(c, rng.gamma(c.counts.astype(float))).agreement for _ in range(2000)]
    runs = (c.patterns != Verdict.MISSING).sum(-1)  # (pattern, order)
    outcomes = (Verdict.A, Verdict.B, Verdict.TIE, Verdict.INVALID)
    votes = [(c.patterns == v).sum(-1) for v in outcomes]
    same = sum(n * (n - 1) for n in votes)  # (pattern, order): twice the agreeing pairs
    agree_k, pairs_k = (same / 2).sum(-1), (runs * (runs - 1) / 2).sum(-1)
    items = np.repeat(np.arange(len(c.counts)), c.counts.astype(np.int64))
    classical = []
    for _ in range(2000):
        pick = items[rng.integers(len(items), size=len(items))]
        classical.append(agree_k[pick].sum() / pairs_k[pick].sum())
    assert np.mean(bayes) == pytest.approx(run_noise(c).agreement, abs=0.002)
    assert np.std(bayes) == pytest.approx(np.std(classical), rel=0.1)  # se of an sd: 3%
    assert np.std(bayes) > 0.005


def test_run_noise_limits():
    """Identical runs: the urn only repeats (concentration at its floor); one run: no urn."""
    same, _ = _judge_cell(3, stability=1.0)
    assert run_noise(same).agreement == 1.0 and run_noise(same).concentration == 1e-3
    one, _ = _judge_cell(1)
    assert run_noise(one) is None


def test_unique_patterns_of_the_futures_rows_match_numpy():
    """The futures' rows (a label index, then verdict codes) through the tally's key."""
    rows = np.random.default_rng(1).integers(-1, 4, size=(500, 7)).astype(np.int8)
    uniq, inv = unique_patterns(rows)
    assert (uniq[inv] == rows).all()
    assert len(uniq) == len(np.unique(rows, axis=0))


def _features_with_position_bias(bias, n_draws, n_items=1000):
    """Feature sums whose position bias is ``bias`` in every draw (one future)."""
    x = np.zeros((1, n_draws, len(FEATURES)))
    x[..., FEATURES.index("decisive_paired")] = n_items
    x[..., FEATURES.index("first_paired")] = n_items * (0.5 + bias)
    return x


def test_settle_rule_and_evidence_floor():
    x = _features_with_position_bias(0.2, 50)
    enough, few = np.array([[100.0, 100.0, 100.0]]), np.array([[100.0, 10.0, 100.0]])
    cfg = MVVPConfig()
    assert settle_probability(x, enough, Step.SWAP_POSITIONS, cfg) == (1.0, 0.0)  # FAIL
    assert settle_probability(x, few, Step.SWAP_POSITIONS, cfg) == (0.0, 0.0)  # withheld


def test_is_open_plans_weak_pass_and_fail_only_below_the_level():
    base = StepResult(
        step=Step.CHANCE_CORRECT,
        judge="j",
        benchmark="b",
        quantity="kappa",
        estimate=0.5,
        lo=0.41,
        hi=0.6,
        prob=0.95,
        threshold="> 0.4",
        p_threshold_met=0.9,
        verdict=StepVerdict.PASS,
        reason="",
    )
    assert not is_open(base)  # a PASS is not planned by default
    assert is_open(base, confirm_below=0.95) and not is_open(base, confirm_below=0.9)
    fail = replace(base, verdict=StepVerdict.FAIL, p_threshold_met=0.2)  # right with 0.8
    assert is_open(fail, confirm_below=0.85) and not is_open(fail, confirm_below=0.8)
    assert is_open(replace(base, verdict=StepVerdict.INCONCLUSIVE))
    assert not is_open(replace(base, verdict=StepVerdict.NOT_MEASURED), confirm_below=1.0)
    assert not is_open(replace(base, step=Step.CROSS_VALIDATE), confirm_below=1.0)
    assert not is_open(replace(base, p_threshold_met=float("nan")), confirm_below=1.0)


def test_plan_with_confirm_below_adds_the_weak_settled_verdicts():
    ds = simulate(small_cohort(), random_seed=3, scale=0.2).dataset
    cfg = PlanConfig(futures=10, draws=100, max_items=100, grid_points=2, max_runs=0)
    result = check(ExactModel().fit(ds, random_seed=0), ds)
    weak = [
        r
        for r in result.results
        if r.verdict in (StepVerdict.PASS, StepVerdict.FAIL) and is_open(r, 0.999)
    ]
    assert weak, "the small cohort at scale 0.2 has settled verdicts short of 0.999"
    base = plan(ds, result, cfg, random_seed=0)
    wider = plan(ds, result, replace(cfg, confirm_below=0.999), random_seed=0)
    key = lambda c: (c.judge, c.benchmark, c.step)  # noqa: E731
    assert {key(c) for c in wider.cases} == {key(c) for c in base.cases} | {
        (r.judge, str(r.benchmark), r.step) for r in weak
    }
    assert all(0 <= p <= 1 for c in wider.cases for p in c.p_settled)


@pytest.fixture(scope="module")
def small_plan():
    ds = simulate(small_cohort(), random_seed=3, scale=0.2).dataset
    cfg = PlanConfig(futures=30, draws=200, max_items=400, grid_points=4, max_runs=2)
    return plan(ds, config=cfg, random_seed=0)


def test_plan_structure(small_plan):
    assert small_plan.cases, "the small cohort at scale 0.2 has open verdicts"
    for c in small_plan.cases:
        assert c.verdict is StepVerdict.INCONCLUSIVE and c.step is not Step.CROSS_VALIDATE
        assert all(0 <= p <= 1 for p in c.p_settled)
        assert all(pp <= p for p, pp in zip(c.p_settled, c.p_pass, strict=True))
        reached = [n for n, p in zip(c.items, c.p_settled, strict=True) if p >= 0.8]
        assert c.items_needed == (reached[0] if reached else None)
        assert c.runs == (1, 2) and c.n_runs == 3  # the small cohort has 3 runs
        assert all(0 <= pp <= p <= 1 for p, pp in zip(c.p_settled_runs, c.p_pass_runs, strict=True))
        reached = [k for k, p in zip(c.runs, c.p_settled_runs, strict=True) if p >= 0.8]
        assert c.runs_needed == (reached[0] if reached else None)
    frame = small_plan.to_frame()
    assert list(frame.columns[:5]) == ["judge", "benchmark", "step", "quantity", "now"]
    assert {"runs_needed", "p_reached_runs"} <= set(frame.columns)
    assert len(small_plan.curves()) == len(small_plan.cases) * 4
    assert len(small_plan.run_curves()) == len(small_plan.cases) * 2
    json.dumps(small_plan.to_json())


def test_more_runs_settle_test_retest_more_often(small_plan):
    """Step 3 gates on test-retest: K more runs of every item settle some of its open
    verdicts, and never fewer with 2 runs than with 1 beyond Monte Carlo error."""
    step3 = [c for c in small_plan.cases if c.step is Step.REPLICATE]
    assert step3
    for c in step3:
        one, two = c.p_settled_runs
        assert two >= one - 3 * np.sqrt(2 * 0.25 / c.futures)
    assert max(c.p_settled_runs[-1] for c in step3) > 0


@pytest.mark.slow
def test_plan_command_on_demo(tmp_path, capsys):
    out = tmp_path / "plan.json"
    code = main(["plan", "--futures", "10", "--max-items", "100", "-o", str(out)])
    assert code == 0
    text = capsys.readouterr().out
    assert "items needed and runs needed for P(settled) >= 0.8" in text
    data = json.loads(out.read_text())
    assert data["target"] == 0.8 and isinstance(data["cases"], list)


def test_plan_command_bad_target_exits_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["plan", "--target", "2"])
    assert exc.value.code == 2
    assert "target=2" in capsys.readouterr().err
