"""Reading text logs line by line without losing a line to an encoding error.

Shared by every importer of text formats: each line is decoded on its own, so a
stray non-UTF-8 byte rejects one record (with file, line and the byte offset)
instead of the whole file, and an empty file gives a clear error.
"""

from __future__ import annotations

import csv
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from judgestats.accounting import Reject
from judgestats.errors import LogFormatError

__all__ = [
    "first_record",
    "iter_csv",
    "iter_json_array",
    "iter_jsonl",
    "iter_records",
    "load_json",
    "read_lines",
    "sniff_text",
]

# Judge outputs and model answers in one TSV cell easily pass csv's default limit of
# 131072 characters; a longer field would end the parse of the whole file.
csv.field_size_limit(min(sys.maxsize, 2**31 - 1))

_WS = re.compile(r"[ \t\n\r]*")


def read_lines(path: Path) -> tuple[list[tuple[int, str]], list[Reject]]:
    """Return the decodable lines of a file with their 1-based numbers, and rejects.

    Raises
    ------
    LogFormatError
        If the file is empty.
    """
    data = Path(path).read_bytes()
    if not data.strip():
        raise LogFormatError(f"{path}: the file is empty; nothing to import")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    lines: list[tuple[int, str]] = []
    rejects: list[Reject] = []
    for n, raw in enumerate(data.splitlines(), start=1):
        try:
            lines.append((n, raw.decode("utf-8")))
        except UnicodeDecodeError as exc:
            rejects.append(
                Reject(
                    str(path),
                    n,
                    f"not valid UTF-8 (byte {raw[exc.start]:#04x} at column {exc.start + 1});"
                    " re-save the file as UTF-8",
                )
            )
    return lines, rejects


def sniff_text(path: Path, size: int = 65536) -> str:
    """Return the start of a file as text (undecodable bytes replaced), for detection."""
    with open(path, "rb") as fh:
        return fh.read(size).decode("utf-8", errors="replace").lstrip("\ufeff")


def iter_csv(
    path: Path, delimiter: str
) -> tuple[list[str], list[tuple[int, list[str]]], list[Reject]]:
    """Parse a delimited file into its header, rows (with line numbers) and rejects.

    Rows with fewer or more fields than the header are rejected (a truncated last
    line is the common case).

    Raises
    ------
    LogFormatError
        If the file is empty or has no header.
    """
    lines, rejects = read_lines(path)
    numbers = [n for n, _ in lines]
    reader = csv.reader((t for _, t in lines), delimiter=delimiter)
    header: list[str] | None = None
    rows: list[tuple[int, list[str]]] = []
    consumed = 0
    try:
        for row in reader:
            start = numbers[consumed] if consumed < len(numbers) else numbers[-1]
            consumed = reader.line_num
            if header is None:
                header = [h.strip() for h in row]
                continue
            if not row or all(not c.strip() for c in row):
                continue
            if len(row) != len(header):
                rejects.append(
                    Reject(
                        str(path),
                        start,
                        f"expected {len(header)} fields, found {len(row)}"
                        + (" (truncated line?)" if len(row) < len(header) else ""),
                    )
                )
                continue
            rows.append((start, row))
    except csv.Error as exc:
        line = numbers[min(reader.line_num, len(numbers)) - 1] if numbers else None
        rejects.append(Reject(str(path), line, f"unreadable {delimiter!r}-delimited text: {exc}"))
    if header is None:
        raise LogFormatError(f"{path}: no header line found")
    return header, rows, sorted(rejects, key=lambda r: r.line or 0)


def iter_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any] | Reject]]:
    """Yield ``(line, record)`` for each JSON-object line, or ``(line, Reject)``.

    Blank lines are passed over; a line that is not a JSON object is a reject.
    """
    lines, rejects = read_lines(path)
    for r in rejects:
        yield (r.line or 0), r
    for n, text in lines:
        if not text.strip():
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            yield n, Reject(str(path), n, f"invalid JSON ({exc.msg} at column {exc.colno})")
            continue
        if not isinstance(obj, dict):
            yield n, Reject(str(path), n, f"expected a JSON object, found {type(obj).__name__}")
            continue
        yield n, obj


def load_json(path: Path) -> Any:
    """Load a whole JSON document, with an error that names the file and position.

    Raises
    ------
    LogFormatError
        If the file is empty, not UTF-8, or not valid JSON.
    """
    data = Path(path).read_bytes()
    if not data.strip():
        raise LogFormatError(f"{path}: the file is empty; nothing to import")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise LogFormatError(
            f"{path}:{line}: not valid UTF-8 (byte {data[exc.start]:#04x}); re-save as UTF-8"
        ) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise LogFormatError(
            f"{path}:{exc.lineno}: invalid JSON ({exc.msg} at column {exc.colno});"
            " the file may be truncated"
        ) from None


def _decode_whole(path: Path) -> str:
    data = Path(path).read_bytes()
    if not data.strip():
        raise LogFormatError(f"{path}: the file is empty; nothing to import")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise LogFormatError(
            f"{path}:{line}: not valid UTF-8 (byte {data[exc.start]:#04x}); re-save as UTF-8"
        ) from None


def iter_json_array(path: Path) -> Iterator[tuple[int, dict[str, Any] | Reject]]:
    """Yield ``(line, record)`` for each object of a JSON array, or ``(line, Reject)``.

    The array is decoded element by element, so the line given is where the record
    starts in the file, and a broken or truncated element loses only itself and what
    follows it (one reject), not the records before it.

    Raises
    ------
    LogFormatError
        If the file is empty, not UTF-8, or not a JSON array.
    """
    text = _decode_whole(path)
    decoder = json.JSONDecoder()
    i = _WS.match(text, 0).end()
    if text[i : i + 1] != "[":
        raise LogFormatError(
            f"{path}:{text.count(chr(10), 0, i) + 1}: expected a JSON array of records"
            f" ('['), found {text[i : i + 20]!r}"
        )
    i += 1
    line, pos = 1, 0
    while True:
        i = _WS.match(text, i).end()
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
            obj, end = decoder.raw_decode(text, i)
        except json.JSONDecodeError as exc:
            at = text.count("\n", 0, exc.pos) + 1
            yield (
                line,
                Reject(
                    str(path),
                    line,
                    f"invalid JSON ({exc.msg} at line {at} column {exc.colno}); this record and"
                    " the rest of the file could not be read (truncated file?)",
                ),
            )
            return
        if isinstance(obj, dict):
            yield line, obj
        else:
            yield (
                line,
                Reject(str(path), line, f"expected a JSON object, found {type(obj).__name__}"),
            )
        i = _WS.match(text, end).end()
        if text[i : i + 1] == ",":
            i += 1
        elif text[i : i + 1] != "]":
            at = text.count("\n", 0, i) + 1
            yield (
                at,
                Reject(
                    str(path),
                    at,
                    "invalid JSON (expected ',' or ']' after a record); the rest of the file could"
                    " not be read (truncated file?)",
                ),
            )
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
    (up to ``limit`` bytes), and never raises on a file that is not JSON.
    """
    decoder = json.JSONDecoder()
    size = 65536
    try:
        total = Path(path).stat().st_size
    except OSError:
        return None
    while True:
        text = sniff_text(path, size)
        i = _WS.match(text, 0).end()
        obj: Any = None
        try:
            if text[i : i + 1] == "[":
                obj, _ = decoder.raw_decode(text, _WS.match(text, i + 1).end())
            elif text[i : i + 1] == "{":
                end = text.find("\n", i)
                obj = json.loads(text[i:] if end < 0 else text[i:end])
            else:
                return None
        except json.JSONDecodeError:
            if size >= total or size >= limit:
                return None
            size *= 4
            continue
        return obj if isinstance(obj, dict) else None
