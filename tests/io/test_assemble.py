"""assemble: label records beat metadata labels, extra variables keep their type."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from judgestats.accounting import Reject
from judgestats.io import Parsed, assemble
from judgestats.schema import Verdict

A, B, TIE = int(Verdict.A), int(Verdict.B), int(Verdict.TIE)


def _judgments(file: str, item: str, **extra) -> Parsed:
    judgments = pd.DataFrame(
        {
            "judge": ["j"],
            "item": [item],
            "order": ["AB"],
            "run": [0],
            "verdict": [A],
            "line": [1],
            **{k: [v] for k, v in extra.items()},
        }
    )
    labels = pd.DataFrame(
        {"item": [item], "rater": ["gold"], "label": [B], "line": [1], "counted": [False]}
    )
    items = pd.DataFrame({"item": [item], "benchmark": ["b"], "label_kind": ["unlabelled"]})
    return Parsed(file, "x", judgments, labels, items)


def _labels(file: str, item: str, label: int) -> Parsed:
    labels = pd.DataFrame(
        {"item": [item], "rater": ["gold"], "label": [label], "line": [3], "counted": [True]}
    )
    items = pd.DataFrame({"item": [item], "benchmark": ["b"], "label_kind": ["correctness"]})
    return Parsed(file, "x", labels=labels, items=items)


@pytest.mark.parametrize("label_file_first", [True, False])
def test_label_record_wins_over_metadata_label_in_any_order(label_file_first):
    parsed = [_judgments("judged.json", "b/1"), _labels("labels.json", "b/1", B)]
    if label_file_first:
        parsed.reverse()
    ds, report = assemble(parsed)
    accounts = {f.file: (f.read, f.imported, f.duplicates) for f in report.files}
    assert accounts == {"judged.json": (1, 1, 0), "labels.json": (1, 1, 0)}
    assert ds.human.sel(item="b/1", rater="gold").item() == B
    # The label kind given beats the fill value, whichever file came first.
    assert ds.label_kind.sel(item="b/1").item() == "correctness"
    assert report.notes == ()


def test_disagreeing_metadata_label_is_a_note_not_a_reject():
    ds, report = assemble([_judgments("judged.json", "b/1"), _labels("labels.json", "b/1", A)])
    assert report.rejected == 0 and report.balanced
    assert ds.human.sel(item="b/1", rater="gold").item() == A
    assert len(report.notes) == 1
    assert "disagrees with the label record (A)" in report.notes[0].reason


def test_integer_extra_variables_stay_integer_when_a_file_lacks_them():
    ds, _ = assemble([_judgments("one.json", "b/1", strength=2), _judgments("two.json", "b/2")])
    assert ds["strength"].dtype.kind == "i"
    assert ds["strength"].sel(item="b/1", order="AB", run=0, judge="j").item() == 2
    assert ds["strength"].sel(item="b/2", order="AB", run=0, judge="j").item() == -1


def test_parsed_notes_reach_the_report():
    p = _labels("labels.json", "b/1", A)
    p.notes.append(Reject("labels.json", None, "a note"))
    _, report = assemble([p])
    assert [n.reason for n in report.notes] == ["a note"]
    assert report.read == 1  # notes are not records


def test_float_extras_are_nan_where_missing():
    ds, _ = assemble([_judgments("one.json", "b/1", score_a=0.5), _judgments("two.json", "b/2")])
    score = ds["score_a"].sel(judge="j", order="AB", run=0)
    assert score.sel(item="b/1").item() == 0.5
    assert np.isnan(score.sel(item="b/2").item())


@pytest.mark.parametrize(
    ("rows", "where", "says"),
    [
        ("j,q1,A,0\nj,q2,A,40\n", "log.csv:3: run 40 makes the dataset", "fix the run column"),
        ("".join(f"j,q{i},A,0\n" for i in range(50)), "log.csv: the dataset would be", "50 items"),
    ],
)
def test_a_dataset_too_large_for_memory_names_its_size_and_the_way_out(
    tmp_path, monkeypatch, rows, where, says
):
    from judgestats.errors import LogFormatError
    from judgestats.io import _assemble, read_logs

    monkeypatch.setattr(_assemble, "MAX_CELLS", 40)  # this machine's memory, made small
    log = tmp_path / "log.csv"
    log.write_text("judge,item,verdict,run\n" + rows, encoding="utf-8")
    with pytest.raises(LogFormatError) as err:
        read_logs(log)
    message = str(err.value)
    assert message.startswith(str(log.parent / where)) or where in message, message
    assert says in message
    assert "cells (about" in message and "GiB)" in message
    assert message.endswith(
        "or import the logs in parts (fewer judges, benchmarks or runs per dataset)"
    )


@pytest.mark.parametrize("kinds", [("str", "str", "str"), ("str", "category", "str")])
def test_text_columns_of_many_files_get_codes_in_order_of_first_appearance(kinds):
    """One factorisation of all files' text, or one per file: the same codes."""
    from judgestats.io._assemble import _union

    values = [["b", "a", None, "b"], ["c", "a"], ["a", None, "d", "c"]]
    columns = [pd.Series(v, dtype=k) for v, k in zip(values, kinds, strict=True)]
    got = _union(columns)
    flat = [v for vs in values for v in vs]
    assert list(got.categories) == ["b", "a", "c", "d"]  # first appearance over the files
    assert [None if pd.isna(v) else v for v in got] == flat
    assert got.codes.tolist() == [-1 if v is None else "bacd".index(v) for v in flat]


@pytest.mark.parametrize(
    ("categories", "expected"),
    [
        ([["x", "y"], ["x", "y"], ["x", "y"]], ["x", "y"]),  # files over the same values
        ([["x", "y"], ["y", "x"], ["x", "y"]], ["x", "y"]),  # the same values, other order
        ([["1", "2"], ["1", "2"], ["1", "3"]], ["1", "2", "3"]),
    ],
)
def test_categorical_columns_of_many_files_get_the_codes_of_their_values(categories, expected):
    """Each row's code names its own value in the union, whether the files' categories
    are equal or not (oracle: the rows' values, mapped by hand)."""
    from judgestats.io._assemble import _union

    rows = [[1, 0, -1, 1], [0, 0], [1, -1, 1]]
    columns = [
        pd.Series(pd.Categorical.from_codes(r, categories=pd.Index(c, dtype="str")))
        for r, c in zip(rows, categories, strict=True)
    ]
    got = _union(columns)
    want = [c[k] if k >= 0 else None for r, c in zip(rows, categories, strict=True) for k in r]
    assert list(got.categories) == expected
    assert [None if pd.isna(v) else v for v in got] == want
    assert got.codes.tolist() == [-1 if v is None else expected.index(v) for v in want]


def _described(file: str, rows: list[dict]) -> Parsed:
    """A file that only describes items (its rows as given, each with its line)."""
    return Parsed(file, "x", items=pd.DataFrame(rows))


def test_items_given_different_metadata_get_one_note_per_item_and_coordinate():
    parsed = [
        _described(
            "a.json",
            [
                {"item": "b/1", "benchmark": "b", "category": "x", "length_a": 10.0, "line": 4},
                {"item": "b/2", "benchmark": "b", "category": "y", "length_a": 3.0, "line": 5},
            ],
        ),
        _described(
            "b.json",
            [
                {"item": "b/1", "benchmark": "b", "category": "x", "length_a": 12.0, "line": 6},
                {"item": "b/2", "benchmark": "b", "category": "z", "length_a": 3.0, "line": 7},
            ],
        ),
        _described(
            "c.json",
            [
                {"item": "b/2", "benchmark": "b", "category": "w", "length_a": None, "line": 2},
                {"item": "b/2", "benchmark": "b", "category": "y", "length_a": 3.0, "line": 3},
            ],
        ),
    ]
    ds, report = assemble(parsed)
    # the first value given is kept; every other value is named once, at its first row
    assert ds.category.sel(item=["b/1", "b/2"]).values.tolist() == ["x", "y"]
    assert ds.length_a.sel(item=["b/1", "b/2"]).values.tolist() == [10.0, 3.0]
    assert list(report.notes) == [
        Reject(
            "a.json",
            5,
            "item 'b/2': category 'y' is kept; other records give 'z' at b.json:7, 'w' at c.json:2",
        ),
        Reject(
            "a.json", 4, "item 'b/1': length_a 10.0 is kept; other records give 12.0 at b.json:6"
        ),
    ]
