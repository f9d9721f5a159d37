"""Labels riding along on judgment rows: merged on the rows that stand for all, same outcome.

A long table repeats an item's label on every judgment of it. ``assemble`` merges the
labels without the repeats (:func:`judgestats.io._assemble._label_heads`); the oracle
here is the same merge over every row (the repeats kept), which must give the same
dataset, accounting and notes, including the notes of disagreeing labels that name
every row.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from judgestats.io import Parsed, _assemble, assemble
from judgestats.schema import Verdict

A, B, TIE = int(Verdict.A), int(Verdict.B), int(Verdict.TIE)
JUDGES = ("j1", "j2", "j3")


def _long_table(file: str, labels: dict[str, int], judges=JUDGES, runs: int = 2) -> Parsed:
    """A file of one row per judge x item x order x run, each carrying its item's label."""
    rows = [
        (j, item, order, run, label)
        for j in judges
        for item, label in labels.items()
        for order in ("AB", "BA")
        for run in range(runs)
    ]
    judge, item, order, run, label = (list(c) for c in zip(*rows, strict=True))
    n = len(rows)
    line = np.arange(2, n + 2)
    text = lambda v: pd.Categorical(v, categories=list(dict.fromkeys(v)))  # noqa: E731
    judgments = pd.DataFrame(
        {
            "judge": text(judge),
            "item": text(item),
            "order": text(order),
            "run": np.asarray(run, dtype=np.int64),
            "verdict": np.full(n, A, dtype=np.int8),
            "line": line,
        }
    )
    ride = pd.DataFrame(
        {
            "item": text(item),
            "rater": text(["human"] * n),
            "label": np.asarray(label, dtype=np.int8),
            "line": line,
            "counted": np.zeros(n, dtype=bool),
        }
    )
    items = pd.DataFrame({"item": list(labels), "benchmark": ["b"] * len(labels)})
    return Parsed(file, "table", judgments, ride, items)


def _records(file: str, labels: dict[str, int]) -> Parsed:
    """A file of label records (each counted)."""
    n = len(labels)
    table = pd.DataFrame(
        {
            "item": list(labels),
            "rater": ["human"] * n,
            "label": np.asarray(list(labels.values()), dtype=np.int8),
            "line": np.arange(2, n + 2),
            "counted": np.ones(n, dtype=bool),
        }
    )
    return Parsed(file, "table", labels=table)


def _every_row(labels: pd.DataFrame) -> np.ndarray:
    return np.ones(len(labels), dtype=bool)


def _both_ways(parsed, monkeypatch):
    """``assemble`` with the repeats left out, and over every row (the oracle)."""
    fast = assemble(parsed)
    with monkeypatch.context() as m:
        m.setattr(_assemble, "_label_heads", _every_row)
        slow = assemble(parsed)
    return fast, slow


def _same(fast, slow) -> None:
    (ds_fast, rep_fast), (ds_slow, rep_slow) = fast, slow
    assert ds_fast.identical(ds_slow)
    assert rep_fast == rep_slow


def test_heads_are_the_label_records_and_first_of_each_repeated_label():
    p = _long_table("t.csv", {"b/1": A, "b/2": B})
    heads = _assemble._label_heads(p.labels)
    kept = p.labels[heads]
    assert kept["item"].tolist() == ["b/1", "b/2"] and kept["line"].tolist() == [2, 6]
    records = _records("l.csv", {"b/1": A}).labels
    assert _assemble._label_heads(records).all()  # label records are never left out


@pytest.mark.parametrize(
    "files",
    [
        # one long table: every label agrees with its repeats
        lambda: [_long_table("t.csv", {"b/1": A, "b/2": B, "b/3": TIE})],
        # a label record agreeing with the ride-along labels
        lambda: [_long_table("t.csv", {"b/1": A, "b/2": B}), _records("l.csv", {"b/1": A})],
        # a label record disagreeing: a note for every ride-along row of the item
        lambda: [_long_table("t.csv", {"b/1": A, "b/2": B}), _records("l.csv", {"b/1": TIE})],
        # two tables whose ride-along labels disagree: every row of both in the notes
        lambda: [
            _long_table("t1.csv", {"b/1": A, "b/2": B}),
            _long_table("t2.csv", {"b/1": B, "b/2": B}, judges=("k1",)),
        ],
        # labels that change within one file
        lambda: [
            _long_table("t.csv", {"b/1": A, "b/2": B}),
            _long_table("u.csv", {"b/2": B, "b/1": A}, judges=("k1", "k2")),
        ],
    ],
    ids=["agree", "record-agrees", "record-disagrees", "tables-disagree", "two-tables"],
)
def test_leaving_out_repeats_changes_nothing(files, monkeypatch):
    fast, slow = _both_ways(files(), monkeypatch)
    _same(fast, slow)


def test_a_disagreement_names_every_row_as_before(monkeypatch):
    parsed = [_long_table("t.csv", {"b/1": A, "b/2": B}), _records("l.csv", {"b/1": TIE})]
    (_, report), _ = _both_ways(parsed, monkeypatch)
    disagree = [n for n in report.notes if "disagrees with the label record" in n.reason]
    # 3 judges x 2 orders x 2 runs ride-along rows of b/1, each named with its line.
    assert len(disagree) == 12
    assert sorted(n.line for n in disagree) == [2, 3, 4, 5, 10, 11, 12, 13, 18, 19, 20, 21]
    assert report.balanced


def test_a_label_within_one_file_that_changes_is_a_conflict_note(monkeypatch):
    p = _long_table("t.csv", {"b/1": A})
    p.labels.loc[5, "label"] = B  # one ride-along row of b/1 says B
    (ds, report), slow = _both_ways([p], monkeypatch)
    _same((ds, report), slow)
    assert any("conflicting labels" in n.reason for n in report.notes)
    assert "human" not in ds.rater.values.tolist()  # conflicting metadata labels are dropped
