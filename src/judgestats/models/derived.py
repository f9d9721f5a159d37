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
from functools import lru_cache
from itertools import combinations
from typing import Any

import numpy as np
import xarray as xr

from judgestats.features import FEATURES
from judgestats.metrics.formulas import DIRECTION, REGISTRY, denominators, derive
from judgestats.parallel import thread_map
from judgestats.thresholds import PAPER

__all__ = [
    "BLOCK_VALUES",
    "DERIVED_VARIABLES",
    "PAIR_SEPARATOR",
    "DerivedConfig",
    "MetricDraws",
    "complete_posterior",
    "derived_quantities",
    "drawn_metrics",
    "metric_draws",
    "metrics_dataset",
    "stored_quantities",
]

_SAMPLE = ("chain", "draw")
#: Between the two benchmarks of a ``benchmark_pair`` label (``"first -> second"``).
PAIR_SEPARATOR = " -> "


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

    One sort over every leading axis (draws, benchmarks, benchmark pairs at once).

    Examples
    --------
    >>> _rank(np.array([0.5, 0.9, 0.5, np.nan])).tolist()[:3]
    [2.5, 1.0, 2.5]
    """
    ok = np.isfinite(values)
    key = np.where(ok, -values if higher_is_better else values, np.inf)  # best first
    order = np.argsort(key, axis=-1)  # any order of equal values: they share one rank
    s = np.take_along_axis(key, order, -1)
    n = s.shape[-1]
    pos = np.broadcast_to(np.arange(n), s.shape)
    starts = np.ones(s.shape, dtype=bool)
    starts[..., 1:] = s[..., 1:] != s[..., :-1]
    ends = np.ones(s.shape, dtype=bool)
    ends[..., :-1] = starts[..., 1:]
    # first and last sorted position of each run of equal values
    first = np.maximum.accumulate(np.where(starts, pos, 0), axis=-1)
    last = np.flip(np.minimum.accumulate(np.flip(np.where(ends, pos, n), -1), axis=-1), -1)
    ranks = np.empty(s.shape)
    np.put_along_axis(ranks, order, 1.0 + (first + last) / 2.0, -1)
    return np.where(ok, ranks, np.nan)


def _pair_signs(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sign of ``x_i - x_j`` over the pairs ``i < j`` of the last axis, and where it is defined.

    The signs are 0 where undefined.
    """
    i, j = np.triu_indices(x.shape[-1], 1)
    with np.errstate(invalid="ignore"):
        d = x[..., i] - x[..., j]
    return _signs(d, np.int8), np.isfinite(d)


def _signs(d: np.ndarray, dtype: type) -> np.ndarray:
    """Sign of ``d`` as ``dtype``, 0 where ``d`` is NaN (both comparisons are false)."""
    return np.subtract(d > 0, d < 0, dtype=dtype)


def _kendall_tau(x: tuple[np.ndarray, np.ndarray], y: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Kendall's tau-a between two rankings, over the pairs of judges present in both.

    ``x`` and ``y`` are :func:`_pair_signs` of each ranking's values.
    """
    (sx, ox), (sy, oy) = x, y
    return _tau((sx * sy).sum(-1, dtype=np.int64), (ox & oy).sum(-1, dtype=np.int64))


def _tau(agree: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(pairs > 0, agree / np.maximum(pairs, 1), np.nan)


#: Draws per block of :func:`_kendall_taus` (bounds its memory with many judges).
_TAU_BLOCK = 256


def _kendall_taus(x: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """:func:`_kendall_tau` between benchmarks ``a[k]`` and ``b[k]`` for every pair ``k``.

    ``x`` holds the ranking values ``(sample, benchmark, judge)``. The concordance
    counts of all benchmark pairs are one matrix product of the judge-pair signs per
    block of draws (float32 is exact here: the counts stay below 2**24); the pairs of
    judges ranked on both benchmarks are ``m (m - 1) / 2`` of the ``m`` judges ranked on
    both. Values that float32 holds exactly (drawn metrics are rounded to it) are
    compared in float32: the sign of a difference is exact in any precision.
    """
    ranked = np.isfinite(x)
    m = (ranked[:, a] & ranked[:, b]).sum(-1, dtype=np.int64)  # (sample, pair)
    pairs = m * (m - 1) // 2
    narrow = x.astype(np.float32)
    if np.array_equal(narrow, x, equal_nan=True):
        x = narrow
    i, j = np.triu_indices(x.shape[-1], 1)
    out = np.empty((x.shape[0], len(a)))
    for lo in range(0, x.shape[0], _TAU_BLOCK):
        block = x[lo : lo + _TAU_BLOCK]
        with np.errstate(invalid="ignore"):
            s = _signs(block[..., i] - block[..., j], np.float32)  # (draw, benchmark, pair)
        agree = (s @ np.swapaxes(s, -1, -2))[:, a, b]  # (draw, benchmark pair)
        out[lo : lo + _TAU_BLOCK] = _tau(agree.astype(np.int64), pairs[lo : lo + _TAU_BLOCK])
    return out


def _pair_ranks(
    values: np.ndarray, ranks: np.ndarray, side: np.ndarray, both: np.ndarray, best_high: bool
) -> np.ndarray:
    """Ranks on benchmark ``side[k]`` among the judges ``both[..., k, :]``, for each pair ``k``.

    ``values`` and ``ranks`` are ``(..., benchmark, judge)``. Where the judges of the
    pair are those ranked on the benchmark anyway (in every draw), its ranks are
    ``ranks`` as they are; the others are ranked again among the judges of the pair,
    once for all the pairs with the same benchmark and the same judges (a benchmark
    paired with several sets that one group of judges rated).
    """
    out = ranks[..., side, :]
    ranked = np.isfinite(values)
    again: dict[tuple[int, bytes], list[int]] = {}
    for k, b in enumerate(side.tolist()):
        judges = both[..., k, :]
        if not np.array_equal(judges, ranked[..., b, :]):
            again.setdefault((b, np.packbits(judges).tobytes()), []).append(k)
    for (b, _), pairs in again.items():
        judges = both[..., pairs[0], :]
        out[..., pairs, :] = _rank(np.where(judges, values[..., b, :], np.nan), best_high)[
            ..., None, :
        ]
    return out


def _supported(metrics: dict[str, np.ndarray], support: xr.DataArray | None) -> None:
    """Set a metric to NaN, in place, where the judge's own data leave its denominator empty.

    The prior keeps every pattern possible, so a posterior draw can give, say, a
    position bias to a judge never shown both orders; that value would come from the
    prior alone. ``support`` holds the observed feature sums ``(judge, benchmark,
    feature)``.
    """
    if support is None:
        return
    counts = denominators(support.transpose("judge", "benchmark", "feature").values)
    for name, value in metrics.items():
        np.copyto(value, np.nan, where=~(counts[name] > 0))


@lru_cache(maxsize=1)
def _metric_formulas() -> tuple[str, ...]:
    """Metrics whose formula reads only the metrics declared before it, not the features.

    Found by calling each formula without features (the registry is their one home):
    deflation, position bias, order consistency and the like. They are stored nowhere
    and recomputed from the others (:func:`complete_posterior`).
    """
    probe: dict[str, np.ndarray] = {}
    out = []
    for name, m in REGISTRY.items():
        if m.formula is not None:
            try:
                probe[name] = np.asarray(m.formula(None, probe), dtype=float)  # type: ignore[arg-type]
            except (TypeError, IndexError, KeyError):
                probe[name] = np.zeros(1)
                continue
            out.append(name)
        else:
            probe[name] = np.zeros(1)
    return tuple(out)


def stored_quantities(posterior: xr.Dataset) -> list[str]:
    """Return the posterior variables that cannot be recomputed from the others.

    The metrics drawn from the features, and any variable a tier adds (hyper-parameters);
    :func:`complete_posterior` rebuilds the rest.
    """
    derived = {*_metric_formulas(), *DERIVED_VARIABLES}
    return [str(n) for n in posterior.data_vars if n not in derived]


#: Posterior variables computed from the metrics by :func:`complete_posterior`.
DERIVED_VARIABLES: tuple[str, ...] = (
    "rank",
    "rank_shift",
    "kendall_tau",
    "max_rank_shift",
    "top_k_all",
    "paradox",
    "n_paradox",
)


def _feature_major(x: np.ndarray) -> np.ndarray:
    """Return ``x`` with each feature contiguous in memory (the formulas read one at a time).

    ``x`` itself when each feature already is one dense block, whatever the order of
    the other axes within it (the exact tier writes benchmark by benchmark).
    """
    f = np.moveaxis(x, -1, 0)
    block = f[0] if len(f) else f
    inner = np.transpose(block, np.argsort(block.strides)[::-1])  # outermost axis first
    if inner.flags.c_contiguous and (len(f) < 2 or f.strides[0] == block.nbytes):
        return x
    return np.moveaxis(np.ascontiguousarray(f), 0, -1)


def derived_quantities(
    features: xr.DataArray, config: DerivedConfig, support: xr.DataArray | None = None
) -> xr.Dataset:
    """Compute every reported quantity from draws of expected item features.

    :func:`drawn_metrics`, then :func:`complete_posterior`.

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
        As :func:`complete_posterior`.
    """
    return complete_posterior(drawn_metrics(features, support), config)


#: Feature values per block of draws turned into metrics at once (8 MB of float64):
#: what a tier drawing block by block holds in flight per thread, whatever the draws.
BLOCK_VALUES = 1 << 20


def drawn_metrics(
    features: xr.DataArray, support: xr.DataArray | None = None, n_items: np.ndarray | None = None
) -> xr.Dataset:
    """Compute the metrics drawn from the features: what :func:`stored_quantities` names.

    Parameters
    ----------
    features : xarray.DataArray
        As in :func:`derived_quantities`.
    support : xarray.DataArray, optional
        As in :func:`derived_quantities`.
    n_items : ndarray, optional
        Items per ``(judge, benchmark)``: the features are then expectations per item,
        scaled in place (:meth:`MetricDraws.add`); without it, they are expected sums.

    Returns
    -------
    xarray.Dataset
        See :func:`metrics_dataset`.
    """
    x = features.transpose(*_SAMPLE, "judge", "benchmark", "feature").values
    if x.shape[-1] != len(FEATURES):
        raise ValueError(f"features has {x.shape[-1]} entries on 'feature', need {len(FEATURES)}")
    sink = MetricDraws(x.shape[:-1])
    # Every draw is its own computation: blocks of draws in threads (numpy's array
    # work releases the GIL), each block small (the formulas read a feature-major copy)
    step = max(1, BLOCK_VALUES // max(1, int(np.prod(x.shape[2:]))))
    tasks = [(c, slice(a, a + step)) for c in range(x.shape[0]) for a in range(0, x.shape[1], step)]
    thread_map(lambda task: sink.add(task, x[task], n_items), tasks)
    dims = (*_SAMPLE, "judge", "benchmark")
    return sink.dataset({d: features[d].values for d in dims}, support)


class MetricDraws:
    """Metric draws filled block by block from feature draws, never all features at once.

    Parameters
    ----------
    shape : tuple of int
        Shape of each metric's draws (the features' shape without ``feature``).

    Examples
    --------
    >>> sink = MetricDraws((2, 5))
    >>> sink.add((slice(None), slice(0, 5)), np.ones((2, 5, len(FEATURES))))
    >>> sink.values["exact_match"].shape
    (2, 5)
    """

    def __init__(self, shape: tuple[int, ...]) -> None:
        stored = [name for name in REGISTRY if name not in _metric_formulas()]
        #: Draws of each metric that :func:`metric_draws` gives, NaN until added.
        self.values = {name: np.full(shape, np.nan) for name in stored}

    def add(self, index: Any, features: np.ndarray, n_items: np.ndarray | None = None) -> None:
        """Derive the metrics of a block of features ``(..., feature)`` into ``values[index]``.

        With ``n_items`` (items per judge, broadcast against the block without its
        ``feature`` axis) the block holds expected features per item and is first
        scaled in place to expected sums, so that sample-size terms (Krippendorff's
        ``2N - 1``) match the closed-form estimate on the same data. Blocks of
        different places may be added from several threads at once.
        """
        if n_items is not None:
            features *= np.asarray(n_items, dtype=float)[..., None]
        for name, value in metric_draws(features).items():
            self.values[name][index] = value

    def dataset(self, coords: dict[str, Any], support: xr.DataArray | None) -> xr.Dataset:
        """Return :func:`metrics_dataset` of the values (``(chain, draw, judge, benchmark)``)."""
        return metrics_dataset(self.values, coords, support)


def metric_draws(x: np.ndarray) -> dict[str, np.ndarray]:
    """Compute the metrics drawn from features ``x`` of shape ``(..., feature)``.

    Those recomputed from other metrics (:func:`complete_posterior` does) are left out.
    """
    secondary = _metric_formulas()
    return {k: v for k, v in derive(_feature_major(x)).items() if k not in secondary}


def metrics_dataset(
    metrics: dict[str, np.ndarray], coords: dict[str, Any], support: xr.DataArray | None = None
) -> xr.Dataset:
    """Gather metric draws ``(chain, draw, judge, benchmark)`` into the stored dataset.

    A metric whose denominator ``support`` leaves empty is set to NaN, and every value
    is rounded to float32 (the precision ``posterior.nc`` stores), so that a posterior
    read back from disk is the one fitted, bit for bit. Both in place: the dataset
    holds the arrays given.

    Parameters
    ----------
    metrics : dict of str to ndarray
        :func:`metric_draws` over ``(chain, draw, judge, benchmark)``, float64.
    coords : dict
        Those four coordinates.
    support : xarray.DataArray, optional
        As in :func:`derived_quantities`.

    Returns
    -------
    xarray.Dataset
        The drawn metrics, in the registry's order.
    """
    _supported(metrics, support)
    dims = (*_SAMPLE, "judge", "benchmark")
    base = {}
    for name in REGISTRY:
        if name in metrics:
            value = metrics[name]
            value[...] = value.astype(np.float32)  # in place: one metric's copy at a time
            base[name] = (dims, value)
    return xr.Dataset(base, coords={d: coords[d] for d in dims})


def complete_posterior(posterior: xr.Dataset, config: DerivedConfig) -> xr.Dataset:
    """Add every quantity computed from the drawn metrics: the fit's and the loader's step.

    Parameters
    ----------
    posterior : xarray.Dataset
        The metrics drawn from the features over ``(chain, draw, judge, benchmark)``
        (float32 values; what :func:`stored_quantities` names), plus any variable of the
        tier, kept as it is.
    config : DerivedConfig
        Ranking metric, ``k`` and paradox thresholds.

    Returns
    -------
    xarray.Dataset
        Every metric of the registry in its order, then ``rank`` (1 = best, ties at
        their average rank); ``rank_shift`` (rank on the second benchmark minus rank on
        the first, both among the judges ranked on both; the count is the
        ``pair_judges`` coordinate) and ``kendall_tau`` over ``benchmark_pair``;
        ``max_rank_shift``; ``top_k_all`` (0/1 per judge: in the top k on every
        benchmark with ranks; NaN for a judge without a rank on one of them);
        ``paradox`` (0/1 per judge and benchmark) and ``n_paradox`` per benchmark;
        then the tier's other variables.
    """
    dims = (*_SAMPLE, "judge", "benchmark")
    # as they are when already float64 (the fit's): a copy of each would double them
    drawn = {str(n): np.asarray(posterior[n].transpose(*dims).values, dtype=float)
             for n in REGISTRY if n in posterior and n not in _metric_formulas()}  # fmt: skip
    metrics: dict[str, np.ndarray] = {}
    for name, m in REGISTRY.items():
        if name in drawn:
            metrics[name] = drawn[name]
        elif name in _metric_formulas():
            metrics[name] = np.asarray(m.formula(None, metrics), dtype=float)  # type: ignore[arg-type,misc]
    out: dict[str, tuple[tuple[str, ...], np.ndarray]] = {
        name: (dims, value) for name, value in metrics.items()
    }
    best_high = config.higher_is_better
    by_bench = np.swapaxes(metrics[config.rank_by], -1, -2)  # (..., benchmark, judge)
    bench_rank = _rank(by_bench, best_high)
    rank = np.swapaxes(bench_rank, -1, -2)  # within each benchmark
    out["rank"] = (dims, rank)
    benchmarks = posterior["benchmark"].values.tolist()
    pairs = list(combinations(range(len(benchmarks)), 2))
    coords: dict[str, Any] = {d: posterior[d].values for d in dims}
    if pairs:
        a, b = (np.array(p) for p in zip(*pairs, strict=True))
        # ranks among the judges ranked on both benchmarks: a judge's shift must not
        # come from a change in who else was run
        ranked = np.isfinite(by_bench)
        both = ranked[..., a, :] & ranked[..., b, :]  # (..., pair, judge)
        shift = _pair_ranks(by_bench, bench_rank, b, both, best_high) - _pair_ranks(
            by_bench, bench_rank, a, both, best_high
        )
        out["rank_shift"] = ((*_SAMPLE, "judge", "benchmark_pair"), np.swapaxes(shift, -1, -2))
        flat = by_bench.reshape(-1, *by_bench.shape[-2:])
        tau = _kendall_taus(flat, a, b).reshape(*by_bench.shape[:-2], len(pairs))
        out["kendall_tau"] = ((*_SAMPLE, "benchmark_pair"), tau)
        # a judge absent from a benchmark has no shift there: it counts as 0
        out["max_rank_shift"] = (_SAMPLE, np.abs(np.nan_to_num(shift)).max(axis=(-2, -1)))
        coords["benchmark_pair"] = np.array(
            [f"{benchmarks[i]}{PAIR_SEPARATOR}{benchmarks[j]}" for i, j in pairs]
        )
        judges_both = both.reshape(-1, *both.shape[-2:]).all(0).sum(-1)
        coords["pair_judges"] = ("benchmark_pair", judges_both.astype(np.int64))
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
    ds = xr.Dataset(out, coords=coords)
    extra = [n for n in posterior.data_vars if n not in ds]
    if extra:
        ds = ds.merge(posterior[extra])
    ds.attrs.update(posterior.attrs)
    ds.attrs.update(
        rank_by=config.rank_by,
        top_k=config.top_k,
        paradox_test_retest=config.paradox_test_retest,
        paradox_position_bias=config.paradox_position_bias,
    )
    return ds
