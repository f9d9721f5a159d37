"""Generic long tables: one row per judgment, in CSV, TSV, JSONL or Parquet.

Layout accepted (column names are defaults; map yours with ``columns=``):

=============  ========  ==============================================================
column         required  meaning
=============  ========  ==============================================================
judge          yes*      judge name (*a row with an empty judge and a ``human`` value
                         is a label-only record)
item           yes       item key, unique within its benchmark
verdict        yes*      the judge's verdict (vocabulary below, mappable)
order          no        ``AB``/``original``/``0``/``false`` or ``BA``/``swapped``/``1``/
                         ``true``; absent or empty = ``unknown`` (not recorded)
run            no        replicate index (integer, default 0)
benchmark      no        default: the ``benchmark=`` argument, else the file's stem
category       no        item category
label_kind     no        ``preference`` or ``correctness`` (or the ``label_kind=`` argument)
human          no        human or gold label, one column or a list of columns (one per rater)
rater          no        who gave ``human`` (default ``human``)
length_a/_b    no        response lengths
model_a/_b     no        models that wrote the responses
=============  ========  ==============================================================

Verdicts are matched case-insensitively after stripping. The default vocabulary
maps ``A``, ``model_a``, ``response_a``, ``[[A]]``, ``A>B``, ``A>>B``, ``1`` to A; the
same with B (and ``2``) to B; ``tie``, ``C``, ``[[C]]``, ``A=B``, ``tie (bothbad)``,
``draw``, ``0`` to tie; ``invalid``, ``error`` to invalid. With ``frame="presented"``
verdicts name the presentation slot (``first``/``second``, or A/B meaning slot) and
are converted to the item frame with the order; rows with unknown order are then
rejected. A string in neither the default nor the ``verdict_map=`` vocabulary is
rejected with the row's line, never guessed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from judgestats.accounting import Reject
from judgestats.errors import LogFormatError
from judgestats.io._assemble import Parsed, item_id
from judgestats.io._records import option_names
from judgestats.io._text import iter_csv, iter_jsonl, sniff_text
from judgestats.io.registry import Detection, register
from judgestats.io.verdicts import VerdictExtractor
from judgestats.schema import LABEL_KINDS, Verdict

__all__ = [
    "DEFAULT_VERDICTS",
    "TABLE_FIELDS",
    "TableImporter",
    "from_table",
    "load_table",
    "parse_table",
]

_FIRST, _SECOND = 10, 11  # presentation-frame codes before conversion

DEFAULT_VERDICTS: dict[str, int] = {
    **dict.fromkeys(["a", "model_a", "response_a", "[[a]]", "a>b", "a>>b", "1"], Verdict.A),
    **dict.fromkeys(["b", "model_b", "response_b", "[[b]]", "b>a", "b>>a", "2"], Verdict.B),
    **dict.fromkeys(
        ["tie", "c", "[[c]]", "a=b", "tie (bothbad)", "tie(bothbad)", "draw", "0", "equal"],
        Verdict.TIE,
    ),
    **dict.fromkeys(["invalid", "error", "$error$"], Verdict.INVALID),
    "first": _FIRST,
    "second": _SECOND,
}
_TARGETS = {
    "a": Verdict.A,
    "b": Verdict.B,
    "tie": Verdict.TIE,
    "invalid": Verdict.INVALID,
    "first": _FIRST,
    "second": _SECOND,
}
_ORDERS = {
    **dict.fromkeys(["ab", "original", "0", "false", "no", "f"], "AB"),
    **dict.fromkeys(["ba", "swapped", "swap", "1", "true", "yes", "t"], "BA"),
    **dict.fromkeys(["", "unknown", "?", "none", "nan"], "unknown"),
}
#: Fields of the long-table layout, in their documented order.
TABLE_FIELDS: tuple[str, ...] = (
    "judge",
    "item",
    "verdict",
    "order",
    "run",
    "benchmark",
    "category",
    "label_kind",
    "human",
    "rater",
    "length_a",
    "length_b",
    "model_a",
    "model_b",
)
_SUFFIXES = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
}


def _vocabulary(verdict_map: Mapping[str, str | int] | None) -> dict[str, int]:
    vocab = dict(DEFAULT_VERDICTS)
    for raw, target in (verdict_map or {}).items():
        key = str(target).strip().lower()
        if isinstance(target, (int, np.integer)) and not isinstance(target, bool):
            vocab[str(raw).strip().lower()] = int(Verdict(int(target)))
        elif key in _TARGETS:
            vocab[str(raw).strip().lower()] = int(_TARGETS[key])
        else:
            raise ValueError(
                f"verdict_map[{raw!r}] = {target!r}; map each raw verdict to one of"
                f" {sorted(_TARGETS)}"
            )
    return vocab


def _load(path: Path, kind: str) -> tuple[pd.DataFrame, list[Reject]]:
    """Return all cells as stripped strings plus a ``_line`` column, and rejects."""
    if kind in ("csv", "tsv"):
        header, rows, rejects = iter_csv(path, "," if kind == "csv" else "\t")
        df = pd.DataFrame([r for _, r in rows], columns=header, dtype=str)
        df["_line"] = [n for n, _ in rows]
        if len(set(header)) != len(header):
            dup = sorted({h for h in header if header.count(h) > 1})
            raise LogFormatError(f"{path}:1: duplicate column names {dup}; rename them")
        return df.apply(lambda c: c.str.strip() if c.dtype == object else c), rejects
    if kind == "jsonl":
        records: list[dict[str, Any]] = []
        lines: list[int] = []
        rejects = []
        for n, obj in iter_jsonl(path):
            if isinstance(obj, Reject):
                rejects.append(obj)
                continue
            nested = [
                k for k, v in obj.items() if isinstance(v, (dict, list)) and k in TABLE_FIELDS
            ]
            if nested:
                rejects.append(Reject(str(path), n, f"field {nested[0]!r} holds a nested value"))
                continue
            records.append({k: "" if v is None else str(v) for k, v in obj.items()})
            lines.append(n)
        if not records and not rejects:
            raise LogFormatError(f"{path}: no JSON records found")
        df = pd.DataFrame.from_records(records).fillna("") if records else pd.DataFrame()
        df["_line"] = lines
        return df, rejects
    try:
        df = pd.read_parquet(path)
    except Exception as exc:
        raise LogFormatError(f"{path}: not a readable Parquet file ({exc})") from None
    df = df.astype(object).where(df.notna(), "").astype(str)
    df["_line"] = np.arange(1, len(df) + 1)  # Parquet has rows, not lines: 1-based row
    return df, []


def table_header(path: Path) -> set[str] | None:
    """Column names of a table file, read cheaply for detection; ``None`` if not a table.

    For JSON Lines the names are guessed from the first line's words (enough to test
    for a few fields). An unreadable Parquet file has no columns.
    """
    kind = _SUFFIXES.get(path.suffix.lower())
    if kind is None:
        return None
    if kind == "parquet":
        try:
            import pyarrow.parquet as pq

            return set(pq.read_schema(path).names)
        except Exception:
            return set()
    first = sniff_text(path).split("\n", 1)[0]
    if kind == "jsonl":
        return set(first.replace('"', " ").replace(",", " ").replace(":", " ").split())
    return {h.strip().strip('"') for h in first.split("," if kind == "csv" else "\t")}


def table_columns(df: pd.DataFrame) -> list[str]:
    """Return the data columns of a loaded table (without the ``_line`` column)."""
    return [c for c in df.columns if c != "_line"]


def load_table(path: Path, file_format: str | None = None) -> tuple[pd.DataFrame, list[Reject]]:
    """Load a table file as stripped strings with a ``_line`` column, and its rejects.

    Parameters
    ----------
    path : Path
        The file.
    file_format : {"csv", "tsv", "jsonl", "parquet"}, optional
        Default: from the file suffix.

    Returns
    -------
    frame : pandas.DataFrame
        Every cell as a string; ``_line`` is the 1-based line (row for Parquet).
    rejects : list of Reject
        Lines that could not be read.

    Raises
    ------
    LogFormatError
        For an unknown suffix, an empty file or a missing header.
    """
    kind = file_format or _SUFFIXES.get(path.suffix.lower())
    if kind is None:
        raise LogFormatError(
            f"{path}: unknown table suffix {path.suffix!r}; pass file_format="
            " 'csv', 'tsv', 'jsonl' or 'parquet'"
        )
    return _load(path, kind)


def from_table(
    path: str | Path,
    *,
    columns: Mapping[str, str | Sequence[str]] | None = None,
    verdict_map: Mapping[str, str | int] | None = None,
    frame: str = "item",
    benchmark: str | None = None,
    label_kind: str | None = None,
    file_format: str | None = None,
    verdict_pattern: str | None = None,
    multiple_matches: str = "unanimous",
) -> Parsed:
    """Read a long table of judgments (CSV, TSV, JSONL or Parquet).

    Parameters
    ----------
    path : str or Path
        The file.
    columns : mapping, optional
        ``{field: your_column}`` for any field of the layout in the module docs;
        ``human`` may map to a list of columns, one per rater.
    verdict_map : mapping, optional
        Extra raw verdict strings, each mapped to ``"A"``, ``"B"``, ``"tie"``,
        ``"invalid"`` (or ``"first"``/``"second"`` with ``frame="presented"``).
    frame : {"item", "presented"}, default "item"
        Whether A/B in ``verdict`` name the item's responses or the slots shown.
    benchmark : str, optional
        Benchmark of rows without a ``benchmark`` column; default the file stem.
    label_kind : {"preference", "correctness"}, optional
        Label kind of rows without a ``label_kind`` column; default ``unlabelled``,
        which :func:`~judgestats.io.read_logs` infers for labelled items from the
        benchmark's name or labels (:mod:`judgestats.io.label_kinds`).
    file_format : {"csv", "tsv", "jsonl", "parquet"}, optional
        Default: from the file suffix.
    verdict_pattern : str, optional
        The ``verdict`` column holds the judge's raw text: find the verdict in it
        with this named pattern or regular expression (see
        :mod:`judgestats.io.verdicts`). Verdicts found name presentation slots and
        are converted with ``order``; what matched is kept as the variable ``match``.
    multiple_matches : {"unanimous", "first", "last"}, default "unanimous"
        With ``verdict_pattern``: what a text with several matches means.

    Returns
    -------
    Parsed
        Judgments, labels, item metadata and rejects of the file.

    Raises
    ------
    LogFormatError
        If the file is empty, has only a header, or lacks a required column.

    Examples
    --------
    >>> import judgestats as js
    >>> ds, report = js.read_logs("data/demo", format="table")  # doctest: +SKIP
    """
    path = Path(path)
    extractor = (
        VerdictExtractor(verdict_pattern, multiple=multiple_matches)
        if verdict_pattern is not None
        else None
    )
    df, rejects = load_table(path, file_format)
    return parse_table(
        path,
        df,
        rejects,
        columns=columns,
        verdict_map=verdict_map,
        frame=frame,
        benchmark=benchmark,
        label_kind=label_kind,
        extractor=extractor,
    )


def parse_table(
    path: Path,
    df: pd.DataFrame,
    rejects: list[Reject],
    *,
    columns: Mapping[str, str | Sequence[str]] | None = None,
    verdict_map: Mapping[str, str | int] | None = None,
    frame: str = "item",
    benchmark: str | None = None,
    label_kind: str | None = None,
    extractor: VerdictExtractor | None = None,
    format_name: str = "table",
) -> Parsed:
    """Turn a loaded table (see :func:`load_table`) into a :class:`Parsed`.

    The arguments are those of :func:`from_table`; ``extractor`` finds verdicts in
    raw text, and ``format_name`` names the importer in the accounting. Importers of
    formats that are tables underneath (score files) build on this.

    Returns
    -------
    Parsed
    """
    if frame not in ("item", "presented"):
        raise ValueError(f"frame={frame!r}; use 'item' or 'presented'")
    if label_kind is not None and label_kind not in LABEL_KINDS:
        raise ValueError(f"label_kind={label_kind!r}; use one of {LABEL_KINDS}")
    vocab = _vocabulary(verdict_map)
    cols: dict[str, Any] = {f: f for f in TABLE_FIELDS}
    unknown = set(columns or {}) - set(TABLE_FIELDS)
    if unknown:
        raise ValueError(f"columns= has unknown fields {sorted(unknown)}; known: {TABLE_FIELDS}")
    cols.update(columns or {})
    if df.empty or len(df) == 0:
        if rejects:
            return Parsed(str(path), format_name, rejects=rejects)
        raise LogFormatError(f"{path}: header only, no records")
    human_cols = [cols["human"]] if isinstance(cols["human"], str) else list(cols["human"])
    for field in ("item",):
        if cols[field] not in df:
            raise LogFormatError(
                f"{path}:1: required column {cols[field]!r} ({field}) missing; columns are"
                f" {table_columns(df)}; map yours with"
                f" columns={{'{field}': 'your_column'}}"
            )
    has_judge = cols["judge"] in df and cols["verdict"] in df
    if not has_judge and not any(c in df for c in human_cols):
        raise LogFormatError(
            f"{path}:1: required columns {cols['judge']!r} and {cols['verdict']!r} missing;"
            " map yours with columns={'judge': ..., 'verdict': ...}"
        )

    def col(field: str, default: str = "") -> pd.Series:
        name = cols[field]
        return df[name] if isinstance(name, str) and name in df else pd.Series(default, df.index)

    bad: dict[int, str] = {}

    def fail(mask: pd.Series, reasons: pd.Series | str) -> None:
        reasons = reasons if isinstance(reasons, pd.Series) else pd.Series(reasons, df.index)
        for i in df.index[mask.to_numpy()]:
            bad.setdefault(i, reasons[i])

    bench = col("benchmark", benchmark or path.stem).replace("", benchmark or path.stem)
    judge = col("judge")
    vtext = col("verdict").str.lower()
    is_judgment = (judge != "") if has_judge else pd.Series(False, df.index)
    matched = None
    if extractor is not None:
        found = extractor.extract_all(col("verdict").tolist())
        found.index = df.index
        slots = {int(Verdict.A): _FIRST, int(Verdict.B): _SECOND}
        code = found["verdict"].astype(int).map(lambda v: slots.get(v, v))
        matched = found["match"]
    else:
        code = vtext.map(vocab)
        fail(
            is_judgment & (vtext == ""), "empty verdict; map '' in verdict_map (e.g. to 'invalid')"
        )
        fail(
            is_judgment & code.isna() & (vtext != ""),
            "unknown verdict " + col("verdict").map(repr) + "; map it with verdict_map=",
        )
    otext = col("order").str.lower()
    order = otext.map(_ORDERS)
    fail(
        is_judgment & order.isna(),
        "unknown order " + col("order").map(repr) + "; use AB/BA (original/swapped)",
    )
    run = pd.to_numeric(col("run", "0").replace("", "0"), errors="coerce")
    fail(
        is_judgment & (run.isna() | (run < 0) | (run % 1 != 0)),
        "run " + col("run").map(repr) + " is not a non-negative integer",
    )
    lengths = {}
    for f in ("length_a", "length_b"):
        raw = col(f)
        num = pd.to_numeric(raw.replace("", np.nan), errors="coerce")
        fail(num.isna() & (raw != ""), f"{f} " + raw.map(repr) + " is not a number")
        lengths[f] = num
    kinds = col("label_kind", label_kind or "").replace("", label_kind or "")
    fail(
        ~kinds.isin([*LABEL_KINDS, ""]), "label_kind " + kinds.map(repr) + f" not in {LABEL_KINDS}"
    )
    # Presented frame: the slot named is converted with the order shown.
    first_is_a = order == "AB"
    if frame == "presented":
        slot_first = code.isin([_FIRST, Verdict.A])
        slot_second = code.isin([_SECOND, Verdict.B])
    else:
        slot_first, slot_second = code == _FIRST, code == _SECOND
    fail(
        is_judgment & (slot_first | slot_second) & (order == "unknown"),
        "verdict names a presentation slot but the order is unknown",
    )
    converted = code.copy()
    converted[slot_first] = np.where(first_is_a[slot_first], Verdict.A, Verdict.B)
    converted[slot_second] = np.where(first_is_a[slot_second], Verdict.B, Verdict.A)

    human = {}
    for hc in human_cols:
        if hc in df:
            htext = df[hc].str.lower()
            hcode = htext.map(vocab)
            fail(
                hcode.isna() & (htext != ""), f"unknown human label in {hc!r}: " + df[hc].map(repr)
            )
            fail(
                hcode.isin([_FIRST, _SECOND, Verdict.INVALID]),
                f"human label in {hc!r} must be A, B or tie",
            )
            human[hc] = hcode
    has_label = (
        pd.concat([h.notna() for h in human.values()], axis=1).any(axis=1)
        if human
        else (pd.Series(False, df.index))
    )
    fail(~is_judgment & ~has_label, "no judge/verdict and no human label: nothing to import")

    ok = ~df.index.isin(list(bad))
    items = pd.Series(
        [item_id(b, i) for b, i in zip(bench, col("item"), strict=True)], index=df.index
    )
    fail(ok & (col("item") == ""), "empty item key")
    ok = ~df.index.isin(list(bad))
    jmask = ok & is_judgment.to_numpy()
    judgments = pd.DataFrame(
        {
            "judge": judge[jmask],
            "item": items[jmask],
            "order": order[jmask],
            "run": run[jmask].astype("int64"),
            "verdict": converted[jmask].astype("int8"),
            "line": df["_line"][jmask].astype("int64"),
        }
    )
    if matched is not None:
        judgments["match"] = matched[jmask].astype(str)
    rater_col = col("rater", "")
    default_rater = "gold" if (label_kind == "correctness") else "human"
    label_frames = []
    for hc, hcode in human.items():
        m = ok & hcode.notna().to_numpy()
        rater = hc if len(human_cols) > 1 else rater_col[m].replace("", default_rater)
        label_frames.append(
            pd.DataFrame(
                {
                    "item": items[m],
                    "rater": rater,
                    "label": hcode[m].astype("int8"),
                    "line": df["_line"][m].astype("int64"),
                    "counted": ~is_judgment[m],
                }
            )
        )
    labels = pd.concat(label_frames, ignore_index=True) if label_frames else Parsed("", "").labels
    kind_default = "unlabelled"  # read_logs infers it (judgestats.io.label_kinds)
    item_meta = pd.DataFrame(
        {
            "item": items,
            "benchmark": bench,
            "category": col("category"),
            "label_kind": kinds.where(kinds != "", pd.Series(kind_default, df.index)),
            "length_a": lengths["length_a"],
            "length_b": lengths["length_b"],
            "model_a": col("model_a"),
            "model_b": col("model_b"),
        }
    )[ok]
    # An item's label kind is its labelled rows' kind: label-less rows must not win.
    item_meta = item_meta.sort_values("label_kind", key=lambda s: s == "unlabelled", kind="stable")
    rejects += [Reject(str(path), int(df.at[i, "_line"]), why) for i, why in sorted(bad.items())]
    # Read = judgments + label-only records + rejects (a row with a judge counts once,
    # the label it carries is item metadata).
    return Parsed(str(path), format_name, judgments, labels, item_meta, rejects)


class TableImporter:
    """Importer for generic long tables (see :func:`from_table`)."""

    name = "table"
    description = "generic long table: one row per judgment (CSV, TSV, JSONL, Parquet)"
    options = option_names(from_table)

    def can_read(self, path: Path) -> Detection:
        """Accept tables whose header names at least an item and a verdict or label."""
        kind = _SUFFIXES.get(path.suffix.lower())
        if kind is not None and path.stat().st_size == 0:
            return Detection(False, "the file is empty")
        names = table_header(path)
        if names is None:
            return Detection(False, f"suffix {path.suffix!r} is not a table suffix")
        if {"item", "verdict"} <= names or {"item", "human"} <= names:
            return Detection(True, f"{kind} table with item and verdict columns", priority=1)
        return Detection(False, f"{kind} without 'item' and 'verdict' columns (map with columns=)")

    def read(self, path: Path, **options: Any) -> Parsed:
        """Read the file with :func:`from_table`."""
        return from_table(path, **options)


register(TableImporter())
