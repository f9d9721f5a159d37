"""The report's human raters: the human ceiling and each judge's agreement with each vote.

Present when the fit has a ``raters`` group (:mod:`judgestats.models.raters`: a
benchmark with an item rated twice). A table per kind, in the HTML page and in
``summary.json`` (key ``human_raters``): per benchmark, how well the raters agree
with each other; per judge and benchmark, its agreement with each vote and its gap
to the raters' pairwise agreement, with P(gap >= 0). Reported, not gated.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from judgestats.models.raters import CEILING, GAPS, VOTES
from judgestats.report.markup import grid_html

__all__ = ["add_to_summary", "rater_records", "section", "terminal_lines"]

_SAMPLE = ("chain", "draw")


def rater_records(raters: xr.Dataset, prob: float) -> list[dict[str, Any]]:
    """One record per (judge or None, benchmark, quantity): median and equal-tailed interval.

    Parameters
    ----------
    raters : xarray.Dataset
        The ``raters`` group of a fit.
    prob : float
        Probability of the intervals.

    Returns
    -------
    list of dict
        Keys ``judge`` (None for the raters), ``benchmark``, ``quantity``, ``value``,
        ``lo``, ``hi``, ``prob`` and, for the gaps, ``p_at_least_ceiling``.
    """
    q = raters.quantile([(1 - prob) / 2, 0.5, (1 + prob) / 2], _SAMPLE)
    records: list[dict[str, Any]] = []
    for b in raters["benchmark"].values:
        for name in CEILING:
            lo, mid, hi = (float(x) for x in q[name].sel(benchmark=b).values)
            records.append(_record(None, str(b), name, mid, lo, hi, prob))
        for j in raters["judge"].values:
            for name in (*VOTES, *GAPS):
                lo, mid, hi = (float(x) for x in q[name].sel(benchmark=b, judge=j).values)
                if not np.isfinite(mid):
                    continue
                rec = _record(str(j), str(b), name, mid, lo, hi, prob)
                if name in GAPS:
                    draws = raters[name].sel(benchmark=b, judge=j).values
                    rec["p_at_least_ceiling"] = float((draws >= 0).mean())
                records.append(rec)
    return records


def _record(
    judge: str | None,
    benchmark: str,
    quantity: str,
    value: float,
    lo: float,
    hi: float,
    prob: float,
) -> dict[str, Any]:
    return {
        "judge": judge,
        "benchmark": benchmark,
        "quantity": quantity,
        "value": value,
        "lo": lo,
        "hi": hi,
        "prob": prob,
    }


def _interval(rec: dict[str, Any]) -> str:
    if not np.isfinite(float(rec["value"])):
        return ""
    return f"{rec['value']:.3f} [{rec['lo']:.3f}, {rec['hi']:.3f}]"


def _probability(p: float) -> str:
    """Three decimals, never a bare 0 or 1 (a share of draws is not certainty)."""
    if p < 0.001:
        return "< 0.001"
    if p > 0.999:
        return "> 0.999"
    return f"{p:.3f}"


def section(tree: xr.DataTree | None, prob: float) -> list[str]:
    """Return the HTML of the section (nothing when the fit has no ``raters`` group).

    Parameters
    ----------
    tree : xarray.DataTree or None
    prob : float
        Probability of the intervals.

    Returns
    -------
    list of str
    """
    if tree is None or "raters" not in tree.children:
        return []
    raters = tree["raters"].to_dataset()
    records = rater_records(raters, prob)
    ceiling = []
    for b in raters["benchmark"].values:
        row: dict[str, Any] = {
            "benchmark": str(b),
            "items rated twice or more": int(raters["n_rated_twice"].sel(benchmark=b)),
            "raters per item": f"{float(raters['raters_per_item'].sel(benchmark=b)):.2f}",
        }
        for rec in records:
            if rec["judge"] is None and rec["benchmark"] == str(b):
                row[str(rec["quantity"])] = _interval(rec)
        ceiling.append(row)
    judges: dict[tuple[str, str], dict[str, Any]] = {}
    for rec in records:
        if rec["judge"] is None:
            continue
        key = (str(rec["judge"]), str(rec["benchmark"]))
        row = judges.setdefault(key, {"judge": key[0], "benchmark": key[1]})
        row[str(rec["quantity"])] = _interval(rec)
        if "p_at_least_ceiling" in rec:
            row[f"P({rec['quantity']} >= 0)"] = _probability(float(rec["p_at_least_ceiling"]))
    p = f"{prob:.0%}"
    return [
        "<h2>Human raters</h2>",
        "<p>Where items have several human raters, how well the raters agree with each "
        "other bounds what a judge can reach. <b>human_pairwise</b>: every pair of raters "
        "of an item; <b>human_majority</b>: each rater against the majority of the others "
        "(S1: A, B and tie; S2: both non-tie). A judge's <b>vote_agreement</b> counts every "
        "(judgment, vote) pair of an item, as the pairwise agreement counts pairs of votes; "
        "<b>ceiling_gap</b> is the judge's vote agreement minus the raters' pairwise "
        f"agreement. Medians with {p} intervals of the Bayesian bootstrap over items, whose "
        "weights the raters and every judge share (the gap is paired item by item), with "
        "the Dirichlet-process prior of the exact tier. Reported, not gated: the steps "
        "score judges against the majority label.</p>",
        grid_html(pd.DataFrame(ceiling)),
        grid_html(pd.DataFrame(list(judges.values()))) if judges else "",
    ]


def terminal_lines(tree: xr.DataTree, prob: float, max_judges: int = 8) -> list[str]:
    """Return a few lines for the terminal: per benchmark, the ceiling and the judges.

    Nothing when the fit has no ``raters`` group. ``max_judges`` judges per benchmark
    (the closest to the ceiling first); the rest are counted.
    """
    if "raters" not in tree.children:
        return []
    raters = tree["raters"].to_dataset()
    records = rater_records(raters, prob)
    lines = ["", f"human raters ({prob:.0%} intervals; reported, not gated)"]
    for b in raters["benchmark"].values:
        mine = [r for r in records if r["benchmark"] == str(b)]
        ceiling = next(r for r in mine if r["quantity"] == "human_pairwise_s1")
        lines.append(
            f"  {b}: raters agree pairwise {_interval(ceiling)} "
            f"({int(raters['n_rated_twice'].sel(benchmark=b))} items rated twice or more)"
        )
        votes = {r["judge"]: r for r in mine if r["quantity"] == "vote_agreement_s1"}
        gaps = {r["judge"]: r for r in mine if r["quantity"] == "ceiling_gap_s1"}
        order = sorted(gaps, key=lambda j: -float(gaps[j]["value"]))
        for j in order[:max_judges]:
            lines.append(
                f"    {j}: agrees with each vote {_interval(votes[j])}, gap {_interval(gaps[j])}"
            )
        if len(order) > max_judges:
            lines.append(f"    ... and {len(order) - max_judges} more (see summary.json)")
    return lines


def add_to_summary(path: Path, tree: xr.DataTree, prob: float) -> None:
    """Add the records of :func:`rater_records` to a written ``summary.json``.

    Under the key ``human_raters``; nothing when the fit has no ``raters`` group. The
    file is rewritten in place: it lives in the report's temporary folder, which
    replaces the report only when complete.
    """
    if "raters" not in tree.children:
        return
    from judgestats.report.drift import plain_json
    from judgestats.report.tables import json_text

    doc = json.loads(path.read_text())
    doc["human_raters"] = plain_json(rater_records(tree["raters"].to_dataset(), prob))
    path.write_text(json_text(doc))
