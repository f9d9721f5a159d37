"""The generative model of the simulator and its exact population values.

One item of a benchmark, for one judge with :class:`~judgestats.simulate.JudgeParams`
``p``, is drawn as follows (all verdicts in the item frame: A and B are the item's
two responses):

0. the item's difficulty ``z ~ Normal(0, 1)``, shared by every judge and human
   rater of the item (only where ``difficulty_sd > 0``);
1. the true label ``h`` ~ ``label_probs`` (A, B, tie); the length difference
   ``D = length_a - length_b`` ~ uniform on ``-length_spread .. length_spread``,
   independent of ``h``; the *longer* response is A if ``D > 0``, B if ``D < 0``
   and A or B with probability 1/2 if ``D = 0`` (so P(longer = A) = 1/2 exactly);
   the presented orders: all of ``orders``, or one of them uniformly at random;
   each of the benchmark's ``raters`` human raters labels the item ``h``, except
   with probability ``expit(logit(label_noise) + difficulty_sd * z)``, when the
   label is a fresh draw from ``label_probs``; the item's human label is the
   raters' plurality (:func:`judgestats.tally.consensus_label`);
2. the intended verdict ``u``: with probability ``length_preference`` the longer
   response; otherwise, for an A/B label, the label with probability
   ``(1 - tie_rate) * a`` (``a = expit(logit(agreement) - difficulty_sd * z)``,
   ``agreement_b`` for label B), a tie with
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
``(z, h, longer, w)``, so the distribution of an item's whole pattern of verdicts
over (order, run) given ``z`` is a finite mixture of multinomials and is enumerated
exactly: every multiset of per-run outcomes (a judge's own ``runs`` where set),
with its multinomial probability (:func:`pattern_distribution`). The difficulty is
integrated out by the trapezoidal rule with step :data:`DIFFICULTY_STEP` (the integrand
is analytic and the weight Gaussian, so the rule converges geometrically; halving the
step moves no truth by more than 1e-12 at ``difficulty_sd = 2.5``,
``tests/simulate/test_item_effects.py``; Gauss–Hermite rules converge far more slowly
on the steep logistic of a large spread), and the human label by summing
over every combination of the raters' labels. Items are i.i.d. draws of
``(z, h, labels, pattern)``, so the truth remains a population quantity: it is
never computed from the difficulties of one sample. The TRUE value of every metric of
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
from typing import Any

import numpy as np
import xarray as xr
from scipy.special import expit, gammaln, logit

from judgestats.features import FEATURES, item_features
from judgestats.metrics.formulas import METRICS, derive
from judgestats.schema import Verdict
from judgestats.simulate.config import BenchmarkSpec, CohortConfig, JudgeParams
from judgestats.tally import consensus_label

__all__ = [
    "DIFFICULTY_STEP",
    "POPULATION",
    "TRUTH_METRICS",
    "PatternDistribution",
    "cell_marginals",
    "decision_matrix",
    "difficulty_nodes",
    "expected_features",
    "intended_probs",
    "pattern_distribution",
    "rater_matrix",
    "true_metrics",
    "true_verbosity",
    "truth",
]

#: Items of the "population" on which the truth is computed: large enough that
#: finite-sample corrections (relative size ``1/POPULATION``) vanish in float64.
POPULATION = 1e9

#: Metrics in the truth: every metric of ``METRICS`` plus ``verbosity``.
TRUTH_METRICS: tuple[str, ...] = (*METRICS, "verbosity")

#: Step of the trapezoidal rule over an item's difficulty ``z`` (on ``|z| <= 8.6``).
DIFFICULTY_STEP = 0.2

#: Half-width of the difficulty grid: the normal tail beyond it is below 1e-17.
_DIFFICULTY_RANGE = 8.6

_A, _B, _T, _INV = int(Verdict.A), int(Verdict.B), int(Verdict.TIE), int(Verdict.INVALID)
_LABELS = np.array([_A, _B, _T], dtype=np.int8)
_FIRST = {"AB": _A, "BA": _B}
_SECOND = {"AB": _B, "BA": _A}
#: Outcomes of one judgment: codes 0..3 (A, B, tie, invalid), equal to their index.
_N_OUT = 4


def _shifted(prob: float, shift: np.ndarray | float | None) -> np.ndarray | float:
    """``expit(logit(prob) + shift)``, or ``prob`` itself when there is no shift."""
    if shift is None:
        return prob
    with np.errstate(divide="ignore"):
        return expit(logit(prob) + np.asarray(shift, dtype=float))


def difficulty_nodes(spec: BenchmarkSpec) -> tuple[np.ndarray, np.ndarray]:
    """Return the quadrature nodes and weights of an item's difficulty ``z``.

    Parameters
    ----------
    spec : BenchmarkSpec

    Returns
    -------
    z, weight : ndarray
        Nodes of the trapezoidal rule with step :data:`DIFFICULTY_STEP` and weights
        proportional to the normal density, summing to 1; the single node ``z = 0``
        when the benchmark has no difficulty spread.
    """
    if spec.difficulty_sd == 0:
        return np.zeros(1), np.ones(1)
    z = np.arange(-_DIFFICULTY_RANGE, _DIFFICULTY_RANGE + DIFFICULTY_STEP / 2, DIFFICULTY_STEP)
    w = np.exp(-(z**2) / 2)
    return z, w / w.sum()


def rater_matrix(spec: BenchmarkSpec, z: float = 0.0) -> np.ndarray:
    """Return P(human label | true label) at difficulty ``z``.

    Parameters
    ----------
    spec : BenchmarkSpec
        ``label_noise``, ``difficulty_sd``, ``raters`` and ``label_probs`` matter.
    z : float, default 0.0
        The item's difficulty.

    Returns
    -------
    ndarray, shape (3, 3)
        Rows: true label (A, B, tie); columns: the raters' plurality (A, B, tie).
    """
    if spec.label_noise == 0:
        return np.eye(3)
    eps = float(_shifted(spec.label_noise, spec.difficulty_sd * z))
    one = (1 - eps) * np.eye(3) + eps * np.asarray(spec.label_probs)[None, :]
    combos = np.array(list(itertools.product(range(3), repeat=spec.raters)), dtype=np.int64)
    consensus = consensus_label(_LABELS[combos])
    col = np.searchsorted(_LABELS, consensus)  # codes A, B, tie are 0, 1, 2
    out = np.zeros((3, 3))
    for h in range(3):
        np.add.at(out[h], col, np.prod(one[h][combos], axis=1))
    return out


def intended_probs(p: JudgeParams, shift: np.ndarray | float | None = None) -> np.ndarray:
    """Return P(intended verdict | label, longer response).

    Parameters
    ----------
    p : JudgeParams
        Agreement, ties and length preference matter here.
    shift : float or ndarray, optional
        Moves the log-odds of ``agreement`` and ``agreement_b`` (``-difficulty_sd *
        z`` for an item of difficulty ``z``); an array adds its shape in front.

    Returns
    -------
    ndarray, shape (..., 3, 2, 3)
        Axes: label (A, B, tie), longer response (A, B), intended verdict (A, B, tie).

    Examples
    --------
    >>> intended_probs(JudgeParams(agreement=1.0, tie_rate=0.0))[0, 0].tolist()
    [1.0, 0.0, 0.0]
    """
    tie_recall = float(p.tie_recall if p.tie_recall is not None else p.tie_rate)
    a_b = float(p.agreement_b if p.agreement_b is not None else p.agreement)
    decided = 1 - p.tie_rate
    if shift is None:
        base = np.array(
            [
                [decided * p.agreement, decided * (1 - p.agreement), p.tie_rate],
                [decided * (1 - a_b), decided * a_b, p.tie_rate],
                [(1 - tie_recall) / 2, (1 - tie_recall) / 2, tie_recall],
            ]
        )
    else:
        a, b = _shifted(p.agreement, shift), _shifted(a_b, shift)
        one = np.ones_like(a)
        base = np.stack(
            [
                np.stack([decided * a, decided * (1 - a), p.tie_rate * one], -1),
                np.stack([decided * (1 - b), decided * b, p.tie_rate * one], -1),
                np.stack(
                    [(1 - tie_recall) / 2 * one, (1 - tie_recall) / 2 * one, tie_recall * one], -1
                ),
            ],
            -2,
        )
    longer = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    lp = p.length_preference
    return (1 - lp) * base[..., :, None, :] + lp * longer


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


def cell_marginals(
    p: JudgeParams, order: str, shift: np.ndarray | float | None = None
) -> np.ndarray:
    """Return the distribution of one judgment given (label, longer response).

    Parameters
    ----------
    p : JudgeParams
        The judge; ``stability`` does not matter (see Returns).
    order : {"AB", "BA"}
        The presented order of the judgment.
    shift : float or ndarray, optional
        Log-odds shift of agreement, as in :func:`intended_probs`.

    Returns
    -------
    ndarray, shape (..., 3, 2, 4)
        Axes: label, longer response, output (A, B, tie, invalid). Every run has
        this marginal, whatever the stability.
    """
    m = intended_probs(p, shift) @ decision_matrix(p, order)
    out = np.zeros((*m.shape[:-1], _N_OUT))
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
    p: JudgeParams,
    spec: BenchmarkSpec,
    shown: tuple[str, ...],
    all_orders: tuple[str, ...],
    shift: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Patterns and P(pattern | true label) for items presented in the orders ``shown``.

    Returns probabilities of shape ``(node, 3, pattern)``: one node without a
    ``shift``, else one per entry of ``shift`` (the agreement shifts of the
    difficulty nodes).
    """
    k = len(shown)
    n_joint = _N_OUT**k
    members, counts, coef = _multisets(n_joint, spec.runs)
    # Per-run joint outcome index -> output of each shown order (base-4 digits).
    digits = np.array(list(itertools.product(range(_N_OUT), repeat=k)), dtype=np.int8)
    patterns = np.full((len(members), len(all_orders), spec.runs), Verdict.MISSING, np.int8)
    for i, o in enumerate(shown):
        patterns[:, all_orders.index(o), :] = digits[members, i]

    one_node = shift is None
    count_f, present = counts.T.astype(float), (counts.T > 0).astype(float)
    u_probs = intended_probs(p, shift).reshape(-1, 3, 2, 3)  # (node, h, longer, u)
    mats = [decision_matrix(p, o) for o in shown]  # each (u, w)
    marg = [cell_marginals(p, o, shift).reshape(-1, 3, 2, _N_OUT) for o in shown]
    anchors = list(itertools.product(range(3), repeat=k))  # the w of each shown order
    probs = np.zeros((len(u_probs), 3, len(members)))
    s, eps = p.stability, p.invalid_rate
    for h in range(3):
        for lg in range(2):
            for w in anchors:
                # P(w | h, longer) = sum_u P(u) prod_o P(w_o | u), per node
                joint_w = np.prod([m[:, wo] for m, wo in zip(mats, w, strict=True)], 0)
                pw = u_probs[:, h, lg] @ joint_w
                if not np.any(pw):
                    continue
                cells = []
                for o_idx, wo in enumerate(w):
                    c = (1 - s) * marg[o_idx][:, h, lg].copy()  # (node, 4)
                    c[:, :3] += s * (1 - eps) * np.eye(3)[wo]
                    c[:, _INV] = eps
                    cells.append(c)
                run_p = cells[0]
                for c in cells[1:]:
                    run_p = (run_p[:, :, None] * c[:, None, :]).reshape(len(run_p), -1)
                if one_node:  # exact powers
                    multi = np.prod(run_p[0][None, :] ** counts, axis=1)[None]
                else:  # prod_o run_p ** counts over every node at once, on the log scale
                    with np.errstate(divide="ignore"):
                        log_p = np.log(run_p)
                    multi = np.exp(_count_log(count_f, present, log_p))
                probs[:, h] += 0.5 * pw[:, None] * coef * multi
    return patterns, probs


def _count_log(count_f: np.ndarray, present: np.ndarray, log_p: np.ndarray) -> np.ndarray:
    """``sum_c count_f[c, k] * log_p[q, c]`` with ``0 * log 0 = 0``, shape (q, k).

    ``present`` is ``count_f > 0`` as floats: a pattern that needs an outcome of
    probability 0 gets log probability ``-inf``.
    """
    finite = np.isfinite(log_p)
    # einsum without BLAS: these products are small, and threaded BLAS on a busy
    # machine spends ten times longer than the arithmetic
    out = np.einsum("qc,ck->qk", np.where(finite, log_p, 0.0), count_f)
    impossible = np.einsum("qc,ck->qk", (~finite).astype(float), present)
    return np.where(impossible > 0, -np.inf, out)


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
    spec = spec if p.runs is None else spec.replace(runs=p.runs)
    label_probs = np.asarray(spec.label_probs, dtype=float)
    nodes, node_weights = difficulty_nodes(spec)
    shift = None if spec.difficulty_sd == 0 else -spec.difficulty_sd * nodes
    pats, probs = [], []
    for shown, weight in spec.presentations:
        pt, pr = _presentation_part(p, spec, shown, orders, shift)
        pats.append(pt)
        probs.append(weight * pr)
    patterns = np.concatenate(pats)
    per_node = np.concatenate(probs, -1)  # P(pattern | true label, z): (node, h, pattern)
    given_true = np.einsum("q,qhk->hk", node_weights, per_node)
    # P(human label, pattern) = E_z sum_h P(h) P(human label | h, z) P(pattern | h, z)
    raters = np.stack([rater_matrix(spec, float(z)) for z in nodes])  # (node, h, label)
    joint = np.einsum("q,h,qhl,qhk->lk", node_weights, label_probs, raters, per_node)
    if spec.label_noise == 0:  # the human label is the true label
        human_probs, cond = label_probs, (per_node[0] if len(nodes) == 1 else given_true)
    else:
        human_probs = joint.sum(1)
        with np.errstate(invalid="ignore", divide="ignore"):
            cond = np.where(human_probs[:, None] > 0, joint / human_probs[:, None], given_true)
    label_probs = human_probs
    features = np.stack(
        [item_features(patterns, np.full(len(patterns), c), orders) for c in (_A, _B, _T)]
    )
    return PatternDistribution(patterns, orders, label_probs, cond, features)


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
    label = np.asarray(spec.label_probs)  # the true label decides the judge's verdicts
    mean_y = np.zeros(2)  # E[Y | longer = A, B] over valid judgments
    decisive = np.zeros(2)
    for z, wz in zip(*difficulty_nodes(spec), strict=True):
        shift = None if spec.difficulty_sd == 0 else -spec.difficulty_sd * float(z)
        for shown, weight in spec.presentations:
            for o in shown:
                m = cell_marginals(p, o, shift)[..., :3]
                m = m / m.sum(-1, keepdims=True)  # valid judgments only
                w = wz * weight / len(shown)
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
    data: dict[str, Any] = {
        k: (("judge", "benchmark"), values[i], {"description": desc[k]})
        for i, k in enumerate(TRUTH_METRICS)
    }
    data["expected_features"] = (("judge", "benchmark", "feature"), feats)
    ds = xr.Dataset(data, coords={"judge": judges, "benchmark": names, "feature": list(FEATURES)})
    ds.attrs["description"] = (
        "exact population values (limits of the closed-form estimators as items grow)"
    )
    return ds
