"""``judgestats info FILE.nc``: what a saved Judgments dataset holds."""

from __future__ import annotations

import argparse

import numpy as np
import xarray as xr

from judgestats.cli._common import add_input_options, load_input
from judgestats.schema import Verdict


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register the ``info`` command."""
    p = sub.add_parser("info", help="judges, benchmarks, items, orders, runs, verdict counts")
    add_input_options(p)
    p.set_defaults(func=run)


def describe(ds: xr.Dataset) -> str:
    """Return a plain-text description of a Judgments dataset."""
    lines = [
        f"judges ({ds.sizes['judge']}): {', '.join(ds['judge'].values.tolist())}",
        f"orders: {', '.join(ds['order'].values.tolist())}; runs: {ds.sizes['run']};"
        f" raters: {ds.sizes['rater']}",
        "benchmarks:",
    ]
    bench = ds["benchmark"].values
    for b in dict.fromkeys(bench.tolist()):
        mask = bench == b
        kinds = sorted(set(ds["label_kind"].values[mask].tolist()))
        lines.append(f"  {b}: {int(mask.sum())} items ({', '.join(kinds)})")
    v = ds["verdict"].values
    counts = {m.name.lower(): int(np.sum(v == m)) for m in Verdict}
    total = sum(c for k, c in counts.items() if k != "missing")
    lines.append(
        f"verdicts: {total} judgments: "
        + ", ".join(f"{k} {c}" for k, c in counts.items() if k != "missing")
        + f"; missing cells {counts['missing']}"
    )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Print the description."""
    ds, _ = load_input(args)
    print(describe(ds))
    return 0
