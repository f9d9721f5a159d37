"""``judgestats fit PATH -o posterior.nc``: posterior of every metric."""

from __future__ import annotations

import argparse
import logging
import sys
import time

from judgestats.cli._common import add_input_options, load_input

log = logging.getLogger("judgestats")


def add_model_options(parser: argparse.ArgumentParser) -> None:
    """Add the options that choose and configure a model tier."""
    parser.add_argument(
        "--fast", action="store_true", help="exact tier (no MCMC, seconds) instead of hierarchical"
    )
    parser.add_argument("--draws", type=int, default=1000, help="draws per chain (default 1000)")
    parser.add_argument("--tune", type=int, default=1000, help="NUTS tuning steps (default 1000)")
    parser.add_argument("--chains", type=int, default=2, help="chains (default 2)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument(
        "--rank-by", default="kappa", help="metric that ranks judges (default kappa)"
    )
    parser.add_argument("--top-k", type=int, default=3, help="k of P(top-k on every benchmark)")


def build_model(args: argparse.Namespace):
    """Return the model the options ask for."""
    from judgestats.models import (
        DerivedConfig,
        ExactConfig,
        ExactModel,
        HierarchicalConfig,
        HierarchicalModel,
    )

    derived = DerivedConfig(rank_by=args.rank_by, top_k=args.top_k)
    if args.fast:
        return ExactModel(ExactConfig(draws=args.draws, chains=args.chains), derived)
    return HierarchicalModel(
        HierarchicalConfig(draws=args.draws, tune=args.tune, chains=args.chains), derived
    )


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register the ``fit`` command."""
    p = sub.add_parser("fit", help="fit a model and save the posterior (.nc or .zarr)")
    add_input_options(p)
    add_model_options(p)
    p.add_argument("-o", "--output", required=True, help="posterior file (.nc or .zarr)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Read, fit, save, and print the headline summary."""
    from judgestats.models import save_posterior, summarize

    ds, report = load_input(args)
    print(report.format(max_rejects=5), file=sys.stderr)
    model = build_model(args)
    print(f"fitting the {model.name} model ...", file=sys.stderr)
    start = time.perf_counter()
    tree = model.fit(ds, random_seed=args.seed)
    print(f"fitted in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    save_posterior(tree, args.output)
    table = summarize(tree, var_names=["kappa", "position_bias", "test_retest", "rank"])
    pivot = table.pivot_table(index=["judge", "benchmark"], columns="variable", values="median")
    print(pivot.round(3).to_string())
    for w in table.attrs.get("warnings", []):
        print(f"warning: {w}", file=sys.stderr)
    print(f"wrote {args.output}", file=sys.stderr)
    return 0
