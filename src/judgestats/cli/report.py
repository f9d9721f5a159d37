"""``judgestats report [PATH ...] -o DIR``: fit, check the MVVP, write the report.

Exit status: 0 when the report is written (and no ``--fail-on`` gate trips); 1 when
a ``--fail-on`` gate trips; 2 when nothing could be reported (no log could be read,
an empty folder, a bad option).
"""

from __future__ import annotations

import argparse
import sys
import time

from judgestats.cli._common import (
    DEMO_DATA,
    add_fit_options,
    add_input_options,
    check_fit_options,
    derived_config,
    input_paths,
    load_input,
)
from judgestats.cli._engine import add_engine_options
from judgestats.errors import UsageError
from judgestats.io.store import check_output
from judgestats.mvvp import MVVPConfig, StepVerdict
from judgestats.schema import Verdict

#: ``--fail-on`` level → the least severe verdict that trips the gate.
GATES = {
    "fail": StepVerdict.FAIL,
    "inconclusive": StepVerdict.INCONCLUSIVE,
    "not-measured": StepVerdict.NOT_MEASURED,
}

_EPILOG = """\
exit status:
  0  report written; no --fail-on gate tripped
  1  report written, and a verdict at or above the --fail-on level was found
     (fail: any FAIL; inconclusive: any FAIL or INCONCLUSIVE;
      not-measured: anything but PASS)
  2  nothing to report: no judgment could be read, or a bad option

examples:
  judgestats report                      # the bundled demo logs, into ./judgestats-report
  judgestats report logs/ -o out --fast  # exact tier (seconds)
  judgestats report logs/ -o out --fail-on fail   # CI gate
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register the ``report`` command."""
    p = sub.add_parser(
        "report",
        help="fit, check the five MVVP steps and write an HTML/CSV/JSON/LaTeX report",
        description=(
            "Read judgment logs (every format the importers know), print the import "
            "accounting, fit the posterior of every metric (hierarchical model; --fast "
            "for the exact tier), check the five steps of the Minimum Viable Validation "
            "Protocol per judge and benchmark, and write index.html, summary.csv, "
            "summary.json, tables.tex and posterior.nc. Without PATH: the bundled demo "
            "logs."
        ),
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_input_options(p, nargs="*")
    add_engine_options(p)
    p.add_argument(
        "-o",
        "--output",
        default="judgestats-report",
        metavar="DIR",
        help="output folder (default: ./judgestats-report)",
    )
    add_fit_options(p)
    rules = p.add_argument_group("MVVP thresholds")
    d = MVVPConfig()
    rules.add_argument("--prob", type=float, default=d.prob, help="interval probability")
    for flag, name, kind, text in (
        ("--min-kappa", "min_kappa", float, "step 1: kappa must exceed it"),
        ("--max-position-bias", "max_position_bias", float, "step 2: position bias below it"),
        ("--min-runs", "min_runs", int, "step 3: runs needed for test-retest"),
        ("--min-test-retest", "min_test_retest", float, "step 3: test-retest above it"),
        ("--max-rank-shift", "max_rank_shift", float, "step 4: largest |rank shift| allowed"),
    ):
        rules.add_argument(
            flag,
            dest=name,
            type=kind,
            default=getattr(d, name),
            help=f"{text} (default: {getattr(d, name):g})",
        )
    p.add_argument(
        "--fail-on",
        choices=list(GATES),
        metavar="{fail,inconclusive,not-measured}",
        help="exit with status 1 if any verdict is at least this bad (for CI gates)",
    )
    p.add_argument("--title", default="judgestats report", help="title of the HTML page")
    p.add_argument(  # the plan
        "--plan",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="also predict how many more items or runs settle each INCONCLUSIVE verdict "
        "(as `judgestats plan`, with 100 futures per point): a 'settles with' column, a "
        "P(settled) plot and summary.json's 'plan'; off by default, as it costs about a "
        "second of CPU per open verdict",
    )
    p.set_defaults(func=run)


def _config(args: argparse.Namespace) -> MVVPConfig:
    try:
        return MVVPConfig(
            prob=args.prob,
            min_kappa=args.min_kappa,
            max_position_bias=args.max_position_bias,
            min_runs=args.min_runs,
            min_test_retest=args.min_test_retest,
            max_rank_shift=args.max_rank_shift,
        )
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _plan_config():
    from judgestats.report.plan import REPORT_PLAN

    return REPORT_PLAN


def run(args: argparse.Namespace) -> int:
    """Read, fit, check, write; return the exit status (see the module docs)."""
    from judgestats.pipeline import create_report
    from judgestats.report.terminal import Progress, terminal_summary

    config = _config(args)
    derived = derived_config(args)
    check_fit_options(args)
    check_output(args.output, inputs=input_paths(args), folder=True)
    progress = Progress(sys.stderr)
    where = " ".join(args.paths) if args.paths else f"the bundled demo logs ({DEMO_DATA})"
    with progress.stage(f"reading {where}"):
        ds, accounting = load_input(args)
    print("import accounting")
    print(accounting.format())
    n = int((ds["verdict"].values != Verdict.MISSING).sum()) if ds.sizes.get("judge") else 0
    if n == 0:
        print(
            f"judgestats: error: nothing to report: no judgment could be read from {where} "
            "(see the accounting above: files passed over and rejected records say why)",
            file=sys.stderr,
        )
        return 2
    start = time.monotonic()
    report = create_report(
        ds,
        args.output,
        fast=args.fast,
        draws=args.draws,
        tune=args.tune,
        chains=args.chains,
        random_seed=args.seed,
        config=config,
        import_report=accounting,
        title=args.title,
        progress=progress,
        derived=derived,
        plan=_plan_config() if args.plan else None,
    )
    progress.note(f"report done in {time.monotonic() - start:.1f} s")
    print()
    print(terminal_summary(report.mvvp, report.files, tree=report.tree))
    if report.plan is not None:
        print(report.plan.format())
    if args.fail_on:
        gate = GATES[args.fail_on]
        tripped = [r for r in report.mvvp.results if r.verdict.severity >= gate.severity]
        if tripped:
            print(
                f"judgestats: --fail-on {args.fail_on}: {len(tripped)} verdict(s) at or above "
                f"{gate.value}",
                file=sys.stderr,
            )
            return 1
    return 0
