"""The report: fit, check the MVVP, and write HTML, CSV/JSON, LaTeX and netCDF.

:func:`create_report` does it all for a Judgments dataset; :func:`write_report`
writes the files of a posterior already fitted and checked. The files, in the
output folder:

* ``index.html``: self-contained (opens offline; figures embedded as PNG data
  URIs): the verdict table, the plots, every verdict with its reason, the
  diagnostics (with any failed one at the top) and the import accounting;
* ``summary.csv`` and ``summary.json``: one record per judge, benchmark and
  quantity (:mod:`judgestats.report.tables`);
* ``tables.tex``: booktabs tables, values as ``0.51 [0.47, 0.55]``;
* ``posterior.nc``: the posterior (:func:`judgestats.models.load_posterior`).

Examples
--------
>>> from judgestats.report import create_report
>>> from judgestats.simulate import simulate, small_cohort
>>> ds = simulate(small_cohort(), random_seed=0).dataset
>>> report = create_report(ds, "out", fast=True)  # doctest: +SKIP
>>> report.files["html"]  # doctest: +SKIP
PosixPath('out/index.html')
"""

from __future__ import annotations

import logging
import warnings
from dataclasses import dataclass, replace
from pathlib import Path

import matplotlib
import numpy as np
import xarray as xr

from judgestats.accounting import ImportReport
from judgestats.io.store import atomic_output
from judgestats.models.derived import DerivedConfig
from judgestats.mvvp import MVVPConfig, MVVPResult, check
from judgestats.report.html import render_html
from judgestats.report.plots import (
    figure_to_data_uri,
    plot_agreement,
    plot_paradox,
    plot_position_bias,
    plot_ranks,
)
from judgestats.report.tables import latex_tables, summary_table, write_summary
from judgestats.report.terminal import Progress, terminal_summary
from judgestats.schema import Verdict

__all__ = [
    "Report",
    "create_report",
    "describe_data",
    "fit_posterior",
    "terminal_summary",
    "write_report",
]

log = logging.getLogger("judgestats")

#: The files of a report folder.
REPORT_FILES = ("index.html", "summary.csv", "summary.json", "tables.tex", "posterior.nc")

#: Figures of the report, in page order.
FIGURES = {
    "agreement": plot_agreement,
    "position_bias": plot_position_bias,
    "paradox": plot_paradox,
    "ranks": plot_ranks,
}


@dataclass(frozen=True, eq=False)
class Report:
    """What :func:`create_report` made.

    Attributes
    ----------
    tree : xarray.DataTree
        The posterior.
    mvvp : MVVPResult
        The verdicts.
    files : dict of str to Path
        ``html``, ``csv``, ``json``, ``tex``, ``posterior``.
    """

    tree: xr.DataTree
    mvvp: MVVPResult
    files: dict[str, Path]


def describe_data(ds: xr.Dataset) -> str:
    """Return one line describing a Judgments dataset (judges, benchmarks, judgments)."""
    n = int((ds["verdict"].values != Verdict.MISSING).sum())
    benches = list(dict.fromkeys(ds["benchmark"].values.tolist()))
    return (
        f"{ds.sizes['judge']} judges, {len(benches)} benchmarks ({', '.join(benches)}), "
        f"{ds.sizes['item']} items, {n} judgments"
    )


def fit_posterior(
    ds: xr.Dataset,
    *,
    fast: bool = False,
    draws: int | None = None,
    tune: int | None = None,
    chains: int | None = None,
    random_seed: int | None = 0,
    derived: DerivedConfig | None = None,
    prior_scale: float | None = None,
) -> xr.DataTree:
    """Fit the report's model: hierarchical by default, the exact tier if ``fast``.

    Parameters
    ----------
    ds : xarray.Dataset
        A Judgments dataset.
    fast : bool, default False
        Use :class:`~judgestats.models.ExactModel` (seconds, no MCMC).
    draws, tune, chains : int, optional
        Override the tier's defaults (``tune`` applies to the hierarchical tier).
    random_seed : int, optional, default 0
    derived : DerivedConfig, optional
        Ranking metric, ``k`` of top-k and paradox thresholds.
    prior_scale : float, optional
        ``HierarchicalConfig.prior_scale`` (the hierarchical tier only).

    Returns
    -------
    xarray.DataTree
        Failed diagnostics are in its ``warnings`` attr (and logged), not raised.
    """
    from judgestats.models import ConvergenceWarning, ExactModel, HierarchicalModel

    model_cls = ExactModel if fast else HierarchicalModel
    config = model_cls.default_config
    overrides = {"draws": draws, "chains": chains}
    if not fast:
        overrides["tune"] = tune
        overrides["prior_scale"] = prior_scale
    config = replace(config, **{k: v for k, v in overrides.items() if v is not None})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        tree = model_cls(config, derived).fit(ds, random_seed=random_seed)
    failed = [w for w in caught if issubclass(w.category, ConvergenceWarning)]
    for w in caught:
        if w not in failed:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if failed:  # listed in full by the report; one line here
        log.warning(
            "%d sampler diagnostic(s) failed (first: %s); the report lists them",
            len(failed),
            failed[0].message,
        )
    return tree


def write_report(
    tree: xr.DataTree,
    result: MVVPResult,
    out_dir: str | Path,
    *,
    import_report: ImportReport | None = None,
    data_summary: str = "",
    title: str = "judgestats report",
    progress: Progress | None = None,
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

    Returns
    -------
    dict of str to Path
        ``html``, ``csv``, ``json``, ``tex`` and ``posterior``.
    """
    from judgestats.models import save_posterior

    progress = progress or Progress()
    out = Path(out_dir)
    table = summary_table(result)
    with progress.stage("drawing the plots"):
        figures = _figures(result, table)
    # Written into a folder beside ``out`` and moved in when complete: an interrupted
    # run leaves the previous report (or none), never a partial one.
    with (
        progress.stage(f"writing the report into {out}"),
        atomic_output(out, folder_of=REPORT_FILES) as tmp,
    ):
        tmp.mkdir(parents=True)
        files = {"html": tmp / "index.html", "tex": tmp / "tables.tex"}
        files["csv"], files["json"] = write_summary(result, tmp)
        files["tex"].write_text(latex_tables(result, table))
        page = render_html(
            result,
            table,
            figures,
            tree=tree,
            import_report=import_report,
            data_summary=data_summary,
            title=title,
        )
        files["html"].write_text(page, encoding="utf-8")
        files["posterior"] = save_posterior(tree, tmp / "posterior.nc")
    files = {k: out / v.name for k, v in files.items()}
    return {k: files[k] for k in ("html", "csv", "json", "tex", "posterior")}


def _figures(result: MVVPResult, table) -> dict[str, str]:
    out = {}
    with matplotlib.rc_context({"font.family": "DejaVu Sans"}), np.errstate(invalid="ignore"):
        for name, plot in FIGURES.items():
            fig = plot(result, table)
            if fig is not None:
                out[name] = figure_to_data_uri(fig)
    return out


def create_report(
    ds: xr.Dataset,
    out_dir: str | Path,
    *,
    fast: bool = False,
    draws: int | None = None,
    tune: int | None = None,
    chains: int | None = None,
    random_seed: int | None = 0,
    config: MVVPConfig | None = None,
    import_report: ImportReport | None = None,
    title: str = "judgestats report",
    progress: Progress | None = None,
) -> Report:
    """Fit, check the MVVP and write the report of a Judgments dataset.

    Parameters
    ----------
    ds : xarray.Dataset
        A Judgments dataset with at least one verdict.
    out_dir : str or Path
        Output folder (see the module docs for its files).
    fast, draws, tune, chains, random_seed
        As in :func:`fit_posterior`.
    config : MVVPConfig, optional
        Thresholds and interval probability of the check.
    import_report : ImportReport, optional
        The accounting of the import, shown in the HTML (default: the dataset's
        ``accounting`` attr).
    title : str, default "judgestats report"
    progress : Progress, optional
        Where stage lines go (default: the ``judgestats`` logger).

    Returns
    -------
    Report
    """
    progress = progress or Progress()
    if import_report is None:
        import_report = ImportReport.from_json(ds.attrs.get("accounting", ""))
    tier = "exact" if fast else "hierarchical"
    with progress.stage(f"fitting the {tier} model"):
        tree = fit_posterior(
            ds, fast=fast, draws=draws, tune=tune, chains=chains, random_seed=random_seed
        )
    with progress.stage("checking the MVVP steps"):
        result = check(tree, ds, config)
    files = write_report(
        tree,
        result,
        out_dir,
        import_report=import_report,
        data_summary=describe_data(ds),
        title=title,
        progress=progress,
    )
    return Report(tree, result, files)
