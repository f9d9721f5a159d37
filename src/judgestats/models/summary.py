"""Summaries and diagnostics of a posterior DataTree.

:func:`summarize` gives one row per quantity and coordinate (judge, benchmark, pair)
with mean, median, sd, an equal-tailed interval of configurable probability,
P(threshold met) where a threshold applies, and the diagnostics R-hat, bulk ESS and
tail ESS. :func:`diagnose` lists every failed diagnostic in words; models turn each
into a :class:`ConvergenceWarning` and keep them in the tree's ``warnings`` attr so
that reports show them.

Which library computes which column, and why
--------------------------------------------
The columns are those of ``arviz_stats.summary(tree, kind="stats", ci_kind="eti",
skipna=True)`` and give the same numbers (tested against it): mean, sd with
``ddof=1``, and the ETI as :func:`numpy.nanquantile`'s linear interpolation.
``p_threshold`` is the only statistic of our own. Each column has one function, in
every tier:

- R-hat, bulk and tail ESS: :mod:`judgestats.models.diagnostics`, the computation of
  ``arviz_stats.rhat`` and ``arviz_stats.ess`` over every cell at once (tested equal
  to them); ``arviz_stats`` loops over cells, which took 25 s for a hierarchical fit
  of LLMBar. Tail ESS is at the 5% and 95% quantiles (Vehtari et al. 2021), where
  ``arviz_stats`` reads its ``stats.ci_prob`` rcParam (0.89).
- mean, sd: xarray's NaN-skipping reductions; median and interval bounds:
  :func:`sample_quantiles`, one sort for every cell. Not ``arviz_stats``, because the
  exact tier (``report --fast``) never imports it otherwise. Measured on LLMBar's
  exact posterior (65 judges x 8 benchmarks, 2 x 1,000 draws, 2 loaded cores):
  importing ``arviz_stats`` after judgestats took 0.9 to 2.9 s (1.5 s in the run
  that also timed the rest), and its ``summary(kind="stats", skipna=True)`` 1.4 s
  against 0.8 s for the whole of :func:`summarize`: 2.1 s more on a path whose
  target is 10 s.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import xarray as xr

from judgestats.metrics.formulas import REGISTRY
from judgestats.thresholds import PAPER

__all__ = [
    "DEFAULT_THRESHOLDS",
    "HYPER_ATTR",
    "MAX_RHAT",
    "MIN_ESS",
    "REPORTED",
    "diagnose",
    "ess_floor",
    "reported_metrics",
    "sample_quantiles",
    "summarize",
]

#: Quantity → (direction, value): P(quantity ``direction`` value) is reported.
DEFAULT_THRESHOLDS: dict[str, tuple[str, float]] = {
    "position_bias": ("<", PAPER.max_position_bias),
    "test_retest": (">", PAPER.paradox_test_retest),
    "kappa": (">", PAPER.min_kappa),
    "invalid_rate": ("<", PAPER.max_invalid_rate),
}


def reported_metrics() -> tuple[str, ...]:
    """Return the metrics declared ``reported`` in the registry (live)."""
    return tuple(name for name, m in REGISTRY.items() if m.reported)


#: The built-in reported metrics: whose diagnostics decide whether a fit is healthy.
REPORTED: tuple[str, ...] = reported_metrics()

_SAMPLE = ("chain", "draw")
#: Attr marking a posterior variable as a hyper-parameter of a sampler (diagnosed).
HYPER_ATTR = "hyper_parameter"
MIN_ESS = 400
MAX_RHAT = 1.01


def ess_floor(n_samples: int) -> float:
    """Return the bulk ESS a quantity needs, given the number of draws.

    :data:`MIN_ESS`, but at most half of what was drawn: independent draws (the exact
    tier) have an ESS near their number, and a short run is not flagged for being
    short. Read by :func:`diagnose`, the MVVP check and the report alike.
    """
    return float(min(MIN_ESS, n_samples / 2))


#: Diagnostics of recent draws by a digest of their values: a report computes them
#: for the fit's warnings and again for its summary, of the same draws.
_SEEN: OrderedDict[bytes, tuple[np.ndarray, ...]] = OrderedDict()
_SEEN_SIZE = 64
_SEEN_LOCK = threading.Lock()


def _cell_diagnostics(values: np.ndarray) -> tuple[np.ndarray, ...]:
    """R-hat, bulk and tail ESS of ``(..., chain, draw)`` draws, once per content."""
    # scipy.stats takes a second to import: only a sampler's posterior needs it
    from judgestats.models.diagnostics import diagnostics

    values = np.ascontiguousarray(values)
    digest = hashlib.blake2b(memoryview(values).cast("B"), digest_size=16)
    digest.update(repr((values.shape, values.dtype.str)).encode())
    key = digest.digest()
    with _SEEN_LOCK:
        found = _SEEN.get(key)
        if found is not None:
            _SEEN.move_to_end(key)
    if found is None:
        found = tuple(diagnostics(values))
        with _SEEN_LOCK:
            _SEEN[key] = found
            while len(_SEEN) > _SEEN_SIZE:
                _SEEN.popitem(last=False)
    return tuple(v.copy() for v in found)


def _diagnostics(ds: xr.Dataset) -> tuple[xr.Dataset, xr.Dataset, xr.Dataset]:
    """R-hat, bulk ESS and tail ESS of every variable (NaN where the draws are constant)."""
    if ds.sizes.get("chain", 1) * ds.sizes.get("draw", 1) < 4:
        nan = ds.isel(chain=0, draw=0, drop=True) * np.nan
        return nan, nan, nan
    out: tuple[dict, dict, dict] = ({}, {}, {})
    for name, da in ds.data_vars.items():
        other = [d for d in da.dims if d not in _SAMPLE]
        values = da.transpose(*other, *_SAMPLE).values
        values = np.where(np.isnan(values), 0.0, values)  # a draw where it is undefined
        for store, value in zip(out, _cell_diagnostics(values), strict=True):
            store[name] = (other, value)
    coords = {k: v for k, v in ds.coords.items() if not set(v.dims) & set(_SAMPLE)}
    rhat, ess_bulk, ess_tail = (xr.Dataset(o, coords=coords) for o in out)
    return rhat, ess_bulk, ess_tail


def _lerp(a: np.ndarray, b: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Linear interpolation exactly as :func:`numpy.quantile` does it (stable near ``b``)."""
    diff = b - a
    out = a + diff * t
    high = t >= 0.5
    out[high] = (b - diff * (1 - t))[high]
    return out


def sample_quantiles(values: np.ndarray, probs: Sequence[float]) -> np.ndarray:
    """Quantiles over the last axis, NaNs dropped: :func:`numpy.nanquantile`, vectorised.

    One sort for every cell at once instead of one call per cell; the same linear
    interpolation (and the same floating-point operations) as numpy, so the numbers are
    identical.

    Parameters
    ----------
    values : ndarray, shape (..., sample)
    probs : sequence of float

    Returns
    -------
    ndarray, shape (len(probs), ...)
        NaN where a cell has no finite draw.
    """
    x = np.sort(np.asarray(values, dtype=float), axis=-1)  # NaN sorts last
    n = (~np.isnan(x)).sum(-1, keepdims=True)
    last = np.maximum(n - 1, 0)
    out = []
    for q in probs:
        virtual = (n - 1) * float(q)
        floor = np.floor(virtual)
        prev = np.where(virtual >= n - 1, last, floor).astype(np.intp)
        nxt = np.where(virtual >= n - 1, last, floor + 1).astype(np.intp)
        a = np.take_along_axis(x, np.maximum(prev, 0), -1)
        b = np.take_along_axis(x, np.maximum(nxt, 0), -1)
        value = _lerp(a, b, virtual - floor)[..., 0]
        out.append(np.where(n[..., 0] > 0, value, np.nan))
    return np.stack(out)


def _quantiles(ds: xr.Dataset, probs: Sequence[float]) -> xr.Dataset:
    """:meth:`xarray.Dataset.quantile` over chain and draw, through :func:`sample_quantiles`."""
    out = {}
    for name, da in ds.data_vars.items():
        other = [d for d in da.dims if d not in _SAMPLE]
        flat = da.transpose(*other, *_SAMPLE).values.reshape(*(da.sizes[d] for d in other), -1)
        out[name] = (("quantile", *other), sample_quantiles(flat, probs))
    return xr.Dataset(out, coords={"quantile": list(probs)})


def _constant(da: xr.DataArray) -> xr.DataArray:
    return (da.max(_SAMPLE) - da.min(_SAMPLE)) == 0


def diagnose(tree: xr.DataTree, names: Sequence[str] | None = None) -> list[str]:
    """List failed diagnostics of a posterior in words.

    Parameters
    ----------
    tree : xarray.DataTree
        A posterior made by a judgestats model.
    names : sequence of str
        Quantities checked (default: every reported metric, :func:`reported_metrics`,
        and every hyper-parameter of the sampler: a variable with the attr
        :data:`HYPER_ATTR`; judges' metrics can look converged while the pooling
        that shapes them has not).

    Returns
    -------
    list of str
        Empty when R-hat <= 1.01 and bulk ESS >= 400 everywhere and no draw diverged.
        A posterior without a sampler (the exact tier: independent, exact draws; no
        ``sample_stats`` group) has nothing to diagnose.
    """
    if "sample_stats" not in tree.children:
        return []
    post = tree["posterior"].to_dataset()
    if names is None:  # the reported metrics and the sampler's hyper-parameters
        names = [*reported_metrics(), *(str(n) for n in post if post[n].attrs.get(HYPER_ATTR))]
    names = [n for n in names if n in post]
    problems: list[str] = []
    if "sample_stats" in tree.children and "diverging" in tree["sample_stats"]:
        n_div = int(tree["sample_stats"]["diverging"].sum())
        if n_div:
            problems.append(f"{n_div} divergent transitions: the posterior may be biased")
    sub = post[names]
    rhat, ess_bulk, _ = _diagnostics(sub)
    min_ess = ess_floor(sub.sizes.get("chain", 1) * sub.sizes.get("draw", 1))
    for name in names:
        const = _constant(sub[name]) | sub[name].isnull().all(_SAMPLE)
        bad_r = (rhat[name] > MAX_RHAT) & ~const
        bad_e = (ess_bulk[name] < min_ess) & ~const
        if bool(bad_r.any()):
            problems.append(
                f"{name}: R-hat up to {float(rhat[name].where(~const).max()):.3f}"
                f" (> {MAX_RHAT}) for {int(bad_r.sum())} of {bad_r.size} cells"
            )
        if bool(bad_e.any()):
            problems.append(
                f"{name}: bulk ESS down to {float(ess_bulk[name].where(~const).min()):.0f}"
                f" (< {min_ess:.0f}) for {int(bad_e.sum())} of {bad_e.size} cells"
            )
    return problems


def summarize(
    tree: xr.DataTree,
    var_names: Sequence[str] | None = None,
    prob: float = 0.95,
    thresholds: Mapping[str, tuple[str, float]] | None = None,
    diagnostics: bool | None = None,
) -> pd.DataFrame:
    """Summarise a posterior: one row per quantity and coordinate.

    Parameters
    ----------
    tree : xarray.DataTree
        A posterior made by a judgestats model (or loaded from its netCDF).
    var_names : sequence of str, optional
        Quantities to include; default every posterior variable.
    prob : float, default 0.95
        Probability of the equal-tailed interval (columns ``lo`` and ``hi``).
    thresholds : mapping, optional
        ``{quantity: (">" or "<", value)}``; adds ``threshold`` and ``p_threshold``
        (posterior probability that the quantity is on that side). Defaults to
        :data:`DEFAULT_THRESHOLDS`.
    diagnostics : bool, optional
        Compute R-hat and ESS (:mod:`judgestats.models.diagnostics`). By default only
        for a posterior drawn by a sampler (with ``sample_stats``): the exact tier's draws are
        independent and exact, and the diagnostics would cost more than the fit.

    Returns
    -------
    pandas.DataFrame
        Columns ``variable``, the coordinate columns (``judge``, ``benchmark``,
        ``benchmark_pair``), ``mean``, ``median``, ``sd`` (``ddof=1``, as
        ``arviz_stats``), ``lo``, ``hi``, ``prob``, ``threshold``, ``p_threshold``,
        ``r_hat``, ``ess_bulk``, ``ess_tail``. NaN draws (a quantity undefined in a
        draw) are left out of every statistic.
    """
    if not 0 < prob < 1:
        raise ValueError(f"prob={prob}; must be strictly between 0 and 1")
    thresholds = dict(DEFAULT_THRESHOLDS if thresholds is None else thresholds)
    for name, (op, _) in thresholds.items():
        if op not in ("<", ">"):
            raise ValueError(f"thresholds[{name!r}] direction {op!r}; use '<' or '>'")
    post = tree["posterior"].to_dataset()
    names = (
        list(var_names)
        if var_names is not None
        else [n for n in post.data_vars if set(_SAMPLE) <= set(post[n].dims)]
    )
    missing = [n for n in names if n not in post]
    if missing:
        available = sorted(map(str, post.data_vars))
        raise ValueError(f"no posterior quantity {missing}; available: {available}")
    sub = post[names]
    if diagnostics is None:
        diagnostics = "sample_stats" in tree.children
    if diagnostics:
        rhat, ess_bulk, ess_tail = _diagnostics(sub)
    else:
        rhat = ess_bulk = ess_tail = sub.isel(chain=0, draw=0, drop=True) * np.nan
    q = _quantiles(sub, [(1 - prob) / 2, 0.5, (1 + prob) / 2])
    frames = []
    for name in map(str, names):
        da = sub[name]
        stats = {
            "mean": da.mean(_SAMPLE, skipna=True),
            "median": q[name].isel(quantile=1, drop=True),
            "sd": da.std(_SAMPLE, skipna=True, ddof=1),
            "lo": q[name].isel(quantile=0, drop=True),
            "hi": q[name].isel(quantile=2, drop=True),
            "r_hat": rhat[name],
            "ess_bulk": ess_bulk[name],
            "ess_tail": ess_tail[name],
        }
        if name in thresholds:
            op, value = thresholds[name]
            side = (da < value) if op == "<" else (da > value)
            stats["p_threshold"] = side.where(da.notnull()).mean(_SAMPLE, skipna=True)
        stats_ds = xr.Dataset(stats)
        if not stats_ds.dims:  # a scalar quantity (max_rank_shift): one row
            stats_ds = stats_ds.expand_dims("_row")
        frame = stats_ds.to_dataframe().reset_index()
        frame = frame.drop(columns=[c for c in ("_row",) if c in frame])
        frame = frame.drop(columns=[c for c in ("quantile",) if c in frame])
        frame.insert(0, "variable", name)
        frame["prob"] = prob
        frame["threshold"] = (
            f"{thresholds[name][0]} {thresholds[name][1]:g}" if name in thresholds else ""
        )
        frames.append(frame)
    out = pd.concat(frames, ignore_index=True)
    coord_cols = [c for c in ("judge", "benchmark", "benchmark_pair") if c in out]
    cols = [
        "variable",
        *coord_cols,
        "mean",
        "median",
        "sd",
        "lo",
        "hi",
        "prob",
        "threshold",
        "p_threshold",
        "r_hat",
        "ess_bulk",
        "ess_tail",
    ]
    if "p_threshold" not in out:
        out["p_threshold"] = np.nan
    out.attrs["warnings"] = json.loads(tree.attrs.get("warnings", "[]"))
    return out[cols]
