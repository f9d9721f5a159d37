"""The dask engine: reading and tallying logs beyond one machine's memory.

:func:`read_logs_dask` parses files on the workers of a ``dask.distributed``
cluster, tallies partitions of whole items there and sums the partial tallies and
accountings; the models only ever see the counts. Install with
``pip install judgestats[dask]``; dask is imported only when the engine runs.
"""

from judgestats.engine.cluster import INSTALL_HINT, DaskMissingError, connect, require_dask
from judgestats.engine.read import DaskRead, read_logs_dask

__all__ = [
    "INSTALL_HINT",
    "DaskMissingError",
    "DaskRead",
    "connect",
    "read_logs_dask",
    "require_dask",
]
