"""The one end-to-end run of the default (hierarchical) tier, on the demo logs."""

from __future__ import annotations

import html
import json

import pytest
from report_helpers import run_cli

from judgestats.cli._common import DEMO_DATA
from judgestats.models import load_posterior


@pytest.mark.slow
@pytest.mark.skipif(not any(DEMO_DATA.glob("*")), reason="the demo logs are absent")
def test_hierarchical_report_end_to_end(tmp_path):
    # Few draws keep it fast; whatever diagnostics that costs must reach the report.
    run = run_cli(["--draws", "300", "--tune", "300", "--seed", "3"], tmp_path / "out")
    assert run.rc == 0, run.err[-3000:]
    assert "fitting the hierarchical model" in run.err
    assert "MVVP verdicts (95% intervals, hierarchical model)" in run.out
    tree = load_posterior(tmp_path / "out" / "posterior.nc")
    assert tree.attrs["model"] == "hierarchical"
    assert "sample_stats" in tree.children
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["model"] == "hierarchical"
    assert summary["warnings"] == json.loads(tree.attrs["warnings"])
    page = (tmp_path / "out" / "index.html").read_text()
    assert "Divergent transitions:" in page
    for warning in summary["warnings"]:
        assert html.escape(warning) in page
    assert "predictive" in tree.children
    assert "<h2>Posterior predictive checks</h2>" in page
    assert summary["misfits"] == json.loads(tree.attrs["misfits"])
    for misfit in json.loads(tree.attrs["misfits"]):
        assert html.escape(misfit) in page
