"""FastChat MT-Bench (Zheng et al. 2023): pairwise model judgments and human judgments.

Layout accepted
---------------
Model judgments (``model_judgment/gpt-4_pair.jsonl``), JSON Lines::

    {"question_id": 81, "model_1": "gpt-4", "model_2": "vicuna-13b-v1.3",
     "g1_winner": "model_1", "g2_winner": "tie", "judge": ["gpt-4", "pair-v2"],
     "g1_judgment": "...", "g2_judgment": "...", "turn": 1}

Winners are ``model_1``, ``model_2``, ``tie`` or ``error``, already in the model
frame; game 1 (``g1``) showed ``model_1`` first, game 2 showed the pair swapped.

Human judgments (``mt_bench_human_judgments``), JSON Lines::

    {"question_id": 81, "model_a": "alpaca-13b", "model_b": "gpt-3.5-turbo",
     "winner": "model_b", "judge": "expert_0", "turn": 1}

``winner`` is ``model_a``, ``model_b``, ``tie`` or ``tie (bothbad)``.

What is imported
----------------
* item = (question, unordered pair of models, turn), key
  ``MTBench/<question_id>/<model A>/<model B>/turn<turn>``; the item's A is the model
  whose name sorts first, and a record listing the pair the other way round is
  flipped into that frame; benchmark ``MTBench``;
* model judgments: judge = the judge's model (``judge[0]``); ``g1`` is order ``AB``
  when ``model_1`` is the item's A (else ``BA``), ``g2`` the other order; ``error`` or
  any other winner is ``INVALID``; one run;
* human judgments are labels, rater = ``judge`` (``expert_0``, ``author_2``), label
  kind ``preference``; both kinds of tie are ``TIE``.
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
    canonical_pair,
    code_of,
    first_record,
    get_key,
    get_str,
    has_fields,
    item_id,
    parse_records,
    record_detector,
    swap_ab,
)
from judgestats.schema import Verdict

__all__ = ["IMPORTER", "from_fastchat"]

_FORMAT = "fastchat"
_MODEL_WINNERS = {"model_1": Verdict.A, "model_2": Verdict.B, "tie": Verdict.TIE}
_HUMAN_WINNERS = {
    "model_a": Verdict.A,
    "model_b": Verdict.B,
    "tie": Verdict.TIE,
    "tie (bothbad)": Verdict.TIE,
}


def _pair_item(
    rec: dict[str, Any], first: str, second: str, benchmark: str
) -> tuple[str, str, str, bool]:
    """Return the item, its models and whether ``first`` is the item's B."""
    qid = get_key(rec, "question_id")
    m1, m2 = get_str(rec, first).strip(), get_str(rec, second).strip()
    if not m1 or not m2 or m1 == m2:
        raise RecordError(f"{first!r} and {second!r} must name two different models")
    turn = rec.get("turn", 1)
    if isinstance(turn, bool) or not isinstance(turn, int) or turn < 1:
        raise RecordError(f"field 'turn' is {turn!r}, expected a positive integer")
    a, b, flipped = canonical_pair(m1, m2)
    return item_id(benchmark, f"{qid}/{a}/{b}/turn{turn}"), a, b, flipped


def _judge(rec: dict[str, Any]) -> str:
    judge = rec.get("judge")
    if isinstance(judge, list) and judge and isinstance(judge[0], str) and judge[0].strip():
        return judge[0].strip()
    if isinstance(judge, str) and judge.strip():
        return judge.strip()
    raise RecordError(f"field 'judge' is {judge!r}; expected [judge model, prompt name]")


def _winner(
    rec: dict[str, Any], key: str, table: dict[str, Verdict], default: Verdict | None = None
) -> Verdict | None:
    return code_of(get_str(rec, key), table, default)


def _model_record(col: Collector, rec: dict[str, Any], line: int, *, benchmark: str) -> None:
    item, a, b, flipped = _pair_item(rec, "model_1", "model_2", benchmark)
    judge = _judge(rec)
    col.item(item, benchmark=benchmark, model_a=a, model_b=b)
    for game, order in (("g1", "AB"), ("g2", "BA")):
        with col.record(line, f"{game}: "):
            won = _winner(rec, f"{game}_winner", _MODEL_WINNERS, Verdict.INVALID)
            verdict = int(Verdict.INVALID if won is None else won)
            if flipped:
                verdict, order = swap_ab(verdict), ("BA" if order == "AB" else "AB")
            col.judgment(judge, item, order, 0, verdict, line)


def _human_record(col: Collector, rec: dict[str, Any], line: int, *, benchmark: str) -> None:
    item, a, b, flipped = _pair_item(rec, "model_a", "model_b", benchmark)
    rater = get_str(rec, "judge").strip()
    if not rater:
        raise RecordError("field 'judge' (the human rater) is empty")
    label = _winner(rec, "winner", _HUMAN_WINNERS)
    if label is None:
        raise RecordError(
            f"winner {rec['winner']!r} is not model_a, model_b, tie or 'tie (bothbad)'"
        )
    col.label(item, rater, swap_ab(label) if flipped else int(label), line)
    col.item(item, benchmark=benchmark, label_kind="preference", model_a=a, model_b=b)


def from_fastchat(path: str | Path, *, benchmark: str = "MTBench") -> Parsed:
    """Read FastChat MT-Bench pairwise model judgments or human judgments.

    Parameters
    ----------
    path : str or Path
        The file: ``model_judgment/<judge>_pair.jsonl`` or human judgments, JSON Lines.
    benchmark : str, default "MTBench"
        Benchmark of the items.

    Returns
    -------
    Parsed
        Model records as two judgments (g1, g2); human records as labels.

    Raises
    ------
    LogFormatError
        If the file is empty or not JSON Lines.

    Examples
    --------
    >>> from judgestats.io.formats.fastchat import from_fastchat
    >>> p = from_fastchat("model_judgment/gpt-4_pair.jsonl")  # doctest: +SKIP
    """
    path = Path(path)
    head = first_record(path) or {}
    human = "winner" in head and "g1_winner" not in head
    record = _human_record if human else _model_record
    return parse_records(path, _FORMAT, partial(record, benchmark=benchmark))


IMPORTER = SourceImporter(
    _FORMAT,
    "FastChat MT-Bench: model (g1/g2_winner) and human (winner) pairwise judgments",
    from_fastchat,
    record_detector(
        "FastChat pairwise judgments",
        ["question_id"],
        variants={
            "FastChat model judgments": has_fields("model_1", "model_2", "g1_winner", "g2_winner"),
            "FastChat human judgments": has_fields("model_a", "model_b", "winner"),
        },
    ),
)
