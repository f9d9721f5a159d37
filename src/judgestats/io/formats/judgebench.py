"""JudgeBench (Tan et al. 2024): ``data/`` label files and ``outputs/`` judgment files.

Layout accepted
---------------
JSON Lines (or a JSON array), one record per response pair::

    {"pair_id": "...", "original_id": "...", "source": "mmlu-pro-math",
     "question": "...", "response_model": "gpt-4o-2024-05-13",
     "response_A": "...", "response_B": "...", "label": "A>B",
     "judge_name": "arena_hard",
     "judgments": [
        {"judgment": {"judge_model": "gpt-4o", "prompt": "...", "response": "...",
                      "scores": [0.7, 0.2]},
         "decision": "A>B"},
        {"judgment": {...}, "decision": "B>A"}]}

``label`` is ``"A>B"`` or ``"B>A"``. Trial 1 presents ``response_A`` first; trial 2
presents the pair swapped and its ``decision`` is in the *presented* frame
(``"A>B"`` there means ``response_B`` won). Decisions ``"A>B"``, ``"B>A"``,
``"A=B"``; null or anything else is ``INVALID``. ``scores`` (reward models) are
``[first presented, second presented]``. Records without ``judgments`` (the files
in ``data/``) carry gold labels only.

What is imported
----------------
* item ``JudgeBench/<pair_id>``; benchmark ``JudgeBench``; category ``source``; label
  kind ``correctness``; ``model_a`` = ``model_b`` = ``response_model``; lengths:
  characters of ``response_A``/``response_B``;
* label-only records: rater ``gold``, counted; on judgment records the label is item
  metadata, not counted;
* judge = ``judgment.judge_model`` (else the record's ``judge_name``); trials alternate
  orders (trial 1 ``AB``, trial 2 ``BA``, trial 3 ``AB`` of run 1, ...); decisions are
  converted to the item frame; reward-model scores become the variables
  ``score_a``/``score_b`` (item frame; NaN for generative judges).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from judgestats.io.kit import (
    Collector,
    Parsed,
    RecordError,
    SourceImporter,
    get_dict,
    get_key,
    get_list,
    get_number,
    get_str,
    item_id,
    parse_records,
    record_detector,
    swap_ab,
    text_length,
    trial_slot,
)
from judgestats.schema import Verdict

__all__ = ["IMPORTER", "from_judgebench"]

_FORMAT = "judgebench"
_DECISIONS = {"A>B": Verdict.A, "B>A": Verdict.B, "A=B": Verdict.TIE}
_LABELS = {"A>B": Verdict.A, "B>A": Verdict.B}


def _decision(value: Any) -> int:
    if isinstance(value, str):
        return int(_DECISIONS.get(value.strip(), Verdict.INVALID))
    return int(Verdict.INVALID)


def _scores(judgment: dict[str, Any], order: str) -> dict[str, float]:
    scores = judgment.get("scores")
    if not isinstance(scores, list) or len(scores) != 2:
        return {}
    first, second = (get_number(s) for s in scores)
    a, b = (first, second) if order == "AB" else (second, first)
    return {"score_a": a, "score_b": b}


def _trials(col: Collector, rec: dict[str, Any], item: str, line: int) -> None:
    trials = get_list(rec, "judgments")
    if not trials:
        col.note(line, "field 'judgments' is an empty list: no judgment to import")
    for t, trial in enumerate(trials):
        with col.record(line, f"trial {t + 1}: "):
            if not isinstance(trial, dict):
                raise RecordError(
                    f"is {type(trial).__name__}, expected an object with 'judgment' and 'decision'"
                )
            judgment = get_dict(trial, "judgment")
            judge = get_str(judgment, "judge_model", required=False) or get_str(
                rec, "judge_name", required=False
            )
            if not judge:
                raise RecordError("no judge: 'judgment.judge_model' and 'judge_name' are missing")
            if "decision" not in trial:
                raise RecordError("field 'decision' is missing (null is a judge without verdict)")
            order, run = trial_slot(t)
            verdict = _decision(trial["decision"])
            verdict = swap_ab(verdict) if order == "BA" else verdict
            col.judgment(judge, item, order, run, verdict, line, **_scores(judgment, order))


def _record(col: Collector, rec: dict[str, Any], line: int, *, benchmark: str) -> None:
    item = item_id(benchmark, get_key(rec, "pair_id"))
    raw_label = rec.get("label")
    label = _LABELS.get(raw_label.strip()) if isinstance(raw_label, str) else None
    model = get_str(rec, "response_model", required=False)
    col.item(
        item,
        benchmark=benchmark,
        category=get_str(rec, "source", required=False),
        label_kind="correctness",
        length_a=text_length(rec.get("response_A")),
        length_b=text_length(rec.get("response_B")),
        model_a=model,
        model_b=model,
    )
    if "judgments" not in rec:
        if label is None:
            raise RecordError(f"field 'label' is {raw_label!r}; expected 'A>B' or 'B>A'")
        col.label(item, "gold", label, line)
        return
    if label is not None:
        col.label(item, "gold", label, line, counted=False)
    elif raw_label is not None:
        col.note(line, f"label {raw_label!r} is not 'A>B' or 'B>A'; not used")
    _trials(col, rec, item, line)


def from_judgebench(path: str | Path, *, benchmark: str = "JudgeBench") -> Parsed:
    """Read a JudgeBench data (labels) or outputs (judgments) file.

    Parameters
    ----------
    path : str or Path
        The file, JSON Lines (or a JSON array) of response pairs.
    benchmark : str, default "JudgeBench"
        Benchmark of the items.

    Returns
    -------
    Parsed
        Gold labels of label-only records; the trials of the others as judgments.

    Raises
    ------
    LogFormatError
        If the file is empty, not UTF-8 or holds no JSON record.

    Examples
    --------
    >>> from judgestats.io.formats.judgebench import from_judgebench
    >>> p = from_judgebench("outputs/judgebench-gpt-4o.jsonl")  # doctest: +SKIP
    """
    return parse_records(Path(path), _FORMAT, partial(_record, benchmark=benchmark))


IMPORTER = SourceImporter(
    _FORMAT,
    "JudgeBench: pair_id, response_A/B, label, judgments (two trials)",
    from_judgebench,
    record_detector("JudgeBench records", ["pair_id", "response_A", "response_B"]),
)
