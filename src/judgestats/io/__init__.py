"""Reading judgment logs of any format into the Judgments dataset, and saving it."""

from judgestats.io._assemble import Parsed, assemble, item_id
from judgestats.io.registry import (
    Detection,
    Importer,
    ReadResult,
    detect,
    importers,
    read_logs,
    register,
)
from judgestats.io.store import load, save

__all__ = [
    "Detection",
    "Importer",
    "Parsed",
    "ReadResult",
    "assemble",
    "detect",
    "importers",
    "item_id",
    "load",
    "read_logs",
    "register",
    "save",
]
