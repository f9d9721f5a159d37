"""Calibration of the plan's prediction against the simulator that made the data."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from judgestats.models import ExactModel
from judgestats.mvvp import Step, StepVerdict, check
from judgestats.plan import PlanConfig, plan
from judgestats.simulate import BenchmarkSpec, CohortConfig, JudgeParams, simulate

JUDGE, BENCH = "judge", "bench"


@dataclass(frozen=True)
class Calibration:
    """Predicted P(settled) and what happened, over replicates with an open verdict."""

    predicted: np.ndarray
    settled: np.ndarray
    futures: int

    def gap(self, keep: np.ndarray | None = None) -> tuple[float, float]:
        """Return mean(settled) - mean(predicted) and its Monte Carlo standard error.

        If the predictions are calibrated, each outcome is Bernoulli(p) given its
        prediction, and each prediction carries the error of ``futures`` futures.
        """
        keep = np.ones(len(self.predicted), bool) if keep is None else keep
        p, y = self.predicted[keep], self.settled[keep]
        var = (p * (1 - p)).sum() * (1 + 1 / self.futures) / len(p) ** 2
        return float(y.mean() - p.mean()), float(np.sqrt(var))


def _replicates(replicates, seed, config, step, cohort_of, now_of, predicted_of) -> Calibration:
    """Plan ``step`` on ``now_of(data)`` and check it on all the data, per replicate.

    ``cohort_of(rng)`` draws the replicate's cohort; only replicates whose ``step`` is
    INCONCLUSIVE on ``now_of(data)`` count; ``predicted_of(case)`` is the prediction.
    """
    rng = np.random.default_rng(seed)
    predicted, settled = [], []
    attempt = 0
    while len(predicted) < replicates:
        attempt += 1
        cohort = cohort_of(rng)
        ds = simulate(cohort, random_seed=seed * 100_000 + attempt).dataset
        res = plan(now_of(ds), config=config, random_seed=attempt)
        case = [c for c in res.cases if c.step is step]
        if not case:
            continue
        later = check(ExactModel().fit(ds, random_seed=attempt), ds)
        verdict = later.get(step, JUDGE, BENCH).verdict
        predicted.append(predicted_of(case[0]))
        settled.append(verdict in (StepVerdict.PASS, StepVerdict.FAIL))
    return Calibration(np.array(predicted), np.array(settled, float), config.futures)


def calibration(
    replicates: int, n_now: int, added: int, futures: int, seed: int = 0
) -> Calibration:
    """Plan step 2 for judges whose position bias sits near its 0.10 threshold.

    Each replicate draws a judge (position ~ Uniform(0.05, 0.35): true position bias
    on both sides of 0.10), simulates ``n_now + added`` items, plans on the first
    ``n_now`` and checks the MVVP on all of them; only replicates whose step 2 is
    INCONCLUSIVE on the first ``n_now`` items count.
    """
    spec = BenchmarkSpec(BENCH, n_now + added, "correctness", runs=1)
    return _replicates(
        replicates,
        seed,
        PlanConfig(
            min_items_grid=added, max_items=added, grid_points=1, max_runs=0, futures=futures
        ),
        Step.SWAP_POSITIONS,
        lambda rng: CohortConfig.from_judges(
            {JUDGE: JudgeParams(agreement=0.8, position=float(rng.uniform(0.05, 0.35)))}, [spec]
        ),
        lambda ds: ds.isel(item=slice(0, n_now)),
        lambda case: case.p_settled[0],
    )


def run_calibration(
    replicates: int, n_items: int, runs_now: int, added: int, futures: int, seed: int = 0
) -> Calibration:
    """Plan step 3 for judges whose test-retest sits near its 0.80 threshold, by runs.

    Each replicate draws a judge (stability ~ Uniform(0.80, 0.97): true test-retest on
    both sides of 0.80), simulates ``n_items`` items with ``runs_now + added`` runs,
    plans on the first ``runs_now`` runs and checks the MVVP on all of them (the
    simulator really adds the runs: runs are exchangeable, so the first ``runs_now``
    are a draw of the data with that many); only replicates whose step 3 is
    INCONCLUSIVE on the first ``runs_now`` runs count.
    """
    spec = BenchmarkSpec(BENCH, n_items, "correctness", runs=runs_now + added)
    return _replicates(
        replicates,
        seed,
        PlanConfig(min_items_grid=1, max_items=1, grid_points=1, max_runs=added, futures=futures),
        Step.REPLICATE,
        lambda rng: CohortConfig.from_judges(
            {JUDGE: JudgeParams(agreement=0.8, stability=float(rng.uniform(0.80, 0.97)))}, [spec]
        ),
        lambda ds: ds.isel(run=slice(0, runs_now)),
        lambda case: case.p_settled_runs[case.runs.index(added)],
    )
