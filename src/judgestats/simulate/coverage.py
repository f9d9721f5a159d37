"""Coverage of posterior intervals over simulated replicates, as calibration is shown.

A calibration claim from one simulated dataset says little: the cells of one
dataset share its items, so kappa, alpha and deflation of a judge hit or miss
together, and the coverage of one dataset varies from dataset to dataset.
:func:`replicate_coverage` therefore fits a model on many datasets drawn from one
cohort (fixed parameters, hence one fixed population truth), records per replicate
and quantity the share of cells whose equal-tailed interval holds the truth, and
:func:`coverage_table` reports the mean over replicates, its sd and the Monte Carlo
error of the mean (sd / sqrt(replicates)).

Quantities (:data:`QUANTITIES`): the metrics ``kappa``, ``exact_match``,
``p_first``, ``flip_rate`` and ``test_retest`` per judge × benchmark; ``rank`` per
judge × benchmark (true rank: the rank of the true kappa); ``rank_shift`` per judge
× benchmark pair; ``kappa_diff``, the kappa difference of every pair of judges
within a benchmark, the quantity that carries the pairing of judges rated on the
same items. P(judge i ranked above judge j) is kept per pair for
comparing tiers (:func:`p_above`; it has no truth to cover).

Integer-valued quantities. The equal-tailed interval of a rank holds its endpoints
with positive probability, so it covers more than its nominal probability even when
the posterior is calibrated (a judge whose rank is certain is covered every time).
Their calibration is shown with the randomised probability integral transform
(:func:`pit_values`; Brockwell 2007, Czado, Gneiting and Held 2009): ``u = P(X <
t) + V P(X = t)``, ``V ~ Uniform(0, 1)``, is uniform when the posterior is
calibrated, whether ``X`` is discrete or continuous, and the randomised interval
``(1 - p)/2 <= u <= (1 + p)/2`` covers with probability exactly ``p``. For a
continuous quantity it is the equal-tailed interval itself.

Cells. Over ``R`` replicates a cell of a calibrated model is covered a
Binomial(``R``, ``p``) number of times, so among many cells some fall low by
chance: with 10 replicates, a cell is covered in 7 or fewer with probability 0.012.
:func:`coverage_table` states, beside the worst cell, the chance that the worst of
that many independent calibrated cells is as low (:func:`worst_cell_chance`).

:func:`shared_difficulty_cohort` is the cohort the calibration is shown on: shared
item difficulty, label noise and two near-deterministic, strongly
position-biased judges.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd
import xarray as xr
from scipy.stats import binom, rankdata

from judgestats.simulate.config import BenchmarkSpec, CohortConfig, JudgeParams

__all__ = [
    "METRIC_QUANTITIES",
    "QUANTITIES",
    "ReplicateCoverage",
    "cell_coverage",
    "coverage_table",
    "interval_hits",
    "p_above",
    "pit_hits",
    "pit_values",
    "replicate_coverage",
    "shared_difficulty_cohort",
    "worst_cell_chance",
    "z_scores",
]

#: Metrics whose intervals are checked per judge × benchmark.
METRIC_QUANTITIES: tuple[str, ...] = ("kappa", "exact_match", "p_first", "flip_rate", "test_retest")
#: Every quantity checked; see the module docs.
QUANTITIES: tuple[str, ...] = (*METRIC_QUANTITIES, "rank", "rank_shift", "kappa_diff")
_SAMPLE = ("chain", "draw")


def shared_difficulty_cohort(
    n_judges: int = 8, *, difficulty_sd: float = 1.0, scale: float = 1.0, random_seed: int = 13
) -> CohortConfig:
    """Return a cohort with shared item difficulty and two extreme judges.

    Three benchmarks (``mt``: 300 preference items with 10% label noise, ``jb``: 200
    correctness items, ``arena``: 150 preference items), both orders, 3 runs, every
    item's difficulty shared by all judges and raters. The first ``n_judges - 2``
    judges are drawn once from one population (agreement ~ Uniform(0.65, 0.95), tie
    rate ~ Uniform(0.02, 0.12), position ~ Normal(0.03, 0.05), stability ~
    Uniform(0.8, 0.98), invalid rate ~ Uniform(0, 0.01)); the last two are nearly
    deterministic (stability 0.995) and strongly position-biased (position 0.25 and
    -0.2). One judge runs twice instead of three times.

    Parameters
    ----------
    n_judges : int, default 8
        At least 3.
    difficulty_sd : float, default 1.0
        Spread of the item difficulty on the log-odds scale of agreement.
    scale : float, default 1.0
        Multiplies every benchmark's item count.
    random_seed : int, default 13
        Seed of the parameter draws (not of the data).

    Returns
    -------
    CohortConfig

    Examples
    --------
    >>> cfg = shared_difficulty_cohort()
    >>> len(cfg.judges), [b.name for b in cfg.benchmarks]
    (8, ['mt', 'jb', 'arena'])
    """
    if n_judges < 3:
        raise ValueError(f"n_judges={n_judges}; need at least 3")
    sd = float(difficulty_sd)
    benchmarks = (
        BenchmarkSpec("mt", 300, "preference", difficulty_sd=sd, label_noise=0.1),
        BenchmarkSpec("jb", 200, "correctness", difficulty_sd=sd),
        BenchmarkSpec("arena", 150, "preference", difficulty_sd=sd),
    )
    rng = np.random.default_rng(random_seed)
    judges: dict[str, dict[str, JudgeParams]] = {}
    for j in range(n_judges - 2):
        judges[f"judge-{j + 1:02d}"] = {
            b.name: JudgeParams(
                agreement=float(rng.uniform(0.65, 0.95)),
                tie_rate=float(rng.uniform(0.02, 0.12)),
                position=float(np.clip(rng.normal(0.03, 0.05), -1, 1)),
                stability=float(rng.uniform(0.8, 0.98)),
                invalid_rate=float(rng.uniform(0.0, 0.01)),
                runs=2 if j == 0 else None,
            )
            for b in benchmarks
        }
    for name, pos in (("first-slot", 0.25), ("second-slot", -0.2)):
        judges[name] = {
            b.name: JudgeParams(agreement=0.85, tie_rate=0.03, position=pos, stability=0.995)
            for b in benchmarks
        }
    cfg = CohortConfig.from_judges(judges, benchmarks)
    return cfg if scale == 1.0 else cfg.scaled(scale)


def _draws(da: xr.DataArray) -> np.ndarray:
    """Stack chain and draw into the first axis."""
    da = da.transpose(*_SAMPLE, ...)
    return da.values.reshape(-1, *da.shape[2:])


def _true_rank(kappa: np.ndarray) -> np.ndarray:
    """Ranks (1 = highest) over the last axis, NaN kept out, ties averaged."""
    out = np.full(kappa.shape, np.nan)
    for idx in np.ndindex(kappa.shape[:-1]):
        v = kappa[idx]
        ok = np.isfinite(v)
        out[idx][ok] = rankdata(-v[ok])
    return out


def _hits(draws: np.ndarray, true: np.ndarray, prob: float) -> np.ndarray:
    """Whether the equal-tailed ``prob`` interval of ``draws`` (sample first) holds ``true``."""
    lo, hi = np.nanquantile(draws, [(1 - prob) / 2, (1 + prob) / 2], axis=0)
    hit = (lo <= true) & (true <= hi)
    return np.where(np.isfinite(true) & np.isfinite(lo), hit.astype(float), np.nan)


#: Draws (sample first) and true values per quantity (:func:`_draws_and_truth`).
_Cells = dict[str, tuple[np.ndarray, np.ndarray]]


def _draws_and_truth(posterior: xr.Dataset, truth: xr.Dataset) -> _Cells:
    """Draws (sample first) and true values of every quantity of :data:`QUANTITIES`.

    Metric and rank cells are ``(judge, benchmark)``, ``rank_shift`` ``(judge, pair)``,
    ``kappa_diff`` ``(benchmark, judge pair)``.
    """
    t = truth.sel(judge=posterior["judge"], benchmark=posterior["benchmark"])
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for q in METRIC_QUANTITIES:
        d = _draws(posterior[q].transpose(*_SAMPLE, "judge", "benchmark"))
        out[q] = (d, t[q].transpose("judge", "benchmark").values)
    true_kappa = t["kappa"].transpose("judge", "benchmark").values
    true_rank = _true_rank(true_kappa.T).T  # (judge, benchmark)
    out["rank"] = (_draws(posterior["rank"].transpose(*_SAMPLE, "judge", "benchmark")), true_rank)
    if "rank_shift" in posterior:
        shifts, n_b = [], true_kappa.shape[1]
        for a, b in combinations(range(n_b), 2):
            both = np.isfinite(true_kappa[:, a]) & np.isfinite(true_kappa[:, b])
            ra = _true_rank(np.where(both, true_kappa[:, a], np.nan))
            rb = _true_rank(np.where(both, true_kappa[:, b], np.nan))
            shifts.append(rb - ra)
        draws = _draws(posterior["rank_shift"].transpose(*_SAMPLE, "judge", "benchmark_pair"))
        out["rank_shift"] = (draws, np.stack(shifts, -1))
    kappa = _draws(posterior["kappa"].transpose(*_SAMPLE, "benchmark", "judge"))
    i, j = np.array(list(combinations(range(kappa.shape[-1]), 2))).T
    out["kappa_diff"] = (kappa[..., i] - kappa[..., j], true_kappa.T[:, i] - true_kappa.T[:, j])
    return out


def interval_hits(
    posterior: xr.Dataset, truth: xr.Dataset, probs: Sequence[float] = (0.9, 0.95)
) -> dict[str, dict[float, np.ndarray]]:
    """Return, per quantity and interval probability, which cells are covered.

    Parameters
    ----------
    posterior : xarray.Dataset
        The ``posterior`` group of a fit (metrics over ``(chain, draw, judge,
        benchmark)``, ``rank``, ``rank_shift``).
    truth : xarray.Dataset
        :attr:`~judgestats.simulate.SimulationResult.truth`.
    probs : sequence of float, default (0.9, 0.95)
        Interval probabilities.

    Returns
    -------
    dict
        ``{quantity: {prob: array of 1.0 (covered), 0.0 (missed), NaN (undefined)}}``;
        metric and rank arrays are ``(judge, benchmark)``, ``rank_shift`` ``(judge,
        pair)``, ``kappa_diff`` ``(benchmark, judge pair)``.
    """
    return _interval_hits(_draws_and_truth(posterior, truth), probs)


def _interval_hits(cells: _Cells, probs: Sequence[float]) -> dict[str, dict[float, np.ndarray]]:
    return {q: {p: _hits(d, t, p) for p in probs} for q, (d, t) in cells.items()}


def pit_values(
    posterior: xr.Dataset, truth: xr.Dataset, rng: np.random.Generator
) -> dict[str, np.ndarray]:
    """Return the randomised PIT ``P(X < t) + V P(X = t)`` of every cell's true value ``t``.

    ``X`` is the posterior of the cell's quantity (its draws) and ``V`` a uniform draw
    per cell; ``u`` is Uniform(0, 1) over replicates when the posterior is
    calibrated, for integer-valued quantities (ranks, rank shifts) as for continuous
    ones (Czado, Gneiting and Held 2009, Biometrics 65:1254).

    Parameters
    ----------
    posterior, truth : xarray.Dataset
        As in :func:`interval_hits`.
    rng : numpy.random.Generator
        Source of ``V``.

    Returns
    -------
    dict of str to ndarray
        Per quantity, ``u`` with the cells of :func:`interval_hits`; NaN where the
        truth or the draws are undefined.

    Examples
    --------
    A true rank of 2 under draws that put 1/4 on rank 1 and 1/2 on rank 2 has ``u``
    uniform on (0.25, 0.75):

    >>> from judgestats.simulate.coverage import _pit
    >>> u = _pit(np.array([[1.0], [2.0], [2.0], [3.0]]), np.array([2.0]), np.array([0.5]))
    >>> float(u[0])
    0.5
    """
    return _pit_values(_draws_and_truth(posterior, truth), rng)


def _pit_values(cells: _Cells, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {q: _pit(d, t, rng.uniform(size=t.shape)) for q, (d, t) in cells.items()}


def _pit(draws: np.ndarray, true: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Randomised PIT of ``true`` under ``draws`` (sample first) with uniforms ``v``."""
    n = np.isfinite(draws).sum(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        below = (draws < true).sum(0) / n
        at = (draws == true).sum(0) / n
    u = below + v * at
    return np.where(np.isfinite(true) & (n > 0), u, np.nan)


def pit_hits(u: np.ndarray, prob: float) -> np.ndarray:
    """Whether the randomised central ``prob`` interval covers: ``u`` in its central band."""
    hit = ((1 - prob) / 2 <= u) & (u <= (1 + prob) / 2)
    return np.where(np.isfinite(u), hit.astype(float), np.nan)


def worst_cell_chance(worst: float, replicates: int, cells: int, prob: float) -> float:
    """Chance that the worst of ``cells`` calibrated cells is covered in ``worst`` or less.

    Each cell is covered in a Binomial(``replicates``, ``prob``) number of
    replicates, independently of the others (cells of one dataset are positively
    dependent, which makes a low worst cell rarer than this says).

    Parameters
    ----------
    worst : float
        The worst cell's share of replicates covered.
    replicates, cells : int
    prob : float
        The intervals' probability.

    Returns
    -------
    float
        ``1 - (1 - F(k))^cells``, ``F`` the binomial distribution function and ``k``
        the worst cell's count.

    Examples
    --------
    >>> round(worst_cell_chance(0.7, 10, 1, 0.95), 4)
    0.0115
    >>> round(worst_cell_chance(0.7, 10, 120, 0.95), 2)
    0.75
    """
    k = round(worst * replicates)
    return float(1 - binom.sf(k, replicates, prob) ** cells)


def z_scores(posterior: xr.Dataset, truth: xr.Dataset) -> dict[str, np.ndarray]:
    """Return ``(posterior mean - truth) / posterior sd`` per cell of the continuous quantities.

    Over replicates their sd is about 1 when the posterior sd matches the sampling
    spread of the posterior mean; above 1, intervals are too narrow (or biased);
    below 1, too wide (a difference of judges modelled as independent, for one).

    Parameters
    ----------
    posterior, truth : xarray.Dataset
        As in :func:`interval_hits`.

    Returns
    -------
    dict of str to ndarray
        The metrics of :data:`METRIC_QUANTITIES` ``(judge, benchmark)`` and
        ``kappa_diff`` ``(benchmark, pair)``.
    """
    return _z_scores(_draws_and_truth(posterior, truth))


def _z_scores(cells: _Cells) -> dict[str, np.ndarray]:
    out = {}
    for q, (draws, true) in cells.items():
        if q in (*METRIC_QUANTITIES, "kappa_diff"):
            with np.errstate(invalid="ignore", divide="ignore"):
                out[q] = (np.nanmean(draws, 0) - true) / np.nanstd(draws, 0)
    return out


def p_above(posterior: xr.Dataset) -> np.ndarray:
    """Return P(judge i ranked above judge j by kappa) per benchmark and judge pair.

    Parameters
    ----------
    posterior : xarray.Dataset
        The ``posterior`` group of a fit.

    Returns
    -------
    ndarray, shape (benchmark, pair)
        Pairs ``(i, j)``, ``i < j``, in the order of ``itertools.combinations``; NaN
        where a judge has no kappa.
    """
    kappa = _draws(posterior["kappa"].transpose(*_SAMPLE, "benchmark", "judge"))
    i, j = np.array(list(combinations(range(kappa.shape[-1]), 2))).T
    diff = kappa[..., i] - kappa[..., j]
    above = np.where(np.isfinite(diff), (diff > 0).astype(float), np.nan)
    with np.errstate(invalid="ignore"):
        return np.nanmean(above, axis=0)


@dataclass(frozen=True)
class ReplicateCoverage:
    """Coverage of one model over replicates of one cohort.

    Attributes
    ----------
    hits : dict
        ``{quantity: {prob: array (replicate, *cells)}}`` as in :func:`interval_hits`.
    p_above : ndarray
        P(judge i ranked above judge j), ``(replicate, benchmark, pair)``.
    seconds : ndarray
        Time of each fit.
    z : dict of str to ndarray
        :func:`z_scores` per quantity, ``(replicate, *cells)``.
    pit : dict of str to ndarray
        :func:`pit_values` per quantity, ``(replicate, *cells)``.
    """

    hits: dict[str, dict[float, np.ndarray]]
    p_above: np.ndarray
    seconds: np.ndarray
    z: dict[str, np.ndarray]
    pit: dict[str, np.ndarray]

    @property
    def n_replicates(self) -> int:
        """Replicates fitted."""
        return len(self.seconds)


def replicate_coverage(
    config: CohortConfig,
    fit: Callable[[object, int], xr.DataTree],
    seeds: Sequence[int],
    probs: Sequence[float] = (0.9, 0.95),
    progress: Callable[[int, dict[str, dict[float, np.ndarray]], float], None] | None = None,
) -> ReplicateCoverage:
    """Fit a model on replicate datasets of one cohort and record what its intervals cover.

    Parameters
    ----------
    config : CohortConfig
        The cohort (its truth is computed once).
    fit : callable
        ``fit(dataset, seed) -> DataTree`` (for example ``lambda ds, s:
        ExactModel().fit(ds, random_seed=s)``).
    seeds : sequence of int
        One replicate per seed (the data seed; the fit gets the same seed, and the
        uniforms of :func:`pit_values` a stream spawned from it).
    probs : sequence of float, default (0.9, 0.95)
    progress : callable, optional
        Called after each replicate with its seed, its hits (as in
        :func:`interval_hits`) and the fit's seconds.

    Returns
    -------
    ReplicateCoverage
    """
    import time

    from judgestats.simulate.model import truth as exact_truth
    from judgestats.simulate.simulator import simulate

    true = exact_truth(config)
    per: dict[str, dict[float, list[np.ndarray]]] = {}
    above, seconds, zs, pits = [], [], [], []
    for seed in seeds:
        ds = simulate(config, random_seed=int(seed)).dataset
        start = time.perf_counter()
        tree = fit(ds, int(seed))
        seconds.append(time.perf_counter() - start)
        post = tree["posterior"].to_dataset()
        cells = _draws_and_truth(post, true)
        hits = _interval_hits(cells, probs)
        above.append(p_above(post))
        zs.append(_z_scores(cells))
        pit_rng = np.random.default_rng(np.random.SeedSequence(int(seed)).spawn(1)[0])
        pits.append(_pit_values(cells, pit_rng))
        if progress is not None:
            progress(int(seed), hits, seconds[-1])
        for q, by_prob in hits.items():
            for p, h in by_prob.items():
                per.setdefault(q, {}).setdefault(p, []).append(h)
    stacked = {q: {p: np.stack(v) for p, v in d.items()} for q, d in per.items()}
    z = {q: np.stack([r[q] for r in zs]) for q in zs[0]} if zs else {}
    pit = {q: np.stack([r[q] for r in pits]) for q in pits[0]} if pits else {}
    return ReplicateCoverage(stacked, np.stack(above), np.asarray(seconds), z, pit)


def coverage_table(result: ReplicateCoverage) -> pd.DataFrame:
    """Return coverage per quantity and probability over replicates.

    Parameters
    ----------
    result : ReplicateCoverage

    Returns
    -------
    pandas.DataFrame
        One row per quantity and interval probability: ``mean`` (over replicates of
        the share of cells covered), ``sd`` (across replicates), ``mc_error`` (``sd /
        sqrt(replicates)``), ``min_cell`` (the smallest share of replicates in which
        one cell is covered), ``min_cell_chance`` (:func:`worst_cell_chance` of it),
        ``randomised`` and ``randomised_mc_error`` (the same mean and error for the
        randomised intervals of :func:`pit_hits`: equal to ``mean`` up to Monte Carlo
        noise for continuous quantities, the calibration of the distribution for
        integer-valued ones), ``z_sd`` (sd of the :func:`z_scores` over replicates and
        cells; NaN for integer-valued quantities), ``cells`` and ``replicates``.
    """
    rows = []
    for q, by_prob in result.hits.items():
        for p, h in by_prob.items():
            share, sd, mc = _shares(h)
            per_cell = cell_coverage(h)
            n_cells = int(np.isfinite(per_cell).sum())
            rand, _, rand_mc = _shares(pit_hits(result.pit[q], p))
            worst = float(np.nanmin(per_cell))
            rows.append(
                {
                    "quantity": q,
                    "prob": p,
                    "mean": share,
                    "sd": sd,
                    "mc_error": mc,
                    "min_cell": worst,
                    "min_cell_chance": worst_cell_chance(worst, len(h), n_cells, p),
                    "randomised": rand,
                    "randomised_mc_error": rand_mc,
                    "z_sd": float(np.nanstd(result.z[q])) if q in result.z else float("nan"),
                    "cells": n_cells,
                    "replicates": len(h),
                }
            )
    return pd.DataFrame(rows)


def _shares(hits: np.ndarray) -> tuple[float, float, float]:
    """Mean over replicates of the share of cells covered, its sd and Monte Carlo error."""
    share = np.nanmean(hits.reshape(len(hits), -1), axis=1)
    r = len(share)
    sd = float(np.std(share, ddof=1)) if r > 1 else float("nan")
    return float(np.mean(share)), sd, sd / np.sqrt(r)


def cell_coverage(hits: np.ndarray) -> np.ndarray:
    """Share of replicates in which each cell is covered (``hits``: replicate first)."""
    with np.errstate(invalid="ignore"):
        return np.nanmean(hits, axis=0)
