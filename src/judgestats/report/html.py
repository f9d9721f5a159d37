"""The self-contained HTML report: one file, no network, figures embedded as SVG data URIs."""

from __future__ import annotations

import html
import json
from collections.abc import Mapping
from dataclasses import asdict
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import xarray as xr

from judgestats.accounting import ImportReport
from judgestats.models.summary import MAX_RHAT, MIN_ESS
from judgestats.mvvp import MVVPResult, StepVerdict, format_estimate
from judgestats.mvvp.result import PROBABILITY_QUANTITIES, QUANTITY_LABELS
from judgestats.report.markup import grid_html
from judgestats.report.predictive import section as predictive_section
from judgestats.report.raters import section as raters_section

if TYPE_CHECKING:
    from judgestats.plan import PlanResult

__all__ = ["diagnostics_table", "render_html"]

_PAGE_CSS = """
body{font:14px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#24292f;
margin:0 auto;max-width:1400px;padding:16px 28px}
h1{font-size:24px;margin-bottom:4px}h2{font-size:19px;border-bottom:1px solid #d0d7de;
padding-bottom:4px;margin-top:32px}
.meta{color:#57606a}
.warn{background:#fff8c5;border:1px solid #d4a72c;border-radius:6px;padding:8px 14px}
.ok{background:#dafbe1;border:1px solid #4ac26b;border-radius:6px;padding:8px 14px}
table.grid{border-collapse:collapse;font-size:12.5px}
table.grid th,table.grid td{border:1px solid #d0d7de;padding:3px 7px;text-align:left}
table.grid th{background:#f6f8fa}
figure{margin:18px 0}figure img{max-width:100%;border:1px solid #eaeef2}
figcaption{color:#57606a;font-size:13px;max-width:1000px}
pre{background:#f6f8fa;padding:10px;overflow-x:auto;font-size:12px}
details summary{cursor:pointer;font-weight:600}
"""


def diagnostics_table(result: MVVPResult) -> pd.DataFrame:
    """Return the worst R-hat and smallest ESS of every summarised quantity.

    Parameters
    ----------
    result : MVVPResult

    Returns
    -------
    pandas.DataFrame
        Columns ``quantity``, ``max R-hat``, ``min bulk ESS``, ``min tail ESS``,
        ``status`` (``ok`` or what failed, against R-hat <= 1.01 and bulk ESS >= 400).
    """
    rows = []
    min_ess = float(result.summary.attrs.get("min_ess", MIN_ESS))
    for name, g in result.summary.groupby("variable", sort=False):
        rhat, ess_b, ess_t = (
            float(g[c].max() if c == "r_hat" else g[c].min())
            for c in ("r_hat", "ess_bulk", "ess_tail")
        )
        problems = []
        if np.isfinite(rhat) and rhat > MAX_RHAT:
            problems.append(f"R-hat > {MAX_RHAT}")
        if np.isfinite(ess_b) and ess_b < min_ess:
            problems.append(f"ESS < {min_ess:g}")
        rows.append(
            {
                "quantity": name,
                "max R-hat": rhat,
                "min bulk ESS": ess_b,
                "min tail ESS": ess_t,
                "status": ", ".join(problems) or "ok",
            }
        )
    return pd.DataFrame(rows)


def _details(result: MVVPResult) -> str:
    rows = [
        {
            "verdict": r.verdict.value,
            "step": f"{int(r.step)}. {r.step.title}",
            "judge": r.judge,
            "benchmark": r.benchmark or "(all)",
            "quantity": QUANTITY_LABELS.get(r.quantity, r.quantity),
            "estimate": r.formatted,
            "threshold": r.threshold,
            "P(met)": r.p_threshold_met,
            "reason": r.reason,
            "also reported": "; ".join(str(e) for e in r.related),
        }
        for r in sorted(result.results, key=lambda r: -r.verdict.severity)
    ]
    return grid_html(pd.DataFrame(rows))


#: Above this many summary records the page lists none of them: they are in
#: summary.csv and summary.json, and a table of thousands of rows is read by no one
#: (LLMBar's 6,187 records cost 0.5 s and 1.4 MB of index.html).
MAX_ESTIMATE_ROWS = 2000


def _estimates_section(table: pd.DataFrame) -> str:
    """Return the "All estimates" block: the records, or where to find them."""
    if len(table) > MAX_ESTIMATE_ROWS:
        return (
            f"<p>{len(table)} records, more than {MAX_ESTIMATE_ROWS} to list here: every "
            "one is in summary.csv and summary.json.</p>"
        )
    return (
        f"<details><summary>{len(table)} records (also in summary.csv and summary.json)"
        f"</summary>{_estimates(table)}</details>"
    )


def _estimates(table: pd.DataFrame) -> str:
    shown = table.copy()
    shown["estimate"] = [
        f"{v:.3f}"
        if q in PROBABILITY_QUANTITIES and np.isfinite(v)
        else format_estimate(q, v, lo, hi, digits=3)
        for q, v, lo, hi in zip(
            shown["quantity"], shown["value"], shown["lo"], shown["hi"], strict=True
        )
    ]
    cols = ["judge", "benchmark", "benchmark_pair", "quantity", "estimate", "threshold"]
    cols += ["p_threshold", "verdict", "r_hat", "ess_bulk"]
    return grid_html(shown[cols])


_CAPTIONS = {
    "agreement": "Step 1. Cohen's kappa (circles, coloured by verdict) beside tie-excluded "
    "exact match (squares), per judge and benchmark; bars are {p} intervals. The gap "
    "between them is what chance alone explains. Dashed: the minimum kappa.",
    "position_bias": "Step 2. Position bias |P(first) − 0.5| over runs judged in both "
    "orders, against the threshold (dashed; the shaded side fails).",
    "paradox": "Step 5. Test-retest against position bias for every judge and benchmark, "
    "with {p} intervals. The shaded quadrant is the consistency-bias paradox: a judge "
    "there is reproducible and biased at once.",
    "ranks": "Step 4. Each judge's rank per benchmark ({rank}), median and {p} "
    "interval, coloured by the step-4 verdict. Last panel: the judge's rank shift of "
    "largest size between a benchmark of the figure and any other (the pair named on "
    "the right); dotted lines mark the limit.",
}


def render_html(
    result: MVVPResult,
    table: pd.DataFrame,
    figures: Mapping[str, str],
    *,
    tree: xr.DataTree | None = None,
    import_report: ImportReport | None = None,
    data_summary: str = "",
    title: str = "judgestats report",
    plan: PlanResult | None = None,
) -> str:
    """Return the report as one self-contained HTML page.

    Parameters
    ----------
    result : MVVPResult
        The verdicts.
    table : pandas.DataFrame
        The summary records (:func:`judgestats.report.tables.summary_table`).
    figures : mapping of str to str
        Figure name (``agreement``, ``position_bias``, ``paradox``, ``ranks``) to an
        image URI (:func:`~judgestats.report.plots.figure_to_data_uri`).
    tree : xarray.DataTree, optional
        The posterior, for its sampler statistics (divergences) and attrs.
    import_report : ImportReport, optional
        The import accounting, shown at the end.
    data_summary : str, optional
        One line describing the data.
    title : str, default "judgestats report"
    plan : PlanResult, optional
        Adds the "settles with" column to the verdict table and the caption of the
        ``plan`` figure (:mod:`judgestats.report.plan`).

    Returns
    -------
    str
    """
    p = f"{result.config.prob:.0%}"
    captions = dict(_CAPTIONS)
    verdicts = result.to_html()
    if plan is not None:  # the plan's column and caption
        from judgestats.report.plan import PLAN_CAPTION, settles_with
        from judgestats.report.verdicts import verdict_html

        verdicts = verdict_html(result, settles=settles_with(plan))
        # formatted again below with p and rank: the filled-in caption has no braces
        captions["plan"] = PLAN_CAPTION.format(
            target=plan.config.target, futures=plan.config.futures
        )
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    version = html.escape(str(tree.attrs.get("judgestats_version", ""))) if tree else ""
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(title)}</title><style>{_PAGE_CSS}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
        f'<p class="meta">{html.escape(data_summary)}<br>{html.escape(result.model)} model, '
        f"{p} equal-tailed intervals; generated {now} by judgestats {version}</p>",
    ]
    if result.warnings:
        items = "".join(f"<li>{html.escape(w)}</li>" for w in result.warnings)
        parts.append(
            '<div class="warn"><strong>Sampler diagnostics failed</strong>: the intervals '
            f"below may be unreliable; refit with more draws.<ul>{items}</ul></div>"
        )
    parts += [
        "<h2>MVVP verdicts</h2>",
        "<p>PASS: the interval lies wholly on the good side of the threshold; FAIL: wholly "
        "on the bad side; INCONCLUSIVE: it straddles the threshold; NOT MEASURED: the data "
        "cannot support the step (see the reason). Step 5 reads the probability of the "
        "paradox the same way.</p>",
        verdicts,
        "<h3>Thresholds</h3>",
        grid_html(
            pd.DataFrame([{"setting": k, "value": v} for k, v in asdict(result.config).items()])
        ),
        "<h3>Method</h3>",
        _method_html(result, _concentration(tree)),
        "<h2>Plots</h2>",
    ]
    for name, uri in figures.items():
        kind = name.rsplit("-", 1)[0]  # "agreement-2": the second benchmark group
        caption = captions.get(kind, kind).format(p=p, rank=result.rank_words)
        parts.append(
            f'<figure id="fig-{html.escape(name)}"><img alt="{html.escape(name)}" '
            f'src="{uri}"><figcaption>{html.escape(caption)}</figcaption></figure>'
        )
    if not figures:
        parts.append("<p>Nothing to plot.</p>")
    parts += [
        "<h2>Every verdict, with its reason</h2>",
        _details(result),
        *raters_section(tree, result.config.prob),
        "<h2>Diagnostics</h2>",
        _diagnostics_html(result, tree),
        *predictive_section(tree),
        "<h2>All estimates</h2>",
        _estimates_section(table),
    ]
    if import_report is not None:
        parts += [
            "<h2>Import accounting</h2>",
            f"<pre>{html.escape(import_report.format())}</pre>",
        ]
    if tree is not None:
        attrs = {k: tree.attrs.get(k) for k in ("model", "config", "derived_config")}
        parts.append(
            "<details><summary>Model settings</summary>"
            f"<pre>{html.escape(json.dumps(attrs, indent=1, default=str))}</pre></details>"
        )
    parts.append("</body></html>")
    return "\n".join(parts)


def _concentration(tree: xr.DataTree | None) -> float:
    """Return the fitted model's Dirichlet-process concentration (its config's ``prior``)."""
    from judgestats.models.base import model_from_tree
    from judgestats.models.prior import DEFAULT_CONCENTRATION

    return DEFAULT_CONCENTRATION if tree is None else float(model_from_tree(tree).config.prior)


def _method_html(result: MVVPResult, concentration: float) -> str:
    """Return the priors, the gates and the definitions, a few lines each (from the configs).

    ``concentration`` is the Dirichlet-process prior's, in pseudo-items.
    """
    c = result.config
    lines = [
        "<b>Prior.</b> Every reachable verdict pattern keeps prior mass: a Dirichlet "
        f"process of concentration {concentration:g} (pseudo-items) whose base measure "
        "judges every (order, run) cell of the benchmark's design A, B, tie or invalid "
        "with probability 1/4 each; the hierarchical tier adds a leaf with these items to "
        "every pattern tree. No interval collapses to a point because a pattern was not "
        "seen, and a quantity whose denominator the judge's own data leave empty stays "
        "undefined.",
        f"<b>Evidence.</b> A PASS or FAIL needs at least {c.min_items} labelled items "
        f"(step 1), items judged in both orders (step 2) or (item, order) units with "
        f"{c.min_runs}+ runs (step 3); with fewer it is INCONCLUSIVE, with none NOT "
        "MEASURED. A failed sampler diagnostic on the deciding quantity makes it "
        "INCONCLUSIVE. Step 4 needs kappa above the step-1 floor on each benchmark and "
        f"at least {int(c.max_rank_shift) + 2} judges ranked on both benchmarks of a "
        "pair; step 5 is measured only where steps 2 and 3 are.",
        f"<b>Definitions.</b> kappa against the human-majority label (a tied vote is a "
        f"tie), floor {c.min_kappa:g}; better than chance (kappa &gt; 0) is reported, not "
        "passed; where items have several raters, agreement with each human vote "
        "(vote_agreement) and the raters' agreement with each other are reported, not "
        "gated (Human raters). "
        "Deflation = tie-excluded exact match minus kappa. Test-retest = "
        "Krippendorff's alpha across runs (units (item, order)), which does not change "
        "with the number of runs; the share of units identical in every run is reported "
        "beside it. Position bias = |P(first) - 0.5| over runs judged in both orders. "
        "Ranks: 1 = best, ties at their average rank; a rank shift compares ranks among "
        "the judges ranked on both benchmarks.",
    ]
    return "".join(f"<p>{line}</p>" for line in lines)


def _diagnostics_html(result: MVVPResult, tree: xr.DataTree | None) -> str:
    out = []
    if result.warnings:
        items = "".join(f"<li>{html.escape(w)}</li>" for w in result.warnings)
        out.append(f'<div class="warn"><strong>Failed diagnostics</strong><ul>{items}</ul></div>')
    else:
        min_ess = float(result.summary.attrs.get("min_ess", MIN_ESS))
        sampler = " and no divergent transition" if _has_sampler(tree) else ""
        out.append(
            f'<p class="ok">Every reported quantity has R-hat <= {MAX_RHAT} and bulk ESS >= '
            f"{min_ess:g}{sampler}.</p>"
        )
    if tree is not None and _has_sampler(tree):
        n_div = int(tree["sample_stats"]["diverging"].sum())
        out.append(f"<p>Divergent transitions: {n_div}.</p>")
    elif result.model == "exact":
        out.append(
            "<p>The exact tier draws independently (no MCMC): R-hat and ESS only check "
            "that enough draws were taken.</p>"
        )
    out.append(grid_html(diagnostics_table(result)))
    counts = result.counts()
    if counts[StepVerdict.NOT_MEASURED]:
        out.append(
            f"<p>{counts[StepVerdict.NOT_MEASURED]} step(s) could not be measured with "
            "these data; their reasons are listed above.</p>"
        )
    return "\n".join(out)


def _has_sampler(tree: xr.DataTree | None) -> bool:
    return (
        tree is not None
        and "sample_stats" in tree.children
        and "diverging" in tree["sample_stats"].data_vars
    )
