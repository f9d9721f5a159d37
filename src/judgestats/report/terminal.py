"""Terminal output of the report: progress lines while it works, a verdict table at the end.

Progress is plain lines (no carriage returns, no colours), so that it reads the
same in a terminal, a CI log or a file. Without a stream it goes to the
``judgestats`` logger instead, so library callers only see it when they ask.
Under :func:`judgestats.progress.quiet` (the CLI's ``--quiet``) there are no lines;
while a stage shows a live bar (:func:`judgestats.progress.sampling_progress`, on a
terminal) its heartbeats wait.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from judgestats.mvvp import MVVPResult, StepVerdict
from judgestats.progress import is_quiet, reporting

if TYPE_CHECKING:
    import xarray as xr

__all__ = ["Progress", "terminal_summary"]

log = logging.getLogger("judgestats")


class Progress:
    """Report the stages of long work, one line each, with heartbeats.

    Parameters
    ----------
    stream : text stream, optional
        Where the lines go (the CLI passes ``sys.stderr``); by default they are
        logged at INFO level on the ``judgestats`` logger.
    heartbeat : float, default 20.0
        Seconds between "still working" lines during a long stage (0: none).
    quiet : bool, optional
        No lines at all; by default, whether :func:`judgestats.progress.quiet` is
        in effect where the Progress is made.

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> with Progress(out, heartbeat=0).stage("reading logs"):
    ...     pass
    >>> out.getvalue().splitlines()[0]
    '[judgestats] reading logs ...'
    """

    def __init__(
        self, stream: TextIO | None = None, heartbeat: float = 20.0, quiet: bool | None = None
    ) -> None:
        self.stream = stream
        self.heartbeat = heartbeat
        self.quiet = is_quiet() if quiet is None else quiet
        self._lock = threading.Lock()
        self._start = time.monotonic()
        self._pauses = 0

    def note(self, message: str) -> None:
        """Emit one line (none when quiet)."""
        if self.quiet:
            return
        if self.stream is None:
            log.info("%s", message)
            return
        with self._lock:
            self.stream.write(f"[judgestats] {message}\n")
            self.stream.flush()

    @contextmanager
    def stage(self, what: str) -> Iterator[None]:
        """Report the start and the end (with its duration) of a stage.

        Parameters
        ----------
        what : str
            The stage, as an ``-ing`` phrase ("fitting the hierarchical model").
        """
        self.note(f"{what} ...")
        start = time.monotonic()
        done = threading.Event()
        beat = None
        if self.heartbeat > 0 and not self.quiet:
            beat = threading.Thread(target=self._beat, args=(what, start, done), daemon=True)
            beat.start()
        try:
            with reporting(self):
                yield
        finally:
            done.set()
            if beat is not None:
                beat.join()
        self.note(f"{what}: done in {time.monotonic() - start:.1f} s")

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Hold heartbeat lines inside the block (a live bar is being drawn)."""
        with self._lock:
            self._pauses += 1
        try:
            yield
        finally:
            with self._lock:
                self._pauses -= 1

    @property
    def is_paused(self) -> bool:
        """Whether heartbeats are held (:meth:`paused`)."""
        return self._pauses > 0

    def _beat(self, what: str, start: float, done: threading.Event) -> None:
        while not done.wait(self.heartbeat):
            if not self.is_paused:
                self.note(f"  ... still {what} ({time.monotonic() - start:.0f} s)")


def terminal_summary(
    result: MVVPResult,
    files: dict[str, Path] | None = None,
    max_details: int = 12,
    tree: xr.DataTree | None = None,
) -> str:
    """Return the compact verdict table and what needs attention, for the terminal.

    Parameters
    ----------
    result : MVVPResult
    files : dict of str to Path, optional
        Files written, listed at the end.
    max_details : int, default 12
        Results that are FAIL or INCONCLUSIVE to spell out (the worst first); the
        rest are counted.
    tree : xarray.DataTree, optional
        The fit: its human raters (:mod:`judgestats.report.raters`) are summed up.

    Returns
    -------
    str
    """
    lines = [result.format(details=False, max_warnings=6)]
    worrying = sorted(
        (r for r in result.results if r.verdict in (StepVerdict.FAIL, StepVerdict.INCONCLUSIVE)),
        key=lambda r: -r.verdict.severity,
    )
    if worrying:
        lines.append("")
        lines += [r.describe() for r in worrying[:max_details]]
        if len(worrying) > max_details:
            lines.append(f"... and {len(worrying) - max_details} more (see summary.csv)")
    if tree is not None:
        from judgestats.report.raters import terminal_lines

        lines += terminal_lines(tree, result.config.prob)
    if files:
        lines.append("")
        lines += [f"wrote {path}" for path in files.values()]
    return "\n".join(lines)
