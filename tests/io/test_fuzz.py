"""Fuzzing the readers: random valid records, one corruption, exact accounting.

Each example writes records whose count and content are known, applies one
corruption (truncation, an unclosed quote, a stray byte, a number too large for a
float64, padding, a duplicate that differs in one field), then checks the
accounting against what was written, and that every text imported equals the text
written, byte for byte. ``--run-slow`` runs the long profile.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import judgestats as js
from judgestats.schema import validate

#: Texts a log may hold: any printable character, newlines, tabs, quotes and
#: delimiters inside; no surrounding whitespace (cells are stripped).
TEXT = st.text(
    alphabet=st.characters(
        codec="utf-8", exclude_categories=("Cs", "Cc", "Zl", "Zp"), include_characters='\n\t",'
    ),
    min_size=1,
    max_size=12,
).filter(lambda s: s == s.strip() and not s.startswith("#"))
#: Texts without newlines or quotes (an unclosed quote then has one line to spoil).
PLAIN = st.text(alphabet="abcxyz019 _-", min_size=1, max_size=8).filter(lambda s: s == s.strip())
VERDICTS = ["A", "B", "tie"]
TABLE_SUFFIXES = ["csv", "tsv", "jsonl", "parquet"]
FAST = settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
LONG = settings(FAST, max_examples=200)


@st.composite
def tables(draw, text=TEXT) -> pd.DataFrame:
    """A valid long table: distinct items, random texts, one judgment per row."""
    n = draw(st.integers(2, 12))
    keys = [f"{i}:{t}" for i, t in enumerate(draw(st.lists(text, min_size=n, max_size=n)))]
    return pd.DataFrame(
        {
            "judge": draw(st.lists(text, min_size=n, max_size=n)),
            "item": keys,
            "verdict": draw(st.lists(st.sampled_from(VERDICTS), min_size=n, max_size=n)),
            "order": draw(st.lists(st.sampled_from(["AB", "BA"]), min_size=n, max_size=n)),
            "category": draw(st.lists(text, min_size=n, max_size=n)),
            "model_a": draw(st.lists(text, min_size=n, max_size=n)),
        }
    )


def _write(frame: pd.DataFrame, path: Path) -> None:
    kind = path.suffix[1:]
    if kind in ("csv", "tsv"):
        frame.to_csv(path, index=False, sep="," if kind == "csv" else "\t", lineterminator="\n")
    elif kind == "jsonl":
        frame.to_json(path, orient="records", lines=True, force_ascii=False)
    else:
        frame.to_parquet(path, index=False)


def _read(path: Path):
    ds, report = js.read_logs(path)
    assert validate(ds) == []
    assert report.balanced, report.format()
    assert report.read == report.imported + report.duplicates + report.rejected
    return ds, report


def _texts_intact(ds, frame: pd.DataFrame) -> None:
    """Every imported judge, item key, category and model is a text written, unaltered."""
    written = frame.set_index("item")
    keys = [i.split("/", 1)[1] for i in ds.item.values.tolist()]
    assert set(keys) <= set(written.index)
    assert set(ds.judge.values.tolist()) <= set(frame["judge"])
    for key, category, model in zip(
        keys, ds.category.values.tolist(), ds.model_a.values.tolist(), strict=True
    ):
        assert category == written.at[key, "category"]
        assert model == written.at[key, "model_a"]


@pytest.mark.parametrize("suffix", TABLE_SUFFIXES)
@FAST
@given(frame=tables(), data=st.data())
def test_valid_tables_import_every_record_unaltered(suffix, frame, data, tmp_path):
    pad = data.draw(st.booleans())
    written = frame.map(lambda s: f"  {s} ") if pad and suffix != "parquet" else frame
    path = tmp_path / f"log.{suffix}"
    _write(written, path)
    ds, report = _read(path)
    assert (report.read, report.imported, report.rejected) == (len(frame), len(frame), 0)
    assert int((ds.verdict.values >= 0).sum()) == len(frame)
    _texts_intact(ds, frame)


@pytest.mark.parametrize("suffix", TABLE_SUFFIXES)
@FAST
@given(frame=tables(), data=st.data())
def test_a_duplicate_differing_in_one_field(suffix, frame, data, tmp_path):
    k = data.draw(st.integers(0, len(frame) - 1))
    field = data.draw(st.sampled_from(["verdict", "category", "none"]))
    copy = frame.iloc[[k]].copy()
    if field == "verdict":
        copy["verdict"] = next(v for v in VERDICTS if v != frame.at[k, "verdict"])
    elif field == "category":
        copy["category"] = frame.at[k, "category"] + "x"
    path = tmp_path / f"log.{suffix}"
    _write(pd.concat([frame, copy], ignore_index=True), path)
    ds, report = _read(path)
    n = len(frame)
    if field == "verdict":  # a conflict: both rejected, neither value kept
        assert (report.read, report.imported, report.rejected) == (n + 1, n - 1, 2)
    else:  # the same judgment twice; a changed category is a note
        assert (report.read, report.imported, report.duplicates) == (n + 1, n, 1)
        assert any("category" in m.reason for m in report.notes) == (field == "category")
    _texts_intact(ds, frame)


@pytest.mark.parametrize("suffix", ["csv", "tsv", "jsonl"])
@FAST
@given(frame=tables(PLAIN), data=st.data())
def test_one_broken_record_costs_that_record_only(suffix, frame, data, tmp_path):
    path = tmp_path / f"log.{suffix}"
    _write(frame, path)
    lines = path.read_bytes().split(b"\n")  # [header,] records, ""
    first = 0 if suffix == "jsonl" else 1
    k = data.draw(st.integers(first, len(lines) - 2))
    kinds = ["bad-byte", "truncate"] + (["huge-number"] if suffix == "jsonl" else ["quote"])
    kind = data.draw(st.sampled_from(kinds))
    line = lines[k]
    if kind == "bad-byte":
        at = data.draw(st.integers(0, len(line) - 1))
        line = line[:at] + b"\xff" + line[at + 1 :]
    elif kind == "quote":
        sep = b"," if suffix == "csv" else b"\t"
        cells = line.split(sep)
        cells[4] = b'"' + cells[4]  # the category: an opening quote never closed
        line = sep.join(cells)
    elif kind == "huge-number":
        rec = json.loads(line)
        rec["length_a"] = "HUGE"
        line = json.dumps(rec, ensure_ascii=False).replace('"HUGE"', "1" + "0" * 400).encode()
    else:  # cut before the last delimiter: the record is short, not altered
        cut = line.rfind(b"," if suffix != "tsv" else b"\t")
        line = line[: data.draw(st.integers(1, max(cut - 1, 1)))]
    if k == len(lines) - 2 and kind == "truncate":
        lines = [*lines[:k], line]  # a truncated file ends mid-record
    else:
        lines[k] = line
    path.write_bytes(b"\n".join(lines))
    ds, report = _read(path)
    n = len(frame)
    assert (report.read, report.imported, report.rejected) == (n, n - 1, 1), report.format()
    assert report.rejects[0].line == k + 1
    _texts_intact(ds, frame)


@st.composite
def alpaca_records(draw) -> list[dict]:
    n = draw(st.integers(1, 8))
    texts = draw(st.lists(TEXT, min_size=n, max_size=n, unique=True))
    return [
        {
            "instruction": t,
            "output_1": draw(TEXT),
            "output_2": draw(TEXT),
            "generator_1": draw(TEXT),
            "generator_2": draw(TEXT),
            "annotator": "judge",
            "preference": draw(st.sampled_from([1, 2, 1.5])),
        }
        for t in texts
    ]


@pytest.mark.parametrize("style", ["array", "jsonl"])
@FAST
@given(records=alpaca_records(), data=st.data())
def test_json_records_with_numbers_too_large(style, records, data, tmp_path):
    k = data.draw(st.integers(0, len(records) - 1))
    huge = data.draw(st.sampled_from(["1" + "0" * 400, "1e400", "-" + "9" * 5000]))
    texts = [json.dumps(r, ensure_ascii=False) for r in records]
    texts[k] = texts[k].replace(
        f'"preference": {json.dumps(records[k]["preference"])}', f'"preference": {huge}'
    )
    body = "[\n" + ",\n".join(texts) + "\n]\n" if style == "array" else "\n".join(texts) + "\n"
    path = tmp_path / ("annotations.json" if style == "array" else "annotations.jsonl")
    path.write_text(body, encoding="utf-8")
    ds, report = _read(path)
    n = len(records)
    assert (report.read, report.imported, report.rejected) == (n, n - 1, 1)
    assert "does not fit a float64" in report.rejects[0].reason
    kept = [r for i, r in enumerate(records) if i != k]
    models = sorted(r["generator_1"] for r in kept)
    got = sorted(ds.model_a.values.tolist() + ds.model_b.values.tolist())
    assert set(models) <= set(got)  # each pair's models, as written
    assert np.isin(ds.verdict.values[ds.verdict.values >= 0], [0, 1, 2]).all()


@pytest.mark.slow
@pytest.mark.parametrize("suffix", TABLE_SUFFIXES)
@LONG
@given(frame=tables(), data=st.data())
def test_valid_tables_long(suffix, frame, data, tmp_path):
    test_valid_tables_import_every_record_unaltered.hypothesis.inner_test(
        suffix, frame, data, tmp_path
    )
