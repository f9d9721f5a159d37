"""The pipeline: read → tally → fit → check, and the report of it all.

Each stage lives in its own package (:mod:`judgestats.io`, :mod:`judgestats.tally`,
:mod:`judgestats.models`, :mod:`judgestats.mvvp`, :mod:`judgestats.report`); this
module only joins them, so that the command line, notebooks and scripts run the same
sequence with the same settings. The MVVP thresholds flow into the fit (the
posterior's paradox indicator and ranks use them) and are stored in the posterior's
attrs (``mvvp_config``), so that a report re-rendered from ``posterior.nc`` checks
with the same values.
"""

from __future__ import annotations

import json
import logging
import warnings
from dataclasses import asdict, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import xarray as xr

from judgestats.accounting import ImportReport
from judgestats.models.derived import DerivedConfig
from judgestats.models.raters import rater_agreement
from judgestats.mvvp import MVVPConfig, check
from judgestats.report import Report, describe_data, write_report
from judgestats.report.terminal import Progress

if TYPE_CHECKING:
    from judgestats.plan import PlanConfig

__all__ = ["create_report", "derived_for", "fit_posterior"]

log = logging.getLogger("judgestats")


def derived_for(config: MVVPConfig, derived: DerivedConfig | None = None) -> DerivedConfig:
    """Return the derived-quantity settings with the paradox thresholds of ``config``."""
    return replace(
        derived or DerivedConfig(),
        paradox_test_retest=config.paradox_test_retest,
        paradox_position_bias=config.paradox_position_bias,
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
    from judgestats.models import ConvergenceWarning, ExactModel, HierarchicalModel, MisfitWarning

    model_cls = ExactModel if fast else HierarchicalModel
    config = model_cls.default_config
    overrides: dict[str, Any] = {"draws": draws, "chains": chains}
    if not fast:
        overrides["tune"] = tune
        overrides["prior_scale"] = prior_scale
    config = replace(config, **{k: v for k, v in overrides.items() if v is not None})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        warnings.simplefilter("always", MisfitWarning)
        tree = model_cls(config, derived).fit(ds, random_seed=random_seed)
    failed = [w for w in caught if issubclass(w.category, ConvergenceWarning)]
    misfit = [w for w in caught if issubclass(w.category, MisfitWarning)]
    for w in caught:
        if w not in failed and w not in misfit:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    for found, what in ((failed, "sampler diagnostic(s) failed"), (misfit, "misfit(s) found")):
        if found:  # listed in full by the report; one line here
            log.warning(
                "%d %s (first: %s); the report lists them", len(found), what, found[0].message
            )
    return tree


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
    derived: DerivedConfig | None = None,
    plan: PlanConfig | None = None,
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
    derived : DerivedConfig, optional
        Ranking metric and ``k`` of top-k; its paradox thresholds are those of
        ``config``.
    plan : PlanConfig, optional
        Also predict how many more items or runs settle each INCONCLUSIVE verdict
        (:func:`judgestats.plan.plan`, on the exact tier whatever ``fast`` says) and
        put it in the report; by default nothing is planned.

    Returns
    -------
    Report
    """
    progress = progress or Progress()
    if import_report is None:
        import_report = ImportReport.from_json(ds.attrs.get("accounting", ""))
    config = config or MVVPConfig()
    tier = "exact" if fast else "hierarchical"
    with progress.stage(f"fitting the {tier} model"):
        tree = fit_posterior(
            ds,
            fast=fast,
            draws=draws,
            tune=tune,
            chains=chains,
            random_seed=random_seed,
            derived=derived_for(config, derived),
        )
    tree.attrs["mvvp_config"] = json.dumps(asdict(config))
    raters = rater_agreement(ds, random_seed=random_seed)
    if raters is not None:  # items with several human raters
        tree["raters"] = xr.DataTree(raters)
    with progress.stage("checking the MVVP steps"):
        result = check(tree, ds, config)
    planned = None
    if plan is not None:  # the plan of the open verdicts
        from judgestats.plan import plan as plan_open

        with progress.stage("planning the open verdicts (exact tier)"):
            planned = plan_open(ds, result, plan, random_seed=random_seed)
    files = write_report(
        tree,
        result,
        out_dir,
        import_report=import_report,
        data_summary=describe_data(ds),
        title=title,
        progress=progress,
        plan=planned,
    )
    return Report(tree, result, files, planned)
