"""``judgestats plan [PATH ...]``: how many more items or runs would settle each open verdict.

Exit status: 0 when the plan is printed (and written); 2 on bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from judgestats.cli._common import DEMO_DATA, add_input_options, input_paths, load_input
from judgestats.errors import UsageError
from judgestats.io.store import atomic_output
from judgestats.plan import PlanConfig

_EPILOG = """\
examples:
  judgestats plan                          # the bundled demo logs
  judgestats plan logs/ --target 0.9 --max-items 3000 --max-runs 8 -o plan.json
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register the ``plan`` command."""
    d = PlanConfig()
    p = sub.add_parser(
        "plan",
        help="predict how many more items or runs settle each INCONCLUSIVE MVVP verdict",
        description=(
            "Fit the exact tier, check the MVVP, and for every INCONCLUSIVE step 1, 2, 3 "
            "or 5 simulate futures with N more items, or K more runs of every item, from "
            "the posterior predictive: P(the verdict becomes PASS or FAIL) by N and by K, "
            "and the smallest N and K reaching the target. Without PATH: the bundled demo "
            "logs."
        ),
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_input_options(p, nargs="*")
    p.add_argument("--target", type=float, default=d.target, help=f"default {d.target:g}")
    p.add_argument(
        "--max-items",
        type=int,
        default=d.max_items,
        help=f"largest N tried (default {d.max_items})",
    )
    p.add_argument(
        "--max-runs",
        type=int,
        default=d.max_runs,
        help=f"largest K tried (default {d.max_runs}; 0: plan items only)",
    )
    p.add_argument(
        "--futures",
        type=int,
        default=d.futures,
        help=f"simulated futures per N (default {d.futures})",
    )
    p.add_argument(
        "--confirm-below",
        type=float,
        default=d.confirm_below,
        metavar="P",
        help="also plan PASS and FAIL verdicts whose probability of being right is below P"
        f" (default {d.confirm_below:g}: INCONCLUSIVE ones only)",
    )
    p.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    p.add_argument("-o", "--output", metavar="FILE.json", help="also write the plan as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Read, fit, check and plan; print the table (and write the JSON)."""
    from judgestats.plan import plan
    from judgestats.report.drift import plain_json

    try:
        config = PlanConfig(
            target=args.target,
            max_items=args.max_items,
            max_runs=args.max_runs,
            futures=args.futures,
            confirm_below=args.confirm_below,
        )
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.output and any(
        p.exists() and p.resolve() == Path(args.output).resolve() for p in input_paths(args)
    ):
        raise UsageError(f"-o {args.output}: is one of the inputs; write the plan elsewhere")
    if not args.paths:
        print(f"the bundled demo logs ({DEMO_DATA})", file=sys.stderr)
    ds, _ = load_input(args)
    result = plan(ds, config=config, random_seed=args.seed)
    print(result.format())
    if args.output:
        with atomic_output(args.output) as tmp:
            tmp.write_text(json.dumps(plain_json(result.to_json()), indent=1))
        print(f"plan written to {args.output}")
    return 0
