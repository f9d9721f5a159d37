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

import re
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from judgestats.accounting import Reject
from judgestats.errors import LogFormatError
from judgestats.io.kit import (
    Detection,
    Parsed,
    arrow_text,
    codes_of,
    duplicated,
    factorize,
    first_rows,
    flat_key,
    integer_codes,
    iter_jsonl,
    option_names,
    read_delimited,
    relabel,
    row_codes,
    sniff_text,
    values_of,
)
from judgestats.io.verdicts import PATTERNS, VerdictExtractor, choose_pattern
from judgestats.schema import LABEL_KINDS, Verdict

__all__ = [
    "DEFAULT_VERDICTS",
    "IMPORTER",
    "MAX_RUN",
    "TABLE_FIELDS",
    "TableImporter",
    "from_table",
    "load_table",
    "parse_table",
]

_FIRST, _SECOND = 10, 11  # presentation-frame codes before conversion
#: Verdict codes that a human label cannot be.
_NOT_LABELS = (_FIRST, _SECOND, Verdict.INVALID)

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


#: A run index: a non-negative integer, written plainly (``3``, or ``3.0`` as
#: spreadsheets and float columns write it; not ``3e0``).
_RUN = re.compile(r"\+?0*([0-9]{1,10})(?:\.0*)?")
#: Largest run index accepted (runs are numbered 0, 1, 2, ... and stored densely).
MAX_RUN = 2**31 - 1


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


def _by_value(values: pd.Series, convert: Callable[[Any], Any], dtype: Any) -> np.ndarray:
    """``convert`` applied to every value, computed once per distinct value.

    Log columns repeat a few values (judges, verdicts, orders, runs) over many rows:
    the work is done on the distinct values and taken for the rows by their codes.
    """
    codes, uniques = row_codes(values)
    missing = np.nan if np.dtype(dtype).kind == "f" else None
    mapped = np.array([convert(u) for u in values_of(uniques)] + [missing], dtype=dtype)
    return _per_row(mapped, codes)


def _per_row(mapped: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """``mapped[codes]`` (a missing value's code -1 takes the last entry).

    A check whose answer is one value for every distinct value (no row fails it, as
    in most files) is filled, not indexed row by row.
    """
    given = mapped[:-1]
    if len(given) and (given == given[0]).all() and (not len(codes) or codes.min() >= 0):
        return np.full(len(codes), given[0], dtype=mapped.dtype)
    return mapped.take(codes)  # take: faster than indexing with narrow codes


def _words(
    values: pd.Series, vocab: Mapping[str, int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Look a text column's words up in ``vocab`` (case-insensitive), once per distinct value.

    Returns the rows' codes into the distinct values and, per distinct value (the last
    entry stands for a missing value), its code in the vocabulary (NaN: not in it) and
    whether it is empty; :func:`_per_row` takes either for the rows.
    """
    codes, uniques = row_codes(values)
    words = values_of(uniques)
    code_of = np.append([vocab.get(u.lower(), np.nan) for u in words], np.nan)
    return codes, code_of, np.append(words == "", False)


def _is(values: pd.Series, text: str) -> np.ndarray:
    """Which rows of a text column equal ``text``."""
    codes, uniques = row_codes(values)
    if uniques.dtype != "str":
        return _by_value(values, lambda v: v == text, bool)
    return _per_row(np.append(np.asarray(uniques == text, dtype=bool), False), codes)


def _mapped(values: pd.Series, convert: Callable[[str], str | None]) -> pd.Series:
    """Return the column with ``convert`` applied per distinct value (``None``: missing)."""
    codes, uniques = row_codes(values)
    return relabel(codes, [convert(u) for u in values_of(uniques)], values.index)


def _text_column(values: pd.Series) -> pd.Series:
    """Return a loaded column as a categorical of stripped strings (``""``: missing)."""
    codes, uniques = row_codes(values)
    text = pd.Index(values_of(uniques), dtype="str")
    stripped = text.str.strip()
    missing = bool(len(codes)) and int(codes.min()) < 0
    if isinstance(values.dtype, pd.CategoricalDtype) and (stripped == text).all() and not missing:
        return values  # already text, nothing to strip, nothing missing
    labels = [*stripped, ""]
    return relabel(
        np.where(codes < 0, len(uniques), codes) if missing else codes, labels, values.index
    )


def _constant(text: str, n: int) -> pd.Series:
    """Return a categorical column of ``n`` rows holding ``text``."""
    categories = pd.Index([text], dtype="str")
    return pd.Series(pd.Categorical.from_codes(np.zeros(n, dtype=np.int8), categories=categories))


def _joined(left: Any, right: Any) -> pd.Index:
    """Return ``f"{l}/{r}"`` of two Arrow text arrays, element by element, as an index."""
    import pyarrow as pa
    import pyarrow.compute as pc

    separator = pa.scalar("/", type=pa.large_string())
    return pd.Index(pc.binary_join_element_wise(left, right, separator), dtype="str")


def _join_items(bench: pd.Series, key: pd.Series) -> pd.Series:
    """``item_id(benchmark, key)`` of every row, as a categorical built per pair."""
    bcodes, bnames = codes_of(bench)
    kcodes, knames = row_codes(key)
    width = max(len(knames), 1)
    if len(bnames) == 1 and (not len(bcodes) or bcodes.min() >= 0):
        # One benchmark: an item per key, the key's codes are the item's.
        codes, b, k = kcodes, np.zeros(len(knames), dtype=np.int64), np.arange(len(knames))
    else:
        # Items in the order of their pairs' codes (the order of appearance is found
        # where it matters, by the codes).
        codes, pairs = factorize(bcodes * width + kcodes, sort=True)
        b, k = np.divmod(pairs, width)
    return relabel(
        codes, _joined(arrow_text(bnames).take(b), arrow_text(knames).take(k)), bench.index
    )


def _run_index(text: str) -> float:
    m = _RUN.fullmatch(text)
    return float(m[1]) if m and int(m[1]) <= MAX_RUN else np.nan


def _number(text: str) -> float:
    """Return a finite float, NaN for an empty cell, ``inf`` for text not a number."""
    if not text:
        return np.nan
    try:
        value = float(text)
    except ValueError:
        return np.inf
    return value if np.isfinite(value) else np.inf


def _numbers(texts: np.ndarray) -> np.ndarray:
    """:func:`_number` of every text, in one cast when every text is a number."""
    try:
        values = texts.astype(float)  # float() of each text, as _number parses it
    except (TypeError, ValueError):  # an empty cell, or text not a number: one by one
        return np.array([_number(t) for t in texts], dtype=float)
    return np.where(np.isfinite(values), values, np.inf)


def _strings(frame: pd.DataFrame) -> pd.DataFrame:
    """Every data column as a categorical of stripped strings (``_line`` kept as it is)."""
    out = {c: _text_column(frame[c]).array for c in frame.columns if c != "_line"}
    out["_line"] = frame["_line"].to_numpy(dtype=np.int64)
    return pd.DataFrame(out, index=pd.RangeIndex(len(frame)))


def _load_jsonl(path: Path) -> tuple[pd.DataFrame, list[Reject]]:
    records: list[dict[str, Any]] = []
    lines: list[int] = []
    rejects: list[Reject] = []
    for n, obj in iter_jsonl(path):
        if isinstance(obj, Reject):
            rejects.append(obj)
            continue
        nested = [k for k, v in obj.items() if isinstance(v, (dict, list)) and k in TABLE_FIELDS]
        if nested:
            rejects.append(Reject(str(path), n, f"field {nested[0]!r} holds a nested value"))
            continue
        records.append({k: "" if v is None else str(v) for k, v in obj.items()})
        lines.append(n)
    if not records and not rejects:
        raise LogFormatError(f"{path}: no JSON records found")
    df = pd.DataFrame.from_records(records).fillna("") if records else pd.DataFrame()
    df["_line"] = np.asarray(lines, dtype=np.int64)
    return df, rejects


def _text_of(column: Any) -> tuple[np.ndarray, list[str | None]]:
    """Return a Parquet column's codes (-1: null) and the text of its distinct values."""
    import pyarrow as pa
    import pyarrow.compute as pc

    array = column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()
    counted = (
        integer_codes(array.to_numpy())
        if pa.types.is_integer(array.type) and not array.null_count
        else None
    )
    if counted is not None:  # integers in a narrow range: counted, not hashed
        codes, distinct = counted
        return codes, [str(v) for v in distinct.tolist()]
    try:
        encoded = array if pa.types.is_dictionary(array.type) else pc.dictionary_encode(array)
        text = pc.cast(encoded.dictionary, pa.string())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
        # Nested or binary values: their text, as pandas writes it.
        encoded = pc.dictionary_encode(pa.array(array.to_pandas().astype(str), type=pa.string()))
        text = encoded.dictionary
    indices = encoded.indices
    codes = pc.fill_null(indices, -1) if indices.null_count else indices
    return codes.to_numpy(), text.to_pylist()


def _parquet_column(column: Any) -> pd.Categorical:
    """Return a Parquet column as a categorical of stripped text (``""``: missing).

    Built on the column's distinct values: the text of each is made and stripped
    once, and the rows keep their codes.
    """
    codes, text = _text_of(column)
    labels = ["" if s is None else s.strip() for s in text]
    if len(codes) and codes.min() < 0:
        return relabel(np.where(codes < 0, len(labels), codes), [*labels, ""]).array
    return relabel(codes, labels).array


def _load_parquet(path: Path) -> pd.DataFrame:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        schema = pq.read_schema(path)
        # Text columns arrive dictionary-encoded (as Parquet usually stores them).
        text = [
            f.name for f in schema if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)
        ]
        table = pq.read_table(path, read_dictionary=text)
    except Exception as exc:
        raise LogFormatError(f"{path}: not a readable Parquet file ({exc})") from None
    columns: dict[str, Any] = {
        name: _parquet_column(column)
        for name, column in zip(table.column_names, table.columns, strict=True)
    }
    columns["_line"] = np.arange(1, table.num_rows + 1, dtype=np.int64)  # 1-based row
    return pd.DataFrame(columns, index=pd.RangeIndex(table.num_rows))


def _load(path: Path, kind: str) -> tuple[pd.DataFrame, list[Reject]]:
    """Return all cells as stripped strings plus a ``_line`` column, and rejects."""
    if kind in ("csv", "tsv"):
        df, rejects = read_delimited(path, "," if kind == "csv" else "\t")
        return _strings(df), rejects
    if kind == "jsonl":
        df, rejects = _load_jsonl(path)
        return _strings(df), rejects
    return _load_parquet(path), []


def table_header(path: Path) -> set[str] | None:
    """Column names of a table file, read cheaply for detection; ``None`` if not a table.

    For JSON Lines the names are guessed from the words of the first lines (enough to
    test for a few fields). An unreadable Parquet file has no columns.
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
    lines = [ln for ln in sniff_text(path).split("\n") if ln.strip() and not ln.startswith("#")]
    first = lines[0] if lines else ""
    if kind == "jsonl":
        # A few lines' words: one broken first record must not hide the layout.
        head = " ".join(lines[:5])
        return set(head.replace('"', " ").replace(",", " ").replace(":", " ").split())
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
        Every cell as a string, stripped of surrounding whitespace; quoted newlines,
        tabs and quotes inside a cell are kept. ``_line`` is the 1-based line a record
        starts on (row for Parquet).
    rejects : list of Reject
        Records that could not be read.

    Raises
    ------
    LogFormatError
        For an unknown suffix, an empty file or a missing header.
    """
    kind = file_format or _SUFFIXES.get(path.suffix.lower())
    if kind not in ("csv", "tsv", "jsonl", "parquet"):
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
        Default: when no value of ``verdict`` is a verdict word and a named pattern
        finds verdicts in them, the column is raw text and the named pattern that
        finds the most is used (a note of the accounting names it).
    multiple_matches : {"unanimous", "first", "last"}, default "unanimous"
        With raw text: what a text with several matches means.

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
        find_pattern=verdict_pattern is None,
        multiple_matches=multiple_matches,
    )


def _select(mask: np.ndarray) -> Callable[[Any], Any]:
    """Return a function taking the rows of ``mask`` from a column (its values as an array).

    Every row taken, as when no row is rejected, the column is not copied.
    """
    if mask.all():
        return lambda c: c.array if isinstance(c, pd.Series) else c
    return lambda c: c[mask].array if isinstance(c, pd.Series) else c[mask]


def _not_finite(field: str, raw: pd.Series, i: int) -> str:
    return f"{field} {raw.iat[i]!r} is not a finite number"


def _unknown_label(column: str, given: pd.Series, i: int) -> str:
    return f"unknown human label in {column!r}: {given.iat[i]!r}"


class _Failures:
    """Rows rejected so far, each with the first reason found for it."""

    def __init__(self, n: int) -> None:
        self.mask = np.zeros(n, dtype=bool)
        self.reasons: dict[int, str] = {}

    def __call__(self, mask: np.ndarray | pd.Series, reason: str | Callable[[int], str]) -> None:
        """Reject the rows of ``mask`` not yet rejected; ``reason(i)`` is per row."""
        new = np.asarray(mask, dtype=bool) & ~self.mask
        for i in np.flatnonzero(new):  # per-row Python only for the rows that fail
            self.reasons[int(i)] = reason if isinstance(reason, str) else reason(int(i))
        self.mask |= new

    @property
    def ok(self) -> np.ndarray:
        return ~self.mask


def _raw_text(raw: pd.Series, vocab: Mapping[str, int], find: bool) -> bool:
    """Say whether a verdict column holds raw judge text rather than verdict words.

    Only when asked to choose (no pattern named): no value of the column is a verdict
    word, and a named pattern finds a verdict in some of them.
    """
    if not find:
        return False
    _, uniques = codes_of(raw)
    words = [u for u in uniques if u]
    if not words or any(u.lower() in vocab for u in words):
        return False
    return any(
        VerdictExtractor(name).extract(u).verdict != Verdict.INVALID
        for name in PATTERNS
        for u in words
    )


def _verdict_codes(
    raw: pd.Series,
    is_judgment: np.ndarray,
    vocab: Mapping[str, int],
    extractor: VerdictExtractor | None,
    fail: _Failures,
) -> tuple[np.ndarray, pd.Series | None, np.ndarray | None]:
    """Verdict codes (int8; slots as ``_FIRST``/``_SECOND``), the match and a text hash.

    A row whose verdict is unknown is rejected; its code is ``Verdict.MISSING``.
    """
    if extractor is None:
        codes, code_of, empty_of = _words(raw, vocab)
        empty = _per_row(empty_of, codes)
        fail(is_judgment & empty, "empty verdict; map '' in verdict_map (e.g. to 'invalid')")
        fail(
            is_judgment & _per_row(np.isnan(code_of) & ~empty_of, codes),
            lambda i: (
                f"unknown verdict {raw.iat[i]!r}; map it with verdict_map="
                " (command line: --verdict-map RAW=A|B|tie|invalid), or name the pattern"
                " of raw judge text with verdict_pattern= (--verdict-pattern)"
            ),
        )
        code = _per_row(np.nan_to_num(code_of, nan=Verdict.MISSING).astype(np.int8), codes)
        return code, None, None
    codes, uniques = codes_of(raw)
    found = extractor.extract_all(list(uniques))
    slots = {int(Verdict.A): _FIRST, int(Verdict.B): _SECOND}
    per_text = np.array([slots.get(int(v), int(v)) for v in found["verdict"]], dtype=np.int8)
    matched = relabel(codes, found["match"].tolist(), raw.index)
    # The raw text is the judgment: two records that differ in it are not duplicates.
    digest = pd.util.hash_array(np.asarray(uniques, dtype=object)).view(np.int64).take(codes)
    return per_text.take(codes), matched, digest


def _choose_extractor(
    path: Path, raw: pd.Series, line: np.ndarray, multiple: str
) -> tuple[VerdictExtractor, Reject]:
    """Return the extractor of the pattern that fits the texts best, and a note saying so."""
    codes, uniques = codes_of(raw)
    choice = choose_pattern(list(uniques), multiple=multiple)
    first = first_rows(codes, len(uniques))
    return VerdictExtractor(choice.pattern, multiple=multiple), Reject(
        str(path), None, choice.describe(lambda i: f"line {int(line[first[i]])}")
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
    find_pattern: bool = False,
    multiple_matches: str = "unanimous",
    format_name: str = "table",
) -> Parsed:
    """Turn a loaded table (see :func:`load_table`) into a :class:`Parsed`.

    The arguments are those of :func:`from_table`; ``extractor`` finds verdicts in
    raw text; with ``find_pattern`` and no extractor, a verdict column of raw judge
    text (no value a verdict word) is read with the named pattern that fits it best
    (:func:`~judgestats.io.verdicts.choose_pattern`), and a note says which.
    ``format_name`` names the importer in the accounting. Importers of formats that
    are tables underneath (score files) build on this. Every check is a column
    operation on the distinct values of a column (its categories); only rejected
    rows are looked at one by one.

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
    df = df.reset_index(drop=True)
    human_cols = [cols["human"]] if isinstance(cols["human"], str) else list(cols["human"])
    if cols["item"] not in df:
        raise LogFormatError(
            f"{path}:1: required column {cols['item']!r} (item) missing; columns are"
            f" {table_columns(df)}; map yours with columns={{'item': 'your_column'}}"
        )
    has_judge = cols["judge"] in df and cols["verdict"] in df
    if not has_judge and not any(c in df for c in human_cols):
        raise LogFormatError(
            f"{path}:1: required columns {cols['judge']!r} and {cols['verdict']!r} missing;"
            " map yours with columns={'judge': ..., 'verdict': ...}"
        )
    n = len(df)

    def col(field: str, default: str = "") -> pd.Series:
        name = cols[field]
        if isinstance(name, str) and name in df:
            return df[name]
        return _constant(default, n)

    notes: list[Reject] = []
    line = df["_line"].to_numpy(dtype=np.int64)
    fail = _Failures(n)
    bench = _mapped(col("benchmark"), lambda b: b or benchmark or path.stem)
    judge = col("judge")
    is_judgment = ~_is(judge, "") if has_judge else np.zeros(n, dtype=bool)
    raw = col("verdict")
    if extractor is None and has_judge and _raw_text(raw, vocab, find_pattern):
        extractor, note = _choose_extractor(path, raw, line, multiple_matches)
        notes.append(note)
    code, matched, digest = _verdict_codes(raw, is_judgment, vocab, extractor, fail)

    order_raw = col("order")
    order = _mapped(order_raw, lambda o: _ORDERS.get(o.lower()))
    fail(
        is_judgment & order.isna().to_numpy(),
        lambda i: f"unknown order {order_raw.iat[i]!r}; use AB/BA (original/swapped)",
    )
    run_raw = col("run")
    # Per distinct value: the run, or NaN if it is none (then the rows are rejected).
    rcodes, runiques = row_codes(run_raw)
    run_of = np.append([_run_index(r or "0") for r in values_of(runiques)], np.nan)
    run = _per_row(np.nan_to_num(run_of).astype(np.int64), rcodes)
    fail(
        is_judgment & _per_row(np.isnan(run_of), rcodes),
        lambda i: f"run {run_raw.iat[i]!r} is not a non-negative integer (at most {MAX_RUN})",
    )
    # Lengths per distinct text; rows take them only where item metadata is kept.
    lengths: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for f in ("length_a", "length_b"):
        raw_length = col(f)
        lcodes, luniques = row_codes(raw_length)
        num = np.append(_numbers(values_of(luniques)), np.nan)
        fail(_per_row(np.isinf(num), lcodes), partial(_not_finite, f, raw_length))
        lengths[f] = np.where(np.isinf(num), np.nan, num), lcodes
    kinds = _mapped(col("label_kind"), lambda k: k or label_kind or "")
    fail(
        ~_by_value(kinds, lambda k: k in (*LABEL_KINDS, ""), bool),
        lambda i: f"label_kind {kinds.iat[i]!r} not in {LABEL_KINDS}",
    )
    # Presented frame: the slot named is converted with the order shown.
    if frame == "presented":
        slot_first = np.isin(code, [_FIRST, Verdict.A])
        slot_second = np.isin(code, [_SECOND, Verdict.B])
    else:
        slot_first, slot_second = code == _FIRST, code == _SECOND
    fail(
        is_judgment & (slot_first | slot_second) & _is(order, "unknown"),
        "verdict names a presentation slot but the order is unknown",
    )
    converted = code
    if slot_first.any() or slot_second.any():
        first_is_a = _is(order, "AB")
        converted = np.where(slot_first, np.where(first_is_a, Verdict.A, Verdict.B), code)
        converted = np.where(slot_second, np.where(first_is_a, Verdict.B, Verdict.A), converted)

    # Per human column: the rows' label codes (int8) and which rows have a label.
    human: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for hc in human_cols:
        if hc in df:
            given = df[hc]
            hcodes, label_of, empty_of = _words(given, vocab)
            fail(
                _per_row(np.isnan(label_of) & ~empty_of, hcodes),
                partial(_unknown_label, hc, given),
            )
            fail(
                _per_row(np.isin(label_of, _NOT_LABELS), hcodes),
                f"human label in {hc!r} must be A, B or tie",
            )
            human[hc] = (
                _per_row(np.nan_to_num(label_of, nan=Verdict.MISSING).astype(np.int8), hcodes),
                _per_row(~np.isnan(label_of), hcodes),
            )
    has_label = (
        np.any([has for _, has in human.values()], axis=0) if human else np.zeros(n, dtype=bool)
    )
    fail(~is_judgment & ~has_label, "no judge/verdict and no human label: nothing to import")
    key = col("item")
    fail(_is(key, ""), "empty item key")
    items = _join_items(bench, key)  # item_id() per distinct (benchmark, key)
    ok = fail.ok
    take = _select(ok & is_judgment)
    judgments = pd.DataFrame(
        {
            "judge": take(judge),
            "item": take(items),
            "order": take(order),
            "run": take(run),
            "verdict": take(converted).astype(np.int8, copy=False),
            "line": take(line),
        },
        copy=False,
    )
    if matched is not None and digest is not None:
        judgments["match"] = take(matched)
        judgments["_text"] = take(digest)
    default_rater = "gold" if (label_kind == "correctness") else "human"
    raters = _mapped(col("rater"), lambda r: r or default_rater)
    label_frames = []
    for hc, (hcode, has) in human.items():
        take = _select(ok & has)
        label_frames.append(
            pd.DataFrame(
                {
                    "item": take(items),
                    "rater": hc if len(human_cols) > 1 else take(raters),
                    "label": take(hcode),
                    "line": take(line),
                    "counted": ~take(is_judgment),
                },
                copy=False,
            )
        )
    labels = pd.concat(label_frames, ignore_index=True) if label_frames else Parsed("", "").labels
    meta = {
        "item": items,
        "benchmark": bench,
        "category": col("category"),
        # An unlabelled kind is inferred by read_logs (judgestats.io.label_kinds).
        "label_kind": _mapped(kinds, lambda k: k or "unlabelled"),
        "model_a": col("model_a"),
        "model_b": col("model_b"),
    }
    # A row that repeats an earlier row's metadata says nothing new: the first value
    # of each item and every differing value (with its first line) are kept. Compared
    # on codes: of the text columns, and of the lengths' raw text (equal text, equal
    # length; "3" and "3.0" stay two rows, which drops nothing).
    every = bool(ok.all())  # no row rejected: no subset to take
    described = [
        codes if every else codes[ok]
        for codes in (row_codes(c)[0] for c in [*meta.values(), col("length_a"), col("length_b")])
    ]
    # A row that repeats the row before it repeats its metadata: only the others are
    # compared (rows of one item mostly come together).
    changed = np.zeros(len(described[0]), dtype=bool)
    changed[:1] = True
    for codes in described:
        changed[1:] |= codes[1:] != codes[:-1]
    at = np.flatnonzero(changed)  # among the rows kept
    rows = at if every else np.flatnonzero(ok)[at]
    repeats = flat_key([codes[at] + 1 for codes in described])  # + 1 fits the type
    rows = rows[~duplicated(repeats)]
    item_meta = pd.DataFrame(
        {
            **{name: c.iloc[rows].array for name, c in meta.items()},
            **{f: num[lcodes[rows]] for f, (num, lcodes) in lengths.items()},
            "line": line[rows],
        }
    )
    # An item's label kind is its labelled rows' kind: label-less rows must not win
    # (rows of one metadata share one kind, so sorting after the merge is the same).
    item_meta = item_meta.sort_values("label_kind", key=lambda s: s == "unlabelled", kind="stable")
    rejects += [Reject(str(path), int(line[i]), why) for i, why in sorted(fail.reasons.items())]
    # Read = judgments + label-only records + rejects (a row with a judge counts once,
    # the label it carries is item metadata).
    return Parsed(str(path), format_name, judgments, labels, item_meta, rejects, notes=notes)


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


#: The importer of generic long tables.
IMPORTER = TableImporter()
