"""judgestats: can this LLM judge be trusted? Credible intervals instead of point estimates."""

from importlib.metadata import PackageNotFoundError, version

from judgestats import schema
from judgestats.accounting import ImportReport, Reject
from judgestats.errors import (
    JudgestatsError,
    LogFormatError,
    NoImporterError,
    NotEstimableError,
    SchemaError,
)
from judgestats.io import load, read_logs, save
from judgestats.schema import Verdict

try:
    __version__ = version("judgestats")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"

__all__ = [
    "ImportReport",
    "JudgestatsError",
    "LogFormatError",
    "NoImporterError",
    "NotEstimableError",
    "Reject",
    "SchemaError",
    "Verdict",
    "__version__",
    "load",
    "read_logs",
    "save",
    "schema",
]
