"""Inspect AI evaluation logs (``.eval`` and ``.json``), read with inspect_ai's own reader.

Needs the optional extra ``judgestats[inspect]`` (the ``inspect_ai`` package); without
it, reading a log says how to install it. Files are detected without it: a ``.eval``
log is a zip archive with ``header.json`` or ``_journal/start.json`` (its members may
be zstd-compressed, which inspect_ai reads), a ``.json`` log a JSON object that starts
with ``"version"`` and has an ``"eval"`` header.

Layout used
-----------
One log is one task run by one model, a sample per judged presentation and epoch:

========================  ===========================================================
field                     meaning
========================  ===========================================================
``eval.model``            the judge (the model evaluated)
``eval.task_args``,       ``benchmark`` (else the dataset's name, else the task's);
``eval.metadata``         with ``judge_key=``, the judge
``samples[].epoch``       the run (epoch 1 is run 0); epoch *reductions* are not read
``samples[].id``          the item key, unless the metadata has one
``samples[].metadata``    ``item_id``, ``pair_id``, ``question_id``, ``item`` or
                          ``uid`` (item key); ``order`` (``AB``/``BA``,
                          ``original``/``swapped``) or ``swapped``/``swap``/
                          ``is_swapped``/``flipped`` (true = ``BA``); ``human``,
                          ``label``, ``human_label``, ``winner`` or ``gold`` (the
                          label, item frame); ``benchmark``, ``category``,
                          ``label_kind``, ``model_a``/``model_b``,
                          ``response_a``/``response_b`` or ``length_a``/``length_b``
``samples[].output``      the judge's raw text, ``output.completion``
``samples[].scores``      with ``scorer=NAME``: that score's ``answer`` is the verdict
``samples[].target``      the label in the *presented* frame, when the metadata has none
========================  ===========================================================

What is imported
----------------
* judge = ``judge=``, else the task argument or log metadata named by ``judge_key=``,
  else ``eval.model`` as Inspect writes it (``openai/gpt-4o``);
* benchmark = ``benchmark=``, else the sample's ``metadata["benchmark"]``, else the
  task argument ``benchmark``, else the log's ``metadata["benchmark"]``, else the
  dataset's name, else the task's name;
* item = ``<benchmark>/<item key>``; the key from ``item_key=`` or the first of the
  metadata keys above, else the sample id (then each presentation is its own item);
* order from the metadata (``order_key=`` names another key); ``unknown`` when
  absent, and then the verdict's slots are taken as the item's responses;
* run = epoch − 1;
* verdict found in ``output.completion`` (never in the prompt, which often shows the
  verdict markers) with a :class:`~judgestats.io.verdicts.VerdictExtractor`: the
  ``verdict_pattern`` named, else the named pattern that finds the most verdicts in
  the file (reported as a note). With ``scorer=`` the score's answer is used: a bare
  ``A``/``B``/``tie`` (or ``1``/``2``, ...) directly, other text through the pattern.
  The verdict names presentation slots and is converted to the item frame with the
  order. An empty completion or no match is ``INVALID``; what matched is the
  variable ``match``;
* the human label from the metadata (item frame; rater ``gold`` for the key ``gold``,
  else ``human``; ``label_key=`` names another key), else from ``target`` when it is a
  verdict (presented frame, converted with the order). Labels are item metadata
  riding on judgments: not counted;
* a sample that errored (``sample.error``) is rejected with its message; a log that
  did not finish (status other than ``success``) is read as far as it goes, with a
  note; a log without samples is an error.

Lines in the accounting are the 1-based positions of samples in the log.
"""

from __future__ import annotations

import math
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from judgestats.errors import LogFormatError
from judgestats.io.kit import (
    Collector,
    Detection,
    Parsed,
    RecordError,
    SourceImporter,
    check_label_kind,
    code_of,
    item_id,
    sniff_text,
    swap_ab,
    text_length,
)
from judgestats.io.verdicts import DEFAULT_LABELS, VerdictExtractor, extractor_for

__all__ = ["IMPORTER", "INSTALL_HINT", "from_inspect"]

_FORMAT = "inspect"
#: What to do when inspect_ai is missing.
INSTALL_HINT = "reading Inspect AI logs needs inspect_ai: pip install 'judgestats[inspect]'"

_ITEM_KEYS = ("item_id", "pair_id", "question_id", "item", "uid")
_ORDER_KEYS = ("order",)
_SWAP_KEYS = ("swapped", "swap", "is_swapped", "flipped")
_LABEL_KEYS = ("human", "label", "human_label", "winner", "gold")
_ORDERS = {
    **dict.fromkeys(["ab", "original", "0", "false"], "AB"),
    **dict.fromkeys(["ba", "swapped", "swap", "1", "true"], "BA"),
}


def _read_log(path: Path) -> Any:
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise LogFormatError(f"{path}: {INSTALL_HINT}") from None
    try:
        return read_eval_log(str(path))
    except Exception as exc:  # inspect_ai raises many kinds for a broken file
        raise LogFormatError(
            f"{path}: not a readable Inspect AI log ({type(exc).__name__}: {exc});"
            " the file may be truncated or written by another program"
        ) from None


def _first(meta: Mapping[str, Any], keys: Sequence[str]) -> tuple[str | None, Any]:
    for key in keys:
        if meta.get(key) is not None:
            return key, meta[key]
    return None, None


def _order(meta: Mapping[str, Any], order_key: str | None) -> str:
    key, value = _first(meta, (order_key,) if order_key else _ORDER_KEYS + _SWAP_KEYS)
    if key is None:
        if order_key:
            raise RecordError(f"metadata has no {order_key!r} (order_key)")
        return "unknown"
    if isinstance(value, bool):
        return "BA" if value else "AB"
    order = _ORDERS.get(str(value).strip().lower())
    if order is None:
        raise RecordError(
            f"metadata[{key!r}] = {value!r} is not an order; use AB/BA (original/swapped)"
            " or a true/false swapped flag, or name the key with order_key="
        )
    return order


def _bench(log: Any, meta: Mapping[str, Any], benchmark: str | None) -> str:
    candidates = (
        benchmark,
        meta.get("benchmark"),
        log.eval.task_args.get("benchmark"),
        (log.eval.metadata or {}).get("benchmark"),
        log.eval.dataset.name,
        log.eval.task,
    )
    return next(str(c) for c in candidates if c is not None and str(c).strip())


def _judge(log: Any, judge: str | None, judge_key: str | None) -> str:
    if judge:
        return judge
    if judge_key:
        for source in (log.eval.task_args, log.eval.metadata or {}):
            if source.get(judge_key) is not None:
                return str(source[judge_key])
        raise LogFormatError(
            f"neither the task arguments nor the log metadata have {judge_key!r} (judge_key);"
            f" task arguments are {sorted(log.eval.task_args)}"
        )
    return str(log.eval.model)


def _verdict_text(sample: Any, scorer: str | None) -> str:
    if scorer is None:
        return sample.output.completion if sample.output is not None else ""
    score = (sample.scores or {}).get(scorer)
    if score is None:
        raise RecordError(f"no score {scorer!r} (scorer); scores are {sorted(sample.scores or {})}")
    return "" if score.answer is None else str(score.answer)


def _label(sample: Any, label_key: str | None, order: str) -> tuple[str, int] | None:
    """Return ``(rater, label code)`` in the item frame, or ``None`` if there is none."""
    key, value = _first(sample.metadata, (label_key,) if label_key else _LABEL_KEYS)
    if key is not None:
        code = code_of(value, DEFAULT_LABELS)
        if code is None:
            raise RecordError(f"metadata[{key!r}] = {value!r} is not a label (A, B or tie)")
        return ("gold" if key == "gold" else "human"), int(code)
    target = sample.target
    if isinstance(target, list):
        target = target[0] if len(target) == 1 else None
    code = code_of(target, DEFAULT_LABELS)
    if code is None:
        return None
    return "human", swap_ab(code) if order == "BA" else int(code)


def _length(meta: Mapping[str, Any], side: str) -> float:
    if f"response_{side}" in meta:
        return text_length(meta[f"response_{side}"])
    value = meta.get(f"length_{side}")
    return (
        float(value)
        if isinstance(value, (int, float)) and not isinstance(value, bool)
        else math.nan
    )


def _extractors(
    texts: list[str], verdict_pattern: str | None, multiple: str, scorer: str | None, col: Collector
) -> VerdictExtractor:
    # A score's bare answer ("A") is looked up directly; only text goes through a pattern.
    raw = [t for t in texts if scorer is None or code_of(t, DEFAULT_LABELS) is None]
    extractor, choice = extractor_for(raw, verdict_pattern, multiple=multiple)
    if choice is not None and raw:
        col.note(None, choice.describe(lambda i: f"sample {i + 1}"))
    return extractor


def from_inspect(
    path: str | Path,
    *,
    verdict_pattern: str | None = None,
    multiple_matches: str = "unanimous",
    judge: str | None = None,
    judge_key: str | None = None,
    benchmark: str | None = None,
    item_key: str | None = None,
    order_key: str | None = None,
    label_key: str | None = None,
    scorer: str | None = None,
) -> Parsed:
    """Read one Inspect AI log (``.eval`` or ``.json``).

    Parameters
    ----------
    path : str or Path
        The log file.
    verdict_pattern : str, optional
        Named pattern or regular expression for the verdict in the judge's text
        (see :mod:`judgestats.io.verdicts`); default the named pattern that finds
        the most verdicts in the file.
    multiple_matches : {"unanimous", "first", "last"}, default "unanimous"
        What a text with several matches means.
    judge : str, optional
        Judge name for the whole log; default ``eval.model``.
    judge_key : str, optional
        A task argument (or log metadata field) that names the judge.
    benchmark : str, optional
        Benchmark of every item; default from the sample metadata, task arguments,
        log metadata, dataset name or task name (in that order).
    item_key : str, optional
        Sample metadata key of the item id; default the first of ``item_id``,
        ``pair_id``, ``question_id``, ``item``, ``uid``, else the sample id.
    order_key : str, optional
        Sample metadata key of the order (``AB``/``BA`` or a swapped flag).
    label_key : str, optional
        Sample metadata key of the human label (item frame).
    scorer : str, optional
        Take the verdict from this score's ``answer`` instead of the completion.

    Returns
    -------
    Parsed
        One judgment per sample and epoch, with the variable ``match``.

    Raises
    ------
    LogFormatError
        If inspect_ai is not installed, the file is not a readable Inspect log, or
        it holds no samples.

    Examples
    --------
    >>> from judgestats.io.formats.inspect import from_inspect
    >>> p = from_inspect("logs/2025-01-01T00-00-00_pairwise_abc.eval")  # doctest: +SKIP
    """
    path = Path(path)
    log = _read_log(path)
    samples = log.samples or []
    if not samples:
        raise LogFormatError(
            f"{path}: the log holds no samples (status {log.status!r}); judgments are in"
            " the samples: re-run with log_samples=True"
        )
    name = _judge(log, judge, judge_key)
    col = Collector(path, _FORMAT)
    if log.status != "success":
        col.note(None, f"log status is {log.status!r}: {len(samples)} samples read as logged")
    texts = []
    for sample in samples:
        try:
            texts.append(_verdict_text(sample, scorer))
        except RecordError:
            texts.append("")
    extractor = _extractors(texts, verdict_pattern, multiple_matches, scorer, col)
    no_label = 0

    def parse(line: int, sample: Any) -> None:
        nonlocal no_label
        where = f"sample {sample.id!r} epoch {sample.epoch}: "
        with col.record(line, where):
            if sample.error is not None:
                message = str(getattr(sample.error, "message", sample.error)).splitlines()
                raise RecordError(
                    f"the sample errored ({message[0] if message else 'no message'});"
                    " re-run it (retry_on_error=) or leave it out"
                )
            meta = sample.metadata or {}
            bench = _bench(log, meta, benchmark)
            key = meta.get(item_key) if item_key else _first(meta, _ITEM_KEYS)[1]
            if item_key and key is None:
                raise RecordError(f"metadata has no {item_key!r} (item_key)")
            item = item_id(bench, sample.id if key is None else key)
            order = _order(meta, order_key)
            text = _verdict_text(sample, scorer)
            direct = code_of(text, DEFAULT_LABELS) if scorer is not None else None
            found = extractor.extract(text)
            code = int(direct) if direct is not None else int(found.verdict)
            verdict = swap_ab(code) if order == "BA" else code
            match = text.strip() if direct is not None else found.match
            col.judgment(name, item, order, sample.epoch - 1, verdict, line, match=match)
            label = _label(sample, label_key, order)
            if label is None:
                no_label += 1
            else:
                col.label(item, label[0], label[1], line, counted=False)
            kind = meta.get("label_kind")
            check_label_kind(kind)
            col.item(
                item,
                benchmark=bench,
                category=str(meta.get("category", "")),
                label_kind=kind or "unlabelled",
                length_a=_length(meta, "a"),
                length_b=_length(meta, "b"),
                model_a=str(meta.get("model_a", "")),
                model_b=str(meta.get("model_b", "")),
            )

    for line, sample in enumerate(samples, start=1):
        parse(line, sample)
    if 0 < no_label < len(samples):
        col.note(None, f"{no_label} of {len(samples)} samples have no label (metadata or target)")
    return col.parsed()


def _detect(path: Path) -> Detection:
    """Accept ``.eval`` archives of Inspect and ``.json`` logs with an ``eval`` header."""
    suffix = path.suffix.lower()
    if suffix == ".eval":
        try:
            with zipfile.ZipFile(path) as archive:
                names = set(archive.namelist())
        except (zipfile.BadZipFile, OSError) as exc:
            return Detection(False, f".eval file that is not a zip archive ({exc})")
        if {"header.json", "_journal/start.json"} & names:
            return Detection(True, "Inspect AI .eval log", priority=6)
        return Detection(False, ".eval archive without header.json or _journal/start.json")
    if suffix == ".json":
        head = sniff_text(path, 4096).lstrip()
        if head.startswith("{") and head[1:].lstrip().startswith('"version"') and '"eval"' in head:
            return Detection(True, "Inspect AI .json log", priority=6)
        return Detection(False, "JSON that does not start with an Inspect log's version and eval")
    return Detection(False, f"suffix {path.suffix!r} is not .eval or .json")


IMPORTER = SourceImporter(
    _FORMAT,
    "Inspect AI logs (.eval, .json): model = judge, epochs = runs, verdicts from completions",
    from_inspect,
    _detect,
)
