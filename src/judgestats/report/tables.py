"""Tables of the report: the summary records (CSV/JSON) and booktabs LaTeX tables.

The summary has one record per judge, benchmark (or benchmark pair) and quantity,
read from the posterior summary the MVVP check used (so the numbers are those of
:func:`judgestats.models.summarize` with the same interval probability):

* ``value``: the posterior median, the centre of the equal-tailed interval; for the
  0/1 quantities ``paradox`` and ``top_k_all`` it is the posterior probability
  (the mean) and there is no interval;
* ``lo``/``hi``: the equal-tailed interval of probability ``prob``;
* ``threshold``/``p_threshold``: the threshold of the quantity and the posterior
  probability that it is met;
* ``step``/``verdict``/``reason``: for the quantity a step decides on (kappa,
  position bias, test-retest, the largest rank shift, the paradox), that step's
  verdict; empty for quantities only reported.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from judgestats.metrics.result import json_scalar
from judgestats.mvvp import MVVPResult, Step, format_estimate
from judgestats.mvvp.result import PROBABILITY_QUANTITIES, QUANTITY_LABELS

__all__ = [
    "RECORD_COLUMNS",
    "latex_escape",
    "latex_tables",
    "summary_json",
    "summary_table",
    "write_summary",
]

#: Columns of :func:`summary_table`, in order.
RECORD_COLUMNS: tuple[str, ...] = (
    "judge",
    "benchmark",
    "benchmark_pair",
    "quantity",
    "value",
    "lo",
    "hi",
    "prob",
    "mean",
    "sd",
    "threshold",
    "p_threshold",
    "step",
    "verdict",
    "reason",
    "r_hat",
    "ess_bulk",
    "ess_tail",
)


def _text(value: Any) -> str | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return str(value)


def _judged(result: MVVPResult, judge: str | None, bench: str | None) -> bool:
    return judge is None or bench is None or result.design.cell(judge, bench)["n_items"] > 0


def summary_table(result: MVVPResult) -> pd.DataFrame:
    """Return the summary records of an MVVP result (see the module docs).

    Parameters
    ----------
    result : MVVPResult
        From :func:`judgestats.mvvp.check`.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`RECORD_COLUMNS`; one row per judge, benchmark (or pair) and
        quantity, left out where the judge did not judge the benchmark.
    """
    steps: dict[tuple[Any, Any, Any], Any] = {
        (r.quantity, r.judge, r.benchmark): r for r in result.results
    }
    rows: list[dict[str, Any]] = []
    seen = set()
    for rec in result.summary.to_dict(orient="records"):
        name = rec["variable"]
        judge, bench = _text(rec.get("judge")), _text(rec.get("benchmark"))
        pair = _text(rec.get("benchmark_pair"))
        if not _judged(result, judge, bench):
            continue  # the judge did not judge the benchmark
        if name == "rank_shift" and not np.isfinite(rec["median"]):
            continue  # the judge lacks one of the two benchmarks
        probability = name in PROBABILITY_QUANTITIES
        row = {
            "judge": judge,
            "benchmark": bench,
            "benchmark_pair": pair,
            "quantity": name,
            "value": rec["mean"] if probability else rec["median"],
            "lo": np.nan if probability else rec["lo"],
            "hi": np.nan if probability else rec["hi"],
            "prob": rec["prob"],
            "mean": rec["mean"],
            "sd": rec["sd"],
            "threshold": rec["threshold"],
            "p_threshold": rec["p_threshold"],
            "step": None,
            "verdict": None,
            "reason": None,
            "r_hat": rec["r_hat"],
            "ess_bulk": rec["ess_bulk"],
            "ess_tail": rec["ess_tail"],
        }
        step = steps.get((name, judge, bench))
        if step is not None:
            seen.add(id(step))
            row.update(_step_fields(step))
        rows.append(row)
    for step in result.results:  # steps on quantities that are not posterior variables
        if id(step) not in seen:
            rows.append(
                {
                    "judge": step.judge,
                    "benchmark": step.benchmark,
                    "benchmark_pair": None,
                    "quantity": step.quantity,
                    "value": step.estimate,
                    "lo": step.lo,
                    "hi": step.hi,
                    "prob": step.prob,
                    "mean": np.nan,
                    "sd": np.nan,
                    "r_hat": np.nan,
                    "ess_bulk": np.nan,
                    "ess_tail": np.nan,
                    **_step_fields(step),
                }
            )
    frame = pd.DataFrame(rows, columns=list(RECORD_COLUMNS))
    frame["step"] = frame["step"].astype("Int64")
    return frame


def _step_fields(step) -> dict[str, Any]:
    return {
        "step": int(step.step),
        "verdict": step.verdict.value,
        "reason": step.reason,
        "threshold": step.threshold,
        "p_threshold": step.p_threshold_met,
        "value": step.estimate,
        "lo": step.lo,
        "hi": step.hi,
    }


def summary_json(result: MVVPResult, table: pd.DataFrame | None = None) -> dict[str, Any]:
    """Return the JSON document written to ``summary.json``.

    Parameters
    ----------
    result : MVVPResult
    table : pandas.DataFrame, optional
        :func:`summary_table` of ``result`` (computed when omitted).

    Returns
    -------
    dict
        ``model``, ``prob``, ``config`` (the MVVP thresholds), ``warnings`` (failed
        sampler diagnostics), ``misfits`` (flagged posterior predictive checks) and
        ``records`` (the rows, NaN as ``null``).
    """
    from dataclasses import asdict

    table = summary_table(result) if table is None else table
    rows = table.to_dict(orient="records")
    records = [{k: json_scalar(v) for k, v in rec.items()} for rec in rows]
    return {
        "model": result.model,
        "prob": result.config.prob,
        "config": asdict(result.config),
        "warnings": list(result.warnings),
        "misfits": list(result.misfits),
        "verdict_counts": {v.value: n for v, n in result.counts().items()},
        "records": records,
    }


def json_text(doc: dict[str, Any]) -> str:
    """Return a JSON document with a line per top-level key and per record of a list.

    As readable as ``indent=1`` for a table of records, and written by the C encoder
    (an indented dump is Python code, a second for LLMBar's 6,000 records).

    Examples
    --------
    >>> print(json_text({"model": "exact", "records": [{"a": 1}, {"a": None}]}), end="")
    {
     "model": "exact",
     "records": [
      {"a": 1},
      {"a": null}
     ]
    }
    """
    parts = []
    for key, value in doc.items():
        if isinstance(value, list) and value and all(isinstance(r, dict) for r in value):
            rows = ",\n  ".join(json.dumps(r) for r in value)
            parts.append(f"{json.dumps(key)}: [\n  {rows}\n ]")
        else:
            parts.append(f"{json.dumps(key)}: {json.dumps(value)}")
    return "{\n " + ",\n ".join(parts) + "\n}\n"


def write_summary(
    result: MVVPResult, folder: Path, table: pd.DataFrame | None = None
) -> tuple[Path, Path]:
    """Write ``summary.csv`` and ``summary.json`` into ``folder``.

    Parameters
    ----------
    result : MVVPResult
    folder : Path
    table : pandas.DataFrame, optional
        :func:`summary_table` of ``result`` (computed when omitted).

    Returns
    -------
    tuple of Path
        The CSV and JSON files.
    """
    table = summary_table(result) if table is None else table
    csv_path, json_path = folder / "summary.csv", folder / "summary.json"
    table.to_csv(csv_path, index=False)
    json_path.write_text(json_text(summary_json(result, table)))
    return csv_path, json_path


# --------------------------------------------------------------------------- LaTeX

_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def latex_escape(text: str) -> str:
    r"""Escape LaTeX's special characters in plain text (judge and benchmark names).

    Examples
    --------
    >>> print(latex_escape("LLMEval^2 & gpt_4 50%"))
    LLMEval\textasciicircum{}2 \& gpt\_4 50\%
    """
    return "".join(_LATEX_SPECIAL.get(c, c) for c in str(text))


def _tabular(caption: str, label: str, header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    r"""Return one booktabs table (pandas' :meth:`~pandas.io.formats.style.Styler.to_latex`).

    Cells and headers arrive escaped (:func:`latex_escape`): names only need it, and
    the estimates and ``$\kappa$`` are LaTeX already.
    """
    frame = pd.DataFrame([list(r) for r in rows], columns=list(header))
    styler = frame.style.hide(axis="index").set_table_styles([{"selector": "small", "props": ":;"}])
    return styler.to_latex(
        caption=caption,
        label=label,
        position="ht",
        position_float="centering",
        hrules=True,
        column_format="l" * len(header),
    )


class _Cells:
    """Formatted estimates of the summary records, looked up by (quantity, judge, where)."""

    def __init__(self, table: pd.DataFrame) -> None:
        where = table["benchmark"].where(table["benchmark"].notna(), table["benchmark_pair"])
        keys = zip(table["quantity"], table["judge"], where, strict=True)
        values = zip(table["value"], table["lo"], table["hi"], strict=True)
        self._rows: dict[tuple[Any, Any, Any], tuple[float, float, float]] = {}
        for key, value in zip(keys, values, strict=True):
            self._rows.setdefault(key, value)

    def __call__(self, quantity: str, judge: str, where: str) -> str:
        row = self._rows.get((quantity, judge, where))
        if row is None:
            return "---"
        text = format_estimate(quantity, *row)
        return "---" if text == "n/a" else text


_METRIC_COLUMNS = ("kappa", "exact_match", "deflation", "position_bias", "test_retest")


def latex_tables(result: MVVPResult, table: pd.DataFrame | None = None) -> str:
    r"""Return booktabs tables for papers: metrics, ranks and MVVP verdicts.

    Values are posterior medians with equal-tailed intervals, ``0.51 [0.47, 0.55]``
    (ranks ``5 [3, 8]``); ``---`` where a quantity is not measured. Judge and
    benchmark names are escaped. The document needs ``\usepackage{booktabs}``.

    Parameters
    ----------
    result : MVVPResult
    table : pandas.DataFrame, optional
        :func:`summary_table` of ``result``.

    Returns
    -------
    str
    """
    table = summary_table(result) if table is None else table
    cell = _Cells(table)
    pct = f"{result.config.prob:.0%}".replace("%", r"\%")
    cells = [
        (j, b)
        for j in result.judges
        for b in result.benchmarks
        if result.design.cell(j, b)["n_items"] > 0
    ]
    header = [
        "Judge",
        "Benchmark",
        *(QUANTITY_LABELS[q].capitalize() for q in _METRIC_COLUMNS),
    ]
    header[2] = r"$\kappa$"
    rows = [
        [latex_escape(j), latex_escape(b), *(cell(q, j, b) for q in _METRIC_COLUMNS)]
        for j, b in cells
    ]
    parts = [
        "% judgestats report tables; requires \\usepackage{booktabs}",
        _tabular(
            f"Validation metrics per judge and benchmark: posterior median [{pct} "
            f"equal-tailed interval], {latex_escape(result.model)} model.",
            "tab:judgestats-metrics",
            header,
            rows,
        ),
    ]
    ranked = [
        b
        for b in result.benchmarks
        if (
            (table["quantity"] == "rank") & (table["benchmark"] == b) & table["value"].notna()
        ).any()
    ]
    if ranked:
        rows = [
            [latex_escape(j), *(cell("rank", j, b) for b in ranked)]
            for j in result.judges
            if any(cell("rank", j, b) != "---" for b in ranked)
        ]
        parts.append(
            _tabular(
                f"Rank of each judge per benchmark ({result.rank_words}): posterior median "
                f"[{pct} interval].",
                "tab:judgestats-ranks",
                ["Judge", *(latex_escape(b) for b in ranked)],
                rows,
            )
        )
    verdict = {(r.step, r.judge, r.benchmark): r.verdict.value for r in result.results}
    verdict_rows = []
    for j, b in cells:
        row = [latex_escape(j), latex_escape(b)]
        for step in Step:
            row.append(verdict.get((step, j, b if step.per_benchmark else None), "---"))
        verdict_rows.append(row)
    parts.append(
        _tabular(
            f"MVVP verdicts ({pct} intervals): PASS, FAIL, INCONCLUSIVE or NOT MEASURED. "
            "Step 4 is per judge.",
            "tab:judgestats-mvvp",
            ["Judge", "Benchmark", *(f"{int(s)}. {s.title}" for s in Step)],
            verdict_rows,
        )
    )
    return "\n".join(parts)
