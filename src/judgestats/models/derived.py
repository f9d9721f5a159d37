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

import numpy as np
import xarray as xr

from judgestats.features import FEATURES
from judgestats.metrics.formulas import METRICS, derive

__all__ = ["DerivedConfig", "derived_quantities"]

_SAMPLE = ("chain", "draw")


@dataclass(frozen=True)
class DerivedConfig:
    """What to derive beyond the metrics.

    Attributes
    ----------
    rank_by : str
        Metric that ranks judges within a benchmark (higher is better).
    top_k : int
        ``k`` of P(top-k on every benchmark).
    paradox_test_retest, paradox_position_bias : float
        The paradox: test-retest above the first and position bias above the second.
    """

    rank_by: str = "kappa"
    top_k: int = 3
    paradox_test_retest: float = 0.95
    paradox_position_bias: float = 0.10

    def __post_init__(self) -> None:
        if self.rank_by not in METRICS:
            raise ValueError(f"rank_by={self.rank_by!r}; choose one of {sorted(METRICS)}")
        if self.top_k < 1:
            raise ValueError(f"top_k={self.top_k}; must be at least 1")


def _rank(values: np.ndarray) -> np.ndarray:
    """Rank along the last axis, 1 = largest; NaN values get NaN ranks."""
    filled = np.where(np.isnan(values), -np.inf, values)
    order = np.argsort(-filled, axis=-1, kind="stable")
    ranks = np.empty_like(order, dtype=float)
    np.put_along_axis(ranks, order, np.arange(1, values.shape[-1] + 1, dtype=float), axis=-1)
    return np.where(np.isnan(values), np.nan, ranks)


def _kendall_tau(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall's tau-a between rankings along the last axis, over pairs present in both."""
    ok = ~(np.isnan(x) | np.isnan(y))
    sx = np.sign(x[..., :, None] - x[..., None, :])
    sy = np.sign(y[..., :, None] - y[..., None, :])
    both = ok[..., :, None] & ok[..., None, :]
    upper = np.triu(np.ones(both.shape[-2:], dtype=bool), 1)
    pairs = (both & upper).sum((-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(pairs > 0, (sx * sy * (both & upper)).sum((-2, -1)) / pairs, np.nan)


def derived_quantities(features: xr.DataArray, config: DerivedConfig) -> xr.Dataset:
    """Compute every reported quantity from draws of expected item features.

    Parameters
    ----------
    features : xarray.DataArray
        Dims ``(chain, draw, judge, benchmark, feature)``; NaN for a judge absent from
        a benchmark.
    config : DerivedConfig
        Ranking metric, ``k`` and paradox thresholds.

    Returns
    -------
    xarray.Dataset
        One variable per metric over ``(chain, draw, judge, benchmark)``; ``rank``;
        ``rank_shift`` and ``kendall_tau`` over ``benchmark_pair``; ``max_rank_shift``;
        ``top_k_all`` (0/1 per judge: in the top k on every benchmark it was judged on);
        ``paradox`` (0/1 per judge and benchmark) and ``n_paradox`` per benchmark.
    """
    x = features.transpose(*_SAMPLE, "judge", "benchmark", "feature").values
    if x.shape[-1] != len(FEATURES):
        raise ValueError(f"features has {x.shape[-1]} entries on 'feature', need {len(FEATURES)}")
    dims = (*_SAMPLE, "judge", "benchmark")
    metrics = derive(x)
    out = {name: (dims, value) for name, value in metrics.items()}
    by_bench = np.swapaxes(metrics[config.rank_by], -1, -2)  # (..., benchmark, judge)
    rank = np.swapaxes(_rank(by_bench), -1, -2)  # judges ranked within each benchmark
    out["rank"] = (dims, rank)
    benchmarks = features["benchmark"].values.tolist()
    pairs = list(combinations(range(len(benchmarks)), 2))
    pair_names = [f"{benchmarks[a]} -> {benchmarks[b]}" for a, b in pairs]
    if pairs:
        shift = np.stack([rank[..., b] - rank[..., a] for a, b in pairs], -1)
        tau = np.stack(
            [_kendall_tau(by_bench[..., a, :], by_bench[..., b, :]) for a, b in pairs], -1
        )
        out["rank_shift"] = ((*_SAMPLE, "judge", "benchmark_pair"), shift)
        out["kendall_tau"] = ((*_SAMPLE, "benchmark_pair"), tau)
        # a judge absent from a benchmark has no shift there: it counts as 0
        out["max_rank_shift"] = (_SAMPLE, np.abs(np.nan_to_num(shift)).max(axis=(-2, -1)))
    judged = ~np.isnan(rank)
    top = np.where(judged, rank <= config.top_k, True).all(-1) & judged.any(-1)
    out["top_k_all"] = ((*_SAMPLE, "judge"), top.astype(float))
    with np.errstate(invalid="ignore"):
        paradox = (metrics["test_retest"] > config.paradox_test_retest) & (
            metrics["position_bias"] > config.paradox_position_bias
        )
    defined = np.isfinite(metrics["test_retest"]) & np.isfinite(metrics["position_bias"])
    out["paradox"] = (dims, np.where(defined, paradox.astype(float), np.nan))
    out["n_paradox"] = ((*_SAMPLE, "benchmark"), np.where(defined, paradox, 0).sum(-2))
    coords = {
        "chain": features["chain"].values,
        "draw": features["draw"].values,
        "judge": features["judge"].values,
        "benchmark": features["benchmark"].values,
    }
    if pairs:
        coords["benchmark_pair"] = np.array(pair_names)
    ds = xr.Dataset(out, coords=coords)
    ds.attrs.update(
        rank_by=config.rank_by,
        top_k=config.top_k,
        paradox_test_retest=config.paradox_test_retest,
        paradox_position_bias=config.paradox_position_bias,
    )
    return ds
