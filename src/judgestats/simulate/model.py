"""The generative model of the simulator and its exact population values.

One item of a benchmark, for one judge with :class:`~judgestats.simulate.JudgeParams`
``p``, is drawn as follows (all verdicts in the item frame: A and B are the item's
two responses):

1. the label ``h`` ~ ``label_probs`` (A, B, tie); the length difference
   ``D = length_a - length_b`` ~ uniform on ``-length_spread .. length_spread``,
   independent of ``h``; the *longer* response is A if ``D > 0``, B if ``D < 0``
   and A or B with probability 1/2 if ``D = 0`` (so P(longer = A) = 1/2 exactly);
   the presented orders: all of ``orders``, or one of them uniformly at random;
2. the intended verdict ``u``: with probability ``length_preference`` the longer
   response; otherwise, for an A/B label, the label with probability
   ``(1 - tie_rate) * agreement`` (``agreement_b`` for label B), a tie with
   probability ``tie_rate`` and the other response with the rest; for a tie
   label, a tie with probability ``tie_recall`` and A or B with equal probability
   otherwise;
3. per presented order ``o``, the order-level decision ``w_o``: the first slot
   (A in "AB", B in "BA") with probability ``max(position, 0)``, the second slot
   with probability ``max(-position, 0)``, else ``u``;
4. per run and order, independently given ``(h, longer, w)``: with probability
   ``stability`` the run outputs ``w_o``; otherwise it re-decides from scratch, a
   fresh draw from the marginal distribution ``m_o`` of ``w_o`` given
   ``(h, longer)``. Then, independently, the output is INVALID with probability
   ``invalid_rate``.

Runs are conditionally independent and identically distributed given
``(h, longer, w)``, so the distribution of an item's whole pattern of verdicts over
(order, run) is a finite mixture of multinomials and is enumerated exactly: every
multiset of per-run outcomes, with its multinomial probability
(:func:`pattern_distribution`). The TRUE value of every metric of
:data:`judgestats.metrics.formulas.METRICS` is

    ``lim_{N -> inf} derive(N * E[item_features(pattern, h)])``

with the expectation over label, presentation and pattern taken exactly
(:func:`true_metrics`, computed at ``N =`` :data:`POPULATION`): the population value
of the same closed-form estimator, the limit to which the estimate on a sample of
``n`` i.i.d. items converges as ``n`` grows. Verbosity, the Pearson correlation over valid judgments
of ``D`` with the verdict score (+1 A, -1 B, 0 tie), depends on ``D`` only through
its sign, which gives its population value in closed form
(:func:`true_verbosity`).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import xarray as xr
from scipy.special import gammaln

from judgestats.features import FEATURES, item_features
from judgestats.metrics.formulas import METRICS, derive
from judgestats.schema import Verdict
from judgestats.simulate.config import BenchmarkSpec, CohortConfig, JudgeParams

__all__ = [
    "POPULATION",
    "TRUTH_METRICS",
    "PatternDistribution",
    "cell_marginals",
    "decision_matrix",
    "expected_features",
    "intended_probs",
    "pattern_distribution",
    "true_metrics",
    "true_verbosity",
    "truth",
]

#: Items of the "population" on which the truth is computed: large enough that
#: finite-sample corrections (relative size ``1/POPULATION``) vanish in float64.
POPULATION = 1e9

#: Metrics in the truth: every metric of ``METRICS`` plus ``verbosity``.
TRUTH_METRICS: tuple[str, ...] = (*METRICS, "verbosity")

_A, _B, _T, _INV = int(Verdict.A), int(Verdict.B), int(Verdict.TIE), int(Verdict.INVALID)
_FIRST = {"AB": _A, "BA": _B}
_SECOND = {"AB": _B, "BA": _A}
#: Outcomes of one judgment: codes 0..3 (A, B, tie, invalid), equal to their index.
_N_OUT = 4


def intended_probs(p: JudgeParams) -> np.ndarray:
    """Return P(intended verdict | label, longer response).

    Parameters
    ----------
    p : JudgeParams
        Agreement, ties and length preference matter here.

    Returns
    -------
    ndarray, shape (3, 2, 3)
        Axes: label (A, B, tie), longer response (A, B), intended verdict (A, B, tie).

    Examples
    --------
    >>> intended_probs(JudgeParams(agreement=1.0, tie_rate=0.0))[0, 0].tolist()
    [1.0, 0.0, 0.0]
    """
    tie_recall = float(p.tie_recall if p.tie_recall is not None else p.tie_rate)
    a_b = float(p.agreement_b if p.agreement_b is not None else p.agreement)
    decided = 1 - p.tie_rate
    base = np.array(
        [
            [decided * p.agreement, decided * (1 - p.agreement), p.tie_rate],
            [decided * (1 - a_b), decided * a_b, p.tie_rate],
            [(1 - tie_recall) / 2, (1 - tie_recall) / 2, tie_recall],
        ]
    )
    longer = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    lp = p.length_preference
    return (1 - lp) * base[:, None, :] + lp * longer[None, :, :]


def decision_matrix(p: JudgeParams, order: str) -> np.ndarray:
    """Return P(order-level decision w | intended verdict u) for one order.

    Parameters
    ----------
    p : JudgeParams
        Only ``position`` matters here.
    order : {"AB", "BA"}
        The order shown: which response sits in the first slot.

    Returns
    -------
    ndarray, shape (3, 3)
        Rows: u (A, B, tie); columns: w (A, B, tie).
    """
    first, second = max(p.position, 0.0), max(-p.position, 0.0)
    m = (1 - first - second) * np.eye(3)
    m[:, _FIRST[order]] += first
    m[:, _SECOND[order]] += second
    return m


def cell_marginals(p: JudgeParams, order: str) -> np.ndarray:
    """Return the distribution of one judgment given (label, longer response).

    Parameters
    ----------
    p : JudgeParams
        The judge; ``stability`` does not matter (see Returns).
    order : {"AB", "BA"}
        The presented order of the judgment.

    Returns
    -------
    ndarray, shape (3, 2, 4)
        Axes: label, longer response, output (A, B, tie, invalid). Every run has
        this marginal, whatever the stability.
    """
    m = intended_probs(p) @ decision_matrix(p, order)
    out = np.zeros((3, 2, _N_OUT))
    out[..., :3] = (1 - p.invalid_rate) * m
    out[..., _INV] = p.invalid_rate
    return out


@dataclass(frozen=True)
class PatternDistribution:
    """The exact distribution of an item's verdict pattern for one judge.

    Attributes
    ----------
    patterns : ndarray of int8, shape (pattern, order, run)
        Every reachable pattern (runs sorted, as runs are exchangeable; MISSING in
        orders not presented), over the orders ``orders``.
    orders : tuple of str
        The order axis of ``patterns``.
    label_probs : ndarray, shape (3,)
        P(label = A, B, tie).
    probs : ndarray, shape (3, pattern)
        P(pattern | label); rows of labels with zero probability are still filled.
    features : ndarray, shape (3, pattern, feature)
        ``item_features`` of each pattern under each label.
    """

    patterns: np.ndarray
    orders: tuple[str, ...]
    label_probs: np.ndarray
    probs: np.ndarray
    features: np.ndarray

    def expected_features(self) -> np.ndarray:
        """Return E[item features] over label and pattern, shape (feature,)."""
        return np.einsum("l,lk,lkf->f", self.label_probs, self.probs, self.features)

    def population_metrics(self) -> dict[str, float]:
        """Return the limit of every closed-form metric as the number of items grows.

        Most metrics are ratios of feature sums and depend on the expected features
        only; a few carry small-sample corrections (Krippendorff's ``(2N - 1)/(2N)``),
        so the expected features are scaled to :data:`POPULATION` items first.
        """
        return {k: float(v) for k, v in derive(POPULATION * self.expected_features()).items()}


def _multisets(n_outcomes: int, runs: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every multiset of ``runs`` outcomes: members, counts and multinomial coefficients."""
    members = np.array(
        list(itertools.combinations_with_replacement(range(n_outcomes), runs)), dtype=np.int64
    ).reshape(-1, runs)
    counts = np.zeros((len(members), n_outcomes), dtype=np.int64)
    for r in range(runs):
        np.add.at(counts, (np.arange(len(members)), members[:, r]), 1)
    log_coef = gammaln(runs + 1) - gammaln(counts + 1).sum(axis=1)
    return members, counts, np.round(np.exp(log_coef))


def _presentation_part(
    p: JudgeParams, spec: BenchmarkSpec, shown: tuple[str, ...], all_orders: tuple[str, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """Patterns and P(pattern | label) for items presented in the orders ``shown``."""
    k = len(shown)
    n_joint = _N_OUT**k
    members, counts, coef = _multisets(n_joint, spec.runs)
    # Per-run joint outcome index -> output of each shown order (base-4 digits).
    digits = np.array(list(itertools.product(range(_N_OUT), repeat=k)), dtype=np.int8)
    patterns = np.full((len(members), len(all_orders), spec.runs), Verdict.MISSING, np.int8)
    for i, o in enumerate(shown):
        patterns[:, all_orders.index(o), :] = digits[members, i]

    u_probs = intended_probs(p)  # (h, longer, u)
    mats = [decision_matrix(p, o) for o in shown]  # each (u, w)
    marg = [cell_marginals(p, o) for o in shown]  # each (h, longer, 4)
    anchors = list(itertools.product(range(3), repeat=k))  # the w of each shown order
    probs = np.zeros((3, len(members)))
    s, eps = p.stability, p.invalid_rate
    for h in range(3):
        for lg in range(2):
            for w in anchors:
                # P(w | h, longer) = sum_u P(u) prod_o P(w_o | u)
                pw = float(
                    np.sum(
                        u_probs[h, lg]
                        * np.prod([m[:, wo] for m, wo in zip(mats, w, strict=True)], 0)
                    )
                )
                if pw == 0.0:
                    continue
                cells = []
                for o_idx, wo in enumerate(w):
                    c = (1 - s) * marg[o_idx][h, lg].copy()
                    c[:3] += s * (1 - eps) * np.eye(3)[wo]
                    c[_INV] = eps
                    cells.append(c)
                run_p = cells[0]
                for c in cells[1:]:
                    run_p = np.outer(run_p, c).ravel()
                probs[h] += 0.5 * pw * coef * np.prod(run_p[None, :] ** counts, axis=1)
    return patterns, probs


def pattern_distribution(
    p: JudgeParams, spec: BenchmarkSpec, orders: tuple[str, ...] = ("AB", "BA")
) -> PatternDistribution:
    """Enumerate the exact distribution of an item's verdict pattern.

    Parameters
    ----------
    p : JudgeParams
        The judge's parameters on this benchmark.
    spec : BenchmarkSpec
        The benchmark (label distribution, orders, runs).
    orders : tuple of str, default ("AB", "BA")
        The order axis of the patterns (a superset of ``spec.orders``).

    Returns
    -------
    PatternDistribution
        For each label, the probability of every reachable pattern; patterns from
        different presentations (random order) are listed separately.

    Examples
    --------
    >>> from judgestats.simulate import BenchmarkSpec, JudgeParams
    >>> d = pattern_distribution(JudgeParams(), BenchmarkSpec("b", 10, runs=2))
    >>> d.probs.sum(axis=1).round(12).tolist()
    [1.0, 1.0, 1.0]
    """
    orders = tuple(orders)
    missing = set(spec.orders) - set(orders)
    if missing:
        raise ValueError(f"orders={orders!r} lacks the benchmark's orders {sorted(missing)}")
    pats, probs = [], []
    for shown, weight in spec.presentations:
        pt, pr = _presentation_part(p, spec, shown, orders)
        pats.append(pt)
        probs.append(weight * pr)
    patterns = np.concatenate(pats)
    label_probs = np.asarray(spec.label_probs, dtype=float)
    features = np.stack(
        [item_features(patterns, np.full(len(patterns), c), orders) for c in (_A, _B, _T)]
    )
    return PatternDistribution(patterns, orders, label_probs, np.concatenate(probs, 1), features)


def expected_features(p: JudgeParams, spec: BenchmarkSpec) -> np.ndarray:
    """Return E[item features] of one judge on one benchmark, shape (feature,).

    Parameters
    ----------
    p : JudgeParams
        The judge's parameters on ``spec``.
    spec : BenchmarkSpec
        Label distribution, orders and runs.

    Returns
    -------
    ndarray
        In the order of :data:`judgestats.features.FEATURES`.
    """
    return pattern_distribution(p, spec).expected_features()


def true_verbosity(p: JudgeParams, spec: BenchmarkSpec) -> float:
    """Return the exact population verbosity of one judge on one benchmark.

    Verbosity is the Pearson correlation, over the judge's valid (A, B or tie)
    judgments, of the length difference ``D = length_a - length_b`` with the
    verdict score ``Y`` (+1 A, -1 B, 0 tie). ``Y`` depends on ``D`` only through
    the longer response, and ``D`` is symmetric, so
    ``Cov(D, Y) = E[D+] (E[Y | A longer] - E[Y | B longer])`` with
    ``E[D+] = E|D| / 2``; for ``D`` uniform on ``-d .. d``,
    ``E|D| = d(d + 1)/(2d + 1)`` and ``Var D = d(d + 1)/3``.

    Parameters
    ----------
    p : JudgeParams
        The judge's parameters (length preference, position, ...).
    spec : BenchmarkSpec
        Label distribution, presentation and ``length_spread``.

    Returns
    -------
    float
        NaN where undefined (no length spread, or a constant verdict).
    """
    d = spec.length_spread
    score = np.array([1.0, -1.0, 0.0])
    label = np.asarray(spec.label_probs)
    mean_y = np.zeros(2)  # E[Y | longer = A, B] over valid judgments
    decisive = np.zeros(2)
    for shown, weight in spec.presentations:
        for o in shown:
            m = cell_marginals(p, o)[..., :3]
            m = m / m.sum(-1, keepdims=True)  # valid judgments only
            w = weight / len(shown)
            mean_y += w * np.einsum("h,hlv,v->l", label, m, score)
            decisive += w * np.einsum("h,hlv->l", label, m[..., :2])
    var_y = decisive.mean() - mean_y.mean() ** 2
    if d == 0 or var_y <= 1e-15:
        return float("nan")
    e_abs = d * (d + 1) / (2 * d + 1)
    var_d = d * (d + 1) / 3
    return float(e_abs / 2 * (mean_y[0] - mean_y[1]) / math.sqrt(var_d * var_y))


def true_metrics(p: JudgeParams, spec: BenchmarkSpec) -> dict[str, float]:
    """Return the exact population value of every metric for one judge on one benchmark.

    Parameters
    ----------
    p : JudgeParams
        The judge's parameters on ``spec``.
    spec : BenchmarkSpec
        The benchmark simulated.

    Returns
    -------
    dict of str to float
        Every name of :data:`TRUTH_METRICS`; NaN where a metric is undefined
        (for example test-retest with one run, flip rate without both orders).

    Examples
    --------
    >>> from judgestats.simulate import BenchmarkSpec, JudgeParams
    >>> m = true_metrics(JudgeParams(position=1.0), BenchmarkSpec("b", 10))
    >>> round(m["kappa"], 12), m["position_bias"], m["test_retest"]
    (0.0, 0.5, 1.0)
    """
    out = pattern_distribution(p, spec).population_metrics()
    out["verbosity"] = true_verbosity(p, spec)
    return out


def truth(config: CohortConfig) -> xr.Dataset:
    """Return the exact population metrics of every judge × benchmark of a cohort.

    Parameters
    ----------
    config : CohortConfig
        Judges, benchmarks and the parameters of every pair run.

    Returns
    -------
    xarray.Dataset
        One variable per name in :data:`TRUTH_METRICS` over ``(judge, benchmark)``,
        plus ``expected_features`` over ``(judge, benchmark, feature)``; NaN for
        pairs that were not run and metrics that are undefined.
    """
    judges, names = list(config.judges), [b.name for b in config.benchmarks]
    values = np.full((len(TRUTH_METRICS), len(judges), len(names)), np.nan)
    feats = np.full((len(judges), len(names), len(FEATURES)), np.nan)
    for (judge, bench), p in config.params.items():
        j, b = judges.index(judge), names.index(bench)
        spec = config.benchmark(bench)
        dist = pattern_distribution(p, spec)
        feats[j, b] = dist.expected_features()
        m = dist.population_metrics()
        m["verbosity"] = true_verbosity(p, spec)
        values[:, j, b] = [m[k] for k in TRUTH_METRICS]
    desc = {
        **METRICS,
        "verbosity": "Pearson r of length_a - length_b with verdict +1 A/-1 B/0 tie, over"
        " valid judgments (verbosity_bias of judgestats.metrics.covariates)",
    }
    data = {
        k: (("judge", "benchmark"), values[i], {"description": desc[k]})
        for i, k in enumerate(TRUTH_METRICS)
    }
    data["expected_features"] = (("judge", "benchmark", "feature"), feats)
    ds = xr.Dataset(data, coords={"judge": judges, "benchmark": names, "feature": list(FEATURES)})
    ds.attrs["description"] = (
        "exact population values (limits of the closed-form estimators as items grow)"
    )
    return ds
