"""``judgestats drift OLD NEW -o DIR``: has the judge changed between two snapshots.

Exit status: 0 when the drift folder is written (and no ``--fail-on`` gate trips);
1 when ``--fail-on changed`` finds a CHANGED comparison; 2 on bad input.
"""

from __future__ import annotations

import argparse
import sys
from copy import copy

from judgestats.cli._common import add_input_options, load_input
from judgestats.drift import DEFAULT_DELTAS, DriftConfig
from judgestats.errors import UsageError
from judgestats.io.store import check_output

_EPILOG = """\
exit status:
  0  drift folder written; no --fail-on gate tripped
  1  written, and --fail-on changed found a CHANGED metric or item-flip excess
  2  bad input or option

examples:
  judgestats drift logs/2025-01 logs/2025-06 -o drift/
  judgestats drift old.nc new.nc -o drift/ --delta kappa=0.1 --fail-on changed
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register the ``drift`` command."""
    p = sub.add_parser(
        "drift",
        help="posterior of new - old per judge, benchmark and metric; CHANGED/STABLE",
        description=(
            "Read two snapshots of judgment logs of the same judges, pair them by item, "
            "and give per judge, benchmark and metric the posterior of new - old, "
            "P(|change| > delta) and CHANGED / STABLE / INCONCLUSIVE by the MVVP's "
            "interval rule, plus item flips beyond the judge's run-to-run noise. "
            "Writes index.html, drift.csv, item_flips.csv, drift.json and drift.tex."
        ),
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_input_options(p, nargs=2)
    p.add_argument("-o", "--output", required=True, metavar="DIR", help="output folder")
    deltas = ", ".join(f"{k}={v:g}" for k, v in DEFAULT_DELTAS.items())
    p.add_argument(
        "--delta",
        action="append",
        default=[],
        metavar="METRIC=VALUE",
        help=f"tolerated change of a metric (repeatable; defaults {deltas})",
    )
    p.add_argument(
        "--fail-on",
        choices=["changed"],
        help="exit with status 1 if any comparison is CHANGED (for scheduled CI jobs)",
    )
    p.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    p.set_defaults(func=run)


def _deltas(values: list[str]) -> dict[str, float]:
    out = {}
    for text in values:
        name, sep, value = text.partition("=")
        if not sep or name not in DEFAULT_DELTAS:
            raise UsageError(
                f"--delta {text!r}: expected METRIC=VALUE with METRIC one of "
                f"{', '.join(DEFAULT_DELTAS)}"
            )
        try:
            out[name] = float(value)
        except ValueError:
            raise UsageError(f"--delta {text!r}: {value!r} is not a number") from None
    return out


def run(args: argparse.Namespace) -> int:
    """Read both snapshots, compare, write; return the exit status."""
    from judgestats.drift import drift
    from judgestats.report import describe_data
    from judgestats.report.drift import write_drift

    try:
        config = DriftConfig(deltas=_deltas(args.delta))
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    old_path, new_path = args.paths
    check_output(args.output, inputs=[old_path, new_path], folder=True)
    snapshots = []
    for path in (old_path, new_path):
        one = copy(args)
        one.paths = [path]
        ds, _ = load_input(one)
        snapshots.append(ds)
    try:
        old, new = snapshots
        result = drift(old, new, config, random_seed=args.seed)
    except ValueError as exc:
        raise UsageError(f"{old_path} vs {new_path}: {exc}") from None
    summary = f"old: {old_path} ({describe_data(snapshots[0])}); new: {new_path} " + (
        f"({describe_data(snapshots[1])})"
    )
    files = write_drift(result, args.output, summary=summary)
    print(result.format())
    print(f"written: {', '.join(str(p) for p in files.values())}")
    if args.fail_on and result.changed:
        print(
            f"judgestats: --fail-on changed: {len(result.changed)} comparison(s) CHANGED",
            file=sys.stderr,
        )
        return 1
    return 0
