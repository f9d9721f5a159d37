"""The public importer kit: a third-party format built from it, the registry, bugs vs rejects."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

import judgestats as js
from judgestats.errors import NoImporterError
from judgestats.io import kit, registry
from judgestats.io.formats import BUILTINS
from judgestats.schema import Verdict

SRC = Path(js.__file__).parent
WINNERS = {"a": Verdict.A, "b": Verdict.B, "tie": Verdict.TIE}


def _parse_mine(col: kit.Collector, rec: dict, line: int) -> None:
    item = kit.item_id("mybench", kit.get_key(rec, "item"))
    verdict = kit.code_of(rec.get("winner"), WINNERS, Verdict.INVALID)
    col.judgment(kit.get_str(rec, "judge"), item, "AB", 0, verdict, line)
    col.item(item, benchmark="mybench")


def from_mine(path: Path) -> kit.Parsed:
    """Read a toy format of JSON Lines ``{"judge", "item", "winner"}``."""
    return kit.parse_records(Path(path), "mine", _parse_mine)


def _mine_detector(path: Path) -> kit.Detection:
    if path.suffix != ".mine":
        return kit.Detection(False, "suffix is not .mine")
    return kit.Detection(True, "a .mine file", priority=9)


MINE = kit.SourceImporter(
    "mine", "toy JSON Lines of judge, item, winner", from_mine, _mine_detector
)


def _write_mine(tmp_path: Path) -> Path:
    path = tmp_path / "votes.mine"
    lines = [
        {"judge": "j1", "item": "q1", "winner": "A"},
        {"judge": "j1", "item": "q2", "winner": "tie"},
        {"judge": ["not", "a", "name"], "item": "q3", "winner": "B"},  # rejected
        {"judge": "j2", "item": "q1", "winner": "nonsense"},  # INVALID, imported
    ]
    path.write_text("\n".join(json.dumps(r) for r in lines) + "\n", encoding="utf-8")
    return path


def test_a_third_party_importer_built_from_the_kit_reads_its_files(tmp_path):
    _write_mine(tmp_path)
    ds, report = js.read_logs(tmp_path, importers=[MINE])
    assert [f.format for f in report.files] == ["mine"]
    assert (report.read, report.imported, report.rejected, report.invalid) == (4, 3, 1, 1)
    assert report.rejects[0].line == 3 and "expected a string" in report.rejects[0].reason
    v = ds.verdict.sel(order="AB", run=0)
    assert v.sel(judge="j1", item="mybench/q1").item() == Verdict.A
    assert v.sel(judge="j1", item="mybench/q2").item() == Verdict.TIE
    assert v.sel(judge="j2", item="mybench/q1").item() == Verdict.INVALID
    assert ds.benchmark.values.tolist() == ["mybench", "mybench"]
    # The kit's importer says which options it takes: none here, so none reach it.
    assert MINE.options == ()


class _FakeEntryPoint:
    name = "mine"

    def load(self):
        return lambda: MINE  # a zero-argument factory


def test_an_entry_point_adds_a_format(tmp_path, monkeypatch):
    _write_mine(tmp_path)
    monkeypatch.setattr(registry, "entry_points", lambda group: [_FakeEntryPoint()])
    assert "mine" in js.io.importers()
    _, report = js.read_logs(tmp_path)
    assert [f.format for f in report.files] == ["mine"] and report.imported == 3


def test_a_broken_entry_point_is_a_warning_not_an_error(tmp_path, monkeypatch, caplog):
    class Broken:
        name = "broken"

        def load(self):
            raise ImportError("no module named mine")

    monkeypatch.setattr(registry, "entry_points", lambda group: [Broken()])
    assert set(js.io.importers()) == {imp.name for imp in BUILTINS}
    assert "failed to load" in caplog.text


class _CountingEntryPoints:
    """An ``entry_points`` that counts its scans and serves one entry point."""

    def __init__(self, entry) -> None:
        self.entry, self.scans = entry, 0

    def __call__(self, group):
        self.scans += 1
        return [self.entry]


def test_entry_points_are_scanned_once_until_the_import_path_changes(monkeypatch):
    find = _CountingEntryPoints(_FakeEntryPoint())
    monkeypatch.setattr(registry, "entry_points", find)
    assert "mine" in js.io.importers() and "mine" in js.io.importers()
    assert find.scans == 1  # the second registry reused the scan
    # A folder of the import path that changed (a package installed) is scanned again.
    stamp = registry._install_stamp()
    monkeypatch.setattr(registry, "_install_stamp", lambda: (*stamp, ("new-folder", 1)))
    assert "mine" in js.io.importers()
    assert find.scans == 2


def test_a_broken_entry_point_warns_at_every_registry(monkeypatch, caplog):
    class Broken:
        name = "broken"

        def load(self):
            raise ImportError("no module named mine")

    find = _CountingEntryPoints(Broken())
    monkeypatch.setattr(registry, "entry_points", find)
    for _ in range(2):
        caplog.clear()
        assert "broken" not in js.io.importers()
        assert "'broken' failed to load: no module named mine" in caplog.text
    assert find.scans == 1


def test_the_registry_is_built_when_asked_and_never_kept():
    names = [imp.name for imp in BUILTINS]
    assert list(js.io.importers()) == names  # built-ins first, in their order
    first = js.io.importers()
    first.pop("table")
    assert "table" in js.io.importers()  # a caller's copy, not the registry
    assert not any(
        isinstance(v, (dict, list, set)) and not k.startswith("__") and k != "__all__"
        for k, v in vars(registry).items()
    ), "the registry module keeps no mutable state"
    with pytest.raises(TypeError, match="is not an importer"):
        js.io.importers([object()])


def test_an_importer_bug_is_a_traceback_not_a_malformed_record(tmp_path):
    def buggy(col: kit.Collector, rec: dict, line: int) -> None:
        col.judgment(rec["judge"], rec["itme"], "AB", 0, 0, line)  # a typo: KeyError

    path = tmp_path / "votes.jsonl"
    path.write_text('{"judge": "j1", "item": "q1"}\n', encoding="utf-8")
    with pytest.raises(KeyError, match="itme"):
        kit.parse_records(path, "buggy", buggy)

    def typed(col: kit.Collector, rec: dict, line: int) -> None:
        col.judgment(rec["judge"].upper(None), "x/q", "AB", 0, 0, line)

    with pytest.raises(TypeError):
        kit.parse_records(path, "typed", typed)


def test_record_errors_and_decoding_errors_reject_the_record_only(tmp_path):
    def parse(col: kit.Collector, rec: dict, line: int) -> None:
        if rec["item"] == "q2":
            b"\xff".decode("utf-8")  # a nested payload that is not UTF-8
        if rec["item"] == "q3":
            json.loads(rec["payload"])  # a nested JSON string that is broken
        col.judgment("j1", f"b/{rec['item']}", "AB", 0, 0, line)

    path = tmp_path / "votes.jsonl"
    rows = [{"item": "q1"}, {"item": "q2"}, {"item": "q3", "payload": "{"}, {"item": "q4"}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    parsed = kit.parse_records(path, "mine", parse)
    assert parsed.judgments["item"].tolist() == ["b/q1", "b/q4"]
    assert [(r.line, r.reason.split(" (")[0]) for r in parsed.rejects] == [
        (2, "cannot be decoded"),
        (3, "cannot be decoded"),
    ]
    assert parsed.read == 4


_ODD = [None, [1], {"a": 1}, 1.5, True, "", "x"]


def _json_fixtures(fixtures: Path) -> list[tuple[Path, str]]:
    found = []
    for path in sorted(fixtures.rglob("*.json*")):
        imp, _ = js.io.detect(path)
        if imp is not None and imp.name not in ("table", "scores", "inspect"):
            found.append((path, imp.name))
    return found


def test_every_built_in_json_importer_rejects_odd_fields_without_a_traceback(fixtures, tmp_path):
    # Each field of a real record replaced by values of every JSON type: the record is
    # imported or rejected, never a KeyError/TypeError escaping the importer.
    regs = js.io.importers()
    tried = set()
    for path, name in _json_fixtures(fixtures):
        records = [r for _, r in kit.iter_records(path) if isinstance(r, dict)][:1]
        is_array = path.read_text(encoding="utf-8").lstrip().startswith("[")
        for rec in records:
            for key in rec:
                for odd in _ODD:
                    bad = {**rec, key: odd}
                    target = tmp_path / name / path.name
                    target.parent.mkdir(exist_ok=True)
                    target.write_text(json.dumps([bad] if is_array else bad), encoding="utf-8")
                    parsed = regs[name].read(target)
                    assert parsed.read >= 1 and len(parsed.rejects) <= parsed.read
                    tried.add(name)
    assert tried >= {"alpaca_eval", "arena_hard", "fastchat", "judgebench", "llmbar", "pandalm"}


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module]


def test_no_private_io_module_is_imported_from_another_package():
    for path in SRC.rglob("*.py"):
        package = ".".join(path.relative_to(SRC.parent).with_suffix("").parts[:-1])
        for module in _imports(path):
            parts = module.split(".")
            private = [i for i, p in enumerate(parts) if p.startswith("_") and i > 0]
            if module.startswith("judgestats.io") and private:
                owner = ".".join(parts[: private[0]])
                assert owner == package, f"{path.relative_to(SRC)} imports {module}"


def test_no_importer_message_still_lists_third_party_importers(tmp_path):
    odd = tmp_path / "notes.txt"
    odd.write_text("hello\n")
    with pytest.raises(NoImporterError, match=r"  mine: declines: suffix is not \.mine"):
        js.read_logs(odd, importers=[MINE])


def test_the_first_record_is_read_once_per_file_version(tmp_path):
    # every detector asks for it; a file rewritten since is read again
    import os

    from judgestats.io.kit import first_record

    path = tmp_path / "log.json"
    path.write_text('[{"a": 1}, {"a": 2}]')
    first = first_record(path)
    assert first == {"a": 1} and first_record(path) is first
    path.write_text('[{"b": 3}]')
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    assert first_record(path) == {"b": 3}
    assert first_record(tmp_path / "missing.json") is None
