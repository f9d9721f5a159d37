"""Builders of edge cases: special judges, benchmarks and one-judge cohorts.

Combine them with :class:`~judgestats.simulate.CohortConfig` methods
(``drop``, ``subset``, ``with_benchmark``, ``with_judge``) to build, for example,
one run only, one order only, a benchmark without tie labels, or judges missing
from a benchmark.

Examples
--------
>>> from judgestats.simulate import simulate
>>> cfg = single_judge(always_first_judge(), preference_benchmark(ties="none", runs=1))
>>> res = simulate(cfg, random_seed=0)
>>> float(res.truth["position_bias"].item()), round(float(res.truth["kappa"].item()), 12)
(0.5, 0.0)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from judgestats.simulate.config import BenchmarkSpec, CohortConfig, JudgeParams

__all__ = [
    "always_first_judge",
    "chosen_rejected_benchmark",
    "correctness_benchmark",
    "paradox_judge",
    "perfect_judge",
    "preference_benchmark",
    "random_judge",
    "single_judge",
]

_TIES = {"balanced": 1 / 3, "sparse": 0.05, "none": 0.0}


def always_first_judge(invalid_rate: float = 0.0) -> JudgeParams:
    """Return a judge that always picks the first-presented response.

    With both orders shown its true kappa is 0, position bias 0.5 and
    test-retest 1 (with ``invalid_rate=0``): reliability without validity.

    Parameters
    ----------
    invalid_rate : float, default 0.0

    Returns
    -------
    JudgeParams
    """
    return JudgeParams(agreement=1.0, tie_rate=0.0, position=1.0, invalid_rate=invalid_rate)


def paradox_judge(
    position: float = 0.4, stability: float = 0.998, agreement: float = 0.85
) -> JudgeParams:
    """Return a judge that is stable yet position-biased (the consistency-bias paradox).

    The defaults give test-retest above 0.95 and position bias above 0.10 on
    every benchmark with both orders.

    Parameters
    ----------
    position : float, default 0.4
    stability : float, default 0.998
    agreement : float, default 0.85

    Returns
    -------
    JudgeParams
    """
    return JudgeParams(agreement=agreement, tie_rate=0.02, position=position, stability=stability)


def perfect_judge() -> JudgeParams:
    """Return a judge that always gives the label (kappa 1, test-retest 1)."""
    return JudgeParams(agreement=1.0, tie_rate=0.0, tie_recall=1.0)


def random_judge(tie_rate: float = 1 / 3, stability: float = 0.0) -> JudgeParams:
    """Return a judge whose verdicts ignore the label (true kappa 0).

    Parameters
    ----------
    tie_rate : float, default 1/3
        P(tie), the same whatever the label.
    stability : float, default 0.0

    Returns
    -------
    JudgeParams
    """
    return JudgeParams(agreement=0.5, tie_rate=tie_rate, tie_recall=tie_rate, stability=stability)


def preference_benchmark(
    name: str = "preference",
    n_items: int = 300,
    *,
    ties: Literal["balanced", "sparse", "none"] | float = "balanced",
    runs: int = 3,
    orders: Sequence[str] = ("AB", "BA"),
) -> BenchmarkSpec:
    """Return an MT-Bench-like benchmark of human preferences.

    Parameters
    ----------
    name : str, default "preference"
    n_items : int, default 300
    ties : {"balanced", "sparse", "none"} or float, default "balanced"
        Share of tie labels: 1/3, 0.05, 0, or the number given; the rest is A/B
        half and half.
    runs : int, default 3
    orders : sequence of str, default ("AB", "BA")
        ``("AB",)`` for one order only.

    Returns
    -------
    BenchmarkSpec
    """
    tie = _TIES[ties] if isinstance(ties, str) else float(ties)
    return BenchmarkSpec(
        name,
        n_items,
        "preference",
        label_probs=((1 - tie) / 2, (1 - tie) / 2, tie),
        runs=runs,
        orders=tuple(orders),
    )


def correctness_benchmark(
    name: str = "correctness",
    n_items: int = 200,
    *,
    runs: int = 3,
    orders: Sequence[str] = ("AB", "BA"),
    categories: Sequence[str] = ("knowledge", "reasoning", "math", "coding"),
) -> BenchmarkSpec:
    """Return a JudgeBench-like benchmark with binary gold labels.

    Parameters
    ----------
    name : str, default "correctness"
    n_items : int, default 200
    runs : int, default 3
    orders : sequence of str, default ("AB", "BA")
    categories : sequence of str
        JudgeBench's categories by default.

    Returns
    -------
    BenchmarkSpec
    """
    return BenchmarkSpec(
        name, n_items, "correctness", runs=runs, orders=tuple(orders), categories=tuple(categories)
    )


def chosen_rejected_benchmark(
    name: str = "chosen_rejected",
    n_items: int = 300,
    *,
    runs: int = 3,
    categories: Sequence[str] = ("chat", "chat_hard", "safety", "reasoning"),
) -> BenchmarkSpec:
    """Return a RewardBench-like benchmark: binary, one random order per item.

    Parameters
    ----------
    name : str, default "chosen_rejected"
    n_items : int, default 300
    runs : int, default 3
    categories : sequence of str
        RewardBench's sections by default.

    Returns
    -------
    BenchmarkSpec
    """
    return BenchmarkSpec(name, n_items, "chosen_rejected", runs=runs, categories=tuple(categories))


def single_judge(
    params: JudgeParams, benchmark: BenchmarkSpec, judge: str = "judge"
) -> CohortConfig:
    """Return a cohort of one judge on one benchmark.

    Parameters
    ----------
    params : JudgeParams
    benchmark : BenchmarkSpec
    judge : str, default "judge"

    Returns
    -------
    CohortConfig
    """
    return CohortConfig.from_judges({judge: params}, [benchmark])
