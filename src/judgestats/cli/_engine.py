"""The ``--engine``, ``--scheduler`` and ``--partitions`` options, and reading with dask."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import xarray as xr

from judgestats.accounting import ImportReport
from judgestats.errors import LogFormatError, UsageError

__all__ = ["ENGINES", "add_engine_options", "read_with_dask"]

#: Engines that read logs: in this process, or on a dask cluster.
ENGINES: tuple[str, ...] = ("memory", "dask")


def add_engine_options(parser: argparse.ArgumentParser) -> None:
    """Add the options that choose where logs are read (``import``, ``metrics``, ``report``)."""
    group = parser.add_argument_group("engine")
    group.add_argument(
        "--engine",
        choices=ENGINES,
        default="memory",
        help="read in this process (memory, default) or with dask, partition by partition"
        " (needs pip install judgestats[dask])",
    )
    group.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="dask scheduler to use with --engine dask (default: $DASK_SCHEDULER_ADDRESS,"
        " else a cluster in this process)",
    )
    group.add_argument(
        "--partitions",
        type=int,
        metavar="N",
        help="partitions of items with --engine dask (default: one per 64 MiB of logs)",
    )


def read_with_dask(
    paths: list[Path],
    args: argparse.Namespace,
    *,
    aliases: Mapping[str, str],
    label_kinds: Mapping[str, str],
    options: Mapping[str, Any],
) -> tuple[xr.Dataset, ImportReport]:
    """Read ``paths`` with the dask engine into the dense dataset and its accounting.

    Raises
    ------
    UsageError
        For a bad option value (status 2, a one-line message).
    LogFormatError
        When the dense dataset would not fit in memory (status 2).
    """
    from judgestats.engine import read_logs_dask

    if args.partitions is not None and args.partitions < 1:
        raise UsageError(f"--partitions {args.partitions}: must be at least 1")
    try:
        result = read_logs_dask(
            paths,
            scheduler=args.scheduler,
            npartitions=args.partitions,
            dense=True,
            format=args.format,
            aliases=aliases,
            run_pattern=getattr(args, "run_pattern", None),
            label_kinds=label_kinds,
            **options,
        )
    except LogFormatError:
        raise
    except ValueError as exc:  # an option's value (format, pattern, verdict map)
        raise UsageError(str(exc).replace("\n", "; ")) from None
    assert result.dataset is not None  # dense=True gathers it or raises
    return result.dataset, result.report
