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

from judgestats.errors import JudgestatsError

__all__ = ["COMMANDS", "main"]

#: Command modules, in the order ``--help`` lists them.
COMMANDS: tuple[str, ...] = ("import_", "info", "metrics", "fit", "report")


def build_parser() -> argparse.ArgumentParser:
    """Return the top-level parser with every available command."""
    parser = argparse.ArgumentParser(
        prog="judgestats",
        description="Can this LLM judge be trusted? Validation statistics with intervals.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress details")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"judgestats.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"judgestats.cli.{name}":
                raise
            continue
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status.

    Errors raised on purpose (bad input, unreadable logs) end with their message
    and status 2, never with a traceback.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    try:
        return int(args.func(args) or 0)
    except JudgestatsError as exc:
        print(f"judgestats: error: {exc}", file=sys.stderr)
        return 2
    except FileNotFoundError as exc:
        print(f"judgestats: error: {exc}", file=sys.stderr)
        return 2
