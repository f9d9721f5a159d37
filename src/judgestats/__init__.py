"""judgestats: can this LLM judge be trusted? Credible intervals instead of point estimates.

Read logs of any format with :func:`read_logs`, compute closed-form metrics with
:func:`compute_metrics` (or the ``ds.judgestats`` accessor), fit posteriors with
:mod:`judgestats.models`, check the Minimum Viable Validation Protocol with
:func:`judgestats.mvvp.check` and write reports with :mod:`judgestats.report`.
PyMC is imported only when a hierarchical model is fitted.
"""

from importlib.metadata import PackageNotFoundError, version

from judgestats import metrics, schema
from judgestats.accounting import ImportReport, Reject
from judgestats.errors import (
    JudgestatsError,
    LogFormatError,
    NoImporterError,
    NotEstimableError,
    SchemaError,
)
from judgestats.io import load, read_logs, save
from judgestats.metrics import MetricsResult, compute_metrics
from judgestats.schema import Verdict
from judgestats.tally import tally

try:
    __version__ = version("judgestats")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"

__all__ = [
    "ImportReport",
    "JudgestatsError",
    "LogFormatError",
    "MetricsResult",
    "NoImporterError",
    "NotEstimableError",
    "Reject",
    "SchemaError",
    "Verdict",
    "__version__",
    "compute_metrics",
    "load",
    "metrics",
    "read_logs",
    "save",
    "schema",
    "tally",
]
