"""Command-line interface: ``python -m judgestats <command> ...``.

Each command lives in its own module of this package and provides
``add_parser(subparsers)`` (which sets ``func`` on its parser) and the function
it sets. :func:`main` builds the parser from :data:`COMMANDS`.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence

from judgestats.errors import JudgestatsError, UsageError
from judgestats.memory import no_hugepage_advice
from judgestats.progress import quiet

__all__ = ["COMMANDS", "main"]

#: Command modules, in the order ``--help`` lists them.
COMMANDS: tuple[str, ...] = ("import_", "info", "metrics", "fit", "report", "plan", "drift")


def _add_quiet(parser: argparse.ArgumentParser, default: object = False) -> None:
    """Add the global ``--quiet`` flag (accepted before or after the command)."""
    parser.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        default=default,
        help="no progress on stderr (stage lines, heartbeats, the sampling bar)",
    )


def build_parser() -> argparse.ArgumentParser:
    """Return the top-level parser with every available command."""
    parser = argparse.ArgumentParser(
        prog="judgestats",
        description="Can this LLM judge be trusted? Validation statistics with intervals.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress details")
    _add_quiet(parser)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"judgestats.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"judgestats.cli.{name}":
                raise
            continue
        module.add_parser(sub)
    for command in sub.choices.values():  # also after the command: "report --quiet"
        _add_quiet(command, argparse.SUPPRESS)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status.

    Errors a user can cause (bad input, unreadable logs, an unusable output path, a
    bad option) end with a one-line message and status 2, never with a traceback; an
    interrupt (Ctrl-C) ends with status 130, leaving no partial output. Progress goes
    to stderr unless ``--quiet``: stage lines, and a sampling bar on a terminal.
    Large arrays are allocated without NumPy's huge-page advice
    (:func:`~judgestats.memory.no_hugepage_advice`).
    """
    no_hugepage_advice()
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    # --verbose: this package's details; other libraries keep to their warnings
    logging.getLogger("judgestats").setLevel(logging.INFO if args.verbose else logging.NOTSET)
    try:
        with quiet(args.quiet):
            return int(args.func(args) or 0)
    except UsageError as exc:
        _error(str(exc))
        raise
    except JudgestatsError as exc:
        _error(str(exc))
    except OSError as exc:  # a file that vanished, a full disk, a permission
        where = f"{exc.filename}: " if exc.filename else ""
        _error(f"{where}{exc.strerror or exc}")
    except KeyboardInterrupt:
        print("judgestats: interrupted; no output was written", file=sys.stderr)
        return 130
    return 2


def _error(message: str) -> None:
    print(f"judgestats: error: {message}", file=sys.stderr)
