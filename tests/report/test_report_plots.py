"""Figures: fixed margins that hold every label, grouped rank figures, judge selection."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

from judgestats import mvvp
from judgestats.models import ExactConfig, ExactModel
from judgestats.models.derived import PAIR_SEPARATOR
from judgestats.report import plots
from judgestats.report.panels import Margins, panel_figure, text_inches
from judgestats.report.tables import summary_table
from judgestats.simulate import simulate, small_cohort


@pytest.fixture(scope="module")
def checked():
    """The small simulated cohort (5 judges, 2 benchmarks), checked, with its table."""
    ds = simulate(small_cohort(), random_seed=0).dataset
    tree = ExactModel(ExactConfig(draws=200)).fit(ds, random_seed=0)
    result = mvvp.check(tree, ds)
    return result, summary_table(result)


def test_panel_figure_has_the_margins_asked_for():
    m = Margins(left=1.5, right=0.5, top=0.8, bottom=1.0, wspace=0.25, hspace=0.9)
    fig, axes = panel_figure(5, 3, [2.0, 3.0, 2.0], 1.5, m)
    assert len(axes) == 5 and not fig.axes[5].get_visible()
    w, h = fig.get_size_inches()
    assert w == pytest.approx(1.5 + 7.0 + 2 * 0.25 + 0.5)
    assert h == pytest.approx(0.8 + 2 * 1.5 + 0.9 + 1.0)
    first, second = (ax.get_position() for ax in axes[:2])
    assert first.x0 * w == pytest.approx(1.5) and first.width * w == pytest.approx(2.0)
    assert (second.x0 - first.x1) * w == pytest.approx(0.25)
    assert second.width * w == pytest.approx(3.0)
    assert (1 - first.y1) * h == pytest.approx(0.8) and first.height * h == pytest.approx(1.5)


def test_text_inches_measures_the_widest_line():
    assert text_inches([], 10) == 0.0
    one = text_inches(["judge"], 10)
    assert 0.2 < one < 0.6  # five characters of 10 pt: about 0.4 in
    assert text_inches(["judge", "judge judge"], 10) > 1.8 * one
    assert text_inches(["judge\nj"], 10) == pytest.approx(one)
    assert text_inches(["judge"], 20) == pytest.approx(2 * one, rel=0.1)  # hinting


def _cut_off(fig) -> list[float]:
    """How far (in) the drawing reaches past each edge: left, bottom, right, top."""
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    box = fig.get_tightbbox(canvas.get_renderer())  # every drawn artist, in inches
    w, h = fig.get_size_inches()
    return [round(max(d, 0.0), 2) for d in (-box.x0, -box.y0, box.x1 - w, box.y1 - h)]


@pytest.mark.parametrize(
    "plot", [plots.plot_agreement, plots.plot_position_bias, plots.plot_paradox, plots.plot_ranks]
)
def test_every_label_is_on_the_canvas(checked, plot):
    result, table = checked
    fig = plot(result, table)
    assert fig is not None
    assert fig.get_layout_engine() is None  # margins fixed, not re-measured per draw
    assert _cut_off(fig) == [0.0] * 4


def test_rank_figure_of_a_group_shows_the_largest_shift_touching_it(checked):
    result, table = checked
    first = result.benchmarks[0]
    fig = plots.plot_ranks(result, table, benchmarks=[first])
    rank_ax, shift_ax = fig.axes
    assert rank_ax.get_title() == first
    labels = {t.get_text() for t in shift_ax.texts}
    shifts = table[(table["quantity"] == "rank_shift") & table["value"].notna()]
    expected = set()
    for _, g in shifts.groupby("judge", sort=False):  # the oracle: one pair per judge
        touch = g[g["benchmark_pair"].str.split(PAIR_SEPARATOR).map(lambda p: first in p)]
        expected.add(touch.loc[touch["value"].abs().idxmax(), "benchmark_pair"])
    assert labels == expected and all(first in label for label in labels)


def test_negative_kappa_stays_in_view(checked):
    result, table = checked
    low = table.copy()
    row = low.index[low["quantity"] == "kappa"][0]
    low.loc[row, ["value", "lo", "hi"]] = [-0.45, -0.6, -0.3]
    fig = plots.plot_agreement(result, low)
    assert all(ax.get_xlim()[0] <= -0.6 for ax in fig.axes)


def test_a_group_figure_shows_the_worst_judges(checked, monkeypatch):
    result, _ = checked
    monkeypatch.setattr(plots, "MAX_JUDGES", 2)
    step = mvvp.Step.CROSS_VALIDATE
    shown = plots.shown_judges(result, step, result.benchmarks[:1])
    severity = {r.judge: r.verdict.severity for r in result.results if r.step is step}
    assert len(shown) == 2
    assert min(severity[j] for j in shown) >= max(
        severity[j] for j in result.judges if j not in shown
    )
    assert shown == [j for j in result.judges if j in shown]  # in the data's order
    assert np.all(np.diff([result.judges.index(j) for j in shown]) > 0)
