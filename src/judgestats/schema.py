"""The Judgments dataset: one schema that every importer produces and every analysis reads.

A Judgments dataset is an :class:`xarray.Dataset` with

* dims ``judge``, ``item``, ``order`` and ``run`` (and ``rater`` for human labels);
* ``verdict[judge, item, order, run]`` (int8), always in the *item frame*: which of the
  item's two responses won, whatever position it was shown in. Codes are
  :class:`Verdict` members, documented CF-style in the variable's attrs;
* ``human[item, rater]`` (int8): human or gold labels with the same codes;
* per-item coordinates ``benchmark``, ``category``, ``label_kind``, ``length_a``,
  ``length_b``, ``model_a``, ``model_b``;
* ``order`` values ``"AB"`` (original presentation), ``"BA"`` (swapped) and
  ``"unknown"`` (the source does not record what was shown first);
* attrs ``judgestats_schema`` (version), ``sources`` and ``accounting`` (JSON text).

Inside the package the schema is trusted; it is checked where data enters, with
:func:`validate` (every problem as a list) or :func:`check` (raises).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from judgestats.errors import SchemaError

__all__ = [
    "DIMS",
    "ITEM_COORDS",
    "LABEL_KINDS",
    "ORDERS",
    "SCHEMA_VERSION",
    "Verdict",
    "check",
    "empty_judgments",
    "validate",
    "verdict_attrs",
]

SCHEMA_VERSION = "1"

#: Dimension names of ``verdict``, in storage order.
DIMS: tuple[str, str, str, str] = ("judge", "item", "order", "run")

#: Allowed values of the ``order`` coordinate.
ORDERS: tuple[str, str, str] = ("AB", "BA", "unknown")

#: Allowed values of the ``label_kind`` item coordinate.
LABEL_KINDS: tuple[str, str, str] = ("preference", "correctness", "unlabelled")

#: Per-item coordinates, with their dtype kind and fill value.
ITEM_COORDS: dict[str, tuple[str, Any]] = {
    "benchmark": ("U", ""),
    "category": ("U", ""),
    "label_kind": ("U", "unlabelled"),
    "length_a": ("f", np.nan),
    "length_b": ("f", np.nan),
    "model_a": ("U", ""),
    "model_b": ("U", ""),
}


class Verdict(IntEnum):
    """Codes of ``verdict`` and ``human``, in the item frame.

    ``MISSING`` means the judgment was never asked (or not in the logs);
    ``INVALID`` means it was asked and the output could not be parsed. An invalid
    verdict is data about the judge and is never treated as missing.
    """

    MISSING = -1
    A = 0
    B = 1
    TIE = 2
    INVALID = 3

    @classmethod
    def parse(cls, value: str | int | Verdict) -> Verdict:
        """Return the member for a code or a case-insensitive name.

        Parameters
        ----------
        value : str, int or Verdict
            ``"A"``, ``"b"``, ``"tie"``, ``2``, ...

        Returns
        -------
        Verdict

        Raises
        ------
        ValueError
            If ``value`` names no verdict.
        """
        if isinstance(value, Verdict):
            return value
        if isinstance(value, (int, np.integer)):
            return cls(int(value))
        try:
            return cls[str(value).strip().upper()]
        except KeyError:
            names = ", ".join(m.name for m in cls)
            raise ValueError(f"unknown verdict {value!r}; expected one of {names}") from None


def verdict_attrs(long_name: str) -> dict[str, Any]:
    """CF-style attrs that document the verdict codes.

    Parameters
    ----------
    long_name : str
        Human-readable description of the variable.

    Returns
    -------
    dict
        ``long_name``, ``flag_values`` and ``flag_meanings``.
    """
    return {
        "long_name": long_name,
        "flag_values": np.array([m.value for m in Verdict], dtype=np.int8),
        "flag_meanings": " ".join(m.name.lower() for m in Verdict),
        "frame": "item (A and B are the item's two responses, not presentation slots)",
    }


def empty_judgments(
    judges: list[str],
    items: list[str],
    orders: list[str],
    runs: int,
    raters: list[str] | None = None,
) -> xr.Dataset:
    """Return a schema-valid dataset whose verdicts and labels are all missing.

    Parameters
    ----------
    judges, items : list of str
        Coordinate values of ``judge`` and ``item``.
    orders : list of str
        A subset of :data:`ORDERS`.
    runs : int
        Number of replicate runs (``run`` is ``0 .. runs - 1``).
    raters : list of str, optional
        Coordinate values of ``rater``; none by default.

    Returns
    -------
    xarray.Dataset
    """
    raters = list(raters or [])
    shape = (len(judges), len(items), len(orders), runs)
    verdict = np.full(shape, Verdict.MISSING, dtype=np.int8)
    human = np.full((len(items), len(raters)), Verdict.MISSING, dtype=np.int8)
    coords: dict[str, Any] = {
        "judge": np.asarray(judges, dtype=str),
        "item": np.asarray(items, dtype=str),
        "order": np.asarray(orders, dtype=str),
        "run": np.arange(runs, dtype=np.int64),
        "rater": np.asarray(raters, dtype=str),
    }
    for name, (kind, fill) in ITEM_COORDS.items():
        coords[name] = ("item", np.full(len(items), fill if kind == "f" else str(fill)))
    ds = xr.Dataset(
        {
            "verdict": (DIMS, verdict, verdict_attrs("judge verdict")),
            "human": (("item", "rater"), human, verdict_attrs("human or gold label")),
        },
        coords=coords,
    )
    ds.attrs.update(
        judgestats_schema=SCHEMA_VERSION,
        sources=json.dumps([]),
        accounting=json.dumps({}),
    )
    return ds


@dataclass(frozen=True)
class Problem:
    """One way in which a dataset breaks the schema."""

    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


def _codes_problems(ds: xr.Dataset, name: str, allowed: set[int]) -> list[Problem]:
    values = ds[name].values
    if values.dtype.kind not in "iu":
        return [Problem(name, f"dtype {values.dtype} is not an integer type")]
    if values.size:
        # Codes between the smallest and largest allowed, all allowed: nothing to list
        # (two reductions instead of sorting every cell).
        low, high = int(values.min()), int(values.max())
        if high - low < len(allowed) and allowed >= set(range(low, high + 1)):
            return []
    bad = np.setdiff1d(np.unique(values), np.fromiter(allowed, dtype=np.int64))
    if bad.size:
        return [Problem(name, f"codes {bad.tolist()} are not in {sorted(allowed)}")]
    return []


def _unique_problems(ds: xr.Dataset, dim: str) -> list[Problem]:
    values = ds[dim].values
    if pd.Index(values).is_unique:  # hashed: faster than sorting text
        return []
    uniq, counts = np.unique(values, return_counts=True)
    dup = uniq[counts > 1]
    if dup.size:
        return [Problem(dim, f"duplicate coordinate values {dup[:5].tolist()}")]
    return []


def validate(ds: xr.Dataset) -> list[Problem]:
    """List every way in which ``ds`` breaks the Judgments schema.

    Parameters
    ----------
    ds : xarray.Dataset
        The dataset to check.

    Returns
    -------
    list of Problem
        Empty when the dataset is valid.

    Examples
    --------
    >>> from judgestats.schema import empty_judgments, validate
    >>> validate(empty_judgments(["j"], ["i"], ["AB", "BA"], 1))
    []
    """
    problems: list[Problem] = []
    if "verdict" not in ds:
        return [Problem("verdict", "variable is missing")]
    if ds["verdict"].dims != DIMS:
        problems.append(Problem("verdict", f"dims {ds['verdict'].dims} are not {DIMS}"))
    problems += _codes_problems(ds, "verdict", {int(m) for m in Verdict})
    if "human" not in ds:
        problems.append(Problem("human", "variable is missing"))
    else:
        if ds["human"].dims != ("item", "rater"):
            problems.append(Problem("human", f"dims {ds['human'].dims} are not ('item', 'rater')"))
        problems += _codes_problems(ds, "human", {int(m) for m in Verdict})
    for dim in ("judge", "item", "order", "run"):
        if dim in ds.coords:
            problems += _unique_problems(ds, dim)
    bad_orders = sorted(set(ds["order"].values.tolist()) - set(ORDERS)) if "order" in ds else []
    if bad_orders:
        problems.append(Problem("order", f"values {bad_orders} are not in {ORDERS}"))
    for name, (kind, _) in ITEM_COORDS.items():
        if name not in ds.coords:
            problems.append(Problem(name, "item coordinate is missing"))
        elif ds[name].dims != ("item",):
            problems.append(Problem(name, f"dims {ds[name].dims} are not ('item',)"))
        elif kind == "f" and ds[name].dtype.kind != "f":
            problems.append(Problem(name, f"dtype {ds[name].dtype} is not floating"))
    if "label_kind" in ds.coords:
        kinds = sorted(set(ds["label_kind"].values.tolist()) - set(LABEL_KINDS))
        if kinds:
            problems.append(Problem("label_kind", f"values {kinds} are not in {LABEL_KINDS}"))
    if "benchmark" in ds.coords and np.any(ds["benchmark"].values == ""):
        n = int(np.sum(ds["benchmark"].values == ""))
        problems.append(Problem("benchmark", f"{n} items have no benchmark"))
    for key in ("sources", "accounting"):
        try:
            json.loads(ds.attrs.get(key, "null"))
        except (TypeError, ValueError):
            problems.append(Problem(f"attrs[{key!r}]", "is not JSON text"))
    return problems


def check(ds: xr.Dataset) -> xr.Dataset:
    """Raise :class:`~judgestats.errors.SchemaError` if ``ds`` breaks the schema.

    Parameters
    ----------
    ds : xarray.Dataset
        The dataset to check.

    Returns
    -------
    xarray.Dataset
        ``ds`` itself, so that the call can be chained.

    Raises
    ------
    SchemaError
        Listing every problem found by :func:`validate`.
    """
    problems = validate(ds)
    if problems:
        lines = "\n  ".join(str(p) for p in problems)
        raise SchemaError(f"not a valid Judgments dataset:\n  {lines}")
    return ds
