"""Threads for array work, and the BLAS threads beside them."""

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from judgestats import parallel


@pytest.fixture
def four_cores(monkeypatch):
    monkeypatch.setattr(parallel, "CORES", 4)
    monkeypatch.setattr(parallel, "THREADS", 4)


def test_thread_map_keeps_order_and_gives_blas_the_cores_its_workers_leave(
    four_cores, blas_thread_counts
):
    blas_threads = blas_thread_counts
    np.dot(np.ones((2, 2)), np.ones((2, 2)))  # BLAS loaded
    with threadpool_limits(limits=4, user_api="blas"):
        out = parallel.thread_map(lambda x: (x, blas_threads()), range(6))
        assert [x for x, _ in out] == list(range(6))
        assert all(seen == {1} for _, seen in out)  # four workers on four cores
        pair = parallel.thread_map(lambda x: blas_threads(), range(2))
        assert pair == [{2}, {2}]  # two workers leave two cores each
        assert blas_threads() == {4}  # the caller's limit comes back


def test_blas_threads_is_at_least_one(four_cores, blas_thread_counts):
    np.dot(np.ones((2, 2)), np.ones((2, 2)))
    with parallel.blas_threads(8):
        assert blas_thread_counts() == {1}
