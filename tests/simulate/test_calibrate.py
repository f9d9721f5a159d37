import pytest

from judgestats.simulate import (
    JudgeParams,
    calibrate,
    correctness_benchmark,
    preference_benchmark,
    true_metrics,
)


def test_calibrate_hits_targets_and_keeps_fixed_parameters():
    spec = correctness_benchmark()
    start = JudgeParams(tie_rate=0.02, invalid_rate=0.01)
    cal = calibrate(spec, {"kappa": 0.6, "position_bias": 0.08, "test_retest": 0.9}, start=start)
    m = true_metrics(cal.params, spec)
    assert m["kappa"] == pytest.approx(0.6, abs=1e-6)
    assert m["position_bias"] == pytest.approx(0.08, abs=1e-6)
    assert m["test_retest"] == pytest.approx(0.9, abs=1e-6)
    assert cal.max_error < 1e-6
    assert cal.params.tie_rate == 0.02 and cal.params.invalid_rate == 0.01


def test_calibrate_second_slot_preference():
    cal = calibrate(
        preference_benchmark(), {"position_bias": 0.1}, start=JudgeParams(position=-0.1)
    )
    assert cal.params.position < 0
    assert true_metrics(cal.params, preference_benchmark())["position_bias_signed"] == (
        pytest.approx(-0.1, abs=1e-6)
    )


def test_calibrate_errors():
    spec = correctness_benchmark()
    with pytest.raises(ValueError, match="not metrics"):
        calibrate(spec, {"accuracy": 0.5})
    with pytest.raises(ValueError, match="one distinct parameter"):
        calibrate(spec, {"kappa": 0.5}, free=["agreement", "stability"])
    # A judge that always picks a slot cannot agree with the label.
    with pytest.raises(ValueError, match="no parameters in bounds"):
        calibrate(spec, {"kappa": 0.9}, start=JudgeParams(position=0.9))
