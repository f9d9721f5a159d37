"""Without inspect_ai, Inspect logs are still found, and the message says how to read them."""

from __future__ import annotations

import sys
import zipfile

import pytest

import judgestats as js
from judgestats.errors import LogFormatError


def test_install_hint(tmp_path, monkeypatch):
    log = tmp_path / "2025-01-01T00-00-00_task_abc.eval"
    with zipfile.ZipFile(log, "w") as archive:
        archive.writestr("header.json", "{}")
    monkeypatch.setitem(sys.modules, "inspect_ai", None)
    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)
    importer, _ = js.io.detect(log)
    assert importer is not None and importer.name == "inspect"
    with pytest.raises(LogFormatError, match=r"pip install 'judgestats\[inspect\]'"):
        js.read_logs(log, strict=True)
    _, report = js.read_logs(tmp_path)
    (reject,) = report.rejects
    assert "judgestats[inspect]" in reject.reason and reject.file == str(log)
