"""The ``ds.judgestats`` accessor: metric functions as methods of a Judgments dataset.

Every method only delegates to the function of the same name in
:mod:`judgestats.metrics` (or :func:`judgestats.tally.tally`), with the dataset as
first argument. Importing :mod:`judgestats.metrics` registers the accessor.

Examples
--------
>>> import numpy as np
>>> import judgestats.metrics  # noqa: F401  (registers the accessor)
>>> from judgestats.schema import empty_judgments
>>> ds = empty_judgments(["j"], ["b/1", "b/2"], ["AB"], 1, ["r"])
>>> ds = ds.assign_coords(benchmark=("item", ["b", "b"]))
>>> ds["verdict"][:] = [[[[0]], [[1]]]]
>>> ds["human"][:] = [[0], [0]]
>>> float(ds.judgestats.kappa(interval="none").value.sel(metric="deflation").squeeze())
0.5
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import xarray as xr

from judgestats.metrics import api
from judgestats.tally import Tally, tally

__all__ = ["JudgestatsAccessor"]


def _delegate(fn: Callable[..., Any]) -> Callable[..., Any]:
    def method(self: JudgestatsAccessor, *args: Any, **kwargs: Any) -> Any:
        return fn(self._ds, *args, **kwargs)

    method.__name__ = method.__qualname__ = fn.__name__
    summary = (fn.__doc__ or "").strip().splitlines()[0]
    method.__doc__ = (
        f"{summary}\n\nSee :func:`{fn.__module__}.{fn.__name__}`; the dataset is ``ds``."
    )
    return method


@xr.register_dataset_accessor("judgestats")
class JudgestatsAccessor:
    """Metrics of a Judgments dataset: ``ds.judgestats.kappa()``, ``.metrics()``, ..."""

    def __init__(self, ds: xr.Dataset) -> None:
        self._ds = ds

    metrics = _delegate(api.compute_metrics)
    item_features = _delegate(api.item_feature_array)
    exact_match = _delegate(api.exact_match)
    kappa = _delegate(api.kappa)
    kappa_se = _delegate(api.kappa_se)
    position_bias = _delegate(api.position_bias)
    test_retest = _delegate(api.test_retest)
    verbosity_bias = _delegate(api.verbosity_bias)
    self_enhancement = _delegate(api.self_enhancement)
    two_trial_accuracy = _delegate(api.two_trial_accuracy)
    human_agreement = _delegate(api.human_agreement)

    def tally(self) -> Tally:
        """Collapse the dataset into pattern counts (:func:`judgestats.tally.tally`)."""
        return tally(self._ds)
