"""Raw judge text in any named phrasing imports with no option; the pattern is reported."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

import judgestats as js
from judgestats.errors import LogFormatError
from judgestats.io.verdicts import choose_pattern
from judgestats.schema import Verdict

A, B, TIE, INV = Verdict.A, Verdict.B, Verdict.TIE, Verdict.INVALID


def _write(path: Path, header: list[str], rows: list[list[str]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as fh:
        out = csv.writer(fh, delimiter="\t")
        out.writerow(header)
        out.writerows(rows)
    return path


# The study's one-turn layout: answer1/answer2 next to a reference answer.
HEADER = ["cmp_index", "question", "answer1", "answer2", "reference_answer", "task", "judge-y"]


def _rows(texts: list[str]) -> list[list[str]]:
    rows = []
    for i, text in enumerate(texts):
        shown = ("m-a", "m-b") if i % 2 == 0 else ("m-b", "m-a")
        answers = ("short", "a longer answer") if i % 2 == 0 else ("a longer answer", "short")
        rows.append(
            [f"{i // 2};{shown[0]};{shown[1]}", f"Q{i // 2}?", *answers, "ref", "math", text]
        )
    return rows


CHOICE_TEXTS = [
    "Reasoning.\nChoice: A",
    "Choice: (B)",
    "Both fine. Choice: tie",
    "I cannot tell.",
]


@pytest.fixture
def choice_file(tmp_path) -> Path:
    path = tmp_path / "data_DevBench_rep" / "Repetition1-DevBench_x" / "record_judge-y_1.tsv"
    return _write(path, HEADER, _rows(CHOICE_TEXTS))


def test_choice_phrasing_imports_with_no_option(choice_file):
    ds, report = js.read_logs(choice_file.parents[1])
    # Row 1 showed m-a first ("A" = m-a); row 2 showed m-b first ("B" = m-a).
    v = ds.verdict.sel(judge="judge-y", run=0)
    assert int(v.sel(item="DevBench/0/m-a/m-b", order="AB")) == A
    assert int(v.sel(item="DevBench/0/m-a/m-b", order="BA")) == A
    assert int(v.sel(item="DevBench/1/m-a/m-b", order="AB")) == TIE
    assert int(v.sel(item="DevBench/1/m-a/m-b", order="BA")) == INV
    assert report.invalid == 1
    (note,) = [n for n in report.notes if n.file.endswith(".tsv")]
    assert note.reason.startswith("verdict pattern 'choice' found (verdicts in 3 of 4 texts")
    assert "verdict pattern 'choice'" in report.format()
    # The one-turn layout's lengths, and the benchmark from the study's folder.
    assert set(ds.benchmark.values.tolist()) == {"DevBench"}
    assert ds.length_a.sel(item="DevBench/0/m-a/m-b").item() == len("short")
    assert ds.length_b.sel(item="DevBench/0/m-a/m-b").item() == len("a longer answer")


def test_named_pattern_is_not_reported(choice_file):
    _, report = js.read_logs(choice_file, verdict_pattern="mt-bench")
    assert report.invalid == 4
    assert not any("verdict pattern" in n.reason for n in report.notes)


def test_patterns_that_disagree_are_flagged(tmp_path):
    texts = ["[[A]] ... Choice: B", "[[B]]", "[[A]]", "[[C]]"]
    path = _write(tmp_path / "data_X_y" / "record_judge-y_1.tsv", HEADER, _rows(texts))
    _, report = js.read_logs(path)
    (note,) = report.notes
    assert "verdict pattern 'mt-bench' found (verdicts in 4 of 4 texts" in note.reason
    assert "patterns 'mt-bench' and 'choice' disagree on 1 texts (line 2)" in note.reason


def test_benchmark_needs_a_folder_or_the_option(tmp_path):
    path = _write(tmp_path / "record_judge-y_1.tsv", HEADER, _rows(CHOICE_TEXTS))
    with pytest.raises(LogFormatError, match="pass benchmark=NAME"):
        js.read_logs(path, strict=True)
    _, report = js.read_logs(path)
    (reject,) = report.rejects
    assert "names its benchmark; pass benchmark=NAME" in reject.reason
    ds, _ = js.read_logs(path, benchmark="Mine")
    assert set(ds.benchmark.values.tolist()) == {"Mine"}


def test_choose_pattern_counts_every_pattern():
    choice = choose_pattern(["[[A>>B]]", "[[B>A]]", "Output (a)", "nothing"])
    assert choice.pattern == "arena-hard"
    assert dict(choice.extracted) == {"mt-bench": 0, "arena-hard": 2, "choice": 0, "llmbar": 1}
    assert choice.texts == 4 and choice.disagreements == {}
    none = choose_pattern(["no verdict here"])
    assert "no named verdict pattern matches" in none.describe()


def test_position_bias_folders_counted_from_zero_keep_their_runs_apart(tmp_path):
    # Repetition0 and Repetition1 are two runs, not both run 0; a study counting from
    # 1 keeps run = K - 1.
    texts = ["[[A]]", "[[A]]"]
    for base, folders in (("zero", ["Repetition0", "Repetition1"]), ("one", ["Repetition1"])):
        for folder in folders:
            _write(
                tmp_path / base / "data_MTBench_x" / folder / "record_j_1.tsv", HEADER, _rows(texts)
            )
    ds, report = js.read_logs(tmp_path / "zero")
    assert ds.run.values.tolist() == [0, 1]
    assert report.duplicates == 0 and report.rejected == 0 and report.imported == 4
    assert (ds.verdict.sel(judge="j") != Verdict.MISSING).all()
    ds_one, _ = js.read_logs(tmp_path / "one")
    assert ds_one.run.values.tolist() == [0]


def test_table_of_raw_text_gets_the_pattern_that_fits_it(tmp_path):
    path = tmp_path / "raw.csv"
    rows = [
        ["j", "q1", "AB", "Reasoning...\nChoice: A"],
        ["j", "q1", "BA", "Choice: (B)"],  # slot B shown first in BA: the item's A
        ["j", "q2", "AB", "Choice: tie"],
        ["j", "q2", "BA", "I cannot decide"],
    ]
    with open(path, "w", newline="") as fh:
        out = csv.writer(fh)
        out.writerow(["judge", "item", "order", "verdict"])
        out.writerows(rows)
    ds, report = js.read_logs(path)
    assert (report.read, report.imported, report.rejected, report.invalid) == (4, 4, 0, 1)
    notes = [n.reason for n in report.notes if n.file == str(path)]
    assert len(notes) == 1 and notes[0].startswith("verdict pattern 'choice' found")
    assert "verdicts in 3 of 4 texts" in notes[0]
    v = ds.verdict.sel(judge="j", run=0)
    assert v.sel(item="raw/q1").values.tolist() == [A, A]
    assert v.sel(item="raw/q2").values.tolist() == [TIE, INV]
    assert ds["match"].sel(judge="j", item="raw/q1", order="AB", run=0).item() == "Choice: A"


def test_table_of_verdict_words_is_not_taken_for_raw_text(tmp_path):
    # A verdict word among the values: the vocabulary is used and an unknown word is
    # rejected with both fixes named, never read with a guessed pattern.
    path = tmp_path / "words.csv"
    path.write_text("judge,item,order,verdict\nj,q1,AB,A\nj,q2,AB,Choice: B\n")
    _, report = js.read_logs(path)
    assert (report.imported, report.rejected) == (1, 1)
    assert "verdict_map=" in report.rejects[0].reason
    assert "--verdict-pattern" in report.rejects[0].reason
    assert not any("verdict pattern" in n.reason for n in report.notes)
