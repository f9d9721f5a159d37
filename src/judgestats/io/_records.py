"""Building blocks of the importers of record-based formats (public in :mod:`judgestats.io.kit`).

A :class:`Collector` gathers the judgments, labels and item metadata of one file and
turns them into a :class:`~judgestats.io._assemble.Parsed`. Parsing one record happens
inside :meth:`Collector.record`: a :class:`RecordError` raised there (by the field
getters below, or by the importer) rolls back what the record had added and rejects it
once, with the file, line and reason. Records are therefore imported whole or not at
all, and ``read == imported + duplicates + rejected`` holds whatever the input.
"""

from __future__ import annotations

import functools
import inspect
import json
import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, overload

import pandas as pd

from judgestats.accounting import Reject
from judgestats.io._assemble import Parsed
from judgestats.io._text import first_record, iter_records
from judgestats.io.registry import Detection
from judgestats.schema import LABEL_KINDS, Verdict

__all__ = [
    "JSON_SUFFIXES",
    "Collector",
    "RecordError",
    "SourceImporter",
    "canonical_pair",
    "check_label_kind",
    "code_of",
    "companion",
    "detect_record",
    "get_dict",
    "get_key",
    "get_list",
    "get_number",
    "get_str",
    "has_fields",
    "option_names",
    "parse_records",
    "record_detector",
    "swap_ab",
    "text_length",
    "trial_slot",
]

#: Suffixes of the JSON-based formats (a JSON array of records, or JSON Lines).
JSON_SUFFIXES = (".json", ".jsonl", ".ndjson")


class RecordError(ValueError):
    """A record (or one judgment in it) cannot be imported; the message says why."""


def _describe(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text[:40]}{'...' if len(text) > 40 else ''}"


def _get(rec: Mapping[str, Any], key: str, required: bool) -> Any:
    if key not in rec or rec[key] is None:
        if required:
            raise RecordError(f"field {key!r} is missing or null")
        return None
    return rec[key]


def get_str(rec: Mapping[str, Any], key: str, *, required: bool = True) -> str:
    """Return ``rec[key]`` as a string; numbers are accepted and converted.

    Raises
    ------
    RecordError
        If the field is missing (and required), or not a string or number.
    """
    value = _get(rec, key, required)
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise RecordError(f"field {key!r} is {_describe(value)}, expected a string")
    return str(value)


def get_key(rec: Mapping[str, Any], key: str) -> str:
    """Return an identifier field (string or integer) as a non-empty string.

    Raises
    ------
    RecordError
        If the field is missing, empty, or neither a string nor an integer.
    """
    value = _get(rec, key, True)
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise RecordError(f"field {key!r} is {_describe(value)}, expected a string or integer id")
    if not str(value).strip():
        raise RecordError(f"field {key!r} is empty")
    return str(value).strip()


def get_list(rec: Mapping[str, Any], key: str, *, required: bool = True) -> list:
    """Return ``rec[key]``, which must be a list (empty if absent and not required)."""
    value = _get(rec, key, required)
    if value is None:
        return []
    if not isinstance(value, list):
        raise RecordError(f"field {key!r} is {_describe(value)}, expected a list")
    return value


def get_dict(rec: Mapping[str, Any], key: str, *, required: bool = True) -> dict[str, Any]:
    """Return ``rec[key]``, which must be a JSON object (empty if absent, not required)."""
    value = _get(rec, key, required)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise RecordError(f"field {key!r} is {_describe(value)}, expected an object")
    return value


def get_number(value: Any) -> float:
    """Return ``value`` as a float: numbers and numeric strings; NaN for anything else."""
    if isinstance(value, bool):
        return math.nan
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return math.nan
    return math.nan


def text_length(value: Any) -> float:
    """Length in characters of a response: a string, or the sum over a list of turns.

    Anything else (missing, a number) has no length: NaN.
    """
    if isinstance(value, str):
        return float(len(value))
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return float(sum(len(v) for v in value))
    return math.nan


@overload
def code_of(value: Any, table: Mapping[str, Verdict], default: Verdict) -> Verdict: ...
@overload
def code_of(value: Any, table: Mapping[str, Verdict], default: None = None) -> Verdict | None: ...
def code_of(
    value: Any, table: Mapping[str, Verdict], default: Verdict | None = None
) -> Verdict | None:
    """Look up a raw verdict (string or integer, case-insensitive) in ``table``.

    Returns ``default`` for a value not in the table or of another type.
    """
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return default
    return table.get(str(value).strip().lower(), default)


def canonical_pair(first: str, second: str) -> tuple[str, str, bool]:
    """Return the item frame of a pair of models: ``(model_a, model_b, flipped)``.

    The item's response A is the model whose name sorts first, so that every record of
    the pair lands in one frame whatever order it lists the models in; ``flipped`` is
    true when ``first`` is the item's B.
    """
    if second < first:
        return second, first, True
    return first, second, False


def swap_ab(code: int) -> int:
    """Exchange A and B in a verdict code (tie, invalid and missing are unchanged)."""
    if code == Verdict.A:
        return int(Verdict.B)
    if code == Verdict.B:
        return int(Verdict.A)
    return int(code)


def trial_slot(index: int) -> tuple[str, int]:
    """Order and run of the ``index``-th trial of a record whose trials alternate orders.

    Trial 0 is the original order, trial 1 the swapped one, trial 2 the original order
    of the second run, and so on.
    """
    return ("AB" if index % 2 == 0 else "BA"), index // 2


def check_label_kind(label_kind: str | None) -> None:
    """Raise ``ValueError`` if ``label_kind`` is given and not one of the schema's kinds."""
    if label_kind is not None and label_kind not in LABEL_KINDS:
        raise ValueError(f"label_kind={label_kind!r}; use one of {LABEL_KINDS}")


def option_names(function: Callable[..., Any]) -> tuple[str, ...]:
    """Names of the keyword-only options of an importer's ``from_<source>`` function."""
    return tuple(
        name
        for name, p in inspect.signature(function).parameters.items()
        if p.kind is inspect.Parameter.KEYWORD_ONLY
    )


def _frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Return the table of ``rows`` as ``DataFrame.from_records`` does, column by column.

    Columns in order of first appearance; a field a record lacks is NaN. A third
    cheaper than ``from_records`` on the many small tables of a folder of logs.
    """
    names = dict.fromkeys(k for row in rows for k in row)
    return pd.DataFrame({k: [row.get(k, math.nan) for row in rows] for k in names})


class Collector:
    """Rows of one file, turned into a :class:`Parsed` by :meth:`parsed`.

    Parameters
    ----------
    path : path
        The file being read.
    format : str
        The importer's name.
    """

    def __init__(self, path: str | Path, format: str) -> None:
        self.file = str(path)
        self.format = format
        self._judgments: list[dict[str, Any]] = []
        self._labels: list[dict[str, Any]] = []
        self._items: list[dict[str, Any]] = []
        self.rejects: list[Reject] = []
        self.notes: list[Reject] = []
        self._tables: dict[str, list[pd.DataFrame]] = {"labels": [], "items": []}
        #: Position of the record being parsed by :meth:`read_records`.
        self.index = 0

    def judgment(
        self, judge: str, item: str, order: str, run: int, verdict: int, line: int, **extra: Any
    ) -> None:
        """Add one judgment; ``extra`` values become per-judgment variables."""
        self._judgments.append(
            {
                "judge": judge,
                "item": item,
                "order": order,
                "run": int(run),
                "verdict": int(verdict),
                "line": int(line),
                **extra,
            }
        )

    def label(self, item: str, rater: str, label: int, line: int, *, counted: bool = True) -> None:
        """Add one label; ``counted=False`` for a label riding along on a judgment record."""
        self._labels.append(
            {
                "item": item,
                "rater": rater,
                "label": int(label),
                "line": int(line),
                "counted": counted,
            }
        )

    def item(self, item: str, **meta: Any) -> None:
        """Describe an item (``benchmark``, ``category``, ``label_kind``, lengths, models)."""
        self._items.append({"item": item, **meta})

    def label_table(self, labels: pd.DataFrame) -> None:
        """Add labels already in a table (from a companion file)."""
        self._tables["labels"].append(labels)

    def item_table(self, items: pd.DataFrame) -> None:
        """Add item metadata already in a table (from a companion file)."""
        self._tables["items"].append(items)

    def reject(self, line: int | None, reason: str) -> None:
        """Reject a record (or one judgment of it)."""
        self.rejects.append(Reject(self.file, line, reason))

    def note(self, line: int | None, reason: str) -> None:
        """Report something that is not a record (a companion file missing, ...)."""
        self.notes.append(Reject(self.file, line, reason))

    def read_records(
        self,
        records: Iterable[tuple[int, dict[str, Any] | Reject]],
        parse: Callable[[dict[str, Any], int], None],
    ) -> None:
        """Parse each record with ``parse(record, line)``, all or nothing per record.

        Rejects yielded by the reader are kept; :attr:`index` is the position of the
        record being parsed among the file's records (0-based, rejects included).
        """
        for self.index, (line, rec) in enumerate(records):
            if isinstance(rec, Reject):
                self.rejects.append(rec)
                continue
            with self.record(line):
                parse(rec, line)

    @contextmanager
    def record(self, line: int, what: str = "") -> Iterator[None]:
        """Parse one record (or part of one) all or nothing.

        A :class:`RecordError` (or an error decoding the record's text, such as a
        :class:`UnicodeDecodeError`) raised in the block removes what the block added
        and rejects it once, at ``line``, prefixed with ``what`` (e.g. ``"trial 2: "``).
        Any other exception propagates: a ``KeyError`` or ``TypeError`` there is a bug
        of the importer, to be fixed there, not a fault of the record.
        """
        tables: tuple[list[Any], ...] = (self._judgments, self._labels, self._items, self.rejects)
        marks = [len(t) for t in tables]
        try:
            yield
        except (RecordError, UnicodeError, json.JSONDecodeError) as exc:
            for table, mark in zip(tables, marks, strict=True):
                del table[mark:]
            why = str(exc) if isinstance(exc, RecordError) else f"cannot be decoded ({exc})"
            self.reject(line, f"{what}{why}")

    def parsed(self) -> Parsed:
        """Return the file's :class:`Parsed`."""
        tables: dict[str, Any] = {}
        if self._judgments:
            tables["judgments"] = _frame(self._judgments)
        for name, rows in (("labels", self._labels), ("items", self._items)):
            frames = [t for t in self._tables[name] if not t.empty]
            if rows:
                frames.append(_frame(rows))
            if frames:
                tables[name] = (
                    frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)
                )
        if not (self._judgments or self._labels or self.rejects):
            self.note(None, "the file holds no judgment and no label record")
        # Labels counted as records (not those riding along on a judgment), as
        # Parsed counts them, from the rows rather than from the table.
        counted = sum(1 for row in self._labels if row["counted"]) + sum(
            int(t["counted"].fillna(True).astype(bool).sum()) if "counted" in t else len(t)
            for t in self._tables["labels"]
        )
        # Tables left out take Parsed's empty defaults.
        return Parsed(
            self.file,
            self.format,
            rejects=list(self.rejects),
            notes=self.notes,
            read=len(self._judgments) + counted + len(self.rejects),
            **tables,
        )


def detect_record(
    path: Path,
    what: str,
    required: Iterable[str],
    *,
    any_of: Iterable[str] = (),
    variants: Mapping[str, Callable[[dict[str, Any]], bool]] | None = None,
    priority: int = 5,
) -> Detection:
    """Detect a JSON-record format by the fields of the file's first record.

    Parameters
    ----------
    path : Path
        The file.
    what : str
        What the format is, for the reason given.
    required : iterable of str
        Fields the first record must have.
    any_of : iterable of str, optional
        Fields of which the record must have at least one.
    variants : mapping of str to callable, optional
        The kinds of file of the format, each with a test of the first record; the
        file must be one of them, and the reason names which.
    priority : int, default 5
        Priority when accepting.

    Returns
    -------
    Detection
    """
    if path.suffix.lower() not in JSON_SUFFIXES:
        return Detection(False, f"suffix {path.suffix!r} is not one of {', '.join(JSON_SUFFIXES)}")
    rec = first_record(path)
    if rec is None:
        return Detection(False, "no JSON object at the start of the file")
    missing = [k for k in required if k not in rec]
    any_of = list(any_of)
    if any_of and not any(k in rec for k in any_of):
        missing.append(" or ".join(any_of))
    if missing:
        return Detection(False, f"first record lacks {', '.join(map(repr, missing))} ({what})")
    if variants:
        kinds = [kind for kind, test in variants.items() if test(rec)]
        if not kinds:
            return Detection(False, f"{what}, but none of: {'; '.join(variants)}")
        return Detection(True, kinds[0], priority=priority)
    return Detection(True, what, priority=priority)


def has_fields(*names: str) -> Callable[[dict[str, Any]], bool]:
    """Return a test that a record has every one of ``names`` (for ``variants``)."""
    return lambda rec: all(n in rec for n in names)


@functools.lru_cache(maxsize=16)
def _cached(parse: Callable[..., Any], path: str, mtime_ns: int, size: int, args: tuple) -> Any:
    return parse(Path(path), *args)


def companion[T](parse: Callable[..., T], path: Path, *args: Any) -> T:
    """Parse a companion file (gold labels, a test set) once for all the logs that need it.

    Calls ``parse(path, *args)``; the result is cached by path, modification time,
    size and ``args`` (hashable), so that the 65 result files of an LLMBar set share
    one reading of its ``dataset.json``. Callers must not modify the result.
    """
    st = path.stat()
    return _cached(parse, str(path.resolve()), st.st_mtime_ns, st.st_size, args)


class SourceImporter:
    """A built-in importer: its ``from_<source>`` reader and its detector.

    Parameters
    ----------
    name : str
        The format's name (``format=name`` in :func:`~judgestats.io.read_logs`).
    description : str
        One line saying what files it reads.
    reader : callable
        ``from_<source>(path, **options) -> Parsed``; its keyword-only parameters are
        the importer's :attr:`options`.
    detector : callable
        ``detector(path) -> Detection``.
    """

    def __init__(
        self,
        name: str,
        description: str,
        reader: Callable[..., Parsed],
        detector: Callable[[Path], Detection],
    ) -> None:
        self.name = name
        self.description = description
        self.options = option_names(reader)
        self._reader = reader
        self._detector = detector

    def __repr__(self) -> str:
        return f"<importer {self.name!r}: {self.description}>"

    def can_read(self, path: Path) -> Detection:
        """Say whether ``path`` is in this format, and why (not)."""
        return self._detector(Path(path))

    def read(self, path: Path, **options: Any) -> Parsed:
        """Read ``path`` with the format's ``from_<source>`` function."""
        return self._reader(path, **options)


def record_detector(
    what: str,
    required: Iterable[str],
    *,
    any_of: Iterable[str] = (),
    variants: Mapping[str, Callable[[dict[str, Any]], bool]] | None = None,
    priority: int = 5,
) -> Callable[[Path], Detection]:
    """Return a detector that tests the first record's fields (see :func:`detect_record`)."""
    return functools.partial(
        detect_record,
        what=what,
        required=tuple(required),
        any_of=tuple(any_of),
        variants=variants,
        priority=priority,
    )


def parse_records(
    path: Path,
    format: str,
    parse: Callable[[Collector, dict[str, Any], int], None],
    records: Iterable[tuple[int, dict[str, Any] | Reject]] | None = None,
) -> Parsed:
    """Read a file of JSON records: ``parse(collector, record, line)`` for each.

    ``records`` defaults to :func:`~judgestats.io._text.iter_records` of ``path``.
    """
    col = Collector(path, format)
    col.read_records(
        iter_records(path) if records is None else records,
        lambda rec, line: parse(col, rec, line),
    )
    return col.parsed()
