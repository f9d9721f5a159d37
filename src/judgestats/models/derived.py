"""Quantities derived per posterior draw: metrics, ranks, rank shifts, the paradox.

Both model tiers produce draws of each judge's *expected item features* per benchmark
(``features[chain, draw, judge, benchmark, feature]``); everything reported is
computed from them here, once, with the formulas of
:mod:`judgestats.metrics.formulas`. Because every quantity is a function of the
same joint draw, ranks, rank shifts and P(top-k on every benchmark) keep the
correlation between judges that the model (or the shared bootstrap weights) carries.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
import xarray as xr

from judgestats.features import FEATURES
from judgestats.metrics.formulas import DIRECTION, denominators, derive
from judgestats.thresholds import PAPER

__all__ = ["DerivedConfig", "derived_quantities"]

_SAMPLE = ("chain", "draw")


@dataclass(frozen=True)
class DerivedConfig:
    """What to derive beyond the metrics.

    Attributes
    ----------
    rank_by : str
        Metric that ranks judges within a benchmark; rank 1 is the best judge in the
        metric's direction (:data:`~judgestats.metrics.formulas.DIRECTION`: the highest
        kappa, the lowest position bias).
    top_k : int
        ``k`` of P(top-k on every benchmark).
    paradox_test_retest, paradox_position_bias : float
        The paradox: test-retest above the first and position bias above the second.
    """

    rank_by: str = "kappa"
    top_k: int = 3
    paradox_test_retest: float = PAPER.paradox_test_retest
    paradox_position_bias: float = PAPER.paradox_position_bias

    def __post_init__(self) -> None:
        ranked = sorted(m for m, d in DIRECTION.items() if d)
        if self.rank_by not in ranked:
            raise ValueError(
                f"rank_by={self.rank_by!r}; choose a metric with a direction: {ranked}"
            )
        if self.top_k < 1:
            raise ValueError(f"top_k={self.top_k}; must be at least 1")

    @property
    def higher_is_better(self) -> bool:
        """Whether a larger ``rank_by`` value ranks a judge higher (closer to 1)."""
        return DIRECTION[self.rank_by] == "higher"


def _rank(values: np.ndarray, higher_is_better: bool = True) -> np.ndarray:
    """Rank along the last axis, 1 = best; ties share their average rank; NaN stays NaN.

    Examples
    --------
    >>> _rank(np.array([0.5, 0.9, 0.5, np.nan])).tolist()[:3]
    [2.5, 1.0, 2.5]
    """
    v = values if higher_is_better else -values
    ok = np.isfinite(v)
    better = (v[..., None, :] > v[..., :, None]) & ok[..., None, :]  # [i, j]: j beats i
    same = (v[..., None, :] == v[..., :, None]) & ok[..., None, :]
    ranks = 1.0 + better.sum(-1) + (same.sum(-1) - 1) / 2.0
    return np.where(ok, ranks, np.nan)


def _pair_signs(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sign of ``x_i - x_j`` over the pairs ``i < j`` of the last axis, and where it is defined."""
    i, j = np.triu_indices(x.shape[-1], 1)
    with np.errstate(invalid="ignore"):
        d = x[..., i] - x[..., j]
    return np.sign(np.nan_to_num(d)).astype(np.int8), np.isfinite(d)


def _kendall_tau(
    x: tuple[np.ndarray, np.ndarray], y: tuple[np.ndarray, np.ndarray]
) -> np.ndarray:
    """Kendall's tau-a between two rankings, over the pairs of judges present in both.

    ``x`` and ``y`` are :func:`_pair_signs` of each ranking's values.
    """
    (sx, ox), (sy, oy) = x, y
    pairs = (ox & oy).sum(-1)
    agree = (sx * sy).sum(-1, dtype=np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(pairs > 0, agree / np.maximum(pairs, 1), np.nan)


def _supported(metrics: dict[str, np.ndarray], support: xr.DataArray | None) -> None:
    """Set a metric to NaN where the judge's own data leave its denominator empty.

    The prior keeps every pattern possible, so a posterior draw can give, say, a
    position bias to a judge never shown both orders; that value would come from the
    prior alone. ``support`` holds the observed feature sums ``(judge, benchmark,
    feature)``.
    """
    if support is None:
        return
    counts = denominators(support.transpose("judge", "benchmark", "feature").values)
    for name, value in metrics.items():
        metrics[name] = np.where(counts[name] > 0, value, np.nan)


def derived_quantities(
    features: xr.DataArray, config: DerivedConfig, support: xr.DataArray | None = None
) -> xr.Dataset:
    """Compute every reported quantity from draws of expected item features.

    Parameters
    ----------
    features : xarray.DataArray
        Dims ``(chain, draw, judge, benchmark, feature)``; NaN for a judge absent from
        a benchmark.
    config : DerivedConfig
        Ranking metric, ``k`` and paradox thresholds.
    support : xarray.DataArray, optional
        Observed feature sums ``(judge, benchmark, feature)``: a metric whose
        denominator they leave empty is NaN (never measured by the prior alone).

    Returns
    -------
    xarray.Dataset
        One variable per metric over ``(chain, draw, judge, benchmark)``; ``rank``
        (1 = best, ties at their average rank); ``rank_shift`` (rank on the second
        benchmark minus rank on the first, both among the judges ranked on both; the
        count is the ``pair_judges`` coordinate) and ``kendall_tau`` over
        ``benchmark_pair``; ``max_rank_shift``; ``top_k_all`` (0/1 per judge: in the
        top k on every benchmark with ranks; NaN for a judge without a rank on one of
        them); ``paradox`` (0/1 per judge and benchmark) and ``n_paradox`` per
        benchmark.
    """
    x = features.transpose(*_SAMPLE, "judge", "benchmark", "feature").values
    if x.shape[-1] != len(FEATURES):
        raise ValueError(f"features has {x.shape[-1]} entries on 'feature', need {len(FEATURES)}")
    dims = (*_SAMPLE, "judge", "benchmark")
    metrics = derive(x)
    _supported(metrics, support)
    out: dict[str, tuple[tuple[str, ...], np.ndarray]] = {
        name: (dims, value) for name, value in metrics.items()
    }
    by_bench = np.swapaxes(metrics[config.rank_by], -1, -2)  # (..., benchmark, judge)
    best_high = config.higher_is_better
    rank_b = np.stack([_rank(by_bench[..., b, :], best_high) for b in range(x.shape[-2])], -2)
    rank = np.swapaxes(rank_b, -1, -2)  # judges ranked within each benchmark
    out["rank"] = (dims, rank)
    benchmarks = features["benchmark"].values.tolist()
    pairs = list(combinations(range(len(benchmarks)), 2))
    pair_names = [f"{benchmarks[a]} -> {benchmarks[b]}" for a, b in pairs]
    pair_judges = []
    if pairs:
        shifts, taus = [], []
        signs = {b: _pair_signs(by_bench[..., b, :]) for b in {k for p in pairs for k in p}}
        for a, b in pairs:
            # ranks among the judges ranked on both benchmarks: a judge's shift must not
            # come from a change in who else was run
            both = np.isfinite(by_bench[..., a, :]) & np.isfinite(by_bench[..., b, :])
            va = np.where(both, by_bench[..., a, :], np.nan)
            vb = np.where(both, by_bench[..., b, :], np.nan)
            shifts.append(_rank(vb, best_high) - _rank(va, best_high))
            taus.append(_kendall_tau(signs[a], signs[b]))
            pair_judges.append(int(both.reshape(-1, both.shape[-1]).all(0).sum()))
        shift = np.stack(shifts, -1)
        out["rank_shift"] = ((*_SAMPLE, "judge", "benchmark_pair"), shift)
        out["kendall_tau"] = ((*_SAMPLE, "benchmark_pair"), np.stack(taus, -1))
        # a judge absent from a benchmark has no shift there: it counts as 0
        out["max_rank_shift"] = (_SAMPLE, np.abs(np.nan_to_num(shift)).max(axis=(-2, -1)))
    judged = np.isfinite(rank)
    ranked_bench = judged.any(axis=(*range(judged.ndim - 2), -2))  # benchmarks with ranks
    on_all = judged[..., ranked_bench].all(-1)
    top = (np.where(judged, rank <= config.top_k, True)[..., ranked_bench]).all(-1)
    out["top_k_all"] = ((*_SAMPLE, "judge"), np.where(on_all, top.astype(float), np.nan))
    with np.errstate(invalid="ignore"):
        paradox = (metrics["test_retest"] > config.paradox_test_retest) & (
            metrics["position_bias"] > config.paradox_position_bias
        )
    defined = np.isfinite(metrics["test_retest"]) & np.isfinite(metrics["position_bias"])
    out["paradox"] = (dims, np.where(defined, paradox.astype(float), np.nan))
    out["n_paradox"] = ((*_SAMPLE, "benchmark"), np.where(defined, paradox, 0).sum(-2))
    coords: dict[str, Any] = {
        "chain": features["chain"].values,
        "draw": features["draw"].values,
        "judge": features["judge"].values,
        "benchmark": features["benchmark"].values,
    }
    if pairs:
        coords["benchmark_pair"] = np.array(pair_names)
        coords["pair_judges"] = ("benchmark_pair", np.array(pair_judges, dtype=np.int64))
    ds = xr.Dataset(out, coords=coords)
    ds.attrs.update(
        rank_by=config.rank_by,
        top_k=config.top_k,
        paradox_test_retest=config.paradox_test_retest,
        paradox_position_bias=config.paradox_position_bias,
    )
    return ds
