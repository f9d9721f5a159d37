"""Replicate runs stored as separate files become runs of one judge."""

from __future__ import annotations

import json
from pathlib import Path

import krippendorff
import numpy as np
import pytest

import judgestats as js
from judgestats.io.replicates import replicate_key

N_ITEMS, SEEDS = 25, 4
_CODE = {1: 0, 2: 1, 0: 2}  # AlpacaEval preference -> A, B, tie


def _preferences(seed: int) -> list[int]:
    # The annotator mostly repeats itself; some items change between seeds.
    base = np.random.default_rng(99).choice([1, 2, 0], N_ITEMS, p=[0.5, 0.4, 0.1])
    flip = np.random.default_rng(seed).random(N_ITEMS) < 0.2
    other = np.where(base == 1, 2, 1)
    return np.where(flip, other, base).tolist()


def _write(folder: Path, name: str, seed: int) -> Path:
    records = [
        {
            "instruction": f"Question {i}?",
            "output_1": f"first answer {i}",
            "output_2": f"second answer {i}",
            "annotator": "weighted_alpaca_eval_gpt4_turbo",
            "preference": p,
        }
        for i, p in enumerate(_preferences(seed))
    ]
    path = folder / name.format(seed=seed)
    path.write_text(json.dumps(records, indent=1))
    return path


@pytest.fixture
def seed_folder(tmp_path) -> Path:
    for seed in range(SEEDS):
        _write(tmp_path, "annotations_seed{seed}_configs.json", seed)
    return tmp_path


def test_seed_files_are_runs_of_one_judge(seed_folder):
    ds, report = js.read_logs(seed_folder)
    assert ds.judge.values.tolist() == ["weighted_alpaca_eval_gpt4_turbo"]
    assert ds.run.values.tolist() == [0, 1, 2, 3]
    assert (report.read, report.imported, report.rejected) == (100, 100, 0)
    replicate_notes = [n for n in report.notes if n.reason.startswith("replicate ")]
    assert len(replicate_notes) == SEEDS
    # Run k is the file of seed k.
    for seed in range(SEEDS):
        got = ds.verdict.isel(judge=0, order=0).sel(run=seed).values.tolist()
        assert got == [_CODE[p] for p in _preferences(seed)]


def test_test_retest_is_measured(seed_folder):
    ds, _ = js.read_logs(seed_folder)
    res = js.compute_metrics(ds, ["test_retest", "test_retest_share"], interval="none").to_frame()
    value = res.set_index("metric")["value"]
    runs = np.array([[_CODE[p] for p in _preferences(s)] for s in range(SEEDS)])
    identical = (runs == runs[0]).all(axis=0).mean()
    assert value["test_retest_share"] == pytest.approx(identical, abs=1e-12)
    alpha = krippendorff.alpha(reliability_data=runs, level_of_measurement="nominal")
    assert value["test_retest"] == pytest.approx(alpha, abs=1e-9)


def test_runs_numbered_by_rank_not_by_value(tmp_path):
    for seed in (7, 42):
        (tmp_path / f"run_{seed}").mkdir()
        _write(tmp_path / f"run_{seed}", "annotations.json", seed)
    ds, report = js.read_logs(tmp_path)
    assert ds.run.values.tolist() == [0, 1]
    assert report.rejected == 0
    assert ds.verdict.isel(judge=0, order=0, run=1).values.tolist() == [
        _CODE[p] for p in _preferences(42)
    ]


def test_other_naming_conflicts_name_the_option_then_run_pattern_reads_it(tmp_path):
    for seed in range(2):
        _write(tmp_path, "annotations_{seed}.json", seed)
    ds, report = js.read_logs(tmp_path)
    conflicts = [r for r in report.rejects if r.reason.startswith("conflicting verdicts")]
    assert conflicts and len(conflicts) == report.rejected
    assert all("look like replicate runs" in r.reason for r in conflicts)
    assert all("--run-pattern" in r.reason and "run_pattern=" in r.reason for r in conflicts)
    ds, report = js.read_logs(tmp_path, run_pattern=r"_(\d+)\.json$")
    assert ds.run.values.tolist() == [0, 1]
    assert (report.read, report.imported, report.rejected) == (50, 50, 0)


def test_unrelated_conflicts_get_no_hint(tmp_path):
    _write(tmp_path, "mine.json", 0)
    _write(tmp_path, "theirs.json", 1)
    _, report = js.read_logs(tmp_path)
    assert report.rejected > 0
    assert not any("replicate" in r.reason for r in report.rejects)


def test_bad_run_pattern(tmp_path):
    _write(tmp_path, "annotations_{seed}.json", 0)
    with pytest.raises(ValueError, match="exactly one"):
        js.read_logs(tmp_path, run_pattern=r"(\d+)_(\d+)")
    with pytest.raises(ValueError, match="not a regular expression"):
        js.read_logs(tmp_path, run_pattern="(")


@pytest.mark.parametrize(
    ("path", "key"),
    [
        ("a/annotations_seed3_configs.json", ("a/annotations_seed#_configs.json", (3,))),
        ("Repetition2-x/record_j_3.tsv", ("Repetition#-x/record_j_3.tsv", (2,))),
        ("runs/run-1/out.jsonl", ("runs/run-#/out.jsonl", (1,))),
        ("rerun1.json", ("", ())),
        ("epoch12_rep3.csv", ("epoch#_rep#.csv", (12, 3))),
    ],
)
def test_replicate_key(path, key):
    assert replicate_key(path) == key
