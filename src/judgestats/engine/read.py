"""Reading logs with dask: files parsed on workers, tallied per partition of items.

:func:`read_logs_dask` does what :func:`judgestats.read_logs` does, as a graph of
tasks on a ``dask.distributed`` cluster:

1. each file is read by its importer on a worker (one task per file);
2. the runs of every file go to the client, which numbers replicate files as
   :func:`~judgestats.io.replicates.replicate_runs` does;
3. each file's records are split into partitions of whole items by a stable hash of
   the item id (:mod:`judgestats.engine.partition`), and each partition, holding its
   items' records from every file, is assembled by
   :func:`~judgestats.io.assemble` as a small import;
4. the client takes from each partition only what is small: its accounting, its
   first appearances and its item table (coordinates and labels), and decides the
   dataset-wide axes and the label kinds of the benchmarks
   (:func:`~judgestats.io.label_kinds.infer_label_kinds`);
5. each partition, aligned to those axes, is tallied on its worker, and the
   partial tallies are summed (:func:`judgestats.engine.merge.merge_tallies`).

The result holds the tally (what the models see), the summed accounting, the item
table and, when asked (``dense=True``) or when it fits (``"auto"``), the dense
Judgments dataset, equal to that of :func:`judgestats.read_logs`.

Every worker must see the files at the paths given (a shared file system). One file
is one task: split a file larger than a worker's memory into several.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import pandas as pd
import xarray as xr

from judgestats.accounting import ImportReport, Reject
from judgestats.engine.cluster import connect
from judgestats.engine.merge import Axes, align, item_table, merge_reports, merge_tallies
from judgestats.engine.partition import Part, merge_first, split_parsed
from judgestats.errors import LogFormatError
from judgestats.io import Parsed, assemble, max_cells
from judgestats.io.label_kinds import infer_label_kinds
from judgestats.io.registry import Importer, plan_read, read_file
from judgestats.io.replicates import explain_conflicts, replicate_runs
from judgestats.schema import check
from judgestats.tally import Tally, tally

__all__ = ["PARTITION_BYTES", "DaskRead", "read_logs_dask"]

log = logging.getLogger("judgestats")

#: Bytes of log files per partition of items, by default (at least one per thread).
PARTITION_BYTES = 64 * 2**20


@dataclass(frozen=True)
class DaskRead:
    """What :func:`read_logs_dask` returns.

    Attributes
    ----------
    tally : Tally
        Pattern counts of every benchmark, summed over the partitions.
    report : ImportReport
        The accounting, summed over the partitions.
    items : xarray.Dataset
        Every item's coordinates and human labels, in dataset order.
    axes : Axes
        Judges, orders, runs and raters of the whole import.
    dataset : xarray.Dataset or None
        The dense Judgments dataset, when asked for (or ``"auto"`` and it fits).
    """

    tally: Tally
    report: ImportReport
    items: xr.Dataset
    axes: Axes
    dataset: xr.Dataset | None = None

    @property
    def cells(self) -> int:
        """Cells of the dense ``verdict`` array: judges x items x orders x runs."""
        a = self.axes
        return len(a.judges) * self.items.sizes["item"] * len(a.orders) * a.runs


@dataclass(frozen=True)
class _Summary:
    """What the client learns of a file read on a worker."""

    file: str
    format: str
    runs: tuple[int, ...]


def _summarise(got: Parsed | Reject) -> _Summary | Reject:
    if isinstance(got, Reject):
        return got
    runs = sorted(set(got.judgments["run"].astype(int).tolist())) if len(got.judgments) else []
    return _Summary(got.file, got.format, tuple(runs))


def _stub(s: _Summary) -> Parsed:
    """Return a stand-in for a file with only its runs, for numbering replicate files."""
    frame = pd.DataFrame({"run": list(s.runs)})
    return Parsed(s.file, s.format, judgments=frame, read=0)


def _split(parsed: Parsed, shift: int, notes: list[Reject], n: int, index: int) -> list[Part]:
    if shift:
        parsed = replace(
            parsed, judgments=parsed.judgments.assign(run=parsed.judgments["run"] + shift)
        )
    parsed = replace(parsed, notes=[*parsed.notes, *notes])
    return split_parsed(parsed, n, index)


@dataclass(frozen=True)
class _Partition:
    """A partition assembled on a worker."""

    dataset: xr.Dataset
    report: ImportReport
    judges: pd.Series
    items: pd.Series
    raters: pd.Series


def _assemble_partition(parts: Sequence[Part], aliases: dict[str, str]) -> _Partition:
    ds, report = assemble([p.parsed for p in parts], aliases=aliases)
    dropped: dict[str, set[int]] = {}
    for r in report.rejects:  # records assembling rejected: conflicts
        if r.line is not None and r.reason.startswith("conflicting "):
            dropped.setdefault(r.file, set()).add(r.line)
    first = [p.first(aliases, frozenset(dropped.get(p.parsed.file, ()))) for p in parts]
    return _Partition(
        ds,
        report,
        merge_first([f.judges for f in first]),
        merge_first([f.items for f in first]),
        merge_first([f.raters for f in first]),
    )


@dataclass(frozen=True)
class _Small:
    """What the client gathers from an assembled partition."""

    report: ImportReport
    judges: pd.Series
    items: pd.Series
    raters: pd.Series
    orders: tuple[str, ...]
    runs: int
    table: xr.Dataset


def _small(p: _Partition) -> _Small:
    ds = p.dataset
    present = ds["item"].values.astype(object)
    return _Small(
        p.report,
        p.judges.reindex(ds["judge"].values.astype(object)),
        p.items.reindex(present),
        p.raters.reindex(ds["rater"].values.astype(object)),
        tuple(ds["order"].values.tolist()) if ds.sizes["judge"] else (),
        int(ds.sizes["run"]) if ds.sizes["judge"] else 0,
        item_table(ds),
    )


def _tally_partition(p: _Partition, axes: Axes) -> Tally:
    return tally(align(p.dataset, axes))


def _dense_partition(p: _Partition, axes: Axes) -> xr.Dataset:
    return align(p.dataset, axes)


def _merge_items(small: Sequence[_Small], axes: Axes) -> xr.Dataset:
    """Return the item tables of all partitions on the dataset-wide raters, in order."""
    tables = [
        s.table.reindex(rater=list(axes.raters), fill_value=-1).astype({"human": "int8"})
        for s in small
    ]
    table = xr.concat(tables, dim="item") if tables else xr.Dataset()
    first = pd.concat([s.items for s in small])
    order = first.reindex(table["item"].values.astype(object)).to_numpy().argsort(kind="stable")
    table = table.isel(item=order)
    table["rater"] = table["rater"].astype(str)
    return table


def read_logs_dask(
    paths: str | Path | Sequence[str | Path],
    *,
    scheduler: Any = None,
    npartitions: int | None = None,
    dense: bool | Literal["auto"] = "auto",
    format: str | None = None,
    aliases: Mapping[str, str] | None = None,
    strict: bool = False,
    run_pattern: str | None = None,
    label_kinds: Mapping[str, str] | None = None,
    importers: Iterable[Importer] = (),
    **options: Any,
) -> DaskRead:
    """Read log files (or folders of them) with dask: parsed and tallied per partition.

    Parameters
    ----------
    paths : path or sequence of paths
        Files, or folders walked recursively; every worker must see them.
    scheduler : str or distributed.Client, optional
        Address of a ``dask.distributed`` scheduler, or a client. Default: the
        ``DASK_SCHEDULER_ADDRESS`` environment variable, else a cluster in this
        process (see :func:`judgestats.engine.cluster.connect`).
    npartitions : int, optional
        Partitions of items; default one per :data:`PARTITION_BYTES` of logs, at
        least one per worker thread.
    dense : bool or "auto", default "auto"
        Also gather the dense Judgments dataset: always, never, or when its
        ``verdict`` array fits the in-memory limit
        (:func:`judgestats.io.max_cells`).
    format, aliases, strict, run_pattern, label_kinds, importers, **options
        As in :func:`judgestats.read_logs`.

    Returns
    -------
    DaskRead
        The tally, the accounting, the item table and (see ``dense``) the dataset.

    Raises
    ------
    DaskMissingError
        When dask is not installed (``pip install judgestats[dask]``).
    LogFormatError
        With ``dense=True``, when the dense dataset would not fit in memory; and as
        :func:`judgestats.read_logs` raises.

    Examples
    --------
    >>> from judgestats.engine import read_logs_dask
    >>> result = read_logs_dask("data/demo", scheduler="tcp://127.0.0.1:8786")  # doctest: +SKIP
    >>> result.tally["mt_bench"].counts.sum()  # doctest: +SKIP
    """
    regs, files, notes = plan_read(
        paths, format=format, run_pattern=run_pattern, importers=importers, options=options
    )
    aliases = dict(aliases or {})
    with connect(scheduler) as client:
        n = npartitions or _default_partitions(client, files)
        got = [
            client.submit(
                read_file,
                path,
                explicit,
                regs,
                format=format,
                strict=strict,
                options=options,
                pure=False,
            )
            for path, explicit in files
        ]
        summaries = client.gather([client.submit(_summarise, g) for g in got])
        # the parsed files stay on the workers, and only until they are split
        pending = [g for g, s in zip(got, summaries, strict=True) if isinstance(s, _Summary)]
        read = [s for s in summaries if isinstance(s, _Summary)]
        notes += [s for s in summaries if isinstance(s, Reject)]
        del got, summaries
        stubs = [_stub(s) for s in read]
        numbered = replicate_runs(stubs, run_pattern)
        splits = [
            client.submit(
                _split,
                g,
                int(new.judgments["run"].iloc[0] - old.judgments["run"].iloc[0])
                if len(old.judgments)
                else 0,
                new.notes,
                n,
                index,
            )
            for index, (g, old, new) in enumerate(zip(pending, stubs, numbered, strict=True))
        ]
        del pending
        parts = [
            client.submit(
                _assemble_partition, [client.submit(_take, s, k) for s in splits], aliases
            )
            for k in range(n)
        ]
        del splits
        small: list[_Small] = client.gather([client.submit(_small, p) for p in parts])
        files_read = [s.file for s in read]
        report = merge_reports([s.report for s in small], files_read)
        report = explain_conflicts(report, files_read)
        axes = Axes.union(
            merge_first([s.judges for s in small]),
            [o for s in small for o in s.orders],
            max((s.runs for s in small), default=1),
            merge_first([s.raters for s in small]),
        )
        items = _merge_items(small, axes)
        items, kind_notes = infer_label_kinds(items, label_kinds)
        report = ImportReport(
            report.files, report.rejects, report.notes + tuple(notes) + kind_notes
        )
        tallies = client.gather([client.submit(_tally_partition, p, axes) for p in parts])
        result = DaskRead(merge_tallies(tallies, axes, items), report, items, axes)
        want = dense is True or (dense == "auto" and result.cells <= max_cells())
        if dense is True and result.cells > max_cells():
            raise LogFormatError(_too_big(result))
        if want:
            pieces = client.gather([client.submit(_dense_partition, p, axes) for p in parts])
            sources = [{"file": s.file, "format": s.format} for s in read]
            result = replace(result, dataset=_dense(pieces, items, report, sources))
    return result


def _take(parts: list[Part], k: int) -> Part:
    return parts[k]


def _default_partitions(client: Any, files: list[tuple[Path, bool]]) -> int:
    size = sum(p.stat().st_size for p, _ in files if p.exists())
    threads = sum(client.nthreads().values()) or 1
    return max(threads, math.ceil(size / PARTITION_BYTES))


def _too_big(result: DaskRead) -> str:
    a = result.axes
    return (
        f"the dense dataset would be {len(a.judges)} judges x {result.items.sizes['item']} items"
        f" x {len(a.orders)} orders x {a.runs} runs = {result.cells:,} cells, more than fit in"
        f" memory here ({max_cells():,}); use the tally (read_logs_dask(...,"
        " dense=False).tally), or read fewer logs at a time"
    )


def _dense(
    pieces: Sequence[xr.Dataset], items: xr.Dataset, report: ImportReport, sources: list[dict]
) -> xr.Dataset:
    """Concatenate the aligned partitions into the Judgments dataset, in dataset order."""
    judged = [p.drop_vars(["human", *(c for c in items.coords if c != "item")]) for p in pieces]
    verdicts = xr.concat(judged, dim="item", combine_attrs="drop_conflicts")
    ds = verdicts.reindex(item=items["item"].values)
    ds = ds.assign(human=items["human"]).assign_coords(
        {name: items[name] for name in items.coords if name not in ("item", "rater")}
    )
    ds["rater"] = items["rater"]
    for name, var in pieces[0].data_vars.items():
        if name in ds and ds[name].dtype != var.dtype:
            ds[name] = ds[name].astype(var.dtype)
    ds.attrs = dict(pieces[0].attrs)
    ds.attrs["sources"] = json.dumps(sources)
    ds.attrs["accounting"] = report.to_json()
    return check(ds)
