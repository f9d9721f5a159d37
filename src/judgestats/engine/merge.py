"""Sum what the partitions of an import produced: accounting, item tables, tallies.

Partitions hold disjoint items (:mod:`judgestats.engine.partition`), so

* a file's accounting is the sum of its partitions' counts, and its rejects are
  theirs, in line order;
* the dataset-wide axes are the union of the partitions' (judges, raters and items
  in order of first appearance over all files, as one in-memory import orders them;
  the orders and runs of any);
* a benchmark's tally is the partitions' tallies on the union of their pattern
  vocabularies: counts are summed, and the item axes are concatenated and put in the
  dataset's item order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import xarray as xr

from judgestats.accounting import FileAccount, ImportReport, Reject
from judgestats.schema import ITEM_COORDS, ORDERS, Verdict
from judgestats.tally import BenchmarkTally, Tally, label_kind_of, pattern_features

__all__ = ["Axes", "align", "item_table", "merge_reports", "merge_tallies"]


@dataclass(frozen=True)
class Axes:
    """The dataset-wide axes that every partition is aligned to."""

    judges: tuple[str, ...]
    orders: tuple[str, ...]
    runs: int
    raters: tuple[str, ...]

    @classmethod
    def union(
        cls,
        judges: pd.Series,
        orders: Sequence[str],
        runs: int,
        raters: pd.Series,
    ) -> Axes:
        """Build the axes from first appearances (``name -> key``) and the orders seen."""
        present = set(orders)
        return cls(
            judges=tuple(judges.sort_values(kind="stable").index.tolist()),
            orders=tuple(o for o in ORDERS if o in present) or ("AB",),
            runs=max(int(runs), 1),
            raters=tuple(raters.sort_values(kind="stable").index.tolist()),
        )


def _fill(var: xr.DataArray) -> object:
    """Return the fill value of a variable where a partition has no judgment or label."""
    if var.name in ("verdict", "human"):
        return int(Verdict.MISSING)
    kind = var.dtype.kind
    return -1 if kind in "iub" else (np.nan if kind == "f" else "")


def align(ds: xr.Dataset, axes: Axes) -> xr.Dataset:
    """Return a partition's dataset on the dataset-wide judge, order, run and rater axes."""
    target = {
        "judge": list(axes.judges),
        "order": list(axes.orders),
        "run": np.arange(axes.runs, dtype=np.int64),
        "rater": list(axes.raters),
    }
    fills = {name: _fill(var) for name, var in ds.data_vars.items()}
    out = ds.reindex(target, fill_value=fills)
    for name, var in ds.data_vars.items():  # reindexing must not widen int8 codes
        if out[name].dtype != var.dtype:
            out[name] = out[name].astype(var.dtype)
    for dim in ("judge", "order", "rater"):
        out[dim] = out[dim].astype(str)
    return out


def item_table(ds: xr.Dataset) -> xr.Dataset:
    """Return a partition's per-item data: the item coordinates and the human labels."""
    return xr.Dataset(
        {"human": ds["human"]}, coords={name: ds[name] for name in ("item", *ITEM_COORDS)}
    )


def merge_reports(reports: Sequence[ImportReport], files: Sequence[str]) -> ImportReport:
    """Sum the partitions' accountings of ``files``: counts per file, rejects in line order.

    Parameters
    ----------
    reports : sequence of ImportReport
        One per partition; each lists every file (with zero counts where it holds none
        of the file's records).
    files : sequence of str
        The files, in the order they were read.

    Returns
    -------
    ImportReport
        The notes of every partition, in partition order.
    """
    totals: dict[str, dict[str, int]] = {f: {} for f in files}
    formats: dict[str, str] = {}
    rejects: dict[str, list[Reject]] = {f: [] for f in files}
    for report in reports:
        for acc in report.files:
            formats.setdefault(acc.file, acc.format)
            sums = totals[acc.file]
            for name in ("read", "imported", "duplicates", "rejected", "invalid"):
                sums[name] = sums.get(name, 0) + getattr(acc, name)
        for r in report.rejects:
            rejects[r.file].append(r)
    accounts = tuple(FileAccount(file=f, format=formats[f], **totals[f]) for f in files)
    ordered = tuple(r for f in files for r in sorted(rejects[f], key=lambda r: r.line or 0))
    notes = tuple(n for report in reports for n in report.notes)
    return ImportReport(accounts, ordered, notes)


def _merge_benchmark(
    parts: Sequence[BenchmarkTally],
    judges: Sequence[str],
    position: pd.Series,
    label_kind: str,
) -> BenchmarkTally:
    """Return one benchmark's tally from its partitions' (``position``: item -> index)."""
    names = [j for j in judges if any(j in p.judges for p in parts)]
    row = {j: k for k, j in enumerate(names)}
    orders, shape = parts[0].orders, parts[0].patterns.shape[1:]
    width = int(np.prod(shape))
    flat = np.concatenate([p.patterns.reshape(len(p.patterns), width) for p in parts])
    vocab, inverse = np.unique(flat, axis=0, return_inverse=True)
    patterns = vocab.reshape(-1, *shape).astype(np.int8)
    remaps = np.split(inverse.ravel(), np.cumsum([len(p.patterns) for p in parts])[:-1])
    n_items = sum(len(p.items) for p in parts)
    counts = np.zeros((len(names), parts[0].counts.shape[1], len(patterns)), dtype=np.int64)
    item_pattern = np.full((len(names), n_items), -1, dtype=np.int64)
    start = 0
    for p, remap in zip(parts, remaps, strict=True):
        rows = [row[j] for j in p.judges]
        counts[np.ix_(rows, range(counts.shape[1]), remap)] += p.counts
        block = np.where(p.item_pattern >= 0, remap[np.maximum(p.item_pattern, 0)], -1)
        item_pattern[rows, start : start + len(p.items)] = block
        start += len(p.items)
    items = [i for p in parts for i in p.items]
    order = np.argsort(position.reindex(items).to_numpy(), kind="stable")
    return BenchmarkTally(
        benchmark=parts[0].benchmark,
        label_kind=label_kind,
        judges=tuple(names),
        orders=orders,
        items=tuple(items[k] for k in order),
        patterns=patterns,
        counts=counts,
        item_pattern=item_pattern[:, order],
        item_label=np.concatenate([p.item_label for p in parts])[order],
        features=pattern_features(patterns, orders),
    )


def merge_tallies(parts: Sequence[Tally], axes: Axes, items: xr.Dataset) -> Tally:
    """Sum the partitions' tallies into the tally of the whole import.

    Parameters
    ----------
    parts : sequence of Tally
        One per partition, each tallied on the dataset-wide ``axes``.
    axes : Axes
        Judges (their order is the tally's), orders and runs.
    items : xarray.Dataset
        Every item in dataset order, with its ``benchmark`` and ``label_kind``
        (:func:`item_table` of the partitions, merged).

    Returns
    -------
    Tally
        Equal to :func:`judgestats.tally.tally` of the whole dataset.
    """
    position = pd.Series(np.arange(items.sizes["item"]), index=items["item"].values.astype(object))
    bench = items["benchmark"].values
    kinds = items["label_kind"].values
    out: dict[str, BenchmarkTally] = {}
    for name in dict.fromkeys(bench.tolist()):
        here = [t[name] for t in parts if name in t.benchmarks]
        if here:
            kind = label_kind_of(kinds[bench == name].tolist())
            out[name] = _merge_benchmark(here, axes.judges, position, kind)
    return Tally(out, tuple(axes.judges))
