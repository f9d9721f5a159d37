"""How much more data would settle an open verdict: preposterior analysis.

An INCONCLUSIVE MVVP verdict is a question about budget. For every INCONCLUSIVE
step 1, 2, 3 or 5 of a judge × benchmark, :func:`plan` predicts the probability
that the verdict becomes PASS or FAIL (*settles*) if ``N`` more items are judged,
for a grid of ``N``, or if every existing item is judged ``K`` more times (runs),
for a grid of ``K``, and the smallest ``N`` and the smallest ``K`` of the grids at
which that probability reaches a target (default 0.8). Step 4 (rank shifts)
depends on every judge at once and is not planned.

Method
------
Preposterior analysis on the exact tier (:mod:`judgestats.models.exact`). The
posterior of a judge's distribution of (label, verdict pattern) over items is the
exact tier's Dirichlet process, marginally for one judge::

    P = sum_k theta_k delta_k + theta_new P_new,
    (theta_1 .. theta_K, theta_new) ~ Dirichlet(c_1, .., c_K, alpha),

with ``c_k`` the items showing (label, pattern) ``k`` and ``P_new ~ DP(alpha,
G0)`` (:mod:`judgestats.models.prior`). One simulated *future* with ``N`` more
items (:func:`judgestats.futures.item_futures`):

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

New items follow the design of the judge's existing ones (the same share of
labels, orders and runs).

One future with ``K`` more runs (:func:`judgestats.futures.run_futures`) keeps the
items and adds ``K`` runs to every (item, order) unit the judge was shown. The
exact tier says nothing about a run that was never made, so the runs come from a
run-level model fitted to the judge's own repeat runs: a Pólya urn per unit
(:class:`judgestats.futures.RunNoise`), whose next run repeats an outcome the unit
already showed with weight its count, or is drawn from the judge's mean outcome
shares for the unit's (label, order) with weight ``c``; ``c`` is the moment
estimate that reproduces the judge's observed pairwise agreement of runs. ``c``
and the mean shares are estimated anew for each future from a Bayesian bootstrap
of the judge's items (``Gamma(count)`` weights per pattern), so that the futures
carry their uncertainty: plugged in, the futures' runs followed the judge's
estimated stability, and P(settled) by runs fell short of the share of simulated
futures that settled by +0.045 +- 0.025 (``tests/plan/test_plan_calibration.py``,
150 replicates); bootstrapped, by +0.023 +- 0.027. The approximations, stated: a
unit's new runs in the two orders are independent given its runs so far (they
share the item's decision only through the runs already seen); and the prior's
novel part is ``G0`` of the design with ``K`` more runs. The items' new patterns
then go through step 3 as above: the changed patterns move test-retest (step 3)
and the evidence of steps 3 and 5 (units with ``min_runs`` runs), and every other
quantity through the per-item patterns. A judge with no unit of two runs has no
run noise to fit: its runs are not planned.

P(settled) is the share of ``futures`` futures that settle; its Monte Carlo
standard error is ``sqrt(p (1 - p) / futures)``.
"""

from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from judgestats.futures import PriorCache, cell, item_futures, run_futures, run_noise
from judgestats.metrics.formulas import derive
from judgestats.models.prior import DEFAULT_CONCENTRATION
from judgestats.mvvp import (
    MVVPConfig,
    MVVPResult,
    Step,
    StepResult,
    StepVerdict,
    interval_verdict,
    probability_verdict,
)
from judgestats.tally import tally

__all__ = ["PlanCase", "PlanConfig", "PlanResult", "is_open", "plan", "settle_probability"]

#: Steps the plan predicts, and the quantity each decides by.
PLANNED_STEPS: dict[Step, str] = {
    Step.CHANCE_CORRECT: "kappa",
    Step.SWAP_POSITIONS: "position_bias",
    Step.REPLICATE: "test_retest",
    Step.AUDIT_PARADOX: "paradox",
}
_SETTLED = (StepVerdict.PASS, StepVerdict.FAIL)


@dataclass(frozen=True)
class PlanConfig:
    """Settings of the preposterior analysis.

    Attributes
    ----------
    target : float, default 0.8
        P(settled) that the items (or runs) needed must reach.
    max_items : int, default 1600
        Largest number of added items tried.
    grid_points : int, default 8
        Points of the item grid, geometric from ``min_items_grid`` to ``max_items``.
    min_items_grid : int, default 25
        Smallest number of added items tried.
    max_runs : int, default 4
        Largest number of added runs tried (the run grid: 1, 2, 4, ... up to it);
        0 plans no runs.
    futures : int, default 200
        Simulated futures per grid point (Monte Carlo error of P(settled) at most
        ``0.5 / sqrt(futures)``).
    draws : int, default 400
        Posterior draws per future, for its interval.
    prior : float, default :data:`~judgestats.models.prior.DEFAULT_CONCENTRATION`
        Concentration of the exact tier's Dirichlet-process prior.
    confirm_below : float, default 0.0
        PASS and FAIL verdicts whose posterior probability of being right is below
        this level are planned too (:func:`is_open`): for them, P(settled) is the
        probability that the future data still give a PASS or FAIL. 0 plans only
        INCONCLUSIVE verdicts.
    """

    target: float = 0.8
    max_items: int = 1600
    grid_points: int = 8
    min_items_grid: int = 25
    max_runs: int = 4
    futures: int = 200
    draws: int = 400
    prior: float = DEFAULT_CONCENTRATION
    confirm_below: float = 0.0

    def __post_init__(self) -> None:
        if not 0 <= self.confirm_below <= 1:
            raise ValueError(f"confirm_below={self.confirm_below!r}; must be between 0 and 1")
        if not 0 < self.target < 1:
            raise ValueError(f"target={self.target!r}; must be strictly between 0 and 1")
        if self.min_items_grid < 1 or self.max_items < self.min_items_grid:
            raise ValueError(
                f"max_items={self.max_items!r}; must be at least min_items_grid="
                f"{self.min_items_grid!r} (>= 1)"
            )
        if self.max_runs < 0:
            raise ValueError(f"max_runs={self.max_runs!r}; must be 0 (no runs planned) or more")
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

    @property
    def run_grid(self) -> tuple[int, ...]:
        """Numbers of added runs tried, increasing: powers of two and ``max_runs``."""
        doubling = [2**i for i in range(self.max_runs.bit_length()) if 2**i <= self.max_runs]
        return tuple(sorted({*doubling, self.max_runs} - {0}))


def is_open(result: StepResult, confirm_below: float = 0.0) -> bool:
    """Return whether a step's verdict is planned.

    An INCONCLUSIVE step 1, 2, 3 or 5 is; so is a PASS or FAIL whose posterior
    probability of being right (``p_threshold_met``, the probability of the good
    side, for a PASS; one minus it for a FAIL) is below ``confirm_below``.
    """
    if result.step not in PLANNED_STEPS:
        return False
    if result.verdict is StepVerdict.INCONCLUSIVE:
        return True
    if result.verdict not in (StepVerdict.PASS, StepVerdict.FAIL):
        return False
    p_good = result.p_threshold_met
    right = p_good if result.verdict is StepVerdict.PASS else 1.0 - p_good
    return bool(np.isfinite(right) and right < confirm_below)


def _needed(grid: tuple[int, ...], p: tuple[float, ...], target: float) -> int | None:
    """Return the first point of ``grid`` whose P(settled) reaches ``target``."""
    return next((n for n, q in zip(grid, p, strict=True) if q >= target), None)


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
    n_runs : int
        Most runs of one (item, order) unit now.
    runs : tuple of int
        Added runs tried; empty if the runs are not planned (no repeat runs).
    p_settled_runs, p_pass_runs : tuple of float
        As ``p_settled`` and ``p_pass``, with that many added runs.
    runs_needed : int or None
        Smallest ``runs`` reaching the target; None if none does.
    target : float
        The target of ``items_needed`` and ``runs_needed``.
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
    n_runs: int = 1
    runs: tuple[int, ...] = ()
    p_settled_runs: tuple[float, ...] = ()
    p_pass_runs: tuple[float, ...] = ()
    runs_needed: int | None = None
    target: float = PlanConfig.target

    def mc_error(self, p: float) -> float:
        """Monte Carlo standard error of a predicted probability ``p``."""
        return float(np.sqrt(p * (1 - p) / self.futures))

    @property
    def p_reached(self) -> float:
        """P(settled) at ``items_needed`` (at the largest N tried if none reaches it)."""
        i = self.items.index(self.items_needed) if self.items_needed else -1
        return self.p_settled[i]

    @property
    def p_reached_runs(self) -> float:
        """P(settled) at ``runs_needed`` (at the largest K tried; NaN if not planned)."""
        if not self.runs:
            return float("nan")
        i = self.runs.index(self.runs_needed) if self.runs_needed else -1
        return self.p_settled_runs[i]

    @property
    def settles_with(self) -> str:
        """The budget that settles the verdict in words, e.g. ``"+200 items / +2 runs"``."""
        items = f"+{self.items_needed} items" if self.items_needed else f"> +{self.items[-1]} items"
        if not self.runs:
            return items
        runs = f"+{self.runs_needed} runs" if self.runs_needed else f"> +{self.runs[-1]} runs"
        return f"{items} / {runs}"

    def to_dict(self) -> dict[str, Any]:
        """Return the case as plain JSON-ready values."""
        d = {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}
        d["step"] = int(self.step)
        d["verdict"] = self.verdict.value
        d["p_reached"] = self.p_reached
        d["p_reached_runs"] = self.p_reached_runs if self.runs else None
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
        """One row per open verdict: judge, benchmark, step, now, items and runs needed."""
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
                "n_runs": c.n_runs,
                "runs_needed": c.runs_needed,
                "p_reached_runs": c.p_reached_runs,
                "mc_error_runs": c.mc_error(c.p_reached_runs) if c.runs else np.nan,
            }
            for c in self.cases
        ]
        columns = [
            "judge", "benchmark", "step", "quantity", "now", "n_items",
            "items_needed", "p_reached", "mc_error",
            "n_runs", "runs_needed", "p_reached_runs", "mc_error_runs",
        ]  # fmt: skip
        frame = pd.DataFrame(rows, columns=columns)
        return frame.astype({"items_needed": "Int64", "runs_needed": "Int64"})

    def curves(self) -> pd.DataFrame:
        """P(settled) and P(pass) by added items, one row per case and grid point."""
        return self._curves("added_items", lambda c: (c.items, c.p_settled, c.p_pass))

    def run_curves(self) -> pd.DataFrame:
        """P(settled) and P(pass) by added runs, one row per planned case and grid point."""
        return self._curves("added_runs", lambda c: (c.runs, c.p_settled_runs, c.p_pass_runs))

    def _curves(self, added: str, points) -> pd.DataFrame:
        rows = [
            {
                "judge": c.judge,
                "benchmark": c.benchmark,
                "step": int(c.step),
                added: n,
                "p_settled": p,
                "p_pass": pp,
                "mc_error": c.mc_error(p),
            }
            for c in self.cases
            for n, p, pp in zip(*points(c), strict=True)
        ]
        columns = ["judge", "benchmark", "step", added, "p_settled", "p_pass", "mc_error"]
        return pd.DataFrame(rows, columns=columns)

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
            return "no open verdict to plan: every step is settled or not measured"
        items_top, runs_top = self.config.item_grid[-1], max(self.config.run_grid, default=0)
        lines = [
            f"items needed and runs needed for P(settled) >= {self.config.target:g} "
            f"(exact tier, {self.config.futures} simulated futures per point)",
            f"{'judge':<22} {'benchmark':<14} {'step':<16} {'now':<13} "
            f"{'items now':>9} {'items needed':>12}  {'P reached':<11} "
            f"{'runs now':>8} {'runs needed':>11}  P reached",
        ]
        for c in self.cases:
            need = f"{c.items_needed}" if c.items_needed else f"> {items_top}"
            p = c.p_reached
            if c.runs:
                q = c.p_reached_runs
                runs = f"{c.runs_needed}" if c.runs_needed else f"> {runs_top}"
                runs_p = f"{q:.2f} ± {c.mc_error(q):.2f}"
            else:
                runs, runs_p = "-", "(one run: not planned)"
            lines.append(
                f"{c.judge[:22]:<22} {c.benchmark[:14]:<14} {c.step.title[:16]:<16} "
                f"{c.verdict.value:<13} {c.n_items:>9} {need:>12}  "
                f"{f'{p:.2f} ± {c.mc_error(p):.2f}':<11} {c.n_runs:>8} {runs:>11}  {runs_p}"
            )
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.format()


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
        values = metrics[name]
        if np.isfinite(values).all():  # the common case, many times faster than nanquantile
            lo, hi = np.quantile(values, [lo_q, hi_q], axis=-1)
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN: an undefined metric
                lo, hi = np.nanquantile(values, [lo_q, hi_q], axis=-1)
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
    """Predict how many more items, or runs, would settle each INCONCLUSIVE verdict.

    Parameters
    ----------
    data : xarray.Dataset
        The Judgments dataset.
    result : MVVPResult, optional
        Its MVVP check; by default the exact tier is fitted and checked here (with
        ``mvvp_config``). Its INCONCLUSIVE steps 1, 2, 3 and 5 are planned, and its
        PASS and FAIL below ``config.confirm_below`` (:func:`is_open`).
    config : PlanConfig, optional
        Grids, target and Monte Carlo sizes.
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
    >>> cfg = PlanConfig(futures=20, draws=100, max_runs=2)
    >>> res = plan(ds, config=cfg, random_seed=0)
    >>> all(0 <= p <= 1 for c in res.cases for p in c.p_settled + c.p_settled_runs)
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
    priors = PriorCache(rule.min_runs, config.prior, rng)
    cases = []
    for r in result.results:
        if not is_open(r, config.confirm_below):
            continue
        bt = tallied[str(r.benchmark)]
        c = cell(bt, r.judge, rule.min_runs, priors)
        settled, passed = [], []
        for added in config.item_grid:
            x, ev = item_futures(c, added, config.futures, config.draws, config.prior, rng)
            p_settled, p_pass = settle_probability(x, ev, r.step, rule)
            settled.append(p_settled)
            passed.append(p_pass)
        noise = run_noise(c) if config.run_grid else None
        runs = config.run_grid if noise is not None else ()
        settled_runs, passed_runs = [], []
        if noise is not None:
            for x, ev in run_futures(c, bt, noise, runs, config.futures, config.draws, priors, rng):
                p_settled, p_pass = settle_probability(x, ev, r.step, rule)
                settled_runs.append(p_settled)
                passed_runs.append(p_pass)
        cases.append(
            PlanCase(
                judge=r.judge,
                benchmark=str(r.benchmark),
                step=r.step,
                quantity=PLANNED_STEPS[r.step],
                verdict=r.verdict,
                n_items=c.n_items,
                items=config.item_grid,
                p_settled=tuple(settled),
                p_pass=tuple(passed),
                items_needed=_needed(config.item_grid, tuple(settled), config.target),
                futures=config.futures,
                n_runs=c.max_runs,
                runs=runs,
                p_settled_runs=tuple(settled_runs),
                p_pass_runs=tuple(passed_runs),
                runs_needed=_needed(runs, tuple(settled_runs), config.target) if runs else None,
                target=config.target,
            )
        )
    return PlanResult(tuple(cases), config, rule)
