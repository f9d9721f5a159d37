"""Live progress of long work on stderr: whether to show it, and the sampling bar.

Two kinds of progress reach the terminal: the stage lines of
:class:`judgestats.report.terminal.Progress` ("fitting the hierarchical model ...",
heartbeats every 20 s), readable in a CI log, and a live bar while the
hierarchical tier samples (draws done of total, divergences so far, time left),
redrawn in place with carriage returns and so shown only on a terminal.

Both are silent under ``quiet()`` (the CLI's ``--quiet``); ``quiet(False)`` (the
CLI without it) asks for the bar on stderr; library callers who set neither see
the bar when they log at INFO level. While the bar is shown, the stage that runs
it prints no heartbeats: the stage registers itself with :func:`reporting` and the
bar pauses it.

The settings are context variables, scoped to a ``with`` block (the CLI sets them
for one command), not module state.
"""

from __future__ import annotations

import contextvars
import logging
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any, Protocol, TextIO

__all__ = ["SamplingBar", "is_quiet", "quiet", "reporting", "sampling_progress"]

log = logging.getLogger("judgestats")

_QUIET: contextvars.ContextVar[bool | None] = contextvars.ContextVar(
    "judgestats_quiet", default=None
)


class Reporter(Protocol):
    """What a sampling bar needs of the stage reporter running it."""

    stream: TextIO | None

    def paused(self) -> AbstractContextManager[None]:
        """Hold heartbeat lines for the duration of a ``with`` block."""
        ...


_REPORTER: contextvars.ContextVar[Reporter | None] = contextvars.ContextVar(
    "judgestats_reporter", default=None
)


@contextmanager
def quiet(on: bool = True) -> Iterator[None]:
    """Silence progress (stage lines, heartbeats, bars) inside a ``with`` block.

    Parameters
    ----------
    on : bool, default True
        False asks for live progress instead: a sampling bar on stderr (when it is a
        terminal) even without a stage reporter or INFO logging.
    """
    token = _QUIET.set(on)
    try:
        yield
    finally:
        _QUIET.reset(token)


def is_quiet() -> bool:
    """Whether progress is silenced (:func:`quiet`)."""
    return bool(_QUIET.get())


@contextmanager
def reporting(reporter: Reporter) -> Iterator[None]:
    """Make ``reporter`` the stage that live progress inside the block belongs to."""
    token = _REPORTER.set(reporter)
    try:
        yield
    finally:
        _REPORTER.reset(token)


def _is_terminal(stream: Any) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


def _bar_stream() -> TextIO | None:
    """Return the stream a sampling bar goes to, or None when no bar is to be shown.

    The stage reporter's stream when one is running (the CLI's stderr); otherwise
    stderr, when progress was asked for (``quiet(False)``, or logging at INFO
    level). Never when quiet, never when the stream is not a terminal.
    """
    if is_quiet():
        return None
    reporter = _REPORTER.get()
    if reporter is not None and reporter.stream is not None:
        stream: TextIO = reporter.stream
    elif _QUIET.get() is False or log.isEnabledFor(logging.INFO):
        stream = sys.stderr
    else:
        return None
    return stream if _is_terminal(stream) else None


def _duration(seconds: float) -> str:
    whole = max(round(seconds), 0)
    return f"{whole // 60}:{whole % 60:02d}"


class SamplingBar:
    """A one-line sampling bar fed by nutpie's ``progress_callback``.

    Shows draws done of total over all chains (tuning included), divergences after
    tuning so far, elapsed time and time left at the current rate.

    Parameters
    ----------
    stream : text stream
    width : int, default 24
        Characters of the bar itself.

    Examples
    --------
    >>> import io
    >>> from types import SimpleNamespace as Chain
    >>> out = io.StringIO()
    >>> bar = SamplingBar(out)
    >>> chain = Chain(finished_draws=50, total_draws=200, divergent_draws=[3], runtime_ms=2000)
    >>> bar([chain, chain])
    >>> out.getvalue().strip()
    'sampling [######..................] 100/400 draws, 2 divergences, 0:02 elapsed, 0:06 left'
    """

    def __init__(self, stream: TextIO, width: int = 24) -> None:
        self.stream = stream
        self.width = width
        self._lock = threading.Lock()
        self._drawn = False

    def line(self, chains: Sequence[Any]) -> str:
        """Render the bar for the chains' progress."""
        done = sum(c.finished_draws for c in chains)
        total = max(sum(c.total_draws for c in chains), 1)
        divergent = sum(len(c.divergent_draws) for c in chains)
        elapsed = max((c.runtime_ms for c in chains), default=0) / 1000.0
        filled = int(self.width * done / total)
        left = elapsed * (total - done) / done if done else float("nan")
        eta = _duration(left) if done else "?"
        plural = "" if divergent == 1 else "s"
        return (
            f"sampling [{'#' * filled}{'.' * (self.width - filled)}] {done}/{total} draws, "
            f"{divergent} divergence{plural}, {_duration(elapsed)} elapsed, {eta} left"
        )

    def __call__(self, chains: Sequence[Any]) -> None:
        """Redraw the bar (nutpie calls this from its own thread)."""
        text = self.line(chains)
        with self._lock:
            self.stream.write(f"\r{text}\x1b[K")
            self.stream.flush()
            self._drawn = True

    def close(self) -> None:
        """End the bar's line, so that what follows starts on a new one."""
        with self._lock:
            if self._drawn:
                self.stream.write("\n")
                self.stream.flush()


@contextmanager
def sampling_progress() -> Iterator[SamplingBar | None]:
    """Yield a sampling bar for nutpie's ``progress_callback``, or None when silent.

    A bar is shown on a terminal only, never under :func:`quiet`; while it is shown,
    the running stage (:func:`reporting`) prints no heartbeats.
    """
    stream = _bar_stream()
    if stream is None:
        yield None
        return
    reporter = _REPORTER.get()
    bar = SamplingBar(stream)
    with reporter.paused() if reporter is not None else nullcontext():
        try:
            yield bar
        finally:
            bar.close()
