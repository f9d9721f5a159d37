"""The importer registry, format detection and :func:`read_logs`.

An importer is an object with a ``name``, a one-line ``description``, a
``can_read(path) -> Detection`` test and a ``read(path, **options) -> Parsed``
method (:class:`Importer`; :mod:`judgestats.io.kit` has the parts to build one).
The registry is built when asked, never by importing a module: the built-in
importers (:data:`judgestats.io.formats.BUILTINS`), then those of the
``judgestats.importers`` entry-point group (each entry an importer object, a class
or a zero-argument factory returning one; an entry replaces a built-in of its name),
then those given to :func:`read_logs` or :func:`importers` as ``importers=``.
The entry points are looked up once per process, and again when a folder of the
import path has changed since (a package installed meanwhile).
"""

from __future__ import annotations

import functools
import logging
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import xarray as xr

from judgestats.accounting import ImportReport, Reject
from judgestats.errors import LogFormatError, NoImporterError
from judgestats.io._assemble import Parsed, assemble
from judgestats.io.label_kinds import infer_label_kinds
from judgestats.io.replicates import compile_run_pattern, explain_conflicts, replicate_runs

__all__ = [
    "ENTRY_POINT_GROUP",
    "Detection",
    "Importer",
    "ReadResult",
    "detect",
    "importers",
    "plan_read",
    "read_file",
    "read_logs",
]

log = logging.getLogger("judgestats")

ENTRY_POINT_GROUP = "judgestats.importers"

#: Files that are never logs; a folder walk passes over them without a note.
_IGNORED_NAMES = frozenset(
    {"LICENSE", "LICENSE.txt", "LICENSE.md", "README", "README.md", ".DS_Store"}
)


@dataclass(frozen=True)
class Detection:
    """An importer's answer to "can you read this file?" and why."""

    ok: bool
    reason: str = ""
    #: Higher wins when several importers accept one file (a specific format over
    #: the generic table).
    priority: int = 0
    #: The file is not a log but a companion the importer reads next to its logs
    #: (answers, statistics); a folder walk passes over it with this reason as a note.
    companion: bool = False


@runtime_checkable
class Importer(Protocol):
    """What a log-format importer provides.

    An importer may also have an ``options`` attribute, the names of the keyword
    options its ``read`` understands; :func:`read_logs` then passes it only those,
    so that one call can carry the options of several formats. An importer without
    it receives every option.
    """

    name: str
    description: str

    def can_read(self, path: Path) -> Detection:
        """Say whether ``path`` is in this format, and why (not)."""
        ...

    def read(self, path: Path, **options: Any) -> Parsed:
        """Parse ``path`` into judgments, labels, items and rejects."""
        ...


def _install_stamp() -> tuple[tuple[str, int], ...]:
    """When each folder of the import path last changed (installing a package changes it)."""
    stamp = []
    for folder in sys.path:
        try:
            stamp.append((folder, os.stat(folder or ".").st_mtime_ns))
        except OSError:
            stamp.append((folder, -1))
    return tuple(stamp)


@functools.lru_cache(maxsize=4)
def _load_entry_points(
    find: Callable[..., Iterable[Any]], stamp: tuple[tuple[str, int], ...]
) -> tuple[tuple[Importer, ...], tuple[tuple[str, str], ...]]:
    """Load the importers of the entry-point group once per ``find`` and ``stamp``.

    Scanning the installed packages' metadata takes tens of milliseconds, more than
    reading a small log: it is done once per process, and again when a folder of the
    import path changes (a package installed meanwhile) or ``find`` is another
    function. Returns the importers and, for each entry that failed to load, its
    name and why.
    """
    found: list[Importer] = []
    failed: list[tuple[str, str]] = []
    for ep in find(group=ENTRY_POINT_GROUP):
        try:
            obj = ep.load()
            found.append(obj() if isinstance(obj, type) or not hasattr(obj, "can_read") else obj)
        except Exception as exc:  # a broken plug-in must not break reading logs
            failed.append((str(ep.name), str(exc)))
    return tuple(found), tuple(failed)


def _entry_point_importers() -> list[Importer]:
    """Return the importers of the entry-point group; a broken one is a warning."""
    found, failed = _load_entry_points(entry_points, _install_stamp())
    for name, why in failed:  # warned at every call, as when loaded each time
        log.warning("importer entry point %r failed to load: %s", name, why)
    return list(found)


def importers(importers: Iterable[Importer] = ()) -> dict[str, Importer]:
    """Return the importers by name: built-in, from entry points, then ``importers``.

    Parameters
    ----------
    importers : iterable of Importer, optional
        Importers of formats of your own, added for this call (see
        :mod:`judgestats.io.kit`).

    Returns
    -------
    dict of str to Importer
        In the order detection asks them.

    Raises
    ------
    ValueError
        If one of ``importers`` has the name of an importer already there.
    TypeError
        If one of ``importers`` lacks the :class:`Importer` methods.
    """
    from judgestats.io.formats import BUILTINS

    registry: dict[str, Importer] = {imp.name: imp for imp in BUILTINS}
    registry.update((imp.name, imp) for imp in _entry_point_importers())
    for imp in importers:
        if not isinstance(imp, Importer):
            raise TypeError(
                f"{imp!r} is not an importer: it needs name, description, can_read(path)"
                " and read(path, **options)"
            )
        if imp.name in registry:
            raise ValueError(
                f"an importer named {imp.name!r} is already registered"
                f" ({registry[imp.name].description}); give yours another name"
            )
        registry[imp.name] = imp
    return registry


def detect(
    path: str | Path, *, importers: Iterable[Importer] = ()
) -> tuple[Importer | None, dict[str, str]]:
    """Find the importer for a file.

    Parameters
    ----------
    path : str or Path
        The file.
    importers : iterable of Importer, optional
        Importers added to the registry for this call (see :func:`importers`).

    Returns
    -------
    importer : Importer or None
        The accepting importer of highest priority, or ``None``.
    reasons : dict
        Every importer's reason for accepting or declining.
    """
    importer, reasons, _ = _detect(Path(path), _registry(importers))
    return importer, reasons


_registry = importers  # for functions whose parameter ``importers`` hides it


def _detect(
    path: Path, registry: Mapping[str, Importer]
) -> tuple[Importer | None, dict[str, str], str | None]:
    """Like :func:`detect`, plus the note of an importer that calls the file its companion."""
    best: tuple[int, Importer] | None = None
    reasons: dict[str, str] = {}
    companion: str | None = None
    for name, imp in registry.items():
        try:
            det = imp.can_read(path)
        except Exception as exc:  # a detector that crashes declines
            det = Detection(False, f"detector failed: {exc}")
        reasons[name] = ("accepts: " if det.ok else "declines: ") + det.reason
        if det.ok and (best is None or det.priority > best[0]):
            best = (det.priority, imp)
        if det.companion and not det.ok and companion is None:
            companion = f"passed over, not a log: {name}: {det.reason}"
    return (best[1] if best else None), reasons, companion


def _options_for(imp: Importer, options: Mapping[str, Any]) -> dict[str, Any]:
    accepted = getattr(imp, "options", None)
    if accepted is None:
        return dict(options)
    return {k: v for k, v in options.items() if k in accepted}


def _check_options(regs: Mapping[str, Importer], options: Mapping[str, Any]) -> None:
    """Raise ``ValueError`` for an option that no importer understands."""
    if any(getattr(imp, "options", None) is None for imp in regs.values()):
        return  # an importer that takes anything: nothing to check against
    known = {name for imp in regs.values() for name in imp.options}  # type: ignore[attr-defined]
    unknown = sorted(set(options) - known)
    if unknown:
        lines = [f"  {n}: {', '.join(imp.options) or '(none)'}" for n, imp in regs.items()]  # type: ignore[attr-defined]
        raise ValueError(
            f"unknown option(s) {unknown} for read_logs; the importers accept:\n" + "\n".join(lines)
        )


def _no_importer_message(path: Path, reasons: Mapping[str, str]) -> str:
    lines = [f"{path}: no importer can read this file"]
    lines += [f"  {name}: {why}" for name, why in reasons.items()]
    lines.append("  fix: pass format=NAME and the column mapping, or register an importer")
    return "\n".join(lines)


def _walk(folder: Path, notes: list[Reject]) -> Iterator[Path]:
    """Files under ``folder``, sorted, following symlinked folders (each folder once).

    Hidden folders (``.git``, ``.ipynb_checkpoints``: stale copies of live logs) are
    passed over with a note.
    """
    seen: set[str] = set()
    for root, dirs, files in os.walk(folder, followlinks=True):
        real = os.path.realpath(root)
        if real in seen:  # a symlink loop, or a folder reached twice
            dirs[:] = []
            continue
        seen.add(real)
        for d in sorted(dirs):
            if d.startswith("."):
                notes.append(
                    Reject(
                        str(Path(root) / d),
                        None,
                        "passed over: a hidden folder (give it by name to read it)",
                    )
                )
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for f in sorted(files):
            if f not in _IGNORED_NAMES and not f.startswith("."):
                yield Path(root) / f


def _files(paths: Iterable[str | Path]) -> tuple[list[tuple[Path, bool]], list[Reject]]:
    """Return the files to read (each with whether it was named explicitly), and notes.

    A file reached twice (named twice, or through a folder and a symlink) is read
    once; the second time is a note.
    """
    out: list[tuple[Path, bool]] = []
    notes: list[Reject] = []
    first: dict[str, Path] = {}

    def add(f: Path, explicit: bool) -> None:
        real = os.path.realpath(f)
        if real in first:
            notes.append(
                Reject(str(f), None, f"passed over: the same file as {first[real]}, read once")
            )
            return
        first[real] = f
        out.append((f, explicit))

    for p in paths:
        p = Path(p)
        if p.is_dir():
            for f in _walk(p, notes):
                if f.is_file():
                    add(f, False)
        elif p.exists():
            add(p, True)
        else:
            raise LogFormatError(f"{p}: no such file or folder")
    return out, notes


def _unreadable(path: Path, imp: Importer, exc: Exception) -> str:
    """Return why a file could not be read at all, for its reject."""
    if isinstance(exc, OSError):
        return f"cannot be read ({exc.strerror or exc}); check the file's permissions"
    return f"cannot be read as {imp.name} ({exc}); check format= or re-save the file as UTF-8"


@dataclass(frozen=True)
class ReadResult:
    """A Judgments dataset and the accounting of the import that made it."""

    dataset: xr.Dataset
    report: ImportReport

    def __iter__(self):  # allows ``ds, report = read_logs(...)``
        return iter((self.dataset, self.report))


def read_logs(
    paths: str | Path | Sequence[str | Path],
    *,
    format: str | None = None,
    aliases: Mapping[str, str] | None = None,
    strict: bool = False,
    run_pattern: str | None = None,
    label_kinds: Mapping[str, str] | None = None,
    importers: Iterable[Importer] = (),
    **options: Any,
) -> ReadResult:
    """Read log files (or folders of them) of any registered format into one dataset.

    Parameters
    ----------
    paths : path or sequence of paths
        Files, or folders walked recursively.
    format : str, optional
        Importer name to use for every file instead of detecting it.
    aliases : mapping, optional
        Judge renames (``{"old name": "new name"}``) applied before merging.
    strict : bool, default False
        Raise on the first file that cannot be read instead of reporting it as a
        rejected record.
    run_pattern : str, optional
        Regular expression with one group that finds the run in each file's path.
        By default files whose paths differ only in the number of a ``seed``,
        ``run``, ``rep``, ``repetition`` or ``epoch`` token are runs of one judge
        (see :mod:`judgestats.io.replicates`).
    label_kinds : mapping, optional
        Benchmark name to ``"preference"`` or ``"correctness"``, instead of the kind
        inferred from the benchmark's name or labels (see
        :mod:`judgestats.io.label_kinds`).
    importers : iterable of Importer, optional
        Importers of formats of your own, asked beside the registered ones (see
        :mod:`judgestats.io.kit`); their names must be new.
    **options
        Passed to the importers that understand them (each importer's ``options``),
        for example ``verdict_pattern=`` (how to find the verdict in a judge's raw
        text, see :mod:`judgestats.io.verdicts`), ``tie_tolerance=`` (score files), or
        ``columns=`` and ``verdict_map=`` (generic tables). An option that no importer
        understands is an error.

    Returns
    -------
    ReadResult
        ``dataset`` (a Judgments dataset, accounting in its attrs) and ``report``;
        it unpacks as ``ds, report = read_logs(...)``.

    Raises
    ------
    NoImporterError
        When a file named explicitly is in no known format (a file found in a
        folder walk is reported as a note instead), listing every importer's reason.
    ValueError
        For an unknown ``format`` or an option that no importer understands.

    Examples
    --------
    >>> import judgestats as js
    >>> ds, report = js.read_logs("../shared/data/pandalm")  # doctest: +SKIP
    >>> print(report.format())  # doctest: +SKIP
    """
    regs, files, notes = plan_read(
        paths, format=format, run_pattern=run_pattern, importers=importers, options=options
    )
    parsed: list[Parsed] = []
    for path, explicit in files:
        got = read_file(path, explicit, regs, format=format, strict=strict, options=options)
        if isinstance(got, Reject):
            notes.append(got)
        else:
            parsed.append(got)
    ds, report = assemble(replicate_runs(parsed, run_pattern), aliases=aliases)
    report = explain_conflicts(report, [p.file for p in parsed])
    ds, kind_notes = infer_label_kinds(ds, label_kinds)
    report = ImportReport(report.files, report.rejects, report.notes + tuple(notes) + kind_notes)
    ds.attrs["accounting"] = report.to_json()
    return ReadResult(ds, report)


def plan_read(
    paths: str | Path | Sequence[str | Path],
    *,
    format: str | None = None,
    run_pattern: str | None = None,
    importers: Iterable[Importer] = (),
    options: Mapping[str, Any] | None = None,
) -> tuple[dict[str, Importer], list[tuple[Path, bool]], list[Reject]]:
    """Check the arguments of :func:`read_logs` and list the files it reads.

    Parameters
    ----------
    paths, format, run_pattern, importers, options
        As in :func:`read_logs` (``options`` its ``**options``).

    Returns
    -------
    registry : dict of str to Importer
    files : list of (Path, bool)
        Each file to read, and whether it was named explicitly.
    notes : list of Reject
        Files and folders passed over.

    Raises
    ------
    ValueError
        For a bad ``run_pattern``, an unknown ``format`` or an option that no importer
        understands; nothing has been read then.
    """
    if isinstance(paths, (str, Path)):
        paths = [paths]
    compile_run_pattern(run_pattern)  # a bad pattern fails before any file is read
    regs = _registry(importers)
    if format is not None and format not in regs:
        raise ValueError(f"unknown format {format!r}; known: {', '.join(sorted(regs))}")
    _check_options({format: regs[format]} if format is not None else regs, options or {})
    files, notes = _files(paths)
    return regs, files, notes


def read_file(
    path: Path,
    explicit: bool,
    regs: Mapping[str, Importer],
    *,
    format: str | None = None,
    strict: bool = False,
    options: Mapping[str, Any] | None = None,
) -> Parsed | Reject:
    """Read one file as :func:`read_logs` does: detect its format, parse it.

    Parameters
    ----------
    path : Path
        The file.
    explicit : bool
        Whether it was named (rather than found in a folder): an explicit file in no
        known format raises, one found in a folder is a note.
    regs : mapping of str to Importer
        The registry (see :func:`importers`).
    format, strict, options
        As in :func:`read_logs`.

    Returns
    -------
    Parsed or Reject
        What was parsed (a file that cannot be read is one rejected record), or the
        note of a file passed over.
    """
    companion = None
    if format is not None:
        imp: Importer | None = regs[format]
        reasons: dict[str, str] = {}
    else:
        imp, reasons, companion = _detect(path, regs)
    if imp is None:
        msg = _no_importer_message(path, reasons)
        if explicit:
            raise NoImporterError(msg)
        return Reject(str(path), None, companion or "skipped: " + msg.split("\n", 1)[1])
    log.info("reading %s as %s", path, imp.name)
    try:
        return imp.read(path, **_options_for(imp, options or {}))
    except (LogFormatError, OSError, UnicodeError) as exc:
        if strict:
            raise
        why = str(exc) if isinstance(exc, LogFormatError) else _unreadable(path, imp, exc)
        return Parsed(str(path), imp.name, rejects=[Reject(str(path), None, why)], read=1)
