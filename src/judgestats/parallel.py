"""Threads for array work that releases the GIL (numpy sorting, FFTs, random draws).

One home for the machine's cores (:data:`CORES`), for how many threads such work
uses (:data:`THREADS`, at most 4 and at most the cores), and for how many threads
BLAS may start beside them (:func:`blas_threads`). OpenBLAS, which NumPy and SciPy
ship, starts its own threads for every matrix product above a size threshold;
workers that each do so compete for the same cores. Wherever this package runs its
own workers (:func:`thread_map`, nutpie's chains in
:mod:`judgestats.models.sampling`), BLAS gets the cores the workers leave.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

__all__ = ["CORES", "THREADS", "blas_threads", "thread_map"]

#: The machine's cores.
CORES = os.cpu_count() or 1
#: Threads used for GIL-releasing array work.
THREADS = min(4, CORES)


@contextmanager
def blas_threads(workers: int) -> Iterator[None]:
    """Hold BLAS to the cores that ``workers`` parallel workers leave (at least one).

    The limit is process-wide (OpenBLAS has one setting for all threads) and the
    previous one comes back on exit.

    Parameters
    ----------
    workers : int
        Workers about to run at once.
    """
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=max(1, CORES // workers), user_api="blas"):
        yield


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
    workers = min(THREADS, n)
    with blas_threads(workers), ThreadPoolExecutor(workers) as pool:
        return list(pool.map(fn, *args))
