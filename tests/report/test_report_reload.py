"""A report re-rendered from its posterior.nc says what the report said."""

from __future__ import annotations

import json

import pytest

from judgestats.models import ExactConfig, load_posterior
from judgestats.mvvp import check
from judgestats.pipeline import create_report
from judgestats.report import write_report
from judgestats.simulate import simulate, small_cohort


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_verdicts_and_summaries_from_the_saved_posterior_are_identical(tmp_path):
    ds = simulate(small_cohort(), random_seed=0).dataset
    first = create_report(ds, tmp_path / "first", fast=True, draws=ExactConfig().draws)
    tree = load_posterior(first.files["posterior"])
    again = check(tree, ds)  # the thresholds stored in the posterior's attrs
    assert again.config == first.mvvp.config
    assert again.to_frame().equals(first.mvvp.to_frame())  # NaN equal to NaN
    assert [r.reason for r in again.results] == [r.reason for r in first.mvvp.results]
    files = write_report(tree, again, tmp_path / "second")
    one = json.loads(first.files["json"].read_text())
    two = json.loads(files["json"].read_text())
    assert one["records"] == two["records"]
    assert first.files["csv"].read_text() == files["csv"].read_text()
