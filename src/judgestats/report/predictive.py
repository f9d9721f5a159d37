"""The report's posterior predictive checks (:mod:`judgestats.models.ppc`).

A section of the HTML page, present when the posterior has a ``predictive`` group
(the hierarchical tier): a table per benchmark (inter-judge agreement observed
against replicated, the smallest p-value of the judges' pattern-frequency and trait
checks, how many are flagged) and one figure per group of benchmarks, the most
frequent verdict patterns' observed shares against their replicated intervals.
"""

from __future__ import annotations

import html
import json

import numpy as np
import pandas as pd
import xarray as xr
from matplotlib.figure import Figure

from judgestats.models.ppc import MISFIT_LEVEL, flagged, misfit_level
from judgestats.report.markup import grid_html
from judgestats.report.plots import figure_to_data_uri

__all__ = ["plot_predictive", "predictive_html", "predictive_table", "section"]

#: Benchmarks per figure (a screen's worth of panels).
_PER_FIGURE = 4


def predictive_table(predictive: xr.Dataset) -> pd.DataFrame:
    """One row per benchmark: what the checks found.

    Parameters
    ----------
    predictive : xarray.Dataset
        The ``predictive`` group of a fit.

    Returns
    -------
    pandas.DataFrame
    """
    rep = predictive["agreement_replicated"]
    flags = {name: flagged(predictive, name) for name in ("ppc_patterns", "ppc_trait")}
    rows = []
    for b in predictive["benchmark"].values:
        pat = predictive["ppc_patterns"].sel(benchmark=b).values
        trait = predictive["ppc_trait"].sel(benchmark=b).values
        lo, hi = rep.sel(benchmark=b, quantile=[0.05, 0.95]).values
        rows.append(
            {
                "benchmark": str(b),
                "agreement observed": predictive["agreement_observed"].sel(benchmark=b).item(),
                "agreement replicated (90%)": f"{lo:.3f} – {hi:.3f}",
                "agreement p": predictive["ppc_agreement"].sel(benchmark=b).item(),
                "patterns: smallest p": np.nanmin(pat) if np.isfinite(pat).any() else np.nan,
                "patterns flagged": int(flags["ppc_patterns"].sel(benchmark=b).sum()),
                "traits: smallest p": np.nanmin(trait) if np.isfinite(trait).any() else np.nan,
                "traits flagged": int(flags["ppc_trait"].sel(benchmark=b).sum()),
            }
        )
    return pd.DataFrame(rows)


def plot_predictive(predictive: xr.Dataset, benchmarks: list[str]) -> Figure | None:
    """Observed shares of the most frequent patterns against their replicated intervals.

    Parameters
    ----------
    predictive : xarray.Dataset
    benchmarks : list of str
        One panel each.

    Returns
    -------
    matplotlib.figure.Figure or None
        None when no benchmark has a pattern.
    """
    names = predictive["pattern_name"]
    shown = [b for b in benchmarks if any(str(n) for n in names.sel(benchmark=b).values)]
    if not shown:
        return None
    fig = Figure(figsize=(4.6 * len(shown), 3.6), layout="constrained")
    axes = np.atleast_1d(fig.subplots(1, len(shown), squeeze=False)[0])
    for ax, b in zip(axes, shown, strict=True):
        labels = [str(n) for n in names.sel(benchmark=b).values]
        keep = [i for i, n in enumerate(labels) if n]
        y = np.arange(len(keep))
        q = predictive["pattern_share_replicated"].sel(benchmark=b).values[:, keep]
        obs = predictive["pattern_share_observed"].sel(benchmark=b).values[keep]
        ax.hlines(y, q[0], q[2], color="#4c72b0", lw=5, alpha=0.6, label="replicated 90%")
        ax.plot(obs, y, "o", color="black", ms=4, label="observed")
        ax.set_yticks(y, [labels[i] for i in keep], fontsize=7)
        ax.invert_yaxis()
        ax.set_xlabel("share of items (all judges)", fontsize=8)
        ax.tick_params(axis="x", labelsize=7)
        agree = predictive["agreement_observed"].sel(benchmark=b).item()
        p = predictive["ppc_agreement"].sel(benchmark=b).item()
        ax.set_title(f"{b}\ninter-judge agreement {agree:.3f} (p = {p:.2g})", fontsize=9)
    axes[0].legend(fontsize=7, loc="lower right", frameon=False)
    return fig


#: What an agreement flag means for the intervals, judges paired after sampling or not.
_PAIRED = (
    " The likelihood treats judges as independent given the hyper-parameters; their "
    "draws are then paired through the items they share (each item's bootstrap weight is "
    "shared by its judges). Where judges share much, that pairing is partial and the "
    "intervals of differences between judges err wide, not narrow (simulated in "
    "benchmarks/bench_pairing.py)."
)
_UNPAIRED = (
    " This fit drew the judges independently given the hyper-parameters (pair_items "
    "off): differences, ranks and rank shifts ignore the items the judges share."
)


def predictive_html(predictive: xr.Dataset, paired: bool = True) -> str:
    """Return the HTML section of the checks: explanation, table, figures.

    Parameters
    ----------
    predictive : xarray.Dataset
    paired : bool, default True
        Whether the fit paired its judges' draws through their items
        (``HierarchicalConfig.pair_items``): what an agreement flag means for the
        intervals.

    Returns
    -------
    str
    """
    level = misfit_level(predictive)
    table = predictive_table(predictive)
    parts = [
        "<p>Every judge's items were drawn again from the fitted pattern distribution of "
        "each posterior draw. Pattern frequencies (Freeman-Tukey discrepancy) and the judge "
        "traits (A verdicts, ties, invalid answers, first-position picks, flips, run "
        "agreement) are checked judge by judge, inter-judge agreement (same verdict pattern "
        "on an item) benchmark by benchmark. A check is flagged below "
        f"p = {level:.2g} ({MISFIT_LEVEL} over every check of the fit); below what the "
        "replicates can show, a check none of whose replicates is as extreme is flagged "
        "when a normal approximation of them is below it too. Flagged checks are "
        "listed with the diagnostics. Agreement observed above its replicated interval "
        "means the judges share more, item by item, than the model's independent "
        f"replicates do (item difficulty).{_PAIRED if paired else _UNPAIRED}</p>",
        grid_html(table),
    ]
    benchmarks = [str(b) for b in predictive["benchmark"].values]
    for start in range(0, len(benchmarks), _PER_FIGURE):
        fig = plot_predictive(predictive, benchmarks[start : start + _PER_FIGURE])
        if fig is not None:
            parts.append(
                f'<figure><img alt="posterior predictive check" src="{figure_to_data_uri(fig)}">'
                "<figcaption>The most frequent verdict patterns (all judges): observed share "
                "(dot) against the 90% interval of replicated data (bar).</figcaption></figure>"
            )
    return "\n".join(parts)


def section(tree: xr.DataTree | None) -> list[str]:
    """Return the section's HTML parts, none without a ``predictive`` group.

    The flagged checks (the tree's ``misfits`` attr) come first, in a warning box.
    """
    if tree is None or "predictive" not in tree.children:
        return []
    parts = ["<h2>Posterior predictive checks</h2>"]
    flagged = json.loads(tree.attrs.get("misfits", "[]"))
    if flagged:
        items = "".join(f"<li>{html.escape(w)}</li>" for w in flagged)
        parts.append(
            f'<div class="warn"><strong>{len(flagged)} check(s) flagged</strong>: the model '
            f"misses something in these data; read its intervals with care.<ul>{items}</ul></div>"
        )
    else:
        parts.append('<p class="ok">No posterior predictive check is flagged.</p>')
    paired = json.loads(tree.attrs.get("config", "{}")).get("pair_items", True)
    parts.append(predictive_html(tree["predictive"].to_dataset(), bool(paired)))
    return parts
