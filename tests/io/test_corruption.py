"""Corrupted logs of every format: never an unhandled exception, and the totals add up.

Valid fixture files are corrupted the ways real logs break: fields dropped, values of
the wrong type, odd unicode, a swapped-order partner (trial, game, round) missing,
records deleted or repeated, then at the text level truncated lines, invalid JSON,
stray bytes that are not UTF-8. Every import must return a schema-valid dataset whose
accounting balances, file by file.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import judgestats as js
from judgestats.errors import LogFormatError
from judgestats.io.kit import load_json
from judgestats.schema import validate

FIXTURES = Path(__file__).resolve().parent / "data"

# name: (importer, folder copied, file corrupted in it, serialisation)
JSON_CASES = {
    "judgebench": (
        "judgebench",
        "judgebench/outputs",
        "dataset=judgebench,response_model=gpt-4o,judge_name=arena_hard,judge_model=gpt-4o.jsonl",
        "jsonl",
    ),
    "judgebench-rm": (
        "judgebench",
        "judgebench/outputs",
        "dataset=judgebench,response_model=gpt-4o,judge_name=reward_model,judge_model=skywork.jsonl",
        "jsonl",
    ),
    "judgebench-labels": (
        "judgebench",
        "judgebench/data",
        "dataset=judgebench,response_model=gpt-4o-2024-05-13.jsonl",
        "jsonl",
    ),
    "fastchat-model": ("fastchat", "fastchat", "gpt-4_pair.jsonl", "jsonl"),
    "fastchat-human": ("fastchat", "fastchat", "human_judgments.jsonl", "jsonl"),
    "alpaca_eval": ("alpaca_eval", "alpaca_eval", "annotations.json", "array"),
    "arena_hard": ("arena_hard", "arena_hard", "my-model.jsonl", "jsonl"),
    "pandalm-testset": ("pandalm", "pandalm", "testset-v1.json", "array"),
    "pandalm-judge": ("pandalm", "pandalm", "judge-x-testset-v1.json", "array"),
    "llmbar-result": (
        "llmbar",
        "llmbar_toy/Dataset/LLMBar/Toy",
        "evaluators/Judge/Swap/result.json",
        "array",
    ),
    "llmbar-rating": (
        "llmbar",
        "llmbar_toy/Dataset/Processed/Pref",
        "evaluators/Judge/Vanilla/result.json",
        "array",
    ),
    "llmbar-dataset": ("llmbar", "llmbar_toy/Dataset/LLMBar/Toy", "dataset.json", "array"),
}
TEXT_CASES = {
    "position_bias": (
        "position_bias",
        "position_bias/data_MTBench_toy/Repetition1-toy",
        "record_judge-x_3.tsv",
        "\t",
    ),
    "scores": ("scores", "scores", "rm_scores.csv", ","),
    "table": ("table", "table", "judgments.csv", ","),
}

ODD_TEXT = st.text(
    alphabet=st.characters(codec=None, exclude_categories=()), max_size=12
) | st.sampled_from(["\x00", "\u2028", "\ud800", "\U0001f600", "\ufeff", "\r", "\n", '"', "\t"])
ANY_VALUE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=True, allow_infinity=True),
    ODD_TEXT,
    st.lists(st.integers(0, 2), max_size=3),
    st.dictionaries(st.sampled_from(["winner", "score", "x"]), st.none(), max_size=2),
)


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path (keys and indices) inside a record, to a depth of four."""
    if len(prefix) >= 4 or not isinstance(value, (dict, list)):
        return []
    out = []
    for k, v in value.items() if isinstance(value, dict) else enumerate(value):
        out.append((*prefix, k))
        out += _paths(v, (*prefix, k))
    return out


def _parent(rec: Any, path: tuple) -> Any:
    for k in path[:-1]:
        rec = rec[k]
    return rec


@st.composite
def corrupted_records(draw, records: list[dict]) -> list:
    records = json.loads(json.dumps(records))  # a private copy
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(
            st.sampled_from(["drop", "retype", "unicode", "drop-partner", "delete", "repeat"])
        )
        if not records:
            break
        i = draw(st.integers(0, len(records) - 1))
        paths = _paths(records[i])
        if kind in ("drop", "retype", "unicode") and paths:
            path = draw(st.sampled_from(paths))
            parent = _parent(records[i], path)
            if kind == "drop":
                del parent[path[-1]]
            else:
                parent[path[-1]] = draw(ODD_TEXT if kind == "unicode" else ANY_VALUE)
        elif kind == "drop-partner":
            lists = [p for p in paths if isinstance(_parent(records[i], p)[p[-1]], list)]
            lists = [p for p in lists if _parent(records[i], p)[p[-1]]]
            if lists:
                target = _parent(records[i], (*draw(st.sampled_from(lists)), 0))
                del target[draw(st.integers(0, len(target) - 1))]
        elif kind == "delete":
            del records[i]
        elif kind == "repeat":
            records.insert(i, json.loads(json.dumps(records[i])))
    return records


def _load_records(path: Path, style: str) -> list[dict]:
    text = path.read_text(encoding="utf-8")
    if style == "array":
        return json.loads(text)
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _dump_records(records: list, style: str) -> bytes:
    if style == "array":
        text = json.dumps(records, indent=2, ensure_ascii=False)
    else:
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    return text.encode("utf-8", "surrogatepass")


@st.composite
def corrupted_bytes(draw, data: bytes) -> bytes:
    for _ in range(draw(st.integers(0, 2))):
        kind = draw(st.sampled_from(["truncate", "garbage-line", "bad-byte", "odd-unicode"]))
        at = draw(st.integers(0, max(len(data) - 1, 0)))
        if kind == "truncate":
            data = data[:at]
        elif kind == "garbage-line":
            line = draw(st.sampled_from([b"{not json", b"[1, 2]", b"null", b"}", b'"x"']))
            nl = data.find(b"\n", at)
            data = data + b"\n" + line if nl < 0 else data[: nl + 1] + line + data[nl:]
        elif kind == "bad-byte":
            data = data[:at] + b"\xff" + data[at + 1 :]
        else:
            odd = draw(ODD_TEXT).encode("utf-8", "surrogatepass")
            data = data[:at] + odd + data[at:]
    return data


@st.composite
def corrupted_rows(draw, rows: list[list[str]]) -> list[list[str]]:
    rows = [list(r) for r in rows]
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(1, len(rows) - 1))
        j = draw(st.integers(0, len(rows[i]) - 1))
        kind = draw(st.sampled_from(["drop-cell", "odd-cell", "empty-cell", "drop-row", "repeat"]))
        if kind == "drop-cell":
            del rows[i][j]
        elif kind == "odd-cell":
            rows[i][j] = draw(ODD_TEXT | st.sampled_from(["a;b", ";;", "1;x;x", "nan", "1e999"]))
        elif kind == "empty-cell":
            rows[i][j] = ""
        elif kind == "drop-row" and len(rows) > 2:
            del rows[i]
        else:
            rows.insert(i, list(rows[i]))
    return rows


def _corrupt_json(data, work: Path, name: str, style: str) -> bytes:
    records = data.draw(corrupted_records(_load_records(work / name, style)))
    return data.draw(corrupted_bytes(_dump_records(records, style)))


def _corrupt_table(data, work: Path, name: str, delimiter: str) -> bytes:
    with open(work / name, newline="", encoding="utf-8") as fh:
        rows = data.draw(corrupted_rows(list(csv.reader(fh, delimiter=delimiter))))
    out = io.StringIO()
    csv.writer(out, delimiter=delimiter, lineterminator="\n").writerows(rows)
    return data.draw(corrupted_bytes(out.getvalue().encode("utf-8", "surrogatepass")))


@pytest.mark.parametrize("case", sorted(JSON_CASES) + sorted(TEXT_CASES))
@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_corrupted_logs_never_raise_and_add_up(case, data, tmp_path_factory):
    importer, folder, name, how = {**JSON_CASES, **TEXT_CASES}[case]
    work = tmp_path_factory.mktemp(case) / "logs"
    shutil.copytree(FIXTURES / folder, work)
    corrupt = _corrupt_json if case in JSON_CASES else _corrupt_table
    (work / name).write_bytes(corrupt(data, work, name, how))
    for ds, report in (js.read_logs(work / name, format=importer), js.read_logs(work)):
        assert validate(ds) == []
        assert report.balanced, report.format()
        assert all(f.balanced for f in report.files)
        # A file is never passed over in silence: it has records, or a reason why not.
        assert report.read >= 1 or report.notes


def _annotations(n: int) -> bytes:
    records = [
        {"instruction": f"q{i}", "output_1": "a", "output_2": f"b{i}", "annotator": "ann"}
        | {"preference": 1}
        for i in range(n)
    ]
    return json.dumps(records, indent=1).encode()


def test_a_bad_byte_inside_a_json_array_record_rejects_that_record_only(tmp_path):
    data = _annotations(3)
    at = data.index(b'"b1"') + 1
    path = tmp_path / "annotations.json"
    path.write_bytes(data[:at] + b"\xff" + data[at + 1 :])
    ds, report = js.read_logs(path)
    assert (report.read, report.imported, report.rejected) == (3, 2, 1)
    reject = report.rejects[0]
    start = data[:at].rfind(b"{")
    assert reject.line == data[:start].count(b"\n") + 1  # where the record starts
    assert "byte 0xff" in reject.reason and "this record is rejected" in reject.reason
    assert ds.sizes["item"] == 2


def test_a_bad_byte_between_json_array_records_says_what_was_lost(tmp_path):
    data = _annotations(3)
    at = data.index(b"},") + 1  # the comma after the first record
    path = tmp_path / "annotations.json"
    path.write_bytes(data[:at] + b"\xff" + data[at + 1 :])
    _, report = js.read_logs(path)
    assert (report.read, report.imported, report.rejected) == (2, 1, 1)
    assert "not UTF-8 (0xff)" in report.rejects[0].reason
    assert "the rest of the file could not be read" in report.rejects[0].reason


def test_a_whole_json_document_with_a_bad_byte_is_rejected_whole_and_says_so(tmp_path):
    path = tmp_path / "doc.json"
    path.write_bytes(b'{"a": "x\xff"}\n')
    with pytest.raises(LogFormatError, match="rejected whole"):
        load_json(path)


@pytest.mark.parametrize(
    ("case", "number", "huge"),
    [
        ("alpaca_eval", '"preference": 2', '"preference": 1' + "0" * 400),
        ("judgebench-rm", "0.9, 0.1", "1e400, 0.1"),
        ("llmbar-result", '"label": 2', '"label": ' + "9" * 5000),
    ],
)
def test_a_number_too_large_for_a_float_rejects_its_record_in_every_json_importer(
    case, number, huge, tmp_path
):
    importer, folder, name, _ = JSON_CASES[case]
    work = tmp_path / "logs"
    shutil.copytree(FIXTURES / folder, work)
    text = (work / name).read_text(encoding="utf-8")
    assert number in text
    (work / name).write_text(text.replace(number, huge, 1), encoding="utf-8")
    ds, report = js.read_logs(work / name, format=importer)
    assert validate(ds) == []
    assert report.balanced, report.format()
    assert report.rejected == 1 and report.imported >= 1, report.format()
    assert "does not fit a float64" in report.rejects[0].reason
