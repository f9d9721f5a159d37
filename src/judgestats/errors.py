"""Typed exceptions raised by judgestats."""

from __future__ import annotations

__all__ = [
    "JudgestatsError",
    "LogFormatError",
    "NoImporterError",
    "NotEstimableError",
    "SchemaError",
    "UsageError",
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


class UsageError(SystemExit):
    """A command-line argument or option is not usable; exit status 2.

    A :class:`SystemExit` (as argparse's own usage errors are) whose ``code`` is 2 and
    whose text is the message, naming the option, the bad value and the fix.
    """

    def __init__(self, message: str) -> None:
        super().__init__(2)
        self.message = message

    def __str__(self) -> str:
        return self.message
