"""Reading judgment logs of any format into the Judgments dataset, and saving it."""

from judgestats.io import _assemble
from judgestats.io._assemble import Parsed, assemble, item_id
from judgestats.io.registry import (
    Detection,
    Importer,
    ReadResult,
    detect,
    importers,
    read_logs,
)
from judgestats.io.store import load, save
from judgestats.io.verdicts import PATTERNS, VerdictExtractor, extract_verdicts

__all__ = [
    "PATTERNS",
    "Detection",
    "Importer",
    "Parsed",
    "ReadResult",
    "VerdictExtractor",
    "assemble",
    "detect",
    "extract_verdicts",
    "importers",
    "item_id",
    "load",
    "max_cells",
    "read_logs",
    "save",
]


def max_cells() -> int:
    """Return the largest judges x items x orders x runs assembled in memory here.

    Read when called (a lowered ``_assemble.MAX_CELLS`` applies at once).
    """
    return _assemble.MAX_CELLS
