"""The plan in the report: the P(settled) plot, the "settles with" column, summary.json.

:func:`judgestats.pipeline.create_report` runs :func:`judgestats.plan.plan` when asked
(``report --plan``); these functions put its result on the page and in the files.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from judgestats.plan import PlanCase, PlanConfig, PlanResult
from judgestats.report.tables import json_text

__all__ = [
    "MAX_PLAN_CURVES",
    "PLAN_CAPTION",
    "REPORT_PLAN",
    "add_to_summary",
    "plot_plan",
    "settles_with",
]

#: The plan of ``report --plan``: half the futures and draws of ``judgestats plan``
#: (Monte Carlo error of a P(settled) at most 0.05), to keep the report quick.
REPORT_PLAN = PlanConfig(futures=100, draws=200)

#: Curves drawn per panel at most: the open verdicts closest to settling.
MAX_PLAN_CURVES = 12

#: Caption of the plot in the HTML report (``{target}``, ``{futures}`` filled in).
PLAN_CAPTION = (
    "Open verdicts: the probability that an INCONCLUSIVE verdict becomes PASS or FAIL "
    "if N more items are judged like the existing ones (left) or every item is judged "
    "K more times (right), predicted from the exact tier's posterior ({futures} "
    "simulated futures per point; band ±2 Monte Carlo s.e.). Dashed: the target "
    "{target:g}. The 'settles with' column of the verdict table gives the smallest N "
    "and K reaching it."
)


def _closest(cases: list[PlanCase], p_of) -> list[PlanCase]:
    """Return the cases closest to settling (highest P at the largest budget), capped."""
    return sorted(cases, key=lambda c: -p_of(c)[-1])[:MAX_PLAN_CURVES]


def plot_plan(plan: PlanResult) -> Figure | None:
    """Plot P(settled) against added items (and added runs) for the open verdicts.

    Parameters
    ----------
    plan : PlanResult

    Returns
    -------
    matplotlib.figure.Figure or None
        ``None`` when nothing is open. At most :data:`MAX_PLAN_CURVES` curves per
        panel, those closest to settling.
    """
    if not plan.cases:
        return None
    with_runs = [c for c in plan.cases if c.runs]
    panels = [("items", list(plan.cases), lambda c: (c.items, c.p_settled))]
    if with_runs:
        panels.append(("runs", with_runs, lambda c: (c.runs, c.p_settled_runs)))
    fig = Figure(figsize=(6.0 * len(panels) + 2.5, 4.6))
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    for ax, (kind, cases, points) in zip(axes, panels, strict=True):
        shown = _closest(cases, lambda c, pts=points: pts(c)[1])
        for c in shown:
            x, p = (np.asarray(v, dtype=float) for v in points(c))
            se = np.sqrt(p * (1 - p) / c.futures)
            label = f"{c.judge} · {c.benchmark} · step {int(c.step)}"
            (line,) = ax.plot(x, p, marker="o", ms=3.5, label=label)
            ax.fill_between(x, p - 2 * se, p + 2 * se, color=line.get_color(), alpha=0.15)
        ax.axhline(plan.config.target, color="#57606a", ls="--", lw=1)
        ax.set_ylim(0, 1)
        if kind == "items":
            ax.set_xscale("log")
            ax.set_xlabel("items added (labelled, judged like the existing ones)")
        else:
            ax.set_xticks(plan.config.run_grid)
            ax.set_xlabel("runs added to every item")
        ax.set_ylabel("P(verdict settles: PASS or FAIL)")
        more = f" ({len(shown)} of {len(cases)} shown)" if len(shown) < len(cases) else ""
        ax.set_title(f"by {kind}{more}", fontsize=10)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)
    fig.suptitle("How much more data settles each INCONCLUSIVE verdict", fontsize=11)
    fig.tight_layout()
    return fig


def settles_with(plan: PlanResult) -> Mapping[tuple[str, str], str]:
    """Return the "settles with" text of every (judge, benchmark) with an open verdict.

    One entry per open step, e.g. ``"step 2: +200 items / +2 runs"``; ``> +1600
    items`` when no point of the grid reaches the target.
    """
    out: dict[tuple[str, str], list[str]] = {}
    for c in plan.cases:
        out.setdefault((c.judge, c.benchmark), []).append(f"step {int(c.step)}: {c.settles_with}")
    return {k: "; ".join(v) for k, v in out.items()}


def add_to_summary(path: Path, plan: PlanResult) -> None:
    """Add the plan to a written ``summary.json`` under the key ``plan``.

    The file is rewritten in place: it lives in the report's temporary folder, which
    replaces the report only when complete.
    """
    from judgestats.report.drift import plain_json

    doc = json.loads(path.read_text())
    doc["plan"] = plain_json(plan.to_json())
    path.write_text(json_text(doc))
