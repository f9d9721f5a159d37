"""Builders of Judgments datasets and hypothesis strategies, for tests of judgestats code.

Used by judgestats' own test suite and offered to anyone who writes an importer, a
metric or a model on top of it: :func:`make_judgments` builds a schema-valid dataset
from a verdict array, :func:`from_table` one whose confusion table is given, and
:func:`judgments` is a `hypothesis <https://hypothesis.readthedocs.io>`_ strategy of
random datasets (hypothesis is imported only when a strategy is asked for).

Examples
--------
>>> import numpy as np
>>> from judgestats.testing import make_judgments
>>> ds = make_judgments(np.zeros((1, 3, 2, 1)), human=np.array([0, 1, 0]))
>>> dict(ds.sizes)["item"]
3
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import xarray as xr

from judgestats.schema import ORDERS, Verdict, check, empty_judgments

__all__ = ["from_table", "judgments", "make_judgments", "swap_verdicts", "verdict_codes"]

#: Every verdict code, missing included.
verdict_codes: tuple[int, ...] = tuple(int(v) for v in Verdict)


def make_judgments(
    verdict: np.ndarray,
    human: np.ndarray | None = None,
    *,
    orders: Sequence[str] = ("AB", "BA"),
    judges: Sequence[str] | None = None,
    benchmark: str | Sequence[str] = "bench",
    category: Sequence[str] | None = None,
    lengths: tuple[np.ndarray, np.ndarray] | None = None,
    models: tuple[Sequence[str], Sequence[str]] | None = None,
    label_kind: str | Sequence[str] | None = None,
) -> xr.Dataset:
    """Build a schema-valid dataset from ``verdict[judge, item, order, run]``.

    Parameters
    ----------
    verdict : array_like of int, shape (judge, item, order, run)
        :class:`~judgestats.schema.Verdict` codes in the item frame.
    human : array_like of int, shape (item,) or (item, rater), optional
        Human labels (one rater, or several).
    orders : sequence of str, default ("AB", "BA")
        Values of the ``order`` axis.
    judges : sequence of str, optional
        Judge names (``j0``, ``j1``, ... by default).
    benchmark, category, label_kind : str or sequence of str, optional
        Per-item coordinates (one value for every item, or one per item).
    lengths : (array, array), optional
        ``length_a`` and ``length_b``.
    models : (sequence, sequence), optional
        ``model_a`` and ``model_b``.

    Returns
    -------
    xarray.Dataset
        Checked with :func:`judgestats.schema.check`.

    Raises
    ------
    ValueError
        When the shapes do not agree.
    """
    v = np.asarray(verdict, dtype=np.int8)
    if v.ndim != 4 or v.shape[2] != len(orders):
        raise ValueError(
            f"verdict has shape {v.shape}; need (judge, item, order, run) with "
            f"{len(orders)} orders ({list(orders)})"
        )
    n_judges, n_items, _, n_runs = v.shape
    h = None if human is None else np.asarray(human, dtype=np.int8)
    if h is not None and h.ndim == 1:
        h = h[:, None]
    if h is not None and h.shape[0] != n_items:
        raise ValueError(f"human has {h.shape[0]} items, verdict {n_items}")
    raters = [] if h is None else [f"r{k}" for k in range(h.shape[1])]
    names = list(judges or [f"j{k}" for k in range(n_judges)])
    ds = empty_judgments(names, [f"i{k}" for k in range(n_items)], list(orders), n_runs, raters)
    ds["verdict"].values[:] = v
    if h is not None:
        ds["human"].values[:] = h

    def per_item(value: str | Sequence[str]) -> np.ndarray:
        return np.array([value] * n_items if isinstance(value, str) else list(value), dtype=str)

    coords: dict[str, Any] = {"benchmark": ("item", per_item(benchmark))}
    if category is not None:
        coords["category"] = ("item", per_item(category))
    if label_kind is not None:
        coords["label_kind"] = ("item", per_item(label_kind))
    if lengths is not None:
        coords["length_a"] = ("item", np.asarray(lengths[0], dtype=float))
        coords["length_b"] = ("item", np.asarray(lengths[1], dtype=float))
    if models is not None:
        coords["model_a"] = ("item", np.array(models[0], dtype=str))
        coords["model_b"] = ("item", np.array(models[1], dtype=str))
    return check(ds.assign_coords(coords))


def swap_verdicts(ds: xr.Dataset, first: int = 0, second: int = 1) -> xr.Dataset:
    """Return the dataset with two judges' verdicts swapped on the first half of the items.

    Every item keeps its verdict patterns, only who gave which changes: the tally's
    pattern totals over judges, and so the hierarchical tier's pattern trees, stay
    the same while each judge's counts change (a fit of the same structure).

    Parameters
    ----------
    ds : xarray.Dataset
        A Judgments dataset with at least two judges.
    first, second : int, default 0 and 1
        Positions of the two judges.

    Returns
    -------
    xarray.Dataset
    """
    verdict = ds["verdict"].transpose("judge", "item", ...)
    v = verdict.values.copy()
    half = np.arange(v.shape[1] // 2)
    v[first, half], v[second, half] = v[second, half].copy(), v[first, half].copy()
    out = ds.copy()
    out["verdict"] = (verdict.dims, v)
    return out


def from_table(
    table: np.ndarray,
    labels: Sequence[int] = (Verdict.A, Verdict.B, Verdict.TIE),
    verdicts: Sequence[int] = (Verdict.A, Verdict.B, Verdict.TIE, Verdict.INVALID),
) -> xr.Dataset:
    """Return a one-order, one-run dataset whose label × verdict table is ``table``.

    Parameters
    ----------
    table : array_like of int, shape (labels, verdicts)
        Counts: row ``i`` is label ``labels[i]``, column ``j`` verdict ``verdicts[j]``.
    labels, verdicts : sequence of int
        The codes of the rows and columns.

    Returns
    -------
    xarray.Dataset
    """
    table = np.asarray(table)
    human: list[int] = []
    verdict: list[int] = []
    for i, h in enumerate(labels[: table.shape[0]]):
        for j, v in enumerate(verdicts[: table.shape[1]]):
            human += [int(h)] * int(table[i, j])
            verdict += [int(v)] * int(table[i, j])
    return make_judgments(np.array(verdict)[None, :, None, None], np.array(human), orders=["AB"])


def judgments(
    max_judges: int = 3,
    max_items: int = 8,
    max_runs: int = 3,
    benchmarks: Sequence[str] = ("P", "Q"),
) -> Any:
    """Return a hypothesis strategy of small, schema-valid Judgments datasets.

    Verdicts (missing and invalid included), human labels (or none), orders (one of
    ``AB``, ``BA``, ``unknown``, or both ``AB`` and ``BA``) and benchmarks are drawn;
    every dataset has at least one verdict.

    Parameters
    ----------
    max_judges, max_items, max_runs : int
        Upper bounds of the axes.
    benchmarks : sequence of str
        Benchmark names items are drawn from.

    Returns
    -------
    hypothesis.strategies.SearchStrategy of xarray.Dataset
    """
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp

    order_sets = st.sampled_from([("AB", "BA"), ("AB",), ("unknown",), ORDERS[:2]])

    @st.composite
    def build(draw: Any) -> xr.Dataset:
        orders = draw(order_sets)
        shape = (
            draw(st.integers(1, max_judges)),
            draw(st.integers(1, max_items)),
            len(orders),
            draw(st.integers(1, max_runs)),
        )
        v = draw(hnp.arrays(np.int8, shape, elements=st.sampled_from(verdict_codes)))
        v.flat[0] = Verdict.A  # at least one verdict
        labels = st.sampled_from([Verdict.A, Verdict.B, Verdict.TIE, Verdict.MISSING])
        human = draw(hnp.arrays(np.int8, (shape[1],), elements=labels))
        bench = draw(st.lists(st.sampled_from(list(benchmarks)), min_size=shape[1],
                              max_size=shape[1]))  # fmt: skip
        return make_judgments(v, human, orders=orders, benchmark=bench)

    return build()
