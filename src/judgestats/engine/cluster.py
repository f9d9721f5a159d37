"""Connecting to a ``dask.distributed`` cluster, or starting one in this process.

dask is an optional dependency (``pip install judgestats[dask]``); it is imported
only here, and only when the dask engine is asked for.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

from judgestats.errors import JudgestatsError
from judgestats.parallel import CORES

__all__ = ["INSTALL_HINT", "DaskMissingError", "connect", "require_dask"]

#: What to run when dask is missing.
INSTALL_HINT = "pip install judgestats[dask]"
#: The environment variable (dask's own convention) naming a scheduler to connect to.
SCHEDULER_ENV = "DASK_SCHEDULER_ADDRESS"
#: How long to wait for a scheduler before saying it cannot be reached.
CONNECT_TIMEOUT = "10s"


class DaskMissingError(JudgestatsError, ImportError):
    """The dask engine was asked for but dask (or distributed) is not installed."""


def require_dask() -> Any:
    """Return the ``distributed`` module, or raise :class:`DaskMissingError` saying how.

    Raises
    ------
    DaskMissingError
        When ``dask[dataframe]`` or ``distributed`` cannot be imported.
    """
    try:
        import dask.dataframe  # noqa: F401  (the extra installs it; fail early if absent)
        import distributed
    except ImportError as exc:
        raise DaskMissingError(
            f"the dask engine needs dask and distributed ({exc}); install them with: {INSTALL_HINT}"
        ) from None
    return distributed


@contextlib.contextmanager
def connect(scheduler: Any = None) -> Iterator[Any]:
    """Yield a ``distributed.Client``: of ``scheduler``, of ``$DASK_SCHEDULER_ADDRESS``, or local.

    Parameters
    ----------
    scheduler : str or distributed.Client, optional
        A scheduler address (``tcp://host:8786``) or a client to use as it is. By
        default the address in ``DASK_SCHEDULER_ADDRESS``; without one, a cluster in
        this process (threads, one per core) that is closed on exit.

    Yields
    ------
    distributed.Client
    """
    distributed = require_dask()
    if isinstance(scheduler, distributed.Client):
        yield scheduler
        return
    address = scheduler or os.environ.get(SCHEDULER_ENV) or None
    if address:
        try:
            client = distributed.Client(address, timeout=CONNECT_TIMEOUT)
        except OSError as exc:
            raise JudgestatsError(
                f"cannot reach the dask scheduler at {address} ({exc}); start it (dask"
                f" scheduler) or fix --scheduler / {SCHEDULER_ENV}"
            ) from None
        with client:
            yield client
        return
    cluster = distributed.LocalCluster(
        n_workers=1,
        threads_per_worker=CORES,
        processes=False,
        dashboard_address=None,
    )
    with cluster, distributed.Client(cluster) as client:
        yield client
