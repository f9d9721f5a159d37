"""The plan: configuration, the settle rule with its evidence floor, structure, the command."""

import json

import numpy as np
import pytest

from judgestats.cli import main
from judgestats.features import FEATURES
from judgestats.mvvp import MVVPConfig, Step, StepVerdict
from judgestats.plan import PlanConfig, plan, settle_probability
from judgestats.simulate import simulate, small_cohort


@pytest.mark.parametrize(("field", "value"), [("target", 1.0), ("futures", 0), ("max_items", 5)])
def test_config_rejects_bad_values(field, value):
    with pytest.raises(ValueError, match=field):
        PlanConfig(**{field: value})


def test_item_grid_is_increasing_and_reaches_max():
    grid = PlanConfig(max_items=500, grid_points=6).item_grid
    assert list(grid) == sorted(set(grid)) and grid[0] == 25 and grid[-1] == 500


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


@pytest.fixture(scope="module")
def small_plan():
    ds = simulate(small_cohort(), random_seed=3, scale=0.2).dataset
    cfg = PlanConfig(futures=30, draws=200, max_items=400, grid_points=4)
    return plan(ds, config=cfg, random_seed=0)


def test_plan_structure(small_plan):
    assert small_plan.cases, "the small cohort at scale 0.2 has open verdicts"
    for c in small_plan.cases:
        assert c.verdict is StepVerdict.INCONCLUSIVE and c.step is not Step.CROSS_VALIDATE
        assert all(0 <= p <= 1 for p in c.p_settled)
        assert all(pp <= p for p, pp in zip(c.p_settled, c.p_pass, strict=True))
        reached = [n for n, p in zip(c.items, c.p_settled, strict=True) if p >= 0.8]
        assert c.items_needed == (reached[0] if reached else None)
    frame = small_plan.to_frame()
    assert list(frame.columns[:5]) == ["judge", "benchmark", "step", "quantity", "now"]
    assert len(small_plan.curves()) == len(small_plan.cases) * 4
    json.dumps(small_plan.to_json())


@pytest.mark.slow
def test_plan_command_on_demo(tmp_path, capsys):
    out = tmp_path / "plan.json"
    code = main(["plan", "--futures", "10", "--max-items", "100", "-o", str(out)])
    assert code == 0
    text = capsys.readouterr().out
    assert "items needed for P(settled) >= 0.8" in text
    data = json.loads(out.read_text())
    assert data["target"] == 0.8 and isinstance(data["cases"], list)


def test_plan_command_bad_target_exits_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["plan", "--target", "2"])
    assert exc.value.code == 2
    assert "target=2" in capsys.readouterr().err
