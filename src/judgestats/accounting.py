"""Import accounting: every record read is imported, a duplicate, or rejected with a reason.

Counts are of *judgments* (one verdict of one judge on one item, order and run) and of
*labels* (one human or gold label of one item by one rater). A source record that cannot
be read at all (broken JSON, a short row) counts once, as rejected. The invariant
``read == imported + duplicates + rejected`` holds for every file and for the total.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field

__all__ = ["FileAccount", "ImportReport", "Reject"]


@dataclass(frozen=True)
class Reject:
    """A record that was read and not imported.

    Attributes
    ----------
    file : str
        The file it came from.
    line : int or None
        1-based line (row, or record number for JSON arrays) in ``file``; ``None``
        where the whole file is concerned.
    reason : str
        Why it was rejected, and where useful how to fix it.
    """

    file: str
    line: int | None
    reason: str

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where}: {self.reason}"


@dataclass(frozen=True)
class FileAccount:
    """Counts for one file."""

    file: str
    format: str
    read: int = 0
    imported: int = 0
    duplicates: int = 0
    rejected: int = 0
    invalid: int = 0

    @property
    def balanced(self) -> bool:
        """Whether ``read == imported + duplicates + rejected``."""
        return self.read == self.imported + self.duplicates + self.rejected


@dataclass(frozen=True)
class ImportReport:
    """The accounting of one import: per-file counts and every reject.

    ``invalid`` counts imported judgments whose output could not be parsed: they are
    imported (as the ``INVALID`` code), not rejected, because they are data about the
    judge. ``notes`` are things reported that are not records: files skipped in a
    folder (with every importer's reason) and conflicting item metadata.
    """

    files: tuple[FileAccount, ...] = ()
    rejects: tuple[Reject, ...] = field(default=())
    notes: tuple[Reject, ...] = field(default=())

    @property
    def read(self) -> int:
        """Records read, over all files."""
        return sum(f.read for f in self.files)

    @property
    def imported(self) -> int:
        """Judgments and labels imported."""
        return sum(f.imported for f in self.files)

    @property
    def duplicates(self) -> int:
        """Exact duplicates merged into an imported record."""
        return sum(f.duplicates for f in self.files)

    @property
    def rejected(self) -> int:
        """Records rejected (each one listed in :attr:`rejects`)."""
        return sum(f.rejected for f in self.files)

    @property
    def invalid(self) -> int:
        """Imported judgments whose output was unparseable."""
        return sum(f.invalid for f in self.files)

    @property
    def balanced(self) -> bool:
        """Whether every file, and so the total, adds up."""
        return all(f.balanced for f in self.files) and self.rejected == len(self.rejects)

    def merged(self, other: ImportReport) -> ImportReport:
        """Return the report of both imports."""
        return ImportReport(
            self.files + other.files, self.rejects + other.rejects, self.notes + other.notes
        )

    def to_json(self) -> str:
        """Serialise to JSON text (stored in the dataset's ``accounting`` attr)."""
        return json.dumps(
            {
                "files": [asdict(f) for f in self.files],
                "rejects": [asdict(r) for r in self.rejects],
                "notes": [asdict(r) for r in self.notes],
            }
        )

    @classmethod
    def from_json(cls, text: str) -> ImportReport:
        """Inverse of :meth:`to_json`; empty text gives an empty report."""
        data = json.loads(text or "{}") or {}
        return cls(
            tuple(FileAccount(**f) for f in data.get("files", [])),
            tuple(Reject(**r) for r in data.get("rejects", [])),
            tuple(Reject(**r) for r in data.get("notes", [])),
        )

    def format(self, max_rejects: int = 20) -> str:
        """Return a plain-text table of the accounting, with the first rejects.

        Parameters
        ----------
        max_rejects : int, default 20
            How many rejects to list before summarising the rest.
        """
        rows: list[tuple[object, ...]] = [
            ("file", "format", "read", "imported", "duplicate", "rejected", "invalid")
        ]
        rows += [
            (f.file, f.format, f.read, f.imported, f.duplicates, f.rejected, f.invalid)
            for f in self.files
        ]
        rows.append(
            ("total", "", self.read, self.imported, self.duplicates, self.rejected, self.invalid)
        )
        widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
        lines = [
            "  ".join(
                str(v).ljust(w) if i < 2 else str(v).rjust(w)
                for i, (v, w) in enumerate(zip(r, widths, strict=True))
            )
            for r in rows
        ]
        status = "adds up" if self.balanced else "DOES NOT ADD UP"
        lines.append(
            f"read {self.read} = imported {self.imported} + duplicates {self.duplicates}"
            f" + rejected {self.rejected} ({status})"
        )
        for r in self.rejects[:max_rejects]:
            lines.append(f"  rejected {r}")
        if len(self.rejects) > max_rejects:
            lines.append(f"  ... and {len(self.rejects) - max_rejects} more rejects")
        for r in self.notes[:max_rejects]:
            lines.append(f"  note {r}")
        if len(self.notes) > max_rejects:
            lines.append(f"  ... and {len(self.notes) - max_rejects} more notes")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.format()

    @classmethod
    def combine(cls, reports: Iterable[ImportReport]) -> ImportReport:
        """Merge several reports into one."""
        out = cls()
        for r in reports:
            out = out.merged(r)
        return out
