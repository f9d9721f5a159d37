"""Typed exceptions raised by judgestats."""

from __future__ import annotations

__all__ = [
    "JudgestatsError",
    "LogFormatError",
    "NoImporterError",
    "NotEstimableError",
    "SchemaError",
]


class JudgestatsError(Exception):
    """Base class of every error raised on purpose by judgestats."""


class SchemaError(JudgestatsError, ValueError):
    """A dataset does not follow the Judgments schema."""


class LogFormatError(JudgestatsError, ValueError):
    """A log file cannot be read as a whole (wrong format, encoding, missing column).

    The message names the file (and line where there is one) and the fix.
    """


class NoImporterError(LogFormatError):
    """No registered importer accepts a file; the message lists each one's reason."""


class NotEstimableError(JudgestatsError, ValueError):
    """The data cannot support a requested quantity (for example one run only)."""
