"""The plan in the report: the settles-with column, the plot and summary.json's numbers."""

import html
import json

import pytest

from judgestats.mvvp import StepVerdict
from judgestats.pipeline import create_report
from judgestats.plan import PLANNED_STEPS, PlanConfig
from judgestats.simulate import simulate, small_cohort

pytestmark = pytest.mark.slow  # two reports of about 10 s each

TINY = PlanConfig(futures=10, draws=50, max_items=100, grid_points=2, max_runs=1)


@pytest.fixture(scope="module")
def data():
    return simulate(small_cohort(), random_seed=3, scale=0.2).dataset


def test_report_with_plan(data, tmp_path):
    report = create_report(data, tmp_path / "r", fast=True, plan=TINY)
    open_steps = [
        r
        for r in report.mvvp.results
        if r.step in PLANNED_STEPS and r.verdict is StepVerdict.INCONCLUSIVE
    ]
    assert open_steps, "the small cohort at scale 0.2 has open verdicts"
    summary = json.loads(report.files["json"].read_text())
    cases = summary["plan"]["cases"]
    assert len(cases) == len(open_steps) == len(report.plan.cases)
    assert {(c["judge"], c["benchmark"], c["step"]) for c in cases} == {
        (r.judge, r.benchmark, int(r.step)) for r in open_steps
    }
    assert all(0 <= p <= 1 for c in cases for p in c["p_settled"] + c["p_settled_runs"])
    page = report.files["html"].read_text()
    assert ">settles with</th>" in page and 'id="fig-plan"' in page
    assert html.escape(report.plan.cases[0].settles_with) in page


def test_report_without_plan_is_unchanged(data, tmp_path):
    report = create_report(data, tmp_path / "r", fast=True)
    assert report.plan is None
    assert "plan" not in json.loads(report.files["json"].read_text())
    page = report.files["html"].read_text()
    assert "settles with" not in page and 'id="fig-plan"' not in page
