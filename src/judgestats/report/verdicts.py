"""Presentation of MVVP verdicts: the plain-text and HTML verdict tables.

:class:`judgestats.mvvp.MVVPResult` holds the typed results; its ``format``,
``__str__``, ``to_html`` and ``_repr_html_`` render them with these functions.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import TYPE_CHECKING

from judgestats.mvvp.result import QUANTITY_LABELS, Step, StepResult, StepVerdict

if TYPE_CHECKING:
    from judgestats.mvvp.result import MVVPResult

__all__ = ["COLUMNS", "MAX_TABLE_ROWS", "verdict_html", "verdict_text"]

_CSS = """
<style>
.js-mvvp{border-collapse:collapse;font:13px/1.35 system-ui,sans-serif}
.js-mvvp th,.js-mvvp td{border:1px solid #d0d7de;padding:4px 8px;text-align:left;
vertical-align:top}
.js-mvvp th{background:#f6f8fa}
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


def _verdict_cell(r: StepResult | None, rowspan: int = 1) -> str:
    span = f' rowspan="{rowspan}"' if rowspan > 1 else ""
    if r is None:
        return f"<td{span}></td>"
    label = QUANTITY_LABELS.get(r.quantity, r.quantity)
    title = html.escape(r.reason, quote=True)
    return (
        f'<td{span} title="{title}"><span class="v {r.verdict.name}">{r.verdict.value}</span>'
        f'<br><span class="est">{html.escape(label)} {html.escape(r.formatted)}</span></td>'
    )


_SHORT = {
    Step.CHANCE_CORRECT: "chance",
    Step.SWAP_POSITIONS: "swap",
    Step.REPLICATE: "replicate",
    Step.CROSS_VALIDATE: "cross-val",
    Step.AUDIT_PARADOX: "paradox",
}


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
    rows = result.rows()
    head = [
        "judge",
        "benchmark",
        *(f"{int(s)} {_SHORT[s]}" for s in Step),
    ]
    body = []
    last = None
    for judge, bench in rows:
        cells = [judge if judge != last else "", bench]
        for step in Step:
            r = result.find(step, judge, bench)
            shown = r is not None and (step.per_benchmark or judge != last)
            cells.append(r.verdict.value if r is not None and shown else "")
        body.append(cells)
        last = judge
    for judge in result.judges:  # judges only measurable per judge (no benchmark row)
        if judge not in {j for j, _ in rows}:
            r = result.find(Step.CROSS_VALIDATE, judge, None)
            body.append([judge, "", "", "", "", r.verdict.value if r else "", ""])
    widths = [max(len(x) for x in col) for col in zip(head, *body, strict=True)]
    lines = [
        f"MVVP verdicts ({result.config.prob:.0%} intervals, {result.model or 'unknown'} model)",
        "  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)).rstrip(),
    ]
    lines += [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in body
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
    return "\n".join(lines)


#: The verdict columns of the HTML tables (header, step), after the judge (and benchmark).
COLUMNS: tuple[tuple[str, Step], ...] = tuple((f"{int(s)}. {s.title}", s) for s in Step)

#: Rows (judge × benchmark) up to which the verdicts are one table; above, one table per
#: benchmark with a table of contents, each scrolling within the screen.
MAX_TABLE_ROWS = 60


#: Judge, benchmark → how much more data settles the row's open verdicts.
Settles = Mapping[tuple[str, str], str]


def _step_cells(
    result: MVVPResult,
    judge: str,
    bench: str,
    rowspan: int | None,
    settles: Settles | None = None,
) -> list[str]:
    """Return the verdict cells of one row: per-benchmark steps, and the per-judge ones.

    ``rowspan`` is the number of rows the judge's per-judge cells span, ``None`` on the
    rows that the span covers (no per-judge cell). With ``settles``, a last cell says
    how much more data settles the row's open verdicts.
    """
    cells = []
    for _, step in COLUMNS:
        if step.per_benchmark:
            cells.append(_verdict_cell(result.find(step, judge, bench)))
        elif rowspan is not None:
            cells.append(_verdict_cell(result.find(step, judge, None), rowspan))
    if settles is not None:  # plan column
        cells.append(f"<td>{html.escape(settles.get((judge, bench), ''))}</td>")
    return cells


def _head(*first: str, settles: bool = False) -> str:
    names = "".join(f"<th>{html.escape(n)}</th>" for n in first)
    steps = "".join(f"<th>{html.escape(header)}</th>" for header, _ in COLUMNS)
    plan = "<th>settles with</th>" if settles else ""
    return f"<thead><tr>{names}{steps}{plan}</tr></thead>"


def _one_table(result: MVVPResult, settles: Settles | None = None) -> str:
    """Every judge × benchmark row in one table, a judge's benchmarks together."""
    rows = result.rows()
    per_judge: dict[str, int] = {}
    for judge, _ in rows:
        per_judge[judge] = per_judge.get(judge, 0) + 1
    head = _head("judge", "benchmark", settles=settles is not None)
    out = [f'<table class="js-mvvp">{head}<tbody>']
    seen: set[str] = set()
    for judge, bench in rows:
        cells = []
        if judge not in seen:
            cells.append(f'<td rowspan="{per_judge[judge]}">{html.escape(judge)}</td>')
        cells.append(f"<td>{html.escape(bench)}</td>")
        span = None if judge in seen else per_judge[judge]
        cells += _step_cells(result, judge, bench, span, settles)
        seen.add(judge)
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


def _counts(results: list[StepResult]) -> str:
    counts = {v: 0 for v in StepVerdict}
    for r in results:
        counts[r.verdict] += 1
    return ", ".join(
        f'<span class="v {v.name}">{n} {v.value}</span>' for v, n in counts.items() if n
    )


def _anchor(bench: str) -> str:
    return "verdicts-" + "".join(c if c.isalnum() else "-" for c in bench)


def _per_benchmark(result: MVVPResult, settles: Settles | None = None) -> str:
    """One table per benchmark (judges with the most severe verdicts first) and a contents list."""
    by_bench: dict[str, list[str]] = {}
    for judge, bench in result.rows():
        by_bench.setdefault(bench, []).append(judge)
    toc, sections = [], []
    for bench, judges in by_bench.items():
        mine = [r for r in result.results if r.benchmark == bench]
        worst = {j: -1 for j in judges}
        for r in mine:
            worst[r.judge] = max(worst[r.judge], r.verdict.severity)
        order = sorted(judges, key=lambda j: -worst[j])  # stable: data order on ties
        anchor = _anchor(bench)
        toc.append(
            f'<li><a href="#{anchor}">{html.escape(bench)}</a> ({len(judges)} judges): '
            f"{_counts(mine)}</li>"
        )
        rows = [
            f"<tr><td>{html.escape(j)}</td>{''.join(_step_cells(result, j, bench, 1, settles))}"
            "</tr>"
            for j in order
        ]
        head = _head("judge", settles=settles is not None)
        sections.append(
            f'<section id="{anchor}"><h4>{html.escape(bench)}</h4>'
            f'<div class="js-mvvp-scroll"><table class="js-mvvp">{head}<tbody>'
            + "".join(rows)
            + "</tbody></table></div></section>"
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
