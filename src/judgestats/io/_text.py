"""Reading text logs without losing a record to an encoding error or a stray quote.

Shared by every importer of text formats. Delimited files are parsed whole, so
quoted fields keep their newlines, tabs and quotes byte for byte; a clean file goes
through pyarrow's CSV reader, and any file that reader cannot take as it is (a stray
byte, an unclosed quote, a short row, blank lines) through Python's ``csv`` module
record by record: a record with a byte that is not UTF-8 is rejected whole (with file,
line and the byte), and an unclosed quote rejects its own line only, not the rest of
the file. JSON numbers that do not fit a float64 reject their record instead of
raising. Files in UTF-16 or UTF-32 (with a byte-order mark) are read as such.
"""

from __future__ import annotations

import codecs
import csv
import functools
import io
import json
import math
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from judgestats.accounting import Reject
from judgestats.errors import LogFormatError

__all__ = [
    "first_record",
    "iter_csv",
    "iter_json_array",
    "iter_jsonl",
    "iter_records",
    "load_json",
    "read_bytes",
    "read_delimited",
    "sniff_text",
]

# Judge outputs and model answers in one TSV cell easily pass csv's default limit of
# 131072 characters; a longer field would end the parse of the whole file.
csv.field_size_limit(min(sys.maxsize, 2**31 - 1))

_WS = re.compile(r"[ \t\n\r]*")


def _skip_ws(text: str, i: int) -> int:
    """Return the position of the first non-blank character at or after ``i``."""
    m = _WS.match(text, i)
    return m.end() if m else i


#: Characters standing for undecodable bytes after ``errors="surrogateescape"``.
_BAD_BYTE = re.compile("[\udc80-\udcff]")
#: Byte-order marks of the encodings read besides UTF-8, longest first.
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def _recode(path: Path, data: bytes) -> bytes:
    """Return ``data`` as UTF-8 without a byte-order mark (UTF-16/32 with one recoded)."""
    if data.startswith(codecs.BOM_UTF8):
        return data[3:]
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(encoding).encode("utf-8", "surrogatepass")
            except UnicodeDecodeError as exc:
                raise LogFormatError(
                    f"{path}: starts with a {encoding.upper()} byte-order mark but is not"
                    f" valid {encoding.upper()} (at byte {exc.start}); re-save it as UTF-8"
                ) from None
    return data


def read_bytes(path: Path) -> bytes:
    """Return a text file's content as UTF-8 bytes (byte-order mark removed).

    Raises
    ------
    LogFormatError
        If the file is empty (or only whitespace), or cannot be read.
    """
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise LogFormatError(f"{path}: cannot be read ({exc.strerror}); check the path") from None
    data = _recode(path, data)
    if not data or data.isspace():  # without copying the file's bytes
        raise LogFormatError(f"{path}: the file is empty; nothing to import")
    return data


def sniff_text(path: Path, size: int = 65536) -> str:
    """Return the start of a file as text (undecodable bytes replaced), for detection."""
    with open(path, "rb") as fh:
        head = fh.read(size)
    for bom, encoding in _BOMS:
        if head.startswith(bom):
            return head.decode(encoding, errors="replace").lstrip("\ufeff")
    return head.decode("utf-8", errors="replace").lstrip("\ufeff")


class _Numbers:
    """JSON number hooks that flag numbers a float64 cannot hold instead of raising.

    ``json`` turns ``1e400`` into infinity and a 400-digit integer into an ``int``
    that ``float()`` refuses (or, past 4,300 digits, refuses to parse at all). Each
    such number is replaced by NaN and remembered, so that its record is rejected.
    """

    def __init__(self) -> None:
        self.bad: list[str] = []
        self.decoder = json.JSONDecoder(parse_int=self.parse_int, parse_float=self.parse_float)

    def parse_int(self, text: str) -> int | float:
        if len(text) < 19:  # fits an int64: the common case, no checks
            return int(text)
        try:
            value = int(text)
            float(value)
        except (ValueError, OverflowError):
            self.bad.append(text)
            return math.nan
        return value

    def parse_float(self, text: str) -> float:
        value = float(text)
        if math.isinf(value):
            self.bad.append(text)
            return math.nan
        return value

    def problem(self) -> str | None:
        """Say what was wrong with the last record decoded (and forget it)."""
        if not self.bad:
            return None
        text = self.bad[0]
        shown = text if len(text) <= 24 else f"{text[:12]}...{text[-6:]} ({len(text)} characters)"
        self.bad.clear()
        return f"number {shown} does not fit a float64; write it as a string or fix it"


def _is_comment(text: str) -> bool:
    stripped = text.lstrip()
    return stripped.startswith("#") or stripped.startswith("//")


def iter_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any] | Reject]]:
    """Yield ``(line, record)`` for each JSON-object line, or ``(line, Reject)``.

    Blank lines and comment lines (``#`` or ``//``) are passed over; a line holding a
    JSON array yields each of its elements; a line that is not a JSON object (or an
    array of them) is a reject.
    """
    data = read_bytes(path)
    numbers = _Numbers()
    for n, raw in enumerate(data.split(b"\n"), start=1):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            yield (
                n,
                Reject(
                    str(path),
                    n,
                    f"not valid UTF-8 (byte {raw[exc.start]:#04x} at column {exc.start + 1});"
                    " re-save the file as UTF-8",
                ),
            )
            continue
        if not text.strip() or _is_comment(text):
            continue
        try:
            obj = numbers.decoder.decode(text)
        except json.JSONDecodeError as exc:
            numbers.bad.clear()
            yield n, Reject(str(path), n, f"invalid JSON ({exc.msg} at column {exc.colno})")
            continue
        problem = numbers.problem()
        if problem is not None:
            yield n, Reject(str(path), n, problem)
            continue
        for element in obj if isinstance(obj, list) else [obj]:
            if isinstance(element, dict):
                yield n, element
            else:
                what = type(element).__name__
                yield n, Reject(str(path), n, f"expected a JSON object, found {what}")


def _decode_whole(path: Path) -> str:
    data = read_bytes(path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise LogFormatError(
            f"{path}:{line}: not valid UTF-8 (byte {data[exc.start]:#04x}); the file is"
            " rejected whole, as one JSON document cannot be split into records around"
            " it; re-save as UTF-8"
        ) from None


def _decode(data: bytes) -> tuple[str, bool]:
    """Return UTF-8 ``data`` as text (undecodable bytes kept as surrogates) and whether it is clean.

    A clean text (checked in one strict decode) needs no record searched for a bad byte.
    """
    try:
        return data.decode("utf-8"), True
    except UnicodeDecodeError:
        return data.decode("utf-8", errors="surrogateescape"), False


def _bad_text(path: Path, text: str, start: int, end: int) -> Reject | None:
    """Return a reject for the first undecodable byte in ``text[start:end]``, if any."""
    m = _BAD_BYTE.search(text, start, end)
    if m is None:
        return None
    line = text.count("\n", 0, start) + 1
    at = text.count("\n", 0, m.start()) + 1
    column = m.start() - text.rfind("\n", 0, m.start())
    byte = ord(m.group()) - 0xDC00
    return Reject(
        str(path),
        line,
        f"not valid UTF-8 (byte {byte:#04x} at line {at} column {column}); this record is"
        " rejected, the others are read; re-save the file as UTF-8",
    )


def load_json(path: Path) -> Any:
    """Load a whole JSON document, with an error that names the file and position.

    A document that is not one array of records cannot be split into records: a byte
    that is not UTF-8 anywhere in it rejects the whole file, and the error says so.

    Raises
    ------
    LogFormatError
        If the file is empty, not UTF-8, not valid JSON, or holds a number that does
        not fit a float64.
    """
    text = _decode_whole(path)
    numbers = _Numbers()
    try:
        obj = numbers.decoder.decode(text)
    except json.JSONDecodeError as exc:
        raise LogFormatError(
            f"{path}:{exc.lineno}: invalid JSON ({exc.msg} at column {exc.colno});"
            " the file may be truncated"
        ) from None
    problem = numbers.problem()
    if problem is not None:
        raise LogFormatError(f"{path}: {problem}")
    return obj


def iter_json_array(path: Path) -> Iterator[tuple[int, dict[str, Any] | Reject]]:
    """Yield ``(line, record)`` for each object of a JSON array, or ``(line, Reject)``.

    The array is decoded element by element, so the line given is where the record
    starts in the file, and a broken or truncated element loses only itself and what
    follows it (one reject), not the records before it. A byte that is not UTF-8
    inside a record rejects that record only (its text would not be the file's);
    between records, it breaks the JSON there, as a truncation does.

    Raises
    ------
    LogFormatError
        If the file is empty or not a JSON array.
    """
    text, clean = _decode(read_bytes(path))
    numbers = _Numbers()
    i = _skip_ws(text, 0)
    if text[i : i + 1] != "[":
        raise LogFormatError(
            f"{path}:{text.count(chr(10), 0, i) + 1}: expected a JSON array of records"
            f" ('['), found {text[i : i + 20]!r}"
        )
    i += 1
    line, pos = 1, 0
    while True:
        i = _skip_ws(text, i)
        line += text.count("\n", pos, i)
        pos = i
        if text[i : i + 1] == "]":
            rest = text[i + 1 :].strip()
            if rest:
                yield (
                    line,
                    Reject(str(path), line, f"unexpected text after the JSON array: {rest[:30]!r}"),
                )
            return
        try:
            obj, end = numbers.decoder.raw_decode(text, i)
        except json.JSONDecodeError as exc:
            at = text.count("\n", 0, exc.pos) + 1
            bad = _BAD_BYTE.match(text, exc.pos)
            why = (
                f"a byte that is not UTF-8 ({ord(bad.group()) - 0xDC00:#04x}) breaks the JSON at"
                f" line {at} column {exc.colno}; this record and the rest of the file could"
                " not be read; re-save the file as UTF-8"
                if bad
                else f"invalid JSON ({exc.msg} at line {at} column {exc.colno}); this record"
                " and the rest of the file could not be read (truncated file?)"
            )
            yield line, Reject(str(path), line, why)
            return
        problem = numbers.problem()
        undecodable = None if clean else _bad_text(path, text, i, end)
        if undecodable is not None:
            yield line, undecodable
        elif problem is not None:
            yield line, Reject(str(path), line, problem)
        elif isinstance(obj, dict):
            yield line, obj
        else:
            yield (
                line,
                Reject(str(path), line, f"expected a JSON object, found {type(obj).__name__}"),
            )
        i = _skip_ws(text, end)
        if text[i : i + 1] == ",":
            i += 1
        elif text[i : i + 1] != "]":
            at = text.count("\n", 0, i) + 1
            bad = _BAD_BYTE.match(text, i)
            why = (
                f"a byte that is not UTF-8 ({ord(bad.group()) - 0xDC00:#04x}) stands where ','"
                " or ']' belongs after a record; the rest of the file could not be read;"
                " re-save the file as UTF-8"
                if bad
                else "invalid JSON (expected ',' or ']' after a record); the rest of the file"
                " could not be read (truncated file?)"
            )
            yield at, Reject(str(path), at, why)
            return


def iter_records(path: Path) -> Iterator[tuple[int, dict[str, Any] | Reject]]:
    """Yield the records of a JSON array file or of a JSON Lines file.

    Which one is decided by the first non-blank character (``[`` for an array).
    """
    head = sniff_text(path, 4096).lstrip()
    if head.startswith("["):
        yield from iter_json_array(path)
    else:
        yield from iter_jsonl(path)


def first_record(path: Path, limit: int = 1 << 24) -> dict[str, Any] | None:
    """Return the first record of a JSON array or JSON Lines file, or ``None``.

    Used by detectors: reads only as much of the file as the first record needs
    (up to ``limit`` bytes), and never raises on a file that is not JSON. Every
    importer's detector asks for it, so it is read once per file (kept by path,
    modification time and size); callers must not modify the record.
    """
    try:
        st = Path(path).stat()
    except OSError:
        return None
    return _first_record(str(path), st.st_mtime_ns, st.st_size, limit)


@functools.lru_cache(maxsize=32)
def _first_record(path: str, mtime_ns: int, total: int, limit: int) -> dict[str, Any] | None:
    """:func:`first_record` of a file as it is (the cache key: path, mtime, size)."""
    decoder = _Numbers().decoder
    size = 65536
    while True:
        text = sniff_text(Path(path), size)
        i = _skip_ws(text, 0)
        obj: Any = None
        try:
            if text[i : i + 1] == "[":
                obj, _ = decoder.raw_decode(text, _skip_ws(text, i + 1))
            elif text[i : i + 1] == "{":
                end = text.find("\n", i)
                obj = decoder.decode(text[i:] if end < 0 else text[i:end])
            else:
                return None
        except json.JSONDecodeError:
            if size >= total or size >= limit:
                return None
            size *= 4
            continue
        return obj if isinstance(obj, dict) else None


# --- delimited text -----------------------------------------------------------------


def _check_header(path: Path, header: list[str]) -> list[str]:
    header = [h.strip() for h in header]
    bad = [h for h in header if _BAD_BYTE.search(h)]
    if bad:
        raise LogFormatError(f"{path}:1: the header is not valid UTF-8; re-save the file as UTF-8")
    dup = sorted({h for h in header if header.count(h) > 1})
    if dup:
        raise LogFormatError(f"{path}:1: duplicate column names {dup}; rename them")
    return header


def _blank(row: list[str]) -> bool:
    return all(not c.strip() for c in row)


def _comment(row: list[str], width: int) -> bool:
    """Say whether a row is a comment: one field starting with ``#``, table wider."""
    return len(row) == 1 and width > 1 and row[0].lstrip().startswith("#")


def _per_row(values: pd.Series, per_value: Callable[[pd.Index], Any]) -> np.ndarray:
    """``per_value(categories)`` taken for every row of a categorical column."""
    return np.asarray(per_value(values.cat.categories))[values.cat.codes.to_numpy()]


def _arrow_table(path: Path, data: bytes, delimiter: str) -> tuple[list[str], pd.DataFrame] | None:
    """Parse a clean delimited file with pyarrow; ``None`` if it needs the exact path.

    Columns are dictionary-encoded (pandas categoricals): a log repeats few values
    over many rows, and the work on them is done once per distinct value. Line
    numbers come from counting the newlines inside the fields; the count of all
    physical lines must then come out exact, which rules out blank or comment lines,
    stray bytes and any record pyarrow would read differently from ``csv``.
    """
    import pyarrow as pa
    import pyarrow.csv as pcsv

    end = data.find(b"\n")
    first = data[: len(data) if end < 0 else end].decode("utf-8", errors="surrogateescape")
    if '"' in first or _comment([first], 2):
        return None  # a quoted or commented header: the exact path handles it
    header = _check_header(path, first.rstrip("\r").split(delimiter))
    if len(header) < 2:
        return None
    names = [f"c{i}" for i in range(len(header))]
    quoted = b'"' in data
    try:
        table = pcsv.read_csv(
            pa.py_buffer(data),
            read_options=pcsv.ReadOptions(column_names=names, skip_rows=1, block_size=1 << 24),
            # Without a quote no field can hold a newline: the faster parse is exact.
            parse_options=pcsv.ParseOptions(delimiter=delimiter, newlines_in_values=quoted),
            convert_options=pcsv.ConvertOptions(
                column_types=dict.fromkeys(names, pa.dictionary(pa.int32(), pa.string())),
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    frame = table.rename_columns(header).to_pandas()
    inner = np.zeros(len(frame), dtype=np.int64)
    blank = np.ones(len(frame), dtype=bool)
    for name in header:
        if quoted:
            inner += _per_row(frame[name], lambda c: c.str.count("\n"))
        blank &= _per_row(frame[name], lambda c: c.str.strip() == "")
    physical = data.rstrip(b"\r\n").count(b"\n") + 1
    if blank.any() or 1 + len(frame) + int(inner.sum()) != physical:
        return None
    frame["_line"] = 2 + np.arange(len(frame), dtype=np.int64) + np.cumsum(inner) - inner
    return header, frame


def _lines_from(lines: list[str], start: int) -> Iterator[str]:
    for i in range(start, len(lines)):
        yield lines[i]


def _bad_byte(path: Path, lines: list[str], first: int, stop: int) -> Reject | None:
    """Return a reject for the first undecodable byte in ``lines[first:stop]``, if any."""
    for i in range(first, stop):
        m = _BAD_BYTE.search(lines[i])
        if m:
            byte = ord(m.group()) - 0xDC00
            where = "" if i == first else f" (its line {i + 1})"
            return Reject(
                str(path),
                first + 1,
                f"not valid UTF-8 (byte {byte:#04x} at line {i + 1} column {m.start() + 1}{where});"
                " re-save the file as UTF-8",
            )
    return None


def _exact_table(
    path: Path, data: bytes, delimiter: str
) -> tuple[list[str], pd.DataFrame, list[Reject]]:
    """Parse record by record with ``csv``, keeping what the fast path cannot."""
    text, clean = _decode(data)
    lines = io.StringIO(text, newline="").readlines()
    header: list[str] | None = None
    rows: list[list[str]] = []
    numbers: list[int] = []
    rejects: list[Reject] = []
    pos = 0
    while pos < len(lines):
        reader = csv.reader(_lines_from(lines, pos), delimiter=delimiter, strict=True)
        base = pos
        restart = False
        try:
            for row in reader:
                first, pos = pos, base + reader.line_num
                if not row or _blank(row) or (header is None and _comment(row, 2)):
                    continue
                if header is None:
                    header = _check_header(path, row)
                    continue
                if _comment(row, len(header)):
                    continue
                bad = None if clean else _bad_byte(path, lines, first, pos)
                if bad is not None:
                    rejects.append(bad)
                elif len(row) != len(header):
                    short = " (truncated line?)" if len(row) < len(header) else ""
                    spans = pos - first > 1
                    why = f"expected {len(header)} fields, found {len(row)}{short}"
                    if spans:
                        why += (
                            f"; the record runs over lines {first + 1}-{pos}, likely an unclosed"
                            " quote: this line is rejected and reading resumes on the next"
                        )
                    rejects.append(Reject(str(path), first + 1, why))
                    if spans:
                        pos, restart = first + 1, True
                        break
                else:
                    rows.append(row)
                    numbers.append(first + 1)
        except csv.Error as exc:
            # ``first`` is the record being read when the parser gave up.
            first = pos
            rejects.append(
                Reject(
                    str(path),
                    first + 1,
                    f"unreadable {delimiter!r}-delimited text ({exc}); check the quotes of"
                    " this line",
                )
            )
            pos, restart = first + 1, True
        if not restart:
            break
    if header is None:
        raise LogFormatError(f"{path}: no header line found")
    frame = (
        pd.DataFrame(rows, columns=header, dtype=str)
        if rows
        else pd.DataFrame({h: pd.Series([], dtype=str) for h in header})
    )
    frame["_line"] = np.asarray(numbers, dtype=np.int64)
    return header, frame, rejects


def read_delimited(path: Path, delimiter: str) -> tuple[pd.DataFrame, list[Reject]]:
    r"""Read a delimited file (CSV, TSV) into a frame of strings, and its rejects.

    Parameters
    ----------
    path : Path
        The file.
    delimiter : str
        ``","`` or ``"\t"``.

    Returns
    -------
    frame : pandas.DataFrame
        One column per header name, every cell the field's text exactly (quoted
        newlines, tabs and quotes kept, nothing stripped; a clean file's columns are
        categoricals, read by pyarrow), and ``_line``: the 1-based
        line each record starts on. Blank lines, and lines of one field starting
        with ``#`` (comments), are not records.
    rejects : list of Reject
        Records that could not be read: a byte that is not UTF-8, the wrong number of
        fields, broken quoting; each once, at its first line.

    Raises
    ------
    LogFormatError
        If the file is empty, cannot be read, or has no header (or a duplicate
        column name).
    """
    data = read_bytes(path)
    fast = _arrow_table(path, data, delimiter)
    if fast is not None:
        return fast[1], []
    _, frame, rejects = _exact_table(path, data, delimiter)
    return frame, sorted(rejects, key=lambda r: r.line or 0)


def iter_csv(
    path: Path, delimiter: str
) -> tuple[list[str], list[tuple[int, list[str]]], list[Reject]]:
    """Parse a delimited file into its header, rows (with line numbers) and rejects.

    The rows are those of :func:`read_delimited`, as lists of the fields' text.

    Raises
    ------
    LogFormatError
        If the file is empty or has no header.
    """
    frame, rejects = read_delimited(path, delimiter)
    header = [c for c in frame.columns if c != "_line"]
    cells = frame[header].to_numpy(dtype=object).tolist()
    return header, list(zip(frame["_line"].tolist(), cells, strict=True)), rejects
