"""The report: HTML, CSV/JSON, LaTeX and netCDF of a posterior fitted and checked.

:func:`write_report` writes the files; :func:`judgestats.pipeline.create_report`
reads, fits, checks and calls it. The files, in the output folder:

* ``index.html``: self-contained (opens offline; figures embedded as SVG data
  URIs): the verdict table, the plots, every verdict with its reason, the
  diagnostics (with any failed one at the top) and the import accounting;
* ``summary.csv`` and ``summary.json``: one record per judge, benchmark and
  quantity (:mod:`judgestats.report.tables`); with a plan (``report --plan``),
  ``summary.json`` also carries it under ``plan`` (:mod:`judgestats.report.plan`);
* ``tables.tex``: booktabs tables, values as ``0.51 [0.47, 0.55]``;
* ``posterior.nc``: the posterior (:func:`judgestats.models.load_posterior`): draws as
  compressed float32, without the quantities computed from other draws (ranks, rank
  shifts, deflation, ...), which loading recomputes, so that a report re-rendered from
  it gives the same verdicts.

Examples
--------
>>> from judgestats.pipeline import create_report
>>> from judgestats.simulate import simulate, small_cohort
>>> ds = simulate(small_cohort(), random_seed=0).dataset
>>> report = create_report(ds, "out", fast=True)  # doctest: +SKIP
>>> report.files["html"]  # doctest: +SKIP
PosixPath('out/index.html')
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import matplotlib
import numpy as np
import xarray as xr
from matplotlib.figure import Figure

from judgestats.accounting import ImportReport
from judgestats.io.store import atomic_output
from judgestats.mvvp import MVVPResult
from judgestats.report.html import render_html
from judgestats.report.plots import (
    FIGURE_RC,
    benchmark_groups,
    figure_to_data_uri,
    plot_agreement,
    plot_paradox,
    plot_position_bias,
    plot_ranks,
)
from judgestats.report.raters import add_to_summary as add_raters_to_summary
from judgestats.report.tables import latex_tables, summary_table, write_summary
from judgestats.report.terminal import Progress, terminal_summary
from judgestats.schema import Verdict

if TYPE_CHECKING:
    from judgestats.plan import PlanResult

__all__ = [
    "FIGURES",
    "REPORT_FILES",
    "Report",
    "describe_data",
    "figures",
    "terminal_summary",
    "write_report",
]

log = logging.getLogger("judgestats")

#: The files of a report folder.
REPORT_FILES = ("index.html", "summary.csv", "summary.json", "tables.tex", "posterior.nc")

#: Figures of the report, in page order.
FIGURES: dict[str, Callable[..., Figure | None]] = {
    "agreement": plot_agreement,
    "position_bias": plot_position_bias,
    "paradox": plot_paradox,
    "ranks": plot_ranks,
}
#: Figures drawn once per benchmark group (they take ``benchmarks=``).
GROUPED = ("agreement", "position_bias", "ranks")


@dataclass(frozen=True, eq=False)
class Report:
    """What :func:`judgestats.pipeline.create_report` made.

    Attributes
    ----------
    tree : xarray.DataTree
        The posterior.
    mvvp : MVVPResult
        The verdicts.
    files : dict of str to Path
        ``html``, ``csv``, ``json``, ``tex``, ``posterior``.
    plan : PlanResult or None
        How much more data settles each open verdict, when planned.
    """

    tree: xr.DataTree
    mvvp: MVVPResult
    files: dict[str, Path]
    plan: PlanResult | None = None


def describe_data(ds: xr.Dataset) -> str:
    """Return one line describing a Judgments dataset (judges, benchmarks, judgments)."""
    n = int((ds["verdict"].values != Verdict.MISSING).sum())
    benches = list(dict.fromkeys(ds["benchmark"].values.tolist()))
    return (
        f"{ds.sizes['judge']} judges, {len(benches)} benchmarks ({', '.join(benches)}), "
        f"{ds.sizes['item']} items, {n} judgments"
    )


def write_report(
    tree: xr.DataTree,
    result: MVVPResult,
    out_dir: str | Path,
    *,
    import_report: ImportReport | None = None,
    data_summary: str = "",
    title: str = "judgestats report",
    progress: Progress | None = None,
    plan: PlanResult | None = None,
) -> dict[str, Path]:
    """Write the report files of a fitted and checked posterior.

    Parameters
    ----------
    tree : xarray.DataTree
        The posterior.
    result : MVVPResult
        Its MVVP check.
    out_dir : str or Path
        Created if needed; existing report files in it are replaced, all at once.
    import_report : ImportReport, optional
        Shown at the end of the HTML page.
    data_summary : str, optional
        One line about the data, shown under the title.
    title : str, default "judgestats report"
    progress : Progress, optional
        Where stage lines go (default: the ``judgestats`` logger).
    plan : PlanResult, optional
        Adds the "settles with" column, the P(settled) plot and ``summary.json``'s
        ``plan`` (:mod:`judgestats.report.plan`).

    Returns
    -------
    dict of str to Path
        ``html``, ``csv``, ``json``, ``tex`` and ``posterior``.
    """
    from judgestats.models import save_posterior

    progress = progress or Progress()
    out = Path(out_dir)
    table = summary_table(result)
    # Written into a folder beside ``out`` and moved in when complete: an interrupted
    # run leaves the previous report (or none), never a partial one. posterior.nc is
    # written in a thread meanwhile: its compression runs outside the interpreter
    # lock, beside the figures, which hold it.
    with (
        atomic_output(out, folder_of=REPORT_FILES) as tmp,
        ThreadPoolExecutor(1, thread_name_prefix="posterior") as writer,
    ):
        tmp.mkdir(parents=True)
        posterior = writer.submit(save_posterior, tree, tmp / "posterior.nc")
        with progress.stage("drawing the plots"):
            images = figures(result, table, plan=plan)
        with progress.stage(f"writing the report into {out}"):
            files = {"html": tmp / "index.html", "tex": tmp / "tables.tex"}
            files["csv"], files["json"] = write_summary(result, tmp, table)
            add_raters_to_summary(files["json"], tree, result.config.prob)
            if plan is not None:  # the plan's numbers
                from judgestats.report.plan import add_to_summary

                add_to_summary(files["json"], plan)
            files["tex"].write_text(latex_tables(result, table))
            page = render_html(
                result,
                table,
                images,
                tree=tree,
                import_report=import_report,
                data_summary=data_summary,
                title=title,
                plan=plan,
            )
            files["html"].write_text(page, encoding="utf-8")
            files["posterior"] = posterior.result()
    files = {k: out / v.name for k, v in files.items()}
    return {k: files[k] for k in ("html", "csv", "json", "tex", "posterior")}


def figures(result: MVVPResult, table, plan: PlanResult | None = None) -> dict[str, str]:
    """Draw the report's figures, as image URIs by name, in page order.

    A figure of :data:`GROUPED` gets one image per benchmark group
    (:func:`~judgestats.report.plots.benchmark_groups`): ``agreement`` for the first,
    ``agreement-2`` and on for the next, so that each fits a screen. With a ``plan``,
    its P(settled) figure comes last (:func:`judgestats.report.plan.plot_plan`).
    """
    out = {}
    groups = benchmark_groups(result)
    with matplotlib.rc_context(FIGURE_RC), np.errstate(invalid="ignore"):
        for name, plot in FIGURES.items():
            if name in GROUPED and len(groups) > 1:
                drawn = {
                    name if i == 0 else f"{name}-{i + 1}": plot(result, table, benchmarks=group)
                    for i, group in enumerate(groups)
                }
            else:
                drawn = {name: plot(result, table)}
            out.update({k: figure_to_data_uri(f) for k, f in drawn.items() if f is not None})
        if plan is not None:
            from judgestats.report.plan import plot_plan

            fig = plot_plan(plan)
            if fig is not None:
                out["plan"] = figure_to_data_uri(fig)
    return out
