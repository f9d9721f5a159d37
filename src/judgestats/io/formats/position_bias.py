"""Position-bias study TSVs (Shi et al. 2024, "Judging the Judges"): ``record_<judge>_<n>.tsv``.

Layout accepted
---------------
A tab-separated file with a header; the columns used are

=======================  ============================================================
column                   meaning
=======================  ============================================================
``cmp_index``            ``"<question id>;<model shown first>;<model shown second>"``
``answer1_1``, ...       ``answer<slot>_<turn>``: the answers shown, slot 1 = first
                         (multi-turn layout); or ``answer1``, ``answer2`` (one turn,
                         next to a ``reference_answer``)
``task``                 question category (optional)
last column              the judge's raw text, headed by the judge's name
=======================  ============================================================

The file sits in a folder ``Repetition<K>-<Bench>_...`` (``K`` is the run) under the
study's ``data_<Bench>_...`` folder.

What is imported
----------------
* judge = the model name in the file name (``record_gpt-4-0613_3.tsv`` →
  ``gpt-4-0613``), else the last column's header;
* benchmark = ``<Bench>`` of the nearest folder ``data_<Bench>_...`` above the file,
  else of its ``Repetition<K>-<Bench>_...`` folder, else the ``benchmark=`` option
  (which also overrides both);
* the verdict is found in the raw text with a
  :class:`~judgestats.io.verdicts.VerdictExtractor`: the pattern named by
  ``verdict_pattern``, else the named pattern that finds the most verdicts in the
  file (``[[A]]``, ``[[B]]``, ``[[C]]`` = tie in the study's prompts), reported as a
  note; no match, or matches that disagree, = ``INVALID`` (``multiple_matches``
  sets the rule); what matched is the per-judgment variable ``match``;
* item = question × unordered pair of models: the item's A is the model whose name
  sorts first, so the two rows of a comparison (both orders) form one item; the
  row showing A first is order ``AB``;
* run = ``K - 1`` from the ``Repetition<K>`` folder (``K`` when the folders beside
  it count from ``Repetition0``; 0 when there is none, or the ``run=`` option);
* lengths: characters of each model's answers (all turns), taken from the answer
  columns of the records themselves (either layout); label kind ``unlabelled``.

Companion files of the study are passed over with a note when a folder is read:
``length_stats.csv`` (per-model length statistics) and the ``QA_data`` workbooks
(the questions and answers, which the records already carry).
"""

from __future__ import annotations

import re
from pathlib import Path

from judgestats.errors import LogFormatError
from judgestats.io.kit import (
    Collector,
    Detection,
    Parsed,
    RecordError,
    SourceImporter,
    canonical_pair,
    item_id,
    iter_csv,
    sniff_text,
    swap_ab,
)
from judgestats.io.verdicts import extractor_for

__all__ = ["IMPORTER", "from_position_bias"]

_FORMAT = "position_bias"
_FILE = re.compile(r"^record_(?P<judge>.+)_(?P<n>\d+)$")
_RUN = re.compile(r"^Repetition(?P<k>\d+)\b")
_ANSWER = re.compile(r"^answer(?P<slot>[12])(?:_(?P<turn>\d+))?$")
#: Folders naming the benchmark: the study's ``data_<Bench>_...``, then ``Repetition<K>-<Bench>_``.
_BENCH_FOLDERS = (
    re.compile(r"^data_(?P<bench>[^_]+)_"),
    re.compile(r"^Repetition\d+-(?P<bench>[^_]+)_"),
)


def _run_of(path: Path) -> int:
    """Return the run of the ``Repetition<K>`` folder above ``path`` (0 if none).

    The study counts its folders from 1 (run ``K - 1``); a study whose folders
    count from ``Repetition0`` (one is beside this one) has run ``K``, so that no two
    folders share a run.
    """
    for parent in path.absolute().parents:
        m = _RUN.match(parent.name)
        if m:
            siblings = (_RUN.match(p.name) for p in parent.parent.iterdir() if p.is_dir())
            base = 0 if any(s and int(s["k"]) == 0 for s in siblings) else 1
            return int(m["k"]) - base
    return 0


def _benchmark_of(path: Path) -> str | None:
    """Return the benchmark named by the study's folders above ``path``, or ``None``."""
    parents = path.absolute().parents
    for folder in _BENCH_FOLDERS:
        for parent in parents:
            m = folder.match(parent.name)
            if m:
                return m["bench"]
    return None


def from_position_bias(
    path: str | Path,
    *,
    verdict_pattern: str | None = None,
    multiple_matches: str = "unanimous",
    judge: str | None = None,
    run: int | None = None,
    benchmark: str | None = None,
) -> Parsed:
    """Read one ``record_<judge>_<n>.tsv`` of the position-bias study.

    Parameters
    ----------
    path : str or Path
        The file.
    verdict_pattern : str, optional
        Named pattern or regular expression finding the verdict in the raw text
        (see :mod:`judgestats.io.verdicts`); default: the named pattern that finds
        the most verdicts in the file, reported as a note.
    multiple_matches : {"unanimous", "first", "last"}, default "unanimous"
        What a text with several matches means.
    judge : str, optional
        Default: from the file name.
    run : int, optional
        Default: ``K - 1`` of the ``Repetition<K>`` folder (``K`` when the study's
        folders count from ``Repetition0``), else 0.
    benchmark : str, optional
        Benchmark of the items; default from the ``data_<Bench>_...`` (else
        ``Repetition<K>-<Bench>_...``) folder above the file.

    Returns
    -------
    Parsed
        One judgment per row, with the variable ``match``.

    Raises
    ------
    LogFormatError
        If the file is empty, has no rows, lacks the ``cmp_index`` column, or no
        folder names the benchmark and ``benchmark=`` is not given.

    Examples
    --------
    >>> from judgestats.io.formats.position_bias import from_position_bias
    >>> p = from_position_bias("Repetition1-x/record_gpt-4-0613_3.tsv")  # doctest: +SKIP
    """
    path = Path(path)
    header, rows, rejects = iter_csv(path, "\t")
    if "cmp_index" not in header or len(header) < 2:
        raise LogFormatError(
            f"{path}:1: no 'cmp_index' column (and a judge-output column after it); this"
            " is not a position-bias record file"
        )
    if not rows and not rejects:
        raise LogFormatError(f"{path}: header only, no records")
    benchmark = benchmark or _benchmark_of(path)
    if not benchmark:
        raise LogFormatError(
            f"{path}: no folder data_<Bench>_... or Repetition<K>-<Bench>_... above the file"
            " names its benchmark; pass benchmark=NAME (command line: --benchmark NAME)"
        )
    extractor, choice = extractor_for(
        [cells[-1] for _, cells in rows], verdict_pattern, multiple=multiple_matches
    )
    m = _FILE.match(path.stem)
    judge = judge or (m["judge"] if m else header[-1])
    run = _run_of(path) if run is None else int(run)
    answers = [(h, int(a["slot"])) for h in header if (a := _ANSWER.match(h))]
    col = Collector(path, _FORMAT)
    col.rejects.extend(rejects)
    if choice is not None:
        col.note(None, choice.describe(lambda i: f"line {rows[i][0]}"))

    def parse(row: dict[str, str], line: int) -> None:
        parts = [p.strip() for p in row["cmp_index"].split(";")]
        if len(parts) != 3 or not all(parts) or parts[1] == parts[2]:
            raise RecordError(
                f"cmp_index {row['cmp_index']!r} is not 'question;first model;second model'"
            )
        qid, first, second = parts
        model_a, model_b, flipped = canonical_pair(first, second)
        item = item_id(benchmark, f"{qid}/{model_a}/{model_b}")
        found = extractor.extract(row[header[-1]])
        verdict = swap_ab(found.verdict) if flipped else int(found.verdict)
        col.judgment(judge, item, "BA" if flipped else "AB", run, verdict, line, match=found.match)
        lengths = [sum(len(row[h]) for h, s in answers if s == slot) for slot in (1, 2)]
        if flipped:
            lengths.reverse()
        col.item(
            item,
            benchmark=benchmark,
            category=row.get("task", ""),
            label_kind="unlabelled",
            length_a=lengths[0] if answers else float("nan"),
            length_b=lengths[1] if answers else float("nan"),
            model_a=model_a,
            model_b=model_b,
        )

    col.read_records(((n, dict(zip(header, cells, strict=True))) for n, cells in rows), parse)
    return col.parsed()


def _detect(path: Path) -> Detection:
    """Accept TSVs whose header has ``cmp_index``; call the study's companions so."""
    suffix = path.suffix.lower()
    if suffix == ".tsv":
        head = sniff_text(path, 4096).split("\n", 1)[0]
        names = [h.strip().strip('"') for h in head.split("\t")]
        if "cmp_index" in names:
            return Detection(True, "TSV with cmp_index and a judge-output column", priority=5)
        return Detection(False, "TSV without a 'cmp_index' column")
    if path.name == "length_stats.csv":
        return Detection(
            False,
            "per-model length statistics of a position-bias run; lengths are computed"
            " from the answers in the records",
            companion=True,
        )
    if suffix == ".xlsx" and "QA_data" in path.parts:
        return Detection(
            False,
            "questions and answers of the position-bias study (QA_data); the records"
            " carry the same answers, from which lengths are computed",
            companion=True,
        )
    return Detection(False, f"suffix {path.suffix!r} is not .tsv")


IMPORTER = SourceImporter(
    _FORMAT,
    "position-bias study records: TSV with cmp_index and the judge's raw text",
    from_position_bias,
    _detect,
)
