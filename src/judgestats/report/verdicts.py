"""Presentation of MVVP verdicts: the plain-text and HTML verdict tables.

:class:`judgestats.mvvp.MVVPResult` holds the typed results; its ``format``,
``__str__``, ``to_html`` and ``_repr_html_`` render them with these functions. Both
tables are pandas renderings of :meth:`~judgestats.mvvp.MVVPResult.grid` (one row per
judge and benchmark, one column per step): the text through
:meth:`pandas.DataFrame.to_string`, the HTML through
:class:`pandas.io.formats.style.Styler` (a judge's rows joined by its sparse index,
reasons as ``title`` attributes, verdicts as cell classes).
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from pandas.io.formats.style import Styler

from judgestats.mvvp.result import QUANTITY_LABELS, Step, StepResult, StepVerdict
from judgestats.report.markup import compact

if TYPE_CHECKING:
    from judgestats.mvvp.result import MVVPResult

__all__ = ["COLUMNS", "MAX_TABLE_ROWS", "verdict_html", "verdict_text"]

_CSS = """
<style>
.js-mvvp{border-collapse:collapse;font:13px/1.35 system-ui,sans-serif}
.js-mvvp th,.js-mvvp td{border:1px solid #d0d7de;padding:4px 8px;text-align:left;
vertical-align:top}
.js-mvvp thead th{background:#f6f8fa}
.js-mvvp tbody th{background:#fff;font-weight:normal}
.js-mvvp td.js-cont{border-top-style:hidden}
.js-mvvp .v{display:inline-block;min-width:7.5em;padding:1px 6px;border-radius:4px;
font-weight:600;font-size:12px}
.js-mvvp .PASS{background:#dafbe1;color:#116329}
.js-mvvp .FAIL{background:#ffebe9;color:#a40e26}
.js-mvvp .INCONCLUSIVE{background:#fff8c5;color:#7d4e00}
.js-mvvp .NOT_MEASURED{background:#eaeef2;color:#57606a}
.js-mvvp .est{color:#24292f;font-size:12px;white-space:nowrap}
.js-mvvp-scroll{max-height:75vh;overflow:auto;display:inline-block;max-width:100%}
.js-mvvp-scroll thead th{position:sticky;top:0;z-index:1}
.js-mvvp-toc .v{min-width:0}
</style>
"""


def _cell_html(r: object) -> str:
    """Return the verdict badge and the estimate of one cell (empty without a result)."""
    if not isinstance(r, StepResult):
        return ""
    label = QUANTITY_LABELS.get(r.quantity, r.quantity)
    return (
        f'<span class="v {r.verdict.name}">{r.verdict.value}</span>'
        f'<br><span class="est">{html.escape(label)} {html.escape(r.formatted)}</span>'
    )


def _cell_title(r: StepResult | None) -> str:
    """Return the reason, shown on hover (pandas writes a ``title`` as given: escape it)."""
    return "" if r is None else html.escape(r.reason, quote=True)


def _cell_class(r: StepResult | None) -> str:
    """Return the verdict as a class of the cell, for styling and selection (``js-FAIL``)."""
    return "" if r is None else f"js-{r.verdict.name}"


_SHORT = {
    Step.CHANCE_CORRECT: "chance",
    Step.SWAP_POSITIONS: "swap",
    Step.REPLICATE: "replicate",
    Step.CROSS_VALIDATE: "cross-val",
    Step.AUDIT_PARADOX: "paradox",
}


def _text_table(result: MVVPResult) -> list[str]:
    """Return the verdict lines: one per judge and benchmark, a judge named once."""
    grid = result.grid()
    shown = grid.map(lambda r: "" if r is None else r.verdict.value)
    shown.columns = pd.Index([f"{int(s)} {_SHORT[s]}" for s in Step])  # grid's columns
    if shown.empty:
        return ["  ".join(["judge", "benchmark", *shown.columns])]
    widths = {c: max(len(c), int(shown[c].str.len().max())) for c in shown.columns}
    formatters = {c: f"{{:<{w}}}".format for c, w in widths.items()}
    text = shown.to_string(justify="left", formatters=formatters)
    return [line.rstrip() for line in text.splitlines()]


def verdict_text(result: MVVPResult, details: bool = True, max_warnings: int | None = None) -> str:
    """Return the plain-text verdict table, and the non-passing results in words.

    Parameters
    ----------
    result : MVVPResult
    details : bool, default True
        Add one line per result that is not PASS, with its estimate and reason.
    max_warnings : int, optional
        List at most this many failed diagnostics (all by default).

    Returns
    -------
    str
    """
    lines = [
        f"MVVP verdicts ({result.config.prob:.0%} intervals, {result.model or 'unknown'} model)",
        *_text_table(result),
    ]
    counts = result.counts()
    lines.append(", ".join(f"{n} {v.value}" for v, n in counts.items()))
    if details:
        order = sorted(
            (r for r in result.results if r.verdict is not StepVerdict.PASS),
            key=lambda r: -r.verdict.severity,
        )
        lines += [r.describe() for r in order]
    if result.warnings:
        listed = result.warnings[:max_warnings] if max_warnings is not None else result.warnings
        lines.append(f"sampler diagnostics failed ({len(result.warnings)}):")
        lines += [f"  {w}" for w in listed]
        if len(listed) < len(result.warnings):
            lines.append(f"  ... and {len(result.warnings) - len(listed)} more (see index.html)")
    if result.misfits:
        lines.append(
            f"posterior predictive checks flagged ({len(result.misfits)}), first: "
            f"{result.misfits[0]} (all in index.html)"
        )
    return "\n".join(lines)


#: The verdict columns of the HTML tables (header, step), after the judge (and benchmark).
COLUMNS: tuple[tuple[str, Step], ...] = tuple((f"{int(s)}. {s.title}", s) for s in Step)

#: Header of the plan column (``report --plan``).
PLAN_HEADER = "settles with"

#: Rows (judge × benchmark) up to which the verdicts are one table; above, one table per
#: benchmark with a table of contents, each scrolling within the screen.
MAX_TABLE_ROWS = 60


#: Judge, benchmark → how much more data settles the row's open verdicts.
Settles = Mapping[tuple[str, str], str]


def _styled(grid: pd.DataFrame, uuid: str, plan: Sequence[str] | None = None) -> str:
    """Render a frame of results (one column per step) as an HTML table.

    A per-judge step's cells below a judge's first row are empty and join it (no
    border between them), as the judge's index cell spans the rows. ``plan`` adds the
    "settles with" column, one text per row.
    """
    headers = {step: header for header, step in COLUMNS}
    shown = grid.rename(columns=headers)
    titles = grid.map(_cell_title).rename(columns=headers)
    classes = grid.map(_cell_class).rename(columns=headers)
    if grid.index.nlevels > 1:
        repeat = grid.index.get_level_values("judge").duplicated()
        for header, step in COLUMNS:
            if not step.per_benchmark:
                classes[header] = np.where(repeat, classes[header] + " js-cont", classes[header])
    if plan is not None:
        shown[PLAN_HEADER] = list(plan)
        titles[PLAN_HEADER] = classes[PLAN_HEADER] = ""
    styler = (
        Styler(shown, uuid=uuid, table_attributes='class="js-mvvp"')
        .format(_cell_html, subset=list(headers.values()))
        .format_index(escape="html", axis=0)
        .format_index(escape="html", axis=1)
        .set_tooltips(titles, as_title_attribute=True)
        .set_td_classes(classes)
    )
    if plan is not None:
        styler = styler.format(escape="html", subset=[PLAN_HEADER])
    return compact(styler.to_html(sparse_index=True))


def _one_table(result: MVVPResult, settles: Settles | None = None) -> str:
    """Every judge × benchmark row in one table, a judge's benchmarks together."""
    grid = result.grid()
    plan = None if settles is None else [settles.get(key, "") for key in grid.index]
    return _styled(grid, "mvvp", plan)


def _counts(results: list[StepResult]) -> str:
    counts = {v: 0 for v in StepVerdict}
    for r in results:
        counts[r.verdict] += 1
    return ", ".join(
        f'<span class="v {v.name}">{n} {v.value}</span>' for v, n in counts.items() if n
    )


def _anchor(bench: str) -> str:
    return "verdicts-" + "".join(c if c.isalnum() else "-" for c in bench)


def _worst_first(grid: pd.DataFrame) -> pd.DataFrame:
    """Rows with the most severe per-benchmark verdict first (stable: data order on ties)."""
    steps = [step for step in Step if step.per_benchmark]  # grid's columns
    worst = grid[steps].map(lambda r: -1 if r is None else r.verdict.severity).max(axis=1)
    return grid.iloc[np.argsort(-worst.to_numpy(), kind="stable")]


def _per_benchmark(result: MVVPResult, settles: Settles | None = None) -> str:
    """One table per benchmark (judges with the most severe verdicts first) and a contents list."""
    grid = result.grid(once_per_judge=False)
    toc, sections = [], []
    for number, bench in enumerate(result.benchmarks):
        # "judge" as the columns' name heads the index column: one header row, sticky
        rows = grid[grid.index.get_level_values("benchmark") == bench]
        sub = _worst_first(rows.droplevel("benchmark")).rename_axis(index=None, columns="judge")
        anchor = _anchor(bench)
        mine = [r for r in result.results if r.benchmark == bench]
        toc.append(
            f'<li><a href="#{anchor}">{html.escape(bench)}</a> ({len(sub)} judges): '
            f"{_counts(mine)}</li>"
        )
        plan = None if settles is None else [settles.get((j, bench), "") for j in sub.index]
        sections.append(
            f'<section id="{anchor}"><h4>{html.escape(bench)}</h4>'
            f'<div class="js-mvvp-scroll">{_styled(sub, f"mvvp{number}", plan)}</div></section>'
        )
    contents = (
        '<nav class="js-mvvp js-mvvp-toc"><p>One table per benchmark, judges with the most severe '
        "verdicts first (step 4 is per judge, across benchmarks):</p><ul>"
        + "".join(toc)
        + "</ul></nav>"
    )
    return "\n".join([contents, *sections])


def verdict_html(
    result: MVVPResult, per_benchmark: bool | None = None, settles: Settles | None = None
) -> str:
    """Return the verdict table as an HTML fragment (with its own CSS).

    Each cell holds the verdict and the estimate; hovering shows the reason.

    Parameters
    ----------
    result : MVVPResult
    per_benchmark : bool, optional
        One table per benchmark, each scrolling within the screen, with a table of
        contents; by default when there are more than :data:`MAX_TABLE_ROWS` rows.
    settles : mapping, optional
        ``(judge, benchmark)`` → how much more data settles the row's open verdicts
        (``report --plan``): a last column, "settles with".

    Returns
    -------
    str
    """
    if per_benchmark is None:
        per_benchmark = len(result.rows()) > MAX_TABLE_ROWS
    out = [_CSS, _per_benchmark(result, settles) if per_benchmark else _one_table(result, settles)]
    prob = f"{result.config.prob:.0%}"
    counts = ", ".join(f"{n} {v.value}" for v, n in result.counts().items())
    out.append(
        f"<p class='js-mvvp-note'>{prob} equal-tailed intervals, "
        f"{html.escape(result.model or 'unknown')} model: {counts}. "
        "Hover a cell for the reason.</p>"
    )
    if result.warnings:
        items = "".join(f"<li>{html.escape(w)}</li>" for w in result.warnings)
        out.append(f"<p><strong>Sampler diagnostics failed:</strong></p><ul>{items}</ul>")
    return "\n".join(out)
