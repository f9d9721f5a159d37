"""``judgestats report`` end to end: output, files, exit codes, empty input."""

from __future__ import annotations

import json
import re

import pytest
from report_helpers import run_cli

from judgestats.mvvp import Step, StepVerdict

FILES = ("index.html", "summary.csv", "summary.json", "tables.tex", "posterior.nc")


def test_demo_report_writes_every_file(demo_run):
    for name in FILES:
        assert (demo_run.folder / name).stat().st_size > 0, name


def test_demo_report_terminal_output(demo_run):
    out, err = demo_run.out, demo_run.err
    # The import accounting, then the compact verdict table.
    assert out.startswith("import accounting\n")
    assert re.search(r"read (\d+) = imported \1 \+ duplicates 0 \+ rejected 0 \(adds up\)", out)
    assert "MVVP verdicts (95% intervals, exact model)" in out
    assert re.search(
        r"\n +1 chance +2 swap +3 replicate +4 cross-val +5 paradox\njudge +benchmark\n", out
    )
    assert f"wrote {demo_run.folder / 'index.html'}" in out
    # Progress: one line per stage start and end, readable without a TTY.
    for stage in ("reading", "fitting the exact model", "checking the MVVP steps", "drawing"):
        assert f"[judgestats] {stage}" in err
    assert "\r" not in err and "Traceback" not in err


def test_fail_on_gate(demo_run):
    # The demo cohort holds Qwen 3 8B, a paradox judge: some verdict is FAIL.
    data = json.loads((demo_run.folder / "summary.json").read_text())
    assert data["verdict_counts"]["FAIL"] > 0
    assert demo_run.rc == 1
    assert "--fail-on fail:" in demo_run.err


def test_demo_paradox_judge_is_caught_by_the_audit(demo_run):
    # Qwen 3 8B of the demo cohort: position bias 0.19 and runs that agree 99% of the
    # time (seed 002); its test-retest alpha sits close enough to 0.95 that on 200
    # MT-Bench items P(paradox) lies near the FAIL line (0.975): FAIL or INCONCLUSIVE,
    # never PASS.
    data = json.loads((demo_run.folder / "summary.json").read_text())
    rec = [
        r
        for r in data["records"]
        if r["judge"] == "Qwen 3 8B" and r["quantity"] == "paradox" and r["benchmark"] == "MT-Bench"
    ]
    assert rec[0]["step"] == int(Step.AUDIT_PARADOX)
    assert rec[0]["value"] > 0.9
    assert rec[0]["verdict"] in (StepVerdict.FAIL.value, StepVerdict.INCONCLUSIVE.value)


def test_empty_folder_ends_with_message_and_accounting(tmp_path):
    empty = tmp_path / "logs"
    empty.mkdir()
    run = run_cli([str(empty)], tmp_path / "out")
    assert run.rc == 2
    assert "nothing to report: no judgment could be read" in run.err
    assert "read 0 = imported 0" in run.out
    assert "Traceback" not in run.err
    assert not (tmp_path / "out").exists()


def test_unreadable_folder_ends_with_message_and_accounting(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "notes.txt").write_text("not a log\n")
    (logs / "broken.jsonl").write_text("{not json\n")
    run = run_cli([str(logs)], tmp_path / "out")
    assert run.rc == 2
    assert "nothing to report" in run.err
    assert "notes.txt" in run.out  # the accounting says what was passed over, and why
    assert "Traceback" not in run.err


def test_bad_threshold_is_an_error_not_a_traceback(tmp_path):
    run = run_cli(["--max-position-bias", "0.8"], tmp_path / "out")
    assert run.rc == 2
    assert "max_position_bias=0.8" in run.err


def test_real_data_report(real_run):
    assert real_run.rc == 0, real_run.err[-2000:]
    data = json.loads((real_run.folder / "summary.json").read_text())
    steps = {(r["judge"], r["benchmark"], r["step"]): r for r in data["records"] if r["step"]}
    judges = {r["judge"] for r in data["records"] if r["judge"]}
    benchmarks = {r["benchmark"] for r in data["records"] if r["benchmark"]}
    assert {"GPT-4/Vanilla_NoRules", "gpt-4-0613"} <= judges
    assert {"LLMBar/Natural", "Processed/MT-Bench", "MTBench"} <= benchmarks
    # LLMBar: one run -> no test-retest; labels of both kinds -> cross-validated.
    r = steps[("GPT-4/Vanilla_NoRules", "LLMBar/Natural", 3)]
    assert r["verdict"] == "NOT MEASURED" and "1 run per item" in r["reason"]
    # labels of both kinds, but only 3 judges of this subset are ranked on both of a
    # pair of benchmarks: a rank shift above 3 cannot be seen, so it is not measured
    r4 = steps[("GPT-4/Vanilla_NoRules", None, 4)]
    assert r4["verdict"] == "NOT MEASURED" and "at least 5 judges are needed" in r4["reason"]
    # Position-bias study: three runs, both orders, no human labels.
    assert steps[("gpt-4-0613", "MTBench", 1)]["verdict"] == "NOT MEASURED"
    assert steps[("gpt-4-0613", "MTBench", 3)]["verdict"] != "NOT MEASURED"
    assert steps[("gpt-4-0613", "MTBench", 5)]["verdict"] != "NOT MEASURED"
    tex = (real_run.folder / "tables.tex").read_text()
    assert r"GPT-4/Vanilla\_NoRules" in tex  # escaped for LaTeX


@pytest.mark.parametrize("level", ["fail", "inconclusive", "not-measured"])
def test_gate_levels(level):
    from judgestats.cli.report import GATES

    order = [StepVerdict.PASS, StepVerdict.NOT_MEASURED, StepVerdict.INCONCLUSIVE]
    order.append(StepVerdict.FAIL)
    tripping = [v for v in order if v.severity >= GATES[level].severity]
    assert tripping[-1] is StepVerdict.FAIL
    assert StepVerdict.PASS not in tripping
    assert len(tripping) == {"fail": 1, "inconclusive": 2, "not-measured": 3}[level]


def test_rank_by_reaches_the_posterior_and_the_report(tmp_path):
    run = run_cli(["--fast", "--draws", "50", "--rank-by", "position_bias"], tmp_path / "r")
    assert run.rc in (0, 1), run.err[-2000:]
    from judgestats.models import load_posterior

    tree = load_posterior(run.folder / "posterior.nc")
    assert tree["posterior"].attrs["rank_by"] == "position_bias"
    assert "1 = lowest position bias" in (run.folder / "tables.tex").read_text()
    bad = run_cli(["--fast", "--rank-by", "p_first"], tmp_path / "bad")
    assert bad.rc == 2 and "direction" in bad.err
