"""read_logs: detection, notes, options, aliases, third-party importers, the table's pattern."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

import judgestats as js
from judgestats.errors import LogFormatError, NoImporterError
from judgestats.io import Detection, Parsed, importers
from judgestats.schema import Verdict


def test_no_importer_lists_every_importer_and_why(tmp_path):
    odd = tmp_path / "notes.txt"
    odd.write_text("hello\n")
    with pytest.raises(NoImporterError) as err:
        js.read_logs(odd)
    message = str(err.value)
    assert message.startswith(f"{odd}: no importer can read this file")
    for name in importers():
        assert f"  {name}: declines: " in message
    assert "fix:" in message


def test_folder_walk_notes_files_that_are_not_logs(tmp_path, fixtures):
    shutil.copy(fixtures / "arena_hard/my-model.jsonl", tmp_path)
    (tmp_path / "notes.txt").write_text("hello\n")
    (tmp_path / "README.md").write_text("ignored silently\n")
    _, report = js.read_logs(tmp_path)
    assert [Path(f.file).name for f in report.files] == ["my-model.jsonl"]
    assert len(report.notes) == 1
    note = report.notes[0]
    assert note.file.endswith("notes.txt") and note.reason.startswith("skipped:")
    assert "arena_hard: declines" in note.reason


def test_companion_files_are_passed_over_with_their_reason(fixtures):
    path = fixtures / "position_bias/data_MTBench_toy/Repetition1-toy/length_stats.csv"
    with pytest.raises(NoImporterError, match="per-model length statistics"):
        js.read_logs(path)


def test_unknown_option_is_an_error_naming_what_importers_accept(fixtures):
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['verdict_patern'\]") as err:
        js.read_logs(fixtures / "arena_hard", verdict_patern="mt-bench")
    assert "position_bias: verdict_pattern, multiple_matches" in str(err.value)
    with pytest.raises(ValueError, match="unknown format 'nope'"):
        js.read_logs(fixtures / "arena_hard", format="nope")
    with pytest.raises(ValueError, match="unknown option"):
        js.read_logs(fixtures / "arena_hard", format="arena_hard", tie_tolerance=0.1)


def test_options_reach_only_the_importers_that_take_them(fixtures):
    # baseline= is arena-hard's; the JudgeBench files in the same call do not mind it.
    ds, report = js.read_logs(
        [fixtures / "arena_hard", fixtures / "judgebench"], baseline="gpt-4-0314"
    )
    assert {f.format for f in report.files} == {"arena_hard", "judgebench"}
    assert "gpt-4-0314" in ds.model_a.values


def test_aliases_merge_judges(fixtures):
    ds, report = js.read_logs(fixtures / "pandalm", aliases={"judge-x": "pandalm-7b"})
    assert ds.judge.values.tolist() == ["pandalm-7b"]
    # Item 0: A from one file, B from the other: both rejected, each naming the other.
    # Item 1: a tie in both: one duplicate. Item 2: judged in one file only.
    assert (report.duplicates, report.rejected, report.balanced) == (1, 2, True)
    assert all("conflicting verdicts" in r.reason for r in report.rejects)
    v = ds.verdict.sel(judge="pandalm-7b", order="AB", run=0)
    items = ["PandaLM/0", "PandaLM/1", "PandaLM/2"]
    assert v.sel(item=items).values.tolist() == [Verdict.MISSING, Verdict.TIE, Verdict.INVALID]


def test_bad_verdict_pattern_is_a_value_error(fixtures):
    with pytest.raises(ValueError, match="neither a named pattern"):
        js.read_logs(fixtures / "position_bias", verdict_pattern="(A")


def test_unreadable_file_is_one_reject_or_raises_when_strict(tmp_path):
    bad = tmp_path / "annotations.json"
    bad.write_text('[{"instruction": "x", "output_1": "a", "output_2": "b", "preference": 1')
    _, report = js.read_logs(bad, format="alpaca_eval")
    assert (report.read, report.rejected) == (1, 1)
    assert "invalid JSON" in report.rejects[0].reason and report.rejects[0].line == 1
    empty = tmp_path / "empty.json"
    empty.write_text("")
    with pytest.raises(LogFormatError, match="the file is empty"):
        js.read_logs(empty, format="alpaca_eval", strict=True)


class _UpperImporter:
    """A third-party importer: one judgment per line, ``judge item verdict``."""

    name = "test-upper"
    description = "lines of 'judge item verdict'"
    options = ()

    def can_read(self, path: Path) -> Detection:
        ok = path.suffix == ".upper"
        return Detection(ok, "a .upper file" if ok else "not .upper", priority=9)

    def read(self, path: Path) -> Parsed:
        rows = [line.split() for line in path.read_text().splitlines()]
        judgments = pd.DataFrame(
            {
                "judge": [r[0] for r in rows],
                "item": [f"up/{r[1]}" for r in rows],
                "order": "AB",
                "run": 0,
                "verdict": [int(Verdict.parse(r[2])) for r in rows],
                "line": range(1, len(rows) + 1),
            }
        )
        items = pd.DataFrame({"item": judgments["item"], "benchmark": "up"})
        return Parsed(str(path), self.name, judgments, items=items)


def test_third_party_importer_is_detected(tmp_path):
    f = tmp_path / "x.upper"
    f.write_text("j1 q1 A\nj1 q2 tie\n")
    ds, report = js.read_logs(f, importers=[_UpperImporter()])
    assert report.files[0].format == "test-upper"
    assert ds.verdict.values.ravel().tolist() == [0, 2]
    with pytest.raises(ValueError, match="already registered"):
        js.read_logs(f, importers=[_UpperImporter(), _UpperImporter()])
    # Given for one call only: the registry itself is unchanged.
    assert "test-upper" not in importers()
    with pytest.raises(NoImporterError):
        js.read_logs(f)


def test_table_reads_raw_text_with_a_verdict_pattern(tmp_path):
    f = tmp_path / "raw.csv"
    f.write_text(
        "judge,item,order,verdict\n"
        'j,q1,AB,"so [[A]]"\n'
        'j,q1,BA,"so [[A]]"\n'
        'j,q2,AB,"no verdict"\n'
        'j,q2,unknown,"[[B]]"\n'
    )
    ds, report = js.read_logs(f, verdict_pattern="mt-bench")
    assert report.imported == 3 and report.rejected == 1
    assert "order is unknown" in report.rejects[0].reason
    v = ds.verdict.sel(judge="j", run=0)
    assert v.sel(item="raw/q1").values.tolist()[:2] == [0, 1]  # [[A]] shown second is B
    assert v.sel(item="raw/q2", order="AB").item() == Verdict.INVALID
    assert ds["match"].sel(judge="j", item="raw/q1", order="AB", run=0).item() == "[[A]]"


LOG = "judge,item,verdict,order,run\nj1,{item},A,AB,0\n"


def test_symlinked_folder_is_read_and_a_loop_is_not_followed(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (real / "a.csv").write_text(LOG.format(item="q1"), encoding="utf-8")
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "b.csv").write_text(LOG.format(item="q2"), encoding="utf-8")
    (logs / "linked").symlink_to(real, target_is_directory=True)
    (logs / "loop").symlink_to(logs, target_is_directory=True)
    ds, report = js.read_logs(logs)
    assert report.imported == 2 and report.balanced
    assert sorted(ds.item.values.tolist()) == ["a/q1", "b/q2"]


def test_hidden_folders_are_passed_over_with_a_note(tmp_path):
    (tmp_path / "a.csv").write_text(LOG.format(item="q1"), encoding="utf-8")
    stale = tmp_path / ".ipynb_checkpoints"
    stale.mkdir()
    (stale / "a.csv").write_text("judge,item,verdict,order,run\nj1,q1,B,AB,0\n", encoding="utf-8")
    _, report = js.read_logs(tmp_path)
    assert (report.read, report.imported, report.rejected) == (1, 1, 0)
    assert any(".ipynb_checkpoints" in n.file and "hidden" in n.reason for n in report.notes)


def test_the_same_file_given_twice_is_read_once(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text(LOG.format(item="q1"), encoding="utf-8")
    (tmp_path / "alias.csv").symlink_to(path)
    _, report = js.read_logs([path, path, tmp_path])
    assert (report.read, report.imported, report.duplicates) == (1, 1, 0)
    assert report.balanced and len(report.files) == 1
    assert sum("the same file as" in n.reason for n in report.notes) == 3
