"""Helpers shared by commands: loading a dataset from logs or a saved file."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

import xarray as xr

if TYPE_CHECKING:
    from judgestats.models.derived import DerivedConfig

from judgestats.accounting import ImportReport
from judgestats.errors import LogFormatError, UsageError
from judgestats.io import load, read_logs
from judgestats.models.derived import DerivedConfig

__all__ = [
    "DEMO_DATA",
    "add_fit_options",
    "add_input_options",
    "check_fit_options",
    "input_paths",
    "load_input",
]

#: The bundled demo logs (present in a source checkout).
DEMO_DATA = Path(__file__).resolve().parents[3] / "data" / "demo"


def add_input_options(parser: argparse.ArgumentParser, *, nargs: str | int = "+") -> None:
    """Add PATH arguments and the import options shared by every command."""
    parser.add_argument(
        "paths",
        nargs=nargs,
        metavar="PATH",
        help="log files or folders of logs, or a dataset saved by 'import' (.nc/.zarr)",
    )
    parser.add_argument("--format", help="read every file with this importer (default: detect)")
    parser.add_argument(
        "--alias",
        action="append",
        default=[],
        metavar="OLD=NEW",
        help="rename a judge before merging (repeatable)",
    )
    parser.add_argument(
        "--verdict-pattern",
        help="named pattern (mt-bench, arena-hard, choice, llmbar) or regular expression "
        "for verdicts in raw judge text",
    )
    parser.add_argument(
        "--multiple-matches",
        choices=["unanimous", "first", "last"],
        help="rule when raw text matches the pattern several times (default: unanimous)",
    )
    parser.add_argument(
        "--tie-tolerance", type=float, help="reward-model scores this close are a tie"
    )
    parser.add_argument("--baseline", help="arena-hard baseline model (the item's A)")
    parser.add_argument(
        "--benchmark",
        metavar="NAME",
        help="benchmark of the items, for logs that do not name it (position-bias TSVs"
        " outside the study's folders, tables without a benchmark column)",
    )
    parser.add_argument(
        "--run-pattern",
        metavar="REGEX",
        help="regular expression with one group finding the run in each file's path"
        " (default: the number of a seed/run/rep/repetition/epoch token)",
    )
    parser.add_argument(
        "--label-kind",
        action="append",
        default=[],
        metavar="BENCH=KIND",
        help="label kind (preference or correctness) of a benchmark instead of the inferred"
        " one (repeatable)",
    )
    parser.add_argument(
        "--verdict-map",
        action="append",
        default=[],
        metavar="RAW=TARGET",
        help="read the raw verdict RAW of a generic table as TARGET (A, B, tie, invalid, "
        "first, second); repeatable",
    )


def add_fit_options(parser: argparse.ArgumentParser) -> None:
    """Add the options that choose and configure the model tier (``fit``, ``report``)."""
    fit = parser.add_argument_group("fitting")
    fit.add_argument("--fast", action="store_true", help="exact tier: no MCMC, seconds")
    fit.add_argument("--draws", type=int, help="draws per chain (default: 1000)")
    fit.add_argument("--tune", type=int, help="tuning steps per chain, hierarchical tier")
    fit.add_argument("--chains", type=int, help="chains (default: 2)")
    fit.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    fit.add_argument(
        "--rank-by", default="kappa", help="metric that ranks judges, 1 = best (default kappa)"
    )
    fit.add_argument("--top-k", type=int, default=3, help="k of P(top-k on every benchmark)")


def derived_config(args: argparse.Namespace) -> DerivedConfig:
    """Return the ranking settings of ``--rank-by`` and ``--top-k`` (exit 2 if invalid)."""
    from judgestats.models.derived import DerivedConfig  # the models load only to fit

    try:
        return DerivedConfig(rank_by=args.rank_by, top_k=args.top_k)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def check_fit_options(args: argparse.Namespace) -> None:
    """Exit with a clear message when a sampler setting is not a positive count."""
    for name in ("draws", "tune", "chains"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise UsageError(f"--{name} {value}: must be at least 1")


def _is_dataset(path: Path) -> bool:
    return path.suffix in (".nc", ".zarr") and path.exists()


def _pairs(values: list[str], option: str, form: str) -> dict[str, str]:
    """Parse repeated ``KEY=VALUE`` options; exit with a message naming a malformed one."""
    out = {}
    for text in values:
        key, sep, value = text.partition("=")
        if not sep or not key or not value:
            raise UsageError(f"{option} {text!r}: expected {form}")
        out[key] = value
    return out


def load_input(args: argparse.Namespace) -> tuple[xr.Dataset, ImportReport]:
    """Read the command's PATHs: a saved dataset, or logs of any format."""
    paths = [Path(p) for p in (args.paths or [DEMO_DATA])]
    if len(paths) == 1 and _is_dataset(paths[0]):
        ds = load(paths[0])
        return ds, ImportReport.from_json(ds.attrs.get("accounting", ""))
    aliases = _pairs(args.alias, "--alias", "OLD=NEW")
    kinds = _pairs(getattr(args, "label_kind", []), "--label-kind", "BENCH=KIND")
    options: dict[str, Any] = {
        name: getattr(args, name)
        for name in (
            "verdict_pattern",
            "multiple_matches",
            "tie_tolerance",
            "baseline",
            "benchmark",
        )
        if getattr(args, name, None) is not None
    }
    if getattr(args, "verdict_map", None):
        options["verdict_map"] = _pairs(args.verdict_map, "--verdict-map", "RAW=TARGET")
    if getattr(args, "engine", "memory") == "dask":
        from judgestats.cli._engine import read_with_dask

        return read_with_dask(paths, args, aliases=aliases, label_kinds=kinds, options=options)
    try:
        result = read_logs(
            paths,
            format=args.format,
            aliases=aliases,
            run_pattern=getattr(args, "run_pattern", None),
            label_kinds=kinds,
            **options,
        )
        return result.dataset, result.report
    except LogFormatError:
        raise
    except ValueError as exc:  # an option's value (format, pattern, verdict map)
        raise UsageError(str(exc).replace("\n", "; ")) from None


def input_paths(args: argparse.Namespace) -> list[Path]:
    """Return the command's PATHs: no output may be one of them."""
    return [Path(p) for p in (args.paths or [])]
