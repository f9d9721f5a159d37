"""PandaLM (Wang et al. 2023): the human-annotated test set and judge result files.

Layout accepted
---------------
* Test set (``testset-v1.json``): a JSON array of ``{idx, motivation_app, cmp_key,
  instruction, input, response1, response2, annotator1, annotator2, annotator3}``,
  each annotator 1 (response1 better), 2 (response2 better) or 0 (tie).
* Judge result file (``<judge>-testset-v1.json``): a JSON array of ``{idx,
  <prefix>_result, ...}`` (e.g. ``gpt_result``, ``pandalm_result``): ``"1"``/``1``,
  ``"2"``/``2``, ``"Tie"``/``0``; anything else (``"garbage"``, null) is ``INVALID``.

What is imported
----------------
* item ``PandaLM/<idx>``; benchmark ``PandaLM``; label kind ``preference``; category
  ``motivation_app``; models from ``cmp_key`` (``"bloom-7b_llama-7b"``); lengths:
  characters of ``response1``/``response2``;
* the test set's annotators are raters ``annotator1`` ... (label records, counted);
* judge = the result file's name without the test set's name (``gpt-3.5-turbo``,
  ``pandalm-7b``), else the result field's prefix; one order (``AB``: response1 is
  shown first), one run. A judge file reads the test set in its folder (the file
  whose name ends its own, or the ``testset=`` option) for item metadata and labels,
  as metadata that is not counted again.
"""

from __future__ import annotations

import re
from functools import partial
from pathlib import Path
from typing import Any

from judgestats.io.kit import (
    JSON_SUFFIXES,
    Collector,
    Parsed,
    RecordError,
    SourceImporter,
    code_of,
    companion,
    first_record,
    get_key,
    get_str,
    item_id,
    iter_records,
    parse_records,
    record_detector,
    text_length,
)
from judgestats.schema import Verdict

__all__ = ["IMPORTER", "from_pandalm"]

_FORMAT = "pandalm"
_ANNOTATOR = re.compile(r"^annotator\d+$")
_VERDICTS = {"1": Verdict.A, "2": Verdict.B, "0": Verdict.TIE, "tie": Verdict.TIE}


def _is_testset(rec: dict[str, Any] | None) -> bool:
    return rec is not None and any(_ANNOTATOR.match(k) for k in rec)


def _result_key(rec: dict[str, Any]) -> str:
    keys = [k for k in rec if k.endswith("_result")]
    if len(keys) != 1:
        raise RecordError(
            f"expected one '<judge>_result' field, found {keys or 'none'}; a judge file"
            " holds one judge's verdicts"
        )
    return keys[0]


def _testset_record(col: Collector, rec: dict[str, Any], line: int, *, benchmark: str) -> None:
    item = item_id(benchmark, get_key(rec, "idx"))
    models = get_str(rec, "cmp_key", required=False).split("_")
    col.item(
        item,
        benchmark=benchmark,
        category=get_str(rec, "motivation_app", required=False),
        label_kind="preference",
        length_a=text_length(rec.get("response1")),
        length_b=text_length(rec.get("response2")),
        model_a=models[0] if len(models) == 2 else "",
        model_b=models[1] if len(models) == 2 else "",
    )
    raters = sorted((k for k in rec if _ANNOTATOR.match(k)), key=lambda k: int(k[9:]))
    if not raters:
        raise RecordError("no 'annotator<N>' field; a test-set record carries labels")
    for rater in raters:
        with col.record(line, f"{rater}: "):
            label = code_of(rec[rater], _VERDICTS)
            if label is None:
                raise RecordError(f"label {rec[rater]!r} is not 1, 2 or 0 (tie)")
            col.label(item, rater, label, line)


def _read_testset(path: Path, benchmark: str) -> Parsed:
    return parse_records(path, _FORMAT, partial(_testset_record, benchmark=benchmark))


def _find_testset(path: Path) -> Path | None:
    candidates = [
        p
        for p in sorted(path.parent.iterdir())
        if p != path and p.suffix.lower() in JSON_SUFFIXES and _is_testset(first_record(p))
    ]
    named = [p for p in candidates if path.stem.endswith(p.stem)]
    found = named or candidates
    return found[0] if found else None


def _judge_name(path: Path, testset: Path | None, field: str) -> str:
    stem = path.stem
    if testset is not None and stem.endswith(testset.stem) and stem != testset.stem:
        name = stem[: -len(testset.stem)].rstrip("-_. ")
        if name:
            return name
    return field.removesuffix("_result") or stem


def from_pandalm(
    path: str | Path,
    *,
    judge: str | None = None,
    testset: str | Path | None = None,
    benchmark: str = "PandaLM",
) -> Parsed:
    """Read a PandaLM test set (human labels) or judge result file.

    Parameters
    ----------
    path : str or Path
        The file.
    judge : str, optional
        Judge name for a result file; default from the file name.
    testset : str or Path, optional
        The test set a result file refers to; default: found in the same folder.
    benchmark : str, default "PandaLM"
        Benchmark of the items.

    Returns
    -------
    Parsed
        The test set's annotator labels, or a judge file's verdicts (order AB).

    Raises
    ------
    LogFormatError
        If the file is empty, not UTF-8 or not JSON.

    Examples
    --------
    >>> from judgestats.io.formats.pandalm import from_pandalm
    >>> p = from_pandalm("pandalm/gpt-3.5-turbo-testset-v1.json")  # doctest: +SKIP
    """
    path = Path(path)
    if _is_testset(first_record(path)):
        return _read_testset(path, benchmark)
    testset_path = Path(testset) if testset is not None else _find_testset(path)
    col = Collector(path, _FORMAT)
    if testset_path is None or not testset_path.is_file():
        col.note(None, "no PandaLM test set found next to this file: items have no metadata")
    else:
        meta = companion(_read_testset, testset_path, benchmark)
        col.item_table(meta.items)
        col.label_table(meta.labels.assign(counted=False))

    def parse(rec: dict[str, Any], line: int) -> None:
        item = item_id(benchmark, get_key(rec, "idx"))
        field = _result_key(rec)
        name = judge or _judge_name(path, testset_path, field)
        col.judgment(name, item, "AB", 0, code_of(rec[field], _VERDICTS, Verdict.INVALID), line)
        col.item(item, benchmark=benchmark, label_kind="preference")

    col.read_records(iter_records(path), parse)
    return col.parsed()


IMPORTER = SourceImporter(
    _FORMAT,
    "PandaLM: test set with annotator1..3, judge files with <judge>_result",
    from_pandalm,
    record_detector(
        "PandaLM records (idx)",
        ["idx"],
        variants={
            "PandaLM test set (annotator fields)": lambda r: _is_testset(r) and "response1" in r,
            "PandaLM judge file (a '<judge>_result' field)": lambda r: any(
                k.endswith("_result") for k in r
            ),
        },
    ),
)
