"""How much more data would settle an open verdict: preposterior analysis.

An INCONCLUSIVE MVVP verdict is a question about budget. For every INCONCLUSIVE
step 1, 2, 3 or 5 of a judge × benchmark, :func:`plan` predicts the probability
that the verdict becomes PASS or FAIL (*settles*) if ``N`` more items are judged,
for a grid of ``N``, and the smallest ``N`` of the grid at which that probability
reaches a target (default 0.8). Step 4 (rank shifts) depends on every judge at
once and is not planned.

Method
------
Preposterior analysis on the exact tier (:mod:`judgestats.models.exact`). The
posterior of a judge's distribution of (label, verdict pattern) over items is the
exact tier's Dirichlet process, marginally for one judge::

    P = sum_k theta_k delta_k + theta_new P_new,
    (theta_1 .. theta_K, theta_new) ~ Dirichlet(c_1, .., c_K, alpha),

with ``c_k`` the items showing (label, pattern) ``k`` and ``P_new ~ DP(alpha,
G0)`` (:mod:`judgestats.models.prior`). One simulated *future*:

1. draw ``theta`` from that posterior;
2. draw the ``N`` new items from it: multinomial counts over the seen patterns,
   and for the share ``theta_new`` patterns drawn from ``G0`` (the one
   approximation: these few novel items are drawn independently from ``G0``,
   ignoring the clustering of ``P_new``, whose weight is about ``alpha / (n +
   alpha)``);
3. update: the exact tier's posterior given the ``n + N`` items (the same
   Dirichlet process, ``draws`` draws), derive the step's quantity and apply the
   MVVP rule (:func:`judgestats.mvvp.interval_verdict`, or
   :func:`~judgestats.mvvp.probability_verdict` for the paradox), the evidence
   rule included: a PASS or FAIL on fewer than ``min_items`` counted items
   (labelled items, items judged in both orders, units with ``min_runs`` runs) is
   withheld and does not settle.

P(settled | N) is the share of ``futures`` futures that settle; its Monte Carlo
standard error is ``sqrt(p (1 - p) / futures)``. New items follow the design of
the judge's existing ones (the same share of labels, orders and runs).
"""

from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from judgestats.features import FEATURES
from judgestats.metrics.formulas import derive
from judgestats.models.prior import DEFAULT_CONCENTRATION, base_patterns, dp_feature_draws
from judgestats.mvvp import (
    MVVPConfig,
    MVVPResult,
    Step,
    StepVerdict,
    interval_verdict,
    probability_verdict,
)
from judgestats.schema import Verdict
from judgestats.tally import LABEL_CODES, BenchmarkTally, tally

__all__ = ["PlanCase", "PlanConfig", "PlanResult", "plan", "settle_probability"]

#: Steps the plan predicts, and the quantity each decides by.
PLANNED_STEPS: dict[Step, str] = {
    Step.CHANCE_CORRECT: "kappa",
    Step.SWAP_POSITIONS: "position_bias",
    Step.REPLICATE: "test_retest",
    Step.AUDIT_PARADOX: "paradox",
}
_SETTLED = (StepVerdict.PASS, StepVerdict.FAIL)
_NO_LABEL = LABEL_CODES.index(Verdict.MISSING)
#: Draws of the prior's novel part kept per cell and resampled (its weight is
#: about ``alpha / (n + alpha)``, so a finite pool changes nothing visible).
_POOL = 2000


@dataclass(frozen=True)
class PlanConfig:
    """Settings of the preposterior analysis.

    Attributes
    ----------
    target : float, default 0.8
        P(settled) that the items needed must reach.
    max_items : int, default 1600
        Largest number of added items tried.
    grid_points : int, default 8
        Points of the item grid, geometric from ``min_items_grid`` to ``max_items``.
    min_items_grid : int, default 25
        Smallest number of added items tried.
    futures : int, default 200
        Simulated futures per grid point (Monte Carlo error of P(settled) at most
        ``0.5 / sqrt(futures)``).
    draws : int, default 400
        Posterior draws per future, for its interval.
    prior : float, default 1.0
        Concentration of the exact tier's Dirichlet-process prior.
    """

    target: float = 0.8
    max_items: int = 1600
    grid_points: int = 8
    min_items_grid: int = 25
    futures: int = 200
    draws: int = 400
    prior: float = DEFAULT_CONCENTRATION

    def __post_init__(self) -> None:
        if not 0 < self.target < 1:
            raise ValueError(f"target={self.target!r}; must be strictly between 0 and 1")
        if self.min_items_grid < 1 or self.max_items < self.min_items_grid:
            raise ValueError(
                f"max_items={self.max_items!r}; must be at least min_items_grid="
                f"{self.min_items_grid!r} (>= 1)"
            )
        for name in ("grid_points", "futures", "draws"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name}={getattr(self, name)!r}; must be at least 1")
        if self.prior <= 0:
            raise ValueError(f"prior={self.prior!r}; must be positive")

    @property
    def item_grid(self) -> tuple[int, ...]:
        """Numbers of added items tried, increasing."""
        grid = np.geomspace(self.min_items_grid, self.max_items, self.grid_points)
        return tuple(sorted({round(float(x)) for x in grid}))


@dataclass(frozen=True)
class PlanCase:
    """The prediction for one open verdict.

    Attributes
    ----------
    judge, benchmark : str
    step : Step
    quantity : str
    verdict : StepVerdict
        The verdict now.
    n_items : int
        Items the judge has on the benchmark now.
    items : tuple of int
        Added items tried.
    p_settled : tuple of float
        P(the verdict becomes PASS or FAIL) with that many added items.
    p_pass : tuple of float
        P(it becomes PASS).
    items_needed : int or None
        Smallest ``items`` reaching the target; None if none does.
    futures : int
        Futures simulated per point (for the Monte Carlo error).
    """

    judge: str
    benchmark: str
    step: Step
    quantity: str
    verdict: StepVerdict
    n_items: int
    items: tuple[int, ...]
    p_settled: tuple[float, ...]
    p_pass: tuple[float, ...]
    items_needed: int | None
    futures: int

    def mc_error(self, p: float) -> float:
        """Monte Carlo standard error of a predicted probability ``p``."""
        return float(np.sqrt(p * (1 - p) / self.futures))

    @property
    def p_reached(self) -> float:
        """P(settled) at ``items_needed`` (at the largest N tried if none reaches it)."""
        i = self.items.index(self.items_needed) if self.items_needed else -1
        return self.p_settled[i]

    def to_dict(self) -> dict[str, Any]:
        """Return the case as plain JSON-ready values."""
        d = asdict(self)
        d["step"] = int(self.step)
        d["verdict"] = self.verdict.value
        d["items"], d["p_settled"], d["p_pass"] = (
            list(self.items),
            list(self.p_settled),
            list(self.p_pass),
        )
        d["p_reached"] = self.p_reached
        return d


@dataclass(frozen=True)
class PlanResult:
    """Predictions for every open verdict of an MVVP check.

    Attributes
    ----------
    cases : tuple of PlanCase
    config : PlanConfig
    mvvp : MVVPConfig
    """

    cases: tuple[PlanCase, ...]
    config: PlanConfig
    mvvp: MVVPConfig = field(default_factory=MVVPConfig)

    def get(self, judge: str, benchmark: str, step: Step | int) -> PlanCase:
        """Return the case of one judge, benchmark and step."""
        for c in self.cases:
            if (c.judge, c.benchmark, int(c.step)) == (judge, benchmark, int(step)):
                return c
        raise KeyError(f"no open verdict planned for step {int(step)}, {judge!r}, {benchmark!r}")

    def to_frame(self) -> pd.DataFrame:
        """One row per open verdict: judge, benchmark, step, now, items needed, P reached."""
        rows = [
            {
                "judge": c.judge,
                "benchmark": c.benchmark,
                "step": int(c.step),
                "quantity": c.quantity,
                "now": c.verdict.value,
                "n_items": c.n_items,
                "items_needed": c.items_needed,
                "p_reached": c.p_reached,
                "mc_error": c.mc_error(c.p_reached),
            }
            for c in self.cases
        ]
        columns = [
            "judge", "benchmark", "step", "quantity", "now", "n_items",
            "items_needed", "p_reached", "mc_error",
        ]  # fmt: skip
        return pd.DataFrame(rows, columns=columns).astype({"items_needed": "Int64"})

    def curves(self) -> pd.DataFrame:
        """P(settled) and P(pass) by added items, one row per case and grid point."""
        rows = [
            {
                "judge": c.judge,
                "benchmark": c.benchmark,
                "step": int(c.step),
                "added_items": n,
                "p_settled": p,
                "p_pass": pp,
                "mc_error": c.mc_error(p),
            }
            for c in self.cases
            for n, p, pp in zip(c.items, c.p_settled, c.p_pass, strict=True)
        ]
        return pd.DataFrame(rows)

    def to_json(self) -> dict[str, Any]:
        """Return the plan as plain JSON-ready values (config and cases)."""
        return {
            "config": asdict(self.config),
            "target": self.config.target,
            "cases": [c.to_dict() for c in self.cases],
        }

    def format(self) -> str:
        """Return the terminal table of the plan."""
        if not self.cases:
            return "no INCONCLUSIVE verdict to plan: every step is settled or not measured"
        top = self.config.item_grid[-1]
        lines = [
            f"items needed for P(settled) >= {self.config.target:g} "
            f"(exact tier, {self.config.futures} simulated futures per point)",
            f"{'judge':<22} {'benchmark':<14} {'step':<16} {'now':<13} "
            f"{'items now':>9} {'items needed':>12}  P reached",
        ]
        for c in self.cases:
            need = f"{c.items_needed}" if c.items_needed else f"> {top}"
            p = c.p_reached
            lines.append(
                f"{c.judge[:22]:<22} {c.benchmark[:14]:<14} {c.step.title[:16]:<16} "
                f"{c.verdict.value:<13} {c.n_items:>9} {need:>12}  "
                f"{p:.2f} ± {c.mc_error(p):.2f}"
            )
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.format()


@dataclass(frozen=True)
class _Cell:
    """One judge's items on one benchmark, as atoms of (label, pattern)."""

    counts: np.ndarray  # (K,)
    features: np.ndarray  # (K, feature)
    evidence: np.ndarray  # (K, 3): labelled, paired item, units with min_runs runs
    novel_atoms: np.ndarray  # (K0 * L, feature): G0's atoms
    novel_prob: np.ndarray  # (K0 * L,)
    novel_evidence: np.ndarray  # (K0 * L, 3)
    prior_pool: np.ndarray  # (POOL, feature): draws of P_new's expected features


def _evidence(
    patterns: np.ndarray, label: np.ndarray, orders: tuple[str, ...], min_runs: int
) -> np.ndarray:
    """Return what each item counts for in the evidence rule, shape (K, 3)."""
    present = patterns != Verdict.MISSING
    paired = np.zeros(len(patterns), dtype=bool)
    if "AB" in orders and "BA" in orders:
        ab, ba = orders.index("AB"), orders.index("BA")
        paired = (present[:, ab] & present[:, ba]).any(-1)
    units = (present.sum(-1) >= min_runs).sum(-1)
    return np.stack([label != _NO_LABEL, paired, units], -1).astype(float)


def _cell(
    bt: BenchmarkTally, judge: str, min_runs: int, alpha: float, rng: np.random.Generator
) -> _Cell:
    j = bt.judges.index(judge)
    lab, k = np.nonzero(bt.counts[j])
    base = base_patterns(bt)
    n_lab = len(base.labels)
    atoms = base.features[:, base.labels, :].reshape(-1, len(FEATURES))
    prob = np.repeat(base.prob, n_lab) / n_lab
    # G0's atoms in the (pattern, label) order of exact._novel; every cell of the
    # benchmark's design is judged, so their evidence is the design's.
    design = (bt.patterns != Verdict.MISSING).any(0)
    full = np.where(design, Verdict.A, Verdict.MISSING)[None]
    novel_ev = _evidence(np.repeat(full, n_lab, 0), base.labels, bt.orders, min_runs)
    return _Cell(
        counts=bt.counts[j, lab, k].astype(float),
        features=bt.features[k, lab, :],
        evidence=_evidence(bt.patterns[k], lab, bt.orders, min_runs),
        novel_atoms=atoms,
        novel_prob=prob,
        novel_evidence=np.tile(novel_ev, (len(base.prob), 1)),
        prior_pool=dp_feature_draws(atoms, prob, (_POOL,), alpha, rng),
    )


def _future_draws(
    cell: _Cell, added: int, futures: int, draws: int, alpha: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Posterior draws of expected features after ``added`` simulated items.

    Returns
    -------
    features : ndarray, shape (futures, draws, feature)
        Scaled to the item count, as :meth:`JudgeModel.fit` does.
    evidence : ndarray, shape (futures, 3)
        Counted items after the addition.
    """
    k = len(cell.counts)
    theta = rng.dirichlet(np.r_[cell.counts, alpha], size=futures)
    picks = rng.multinomial(added, theta)  # (futures, K + 1); the last: novel items
    n_novel = picks[:, -1]
    slots = max(int(n_novel.max()), 1)
    cdf = np.cumsum(cell.novel_prob)
    idx = np.minimum(
        np.searchsorted(cdf / cdf[-1], rng.random((futures, slots)), side="right"),
        len(cdf) - 1,
    )
    active = (np.arange(slots)[None, :] < n_novel[:, None]).astype(float)
    counts = cell.counts[None, :] + picks[:, :k]
    g_seen = rng.gamma(np.broadcast_to(counts[:, None, :], (futures, draws, k)))
    g_novel = rng.gamma(np.broadcast_to(active[:, None, :], (futures, draws, slots)))
    g_prior = rng.gamma(alpha, size=(futures, draws))
    total = g_seen.sum(-1) + g_novel.sum(-1) + g_prior
    prior_part = cell.prior_pool[rng.integers(len(cell.prior_pool), size=(futures, draws))]
    expected = (
        g_seen @ cell.features
        + np.einsum("sdm,smf->sdf", g_novel, cell.novel_atoms[idx])
        + g_prior[..., None] * prior_part
    ) / total[..., None]
    n_after = cell.counts.sum() + added
    evidence = counts @ cell.evidence + np.einsum("sm,smc->sc", active, cell.novel_evidence[idx])
    return expected * n_after, evidence


def settle_probability(
    features: np.ndarray, evidence: np.ndarray, step: Step, config: MVVPConfig
) -> tuple[float, float]:
    """Return P(settled) and P(pass) of a step over simulated futures.

    Parameters
    ----------
    features : ndarray, shape (future, draw, feature)
        Posterior draws of expected feature sums in each future.
    evidence : ndarray, shape (future, 3)
        Labelled items, items judged in both orders and (item, order) units with
        ``min_runs`` runs in each future.
    step : Step
        One of :data:`PLANNED_STEPS`.
    config : MVVPConfig
        Thresholds, interval probability and evidence floor.

    Returns
    -------
    p_settled, p_pass : float
    """
    metrics = derive(features)
    lo_q, hi_q = (1 - config.prob) / 2, (1 + config.prob) / 2
    if step is Step.AUDIT_PARADOX:
        tr, pb = metrics["test_retest"], metrics["position_bias"]
        ok = np.isfinite(tr) & np.isfinite(pb)
        joint = (tr > config.paradox_test_retest) & (pb > config.paradox_position_bias)
        with np.errstate(invalid="ignore"):
            p_bad = np.where(ok.any(-1), (joint & ok).sum(-1) / ok.sum(-1), np.nan)
        verdicts = [probability_verdict(p, config.prob) for p in p_bad]
        short = np.minimum(evidence[:, 1], evidence[:, 2]) < config.min_items
    else:
        name = PLANNED_STEPS[step]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN: an undefined metric
            lo, hi = np.nanquantile(metrics[name], [lo_q, hi_q], axis=-1)
        threshold = config.thresholds[step]
        verdicts = [interval_verdict(a, b, threshold) for a, b in zip(lo, hi, strict=True)]
        column = {Step.CHANCE_CORRECT: 0, Step.SWAP_POSITIONS: 1, Step.REPLICATE: 2}[step]
        short = evidence[:, column] < config.min_items
    settled = np.array([v in _SETTLED for v in verdicts]) & ~short
    passed = np.array([v is StepVerdict.PASS for v in verdicts]) & ~short
    return float(settled.mean()), float(passed.mean())


def plan(
    data: xr.Dataset,
    result: MVVPResult | None = None,
    config: PlanConfig | None = None,
    *,
    mvvp_config: MVVPConfig | None = None,
    random_seed: int | None = None,
) -> PlanResult:
    """Predict how many more items would settle each INCONCLUSIVE verdict.

    Parameters
    ----------
    data : xarray.Dataset
        The Judgments dataset.
    result : MVVPResult, optional
        Its MVVP check; by default the exact tier is fitted and checked here (with
        ``mvvp_config``). Only its INCONCLUSIVE steps 1, 2, 3 and 5 are planned.
    config : PlanConfig, optional
        Grid, target and Monte Carlo sizes.
    mvvp_config : MVVPConfig, optional
        The rule applied to every future; default ``result.config`` (or the
        defaults).
    random_seed : int, optional

    Returns
    -------
    PlanResult
        One :class:`PlanCase` per open verdict (see the module docs for the method).

    Examples
    --------
    >>> from judgestats.simulate import simulate, small_cohort
    >>> ds = simulate(small_cohort(), random_seed=0, scale=0.2).dataset
    >>> res = plan(ds, config=PlanConfig(futures=20, draws=100), random_seed=0)
    >>> all(0 <= p <= 1 for c in res.cases for p in c.p_settled)
    True
    """
    config = config or PlanConfig()
    rng = np.random.default_rng(random_seed)
    if result is None:
        from judgestats.models import ConvergenceWarning, ExactModel
        from judgestats.mvvp import check

        with warnings.catch_warnings():
            # The exact tier's draws are independent: R-hat describes no sampler here.
            warnings.simplefilter("ignore", ConvergenceWarning)
            tree = ExactModel().fit(data, random_seed=random_seed)
        result = check(tree, data, mvvp_config)
    rule = mvvp_config or result.config
    tallied = tally(data)
    cases = []
    for r in result.results:
        if r.step not in PLANNED_STEPS or r.verdict is not StepVerdict.INCONCLUSIVE:
            continue
        bt = tallied[str(r.benchmark)]
        cell = _cell(bt, r.judge, rule.min_runs, config.prior, rng)
        settled, passed = [], []
        for added in config.item_grid:
            x, ev = _future_draws(cell, added, config.futures, config.draws, config.prior, rng)
            p_settled, p_pass = settle_probability(x, ev, r.step, rule)
            settled.append(p_settled)
            passed.append(p_pass)
        needed = next(
            (n for n, p in zip(config.item_grid, settled, strict=True) if p >= config.target),
            None,
        )
        cases.append(
            PlanCase(
                judge=r.judge,
                benchmark=str(r.benchmark),
                step=r.step,
                quantity=PLANNED_STEPS[r.step],
                verdict=r.verdict,
                n_items=int(cell.counts.sum()),
                items=config.item_grid,
                p_settled=tuple(settled),
                p_pass=tuple(passed),
                items_needed=needed,
                futures=config.futures,
            )
        )
    return PlanResult(tuple(cases), config, rule)
