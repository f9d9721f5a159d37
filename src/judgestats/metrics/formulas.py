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
    "DIRECTION",
    "METRICS",
    "UNITS",
    "cohen_kappa",
    "cohen_kappa_se",
    "confusion",
    "denominators",
    "derive",
    "explain",
    "krippendorff_alpha_nominal",
    "krippendorff_alpha_runs",
    "reason",
    "reasons",
]


def _f(x: np.ndarray, name: str) -> np.ndarray:
    return x[..., feature_index(name)]


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def confusion(x: np.ndarray) -> np.ndarray:
    """Return the label × verdict confusion table, shape (..., 3, 4).

    Rows are human labels (a, b, tie), columns judge verdicts (a, b, tie, invalid).

    Parameters
    ----------
    x : ndarray, shape (..., len(FEATURES))
        Summed item features.

    Returns
    -------
    ndarray, shape (..., 3, 4)
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
    0.4708
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
        Counts (or weights); rows are one rater, columns the other.

    Returns
    -------
    ndarray, shape (...)
        NaN where the table is empty or one category holds every value.

    Examples
    --------
    >>> import numpy as np
    >>> round(float(krippendorff_alpha_nominal(np.array([[40, 10], [5, 45]]))), 4)
    0.7008
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


def cohen_kappa_se(table: np.ndarray) -> np.ndarray:
    """Large-sample standard error of Cohen's kappa (Fleiss, Cohen & Everitt 1969).

    The non-null variance
    ``[Σ_i p_ii (1 - (p_i. + p_.i)(1 - κ))² + (1 - κ)² Σ_{i≠j} p_ij (p_.i + p_j.)²
    - (κ - p_e (1 - κ))²] / (n (1 - p_e)²)``, on the table padded to a square.
    It treats every cell count as independent observations: on judgments that share
    items (several orders or runs per item) it is too narrow; use it on one verdict
    per item (the ``agreement`` protocol) or prefer the item bootstrap.

    Parameters
    ----------
    table : ndarray, shape (..., r, c)
        Counts; rows = rater 1, columns = rater 2, categories aligned by position.

    Returns
    -------
    ndarray, shape (...)
        NaN where kappa is undefined.

    Examples
    --------
    >>> import numpy as np
    >>> round(float(cohen_kappa_se(np.array([[1395, 118], [261, 158]]))), 7)
    0.0262914
    """
    t = _square(np.asarray(table, dtype=float))
    n = t.sum((-2, -1))
    kappa = cohen_kappa(t)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = t / n[..., None, None]
        rows, cols = p.sum(-1), p.sum(-2)
        pe = (rows * cols).sum(-1)
        q = (1 - kappa)[..., None]
        diag = np.diagonal(p, axis1=-2, axis2=-1)
        a = (diag * (1 - (rows + cols) * q) ** 2).sum(-1)
        spread = (cols[..., :, None] + rows[..., None, :]) ** 2  # (p_.i + p_j.)² at [i, j]
        off = p * (1 - np.eye(t.shape[-1]))
        b = (1 - kappa) ** 2 * (off * spread).sum((-2, -1))
        c = (kappa - pe * (1 - kappa)) ** 2
        var = (a + b - c) / (n * (1 - pe) ** 2)
    return np.sqrt(np.where(var >= 0, var, np.nan))


def _square(t: np.ndarray) -> np.ndarray:
    """Pad a (..., r, c) table with zeros to (..., m, m), m = max(r, c)."""
    r, c = t.shape[-2:]
    m = max(r, c)
    out = np.zeros((*t.shape[:-2], m, m))
    out[..., :r, :c] = t
    return out


def krippendorff_alpha_runs(x: np.ndarray) -> np.ndarray:
    """Krippendorff's alpha (nominal) across runs, from summed features.

    Runs are the coders and each (item, order) with at least two runs is a unit:
    ``alpha = 1 - (n - 1)(n - Σ_c o_cc) / (n² - Σ_c n_c²)`` with ``n`` the pairable
    values, ``o_cc`` the diagonal of the coincidence matrix and ``n_c`` the pairable
    values per category (a, b, tie, invalid).

    Parameters
    ----------
    x : ndarray, shape (..., len(FEATURES))
        Summed item features.

    Returns
    -------
    ndarray, shape (...)
        NaN with fewer than two runs or one category only.
    """
    n = _f(x, "ra_n")
    per_cat = np.stack([_f(x, f"ra_{v}") for v in VERDICTS], -1)
    de = n**2 - (per_cat**2).sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        alpha = 1 - (n - 1) * (n - _f(x, "ra_occ")) / de
    return np.where((n > 0) & (de > 1e-9), alpha, np.nan)


#: Ratio metrics: name → (numerator feature, denominator feature).
_RATIOS: dict[str, tuple[str, str]] = {
    "exact_match": ("em_hit", "em_den"),
    "agreement_s1": ("s1_hit", "s1_den"),
    "agreement_s2": ("s2_hit", "s2_den"),
    "p_first": ("first_paired", "decisive_paired"),
    "flip_rate": ("flip", "pairs"),
    "test_retest_share": ("tr_hit", "tr_den"),
    "self_consistency": ("sc_hit", "sc_den"),
    "run_agreement": ("pr_hit", "pr_den"),
    "two_trial_accuracy": ("tt_hit", "tt_den"),
    "both_correct": ("bc_hit", "tt_den"),
    "invalid_rate": ("invalid", "cells"),
}

#: Every metric :func:`derive` returns, with its description.
METRICS: dict[str, str] = {
    "exact_match": "tie-excluded exact match with the human label",
    "kappa": "Cohen's kappa, judge vs human label (invalid is its own category)",
    "alpha": "Krippendorff's alpha (nominal), judge vs human label",
    "deflation": "tie-excluded exact match minus kappa (seed 002: dk = EM - kappa)",
    "deflation_raw": "raw agreement (ties included) minus kappa, on the kappa table",
    "p_first": "P(first-presented response chosen), decisive verdicts of paired AB/BA runs",
    "position_bias": "|P(first) - 0.5|",
    "position_bias_signed": "P(first) - 0.5",
    "flip_rate": "share of runs whose verdict changes when the order is swapped",
    "order_consistency": "1 - flip rate",
    "test_retest": "Krippendorff's alpha (nominal) across runs, units (item, order)",
    "test_retest_share": "share of (item, order) units with an identical verdict in every run",
    "self_consistency": "share of runs agreeing with their unit's majority verdict",
    "run_agreement": "share of agreeing pairs of runs",
    "two_trial_accuracy": "JudgeBench two-trial accuracy (net vote of both orders)",
    "invalid_rate": "share of judgments whose output was unparseable",
    "agreement_s1": "MT-Bench S1: orders combined per run (inconsistent = tie), 3 classes",
    "agreement_s2": "MT-Bench S2: as S1, over A/B labels and non-tie combined verdicts",
    "both_correct": "share of paired runs in which both orders chose the labelled response",
    "raw_agreement": "share of judgments equal to the human label, ties included (kappa's po)",
}

#: Which way each metric is better: ``"higher"``, ``"lower"``, or ``""`` where neither
#: end is (P(first) is best at 0.5; a deflation describes the labels as much as the
#: judge). Ranks (1 = best) need a direction.
DIRECTION: dict[str, str] = {
    "exact_match": "higher",
    "kappa": "higher",
    "alpha": "higher",
    "deflation": "",
    "p_first": "",
    "position_bias": "lower",
    "position_bias_signed": "",
    "flip_rate": "lower",
    "order_consistency": "higher",
    "test_retest": "higher",
    "test_retest_share": "higher",
    "self_consistency": "higher",
    "run_agreement": "higher",
    "two_trial_accuracy": "higher",
    "invalid_rate": "lower",
    "agreement_s1": "higher",
    "agreement_s2": "higher",
    "both_correct": "higher",
    "raw_agreement": "higher",
    "deflation_raw": "",
}

#: Metric name → what its ``n`` (the denominator) counts.
UNITS: dict[str, str] = {
    "exact_match": "judgments on A/B-labelled items",
    "kappa": "judgments on labelled items",
    "alpha": "judgments on labelled items",
    "deflation": "judgments on labelled items",
    "deflation_raw": "judgments on labelled items",
    "p_first": "decisive judgments in runs judged in both orders",
    "position_bias": "decisive judgments in runs judged in both orders",
    "position_bias_signed": "decisive judgments in runs judged in both orders",
    "flip_rate": "runs judged in both orders",
    "order_consistency": "runs judged in both orders",
    "test_retest": "pairable judgments (units with two or more runs)",
    "test_retest_share": "(item, order) units with two or more runs",
    "self_consistency": "runs of units with two or more runs",
    "run_agreement": "pairs of runs within a unit",
    "two_trial_accuracy": "runs judged in both orders on A/B-labelled items",
    "invalid_rate": "judgments",
    "agreement_s1": "runs (orders combined) on labelled items",
    "agreement_s2": "runs (orders combined) with an A/B label and a non-tie verdict",
    "both_correct": "runs judged in both orders on A/B-labelled items",
    "raw_agreement": "judgments on labelled items",
}

#: Why a zero denominator leaves a metric undefined.
_EMPTY: dict[str, str] = {
    "em_den": "no judgments on items with an A/B human label",
    "s1_den": "no judgments on items with a human label",
    "s2_den": "no A/B-labelled item with a non-tie (combined) verdict",
    "decisive_paired": "no decisive verdicts in runs judged in both orders",
    "pairs": "no run judged in both orders AB and BA (swap positions; 'unknown' never pairs)",
    "tr_den": "fewer than two runs per item and order (test-retest needs replicates)",
    "sc_den": "fewer than two runs per item and order",
    "pr_den": "fewer than two runs per item and order",
    "tt_den": "no A/B-labelled item judged in both orders",
    "cells": "no judgments",
    "labelled": "no judgments on items with a human label",
    "ra_n": "fewer than two runs per item and order",
}

_CHANCE_ONE = "chance agreement is 1 (one category only): kappa is 0/0"
_ONE_CATEGORY = "every value falls in one category: alpha is 0/0"


def derive(x: np.ndarray) -> dict[str, np.ndarray]:
    """Compute every metric of :data:`METRICS` from summed features.

    Parameters
    ----------
    x : ndarray, shape (..., len(FEATURES))
        Item features summed (or weighted-summed, or expected) over items.

    Returns
    -------
    dict of str to ndarray
        One array of shape ``x.shape[:-1]`` per metric; NaN where undefined
        (:func:`reasons` says why).
    """
    x = _checked(x)
    out = {name: _ratio(_f(x, num), _f(x, den)) for name, (num, den) in _RATIOS.items()}
    table = confusion(x)
    out["kappa"] = cohen_kappa(table)
    out["alpha"] = krippendorff_alpha_nominal(table)
    # Test-retest as the paper defines it: Krippendorff's alpha with runs as coders. It
    # does not fall with the number of runs, as the share identical in every run does.
    out["test_retest"] = krippendorff_alpha_runs(x)
    out["raw_agreement"] = _ratio(np.trace(table[..., :3], axis1=-2, axis2=-1), table.sum((-2, -1)))
    # Deflation as the paper defines it, dk = EM - kappa with EM the tie-excluded exact
    # match; seed 002's script subtracts kappa from the raw agreement of the kappa table
    # (0.850 - 0.471 = 37.9 pp), kept as deflation_raw.
    out["deflation"] = out["exact_match"] - out["kappa"]
    out["deflation_raw"] = out["raw_agreement"] - out["kappa"]
    out["position_bias_signed"] = out["p_first"] - 0.5
    out["position_bias"] = np.abs(out["position_bias_signed"])
    out["order_consistency"] = 1 - out["flip_rate"]
    return {name: out[name] for name in METRICS}


def _checked(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    if x.shape[-1] != len(FEATURES):
        raise ValueError(f"last axis has {x.shape[-1]} features, expected {len(FEATURES)}")
    return x


def _denominator_feature(metric: str) -> str:
    """Return the feature (or ``"labelled"``) that counts a metric's denominator."""
    if metric in _RATIOS:
        return _RATIOS[metric][1]
    return {
        "position_bias": "decisive_paired",
        "position_bias_signed": "decisive_paired",
        "order_consistency": "pairs",
        "test_retest": "ra_n",
    }.get(metric, "labelled")


def _count(x: np.ndarray, name: str) -> np.ndarray:
    if name == "labelled":
        return confusion(x).sum((-2, -1))
    return _f(x, name)


def denominators(x: np.ndarray) -> dict[str, np.ndarray]:
    """Return each metric's ``n``: what its denominator counts (see :data:`UNITS`).

    Parameters
    ----------
    x : ndarray, shape (..., len(FEATURES))
        Summed item features.

    Returns
    -------
    dict of str to ndarray
        One array of shape ``x.shape[:-1]`` per metric of :data:`METRICS`.
    """
    x = _checked(x)
    return {name: _count(x, _denominator_feature(name)) for name in METRICS}


def explain(value: np.ndarray, checks: list[tuple[np.ndarray, str]]) -> np.ndarray:
    """Say why each NaN of ``value`` is undefined: the first check that holds.

    Parameters
    ----------
    value : ndarray
        Metric values.
    checks : list of (bool ndarray, str)
        Conditions in order of priority (broadcast against ``value``) and the reason
        each one gives.

    Returns
    -------
    ndarray of object (str)
        ``""`` where ``value`` is finite, the first matching reason elsewhere, and
        ``"undefined"`` where no check holds.
    """
    value = np.asarray(value, dtype=float)
    out = np.full(value.shape, "undefined", dtype=object)
    for cond, msg in reversed(checks):  # the first check wins
        out = np.where(np.broadcast_to(cond, value.shape), msg, out)
    return np.where(np.isfinite(value), "", out).astype(object)


def reasons(x: np.ndarray) -> dict[str, np.ndarray]:
    """Say why each metric is undefined (``""`` where it is defined), from summed features.

    Takes what :func:`denominators` takes; returns one array of str per metric.
    """
    x = _checked(x)
    values = derive(x)

    def empty(name: str) -> tuple[np.ndarray, str]:
        return _count(x, name) <= 0, _EMPTY[name]

    labelled = empty("labelled")
    special = {
        "kappa": [labelled, (np.True_, _CHANCE_ONE)],
        "alpha": [labelled, (np.True_, _ONE_CATEGORY)],
        "deflation": [labelled, empty("em_den"), (np.True_, _CHANCE_ONE)],
        "deflation_raw": [labelled, (np.True_, _CHANCE_ONE)],
        "test_retest": [empty("ra_n"), (np.True_, _ONE_CATEGORY)],
    }
    out = {}
    for name, value in values.items():
        den = _denominator_feature(name)
        checks = special.get(name) or (
            [empty("pairs"), empty(den)] if den == "decisive_paired" else [empty(den)]
        )
        out[name] = explain(value, checks)
    return out


def reason(metric: str, x: np.ndarray) -> str:
    """Say why ``metric`` is undefined for the summed features ``x`` (one unit).

    Parameters
    ----------
    metric : str
        A name from :data:`METRICS`.
    x : ndarray, shape (len(FEATURES),)
        Summed item features of one unit.

    Returns
    -------
    str
        Empty when the metric is defined.
    """
    return str(reasons(np.asarray(x, dtype=float)[None])[metric][0])
