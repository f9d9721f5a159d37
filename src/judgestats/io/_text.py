"""Reading text logs line by line without losing a line to an encoding error.

Shared by every importer of text formats: each line is decoded on its own, so a
stray non-UTF-8 byte rejects one record (with file, line and the byte offset)
instead of the whole file, and an empty file gives a clear error.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from judgestats.accounting import Reject
from judgestats.errors import LogFormatError

__all__ = ["iter_csv", "iter_jsonl", "load_json", "read_lines", "sniff_text"]


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
