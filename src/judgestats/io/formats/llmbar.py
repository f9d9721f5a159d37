"""LLMBar (Zeng et al. 2023): ``dataset.json`` and ``evaluators/<judge>/<strategy>/result.json``.

Layout accepted
---------------
Each set is a folder (``Dataset/LLMBar/Natural``, ``Dataset/Processed/MT-Bench``, ...)
holding

* ``dataset.json``: a JSON array of ``{input, output_1, output_2, label}``, ``label``
  1 or 2 (which output is better);
* ``evaluators/<judge>/<strategy>/result.json``: the same records with ``results``, a
  list of *rounds* (objects with ``"swap = False"`` and ``"swap = True"``, each holding
  ``winner`` ``"1"``/``"2"``, already in the original frame, or null when the judge's
  output could not be parsed), interleaved with auxiliary generations (lists such as
  ``["generated metrics", "stop"]``) that are passed over. ``Rating*`` strategies
  add ``score_1``/``score_2`` to the round.

What is imported
----------------
* judge ``<judge>/<strategy>`` (e.g. ``GPT-4/Vanilla_NoRules``), from the path;
* benchmark = the set's path under ``Dataset/`` (``LLMBar/Adversarial/Neighbor``);
  label kind ``correctness`` for ``LLMBar/*``, ``preference`` for ``Processed/*``;
* item key = the record's 0-based position in the set's ``dataset.json``; result
  records are matched to it by their input and outputs, so a result file in another
  order, or a subset, still lands on the right items;
* ``"swap = False"`` is order ``AB``, ``"swap = True"`` order ``BA``; one run;
  a null or unknown ``winner`` is ``INVALID``;
* the verdict of record is the *last* round, as the authors score it (``Swap*``
  strategies add a second round only for order-inconsistent items). Per-judgment
  variables keep the rest: ``first_round`` (the first round's verdict code, the
  earlier verdict of a two-round record, equal to ``verdict`` otherwise), ``rounds``
  (1 or 2), and for ``Rating*`` strategies ``score_a``/``score_b`` (the ratings of
  ``output_1``/``output_2``; NaN elsewhere);
* labels: ``dataset.json`` records are label records (rater ``gold`` for
  correctness sets, ``human`` for preference sets), counted once; the ``label`` on
  each result record is item metadata (not counted), so that a result file read
  alone still has its labels and reading both never counts a label twice;
* lengths: characters of ``output_1``/``output_2``.

A result file whose set has no ``dataset.json`` keys items by position in the result
file (with a note).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judgestats.errors import LogFormatError
from judgestats.io.kit import (
    Collector,
    Parsed,
    RecordError,
    SourceImporter,
    check_label_kind,
    code_of,
    companion,
    first_record,
    get_list,
    get_number,
    get_str,
    has_fields,
    item_id,
    iter_json_array,
    record_detector,
)
from judgestats.schema import Verdict

__all__ = ["IMPORTER", "from_llmbar"]

_FORMAT = "llmbar"
_ORDERS = (("AB", "swap = False"), ("BA", "swap = True"))
_WINNERS = {"1": Verdict.A, "2": Verdict.B, "0": Verdict.TIE, "tie": Verdict.TIE}
_LABELS = {"1": Verdict.A, "2": Verdict.B}


@dataclass(frozen=True)
class _SetPaths:
    benchmark: str
    judge: str
    dataset: Path


def _set_paths(path: Path, is_result: bool) -> _SetPaths:
    parts = path.absolute().parts
    if is_result and "evaluators" in parts[:-1]:
        at = len(parts) - 1 - parts[::-1].index("evaluators")
        set_parts, judge = parts[:at], "/".join(parts[at + 1 : -1])
    elif is_result:
        set_parts, judge = parts[:-1], "/".join(parts[-3:-1])
    else:
        set_parts, judge = parts[:-1], ""
    if "Dataset" in set_parts:
        at = len(set_parts) - 1 - set_parts[::-1].index("Dataset")
        benchmark = "/".join(set_parts[at + 1 :])
    else:
        benchmark = set_parts[-1] if set_parts else path.stem
    return _SetPaths(
        benchmark or path.parent.name, judge or path.stem, Path(*set_parts) / "dataset.json"
    )


@dataclass(frozen=True)
class _Labels:
    """A parsed ``dataset.json``: its Parsed, and item key by (input, output_1, output_2)."""

    parsed: Parsed
    keys: dict[tuple[str, str, str], int] = field(default_factory=dict)


@dataclass(frozen=True)
class _Kind:
    """A set's benchmark, label kind and the rater its labels are given by."""

    benchmark: str
    label_kind: str
    rater: str

    @classmethod
    def of(cls, benchmark: str, label_kind: str | None) -> _Kind:
        kind = label_kind or ("preference" if benchmark.startswith("Processed") else "correctness")
        return cls(benchmark, kind, "gold" if kind == "correctness" else "human")


def _pair(col: Collector, rec: dict[str, Any], kind: _Kind, key: int | None) -> str:
    """Describe the record's item (keyed by ``key``) and return its id."""
    if key is None:
        raise RecordError(
            "its input and outputs are in no record of the set's dataset.json; the file"
            " belongs to another set, or pass dataset=PATH"
        )
    item = item_id(kind.benchmark, key)
    col.item(
        item,
        benchmark=kind.benchmark,
        label_kind=kind.label_kind,
        length_a=len(get_str(rec, "output_1")),
        length_b=len(get_str(rec, "output_2")),
    )
    return item


def _content(rec: dict[str, Any]) -> tuple[str, str, str]:
    return get_str(rec, "input"), get_str(rec, "output_1"), get_str(rec, "output_2")


def _read_dataset(path: Path, benchmark: str, label_kind: str | None) -> _Labels:
    col = Collector(path, _FORMAT)
    kind = _Kind.of(benchmark, label_kind)
    keys: dict[tuple[str, str, str], int] = {}

    def parse(rec: dict[str, Any], line: int) -> None:
        label = code_of(rec.get("label"), _LABELS)
        if label is None:
            raise RecordError(f"field 'label' is {rec.get('label')!r}; expected 1 or 2")
        col.label(_pair(col, rec, kind, col.index), kind.rater, label, line)
        keys.setdefault(_content(rec), col.index)

    col.read_records(iter_json_array(path), parse)
    return _Labels(col.parsed(), keys)


def _rounds(col: Collector, rec: dict[str, Any], judge: str, item: str, line: int) -> None:
    """Add the record's judgments: the last round's, with the first round kept."""
    rounds = [r for r in get_list(rec, "results") if isinstance(r, dict)]
    if not rounds:
        raise RecordError(
            "field 'results' holds no round (an object with 'swap = False' and 'swap = True')"
        )
    last, first = rounds[-1], rounds[0]
    scores = {}
    if "score_1" in last or "score_2" in last:
        scores = {"score_a": _rating(last.get("score_1")), "score_b": _rating(last.get("score_2"))}
    orders = [(o, k) for o, k in _ORDERS if k in last]
    if not orders:
        raise RecordError("its last round has neither 'swap = False' nor 'swap = True'")
    for order, key in orders:
        with col.record(line, f"{key!r}: "):
            verdict = _winner(last[key])
            earlier = int(_winner(first.get(key, {})))
            col.judgment(
                judge,
                item,
                order,
                0,
                verdict,
                line,
                first_round=earlier,
                rounds=len(rounds),
                **scores,
            )


def _read_result(
    path: Path, where: _SetPaths, judge: str, label_kind: str | None, labels: _Labels | None
) -> Parsed:
    col = Collector(path, _FORMAT)
    kind = _Kind.of(where.benchmark, label_kind)
    if labels is None:
        col.note(
            None,
            f"no {where.dataset} next to this result file: items are keyed by their position"
            " in it; pass dataset=PATH to match them to the set's records",
        )

    def parse(rec: dict[str, Any], line: int) -> None:
        key = col.index if labels is None else labels.keys.get(_content(rec))
        item = _pair(col, rec, kind, key)
        _rounds(col, rec, judge, item, line)
        label = code_of(rec.get("label"), _LABELS)
        if label is not None:
            col.label(item, kind.rater, label, line, counted=False)

    col.read_records(iter_json_array(path), parse)
    return col.parsed()


def _winner(entry: Any) -> Verdict:
    if not isinstance(entry, dict):
        raise RecordError(f"is {type(entry).__name__}, expected an object with 'winner'")
    return code_of(entry.get("winner"), _WINNERS, Verdict.INVALID)


def _rating(value: Any) -> float:
    # Ratings are stored as a completion: ["8", "stop"].
    if isinstance(value, list) and value:
        value = value[0]
    return get_number(value)


def _is_result(path: Path) -> bool:
    rec = first_record(path)
    return path.name == "result.json" or (rec is not None and "results" in rec)


def from_llmbar(
    path: str | Path,
    *,
    benchmark: str | None = None,
    judge: str | None = None,
    label_kind: str | None = None,
    dataset: str | Path | None = None,
) -> Parsed:
    """Read an LLMBar ``result.json`` (judgments) or ``dataset.json`` (labels).

    Parameters
    ----------
    path : str or Path
        The file.
    benchmark : str, optional
        Default: the set's path under ``Dataset/`` (else the set folder's name).
    judge : str, optional
        Default: ``<judge>/<strategy>`` from ``evaluators/<judge>/<strategy>/``.
    label_kind : {"correctness", "preference"}, optional
        Default: ``preference`` for ``Processed/*`` sets, ``correctness`` otherwise.
    dataset : str or Path, optional
        The set's ``dataset.json`` for a result file; default: the one in the set
        folder (the parent of ``evaluators/``).

    Returns
    -------
    Parsed
        A result file's judgments (labels as metadata), or a dataset file's labels.

    Raises
    ------
    LogFormatError
        If the file is empty or not a JSON array.

    Examples
    --------
    >>> from judgestats.io.formats.llmbar import from_llmbar
    >>> p = from_llmbar(  # doctest: +SKIP
    ...     "Dataset/LLMBar/Natural/evaluators/GPT-4/Swap/result.json"
    ... )
    """
    path = Path(path)
    check_label_kind(label_kind)
    is_result = _is_result(path)
    where = _set_paths(path, is_result)
    if benchmark is not None:
        where = _SetPaths(benchmark, where.judge, where.dataset)
    if dataset is not None:
        where = _SetPaths(where.benchmark, where.judge, Path(dataset))
    if not is_result:
        return _read_dataset(path, where.benchmark, label_kind).parsed
    labels = None
    if where.dataset.is_file():
        try:
            labels = companion(_read_dataset, where.dataset, where.benchmark, label_kind)
        except LogFormatError:
            labels = None  # noted below as missing; its own import reports why
    return _read_result(path, where, judge or where.judge, label_kind, labels)


IMPORTER = SourceImporter(
    _FORMAT,
    "LLMBar: dataset.json labels and evaluators/<judge>/<strategy>/result.json",
    from_llmbar,
    record_detector(
        "LLMBar records (input, output_1, output_2)",
        ["input", "output_1", "output_2"],
        variants={
            "LLMBar result file (records with 'results')": has_fields("results"),
            "LLMBar dataset file (records with 'label')": has_fields("label"),
        },
    ),
)
