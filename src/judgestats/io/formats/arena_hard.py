"""arena-hard-auto judgments (``model_judgment/<judge>/<model>.jsonl``).

Layout accepted
---------------
JSON Lines, one record per question and judged model::

    {"question_id": "328c149ed45a41c0", "model": "my-model", "judge": "gpt-4-1106-preview",
     "games": [{"user_prompt": "...", "judgment": "... [[B>A]]", "score": "B>A"},
               {"user_prompt": "...", "judgment": "... [[A>>B]]", "score": "A>>B"}]}

``uid`` may stand for ``question_id`` (arena-hard v2), and ``category`` is used when
present. Game 1 shows the baseline as assistant A and the model as B; game 2 swaps
them. ``score`` is ``A>>B``, ``A>B``, ``A=B``, ``B>A``, ``B>>A`` (presented frame) or
null when no verdict was found.

What is imported
----------------
* item = (question, model): key ``arena-hard/<question_id>/<model>``; its A is the
  baseline (name from the ``baseline=`` option, else empty), its B the model;
  benchmark ``arena-hard``; label kind ``unlabelled``;
* judge = ``judge``; games alternate orders (game 1 ``AB``, game 2 ``BA``, a third
  game is ``AB`` of run 1, ...); scores are converted to the item frame;
* verdict A/B/tie for the metrics; the strength is the variable ``strength``: 2 for
  ``>>``, 1 for ``>``, 0 for a tie, -1 where there is no verdict (null or unknown
  score, which is ``INVALID``).
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
    get_key,
    get_list,
    get_str,
    item_id,
    parse_records,
    record_detector,
    swap_ab,
    trial_slot,
)
from judgestats.schema import Verdict

__all__ = ["IMPORTER", "from_arena_hard"]

_FORMAT = "arena_hard"
_SCORES = {
    "A>>B": (Verdict.A, 2),
    "A>B": (Verdict.A, 1),
    "A=B": (Verdict.TIE, 0),
    "B=A": (Verdict.TIE, 0),
    "B>A": (Verdict.B, 1),
    "B>>A": (Verdict.B, 2),
}


def _score(game: Any) -> tuple[int, int]:
    if not isinstance(game, dict):
        raise RecordError(f"is {type(game).__name__}, expected an object with 'score'")
    if "score" not in game:
        raise RecordError("field 'score' is missing (null is a game without verdict)")
    score = game["score"]
    if isinstance(score, str):
        verdict, strength = _SCORES.get(score.replace(" ", ""), (Verdict.INVALID, -1))
        return int(verdict), strength
    return int(Verdict.INVALID), -1


def _question(rec: dict[str, Any]) -> str:
    if rec.get("question_id") is not None:
        return get_key(rec, "question_id")
    if rec.get("uid") is not None:
        return get_key(rec, "uid")
    raise RecordError("neither 'question_id' nor 'uid' is given")


def _record(
    col: Collector, rec: dict[str, Any], line: int, *, baseline: str | None, benchmark: str
) -> None:
    model = get_str(rec, "model").strip()
    judge = get_str(rec, "judge").strip()
    if not model or not judge:
        raise RecordError("fields 'model' and 'judge' must not be empty")
    item = item_id(benchmark, f"{_question(rec)}/{model}")
    col.item(
        item,
        benchmark=benchmark,
        category=get_str(rec, "category", required=False),
        label_kind="unlabelled",
        model_a=baseline or "",
        model_b=model,
    )
    for g, game in enumerate(get_list(rec, "games")):
        with col.record(line, f"game {g + 1}: "):
            verdict, strength = _score(game)
            order, run = trial_slot(g)
            verdict = swap_ab(verdict) if order == "BA" else verdict
            col.judgment(judge, item, order, run, verdict, line, strength=strength)


def from_arena_hard(
    path: str | Path, *, baseline: str | None = None, benchmark: str = "arena-hard"
) -> Parsed:
    """Read an arena-hard-auto judgment file.

    Parameters
    ----------
    path : str or Path
        The file, JSON Lines with one record per question and judged model.
    baseline : str, optional
        Name of the baseline model (the item's A), e.g. ``"gpt-4-0314"``.
    benchmark : str, default "arena-hard"
        Benchmark of the items.

    Returns
    -------
    Parsed
        Two judgments per record (the two games), with the variable ``strength``.

    Raises
    ------
    LogFormatError
        If the file is empty or has no readable JSON line.

    Examples
    --------
    >>> from judgestats.io.formats.arena_hard import from_arena_hard
    >>> p = from_arena_hard("model_judgment/gpt-4-1106-preview/my-model.jsonl")  # doctest: +SKIP
    """
    return parse_records(
        Path(path), _FORMAT, partial(_record, baseline=baseline, benchmark=benchmark)
    )


IMPORTER = SourceImporter(
    _FORMAT,
    "arena-hard-auto: question_id/uid, model, judge, games (two, swapped)",
    from_arena_hard,
    record_detector(
        "arena-hard-auto judgments", ["model", "judge", "games"], any_of=["question_id", "uid"]
    ),
)
