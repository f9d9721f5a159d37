"""Find judge parameters whose exact true metrics hit given targets.

Used offline to build presets (the preset stores the parameters found; nothing is
searched at run time) and by anyone who needs a judge with, say, kappa 0.4 and
position bias 0.15 on a given benchmark. The search is deterministic: bounded
least squares (:func:`scipy.optimize.least_squares`) on the exact truth of
:func:`judgestats.simulate.model.true_metrics`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import least_squares

from judgestats.simulate.config import BenchmarkSpec, JudgeParams
from judgestats.simulate.model import TRUTH_METRICS, true_metrics

__all__ = ["DEFAULT_FREE", "Calibration", "calibrate"]

#: Which parameter is searched for each target metric, unless ``free=`` says otherwise.
DEFAULT_FREE: dict[str, str] = {
    "kappa": "agreement",
    "exact_match": "tie_recall",
    "position_bias": "position",
    "test_retest": "stability",
    "verbosity": "length_preference",
    "invalid_rate": "invalid_rate",
}


@dataclass(frozen=True)
class Calibration:
    """The parameters found by :func:`calibrate` and how well they hit the targets.

    Attributes
    ----------
    params : JudgeParams
    achieved : dict of str to float
        The exact true value of each target metric under ``params``.
    max_error : float
        Largest absolute difference between achieved and target values.
    """

    params: JudgeParams
    achieved: dict[str, float]
    max_error: float


def calibrate(
    spec: BenchmarkSpec,
    targets: Mapping[str, float],
    *,
    start: JudgeParams | None = None,
    free: Sequence[str] | None = None,
    tolerance: float = 1e-6,
) -> Calibration:
    """Search judge parameters whose true metrics on ``spec`` equal ``targets``.

    Parameters
    ----------
    spec : BenchmarkSpec
        The benchmark.
    targets : mapping of str to float
        Target values of metrics of :data:`~judgestats.simulate.model.TRUTH_METRICS`.
    start : JudgeParams, optional
        Starting point; parameters not searched keep its values. A negative
        ``position`` searches preferences for the second slot.
    free : sequence of str, optional
        Parameters searched, as many as targets; default from :data:`DEFAULT_FREE`.
    tolerance : float, default 1e-6
        Largest acceptable absolute error.

    Returns
    -------
    Calibration

    Raises
    ------
    ValueError
        If a target is unknown, the parameter count does not match, or no
        parameters within bounds reach the targets within ``tolerance``.

    Examples
    --------
    >>> from judgestats.simulate import BenchmarkSpec
    >>> cal = calibrate(BenchmarkSpec("JB", 350, "correctness"), {"kappa": 0.5})
    >>> round(cal.achieved["kappa"], 6)
    0.5
    """
    start = start or JudgeParams()
    unknown = sorted(set(targets) - set(TRUTH_METRICS))
    if unknown:
        raise ValueError(f"targets {unknown} are not metrics; choose among {TRUTH_METRICS}")
    names = list(targets)
    if free is None:
        missing = [n for n in names if n not in DEFAULT_FREE]
        if missing:
            raise ValueError(f"no default parameter for targets {missing}; pass free=")
        free = [DEFAULT_FREE[n] for n in names]
    free = list(free)
    if len(free) != len(names) or len(set(free)) != len(free):
        raise ValueError(f"free={free!r}: give one distinct parameter per target {names}")
    sign = -1.0 if start.position < 0 else 1.0
    lo = np.zeros(len(free))
    hi = np.ones(len(free))
    hi[[f == "invalid_rate" for f in free]] = 0.5
    goal = np.array([targets[n] for n in names], dtype=float)
    x0 = np.array([abs(getattr(start, f)) if f == "position" else getattr(start, f) for f in free])
    x0 = np.clip(np.nan_to_num(x0.astype(float), nan=0.5), lo + 1e-6, hi - 1e-6)

    def params_at(x: np.ndarray) -> JudgeParams:
        values = {
            f: float(v) * (sign if f == "position" else 1.0) for f, v in zip(free, x, strict=True)
        }
        return start.replace(**values)

    def residual(x: np.ndarray) -> np.ndarray:
        m = true_metrics(params_at(x), spec)
        r = np.array([m[n] for n in names]) - goal
        return np.where(np.isfinite(r), r, 1.0)

    fit = least_squares(residual, x0, bounds=(lo, hi), xtol=1e-14, ftol=1e-14, gtol=1e-14)
    params = params_at(fit.x)
    m = true_metrics(params, spec)
    achieved = {n: m[n] for n in names}
    error = max(abs(achieved[n] - targets[n]) for n in names)
    if not math.isfinite(error) or error > tolerance:
        raise ValueError(
            f"no parameters in bounds reach {dict(targets)} on {spec.name!r}: best {achieved}"
            f" with {params}; change the targets or the fixed parameters"
        )
    return Calibration(params, achieved, float(error))
