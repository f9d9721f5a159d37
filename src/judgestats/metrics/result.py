"""The typed result of the closed-form metrics."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

__all__ = ["GROUP_DIMS", "NOT_APPLICABLE", "RECORD_FIELDS", "MetricsResult", "json_scalar"]

#: Reason given where a metric does not apply to a row.
NOT_APPLICABLE = "not applicable: human-ceiling metrics are for the human raters only"

#: Dimensions a result may have besides ``judge``, ``benchmark`` and ``metric``.
GROUP_DIMS: tuple[str, ...] = ("category", "order", "run")

#: Fields of every record, in order (a grouping dimension is added after ``benchmark``).
RECORD_FIELDS: tuple[str, ...] = (
    "judge",
    "benchmark",
    "metric",
    "value",
    "lo",
    "hi",
    "n",
    "n_items",
    "unit",
    "reason",
)

_NUMBERS = ("value", "lo", "hi", "se")


@dataclass(frozen=True)
class MetricsResult:
    """Metric values with intervals, per judge × benchmark (× group) × metric.

    Attributes
    ----------
    data : xarray.Dataset
        Dims ``judge``, ``benchmark``, ``metric`` and, when grouped, one of
        ``category``, ``order``, ``run``. Variables: ``value``; ``lo``, ``hi`` (the
        interval; NaN without one); ``se`` (bootstrap standard deviation, or the
        Fleiss–Cohen–Everitt SE of kappa); ``n`` (the count in the metric's
        denominator, of what the ``unit`` coordinate names); ``n_items`` (items that enter it);
        ``reason`` (why a value is NaN, ``""`` where it is defined); ``judged``
        (whether the judge has any judgment in the cell). Coordinates
        ``description`` and ``unit`` on ``metric``; attrs ``protocol``, ``by``,
        ``interval``, ``prob``, ``n_resamples``, ``random_seed``.

    Examples
    --------
    >>> import numpy as np
    >>> from judgestats.schema import empty_judgments
    >>> from judgestats.metrics import compute_metrics
    >>> ds = empty_judgments(["j"], ["b/1", "b/2"], ["AB", "BA"], 1, ["r"])
    >>> ds = ds.assign_coords(benchmark=("item", ["b", "b"]))
    >>> ds["verdict"][:] = [[[[0], [0]], [[1], [0]]]]
    >>> ds["human"][:] = [[0], [1]]
    >>> res = compute_metrics(ds, ["exact_match", "flip_rate"], interval="none")
    >>> float(res.sel(judge="j", benchmark="b", metric="exact_match").value)
    0.75
    """

    data: xr.Dataset

    @property
    def value(self) -> xr.DataArray:
        """The metric values."""
        return self.data["value"]

    @property
    def lo(self) -> xr.DataArray:
        """Lower bounds of the intervals."""
        return self.data["lo"]

    @property
    def hi(self) -> xr.DataArray:
        """Upper bounds of the intervals."""
        return self.data["hi"]

    @property
    def reason(self) -> xr.DataArray:
        """Why each value is undefined (``""`` where it is defined)."""
        return self.data["reason"]

    @property
    def metrics(self) -> list[str]:
        """The metrics held."""
        return np.atleast_1d(self.data["metric"].values).tolist()

    def sel(self, indexers: dict[str, Any] | None = None, **kwargs: Any) -> MetricsResult:
        """Select by label, as :meth:`xarray.Dataset.sel`; returns a result.

        Parameters
        ----------
        indexers : dict, optional
            Dimension name → label(s).
        **kwargs
            The same as keywords, e.g. ``judge="gpt-4", metric="kappa"``.

        Returns
        -------
        MetricsResult
        """
        return MetricsResult(self.data.sel(indexers, **kwargs))

    def to_frame(self, *, skip_empty: bool = True) -> pd.DataFrame:
        """Return one row per judge × benchmark (× group) × metric.

        Parameters
        ----------
        skip_empty : bool, default True
            Leave out cells without data: a judge that never judged a benchmark
            (or an empty category), and metrics that do not apply to a row
            (human-ceiling metrics of a judge, judge metrics of the human raters).
            Undefined metrics of judged cells are kept, with their reason.

        Returns
        -------
        pandas.DataFrame
            Columns :data:`RECORD_FIELDS` (plus the grouping dimension and ``se``).
        """
        ds = self.data
        for dim in ("judge", "benchmark", *GROUP_DIMS, "metric"):
            if dim in ds.coords and dim not in ds.dims:
                ds = ds.expand_dims(dim)
        group = [d for d in GROUP_DIMS if d in ds.dims]
        order = ["judge", "benchmark", *group, "metric"]
        names = ["value", "lo", "hi", "se", "n", "n_items", "reason", "judged"]
        frame = ds[names].transpose(*order)
        df = frame.to_dataframe().reset_index()
        if skip_empty:
            df = df[df["judged"] & (df["reason"] != NOT_APPLICABLE)]
        columns = ["judge", "benchmark", *group, *RECORD_FIELDS[2:], "se"]
        return df[columns].reset_index(drop=True)

    def to_records(self, *, skip_empty: bool = True) -> list[dict[str, Any]]:
        """Return the rows of :meth:`to_frame` as JSON-ready dicts.

        NaN becomes ``None``; ``n`` and ``n_items`` are integers.

        Parameters
        ----------
        skip_empty : bool, default True
            As in :meth:`to_frame`.

        Returns
        -------
        list of dict
            Keys :data:`RECORD_FIELDS` (plus the grouping dimension and ``se``).
        """
        records = self.to_frame(skip_empty=skip_empty).to_dict(orient="records")
        return [{str(k): json_scalar(v) for k, v in rec.items()} for rec in records]

    def __repr__(self) -> str:
        dims = ", ".join(f"{k}: {v}" for k, v in self.data.sizes.items())
        attrs = self.data.attrs
        return (
            f"<MetricsResult ({dims}) protocol={attrs.get('protocol')!r} "
            f"interval={attrs.get('interval')!r} prob={attrs.get('prob')}>"
        )


def json_scalar(value: Any) -> Any:
    """Return a JSON-ready scalar: Python numbers and strings, NaN as None."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value
