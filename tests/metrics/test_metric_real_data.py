"""Metrics of real logs against values computed straight from the raw files.

Each test imports a folder of ``../shared/data`` with :func:`judgestats.io.read_logs`
and compares the metrics with an oracle written here in plain json/csv code. A test
skips when the data or its importer is not available.
"""

from __future__ import annotations

import ast
import csv
import json
import re
from collections import defaultdict
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

import judgestats as js
from judgestats.errors import NoImporterError
from judgestats.metrics import HUMAN, compute_metrics

SHARED_DATA = (Path(__file__).resolve().parents[2] / ".." / "shared" / "data").resolve()
NONE = {"interval": "none"}


def read(folder: str):
    path = SHARED_DATA / folder
    if not path.exists():
        pytest.skip(f"{path} is absent")
    try:
        ds, _ = js.read_logs(path)
    except NoImporterError as exc:
        pytest.skip(f"no importer for {folder} yet: {exc}")
    return ds


# ------------------------------------------------------------------------- PandaLM


def test_pandalm_human_human_agreement():
    ds = read("pandalm")
    records = json.loads((SHARED_DATA / "pandalm" / "testset-v1.json").read_text())
    # Annotators give 1, 2 or 0 (tie).
    pairs = agree = pairs_s2 = agree_s2 = 0
    votes = majority_hits = 0
    for rec in records:
        labels = [rec[f"annotator{k}"] for k in (1, 2, 3)]
        for a, b in combinations(labels, 2):
            pairs += 1
            agree += a == b
            if 0 not in (a, b):
                pairs_s2 += 1
                agree_s2 += a == b
        for k, mine in enumerate(labels):
            others = labels[:k] + labels[k + 1 :]
            majority = others[0] if others[0] == others[1] else 0  # split = tie
            votes += 1
            majority_hits += mine == majority
    res = compute_metrics(ds, **NONE).sel(judge=HUMAN, benchmark="PandaLM")
    assert float(res.sel(metric="human_pairwise_s1").value) == pytest.approx(agree / pairs)
    assert float(res.sel(metric="human_pairwise_s2").value) == pytest.approx(agree_s2 / pairs_s2)
    assert float(res.sel(metric="human_majority_s1").value) == pytest.approx(majority_hits / votes)
    assert int(res.sel(metric="human_pairwise_s1").data["n"]) == pairs


# ---------------------------------------------------------------- position-bias study

_VERDICT = re.compile(r"\[\[([ABC])\]\]")


def _winner(text: str, first: str, second: str) -> str:
    """The winning model of a raw judgment; unanimous [[X]] tags, else invalid."""
    found = set(_VERDICT.findall(text))
    if len(found) != 1:
        return "invalid"
    return {"A": first, "B": second, "C": "tie"}[found.pop()]


def _position_bias_consistency() -> dict[tuple[str, int], float]:
    csv.field_size_limit(1 << 30)
    out = {}
    for path in sorted(SHARED_DATA.glob("position_bias/judgment_data/*/*/*.tsv")):
        run = int(re.match(r"Repetition(\d+)", path.parent.name).group(1)) - 1
        with path.open(newline="", encoding="utf-8") as fh:
            rows = list(csv.reader(fh, delimiter="\t"))
        judge = rows[0][-1]
        by_item = defaultdict(list)
        for row in rows[1:]:
            qid, first, second = row[0].split(";")
            by_item[(qid, frozenset((first, second)))].append(_winner(row[-1], first, second))
        both = [w for w in by_item.values() if len(w) == 2]
        out[(judge, run)] = sum(a == b for a, b in both) / len(both)
    return out


def test_position_bias_study_order_consistency_per_judge_and_run():
    ds = read("position_bias")
    expected = _position_bias_consistency()
    res = compute_metrics(ds, "order_consistency", by="run", **NONE)
    assert len(expected) == 27
    for (judge, run), oracle in expected.items():
        got = float(res.sel(judge=judge, run=run).value.squeeze())
        assert got == pytest.approx(oracle, abs=1e-12), (judge, run)
    # Every run judged both orders; position bias is defined and within [0, 0.5].
    bias = compute_metrics(ds, "position_bias", **NONE).value
    assert ((bias >= 0) & (bias <= 0.5)).all()


# --------------------------------------------------------------------------- LLMBar


def _llmbar_oracle(subset: Path) -> dict[str, dict[str, float]]:
    """Per-order accuracy, both-correct and order consistency of every evaluator and
    strategy, from the last round of each record (as the authors score it)."""
    out = {}
    for path in sorted(subset.glob("evaluators/*/*/result.json")):
        hits = {"AB": 0, "BA": 0}
        both = consistent = n = 0
        for rec in json.loads(path.read_text()):
            results = rec["results"]
            rounds = ast.literal_eval(results) if isinstance(results, str) else results
            rounds = [r for r in rounds if isinstance(r, dict)]
            if not rounds or not {"swap = False", "swap = True"} <= set(rounds[-1]):
                continue
            last = rounds[-1]
            w_ab, w_ba = last["swap = False"]["winner"], last["swap = True"]["winner"]
            label = str(rec["label"])
            n += 1
            hits["AB"] += w_ab == label
            hits["BA"] += w_ba == label
            both += w_ab == label and w_ba == label
            consistent += w_ab == w_ba
        if n:
            judge = f"{path.parent.parent.name}/{path.parent.name}"
            out[judge] = {
                "AB": hits["AB"] / n,
                "BA": hits["BA"] / n,
                "both_correct": both / n,
                "order_consistency": consistent / n,
            }
    return out


def test_llmbar_per_order_accuracy_both_correct_and_consistency():
    subset = "llmbar/Dataset/LLMBar/Natural"
    ds = read(subset)
    expected = _llmbar_oracle(SHARED_DATA / subset)
    judges = [j for j in expected if j in ds["judge"].values]
    if not judges:
        pytest.skip(f"no judge of the importer is named like the folders: {list(expected)[:3]}")
    assert len(judges) >= 20
    per_order = compute_metrics(ds, "exact_match", by="order", **NONE)
    paired = compute_metrics(ds, ["both_correct", "order_consistency"], **NONE)
    for judge in judges:
        oracle = expected[judge]
        for order in ("AB", "BA"):
            got = float(per_order.sel(judge=judge, order=order).value.squeeze())
            assert got == pytest.approx(oracle[order], abs=1e-12), (judge, order)
        for metric in ("both_correct", "order_consistency"):
            got = float(paired.sel(judge=judge, metric=metric).value.squeeze())
            assert got == pytest.approx(oracle[metric], abs=1e-12), (judge, metric)
    assert np.isfinite(per_order.value).all()
