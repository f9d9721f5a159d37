"""``judgestats import PATH... -o FILE.nc``: read logs, print the accounting, save."""

from __future__ import annotations

import argparse

from judgestats.cli._common import add_input_options, load_input
from judgestats.io import save


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register the ``import`` command."""
    p = sub.add_parser("import", help="read logs into a Judgments dataset (.nc or .zarr)")
    add_input_options(p)
    p.add_argument("-o", "--output", required=True, help="dataset file to write (.nc or .zarr)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Read, report, save."""
    ds, report = load_input(args)
    print(report.format())
    path = save(ds, args.output)
    dims = ", ".join(f"{k} {v}" for k, v in ds.sizes.items())
    print(f"wrote {path} ({dims})")
    return 0
