"""Inspect AI logs written by inspect_ai itself, imported with no options.

The oracle reads the same logs with inspect_ai, finds the verdicts with its own
regular expression, converts them with the order recorded in each sample, and
computes counts and Cohen's kappa with scikit-learn.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import inspect_logs
import numpy as np
import pytest

import judgestats as js
from judgestats.schema import Verdict

pytest.importorskip("inspect_ai")

_VERDICT = re.compile(r"\[\[([ABC])\]\]|Choice: (A|B|tie)")
_CODE = {"A": 0, "B": 1, "C": 2, "tie": 2}


@pytest.fixture(scope="session")
def inspect_dirs(tmp_path_factory) -> tuple[Path, Path]:
    return inspect_logs.write_logs(tmp_path_factory.mktemp("inspect"))


def _oracle(folder: Path) -> tuple[dict, dict]:
    """Judgments ``(judge, item, order, run) -> code`` and labels ``item -> code``."""
    from inspect_ai.log import read_eval_log

    judgments, labels = {}, {}
    for path in sorted(folder.iterdir()):
        log = read_eval_log(str(path))
        bench = log.eval.task_args["benchmark"]
        for s in log.samples:
            m = s.metadata
            key = m.get("item_id") or m.get("pair_id")
            order = m.get("order") or ("BA" if m["swapped"] else "AB")
            found = _VERDICT.findall(s.output.completion)
            code = _CODE[next(g for g in found[0] if g)] if found else 3
            if order == "BA" and code in (0, 1):
                code = 1 - code
            judgments[(log.eval.model, f"{bench}/{key}", order, s.epoch - 1)] = code
            if "human" in m:
                labels[f"{bench}/{key}"] = _CODE[m["human"]]
            else:
                shown = _CODE[s.target]
                labels[f"{bench}/{key}"] = 1 - shown if order == "BA" else shown
    return judgments, labels


@pytest.fixture(scope="session", params=["eval", "json"])
def imported(request, inspect_dirs):
    folder = inspect_dirs[0] if request.param == "eval" else inspect_dirs[1]
    return folder, js.read_logs(folder)


def test_detected_and_accounted(imported):
    _, (_, report) = imported
    assert {f.format for f in report.files} == {"inspect"}
    assert len(report.files) == 6
    n = 3 * 2 * 8 * 2 * 3  # judges x benchmarks x items x orders x epochs
    assert report.balanced and (report.read, report.imported, report.rejected) == (n, n, 0)


def test_dimensions_without_options(imported):
    _, (ds, _) = imported
    assert sorted(ds.judge.values.tolist()) == list(inspect_logs.JUDGES)
    assert sorted(set(ds.benchmark.values.tolist())) == sorted(inspect_logs.BENCHMARKS)
    assert ds.sizes["item"] == 16
    assert ds.order.values.tolist() == ["AB", "BA"]
    assert ds.run.values.tolist() == [0, 1, 2]


def test_verdicts_and_labels_equal_the_oracle(imported):
    folder, (ds, report) = imported
    judgments, labels = _oracle(folder)
    v = ds["verdict"]
    got = {
        (j, i, o, int(r)): int(v.sel(judge=j, item=i, order=o, run=r)) for (j, i, o, r) in judgments
    }
    assert got == judgments
    assert int((v != Verdict.MISSING).sum()) == len(judgments)
    assert Counter(got.values()) == Counter(judgments.values())
    assert report.invalid == sum(c == 3 for c in judgments.values()) > 0
    human = ds["human"].sel(rater="human")
    assert {i: int(human.sel(item=i)) for i in labels} == labels
    # The judge's text is kept as matched, byte for byte.
    assert set(np.unique(ds["match"].values)) <= {
        "",
        "[[A]]",
        "[[B]]",
        "[[C]]",
        "Choice: A",
        "Choice: B",
        "Choice: tie",
    }


def test_kappa_equals_scikit_learn(imported):
    from sklearn.metrics import cohen_kappa_score

    folder, (ds, _) = imported
    judgments, labels = _oracle(folder)
    res = js.compute_metrics(ds, "kappa", interval="none").to_frame()
    for (judge, bench), row in res.set_index(["judge", "benchmark"]).iterrows():
        keys = [k for k in judgments if k[0] == judge and k[1].startswith(bench + "/")]
        truth = [labels[k[1]] for k in keys]
        verdicts = [judgments[k] for k in keys]
        assert row["value"] == pytest.approx(cohen_kappa_score(truth, verdicts), abs=1e-12)
    assert len(res) == 6


def test_pattern_per_file_named_in_the_accounting(imported):
    _, (_, report) = imported
    chosen = Counter(
        re.match(r"verdict pattern '([^']+)'", n.reason)[1]
        for n in report.notes
        if n.reason.startswith("verdict pattern")
    )
    assert chosen == {"mt-bench": 4, "choice": 2}  # judge 3 answers "Choice: A"


def test_label_kinds_inferred_from_benchmark_names(imported):
    _, (ds, report) = imported
    kinds = dict(zip(ds.benchmark.values.tolist(), ds.label_kind.values.tolist(), strict=True))
    assert kinds == {"MT-Bench": "preference", "JudgeBench": "correctness"}
    said = [n for n in report.notes if "label kind" in n.reason]
    assert sorted(n.file for n in said) == ["JudgeBench", "MT-Bench"]


def test_options_reach_the_importer(inspect_dirs):
    # one log file: the logs of three judges under one name would conflict
    log = sorted(p for p in inspect_dirs[0].rglob("*") if p.is_file())[0]
    ds, _ = js.read_logs(log, judge="one-judge", benchmark="Bench")
    assert ds.judge.values.tolist() == ["one-judge"]
    assert set(ds.benchmark.values.tolist()) == {"Bench"}


def test_not_a_log_is_declined(tmp_path):
    bad = tmp_path / "x.eval"
    bad.write_bytes(b"not a zip")
    importer, reasons = js.io.detect(bad)
    assert importer is None
    assert "not a zip archive" in reasons["inspect"]
