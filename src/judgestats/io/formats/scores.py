"""Reward-model score tables: a long table with ``score_a`` and ``score_b`` per item and order.

Layout accepted
---------------
The generic table layout (:mod:`judgestats.io.formats.table`: ``judge``, ``item``,
``order``, ``run``, ``benchmark``, ``category``, ``human``, lengths, models; CSV, TSV,
JSONL or Parquet) with, instead of ``verdict``, two numeric columns:

===========  ===============================================================
column       meaning
===========  ===============================================================
score_a      the reward model's score of the item's response A (item frame)
score_b      its score of response B, in the same presentation
===========  ===============================================================

What is imported
----------------
The verdict is the comparison: A when ``score_a - score_b > tie_tolerance``, B when
``score_b - score_a > tie_tolerance``, a tie otherwise. An empty or NaN score is
``INVALID`` (the model gave no score); a score that is not a number rejects its row.
The scores are kept as the variables ``score_a`` and ``score_b``. Other columns, and
the ``columns=`` mapping (which may also rename ``score_a``/``score_b``), are as for
the generic table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from judgestats.accounting import Reject
from judgestats.errors import LogFormatError
from judgestats.io.formats.table import load_table, parse_table, table_columns, table_header
from judgestats.io.kit import (
    Detection,
    Parsed,
    SourceImporter,
)

__all__ = ["IMPORTER", "from_scores"]

_FORMAT = "scores"
_SCORES = ("score_a", "score_b")


def from_scores(
    path: str | Path,
    *,
    tie_tolerance: float = 0.0,
    columns: Mapping[str, str | Sequence[str]] | None = None,
    benchmark: str | None = None,
    label_kind: str | None = None,
    file_format: str | None = None,
) -> Parsed:
    """Read a reward-model score table; verdicts by comparing the two scores.

    Parameters
    ----------
    path : str or Path
        The file.
    tie_tolerance : float, default 0.0
        Scores closer than or as close as this are a tie.
    columns : mapping, optional
        ``{field: your_column}``, for the table fields and ``score_a``/``score_b``.
    benchmark, label_kind, file_format
        As for :func:`~judgestats.io.formats.table.from_table`.

    Returns
    -------
    Parsed
        One judgment per row, with the variables ``score_a`` and ``score_b``.

    Raises
    ------
    LogFormatError
        If the file is empty or lacks a score column.
    ValueError
        If ``tie_tolerance`` is negative or not a number.

    Examples
    --------
    >>> from judgestats.io.formats.scores import from_scores
    >>> p = from_scores("rm_scores.csv", tie_tolerance=0.01)  # doctest: +SKIP
    """
    path = Path(path)
    if not isinstance(tie_tolerance, (int, float)) or not tie_tolerance >= 0:
        raise ValueError(f"tie_tolerance={tie_tolerance!r}; use a number >= 0")
    columns = dict(columns or {})
    names = {s: str(columns.pop(s, s)) for s in _SCORES}
    df, rejects = load_table(path, file_format)
    missing = [n for n in names.values() if n not in df.columns]
    if missing and not df.empty:
        raise LogFormatError(
            f"{path}:1: score column(s) {missing} missing; columns are"
            f" {table_columns(df)}; map yours with columns={{'score_a': ..., 'score_b': ...}}"
        )
    if df.empty:
        return parse_table(path, df, rejects, format_name=_FORMAT)
    raw = {s: df[names[s]].astype(str).str.strip() for s in _SCORES}
    values = {s: pd.to_numeric(raw[s].replace("", "nan"), errors="coerce") for s in _SCORES}
    bad = np.zeros(len(df), dtype=bool)
    for s in _SCORES:
        not_number = values[s].isna() & ~raw[s].str.lower().isin(["", "nan", "none", "null"])
        for i in np.flatnonzero(not_number.to_numpy() & ~bad):
            rejects.append(
                Reject(
                    str(path),
                    int(df["_line"].iloc[i]),
                    f"{names[s]} {raw[s].iloc[i]!r} is not a number; leave it empty for a"
                    " model that gave no score",
                )
            )
        bad |= not_number.to_numpy()
    df = df[~bad].copy()
    a, b = values["score_a"][~bad], values["score_b"][~bad]
    diff = a - b
    df["verdict"] = np.select(
        [diff.isna(), diff > tie_tolerance, diff < -tie_tolerance],
        ["invalid", "A", "B"],
        default="tie",
    )
    parsed = parse_table(
        path,
        df,
        sorted(rejects, key=lambda r: r.line or 0),
        columns={**columns, "verdict": "verdict"},
        benchmark=benchmark,
        label_kind=label_kind,
        format_name=_FORMAT,
    )
    by_line = pd.DataFrame(
        {"line": df["_line"].to_numpy(), "score_a": a.to_numpy(), "score_b": b.to_numpy()}
    )
    judgments = parsed.judgments.merge(by_line, on="line", how="left")
    return Parsed(
        parsed.file,
        _FORMAT,
        judgments,
        parsed.labels,
        parsed.items,
        parsed.rejects,
        notes=parsed.notes,
    )


def _detect(path: Path) -> Detection:
    """Accept tables whose header has ``item``, ``score_a`` and ``score_b``."""
    names = table_header(path)
    if names is None:
        return Detection(False, f"suffix {path.suffix!r} is not a table suffix")
    if {"item", *_SCORES} <= names:
        return Detection(True, "table with item, score_a and score_b columns", priority=2)
    return Detection(False, "table without 'item', 'score_a' and 'score_b' columns")


IMPORTER = SourceImporter(
    _FORMAT,
    "reward-model scores: long table with score_a, score_b per item and order",
    from_scores,
    _detect,
)
