"""Bad input to the generic table importer: a clear message naming file, line and fix,
or an accounted reject; never a bare traceback. Totals always add up."""

import pytest

from judgestats.errors import LogFormatError
from judgestats.io import read_logs
from judgestats.io.formats.table import from_table

HEADER = "judge,item,verdict,order,run,human\n"
ROW = "j1,q{i},A,AB,0,A\n"


def write(tmp_path, text, name="log.csv", mode="w"):
    path = tmp_path / name
    if mode == "wb":
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def read(path):
    ds, report = read_logs(path)
    assert report.balanced
    assert report.read == report.imported + report.duplicates + report.rejected
    return ds, report


def test_empty_file(tmp_path):
    path = write(tmp_path, "")
    with pytest.raises(LogFormatError, match=r"log\.csv: the file is empty"):
        from_table(path)
    _, report = read(tmp_path)  # in a folder: passed over with a note that says why
    assert report.read == 0
    assert "log.csv" in report.notes[0].file and "the file is empty" in report.notes[0].reason


def test_header_only(tmp_path):
    path = write(tmp_path, HEADER)
    with pytest.raises(LogFormatError, match="header only"):
        from_table(path)


def test_missing_required_column(tmp_path):
    path = write(tmp_path, "judge,verdict\nj1,A\n")
    with pytest.raises(LogFormatError, match=r"log\.csv:1: required column 'item'.*columns="):
        from_table(path)


def test_unknown_verdict_is_reported_not_guessed(tmp_path):
    path = write(tmp_path, HEADER + ROW.format(i=1) + "j1,q2,maybe,AB,0,A\n")
    _, report = read(path)
    assert report.imported == 1 and report.rejected == 1
    reject = report.rejects[0]
    assert reject.line == 3 and "unknown verdict 'maybe'" in reject.reason
    assert "verdict_map" in reject.reason
    # mapped by argument, it imports
    _, report = read_logs(path, verdict_map={"maybe": "tie"})
    assert report.rejected == 0


def test_non_utf8_bytes_reject_one_line(tmp_path):
    data = (HEADER + ROW.format(i=1)).encode() + b"j1,q\xff2,A,AB,0,A\n" + ROW.format(i=3).encode()
    path = write(tmp_path, data, mode="wb")
    _, report = read(path)
    assert report.imported == 2 and report.rejected == 1
    assert report.rejects[0].line == 3 and "UTF-8" in report.rejects[0].reason


def test_truncated_last_line(tmp_path):
    path = write(tmp_path, HEADER + ROW.format(i=1) + "j1,q2,A")
    _, report = read(path)
    assert report.imported == 1 and report.rejected == 1
    assert report.rejects[0].line == 3 and "truncated" in report.rejects[0].reason


def test_mixed_types_in_a_column(tmp_path):
    path = write(tmp_path, HEADER + ROW.format(i=1) + "j1,q2,A,AB,first,A\n")
    _, report = read(path)
    assert report.rejected == 1
    assert report.rejects[0].line == 3 and "run 'first' is not a non-negative integer" in (
        report.rejects[0].reason
    )


def test_duplicates_merge_and_conflicts_are_rejected_not_overwritten(tmp_path):
    text = HEADER + ROW.format(i=1) + ROW.format(i=1) + "j1,q2,A,AB,0,A\nj1,q2,B,AB,0,A\n"
    ds, report = read(write(tmp_path, text))
    assert (report.imported, report.duplicates, report.rejected) == (1, 1, 2)
    assert all("conflicting verdicts" in r.reason for r in report.rejects)
    assert {r.line for r in report.rejects} == {4, 5}
    assert int(ds["verdict"].sel(item="log/q2").max()) == -1  # missing, not either value
