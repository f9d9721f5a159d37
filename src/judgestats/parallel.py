"""Threads for array work that releases the GIL (numpy sorting, FFTs, random draws).

One home for how many threads such work uses: :data:`THREADS`, at most 4 and at
most the machine's cores.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor

__all__ = ["THREADS", "thread_map"]

#: Threads used for GIL-releasing array work.
THREADS = min(4, os.cpu_count() or 1)


def thread_map[R](fn: Callable[..., R], *items: Iterable[object]) -> list[R]:
    """``list(map(fn, *items))`` in up to :data:`THREADS` threads, results in order.

    Parameters
    ----------
    fn : callable
    *items : iterable
        Arguments, zipped as :func:`map` does.

    Returns
    -------
    list
    """
    args = [list(i) for i in items]
    n = min((len(a) for a in args), default=0)
    if n <= 1 or THREADS == 1:
        return list(map(fn, *args))
    with ThreadPoolExecutor(min(THREADS, n)) as pool:
        return list(pool.map(fn, *args))
