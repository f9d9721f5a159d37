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
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib import colormaps
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle
from matplotlib.ticker import MaxNLocator

from judgestats.mvvp import MVVPResult, Step, StepVerdict
from judgestats.report.tables import summary_table

__all__ = [
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
#: Rows of the rank-shift panel beyond which only each judge's largest shifts are shown.
MAX_SHIFT_ROWS = 40


def figure_to_data_uri(fig: Figure, dpi: int = 110) -> str:
    """Return a figure as a ``data:image/png;base64,...`` URI (for self-contained HTML).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    dpi : int, default 110

    Returns
    -------
    str
    """
    buf = io.BytesIO()
    # zlib level 3: faster than the default 6 and, on these flat-coloured plots, smaller
    fig.savefig(buf, format="png", dpi=dpi, facecolor="white", pil_kwargs={"compress_level": 3})
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _table(result: MVVPResult, table: pd.DataFrame | None) -> pd.DataFrame:
    return summary_table(result) if table is None else table


def _rows(table: pd.DataFrame, quantity: str) -> dict[tuple[str, str], pd.Series]:
    sel = table[(table["quantity"] == quantity) & table["value"].notna()]
    return {(r["judge"], r["benchmark"]): r for _, r in sel.iterrows()}


def _verdict(result: MVVPResult, step: Step, judge: str, bench: str | None) -> StepVerdict:
    """Return the verdict of a step (NOT MEASURED where there is none)."""
    try:
        return result.get(step, judge, bench).verdict
    except KeyError:
        return StepVerdict.NOT_MEASURED


def _err(r: pd.Series) -> list[list[float]] | None:
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
    (a figure of one benchmark group), only the judges and verdicts on them count.
    """
    pool = list(result.judges)
    mine = [r for r in result.results if r.step is step]
    if benchmarks is not None:
        mine = [r for r in mine if r.benchmark in benchmarks]
        present = {j for j, b in result.rows() if b in benchmarks}
        pool = [j for j in pool if j in present]
    if len(pool) <= MAX_JUDGES:
        return pool
    worst = dict.fromkeys(pool, -1)
    for r in mine:
        worst[r.judge] = max(worst[r.judge], r.verdict.severity)
    order = sorted(pool, key=lambda j: -worst[j])  # stable: data order on ties
    keep = set(order[:MAX_JUDGES])
    return [j for j in pool if j in keep]


def _grid(n_panels: int, n_rows: int) -> tuple[Figure, list[Axes]]:
    """Return a figure of benchmark panels, :data:`PANELS_PER_ROW` to a row."""
    cols = min(n_panels, PANELS_PER_ROW)
    rows = -(-n_panels // cols)
    fig = Figure(
        figsize=(max(3.6 * cols, 6.0), rows * (ROW_INCHES * n_rows + 1.2) + 0.9),
        layout="constrained",
    )
    # not sharey: shared axes make ticks (two lines and a label each) for every judge in
    # every panel; the rows are the same, and only the first panel of a row names them
    grid = fig.subplots(rows, cols, squeeze=False)
    axes = list(grid.ravel())
    for ax in axes[n_panels:]:
        ax.set_visible(False)
    return fig, axes[:n_panels]


def _intervals(ax: Axes, x, y, lo, hi, color: str, marker: str = "o", **kw: Any) -> None:
    """Draw intervals and their centres in two calls (one per artist kind)."""
    if not len(x):
        return
    ok = np.isfinite(lo) & np.isfinite(hi)
    ax.hlines(np.asarray(y)[ok], np.asarray(lo)[ok], np.asarray(hi)[ok], color=color,
              lw=kw.pop("lw", 1.6))  # fmt: skip
    ax.plot(x, y, marker, color=color, ls="", **kw)


def _interval_panels(
    result: MVVPResult,
    table: pd.DataFrame,
    quantity: str,
    step: Step,
    threshold: float,
    bad_side: tuple[float, float],
    xlabel: str,
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
    fig, axes = _grid(len(benches), n)
    extra_rows = _rows(table, extra) if extra else {}
    used: set[StepVerdict] = set()
    shift = 0.12 if extra else 0.0
    for k, (ax, bench) in enumerate(zip(axes, benches, strict=True)):
        ax.axvspan(*bad_side, color=VERDICT_COLORS[StepVerdict.FAIL], alpha=0.06, lw=0)
        ax.axvline(threshold, color="#57606a", ls="--", lw=1)
        groups: dict[StepVerdict, list[tuple[float, float, float, float]]] = {}
        second = []
        for i, judge in enumerate(judges):
            y = n - 1 - i
            if (judge, bench) in extra_rows:
                e = extra_rows[(judge, bench)]
                second.append((e["value"], y - 0.18, e["lo"], e["hi"]))
            r = rows.get((judge, bench))
            if r is None:
                continue
            v = _verdict(result, step, judge, bench)
            used.add(v)
            groups.setdefault(v, []).append((r["value"], y + shift, r["lo"], r["hi"]))
        if second:
            xs, ys, lo, hi = np.asarray(second, dtype=float).T
            _intervals(ax, xs, ys, lo, hi, "#57606a", "s", mfc="white", ms=4.5, lw=1)
        for v, pts in groups.items():
            xs, ys, lo, hi = np.asarray(pts, dtype=float).T
            _intervals(ax, xs, ys, lo, hi, VERDICT_COLORS[v], ms=5)
        ax.set_title(bench, fontsize=10)
        ax.set_xlabel(xlabel, fontsize=9)
        ax.grid(axis="x", color="#eaeef2", lw=0.8)
        ax.set_ylim(-0.7, n - 0.3)
        if k % PANELS_PER_ROW == 0:
            ax.set_yticks(range(n), list(reversed(judges)), fontsize=8.5)
        else:
            ax.set_yticks([])
    present = len({j for j, b in result.rows() if b in benches})
    if n < present:
        fig.suptitle(
            f"{n} of {present} judges, the worst verdicts first (every judge is in summary.csv)",
            fontsize=9,
        )
    handles = _verdict_legend(sorted(used, key=lambda v: v.severity))
    if extra:
        handles.append(
            Line2D([], [], marker="s", mfc="white", color="#57606a", ls="", label="exact match")
        )
    handles.append(Line2D([], [], color="#57606a", ls="--", label=f"threshold {threshold:g}"))
    fig.legend(handles=handles, loc="outside lower center", ncol=len(handles), fontsize=8)
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
    fig = _interval_panels(
        result,
        _table(result, table),
        "kappa",
        Step.CHANCE_CORRECT,
        t,
        (-1.0, t),
        "kappa (circle) and exact match (square)",
        extra="exact_match",
        benchmarks=benchmarks,
    )
    if fig is not None:
        for ax in fig.axes:
            ax.set_xlim(min(-0.05, t - 0.05), 1.02)
        fig.suptitle("Step 1: chance-corrected agreement beside exact match", fontsize=11)
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
        benchmarks=benchmarks,
    )
    if fig is not None:
        his = table.loc[table["quantity"] == "position_bias", "hi"].dropna()
        right = min(0.5, max(0.25, float(his.max()) + 0.03 if len(his) else 0.25))
        for ax in fig.axes:
            ax.set_xlim(0, right)
        fig.suptitle("Step 2: position bias (swapped orders)", fontsize=11)
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
    fig = Figure(figsize=(9.5, 5.6), layout="constrained")
    ax = fig.subplots()
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
    benches = list(dict.fromkeys(b for _, b in cells))
    used: set[StepVerdict] = set()
    for judge, bench in cells:
        x, y = pb[(judge, bench)], tr[(judge, bench)]
        v = _verdict(result, Step.AUDIT_PARADOX, judge, bench)
        used.add(v)
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
    ax.legend(handles=handles, fontsize=7.5, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return fig


def plot_ranks(result: MVVPResult, table: pd.DataFrame | None = None) -> Figure | None:
    """Ranks across benchmarks (left) and rank-shift intervals (right).

    Left: each judge's rank per benchmark (1 = best by the ranking metric), median and interval,
    lines joining a judge's benchmarks. Right: the rank shift of each judge between
    each pair of benchmarks, dotted lines at the step-4 limit.

    Parameters
    ----------
    result : MVVPResult
    table : pandas.DataFrame, optional

    Returns
    -------
    matplotlib.figure.Figure or None
        ``None`` when no judge has a rank.
    """
    table = _table(result, table)
    ranks = _rows(table, "rank")
    benches = [b for b in result.benchmarks if any(k[1] == b for k in ranks)]
    if not benches:
        return None
    shifts = table[(table["quantity"] == "rank_shift") & table["value"].notna()]
    shown = set(shown_judges(result, Step.CROSS_VALIDATE))
    judges = [j for j in result.judges if j in shown and any(k[0] == j for k in ranks)]
    shifts = shifts[shifts["judge"].isin(judges)]
    per_judge = max(2, MAX_SHIFT_ROWS // max(len(judges), 1))
    trimmed = len(shifts) > MAX_SHIFT_ROWS
    if trimmed:  # keep each judge's largest shifts: a forest of hundreds of rows is unreadable
        size = shifts["value"].abs().rename("size")
        shifts = (
            shifts.join(size)
            .sort_values("size", ascending=False, kind="stable")
            .groupby("judge", sort=False)
            .head(per_judge)
            .sort_index()
        )
    colors = colormaps["tab20" if len(judges) > 10 else "tab10"]
    two = len(benches) > 1 and not shifts.empty
    n_rows = len(shifts)
    height = max(4.5, 0.24 * n_rows + 1.8 if two else 0.0, 0.3 * len(judges) + 2.5)
    left = max(4.5, 0.9 * len(benches) + 2.0)
    right = 7.5 if two else 0.0
    fig = Figure(figsize=(left + right, height), layout="constrained")
    ratios = [left, right] if two else [1.0]
    axes = fig.subplots(1, len(ratios), squeeze=False, width_ratios=ratios)[0]
    ax = axes[0]
    width = 0.6 / max(len(judges), 1)
    for i, judge in enumerate(judges):
        c = colors(i % colors.N)
        pts = [
            (k + (i - (len(judges) - 1) / 2) * width, r["value"], r["lo"], r["hi"])
            for k, bench in enumerate(benches)
            if (r := ranks.get((judge, bench))) is not None
        ]
        xs, ys, lo, hi = np.asarray(pts, dtype=float).reshape(-1, 4).T
        ok = np.isfinite(lo) & np.isfinite(hi)
        ax.vlines(xs[ok], lo[ok], hi[ok], color=c, lw=1.2)
        ax.plot(xs, ys, "o-", color=c, ms=4, lw=1, alpha=0.8, label=judge)
    rotate = len(benches) > 3 or max(len(b) for b in benches) > 14
    ax.set_xticks(
        range(len(benches)),
        benches,
        fontsize=8,
        rotation=35 if rotate else 0,
        ha="right" if rotate else "center",
    )
    ax.yaxis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))  # ranks of every judge
    ax.invert_yaxis()
    ax.set_ylabel(f"rank ({result.rank_words})")
    ax.set_title("Ranks across benchmarks", fontsize=10)
    fig.legend(
        handles=ax.get_legend_handles_labels()[0],
        fontsize=7.5,
        loc="outside lower center",
        ncol=min(4, len(judges)),
    )
    ax.grid(axis="y", color="#eaeef2", lw=0.8)
    if two:
        ax2 = axes[1]
        limit = result.config.max_rank_shift
        for x in (-limit, limit):
            ax2.axvline(x, color="#57606a", ls=":", lw=1)
        ax2.axvline(0, color="#57606a", lw=0.8)
        rev = shifts.iloc[::-1]
        labels = [f"{j}: {p}" for j, p in zip(rev["judge"], rev["benchmark_pair"], strict=True)]
        dots = [colors(judges.index(j) % colors.N) for j in rev["judge"]]
        y = np.arange(len(rev))
        value, lo, hi = (rev[c].to_numpy(dtype=float) for c in ("value", "lo", "hi"))
        ok = np.isfinite(lo) & np.isfinite(hi)
        ax2.hlines(y[ok], lo[ok], hi[ok], colors=[d for d, k in zip(dots, ok, strict=True) if k],
                   lw=1.2)  # fmt: skip
        ax2.scatter(value, y, c=dots, s=16, zorder=3)
        ax2.set_yticks(range(len(labels)), labels, fontsize=7)
        ax2.set_xlabel("rank shift (second benchmark minus first)")
        which = f"the {per_judge} largest per judge, " if trimmed else ""
        ax2.set_title(f"Step 4: rank shifts ({which}limit ±{limit:g})", fontsize=10)
        ax2.grid(axis="x", color="#eaeef2", lw=0.8)
    fig.suptitle("Cross-benchmark ranks", fontsize=11)
    return fig
