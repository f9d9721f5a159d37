"""Closed-form metrics on a Judgments dataset, with item-bootstrap or FCE intervals.

Layers: the numpy formulas of :mod:`~judgestats.metrics.formulas`,
:mod:`~judgestats.metrics.covariates` and :mod:`~judgestats.metrics.human` take
features summed over items (last axis); :func:`item_feature_array` computes the
features of every item as a labelled array; :func:`evaluate` turns summed features
into metrics over named dims; :func:`compute_metrics` sums per benchmark (and
group), resamples items, and returns a :class:`~judgestats.metrics.result.MetricsResult`.

Which judgments enter
---------------------
``protocol="all"`` (default): every order and run of every item. Each metric says in
its ``unit`` what its ``n`` counts (judgments, runs judged in both orders, (item,
order) units, pairs of runs, ...). ``protocol="agreement"``: one verdict per item,
the original order (``"AB"``, or ``"unknown"`` where no order is recorded) of the
first run, as in seed 002's agreement protocol; replicate and position metrics are
then undefined and say so. ``by="order"`` or ``by="run"`` computes every metric on
each order (run) alone; ``by="category"`` per item category within each benchmark.

* exact match, S1/S2 agreement, kappa, alpha, deflation, two-trial accuracy, both
  correct: judgments on items with a human label (the human-majority label,
  :func:`judgestats.tally.consensus_label`); an invalid verdict is its own category
  (a miss; a column of its own in kappa and alpha; a vote of 0 in two-trial
  accuracy), never dropped;
* P(first), position bias, flip rate, order consistency: runs judged in both orders
  ``AB`` and ``BA``; an order ``"unknown"`` never pairs, so a dataset without swapped
  orders has these undefined;
* test-retest, self-consistency, run agreement, alpha across runs: (item, order)
  units with at least two runs;
* verbosity bias: A, B and tie verdicts on items with both response lengths
  (invalid verdicts have no score and are left out; ``invalid_rate`` reports them);
* self-enhancement: A, B and tie verdicts on items where exactly one response was
  written by the judge's own model;
* invalid rate: every judgment;
* the human ceiling (row ``judge="(human)"``, only when items have two or more
  raters): human ratings, see :mod:`judgestats.metrics.human`.

Intervals
---------
``interval="bootstrap"``: the item-clustered percentile bootstrap. Items are
resampled with replacement within each benchmark, an item keeping all its orders
and runs; one set of resampled items is shared by every judge, metric and group, so
differences and ranks are paired. ``interval="fce"``: Wald intervals from the
Fleiss–Cohen–Everitt SE, for kappa only, with each item as one observation (its
judgments' confusion counts divided by their number), so that the orders and runs
of an item are never counted as independent judgments. ``interval="none"``: point
estimates only.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from statistics import NormalDist
from types import ModuleType

import numpy as np
import xarray as xr

from judgestats.errors import NotEstimableError
from judgestats.features import FEATURES
from judgestats.metrics import covariates, formulas, human
from judgestats.metrics.bootstrap import (
    percentile_interval,
    replicate_sd,
    resample_weights,
    weighted_sums,
)
from judgestats.metrics.result import GROUP_DIMS, NOT_APPLICABLE, MetricsResult
from judgestats.schema import Verdict
from judgestats.tally import LABEL_CODES, tally

__all__ = [
    "ALL_FEATURES",
    "BY",
    "HUMAN",
    "INTERVALS",
    "METRICS",
    "PROTOCOLS",
    "UNITS",
    "bootstrap_replicates",
    "compute_metrics",
    "evaluate",
    "exact_match",
    "human_agreement",
    "item_feature_array",
    "kappa",
    "kappa_se",
    "position_bias",
    "select_protocol",
    "self_enhancement",
    "test_retest",
    "two_trial_accuracy",
    "verbosity_bias",
]

#: Judgment selections: every order and run, or one verdict per item.
PROTOCOLS: tuple[str, ...] = ("all", "agreement")
#: Groupings besides judge × benchmark.
BY: tuple[str, ...] = ("order", "run", "category")
#: Interval methods.
INTERVALS: tuple[str, ...] = ("bootstrap", "fce", "none")
#: Name of the row holding the human–human ceiling.
HUMAN = "(human)"

_FAMILIES: tuple[ModuleType, ...] = (formulas, covariates, human)
_EDGES = np.cumsum([0, *(len(fam.FEATURES) for fam in _FAMILIES)]).tolist()
#: Where each family's features sit on the feature axis.
_SLICES: list[slice] = [slice(a, b) for a, b in pairwise(_EDGES)]


class _Joined(Mapping[str, str]):
    """A live, read-only union of one mapping of every metric family, in family order."""

    def __init__(self, attribute: str) -> None:
        self._attribute = attribute

    def _maps(self) -> list[Mapping[str, str]]:
        return [getattr(fam, self._attribute) for fam in _FAMILIES]

    def __getitem__(self, name: str) -> str:
        for m in self._maps():
            if name in m:
                return m[name]
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return (name for m in self._maps() for name in m)

    def __len__(self) -> int:
        return sum(len(m) for m in self._maps())

    def __repr__(self) -> str:
        return repr(dict(self))


#: Every metric, with its description (live: a metric registered in
#: :data:`judgestats.metrics.formulas.REGISTRY` appears here).
METRICS: Mapping[str, str] = _Joined("METRICS")
#: Every metric → what its ``n`` counts.
UNITS: Mapping[str, str] = _Joined("UNITS")
#: Every item feature: the judge features, covariate features and human features.
ALL_FEATURES: tuple[str, ...] = tuple(f for fam in _FAMILIES for f in fam.FEATURES)
_HUMAN_METRICS = tuple(human.METRICS)


def _families(x: np.ndarray, what: str) -> np.ndarray:
    """Stack ``fam.<what>(x_fam)`` of every family along a new last (metric) axis."""
    parts = {}
    for fam, sl in zip(_FAMILIES, _SLICES, strict=True):
        parts.update(getattr(fam, what)(x[..., sl]))
    return np.stack([parts[m] for m in METRICS], -1)


def _values(x: np.ndarray) -> np.ndarray:
    return _families(x, "derive")


def _evaluate(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return _families(x, "derive"), _families(x, "denominators"), _families(x, "reasons")


def evaluate(sums: xr.DataArray) -> xr.Dataset:
    """Turn features summed over items into every metric, over named dims.

    Parameters
    ----------
    sums : xarray.DataArray
        Summed item features with a ``feature`` dim (:data:`ALL_FEATURES`) and any
        others (judge, benchmark, resample, ...).

    Returns
    -------
    xarray.Dataset
        ``value``, ``n`` and ``reason`` over the other dims and ``metric``.
    """
    value, n, why = xr.apply_ufunc(
        _evaluate,
        sums.transpose(..., "feature"),
        input_core_dims=[["feature"]],
        output_core_dims=[["metric"]] * 3,
    )
    return xr.Dataset({"value": value, "n": n, "reason": why}).assign_coords(metric=list(METRICS))


def select_protocol(ds: xr.Dataset, protocol: str = "all") -> xr.Dataset:
    """Keep the judgments that a protocol uses.

    Parameters
    ----------
    ds : xarray.Dataset
        A Judgments dataset.
    protocol : {"all", "agreement"}
        ``"all"`` keeps everything; ``"agreement"`` keeps one verdict per item: the
        original order ``"AB"`` (``"unknown"`` where no order is recorded) of run 0.

    Returns
    -------
    xarray.Dataset

    Raises
    ------
    ValueError
        For an unknown protocol.
    NotEstimableError
        For ``"agreement"`` on a dataset with neither order ``"AB"`` nor ``"unknown"``.
    """
    if protocol not in PROTOCOLS:
        raise ValueError(f"protocol={protocol!r}; choose one of {PROTOCOLS}")
    if protocol == "all":
        return ds
    orders = ds["order"].values.tolist()
    first = next((o for o in ("AB", "unknown") if o in orders), None)
    if first is None:
        raise NotEstimableError(
            f"the agreement protocol needs the original order 'AB' (or 'unknown'); "
            f"the dataset has orders {orders}"
        )
    return ds.isel(order=[orders.index(first)], run=[0])


def _centred_length_diff(ds: xr.Dataset) -> np.ndarray:
    """``length_a - length_b``, centred per benchmark (Pearson r is shift-invariant)."""
    d = ds["length_a"].values.astype(float) - ds["length_b"].values.astype(float)
    bench = ds["benchmark"].values
    for b in np.unique(bench):
        mask = (bench == b) & np.isfinite(d)
        if mask.any():
            d[mask] -= d[mask].mean()
    return d


def _judge_features(
    ds: xr.Dataset, self_models: Mapping[str, str | Collection[str]] | None
) -> np.ndarray:
    """Judge and covariate features, shape (judge, item, feature)."""
    judges = ds["judge"].values.tolist()
    pos = {j: k for k, j in enumerate(judges)}
    core = np.zeros((len(judges), ds.sizes["item"], len(FEATURES)))
    bench = ds["benchmark"].values
    label_index = {int(code): k for k, code in enumerate(LABEL_CODES)}
    for bt in tally(ds):
        items = np.flatnonzero(bench == bt.benchmark)
        rows = [pos[j] for j in bt.judges]
        pattern = bt.item_pattern
        labels = np.array([label_index[int(c)] for c in bt.item_label], dtype=np.int64)
        feats = bt.features[np.maximum(pattern, 0), labels[None, :]]
        core[np.ix_(rows, items)] = np.where((pattern >= 0)[..., None], feats, 0.0)
    side = covariates.own_side(
        judges, ds["model_a"].values.astype(str), ds["model_b"].values.astype(str), self_models
    )
    votes = human.vote_counts(ds["human"].transpose("item", "rater").values)
    cov = covariates.features(
        core[..., list(covariates.COUNT_FEATURES)],
        _centred_length_diff(ds),
        side,
        votes=votes,
        invalid=core[..., FEATURES.index("invalid")],
    )
    return np.concatenate([core, cov], -1)


def _feature(x: np.ndarray, name: str) -> np.ndarray:
    return x[..., ALL_FEATURES.index(name)]


def _has_human_ceiling(ds: xr.Dataset) -> bool:
    rated = np.isin(ds["human"].values, (Verdict.A, Verdict.B, Verdict.TIE))
    return bool((rated.sum(-1) >= 2).any())


def item_feature_array(
    ds: xr.Dataset,
    *,
    protocol: str = "all",
    by: str | None = None,
    self_models: Mapping[str, str | Collection[str]] | None = None,
) -> xr.DataArray:
    """Compute the features of every item: what it adds to every metric.

    Parameters
    ----------
    ds : xarray.Dataset
        A Judgments dataset.
    protocol : {"all", "agreement"}, default "all"
        Which judgments enter (see :func:`select_protocol`).
    by : {"order", "run"}, optional
        Compute the features of each order (run) alone, along a dim of that name.
        (``by="category"`` needs no separate features: categories group items.)
    self_models : mapping, optional
        Judge → own model name(s), for self-enhancement (see
        :func:`judgestats.metrics.covariates.own_side`).

    Returns
    -------
    xarray.DataArray
        Dims ``(item, judge[, order|run], feature)``, ``feature`` =
        :data:`ALL_FEATURES`. A row ``judge="(human)"`` holds the human features
        (and zeros elsewhere) when some item has two or more human ratings; judges
        hold zeros in the human features.
    """
    if by not in (None, "order", "run"):
        raise ValueError(f"by={by!r}; item features split by 'order' or 'run' only")
    ds = select_protocol(ds, protocol)
    if by is not None:
        parts = [_judge_features(ds.isel({by: [k]}), self_models) for k in range(ds.sizes[by])]
        x = np.stack(parts, 2)  # (judge, item, by, feature)
    else:
        x = _judge_features(ds, self_models)[:, :, None]
    x = np.concatenate([x, np.zeros((*x.shape[:-1], len(human.FEATURES)))], -1)
    judges = ds["judge"].values.tolist()
    if _has_human_ceiling(ds):
        row = np.zeros((1, *x.shape[1:]))
        row[..., _SLICES[2]] = human.features(ds["human"].values)[:, None, :]
        x = np.concatenate([x, row], 0)
        judges.append(HUMAN)
    dims = ["judge", "item", by or "_", "feature"]
    coords = {"judge": judges, "item": ds["item"].values, "feature": list(ALL_FEATURES)}
    if by is not None:
        coords[by] = ds[by].values
    arr = xr.DataArray(x, dims=dims, coords=coords).transpose("item", "judge", ..., "feature")
    return arr.squeeze("_", drop=True) if "_" in arr.dims else arr


def _groups(ds: xr.Dataset, by: str | None) -> tuple[list[str], list[str], list[list[np.ndarray]]]:
    """Benchmarks, categories and, per benchmark, the item positions of each category."""
    bench = ds["benchmark"].values
    benchmarks = list(dict.fromkeys(bench.tolist()))
    if by != "category":
        return benchmarks, [], [[np.flatnonzero(bench == b)] for b in benchmarks]
    cat = ds["category"].values
    categories = list(dict.fromkeys(cat.tolist()))
    return (
        benchmarks,
        categories,
        [[np.flatnonzero((bench == b) & (cat == c)) for c in categories] for b in benchmarks],
    )


def _check_args(metrics, protocol, by, interval, n_resamples, prob) -> list[str]:
    if protocol not in PROTOCOLS:
        raise ValueError(f"protocol={protocol!r}; choose one of {PROTOCOLS}")
    if by is not None and by not in BY:
        raise ValueError(f"by={by!r}; choose one of {BY} or None")
    if interval not in INTERVALS:
        raise ValueError(f"interval={interval!r}; choose one of {INTERVALS}")
    if interval == "bootstrap" and (int(n_resamples) != n_resamples or n_resamples < 2):
        raise ValueError(f"n_resamples={n_resamples!r}: need an integer of at least 2")
    if not 0 < prob < 1:
        raise ValueError(f"prob={prob!r}: the interval probability must lie in (0, 1)")
    if metrics is None:
        return list(METRICS)
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    unknown = [m for m in names if m not in METRICS]
    if unknown:
        raise ValueError(f"unknown metrics {unknown}; choose from {list(METRICS)}")
    return names


def compute_metrics(
    ds: xr.Dataset,
    metrics: str | Sequence[str] | None = None,
    *,
    protocol: str = "all",
    by: str | None = None,
    interval: str = "bootstrap",
    n_resamples: int = 2000,
    prob: float = 0.95,
    random_seed: int | np.random.Generator | None = None,
    self_models: Mapping[str, str | Collection[str]] | None = None,
) -> MetricsResult:
    """Compute validation metrics per judge × benchmark, with intervals.

    Parameters
    ----------
    ds : xarray.Dataset
        A Judgments dataset.
    metrics : str or sequence of str, optional
        Names from :data:`METRICS`; all by default.
    protocol : {"all", "agreement"}, default "all"
        Which judgments enter (see the module docs and :func:`select_protocol`).
    by : {"order", "run", "category"}, optional
        Also group by presentation order, run, or item category.
    interval : {"bootstrap", "fce", "none"}, default "bootstrap"
        Item-clustered percentile bootstrap; Fleiss–Cohen–Everitt Wald interval
        (kappa only); or none.
    n_resamples : int, default 2000
        Bootstrap resamples.
    prob : float, default 0.95
        Probability mass of the intervals.
    random_seed : int or numpy.random.Generator, optional
        Seed of the bootstrap.
    self_models : mapping, optional
        Judge → its own model name, or a collection of names (its family), for
        self-enhancement; a judge not in the mapping owns the model of its name.

    Returns
    -------
    MetricsResult
        Undefined metrics are NaN with a reason; nothing raises for lack of data.

    Examples
    --------
    >>> import numpy as np
    >>> from judgestats.schema import empty_judgments
    >>> ds = empty_judgments(["j"], [f"b/{i}" for i in range(4)], ["AB", "BA"], 2, ["r"])
    >>> ds = ds.assign_coords(benchmark=("item", ["b"] * 4))
    >>> ds["verdict"][:] = 0  # always A, whatever the order
    >>> ds["human"][:] = np.array([[0], [0], [1], [1]])
    >>> res = compute_metrics(ds, ["kappa", "test_retest", "position_bias"], random_seed=0)
    >>> res.value.sel(judge="j", benchmark="b").values.round(3).tolist()
    [0.0, 1.0, 0.0]
    """
    names = _check_args(metrics, protocol, by, interval, n_resamples, prob)
    prep = _prepare(ds, protocol, by, self_models)
    sums, n_items = _point_sums(prep)
    value, n, why = _evaluate(sums)
    lo = np.full(value.shape, np.nan)
    hi, se = lo.copy(), lo.copy()
    if interval == "bootstrap":
        reps = _replicates(prep, int(n_resamples), np.random.default_rng(random_seed))
        lo, hi = percentile_interval(reps, prob)
        se = replicate_sd(reps)
    elif interval == "fce":
        k = list(METRICS).index("kappa")
        # one observation per item: the orders and runs of an item are not independent
        per_item = _point_sums(prep, per_item=True)[0]
        table = formulas.confusion(per_item[..., _SLICES[0]])
        se[..., k] = formulas.cohen_kappa_se(table)
        z = NormalDist().inv_cdf((1 + prob) / 2)
        lo[..., k], hi[..., k] = value[..., k] - z * se[..., k], value[..., k] + z * se[..., k]

    # The human row has only the human metrics; judges have none of them.
    off = prep.not_applicable(value.shape)
    for arr in (value, lo, hi, se):
        arr[off] = np.nan
    n[off], n_items[off] = 0, 0
    why = np.where(off, NOT_APPLICABLE, why)
    # A cell is judged when the judge has a judgment there (the human row: a rating pair).
    is_human = prep.is_human.reshape(-1, *(1,) * (sums.ndim - 4))
    present = np.where(is_human, _feature(sums, "hp1_den"), _feature(sums, "cells")) > 0

    dims = prep.cell_dims
    data = xr.Dataset(
        {
            "value": ([*dims, "metric"], value),
            "lo": ([*dims, "metric"], lo),
            "hi": ([*dims, "metric"], hi),
            "se": ([*dims, "metric"], se),
            "n": ([*dims, "metric"], np.rint(n).astype(np.int64)),
            "n_items": ([*dims, "metric"], n_items.astype(np.int64)),
            "reason": ([*dims, "metric"], why.astype(str)),
            "judged": (dims, present),
        },
        coords=prep.coords(),
    )
    data = prep.labelled(data, names)
    data.attrs.update(
        protocol=protocol,
        by=by or "",
        interval=interval,
        prob=float(prob),
        n_resamples=int(n_resamples) if interval == "bootstrap" else 0,
        random_seed=str(random_seed) if random_seed is not None else "",
    )
    return MetricsResult(data)


def bootstrap_replicates(
    ds: xr.Dataset,
    metrics: str | Sequence[str] | None = None,
    *,
    protocol: str = "all",
    by: str | None = None,
    n_resamples: int = 2000,
    random_seed: int | np.random.Generator | None = None,
    self_models: Mapping[str, str | Collection[str]] | None = None,
) -> xr.DataArray:
    """Return the item-bootstrap replicates of every metric.

    The replicates behind :func:`compute_metrics`' intervals (the same ones for the
    same ``random_seed``), for paired comparisons: the resampled items are shared by
    all judges, so a difference or a rank computed per resample is paired.

    Parameters
    ----------
    ds : xarray.Dataset
        A Judgments dataset.
    metrics : str or sequence of str, optional
        Names from :data:`METRICS`; all by default.
    protocol, by, n_resamples, random_seed, self_models
        As in :func:`compute_metrics`.

    Returns
    -------
    xarray.DataArray
        Dims ``(resample, judge, benchmark[, category|order|run], metric)``.
    """
    names = _check_args(metrics, protocol, by, "bootstrap", n_resamples, 0.5)
    prep = _prepare(ds, protocol, by, self_models)
    reps = _replicates(prep, int(n_resamples), np.random.default_rng(random_seed))
    reps[:, prep.not_applicable(reps.shape[1:])] = np.nan
    arr = xr.DataArray(reps, dims=["resample", *prep.cell_dims, "metric"], coords=prep.coords())
    return prep.labelled(arr, names)


@dataclass(frozen=True)
class _Prepared:
    """Item features and the item groups over which they are summed."""

    x: xr.DataArray  # (item, judge[, order|run], feature)
    by: str | None
    benchmarks: list[str]
    categories: list[str]
    groups: list[list[np.ndarray]]  # per benchmark, item positions per category

    @property
    def cell_dims(self) -> list[str]:
        return ["benchmark", "_group", *map(str, self.x.dims[1:-1])]

    @property
    def is_human(self) -> np.ndarray:
        return np.array([j == HUMAN for j in self.x["judge"].values])

    def not_applicable(self, shape: tuple[int, ...]) -> np.ndarray:
        """Mask, of ``shape`` (benchmark, group, judge, ..., metric), of cells not for the row."""
        human_row = self.is_human.reshape((1, 1, -1) + (1,) * (len(shape) - 3))
        return np.broadcast_to(human_row != np.isin(list(METRICS), _HUMAN_METRICS), shape)

    def coords(self) -> dict:
        return {
            "benchmark": self.benchmarks,
            **{d: self.x[d].values for d in self.x.dims[1:-1]},
            "metric": list(METRICS),
            "description": ("metric", list(METRICS.values())),
            "unit": ("metric", [UNITS[m] for m in METRICS]),
        }

    def labelled(self, data, names: list[str]):
        """Name the group dim (or drop it), order the dims, select the metrics."""
        if self.by == "category":
            data = data.rename(_group="category").assign_coords(category=self.categories)
        else:
            data = data.squeeze("_group", drop=True)
        lead = [d for d in ("resample", "judge", "benchmark", *GROUP_DIMS) if d in data.dims]
        return data.transpose(*lead, "metric").sel(metric=names)


def _prepare(ds, protocol, by, self_models) -> _Prepared:
    x = item_feature_array(
        ds, protocol=protocol, by=by if by != "category" else None, self_models=self_models
    )
    benchmarks, categories, groups = _groups(ds, by)
    return _Prepared(x, by, benchmarks, categories, groups)


def _point_sums(prep: _Prepared, per_item: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Return summed features and items entering each metric, per (benchmark, group, ...).

    With ``per_item``, each item's features are divided by its number of judgments, so
    that an item counts once however many orders and runs it was judged in.
    """
    x = prep.x.values
    if per_item:
        cells = x[..., ALL_FEATURES.index("cells")][..., None]
        x = np.where(cells > 0, x / np.where(cells > 0, cells, 1), 0.0)
    shape = (len(prep.benchmarks), max(len(prep.categories), 1), *x.shape[1:-1])
    sums = np.zeros((*shape, x.shape[-1]))
    n_items = np.zeros((*shape, len(METRICS)))
    item_den = _families(x, "denominators") > 0  # (item, judge, ..., metric)
    for b, cats in enumerate(prep.groups):
        for c, idx in enumerate(cats):
            sums[b, c] = x[idx].sum(0)
            n_items[b, c] = item_den[idx].sum(0)
    return sums, n_items


def _replicates(prep: _Prepared, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Return bootstrap replicates of every metric: (resample, benchmark, group, ..., metric).

    Items are resampled within each benchmark; one weight matrix per benchmark serves
    every judge, group and metric.
    """
    x = prep.x.values
    shape = (len(prep.benchmarks), max(len(prep.categories), 1), *x.shape[1:-1], len(METRICS))
    reps = np.full((n_resamples, *shape), np.nan)
    for b, cats in enumerate(prep.groups):
        weights = resample_weights(sum(len(idx) for idx in cats), n_resamples, rng)
        start = 0
        for c, idx in enumerate(cats):
            w = weights[:, start : start + len(idx)]
            start += len(idx)
            if len(idx):
                reps[:, b, c] = _values(weighted_sums(w, x[idx]))
    return reps


def _shortcut(*names: str):
    """Return a function computing ``names`` with :func:`compute_metrics`."""

    def shortcut(ds: xr.Dataset, **kwargs) -> MetricsResult:
        return compute_metrics(ds, list(names), **kwargs)

    shortcut.__name__ = shortcut.__qualname__ = names[0]
    lines = "\n".join(f"    * ``{m}``: {METRICS[m]}" for m in names)
    shortcut.__doc__ = f"""Compute {", ".join(names)} per judge × benchmark, with intervals.

    {lines.strip()}

    Parameters
    ----------
    ds : xarray.Dataset
        A Judgments dataset.
    **kwargs
        Keywords of :func:`compute_metrics` (``protocol``, ``by``, ``interval``,
        ``n_resamples``, ``prob``, ``random_seed``, ``self_models``).

    Returns
    -------
    MetricsResult
    """
    return shortcut


exact_match = _shortcut("exact_match", "agreement_s1", "agreement_s2")
kappa = _shortcut("kappa", "alpha", "raw_agreement", "deflation")
position_bias = _shortcut(
    "position_bias", "position_bias_signed", "p_first", "flip_rate", "order_consistency"
)
test_retest = _shortcut("test_retest", "test_retest_share", "self_consistency", "run_agreement")
verbosity_bias = _shortcut("verbosity_bias")
self_enhancement = _shortcut("self_enhancement", "self_win_rate", "others_win_rate")
two_trial_accuracy = _shortcut("two_trial_accuracy", "both_correct")
human_agreement = _shortcut(*_HUMAN_METRICS)


def kappa_se(
    ds: xr.Dataset, *, protocol: str = "agreement", by: str | None = None, prob: float = 0.95
) -> MetricsResult:
    """Cohen's kappa with its Fleiss–Cohen–Everitt SE and Wald interval.

    The SE treats every judgment as independent. That holds for one verdict per
    item (``protocol="agreement"``, the default here); over every order and run
    (``protocol="all"``) the judgments of an item are correlated and the SE is too
    small: prefer :func:`compute_metrics`'s item bootstrap there.

    Parameters
    ----------
    ds : xarray.Dataset
        A Judgments dataset.
    protocol : {"agreement", "all"}, default "agreement"
        Which judgments enter.
    by : {"order", "run", "category"}, optional
        Also group.
    prob : float, default 0.95
        Probability mass of the interval.

    Returns
    -------
    MetricsResult
        Metric ``kappa``; ``se`` holds the FCE standard error.
    """
    return compute_metrics(ds, "kappa", protocol=protocol, by=by, interval="fce", prob=prob)
