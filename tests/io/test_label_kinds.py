"""Label kinds inferred per benchmark: from known names, else from the labels."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

import judgestats as js
from judgestats import mvvp
from judgestats.errors import LogFormatError
from judgestats.models import ExactConfig, ExactModel
from judgestats.mvvp import Design, Step, StepVerdict

# Human labels per benchmark (item frame). MT-Bench has ties; the others are binary,
# except MyPrefs (unknown name, ties) and MyQuiz (unknown name, binary).
LABELS = {
    "MT-Bench": ["A", "B", "tie", "A", "B", "tie", "A", "B", "A", "B"],
    "JudgeBench": ["A", "B", "A", "B", "A", "B", "B", "A", "A", "B"],
    "RewardBench": ["B", "A", "A", "B", "B", "A", "A", "B", "A", "B"],
    "MyPrefs": ["A", "tie", "B", "A", "B", "A", "tie", "B", "A", "B"],
    "MyQuiz": ["A", "A", "B", "B", "A", "B", "A", "B", "A", "B"],
}
JUDGES = ("judge-1", "judge-2")


def _table(path: Path, benches) -> Path:
    rng = np.random.default_rng(3)
    with open(path, "w", newline="") as fh:
        out = csv.writer(fh)
        out.writerow(["judge", "item", "benchmark", "order", "verdict", "human"])
        for bench in benches:
            for i, label in enumerate(LABELS[bench]):
                for judge in JUDGES:
                    for order in ("AB", "BA"):
                        verdict = label if rng.random() < 0.7 else rng.choice(["A", "B", "tie"])
                        out.writerow([judge, f"q{i}", bench, order, verdict, label])
    return path


@pytest.fixture
def table(tmp_path) -> Path:
    return _table(tmp_path / "judgments.csv", ["MT-Bench", "JudgeBench", "RewardBench"])


def _kinds(ds) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for b, k in zip(ds.benchmark.values.tolist(), ds.label_kind.values.tolist(), strict=True):
        out.setdefault(b, set()).add(k)
    return out


def test_known_names_give_the_kind_and_say_so(table):
    ds, report = js.read_logs(table)
    assert _kinds(ds) == {
        "MT-Bench": {"preference"},
        "JudgeBench": {"correctness"},
        "RewardBench": {"correctness"},
    }
    notes = {n.file: n.reason for n in report.notes}
    assert notes["MT-Bench"].startswith("label kind preference for 10 labelled items")
    assert "known benchmark name" in notes["JudgeBench"]
    assert "--label-kind RewardBench=KIND" in notes["RewardBench"]
    assert "label kind" in report.format()
    assert Design.from_judgments(ds).label_kinds == (
        frozenset({"preference"}),
        frozenset({"correctness"}),
        frozenset({"correctness"}),
    )


def test_unknown_names_go_by_the_labels(tmp_path):
    ds, report = js.read_logs(_table(tmp_path / "mine.csv", ["MyPrefs", "MyQuiz"]))
    assert _kinds(ds) == {"MyPrefs": {"preference"}, "MyQuiz": {"correctness"}}
    notes = {n.file: n.reason for n in report.notes}
    assert "ties among the labels" in notes["MyPrefs"]
    assert "labels without ties" in notes["MyQuiz"]


def test_override(table):
    ds, report = js.read_logs(table, label_kinds={"MT-Bench": "correctness"})
    assert _kinds(ds)["MT-Bench"] == {"correctness"}
    assert "(given)" in {n.file: n.reason for n in report.notes}["MT-Bench"]
    with pytest.raises(LogFormatError, match="no log read has"):
        js.read_logs(table, label_kinds={"MTBench": "correctness"})
    with pytest.raises(LogFormatError, match="use preference or correctness"):
        js.read_logs(table, label_kinds={"MT-Bench": "gold"})


def test_stated_kinds_are_kept(tmp_path):
    path = _table(tmp_path / "stated.csv", ["JudgeBench"])
    ds, report = js.read_logs(path, label_kind="preference")
    assert _kinds(ds) == {"JudgeBench": {"preference"}}
    assert not any("label kind" in n.reason for n in report.notes)


@pytest.mark.filterwarnings("ignore::judgestats.models.base.ConvergenceWarning")  # few draws
def test_step_4_is_measured(table):
    ds, _ = js.read_logs(table)
    tree = ExactModel(ExactConfig(draws=50, chains=2)).fit(ds, random_seed=0)
    res = mvvp.check(tree, ds)
    for judge in JUDGES:
        r = res.get(Step.CROSS_VALIDATE, judge)
        # measured as far as label kinds go (a cohort this small may still be too
        # small for a rank shift to fail: that is another reason)
        assert "labels: add a benchmark" not in r.reason, r.reason
    # Without the inference, every label would be one kind and step 4 not measured.
    same = ds.assign_coords(label_kind=("item", np.full(ds.sizes["item"], "preference")))
    tree = ExactModel(ExactConfig(draws=50, chains=2)).fit(same, random_seed=0)
    r = mvvp.check(tree, same).get(Step.CROSS_VALIDATE, JUDGES[0])
    assert r.verdict is StepVerdict.NOT_MEASURED and "preference labels" in r.reason
