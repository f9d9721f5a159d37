"""Metric formulas on summed item features (numpy, any leading shape).

Each function takes an array whose last axis is :data:`judgestats.features.FEATURES`
(summed over items, possibly weighted) and returns the metric over the leading axes.
Undefined values (a zero denominator, chance agreement of 1) are NaN; :func:`reason`
says why. The same formulas serve closed-form estimates, bootstrap replicates and
posterior draws.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from judgestats.features import CONF, FEATURES, LABELS, VERDICTS, feature_index
from judgestats.metrics.registry import Metric, MetricRegistry

__all__ = [
    "DIRECTION",
    "METRICS",
    "REGISTRY",
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


#: Why an empty feature (a zero denominator) leaves a metric undefined.
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

_CHANCE_ONE = (
    "chance agreement is 1, or every labelled item has the same label: kappa cannot tell"
    " agreement from chance"
)
_ONE_CATEGORY = "every value falls in one category: alpha is 0/0"
_PAIRED = ("pairs", "decisive_paired")


def _kappa(x: np.ndarray, done: Mapping[str, np.ndarray]) -> np.ndarray:
    """Kappa against the human label; undefined when the labels hold one class only.

    With one label class, kappa is 0 for every judge that does not always give that
    label (and 0/0 for one that does): a number that says nothing about the judge.
    """
    table = confusion(x)
    classes = (table.sum(-1) > 0).sum(-1)
    return np.where(classes >= 2, cohen_kappa(table), np.nan)


def _raw_agreement(x: np.ndarray, done: Mapping[str, np.ndarray]) -> np.ndarray:
    table = confusion(x)
    return _ratio(np.trace(table[..., :3], axis1=-2, axis2=-1), table.sum((-2, -1)))


#: Every judge metric, declared once (see :mod:`judgestats.metrics.registry`); the
#: order is the order of :func:`derive`'s output, and a formula may read the metrics
#: declared before it.
REGISTRY = MetricRegistry(
    (
        Metric("exact_match", "tie-excluded exact match with the human label",
               "judgments on A/B-labelled items", "higher", "em_hit", "em_den",
               reported=True),
        Metric("kappa", "Cohen's kappa, judge vs human label (invalid is its own category)",
               "judgments on labelled items", "higher",
               formula=_kappa, undefined=_CHANCE_ONE,
               reported=True),
        Metric("alpha", "Krippendorff's alpha (nominal), judge vs human label",
               "judgments on labelled items", "higher",
               formula=lambda x, done: krippendorff_alpha_nominal(confusion(x)),
               undefined=_ONE_CATEGORY, reported=True),
        Metric("raw_agreement",
               "share of judgments equal to the human label, ties included (kappa's po)",
               "judgments on labelled items", "higher", formula=_raw_agreement),
        # Deflation as the paper defines it, dk = EM - kappa with EM the tie-excluded
        # exact match; seed 002's script subtracts kappa from the raw agreement of the
        # kappa table (0.850 - 0.471 = 37.9 pp), kept as deflation_raw.
        Metric("deflation", "tie-excluded exact match minus kappa (seed 002: dk = EM - kappa)",
               "judgments on labelled items",
               formula=lambda x, done: done["exact_match"] - done["kappa"],
               requires=("labelled", "em_den"), undefined=_CHANCE_ONE, reported=True),
        Metric("deflation_raw", "raw agreement (ties included) minus kappa, on the kappa table",
               "judgments on labelled items",
               formula=lambda x, done: done["raw_agreement"] - done["kappa"],
               undefined=_CHANCE_ONE),
        Metric("p_first",
               "P(first-presented response chosen), decisive verdicts of paired AB/BA runs",
               "decisive judgments in runs judged in both orders", "", "first_paired",
               "decisive_paired", requires=_PAIRED, label="P(first)", reported=True),
        Metric("position_bias", "|P(first) - 0.5|",
               "decisive judgments in runs judged in both orders", "lower",
               formula=lambda x, done: np.abs(done["p_first"] - 0.5),
               denominator="decisive_paired", requires=_PAIRED, reported=True),
        Metric("position_bias_signed", "P(first) - 0.5",
               "decisive judgments in runs judged in both orders",
               formula=lambda x, done: done["p_first"] - 0.5, denominator="decisive_paired",
               requires=_PAIRED, label="P(first) - 0.5", reported=True),
        Metric("flip_rate", "share of runs whose verdict changes when the order is swapped",
               "runs judged in both orders", "lower", "flip", "pairs", reported=True),
        Metric("order_consistency", "1 - flip rate", "runs judged in both orders", "higher",
               formula=lambda x, done: 1 - done["flip_rate"], denominator="pairs"),
        # Test-retest as the paper defines it: Krippendorff's alpha with runs as coders.
        # It does not fall with the number of runs, as the share identical in every run
        # (seed 002's script, test_retest_share) does.
        Metric("test_retest", "Krippendorff's alpha (nominal) across runs, units (item, order)",
               "pairable judgments (units with two or more runs)", "higher",
               formula=lambda x, done: krippendorff_alpha_runs(x), denominator="ra_n",
               undefined=_ONE_CATEGORY, label="test-retest", reported=True),
        Metric("test_retest_share",
               "share of (item, order) units with an identical verdict in every run",
               "(item, order) units with two or more runs", "higher", "tr_hit", "tr_den",
               label="identical in every run", reported=True),
        Metric("self_consistency", "share of runs agreeing with their unit's majority verdict",
               "runs of units with two or more runs", "higher", "sc_hit", "sc_den",
               label="self-consistency", reported=True),
        Metric("run_agreement", "share of agreeing pairs of runs", "pairs of runs within a unit",
               "higher", "pr_hit", "pr_den"),
        Metric("two_trial_accuracy", "JudgeBench two-trial accuracy (net vote of both orders)",
               "runs judged in both orders on A/B-labelled items", "higher", "tt_hit",
               "tt_den", reported=True),
        Metric("invalid_rate", "share of judgments whose output was unparseable", "judgments",
               "lower", "invalid", "cells", reported=True),
        Metric("agreement_s1",
               "MT-Bench S1: orders combined per run (inconsistent = tie), 3 classes",
               "runs (orders combined) on labelled items", "higher", "s1_hit", "s1_den"),
        Metric("agreement_s2",
               "MT-Bench S2: as S1, over A/B labels and non-tie combined verdicts",
               "runs (orders combined) with an A/B label and a non-tie verdict", "higher",
               "s2_hit", "s2_den"),
        Metric("both_correct",
               "share of paired runs in which both orders chose the labelled response",
               "runs judged in both orders on A/B-labelled items", "higher", "bc_hit", "tt_den"),
    )
)  # fmt: skip

#: Every metric :func:`derive` returns, with its description (a live view).
METRICS: Mapping[str, str] = REGISTRY.field("description")
#: Metric name → what its ``n`` (the denominator) counts.
UNITS: Mapping[str, str] = REGISTRY.field("unit")
#: Which way each metric is better (``"higher"``, ``"lower"`` or ``""``).
DIRECTION: Mapping[str, str] = REGISTRY.field("direction")


def derive(x: np.ndarray) -> dict[str, np.ndarray]:
    """Compute every registered metric from summed features.

    Parameters
    ----------
    x : ndarray, shape (..., len(FEATURES))
        Item features summed (or weighted-summed, or expected) over items.

    Returns
    -------
    dict of str to ndarray
        One array of shape ``x.shape[:-1]`` per metric of :data:`REGISTRY`; NaN where
        undefined (:func:`reasons` says why).
    """
    x = _checked(x)
    out: dict[str, np.ndarray] = {}
    for name, m in REGISTRY.items():
        if m.formula is not None:
            out[name] = np.asarray(m.formula(x, out), dtype=float)
        else:
            out[name] = _ratio(_f(x, m.numerator), _count(x, m.denominator))
    return out


def _checked(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    if x.shape[-1] != len(FEATURES):
        raise ValueError(f"last axis has {x.shape[-1]} features, expected {len(FEATURES)}")
    return x


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
        One array of shape ``x.shape[:-1]`` per metric of :data:`REGISTRY`.
    """
    x = _checked(x)
    return {name: _count(x, m.denominator) for name, m in REGISTRY.items()}


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

    Takes what :func:`denominators` takes; returns one array of str per metric: the
    first of its required features that is empty, else its own reason.
    """
    x = _checked(x)
    values = derive(x)
    out = {}
    for name, m in REGISTRY.items():
        checks = [(_count(x, f) <= 0, _EMPTY.get(f, f"no {f}")) for f in m.requires]
        if m.undefined:
            checks.append((np.ones(values[name].shape, dtype=bool), m.undefined))
        out[name] = explain(values[name], checks)
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
