"""The report's human raters section (:mod:`judgestats.report.raters`)."""

from __future__ import annotations

import json

import pytest
from report_helpers import SHARED_DATA, run_cli

PANDALM = SHARED_DATA / "pandalm"


@pytest.fixture(scope="module")
def pandalm_run(tmp_path_factory):
    """``judgestats report --fast`` on PandaLM: 999 items, three annotators each."""
    if not PANDALM.exists():
        pytest.skip(f"{PANDALM} is absent")
    run = run_cli([str(PANDALM), "--fast", "--seed", "3"], tmp_path_factory.mktemp("pandalm"))
    assert run.rc in (0, 1), run.err
    return run


def test_several_raters_give_the_ceiling_and_the_vote_agreement(pandalm_run):
    """summary.json holds the raters' ceiling per benchmark and every judge's vote
    agreement and gap, each with an interval that holds its value; the page and the
    terminal show them."""
    doc = json.loads((pandalm_run.folder / "summary.json").read_text())
    records = doc["human_raters"]
    ceiling = {r["quantity"] for r in records if r["judge"] is None}
    assert ceiling == {
        "human_pairwise_s1",
        "human_pairwise_s2",
        "human_majority_s1",
        "human_majority_s2",
    }
    judges = {r["judge"] for r in records if r["judge"] is not None}
    assert judges == {"gpt-3.5-turbo", "pandalm-7b"}
    for r in records:
        assert r["lo"] < r["value"] < r["hi"], r
    gaps = [r for r in records if r["quantity"].startswith("ceiling_gap")]
    assert len(gaps) == 4 and all(0.0 <= r["p_at_least_ceiling"] <= 1.0 for r in gaps)
    page = (pandalm_run.folder / "index.html").read_text()
    assert "<h2>Human raters</h2>" in page and "vote_agreement" in page
    assert "PandaLM: raters agree pairwise 0.9" in pandalm_run.out
    assert "gpt-3.5-turbo: agrees with each vote" in pandalm_run.out


def test_one_rater_per_item_gives_no_section(demo_run):
    """The demo logs have one label per item: no section, no summary key, no lines."""
    doc = json.loads((demo_run.folder / "summary.json").read_text())
    assert "human_raters" not in doc
    assert "<h2>Human raters</h2>" not in (demo_run.folder / "index.html").read_text()
    assert "human raters" not in demo_run.out
