"""Live progress: the sampling bar, when it is shown, quiet, and no heartbeats under it."""

import io
import logging
from types import SimpleNamespace

import pytest

from judgestats.cli import build_parser
from judgestats.progress import SamplingBar, is_quiet, quiet, sampling_progress
from judgestats.report.terminal import Progress


class Terminal(io.StringIO):
    """A text stream that says it is a terminal."""

    def isatty(self):
        return True


def chain(done, total, divergent=(), ms=0):
    return SimpleNamespace(
        finished_draws=done, total_draws=total, divergent_draws=list(divergent), runtime_ms=ms
    )


def test_bar_shows_draws_divergences_and_time_left():
    bar = SamplingBar(io.StringIO(), width=10)
    line = bar.line([chain(300, 1400, [5, 9], 4000), chain(400, 1400, [], 3000)])
    # 700 of 2,800 draws in 4 s (the slower chain): 2,100 left take 12 s
    assert line == ("sampling [##........] 700/2800 draws, 2 divergences, 0:04 elapsed, 0:12 left")
    assert bar.line([chain(0, 10)]).endswith("0 divergences, 0:00 elapsed, ? left")
    assert "1 divergence," in bar.line([chain(1, 10, [0], 1000)])


def test_bar_redraws_one_line_and_ends_it():
    out = io.StringIO()
    bar = SamplingBar(out)
    bar([chain(1, 10)])
    bar([chain(10, 10)])
    bar.close()
    text = out.getvalue()
    assert text.count("\r") == 2 and text.endswith("\n") and text.count("\n") == 1


def test_no_bar_when_stderr_is_not_a_terminal():
    progress = Progress(io.StringIO(), heartbeat=0)
    with progress.stage("fitting"), sampling_progress() as bar:
        assert bar is None
        assert not progress.is_paused


def test_bar_on_a_terminal_holds_the_heartbeats():
    out = Terminal()
    progress = Progress(out, heartbeat=0)
    with progress.stage("fitting"):
        with sampling_progress() as bar:
            assert isinstance(bar, SamplingBar) and bar.stream is out
            assert progress.is_paused
        assert not progress.is_paused


def test_without_a_stage_the_bar_needs_info_logging_or_the_cli(monkeypatch, caplog):
    monkeypatch.setattr("sys.stderr", Terminal())
    with sampling_progress() as bar:
        assert bar is None  # a library call that asked for nothing
    with caplog.at_level(logging.INFO, logger="judgestats"), sampling_progress() as bar:
        assert bar is not None
    with quiet(False), sampling_progress() as bar:  # the CLI without --quiet ("fit")
        assert bar is not None
    monkeypatch.setattr("sys.stderr", io.StringIO())
    with quiet(False), sampling_progress() as bar:
        assert bar is None


def test_quiet_silences_lines_heartbeats_and_the_bar():
    out = Terminal()
    with quiet():
        assert is_quiet()
        progress = Progress(out, heartbeat=0.01)
        with progress.stage("fitting"), sampling_progress() as bar:
            assert bar is None
        progress.note("a line")
    assert not is_quiet()
    assert out.getvalue() == ""
    assert Progress(out).quiet is False


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["report"], False),
        (["--quiet", "report"], True),
        (["report", "--quiet"], True),
        (["-q", "fit", "x.nc", "-o", "p.nc"], True),
        (["fit", "x.nc", "-o", "p.nc", "-q"], True),
    ],
)
def test_quiet_flag_before_or_after_the_command(argv, expected):
    assert build_parser().parse_args(argv).quiet is expected


def test_main_runs_the_command_quiet_with_the_flag(monkeypatch):
    from judgestats.cli import main

    seen = []
    monkeypatch.setattr("judgestats.cli.report.run", lambda args: seen.append(is_quiet()) or 0)
    assert main(["--quiet", "report"]) == 0
    assert main(["report"]) == 0
    assert seen == [True, False]


@pytest.mark.slow
def test_report_quiet_prints_no_progress(tmp_path, capsys):
    from judgestats.cli import main
    from judgestats.cli._common import DEMO_DATA

    if not any(DEMO_DATA.glob("*")):
        pytest.skip(f"the demo logs are absent ({DEMO_DATA})")
    rc = main(["--quiet", "report", "--fast", "--seed", "1", "-o", str(tmp_path / "r")])
    captured = capsys.readouterr()
    assert rc == 0
    assert "[judgestats]" not in captured.err
    assert "MVVP verdicts" in captured.out


@pytest.fixture
def small_dataset(tmp_path):
    """A saved 2-judge, 30-item, 2-order, 2-run dataset (seeded), for ``fit`` runs."""
    import numpy as np

    from judgestats.io.store import save
    from judgestats.testing import make_judgments

    rng = np.random.default_rng(3)
    verdict = rng.integers(0, 3, size=(2, 30, 2, 2))
    human = rng.integers(0, 2, size=30)
    return save(make_judgments(verdict, human), tmp_path / "small.nc")


@pytest.mark.parametrize("flag", [[], ["--quiet"], ["-q"]])
def test_fit_honours_quiet(small_dataset, tmp_path, capsys, flag):
    from judgestats.cli import main

    out = tmp_path / "p.nc"
    rc = main([*flag, "fit", str(small_dataset), "--fast", "--draws", "200", "-o", str(out)])
    captured = capsys.readouterr()
    assert rc == 0 and out.exists()
    lines = [line for line in captured.err.splitlines() if line.startswith("[judgestats]")]
    if flag:
        assert lines == []
    else:
        assert any("fitting the exact model ..." in line for line in lines)
        assert any("fitting the exact model: done in" in line for line in lines)
    # results are not progress: the accounting, the table and the file written stay
    assert "imported" in captured.err and f"wrote {out}" in captured.err
    assert "kappa" in captured.out
