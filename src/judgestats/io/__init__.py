"""Reading judgment logs of any format into the Judgments dataset, and saving it."""

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
    "read_logs",
    "save",
]
