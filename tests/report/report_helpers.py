"""Running the report command in-process, and the real-data selection."""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass
from pathlib import Path

from judgestats.cli import main

SHARED_DATA = (Path(__file__).resolve().parents[2] / ".." / "shared" / "data").resolve()
LLMBAR = SHARED_DATA / "llmbar" / "Dataset"
POSITION_BIAS = SHARED_DATA / "position_bias"
#: Three LLMBar evaluators on one correctness set and one preference set (both
#: orders, one run) and the position-bias study (9 judges, 3 runs, no labels):
#: several judges and benchmarks while staying fast.
LLMBAR_SETS = ("LLMBar/Natural", "Processed/MT-Bench")
LLMBAR_JUDGES = ("GPT-4/Vanilla_NoRules", "ChatGPT/Vanilla_NoRules", "LLaMA2/Vanilla_NoRules")


def real_paths() -> list[Path]:
    """The real log files of the end-to-end test (missing ones left out)."""
    paths = []
    for s in LLMBAR_SETS:
        paths.append(LLMBAR / s / "dataset.json")
        paths += [LLMBAR / s / "evaluators" / j / "result.json" for j in LLMBAR_JUDGES]
    paths.append(POSITION_BIAS)
    return [p for p in paths if p.exists()]


@dataclass(frozen=True)
class Run:
    """Exit status and output of one ``judgestats`` command."""

    rc: int
    out: str
    err: str
    folder: Path


def run_cli(args: list[str], folder: Path) -> Run:
    """Run ``judgestats report ARGS -o FOLDER`` and capture its output."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(["report", *args, "-o", str(folder)])
        except SystemExit as exc:  # argparse and option errors
            rc = exc.code if isinstance(exc.code, int) else 2
            err.write(str(exc.code))
    return Run(rc, out.getvalue(), err.getvalue(), folder)
