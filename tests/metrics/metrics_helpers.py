"""Helpers of the metric tests: small Judgments datasets built by hand."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import xarray as xr

from judgestats.schema import Verdict, check, empty_judgments

A, B, TIE, INVALID, MISSING = Verdict.A, Verdict.B, Verdict.TIE, Verdict.INVALID, Verdict.MISSING


def make_ds(
    verdict: np.ndarray,
    human: np.ndarray | None = None,
    *,
    orders: Sequence[str] = ("AB", "BA"),
    judges: Sequence[str] | None = None,
    benchmark: str | Sequence[str] = "bench",
    category: Sequence[str] | None = None,
    lengths: tuple[np.ndarray, np.ndarray] | None = None,
    models: tuple[Sequence[str], Sequence[str]] | None = None,
) -> xr.Dataset:
    """Build a schema-valid dataset from ``verdict[judge, item, order, run]``.

    ``human`` is ``(item,)`` (one rater) or ``(item, rater)``.
    """
    v = np.asarray(verdict, dtype=np.int8)
    n_judges, n_items, n_orders, n_runs = v.shape
    assert n_orders == len(orders)
    h = None if human is None else np.asarray(human, dtype=np.int8)
    if h is not None and h.ndim == 1:
        h = h[:, None]
    raters = [] if h is None else [f"r{k}" for k in range(h.shape[1])]
    judges = list(judges or [f"j{k}" for k in range(n_judges)])
    ds = empty_judgments(judges, [f"i{k}" for k in range(n_items)], list(orders), n_runs, raters)
    ds["verdict"].values[:] = v
    if h is not None:
        ds["human"].values[:] = h
    bench = [benchmark] * n_items if isinstance(benchmark, str) else list(benchmark)
    coords = {"benchmark": ("item", np.array(bench, dtype=str))}
    if category is not None:
        coords["category"] = ("item", np.array(category, dtype=str))
    if lengths is not None:
        coords["length_a"] = ("item", np.asarray(lengths[0], dtype=float))
        coords["length_b"] = ("item", np.asarray(lengths[1], dtype=float))
    if models is not None:
        coords["model_a"] = ("item", np.array(models[0], dtype=str))
        coords["model_b"] = ("item", np.array(models[1], dtype=str))
    return check(ds.assign_coords(coords))


def from_table(table: np.ndarray, labels=(A, B, TIE), verdicts=(A, B, TIE, INVALID)):
    """One-order, one-run dataset whose label × verdict confusion table is ``table``."""
    table = np.asarray(table)
    human, verdict = [], []
    for i, h in enumerate(labels[: table.shape[0]]):
        for j, v in enumerate(verdicts[: table.shape[1]]):
            human += [h] * int(table[i, j])
            verdict += [v] * int(table[i, j])
    v = np.array(verdict)[None, :, None, None]
    return make_ds(v, np.array(human), orders=["AB"])


def value(result, metric: str, **sel) -> float:
    """The value of one metric of a one-judge, one-benchmark result."""
    return float(result.sel(metric=metric, **sel).value.squeeze())


def reason_of(result, metric: str, **sel) -> str:
    """The reason of one metric of a one-judge, one-benchmark result."""
    return str(result.sel(metric=metric, **sel).reason.squeeze().item())
