"""``judgestats fit PATH -o posterior.nc``: posterior of every metric.

Progress (reading, fitting with heartbeats, the sampling bar on a terminal) goes to
stderr as in ``report``, and not at all under the global ``-q/--quiet``; the import
accounting, convergence warnings and the summary table are results and always shown.
"""

from __future__ import annotations

import argparse
import sys

from judgestats.cli._common import (
    add_fit_options,
    add_input_options,
    check_fit_options,
    derived_config,
    input_paths,
    load_input,
)
from judgestats.errors import UsageError
from judgestats.io.store import atomic_output, check_output


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register the ``fit`` command."""
    p = sub.add_parser("fit", help="fit a model and save the posterior (.nc or .zarr)")
    add_input_options(p)
    add_fit_options(p)
    p.add_argument(
        "--prior-scale",
        type=float,
        help="multiply the scales of the pooling priors, hierarchical tier (default: 1;"
        " 0.5 and 2 show how much the results depend on them)",
    )
    p.add_argument("-o", "--output", required=True, help="posterior file (.nc or .zarr)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Read, fit, save, and print the headline summary."""
    from judgestats.models import save_posterior, summarize
    from judgestats.pipeline import fit_posterior
    from judgestats.report.terminal import Progress

    check_fit_options(args)
    scale = args.prior_scale
    if scale is not None and not (0 < scale < float("inf")):
        raise UsageError(f"--prior-scale {scale}: must be a positive number")
    if scale is not None and args.fast:
        raise UsageError("--prior-scale applies to the hierarchical tier; drop --fast")
    derived = derived_config(args)
    check_output(args.output, inputs=input_paths(args))
    progress = Progress(sys.stderr)
    with progress.stage(f"reading {' '.join(args.paths)}"):
        ds, report = load_input(args)
    print(report.format(max_rejects=5), file=sys.stderr)
    with progress.stage(f"fitting the {'exact' if args.fast else 'hierarchical'} model"):
        tree = fit_posterior(
            ds,
            fast=args.fast,
            draws=args.draws,
            tune=args.tune,
            chains=args.chains,
            prior_scale=args.prior_scale,
            random_seed=args.seed,
            derived=derived,
        )
    with progress.stage(f"writing {args.output}"), atomic_output(args.output) as tmp:
        save_posterior(tree, tmp)
    table = summarize(tree, var_names=["kappa", "position_bias", "test_retest", "rank"])
    pivot = table.pivot_table(index=["judge", "benchmark"], columns="variable", values="median")
    print(pivot.round(3).to_string())
    for w in table.attrs.get("warnings", []):
        print(f"warning: {w}", file=sys.stderr)
    print(f"wrote {args.output}", file=sys.stderr)
    return 0
