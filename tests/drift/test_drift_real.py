"""The drift command on real logs: two repetitions of the same judge (../shared/data)."""

import csv
import json
from pathlib import Path

import pytest

import judgestats as js
from judgestats.cli import main
from judgestats.drift import Change

SHARED = (Path(__file__).resolve().parents[2] / ".." / "shared" / "data").resolve()
REPEATS = SHARED / "position_bias" / "judgment_data" / "data_MTBench_repetition"
JUDGE = "gpt-4-0613"


@pytest.mark.skipif(not REPEATS.exists(), reason="real data absent")
def test_drift_command_between_two_repetitions(tmp_path, capsys):
    """Repetition 1 and 2 of gpt-4-0613, the same 96 comparisons re-run: written, every
    verdict in the allowed set, the items paired, nothing CHANGED by a wide margin."""
    old, new = (
        REPEATS / f"Repetition{r}-MTBench_3q-4m-vicuna13b-v1_record0_{JUDGE}_3" for r in (1, 2)
    )
    out = tmp_path / "drift"
    assert main(["drift", str(old), str(new), "-o", str(out)]) == 0
    assert "drift (new - old)" in capsys.readouterr().out
    n_items = js.read_logs(old).dataset.sizes["item"]
    rows = list(csv.DictReader((out / "drift.csv").open()))
    allowed = {c.value for c in Change}
    assert rows and all(r["verdict"] in allowed for r in rows)
    assert {r["judge"] for r in rows} == {JUDGE}
    assert all(int(r["n_shared"]) == n_items for r in rows)
    measured = [r for r in rows if r["verdict"] != Change.NOT_MEASURED.value]
    assert {r["metric"] for r in measured} >= {"position_bias", "flip_rate"}
    assert all(abs(float(r["change"])) < 0.2 for r in measured)  # the same endpoint re-run
    flips = list(csv.DictReader((out / "item_flips.csv").open()))
    assert len(flips) == 1 and int(flips[0]["n_shared"]) == n_items
    assert 0 <= int(flips[0]["flipped"]) <= n_items
    doc = json.loads((out / "drift.json").read_text())
    assert len(doc["changes"]) == len(rows)
