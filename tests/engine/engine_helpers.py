"""Comparisons of a dask read with the in-memory read of the same logs."""

from __future__ import annotations

import numpy as np
import xarray as xr

import judgestats as js
from judgestats.engine import DaskRead
from judgestats.tally import Tally


def assert_tally_equal(got: Tally, want: Tally) -> None:
    assert got.judges == want.judges
    assert list(got.benchmarks) == list(want.benchmarks)
    for name, w in want.benchmarks.items():
        g = got[name]
        for field in ("benchmark", "label_kind", "judges", "orders", "items"):
            assert getattr(g, field) == getattr(w, field), (name, field)
        for field in ("patterns", "counts", "item_pattern", "item_label", "features"):
            a, b = getattr(g, field), getattr(w, field)
            assert a.shape == b.shape and a.dtype.kind == b.dtype.kind, (name, field)
            assert np.array_equal(a, b, equal_nan=True), (name, field)


def assert_report_equal(got: js.ImportReport, want: js.ImportReport) -> None:
    assert got.files == want.files
    assert got.rejects == want.rejects
    # notes of different partitions come in partition order: the same notes, each once
    assert sorted(map(str, got.notes)) == sorted(map(str, want.notes))
    assert got.balanced


def assert_same_read(got: DaskRead, want: js.io.ReadResult) -> None:
    assert_report_equal(got.report, want.report)
    assert_tally_equal(got.tally, js.tally(want.dataset))
    assert got.dataset is not None
    # the accounting attr holds the notes in partition order; compared above
    xr.testing.assert_identical(
        got.dataset.drop_attrs(deep=False).assign_attrs(accounting=""),
        want.dataset.drop_attrs(deep=False).assign_attrs(accounting=""),
    )
    assert got.dataset.attrs["sources"] == want.dataset.attrs["sources"]
