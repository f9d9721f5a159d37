"""Figures of the report (matplotlib, no pyplot state: safe in servers and tests).

Every function takes an :class:`~judgestats.mvvp.MVVPResult` (and optionally its
:func:`~judgestats.report.tables.summary_table`) and returns a
:class:`matplotlib.figure.Figure`, or ``None`` when the data hold nothing to plot.
Points are posterior medians, bars the equal-tailed intervals of the check's
probability, colours the verdict of the step the plot is about.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Hashable, Sequence
from typing import Any, cast

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle
from matplotlib.ticker import MaxNLocator
from matplotlib.transforms import blended_transform_factory, offset_copy
from matplotlib.typing import RcKeyType

from judgestats.models.derived import PAIR_SEPARATOR
from judgestats.mvvp import MVVPResult, Step, StepVerdict
from judgestats.report.panels import Margins, panel_figure, text_inches
from judgestats.report.tables import summary_table

__all__ = [
    "FIGURE_RC",
    "VERDICT_COLORS",
    "figure_to_data_uri",
    "plot_agreement",
    "plot_paradox",
    "plot_position_bias",
    "plot_ranks",
]

#: Colour of each verdict in every figure and table.
VERDICT_COLORS: dict[StepVerdict, str] = {
    StepVerdict.PASS: "#1a7f37",
    StepVerdict.FAIL: "#cf222e",
    StepVerdict.INCONCLUSIVE: "#bf8700",
    StepVerdict.NOT_MEASURED: "#8c959f",
}
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h")


#: Matplotlib settings of the report's figures, drawn and saved under them: text stays
#: text in the SVG, set in DejaVu Sans (the font the layout is measured in) or the
#: reader's sans-serif, and the SVG's ids are salted with a constant, so that one
#: figure always gives the same bytes.
FIGURE_RC: dict[RcKeyType, Any] = {
    "font.family": ["DejaVu Sans", "sans-serif"],
    "svg.fonttype": "none",
    "svg.hashsalt": "judgestats",
}


def figure_to_data_uri(fig: Figure) -> str:
    """Return a figure as a ``data:image/svg+xml;base64,...`` URI (for self-contained HTML).

    SVG rather than PNG: sharp at any zoom, and on the six figures of the LLMBar
    report (``../shared/data/llmbar``) 3.3 times faster to write (0.40 s against
    1.32 s at 110 dpi) and 2.5 times smaller (413 KB against 1,026 KB), the text
    being left to the browser instead of rasterised glyph by glyph.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        Drawn under :data:`FIGURE_RC` (its fonts are chosen when its text is made).

    Returns
    -------
    str
    """
    buf = io.BytesIO()
    with matplotlib.rc_context(FIGURE_RC):
        fig.savefig(buf, format="svg", facecolor="white", metadata={"Date": None})
    return "data:image/svg+xml;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _table(result: MVVPResult, table: pd.DataFrame | None) -> pd.DataFrame:
    return summary_table(result) if table is None else table


#: One row of the summary table, as a mapping of its columns.
Row = dict[Hashable, Any]


def _rows(table: pd.DataFrame, quantity: str) -> dict[tuple[str, str], Row]:
    sel = table[(table["quantity"] == quantity) & table["value"].notna()]
    return {(r["judge"], r["benchmark"]): r for r in sel.to_dict("records")}


def _verdict(result: MVVPResult, step: Step, judge: str, bench: str | None) -> StepVerdict:
    """Return the verdict of a step (NOT MEASURED where there is none)."""
    try:
        return result.get(step, judge, bench).verdict
    except KeyError:
        return StepVerdict.NOT_MEASURED


def _err(r: Row) -> list[list[float]] | None:
    if not (np.isfinite(r["lo"]) and np.isfinite(r["hi"])):
        return None
    return [[max(r["value"] - r["lo"], 0.0)], [max(r["hi"] - r["value"], 0.0)]]


def _verdict_legend(verdicts: Sequence[StepVerdict]) -> list[Artist]:
    return [Patch(color=VERDICT_COLORS[v], label=v.value) for v in StepVerdict if v in verdicts]


#: Judges a figure shows at most; every judge is in summary.csv and the tables.
MAX_JUDGES = 30
#: Benchmark panels per row of a figure.
PANELS_PER_ROW = 4
#: Height of one judge's row in a panel, in inches (30 judges fit a screen).
ROW_INCHES = 0.22
#: Width of a benchmark panel of the interval figures, and of the rank figure, in inches.
PANEL_INCHES = 2.8
RANK_PANEL_INCHES = 1.9
#: Font sizes, in points: judge names, rank-shift pairs.
_JUDGE_FONT = 8.5
_PAIR_FONT = 7.0
#: Margins of the panel figures, in inches: above the panels (title, note, panel
#: titles), below them (tick labels, x label, legend), beside the label columns.
_TOP = 0.85
_BOTTOM = 1.0
_SIDE = 0.2
_TICK_PAD = 0.2


def benchmark_groups(result: MVVPResult) -> list[list[str]]:
    """Return the benchmarks in groups of :data:`PANELS_PER_ROW`: one figure row each.

    The report draws one figure per group (small multiples that fit a screen) rather
    than one figure with a row per group.
    """
    b = list(result.benchmarks)
    return [b[i : i + PANELS_PER_ROW] for i in range(0, len(b), PANELS_PER_ROW)]


def shown_judges(
    result: MVVPResult, step: Step, benchmarks: Sequence[str] | None = None
) -> list[str]:
    """Return the judges a figure of ``step`` shows: all, or the worst :data:`MAX_JUDGES`.

    Judges are ranked by their most severe verdict of the step (FAIL first), ties in
    the order of the data; the shown ones keep the data's order. With ``benchmarks``
    (a figure of one benchmark group), only the judges on them and the verdicts on
    them (or on no benchmark: a judge's verdict over all its benchmarks) count.
    """
    pool = list(result.judges)
    mine = [r for r in result.results if r.step is step]
    if benchmarks is not None:
        mine = [r for r in mine if r.benchmark is None or r.benchmark in benchmarks]
        present = {j for j, b in result.rows() if b in benchmarks}
        pool = [j for j in pool if j in present]
    if len(pool) <= MAX_JUDGES:
        return pool
    worst = dict.fromkeys(pool, -1)
    for r in mine:
        if r.judge in worst:
            worst[r.judge] = max(worst[r.judge], r.verdict.severity)
    order = sorted(pool, key=lambda j: -worst[j])  # stable: data order on ties
    keep = set(order[:MAX_JUDGES])
    return [j for j in pool if j in keep]


def _judge_panels(
    judges: Sequence[str], widths: Sequence[float], cols: int, right: float = _SIDE
) -> tuple[Figure, list[Axes]]:
    """Return a figure of panels with a row per judge, ``cols`` panels to a row.

    ``widths`` holds each column's width; the first panel of a row names the judges,
    and its margin is the width of the longest name.
    """
    cols = min(len(widths), cols)
    label = text_inches(judges, _JUDGE_FONT) + _TICK_PAD
    margins = Margins(left=label + _SIDE, right=right, top=_TOP, bottom=_BOTTOM)
    return panel_figure(len(widths), cols, widths[:cols], ROW_INCHES * len(judges) + 0.3, margins)


def _headings(fig: Figure, title: str, shown: int, present: int) -> None:
    """Write the figure's title, and under it how many judges it shows when not all."""
    tall = fig.get_figheight()
    fig.suptitle(title, fontsize=11, y=1 - 0.06 / tall, va="top")
    if shown < present:
        fig.text(
            0.5,
            1 - 0.3 / tall,
            f"{shown} of {present} judges, the worst verdicts first "
            "(every judge is in summary.csv)",
            fontsize=9,
            ha="center",
            va="top",
            color="#57606a",
        )


def _legend(fig: Figure, handles: list[Artist], fontsize: float = 8) -> None:
    fig.legend(
        handles=handles,
        loc="lower center",
        bbox_to_anchor=(0.5, 0.02),
        ncol=len(handles),
        fontsize=fontsize,
    )


def _intervals(ax: Axes, x, y, lo, hi, color: str, marker: str = "o", **kw: Any) -> None:
    """Draw intervals and their centres in two calls (one per artist kind)."""
    if not len(x):
        return
    ok = np.isfinite(lo) & np.isfinite(hi)
    ax.hlines(np.asarray(y)[ok], np.asarray(lo)[ok], np.asarray(hi)[ok], color=color,
              lw=kw.pop("lw", 1.6))  # fmt: skip
    ax.plot(x, y, marker, color=color, ls="", **kw)


def _row_labels(ax: Axes, rows: Sequence[float], labels: Sequence[str], right: bool = False,
                fontsize: float = _JUDGE_FONT) -> None:  # fmt: skip
    """Name rows beside a panel, as plain texts: a tick per judge costs five artists."""
    pad = _TICK_PAD / 2 * (1 if right else -1)
    fig = cast(Figure, ax.figure)
    at = offset_copy(blended_transform_factory(ax.transAxes, ax.transData), fig, pad, 0)
    for y, label in zip(rows, labels, strict=True):
        ax.text(float(right), y, label, transform=at, fontsize=fontsize,
                ha="left" if right else "right", va="center")  # fmt: skip


def _judge_axis(ax: Axes, judges: Sequence[str], named: bool) -> None:
    """Rows of ``judges`` top down; names only where ``named`` (first panel of a row)."""
    n = len(judges)
    ax.set_ylim(-0.7, n - 0.3)
    ax.set_yticks([])
    if named:
        _row_labels(ax, range(n), list(reversed(judges)))


def _verdict_rows(
    ax: Axes,
    judges: Sequence[str],
    rows: dict[str, Row],
    verdict_of,
    shift: float = 0.0,
) -> set[StepVerdict]:
    """Draw one interval per judge with a row, coloured by its verdict; return the verdicts."""
    groups: dict[StepVerdict, list[tuple[float, float, float, float]]] = {}
    n = len(judges)
    for i, judge in enumerate(judges):
        r = rows.get(judge)
        if r is None:
            continue
        groups.setdefault(verdict_of(judge), []).append(
            (r["value"], n - 1 - i + shift, r["lo"], r["hi"])
        )
    for v, pts in groups.items():
        xs, ys, lo, hi = np.asarray(pts, dtype=float).T
        _intervals(ax, xs, ys, lo, hi, VERDICT_COLORS[v], ms=5)
    return set(groups)


def _interval_panels(
    result: MVVPResult,
    table: pd.DataFrame,
    quantity: str,
    step: Step,
    threshold: float,
    bad_side: tuple[float, float],
    xlabel: str,
    title: str,
    extra: str | None = None,
    benchmarks: Sequence[str] | None = None,
) -> Figure | None:
    """One panel per benchmark: judges down, ``quantity`` intervals coloured by verdict."""
    rows = _rows(table, quantity)
    wanted = result.benchmarks if benchmarks is None else benchmarks
    benches = [b for b in wanted if any(k[1] == b for k in rows)]
    if not benches:
        return None
    judges = shown_judges(result, step, benchmarks)
    n = len(judges)
    fig, axes = _judge_panels(judges, [PANEL_INCHES] * len(benches), PANELS_PER_ROW)
    extra_rows = _rows(table, extra) if extra else {}
    used: set[StepVerdict] = set()
    for k, (ax, bench) in enumerate(zip(axes, benches, strict=True)):
        ax.axvspan(*bad_side, color=VERDICT_COLORS[StepVerdict.FAIL], alpha=0.06, lw=0)
        ax.axvline(threshold, color="#57606a", ls="--", lw=1)
        second = [
            (e["value"], n - 1 - i - 0.18, e["lo"], e["hi"])
            for i, judge in enumerate(judges)
            if (e := extra_rows.get((judge, bench))) is not None
        ]
        if second:
            xs, ys, lo, hi = np.asarray(second, dtype=float).T
            _intervals(ax, xs, ys, lo, hi, "#57606a", "s", mfc="white", ms=4.5, lw=1)
        used |= _verdict_rows(
            ax,
            judges,
            {j: r for (j, b), r in rows.items() if b == bench},
            lambda j, bench=bench: _verdict(result, step, j, bench),
            0.12 if extra else 0.0,
        )
        ax.set_title(bench, fontsize=10)
        ax.set_xlabel(xlabel, fontsize=9)
        ax.grid(axis="x", color="#eaeef2", lw=0.8)
        _judge_axis(ax, judges, k % PANELS_PER_ROW == 0)
    _headings(fig, title, n, len({j for j, b in result.rows() if b in benches}))
    handles = _verdict_legend(sorted(used, key=lambda v: v.severity))
    if extra:
        handles.append(
            Line2D([], [], marker="s", mfc="white", color="#57606a", ls="", label="exact match")
        )
    handles.append(Line2D([], [], color="#57606a", ls="--", label=f"threshold {threshold:g}"))
    _legend(fig, handles)
    return fig


def plot_agreement(
    result: MVVPResult,
    table: pd.DataFrame | None = None,
    benchmarks: Sequence[str] | None = None,
) -> Figure | None:
    """Kappa (coloured by the step-1 verdict) and exact match, per judge and benchmark.

    The gap between the two is the deflation: how much of the raw agreement chance
    alone explains. The dashed line is the minimum kappa.

    Parameters
    ----------
    result : MVVPResult
    table : pandas.DataFrame, optional
        Its summary table.
    benchmarks : sequence of str, optional
        The benchmarks to draw a panel for (default all).

    Returns
    -------
    matplotlib.figure.Figure or None
    """
    t = result.config.min_kappa
    table = _table(result, table)
    fig = _interval_panels(
        result,
        table,
        "kappa",
        Step.CHANCE_CORRECT,
        t,
        (-1.0, t),
        "kappa (circle) and exact match (square)",
        "Step 1: chance-corrected agreement beside exact match",
        extra="exact_match",
        benchmarks=benchmarks,
    )
    if fig is not None:
        los = table.loc[table["quantity"].isin(["kappa", "exact_match"]), "lo"].dropna()
        left = min(-0.05, t - 0.05, float(los.min()) - 0.03 if len(los) else 0.0)
        for ax in fig.axes:  # every interval in view, negative kappas too
            ax.set_xlim(max(left, -1.0), 1.02)
    return fig


def plot_position_bias(
    result: MVVPResult,
    table: pd.DataFrame | None = None,
    benchmarks: Sequence[str] | None = None,
) -> Figure | None:
    """Position bias intervals per judge and benchmark against the threshold.

    Parameters
    ----------
    result : MVVPResult
    table : pandas.DataFrame, optional
    benchmarks : sequence of str, optional
        The benchmarks to draw a panel for (default all).

    Returns
    -------
    matplotlib.figure.Figure or None
        ``None`` when no benchmark has both presentation orders.
    """
    t = result.config.max_position_bias
    table = _table(result, table)
    fig = _interval_panels(
        result,
        table,
        "position_bias",
        Step.SWAP_POSITIONS,
        t,
        (t, 0.5),
        "position bias |P(first) - 0.5|",
        "Step 2: position bias (swapped orders)",
        benchmarks=benchmarks,
    )
    if fig is not None:
        his = table.loc[table["quantity"] == "position_bias", "hi"].dropna()
        right = min(0.5, max(0.25, float(his.max()) + 0.03 if len(his) else 0.25))
        for ax in fig.axes:
            ax.set_xlim(0, right)
    return fig


def plot_paradox(result: MVVPResult, table: pd.DataFrame | None = None) -> Figure | None:
    """Test-retest against position bias, with the paradox quadrant shaded.

    A judge in the upper right is stable yet position-biased: the
    consistency-bias paradox. Colours are step-5 verdicts, markers benchmarks.

    Parameters
    ----------
    result : MVVPResult
    table : pandas.DataFrame, optional

    Returns
    -------
    matplotlib.figure.Figure or None
        ``None`` when no cell has both quantities.
    """
    table = _table(result, table)
    tr, pb = _rows(table, "test_retest"), _rows(table, "position_bias")
    shown = set(shown_judges(result, Step.AUDIT_PARADOX))
    cells = [k for k in tr if k in pb and k[0] in shown]
    if not cells:
        return None
    cfg = result.config
    benches = list(dict.fromkeys(b for _, b in cells))
    used = {_verdict(result, Step.AUDIT_PARADOX, j, b) for j, b in cells}
    handles = _verdict_legend(sorted(used, key=lambda v: v.severity))
    handles.append(
        Patch(
            color=VERDICT_COLORS[StepVerdict.FAIL],
            alpha=0.10,
            label=f"paradox: test-retest > {cfg.paradox_test_retest:g}\n"
            f"and position bias > {cfg.paradox_position_bias:g}",
        )
    )
    handles += [
        Line2D([], [], marker=_MARKERS[i % len(_MARKERS)], color="#57606a", ls="", label=b)
        for i, b in enumerate(benches)
    ]
    legend_width = text_inches([str(h.get_label()) for h in handles], 7.5) + 0.7
    margins = Margins(left=0.75, right=legend_width, top=0.4, bottom=0.55)
    fig, (ax,) = panel_figure(1, 1, [max(9.5 - 1.0 - legend_width, 5.0)], 4.7, margins)
    x_hi = max([0.25] + [pb[k]["hi"] + 0.03 for k in cells if np.isfinite(pb[k]["hi"])])
    y_lo = min([0.9] + [tr[k]["lo"] - 0.02 for k in cells if np.isfinite(tr[k]["lo"])])
    ax.add_patch(
        Rectangle(
            (cfg.paradox_position_bias, cfg.paradox_test_retest),
            x_hi,
            1.0,
            color=VERDICT_COLORS[StepVerdict.FAIL],
            alpha=0.10,
            lw=0,
        )
    )
    ax.axvline(cfg.paradox_position_bias, color="#57606a", ls="--", lw=1)
    ax.axhline(cfg.paradox_test_retest, color="#57606a", ls="--", lw=1)
    for judge, bench in cells:
        x, y = pb[(judge, bench)], tr[(judge, bench)]
        v = _verdict(result, Step.AUDIT_PARADOX, judge, bench)
        ax.errorbar(
            x["value"],
            y["value"],
            xerr=_err(x),
            yerr=_err(y),
            fmt=_MARKERS[benches.index(bench) % len(_MARKERS)],
            color=VERDICT_COLORS[v],
            ms=5,
            lw=0.9,
            capsize=1.5,
            alpha=0.9,
        )
        if len(cells) > 40 and v is StepVerdict.PASS:
            continue  # name only what needs a look when the plot is crowded
        ax.annotate(
            judge,
            (x["value"], y["value"]),
            xytext=(4, 3),
            textcoords="offset points",
            fontsize=6.5,
            color="#24292f",
        )
    ax.set_xlim(0, x_hi)
    ax.set_ylim(y_lo, 1.005)
    ax.set_xlabel("position bias |P(first) - 0.5|")
    ax.set_ylabel("test-retest")
    ax.set_title("Step 5: the consistency-bias paradox", fontsize=11)
    ax.legend(handles=handles, fontsize=7.5, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return fig


def short_names(benchmarks: Sequence[str]) -> dict[str, str]:
    """Return each benchmark's shortest ``/``-separated tail that no other one ends with.

    Examples
    --------
    >>> short_names(["LLMBar/Natural", "LLMBar/Adversarial/Manual", "Processed/Manual"])
    {'LLMBar/Natural': 'Natural', 'LLMBar/Adversarial/Manual': 'Adversarial/Manual', \
'Processed/Manual': 'Processed/Manual'}
    """
    parts = {b: b.split("/") for b in benchmarks}
    out = {}
    for b, p in parts.items():
        for k in range(1, len(p) + 1):
            tail = p[-k:]
            if not any(q[-k:] == tail for c, q in parts.items() if c != b):
                break
        out[b] = "/".join(tail)
    return out


def _largest_shifts(
    table: pd.DataFrame, judges: Sequence[str], benches: Sequence[str]
) -> dict[str, Row]:
    """Each judge's rank shift of largest size among the pairs that touch ``benches``."""
    shifts = table[(table["quantity"] == "rank_shift") & table["value"].notna()]
    shifts = shifts[shifts["judge"].isin(judges)]
    if shifts.empty:
        return {}
    ends = shifts["benchmark_pair"].astype(str).str
    touch = np.zeros(len(shifts), dtype=bool)
    for b in benches:
        touch |= ends.startswith(b + PAIR_SEPARATOR) | ends.endswith(PAIR_SEPARATOR + b)
    shifts = shifts[touch]
    size = shifts["value"].abs().rename("size")
    top = (
        shifts.join(size)
        .sort_values("size", ascending=False, kind="stable")
        .drop_duplicates("judge")
    )
    return {r["judge"]: r for r in top.to_dict("records")}


def plot_ranks(
    result: MVVPResult,
    table: pd.DataFrame | None = None,
    benchmarks: Sequence[str] | None = None,
) -> Figure | None:
    """Ranks per benchmark and each judge's largest rank shift, coloured by step 4.

    One panel per benchmark: each judge's rank there (1 = best by the ranking metric),
    median and interval. The last panel: the judge's rank shift of largest size
    between a benchmark of the figure and any other one, the pair named on the right
    by the benchmarks' :func:`short_names`, dotted lines at the step-4 limit.

    Parameters
    ----------
    result : MVVPResult
    table : pandas.DataFrame, optional
    benchmarks : sequence of str, optional
        The benchmarks to draw a panel for (default all).

    Returns
    -------
    matplotlib.figure.Figure or None
        ``None`` when no judge has a rank.
    """
    table = _table(result, table)
    ranks = _rows(table, "rank")
    wanted = result.benchmarks if benchmarks is None else benchmarks
    benches = [b for b in wanted if any(k[1] == b for k in ranks)]
    if not benches:
        return None
    present = [j for j in result.judges if any((j, b) in ranks for b in benches)]
    judges = [j for j in shown_judges(result, Step.CROSS_VALIDATE, benches) if j in present]
    largest = _largest_shifts(table, judges, benches)
    widths = [RANK_PANEL_INCHES] * len(benches) + ([PANEL_INCHES] if largest else [])
    short = short_names(result.benchmarks)  # the panel titles name them in full
    pairs = [
        PAIR_SEPARATOR.join(short.get(b, b) for b in str(r["benchmark_pair"]).split(PAIR_SEPARATOR))
        for r in largest.values()
    ]
    right = text_inches(pairs, _PAIR_FONT) + _TICK_PAD + _SIDE if largest else _SIDE
    fig, axes = _judge_panels(judges, widths, len(widths), right=right)  # one row
    used: set[StepVerdict] = set()

    def verdict_of(judge: str) -> StepVerdict:
        return _verdict(result, Step.CROSS_VALIDATE, judge, None)

    for k, (ax, bench) in enumerate(zip(axes[: len(benches)], benches, strict=True)):
        mine = {j: r for (j, b), r in ranks.items() if b == bench}
        used |= _verdict_rows(ax, judges, mine, verdict_of)
        ranked = sum(1 for j, b in result.rows() if b == bench and (j, b) in ranks)
        ax.set_xlim(0.0, ranked + 1.0)  # the benchmark's own judges: 1 .. ranked
        ax.xaxis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))
        ax.set_title(bench, fontsize=10)
        ax.set_xlabel(f"rank ({result.rank_words})", fontsize=9)
        ax.grid(axis="x", color="#eaeef2", lw=0.8)
        _judge_axis(ax, judges, k == 0)
    limit = result.config.max_rank_shift
    if largest:
        ax = axes[-1]
        for x in (-limit, limit):
            ax.axvline(x, color="#57606a", ls=":", lw=1)
        ax.axvline(0, color="#57606a", lw=0.8)
        used |= _verdict_rows(ax, judges, largest, verdict_of)
        n = len(judges)
        ax.set_ylim(-0.7, n - 0.3)
        ax.set_yticks([])
        rows = [n - 1 - judges.index(j) for j in largest]
        _row_labels(ax, rows, pairs, right=True, fontsize=_PAIR_FONT)
        ax.set_xlabel("rank shift (second benchmark minus first)", fontsize=9)
        ax.set_title("the largest rank shift", fontsize=10)
        ax.grid(axis="x", color="#eaeef2", lw=0.8)
    present_all = len({j for j, b in result.rows() if b in benches})
    _headings(fig, "Step 4: ranks across benchmarks", len(judges), present_all)
    handles = _verdict_legend(sorted(used, key=lambda v: v.severity))
    if largest:
        handles.append(Line2D([], [], color="#57606a", ls=":", label=f"limit ±{limit:g}"))
    _legend(fig, handles)
    return fig
