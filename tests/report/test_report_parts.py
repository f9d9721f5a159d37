"""Pieces of the report: progress lines, LaTeX escaping, plots with nothing to show."""

from __future__ import annotations

import io
import logging
import time

import numpy as np
import pytest

from judgestats import mvvp
from judgestats.models import ExactConfig, ExactModel
from judgestats.report.html import _concentration, _method_html
from judgestats.report.plots import plot_agreement, plot_paradox, plot_position_bias, plot_ranks
from judgestats.report.tables import latex_escape, latex_tables, summary_table
from judgestats.report.terminal import Progress, terminal_summary
from judgestats.schema import Verdict, empty_judgments


def test_progress_lines_and_heartbeat():
    out = io.StringIO()
    progress = Progress(out, heartbeat=0.05)
    with progress.stage("fitting"):
        time.sleep(0.2)
    lines = out.getvalue().splitlines()
    assert lines[0] == "[judgestats] fitting ..."
    assert any("still fitting" in line for line in lines[1:-1])
    assert lines[-1].startswith("[judgestats] fitting: done in ")


def test_progress_without_stream_logs(caplog):
    with caplog.at_level(logging.INFO, logger="judgestats"), Progress(heartbeat=0).stage("x"):
        pass
    assert caplog.records[0].getMessage() == "x ..."


def test_latex_escape_every_special_character():
    assert latex_escape(r"a&b%c$d#e_f{g}h~i^j\k") == (
        r"a\&b\%c\$d\#e\_f\{g\}h\textasciitilde{}i\textasciicircum{}j\textbackslash{}k"
    )


@pytest.fixture(scope="module")
def unlabelled():
    """Two judges, one benchmark, one order, one run, no labels: little to measure."""
    ds = empty_judgments(["j&1", "k_2"], [f"b/{i}" for i in range(40)], ["AB"], 1)
    ds = ds.assign_coords(benchmark=("item", ["b"] * 40))
    rng = np.random.default_rng(0)
    ds["verdict"][:] = rng.choice([Verdict.A, Verdict.B], size=ds["verdict"].shape)
    tree = ExactModel(ExactConfig(draws=100)).fit(ds, random_seed=0)
    return mvvp.check(tree, ds)


def test_nothing_measured_is_said_and_not_plotted(unlabelled):
    assert {r.verdict for r in unlabelled.results} == {mvvp.StepVerdict.NOT_MEASURED}
    table = summary_table(unlabelled)
    for plot in (plot_agreement, plot_position_bias, plot_paradox, plot_ranks):
        assert plot(unlabelled, table) is None
    tex = latex_tables(unlabelled, table)
    assert r"j\&1 & b & --- &" in tex and r"k\_2" in tex
    text = terminal_summary(unlabelled)
    assert "0 PASS, 0 FAIL, 0 INCONCLUSIVE, 10 NOT MEASURED" in text


def test_many_rows_give_one_verdict_table_per_benchmark_with_contents(unlabelled):
    from judgestats.report.verdicts import verdict_html

    one = verdict_html(unlabelled)  # few rows: one table
    assert one.count("<table") == 1 and "<nav" not in one
    split = verdict_html(unlabelled, per_benchmark=True)
    assert split.count("<table") == len(unlabelled.benchmarks)
    assert '<a href="#verdicts-b">b</a> (2 judges)' in split
    assert split.count("<tr>") == len(unlabelled.benchmarks) * (1 + len(unlabelled.judges))
    assert "10 NOT MEASURED" in split  # the verdict counts, as in one table


@pytest.mark.parametrize("prior", [1.0, 0.25])
def test_the_method_names_the_prior_the_model_was_fitted_with(prior):
    ds = empty_judgments(["j"], [f"b/{i}" for i in range(8)], ["AB"], 1)
    ds = ds.assign_coords(benchmark=("item", ["b"] * 8))
    ds["verdict"][:] = Verdict.A
    tree = ExactModel(ExactConfig(draws=20, prior=prior)).fit(ds, random_seed=0)
    assert _concentration(tree) == prior
    text = _method_html(mvvp.check(tree, ds), _concentration(tree))
    assert f"process of concentration {prior:g} (pseudo-items)" in text
