"""Metric formulas on summed item features (numpy, any leading shape).

Each function takes an array whose last axis is :data:`judgestats.features.FEATURES`
(summed over items, possibly weighted) and returns the metric over the leading axes.
Undefined values (a zero denominator, chance agreement of 1) are NaN; :func:`reason`
says why. The same formulas serve closed-form estimates, bootstrap replicates and
posterior draws.
"""

from __future__ import annotations

import numpy as np

from judgestats.features import CONF, FEATURES, LABELS, VERDICTS, feature_index

__all__ = [
    "METRICS",
    "cohen_kappa",
    "confusion",
    "derive",
    "krippendorff_alpha_nominal",
    "reason",
]


def _f(x: np.ndarray, name: str) -> np.ndarray:
    return x[..., feature_index(name)]


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def confusion(x: np.ndarray) -> np.ndarray:
    """Return the label × verdict confusion table, shape (..., 3, 4).

    Rows are human labels (a, b, tie), columns judge verdicts (a, b, tie, invalid).
    """
    idx = [feature_index(n) for n in CONF]
    return x[..., idx].reshape(*x.shape[:-1], len(LABELS), len(VERDICTS))


def cohen_kappa(table: np.ndarray) -> np.ndarray:
    """Cohen's kappa of a confusion table, rows = rater 1, columns = rater 2.

    Categories are aligned by position; extra columns (such as ``invalid``) are
    categories the row rater never uses, so they count against agreement.

    Parameters
    ----------
    table : ndarray, shape (..., r, c)
        Counts (or weights).

    Returns
    -------
    ndarray, shape (...)
        ``(po - pe) / (1 - pe)``; NaN where the table is empty or ``pe == 1``.

    Examples
    --------
    >>> import numpy as np
    >>> round(float(cohen_kappa(np.array([[770, 55, 15], [45, 65, 10], [18, 7, 15]]))), 4)
    0.4709
    """
    t = np.asarray(table, dtype=float)
    k = min(t.shape[-2:])
    n = t.sum((-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        p = t / n[..., None, None]
        po = np.trace(p[..., :k, :k], axis1=-2, axis2=-1)
        pe = (p.sum(-1)[..., :k] * p.sum(-2)[..., :k]).sum(-1)
        kappa = (po - pe) / (1 - pe)
    return np.where((n > 0) & ~np.isclose(pe, 1.0, rtol=0, atol=1e-12), kappa, np.nan)


def krippendorff_alpha_nominal(table: np.ndarray) -> np.ndarray:
    """Krippendorff's alpha (nominal) for two raters from their confusion table.

    ``1 - (2N - 1)(1 - p_o) / (2N (1 - sum p̄²))`` with ``p̄`` the pooled category
    shares of both raters' 2N values; rows and columns aligned by position, the
    union of categories used.

    Parameters
    ----------
    table : ndarray, shape (..., r, c)

    Returns
    -------
    ndarray, shape (...)
    """
    t = np.asarray(table, dtype=float)
    r, c = t.shape[-2:]
    m = max(r, c)
    pad = np.zeros((*t.shape[:-2], m, m))
    pad[..., :r, :c] = t
    n = pad.sum((-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        po = np.trace(pad, axis1=-2, axis2=-1) / n
        pbar = (pad.sum(-1) + pad.sum(-2)) / (2 * n[..., None])
        de = 1 - (pbar**2).sum(-1)
        alpha = 1 - (2 * n - 1) * (1 - po) / (2 * n * de)
    return np.where((n > 0) & (de > 1e-12), alpha, np.nan)


#: Metric name → (description, numerator feature, denominator feature) for ratios.
_RATIOS: dict[str, tuple[str, str]] = {
    "exact_match": ("em_hit", "em_den"),
    "p_first": ("first", "decisive"),
    "flip_rate": ("flip", "pairs"),
    "test_retest": ("tr_hit", "tr_den"),
    "self_consistency": ("sc_hit", "sc_den"),
    "run_agreement": ("pr_hit", "pr_den"),
    "two_trial_accuracy": ("tt_hit", "tt_den"),
    "invalid_rate": ("invalid", "cells"),
}

#: Every metric :func:`derive` returns, with its description.
METRICS: dict[str, str] = {
    "exact_match": "tie-excluded exact match with the human label",
    "kappa": "Cohen's kappa, judge vs human label (invalid is its own category)",
    "alpha": "Krippendorff's alpha (nominal), judge vs human label",
    "deflation": "exact match minus kappa",
    "p_first": "P(first-presented response chosen), among decisive verdicts",
    "position_bias": "|P(first) - 0.5|",
    "position_bias_signed": "P(first) - 0.5",
    "flip_rate": "share of runs whose verdict changes when the order is swapped",
    "order_consistency": "1 - flip rate",
    "test_retest": "share of (item, order) units with an identical verdict in every run",
    "self_consistency": "share of runs agreeing with their unit's majority verdict",
    "run_agreement": "share of agreeing pairs of runs",
    "two_trial_accuracy": "JudgeBench two-trial accuracy (net vote of both orders)",
    "invalid_rate": "share of judgments whose output was unparseable",
}

_NEEDS = {
    "kappa": ("cells with a human label", None),
    "alpha": ("cells with a human label", None),
    "deflation": ("items with an A/B human label", "em_den"),
    "position_bias": ("decisive judgments with a known order (swap positions)", "decisive"),
    "position_bias_signed": ("decisive judgments with a known order", "decisive"),
    "order_consistency": ("runs judged in both orders", "pairs"),
}


def derive(x: np.ndarray) -> dict[str, np.ndarray]:
    """Compute every metric of :data:`METRICS` from summed features.

    Parameters
    ----------
    x : ndarray, shape (..., len(FEATURES))
        Item features summed (or weighted-summed, or expected) over items.

    Returns
    -------
    dict of str to ndarray
        One array of shape ``x.shape[:-1]`` per metric.
    """
    x = np.asarray(x, dtype=float)
    if x.shape[-1] != len(FEATURES):
        raise ValueError(f"last axis has {x.shape[-1]} features, expected {len(FEATURES)}")
    out = {name: _ratio(_f(x, num), _f(x, den)) for name, (num, den) in _RATIOS.items()}
    table = confusion(x)
    out["kappa"] = cohen_kappa(table)
    out["alpha"] = krippendorff_alpha_nominal(table)
    out["deflation"] = out["exact_match"] - out["kappa"]
    out["position_bias_signed"] = out["p_first"] - 0.5
    out["position_bias"] = np.abs(out["position_bias_signed"])
    out["order_consistency"] = 1 - out["flip_rate"]
    return {name: out[name] for name in METRICS}


def reason(metric: str, x: np.ndarray) -> str:
    """Say why ``metric`` is undefined for the summed features ``x`` (one unit).

    Parameters
    ----------
    metric : str
        A name from :data:`METRICS`.
    x : ndarray, shape (len(FEATURES),)

    Returns
    -------
    str
        Empty when the metric is defined.
    """
    value = derive(x)[metric]
    if np.isfinite(value):
        return ""
    den = _RATIOS.get(metric, (None, None))[1] or _NEEDS.get(metric, ("", None))[1]
    what = {
        "em_den": "no items with an A/B human label",
        "decisive": "no decisive verdicts with a known presentation order",
        "pairs": "no item judged in both orders (no swapped order)",
        "tr_den": "fewer than two runs per item (test-retest needs replicates)",
        "sc_den": "fewer than two runs per item",
        "pr_den": "fewer than two runs per item",
        "tt_den": "no A/B-labelled item judged in both orders",
        "cells": "no judgments",
    }
    if den is not None and x[feature_index(den)] == 0:
        return what.get(den, f"{den} is zero")
    if metric in ("kappa", "alpha", "deflation"):
        if confusion(x).sum() == 0:
            return "no human labels"
        return "chance agreement is 1 (one category only): kappa is 0/0"
    return "undefined"
