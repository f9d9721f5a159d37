"""The plan's P(settled) matches the share of futures that settle, drawn from the simulator."""

import numpy as np
import pytest
from plan_helpers import calibration, run_calibration


def _report(cal, label):
    gap, se = cal.gap()
    print(
        f"{label}: mean predicted {cal.predicted.mean():.3f}, settled {cal.settled.mean():.3f}, "
        f"gap {gap:+.3f} ± {se:.3f} (n={len(cal.predicted)})"
    )
    return gap, se


@pytest.mark.calibration
def test_plan_calibrated_over_replicates():
    """200 replicates, 120 more items: calibrated overall and in each half (3 SE)."""
    cal = calibration(replicates=200, n_now=80, added=120, futures=100, seed=2)
    gap, se = _report(cal, "all")
    assert abs(gap) < 3 * se
    low = cal.predicted <= np.median(cal.predicted)
    for name, keep in (("low half", low), ("high half", ~low)):
        g, s = cal.gap(keep)
        print(f"{name}: gap {g:+.3f} ± {s:.3f}")
        assert abs(g) < 3 * s


@pytest.mark.calibration
def test_plan_by_runs_calibrated_over_replicates():
    """150 replicates of 3 runs now and 3 more drawn by the simulator: calibrated (3 SE)."""
    cal = run_calibration(replicates=150, n_items=120, runs_now=3, added=3, futures=100, seed=2)
    gap, se = _report(cal, "runs")
    assert abs(gap) < 3 * se
