r"""Replicate runs stored as separate files, recognised from their paths.

A judge re-run with several seeds is often saved as one file per run:
``annotations_seed0_configs.json`` … ``annotations_seed3_configs.json``. Read one by
one, the files hold the same judge, items and orders in run 0 and so would
conflict. :func:`replicate_runs` recognises them: files whose paths differ *only*
by the number of a ``seed``, ``run``, ``rep``, ``repetition`` or ``epoch`` token (in
the file name or a folder name, e.g. ``seed3``, ``run_2``, ``rep-1``) are runs of the
same judge, numbered by the rank of that number. They are renumbered only when the
importer gave every one of them the same runs (a format that reads the run from the
path itself, like the position-bias study's ``Repetition<K>`` folders, is left alone).

Any other naming takes ``run_pattern=``: a regular expression with one group, searched
in each path; files whose paths differ only in what the group captured are runs,
ranked by it (numerically when every value is a number).

When records still conflict and the files they come from look like replicates,
:func:`explain_conflicts` adds to each conflict's reason that they do, and names the
option.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from judgestats.accounting import ImportReport, Reject
from judgestats.io._assemble import Parsed

__all__ = [
    "REPLICATE_TOKEN",
    "compile_run_pattern",
    "explain_conflicts",
    "replicate_key",
    "replicate_runs",
]

#: A replicate token and its number in a path: ``seed3``, ``run_2``, ``Repetition1``, ``rep-1``.
REPLICATE_TOKEN = re.compile(
    r"(?<![A-Za-z])(?:seed|run|repetition|rep|epoch)[-_]?(\d+)(?!\d)", re.IGNORECASE
)
_DIGITS = re.compile(r"\d+")
_HINT = (
    "; the files look like replicate runs (their paths differ only in a number): read"
    " the run from the path with run_pattern=REGEX (--run-pattern REGEX, one group),"
    r" for example run_pattern=r'_(\d+)\.json$'"
)


def replicate_key(path: str, pattern: re.Pattern[str] = REPLICATE_TOKEN) -> tuple[str, tuple]:
    """Return a path's replicate group and its run values.

    Parameters
    ----------
    path : str
        The file's path.
    pattern : re.Pattern, default REPLICATE_TOKEN
        Where the run is in the path: every match's first group (the default finds
        every replicate token), or the one group of a user's pattern.

    Returns
    -------
    group : str
        The path with each run value replaced by ``#``; empty when nothing matched.
    values : tuple
        The values matched, as integers where they are numbers.

    Examples
    --------
    >>> replicate_key("out/annotations_seed3_configs.json")
    ('out/annotations_seed#_configs.json', (3,))
    >>> replicate_key("out/annotations.json")
    ('', ())
    """
    spans = [m.span(1) for m in pattern.finditer(path) if m.group(1) is not None]
    if not spans:
        return "", ()
    parts, values, end = [], [], 0
    for start, stop in spans:
        parts += [path[end:start], "#"]
        value = path[start:stop]
        values.append(int(value) if value.isdigit() else value)
        end = stop
    return "".join(parts) + path[end:], tuple(values)


def _runs(p: Parsed) -> frozenset[int]:
    return (
        frozenset(p.judgments["run"].astype(int).tolist()) if not p.judgments.empty else frozenset()
    )


def _rank_key(values: tuple) -> tuple:
    return tuple((0, v, "") if isinstance(v, int) else (1, 0, str(v)) for v in values)


def compile_run_pattern(run_pattern: str | None) -> re.Pattern[str]:
    """Return the compiled ``run_pattern`` (default: the replicate-token pattern).

    Raises
    ------
    ValueError
        If ``run_pattern`` is not a regular expression with exactly one group.
    """
    if run_pattern is None:
        return REPLICATE_TOKEN
    try:
        pattern = re.compile(run_pattern)
    except re.error as exc:
        raise ValueError(
            f"run_pattern {run_pattern!r} is not a regular expression ({exc}); fix it,"
            r" e.g. r'seed(\d+)'"
        ) from None
    if pattern.groups != 1:
        raise ValueError(
            f"run_pattern {run_pattern!r} has {pattern.groups} groups; it needs exactly one,"
            r" around the run (e.g. r'seed(\d+)'); make others (?:...)"
        )
    return pattern


def replicate_runs(parsed: Sequence[Parsed], run_pattern: str | None = None) -> list[Parsed]:
    """Renumber the runs of files that are replicates of one another, by their paths.

    Parameters
    ----------
    parsed : sequence of Parsed
        What the importers read, one per file.
    run_pattern : str, optional
        Regular expression with one group finding the run in a path; default the
        replicate tokens of :data:`REPLICATE_TOKEN`.

    Returns
    -------
    list of Parsed
        The same files; in each group of replicates, file of rank ``k`` (by its run
        value) has its runs moved to ``k * n + run``, ``n`` being the most runs any
        file of the group has, and a note saying so.

    Raises
    ------
    ValueError
        If ``run_pattern`` is not a regular expression with exactly one group.
    """
    pattern = compile_run_pattern(run_pattern)
    groups: dict[str, list[tuple[int, tuple]]] = {}
    for i, p in enumerate(parsed):
        group, values = replicate_key(p.file, pattern)
        if group and not p.judgments.empty:
            groups.setdefault(group, []).append((i, values))
    out = list(parsed)
    for group, members in groups.items():
        distinct = sorted({v for _, v in members}, key=_rank_key)
        if run_pattern is None and (
            len(distinct) < 2 or len({_runs(parsed[i]) for i, _ in members}) != 1
        ):
            continue  # not several replicates, or the importer already numbered their runs
        n = max(max(_runs(parsed[i])) for i, _ in members) + 1
        for i, values in members:
            p = parsed[i]
            rank = distinct.index(values)
            note = Reject(
                p.file,
                None,
                f"replicate {rank + 1} of {len(distinct)} of {group!r}"
                f" (run value {', '.join(map(str, values))}): runs {rank * n}..{rank * n + n - 1}",
            )
            out[i] = replace(
                p,
                judgments=p.judgments.assign(run=p.judgments["run"].astype(int) + rank * n),
                notes=[*p.notes, note],
            )
    return out


def _look_alike(files: Sequence[str]) -> bool:
    """Whether files differ only in numbers, or all carry a replicate token."""
    if len(set(files)) < 2:
        return False
    if len({_DIGITS.sub("#", f) for f in files}) == 1:
        return True
    return all(replicate_key(f)[0] for f in files)


def explain_conflicts(report: ImportReport, files: Sequence[str]) -> ImportReport:
    """Say in conflict rejects when the conflicting files look like replicate runs.

    Parameters
    ----------
    report : ImportReport
        The accounting of an import.
    files : sequence of str
        The files read (as named in the rejects).

    Returns
    -------
    ImportReport
        ``report`` with :data:`_HINT` added to such rejects' reasons.
    """
    if not any(r.reason.startswith("conflicting ") for r in report.rejects):
        return report
    known = sorted(set(files), key=len, reverse=True)
    cache: dict[str, bool] = {}

    def hinted(r: Reject) -> Reject:
        if not r.reason.startswith("conflicting "):
            return r
        where = r.reason[r.reason.index(": ") + 2 :] if ": " in r.reason else r.reason
        if where not in cache:
            named = [f for f in known if f"at {f}:" in where]
            cache[where] = _look_alike(named)
        return replace(r, reason=r.reason + _HINT) if cache[where] else r

    rejects = tuple(hinted(r) for r in report.rejects)
    return ImportReport(report.files, rejects, report.notes)
