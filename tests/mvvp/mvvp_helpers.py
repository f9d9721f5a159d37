"""Builders of the MVVP tests: simulated cohorts and hand-made posteriors."""

from __future__ import annotations

import json
import warnings

import numpy as np
import xarray as xr

from judgestats import mvvp
from judgestats.models import ConvergenceWarning, ExactConfig, ExactModel
from judgestats.mvvp import Design
from judgestats.simulate import (
    CohortConfig,
    JudgeParams,
    correctness_benchmark,
    paradox_judge,
    preference_benchmark,
    random_judge,
    simulate,
)

#: Position preference giving a true position bias of exactly 0.10 (agreement 0.8,
#: found with the simulator's exact truth): the step-2 threshold itself.
BORDERLINE_POSITION = 0.1919

CHAINS, DRAWS = 2, 400


def verdict_cohort(
    runs: int = 3, orders: tuple[str, ...] = ("AB", "BA"), n_pref: int = 300, n_corr: int = 200
) -> CohortConfig:
    """Six judges, each made to earn one kind of verdict on one step.

    * ``steady``: accurate, unbiased, stable: PASS everywhere;
    * ``paradox``: stable (test-retest 0.998) yet position-biased (0.20): steps 2
      and 5 FAIL;
    * ``borderline``: true position bias exactly 0.10: step 2 INCONCLUSIVE;
    * ``coin``: agreement at chance and no stability: kappa 0 (step 1 FAIL: below
      the 0.40 floor), test-retest 0 (step 3 FAIL);
    * ``contrarian``: prefers the losing response: kappa < 0, step 1 FAIL;
    * ``flipper``: best on the preference benchmark, worst on the correctness
      one: a rank shift of 5 positions, step 4 FAIL.
    """
    pref = preference_benchmark("Pref", n_pref, runs=runs, orders=orders)
    corr = correctness_benchmark("Corr", n_corr, runs=runs, orders=orders)
    judges = {
        "steady": {  # kappa 0.62 and 0.72: credibly above the 0.40 floor on both
            "Pref": JudgeParams(agreement=0.95, tie_rate=0.3, tie_recall=0.9),
            "Corr": JudgeParams(agreement=0.9, tie_rate=0.05),
        },
        "paradox": paradox_judge(),
        "borderline": JudgeParams(agreement=0.8, position=BORDERLINE_POSITION),
        "coin": random_judge(stability=0.0),
        "contrarian": JudgeParams(agreement=0.25, tie_rate=0.05),
        "flipper": {
            "Pref": JudgeParams(agreement=0.99, tie_rate=0.3, tie_recall=0.9),
            "Corr": JudgeParams(agreement=0.1, tie_rate=0.0),
        },
    }
    return CohortConfig.from_judges(judges, [pref, corr])


def fit(ds: xr.Dataset, seed: int = 7) -> xr.DataTree:
    """Exact-tier posterior with few draws (enough for stable verdicts)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return ExactModel(ExactConfig(draws=DRAWS, chains=CHAINS)).fit(ds, random_seed=seed)


def simulated(seed: int = 3, **kwargs) -> tuple[xr.Dataset, xr.DataTree, mvvp.MVVPResult]:
    """Simulate :func:`verdict_cohort`, fit it and check it."""
    ds = simulate(verdict_cohort(**kwargs), random_seed=seed).dataset
    tree = fit(ds)
    return ds, tree, mvvp.check(tree, ds)


def hand_tree(
    draws: dict[str, np.ndarray],
    judges: list[str],
    benchmarks: list[str],
    warnings_: list[str] | None = None,
    pair_judges: int = 10,
) -> xr.DataTree:
    """A posterior made by hand: ``draws[name]`` has shape (chain, draw, judge, X).

    ``X`` is ``benchmark``, or ``benchmark_pair`` for ``rank_shift`` (pairs in the
    order of :func:`itertools.combinations` of ``benchmarks``). The draws of every
    cell are shuffled over chains and draws (one fixed permutation), so that the
    chains are exchangeable and pass R-hat, as a healthy sampler's do.
    ``pair_judges`` is how many judges count as ranked on both benchmarks of a pair.
    """
    pairs = [f"{a} -> {b}" for i, a in enumerate(benchmarks) for b in benchmarks[i + 1 :]]
    data = {}
    shape = next(iter(draws.values())).shape
    perm = np.random.default_rng(0).permutation(shape[0] * shape[1])
    for name, x in draws.items():
        last = "benchmark_pair" if name == "rank_shift" else "benchmark"
        x = np.asarray(x, dtype=float)
        x = x.reshape(-1, *x.shape[2:])[perm].reshape(x.shape)
        data[name] = (("chain", "draw", "judge", last), x)
    coords = {
        "chain": np.arange(shape[0]),
        "draw": np.arange(shape[1]),
        "judge": judges,
        "benchmark": benchmarks,
        "benchmark_pair": pairs,
    }
    posterior = xr.Dataset(data, coords=coords).assign_coords(
        pair_judges=("benchmark_pair", np.full(len(pairs), pair_judges))
    )
    constant = xr.Dataset(
        {"n_items": (("judge", "benchmark"), np.full((len(judges), len(benchmarks)), 100))},
        coords={"judge": judges, "benchmark": benchmarks},
    )
    tree = xr.DataTree.from_dict({"posterior": posterior, "constant_data": constant})
    tree.attrs.update(model="hand", warnings=json.dumps(warnings_ or []))
    return tree


def hand_design(
    judges: list[str],
    benchmarks: list[str],
    kinds: list[set[str]],
    runs: int = 3,
    paired: int = 100,
    labelled: int = 100,
    orders: tuple[str, ...] = ("AB", "BA"),
) -> Design:
    """A design with the same counts in every judge × benchmark cell."""
    shape = (len(judges), len(benchmarks))
    return Design(
        judges=tuple(judges),
        benchmarks=tuple(benchmarks),
        orders=orders,
        label_kinds=tuple(frozenset(k) for k in kinds),
        n_items=np.full(shape, 100),
        labelled=np.full(shape, labelled),
        runs=np.full(shape, runs),
        paired=np.full(shape, paired),
        paired_items=np.full(shape, min(paired, 100)),
        unit_runs=np.concatenate(
            [np.zeros((*shape, runs), dtype=np.int64), np.full((*shape, 1), 200)], -1
        ),
    )
