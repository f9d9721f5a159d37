"""What the labels of each benchmark are: human preferences or objective correctness.

MVVP step 4 needs both kinds, and the label kind changes what agreement means (a tie
is a legitimate human preference, while a correctness benchmark has one right
answer). Importers that know their source state it (LLMBar, JudgeBench, PandaLM); for
the others, :func:`infer_label_kinds` decides per benchmark, for labelled items whose
kind is not stated (``unlabelled``):

1. a known benchmark name (case, spaces and punctuation ignored, contained in the
   benchmark's name): MT-Bench and Chatbot Arena are ``preference``; JudgeBench,
   RewardBench and LLMBar are ``correctness``;
2. otherwise the labels themselves: any tie among the benchmark's human labels means
   ``preference``; labels that are all A or B mean ``correctness``.

``overrides`` (``read_logs(label_kinds={"Bench": "correctness"})``, on the command
line ``--label-kind Bench=correctness``) set the kind of every labelled item of a
benchmark, stated or not. Every decision is a note of the import accounting.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import numpy as np
import xarray as xr

from judgestats.accounting import Reject
from judgestats.errors import LogFormatError
from judgestats.schema import LABEL_KINDS, Verdict

__all__ = ["KNOWN_BENCHMARKS", "infer_label_kinds", "kind_from_labels", "kind_from_name"]

#: Normalised benchmark names (lower case, letters and digits) and their label kind.
KNOWN_BENCHMARKS: dict[str, str] = {
    "mtbench": "preference",
    "chatbotarena": "preference",
    "judgebench": "correctness",
    "rewardbench": "correctness",
    "llmbar": "correctness",
}
_UNSTATED = "unlabelled"


def kind_from_name(benchmark: str) -> str | None:
    """Return the label kind of a known benchmark name, or ``None``.

    Examples
    --------
    >>> kind_from_name("MT-Bench"), kind_from_name("JudgeBench/gpt"), kind_from_name("Mine")
    ('preference', 'correctness', None)
    """
    name = re.sub(r"[^a-z0-9]", "", benchmark.lower())
    kinds = {kind for known, kind in KNOWN_BENCHMARKS.items() if known in name}
    return kinds.pop() if len(kinds) == 1 else None


def kind_from_labels(labels: np.ndarray) -> str | None:
    """Return the label kind that a benchmark's labels suggest, or ``None`` without labels.

    Parameters
    ----------
    labels : ndarray of int
        Label codes (:class:`~judgestats.schema.Verdict`); ``MISSING`` is ignored.

    Examples
    --------
    >>> kind_from_labels(np.array([0, 1, 2])), kind_from_labels(np.array([0, 1, -1]))
    ('preference', 'correctness')
    """
    given = labels[labels != Verdict.MISSING]
    if given.size == 0:
        return None
    return "preference" if (given == Verdict.TIE).any() else "correctness"


def _check(overrides: Mapping[str, str], benchmarks: list[str]) -> None:
    for bench, kind in overrides.items():
        if bench not in benchmarks:
            raise LogFormatError(
                f"label kind given for benchmark {bench!r}, which no log read has; the"
                f" benchmarks are {benchmarks}: fix the name"
            )
        if kind not in LABEL_KINDS[:2]:
            raise LogFormatError(
                f"label kind {kind!r} for benchmark {bench!r}: use preference or correctness"
            )


def infer_label_kinds(
    ds: xr.Dataset, overrides: Mapping[str, str] | None = None
) -> tuple[xr.Dataset, tuple[Reject, ...]]:
    """Fill in the label kinds that importers did not state, and apply overrides.

    Parameters
    ----------
    ds : xarray.Dataset
        A Judgments dataset.
    overrides : mapping of str to str, optional
        Benchmark name to ``"preference"`` or ``"correctness"``.

    Returns
    -------
    dataset : xarray.Dataset
        ``ds`` with the ``label_kind`` coordinate completed.
    notes : tuple of Reject
        One per benchmark decided, its ``file`` the benchmark's name.

    Raises
    ------
    LogFormatError
        If an override names a benchmark that is not in ``ds`` or a kind that is not
        ``preference`` or ``correctness``.
    """
    overrides = dict(overrides or {})
    bench = ds["benchmark"].values.astype(str)
    names = list(dict.fromkeys(bench.tolist()))
    _check(overrides, names)
    human = ds["human"].transpose("item", "rater").values
    labelled = (human != Verdict.MISSING).any(axis=1)
    kinds = ds["label_kind"].values.astype(object).copy()
    notes = []
    for name in names:
        here = (bench == name) & labelled
        kind: str | None
        if name in overrides:
            target, kind, why = here, overrides[name], "given"
        else:
            target = here & (kinds == _UNSTATED)
            if not target.any():
                continue
            kind = kind_from_name(name)
            why = "a known benchmark name"
            if kind is None:
                kind = kind_from_labels(human[target])
                why = "ties among the labels" if kind == "preference" else "labels without ties"
        if not target.any() or kind is None:
            continue
        kinds[target] = kind
        notes.append(
            Reject(
                name,
                None,
                f"label kind {kind} for {int(target.sum())} labelled items ({why}); to change"
                f" it pass label_kinds={{{name!r}: KIND}} (--label-kind {name}=KIND)",
            )
        )
    if not notes:
        return ds, ()
    return ds.assign_coords(label_kind=("item", kinds.astype(str))), tuple(notes)
