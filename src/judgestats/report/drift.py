"""Drift artefacts: the change plot and the drift folder.

:func:`write_drift` writes the folder of ``judgestats drift`` all at once
(:func:`judgestats.io.store.atomic_output`): ``index.html`` (self-contained, with
the change plot), ``drift.csv`` (one row per judge, benchmark and metric),
``item_flips.csv``, ``drift.json`` and ``drift.tex`` (booktabs).
"""

from __future__ import annotations

import html
import json
import math
from pathlib import Path

import matplotlib
import numpy as np
from matplotlib.figure import Figure

from judgestats.drift import Change, DriftResult
from judgestats.io.store import atomic_output
from judgestats.mvvp import StepVerdict
from judgestats.report.plots import FIGURE_RC, VERDICT_COLORS, figure_to_data_uri
from judgestats.report.tables import _tabular, latex_escape

__all__ = ["DRIFT_FILES", "plain_json", "plot_drift", "write_drift"]

#: The files of a drift folder.
DRIFT_FILES = ("index.html", "drift.csv", "item_flips.csv", "drift.json", "drift.tex")

#: Colour of each drift verdict (the MVVP's: CHANGED as FAIL, STABLE as PASS).
CHANGE_COLORS = {
    Change.CHANGED: VERDICT_COLORS[StepVerdict.FAIL],
    Change.STABLE: VERDICT_COLORS[StepVerdict.PASS],
    Change.INCONCLUSIVE: VERDICT_COLORS[StepVerdict.INCONCLUSIVE],
    Change.NOT_MEASURED: VERDICT_COLORS[StepVerdict.NOT_MEASURED],
}


def plot_drift(result: DriftResult) -> Figure | None:
    """Plot new - old with its interval per judge and benchmark, one panel per metric.

    The grey band is ``±delta``; colours are the verdicts.
    """
    metrics = [m for m in result.config.metrics if any(c.metric == m for c in result.changes)]
    if not metrics:
        return None
    rows = sorted({(c.judge, c.benchmark) for c in result.changes}, key=str)
    ncol = min(len(metrics), 3)
    nrow = math.ceil(len(metrics) / ncol)
    fig = Figure(figsize=(4.2 * ncol, 0.8 + 0.28 * len(rows) * nrow + 0.6 * nrow))
    axes = fig.subplots(nrow, ncol, squeeze=False, sharey=True)
    y = {r: i for i, r in enumerate(rows)}
    for ax, metric in zip(axes.ravel(), metrics, strict=False):
        delta = result.config.deltas[metric]
        ax.axvspan(-delta, delta, color="#d0d7de", alpha=0.6, lw=0)
        ax.axvline(0, color="#57606a", lw=0.8)
        for c in (c for c in result.changes if c.metric == metric):
            if not np.isfinite(c.change):
                continue
            col = CHANGE_COLORS[c.verdict]
            yy = y[(c.judge, c.benchmark)]
            ax.plot([c.lo, c.hi], [yy, yy], color=col, lw=2.2)
            ax.plot(c.change, yy, "o", color=col, ms=5)
        ax.set_title(f"{metric}  (±{delta:g})", fontsize=10)
        ax.set_yticks(range(len(rows)), [f"{j} · {b}" for j, b in rows], fontsize=8)
        ax.invert_yaxis()
        ax.tick_params(axis="x", labelsize=8)
    for ax in axes.ravel()[len(metrics) :]:
        ax.set_visible(False)
    handles = [
        matplotlib.lines.Line2D([], [], color=col, lw=2.2, marker="o", label=v.value)
        for v, col in CHANGE_COLORS.items()
    ]
    fig.legend(handles=handles, loc="lower center", ncol=4, frameon=False, fontsize=9)
    fig.suptitle("change new − old: median and 95% interval; grey: tolerated change")
    fig.tight_layout(rect=(0, 0.04, 1, 0.97))
    return fig


def _latex(result: DriftResult) -> str:
    rows = [
        [
            latex_escape(c.judge),
            latex_escape(c.benchmark),
            latex_escape(c.metric),
            f"{c.change:+.3f} [{c.lo:+.3f}, {c.hi:+.3f}]" if np.isfinite(c.change) else "--",
            f"{c.delta:g}",
            f"{c.p_exceeds:.2f}" if np.isfinite(c.p_exceeds) else "--",
            c.verdict.value,
        ]
        for c in result.changes
    ]
    header = ["Judge", "Benchmark", "Metric", "Change [95\\%]", "$\\delta$", "P($>\\delta$)", ""]
    return _tabular(
        "Change between snapshots (new $-$ old), paired by item.", "tab:drift", header, rows
    )


def _html(result: DriftResult, figure: str | None, title: str, summary: str) -> str:
    def table(frame) -> str:
        if frame.empty:
            return "<p>none</p>"
        return frame.to_html(index=False, float_format=lambda x: f"{x:.3f}", border=0)

    img = f'<img alt="change plot" src="{figure}">' if figure else ""
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title><style>body{{font-family:sans-serif;margin:2em}}"
        "table{border-collapse:collapse;font-size:12px}td,th{padding:2px 8px;"
        "border-bottom:1px solid #ddd}img{max-width:100%}</style></head><body>"
        f"<h1>{html.escape(title)}</h1><p>{html.escape(summary)}</p>"
        f"<pre>{html.escape(result.format())}</pre>{img}"
        "<h2>Every metric</h2>" + table(result.to_frame()) + "<h2>Item flips against "
        "run-to-run noise</h2>" + table(result.flips_frame()) + "</body></html>"
    )


def write_drift(
    result: DriftResult, out_dir: str | Path, *, title: str = "judgestats drift", summary: str = ""
) -> dict[str, Path]:
    """Write the drift folder (see the module docs) at once; return its files.

    Parameters
    ----------
    result : DriftResult
    out_dir : str or Path
        Created if needed; drift files already in it are replaced together.
    title : str
    summary : str
        One line about the two snapshots, shown under the title.

    Returns
    -------
    dict of str to Path
        ``html``, ``csv``, ``flips``, ``json``, ``tex``.
    """
    out = Path(out_dir)
    with matplotlib.rc_context(FIGURE_RC):
        fig = plot_drift(result)
        figure = figure_to_data_uri(fig) if fig is not None else None
    names = dict(zip(("html", "csv", "flips", "json", "tex"), DRIFT_FILES, strict=True))
    with atomic_output(out, folder_of=DRIFT_FILES) as tmp:
        tmp.mkdir(parents=True)
        (tmp / names["html"]).write_text(_html(result, figure, title, summary), encoding="utf-8")
        result.to_frame().to_csv(tmp / names["csv"], index=False)
        result.flips_frame().to_csv(tmp / names["flips"], index=False)
        (tmp / names["json"]).write_text(json.dumps(plain_json(result.to_json()), indent=1))
        (tmp / names["tex"]).write_text(_latex(result))
    return {k: out / v for k, v in names.items()}


def plain_json(value):
    """Return ``value`` with numpy scalars as Python numbers and NaN as None (valid JSON)."""
    if isinstance(value, dict):
        return {str(k): plain_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain_json(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
