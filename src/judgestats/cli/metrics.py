"""``judgestats metrics PATH [--json]``: closed-form metrics with item-bootstrap intervals."""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np
import pandas as pd

from judgestats.cli._common import add_input_options, load_input
from judgestats.cli._engine import add_engine_options
from judgestats.errors import UsageError
from judgestats.metrics import ALL_METRICS, BY, INTERVALS, PROTOCOLS, compute_metrics


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register the ``metrics`` command."""
    p = sub.add_parser(
        "metrics",
        help="validation metrics per judge and benchmark, with intervals",
        description=(
            "Compute exact match, kappa, alpha, position bias, test-retest, verbosity, "
            "two-trial accuracy, self-enhancement, the human ceiling, ... per judge and "
            "benchmark, with item-clustered bootstrap intervals."
        ),
    )
    add_input_options(p, nargs="*")
    add_engine_options(p)
    p.add_argument("--json", action="store_true", help="print a JSON list of records")
    p.add_argument(
        "--metric",
        action="append",
        choices=list(ALL_METRICS),
        metavar="NAME",
        help=f"metric to report (repeatable; default all): {', '.join(ALL_METRICS)}",
    )
    p.add_argument(
        "--protocol",
        choices=PROTOCOLS,
        default="all",
        help="judgments that enter: every order and run (all, default), or one verdict "
        "per item, original order, first run (agreement)",
    )
    p.add_argument("--by", choices=BY, help="also group by order, run or item category")
    p.add_argument("--interval", choices=INTERVALS, default="bootstrap", help="interval method")
    p.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples (2000)")
    p.add_argument("--prob", type=float, default=0.95, help="interval probability (0.95)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (0)")
    p.add_argument(
        "--self-model",
        action="append",
        default=[],
        metavar="JUDGE=MODEL",
        help="a model counted as the judge's own for self-enhancement (repeatable; a "
        "family is several models); default: the model named like the judge",
    )
    p.set_defaults(func=run)


def _self_models(pairs: list[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for pair in pairs:
        judge, sep, model = pair.partition("=")
        if not sep or not judge or not model:
            raise UsageError(f"--self-model {pair!r}: expected JUDGE=MODEL")
        out.setdefault(judge, []).append(model)
    return out


def format_table(frame: pd.DataFrame, prob: float) -> str:
    """Return the metrics as a plain-text table, one line per record.

    Parameters
    ----------
    frame : pandas.DataFrame
        From :meth:`judgestats.metrics.MetricsResult.to_frame`.
    prob : float
        Interval probability, for the header.

    Returns
    -------
    str
    """
    if frame.empty:
        return "no metrics: the data hold no judgments"

    def interval(row: pd.Series) -> str:
        if np.isnan(row["lo"]):
            return ""
        return f"[{row['lo']:.3f}, {row['hi']:.3f}]"

    show = pd.DataFrame({k: frame[k].astype(str) for k in _keys(frame)})
    show["metric"] = frame["metric"]
    show["value"] = [("nan" if np.isnan(v) else f"{v:.3f}") for v in frame["value"]]
    show[f"{prob:.0%} interval"] = frame.apply(interval, axis=1)
    show["n"] = [f"{v:g}" for v in frame["n"]]
    show["reason"] = frame["reason"]
    widths = {str(c): max(len(str(c)), *(len(x) for x in show[c])) for c in show}
    lines = ["  ".join(str(c).ljust(widths[str(c)]) for c in show).rstrip()]
    for row in show.itertuples(index=False):
        lines.append(
            "  ".join(str(x).ljust(widths[str(c)]) for c, x in zip(show, row, strict=True)).rstrip()
        )
    return "\n".join(lines)


def _keys(frame: pd.DataFrame) -> list[str]:
    return [c for c in ("judge", "benchmark", "category", "order", "run") if c in frame]


def run(args: argparse.Namespace) -> int:
    """Read, compute, print."""
    ds, _ = load_input(args)
    result = compute_metrics(
        ds,
        args.metric,
        protocol=args.protocol,
        by=args.by,
        interval=args.interval,
        n_resamples=args.resamples,
        prob=args.prob,
        random_seed=args.seed,
        self_models=_self_models(args.self_model),
    )
    if args.json:
        json.dump(result.to_records(), sys.stdout, indent=1)
        print()
    else:
        print(format_table(result.to_frame(), args.prob))
    return 0
