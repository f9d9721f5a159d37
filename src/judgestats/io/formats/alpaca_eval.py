"""AlpacaEval annotations (``annotations.json``).

Layout accepted
---------------
A JSON array (or JSON Lines) of::

    {"instruction": "...", "input": "", "output_1": "...", "output_2": "...",
     "generator_1": "gpt4_1106_preview", "generator_2": "my-model",
     "annotator": "alpaca_eval_gpt4_turbo_fn", "preference": 2}

``input``, ``generator_1`` and ``generator_2`` are optional. ``preference`` is 1
(``output_1`` better) or 2 (``output_2`` better); a tie is 0 in older versions and 1.5
in newer ones. Weighted annotators give a number between 1 and 2 (1 + the
probability that ``output_2`` is better).

What is imported
----------------
* judge = ``annotator`` (or the ``judge=`` option); benchmark ``AlpacaEval``; label
  kind ``unlabelled``; models from ``generator_1``/``generator_2``; lengths:
  characters of ``output_1``/``output_2``;
* item key = the first 16 hex digits of the SHA-1 of instruction, input, output_1
  and output_2, so that annotations of the same pair by several annotators (or
  files) meet on one item;
* order ``unknown``: AlpacaEval randomises the presented order and does not store it;
  one run;
* verdict: 1 → A, 2 → B, 0 or 1.5 → tie, another number between 1 and 2 → the
  nearer side (A below 1.5, B above); null, NaN or anything else → ``INVALID``. The
  raw number is kept as the variable ``preference``.
"""

from __future__ import annotations

import hashlib
import math
from functools import partial
from pathlib import Path
from typing import Any

from judgestats.io.kit import (
    Collector,
    Parsed,
    RecordError,
    SourceImporter,
    get_number,
    get_str,
    item_id,
    parse_records,
    record_detector,
)
from judgestats.schema import Verdict

__all__ = ["IMPORTER", "from_alpaca_eval"]

_FORMAT = "alpaca_eval"


def _verdict(preference: float) -> Verdict:
    if math.isnan(preference):
        return Verdict.INVALID
    if preference in (0.0, 1.5):
        return Verdict.TIE
    if 1.0 <= preference <= 2.0:
        return Verdict.A if preference < 1.5 else Verdict.B
    return Verdict.INVALID


def _pair_key(*texts: str) -> str:
    return hashlib.sha1("\x1f".join(texts).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _preference(rec: dict[str, Any]) -> float:
    if "preference" not in rec:
        raise RecordError("field 'preference' is missing (null is an annotator without verdict)")
    return get_number(rec["preference"])


def _record(
    col: Collector, rec: dict[str, Any], line: int, *, judge: str | None, benchmark: str
) -> None:
    texts = [
        get_str(rec, "instruction"),
        get_str(rec, "input", required=False),
        get_str(rec, "output_1"),
        get_str(rec, "output_2"),
    ]
    name = judge or get_str(rec, "annotator", required=False).strip()
    if not name:
        raise RecordError("field 'annotator' is missing; pass judge=NAME")
    preference = _preference(rec)
    item = item_id(benchmark, _pair_key(*texts))
    col.judgment(name, item, "unknown", 0, _verdict(preference), line, preference=preference)
    col.item(
        item,
        benchmark=benchmark,
        label_kind="unlabelled",
        length_a=len(texts[2]),
        length_b=len(texts[3]),
        model_a=get_str(rec, "generator_1", required=False),
        model_b=get_str(rec, "generator_2", required=False),
    )


def from_alpaca_eval(
    path: str | Path, *, judge: str | None = None, benchmark: str = "AlpacaEval"
) -> Parsed:
    """Read an AlpacaEval annotations file.

    Parameters
    ----------
    path : str or Path
        The file: a JSON array or JSON Lines of annotations.
    judge : str, optional
        Judge name for every record; default the record's ``annotator``.
    benchmark : str, default "AlpacaEval"
        Benchmark of the items.

    Returns
    -------
    Parsed
        One judgment per annotation, in order ``unknown``; items keyed by content.

    Raises
    ------
    LogFormatError
        If the file is empty, not UTF-8, or holds no JSON records at all.

    Examples
    --------
    >>> from judgestats.io.formats.alpaca_eval import from_alpaca_eval
    >>> p = from_alpaca_eval("results/my-model/annotations.json")  # doctest: +SKIP
    """
    return parse_records(Path(path), _FORMAT, partial(_record, judge=judge, benchmark=benchmark))


IMPORTER = SourceImporter(
    _FORMAT,
    "AlpacaEval annotations: instruction, output_1/2, annotator, preference",
    from_alpaca_eval,
    record_detector(
        "AlpacaEval annotations", ["instruction", "output_1", "output_2", "preference"]
    ),
)
