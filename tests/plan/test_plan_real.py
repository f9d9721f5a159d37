"""The plan command on real logs from ../shared/data (skipped when the folder is absent)."""

import json
from pathlib import Path

import pytest

import judgestats as js
from judgestats.cli import main
from judgestats.plan import PLANNED_STEPS

SHARED = (Path(__file__).resolve().parents[2] / ".." / "shared" / "data").resolve()
NATURAL = SHARED / "llmbar" / "Dataset" / "LLMBar" / "Natural"
REPEATS = SHARED / "position_bias" / "judgment_data" / "data_MTBench_repetition"
QUICK = ["--futures", "10", "--max-items", "50"]


def _plan(paths, extra, tmp_path, capsys):
    out = tmp_path / "plan.json"
    code = main(["plan", *map(str, paths), *QUICK, *extra, "-o", str(out)])
    assert code == 0
    return json.loads(out.read_text()), capsys.readouterr().out


def _items_per_judge(paths):
    ds, _ = js.read_logs(paths)
    judged = (ds["verdict"] != js.schema.Verdict.MISSING).any(("order", "run"))
    return {
        str(j): int(n) for j, n in zip(ds["judge"].values, judged.sum("item").values, strict=True)
    }


@pytest.mark.skipif(not NATURAL.exists(), reason="real data absent")
def test_plan_on_llmbar_natural_chatgpt(tmp_path, capsys):
    """One run per item: every INCONCLUSIVE step is planned by items, none by runs."""
    paths = [NATURAL / "evaluators" / "ChatGPT", NATURAL / "dataset.json"]
    doc, text = _plan(paths, ["--max-runs", "2"], tmp_path, capsys)
    cases, items = doc["cases"], _items_per_judge(paths)
    assert cases, "ChatGPT's prompting strategies on LLMBar/Natural have open verdicts"
    for c in cases:
        assert c["verdict"] == "INCONCLUSIVE" and c["step"] in {int(s) for s in PLANNED_STEPS}
        assert c["judge"].startswith("ChatGPT/") and c["benchmark"] == "LLMBar/Natural"
        assert c["n_items"] == items[c["judge"]] and c["n_runs"] == 1
        assert c["runs"] == [] and c["runs_needed"] is None
        assert (c["items"][0], c["items"][-1]) == (25, 50)
        assert all(0 <= p <= 1 for p in c["p_settled"])
    assert len([ln for ln in text.splitlines() if ln.startswith("ChatGPT/")]) == len(cases)


@pytest.mark.skipif(not REPEATS.exists(), reason="real data absent")
def test_plan_on_three_repetitions_plans_runs(tmp_path, capsys):
    """Three repeated runs of each comparison: the runs are planned too; no human labels,
    so step 1 is never open."""
    paths = sorted(p for p in REPEATS.iterdir() if "claude-3-haiku" in p.name)
    assert len(paths) == 3
    doc, _ = _plan(paths, ["--max-runs", "2"], tmp_path, capsys)
    items = _items_per_judge(paths)
    for c in doc["cases"]:
        assert c["step"] != 1 and c["verdict"] == "INCONCLUSIVE"
        assert c["n_runs"] == 3 and c["runs"] == [1, 2]
        assert c["n_items"] == items[c["judge"]]
        assert all(
            0 <= q <= p <= 1 for p, q in zip(c["p_settled_runs"], c["p_pass_runs"], strict=True)
        )
