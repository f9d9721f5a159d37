"""``judgestats import PATH... -o FILE.nc``: read logs, print the accounting, save."""

from __future__ import annotations

import argparse
import sys

from judgestats.cli._common import add_input_options, input_paths, load_input
from judgestats.cli._engine import add_engine_options
from judgestats.io import save
from judgestats.io.store import check_output, output_lock


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register the ``import`` command."""
    p = sub.add_parser("import", help="read logs into a Judgments dataset (.nc or .zarr)")
    add_input_options(p)
    add_engine_options(p)
    p.add_argument("-o", "--output", required=True, help="dataset file to write (.nc or .zarr)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Read, report, save; status 2 (nothing written) when nothing could be imported."""
    check_output(args.output, inputs=input_paths(args))
    # Locked from the start: a second import to this output stops at once (exit 2)
    # instead of reading everything and then racing this one's write.
    with output_lock(args.output):
        ds, report = load_input(args)
        print(report.format())
        if report.imported == 0:
            print(
                f"judgestats: error: nothing imported from {' '.join(args.paths)} (see the"
                f" accounting above: rejects and notes say why); {args.output} not written",
                file=sys.stderr,
            )
            return 2
        path = save(ds, args.output)
    dims = ", ".join(f"{k} {v}" for k, v in ds.sizes.items())
    print(f"wrote {path} ({dims})")
    return 0
