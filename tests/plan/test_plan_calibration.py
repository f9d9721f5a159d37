"""The plan's P(settled) matches the share of futures that settle, drawn from the simulator."""

import numpy as np
import pytest
from plan_helpers import calibration


def _report(cal, label):
    gap, se = cal.gap()
    print(
        f"{label}: mean predicted {cal.predicted.mean():.3f}, settled {cal.settled.mean():.3f}, "
        f"gap {gap:+.3f} ± {se:.3f} (n={len(cal.predicted)})"
    )
    return gap, se


@pytest.mark.calibration
def test_plan_calibrated_over_replicates():
    """200 replicates: calibrated overall and in each half of the predictions (3 SE)."""
    cal = calibration(replicates=200, n_now=80, added=120, futures=100, seed=2)
    gap, se = _report(cal, "all")
    assert abs(gap) < 3 * se
    low = cal.predicted <= np.median(cal.predicted)
    for name, keep in (("low half", low), ("high half", ~low)):
        g, s = cal.gap(keep)
        print(f"{name}: gap {g:+.3f} ± {s:.3f}")
        assert abs(g) < 3 * s
