"""Simulated judgment logs whose true metric values are known exactly.

A cohort (:class:`CohortConfig`) of judges (:class:`JudgeParams`) on benchmarks
(:class:`BenchmarkSpec`) is simulated with :func:`simulate`, which returns the
dataset together with the exact population value of every metric
(:mod:`judgestats.simulate.model`). Presets: :func:`seed002_cohort` (the
21-judge cohort of "Reliability without Validity"), :func:`small_cohort` (fast
tests), :func:`demo_cohort` (the bundled demo logs),
:func:`shared_difficulty_cohort` (shared item difficulty and extreme judges, for
calibration over replicates, :mod:`judgestats.simulate.coverage`); edge cases in
:mod:`judgestats.simulate.cases`.

Examples
--------
>>> from judgestats.simulate import simulate, small_cohort
>>> res = simulate(small_cohort(), random_seed=0)
>>> sorted(res.dataset.sizes.items())
[('item', 500), ('judge', 5), ('order', 2), ('rater', 1), ('run', 3)]
"""

from judgestats.simulate.calibrate import Calibration, calibrate
from judgestats.simulate.cases import (
    always_first_judge,
    chosen_rejected_benchmark,
    correctness_benchmark,
    paradox_judge,
    perfect_judge,
    preference_benchmark,
    random_judge,
    single_judge,
)
from judgestats.simulate.config import BenchmarkSpec, CohortConfig, JudgeParams
from judgestats.simulate.coverage import shared_difficulty_cohort
from judgestats.simulate.export import judgments_table, write_demo_logs
from judgestats.simulate.model import (
    TRUTH_METRICS,
    PatternDistribution,
    pattern_distribution,
    true_metrics,
    true_verbosity,
    truth,
)
from judgestats.simulate.presets import (
    DEMO_SEED,
    demo_cohort,
    exchangeable_cohort,
    seed002_benchmarks,
    seed002_cohort,
    small_cohort,
)
from judgestats.simulate.simulator import SimulationResult, simulate

__all__ = [
    "DEMO_SEED",
    "TRUTH_METRICS",
    "BenchmarkSpec",
    "Calibration",
    "CohortConfig",
    "JudgeParams",
    "PatternDistribution",
    "SimulationResult",
    "always_first_judge",
    "calibrate",
    "chosen_rejected_benchmark",
    "correctness_benchmark",
    "demo_cohort",
    "exchangeable_cohort",
    "judgments_table",
    "paradox_judge",
    "pattern_distribution",
    "perfect_judge",
    "preference_benchmark",
    "random_judge",
    "seed002_benchmarks",
    "seed002_cohort",
    "shared_difficulty_cohort",
    "simulate",
    "single_judge",
    "small_cohort",
    "true_metrics",
    "true_verbosity",
    "truth",
    "write_demo_logs",
]
