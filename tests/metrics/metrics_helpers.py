"""Helpers of the metric tests: small Judgments datasets built by hand."""

from __future__ import annotations

from judgestats.schema import Verdict
from judgestats.testing import from_table, make_judgments

__all__ = ["INVALID", "MISSING", "TIE", "A", "B", "from_table", "make_ds", "reason_of", "value"]

A, B, TIE, INVALID, MISSING = Verdict.A, Verdict.B, Verdict.TIE, Verdict.INVALID, Verdict.MISSING


#: The builders live in judgestats.testing, for users' tests too.
make_ds = make_judgments


def value(result, metric: str, **sel) -> float:
    """The value of one metric of a one-judge, one-benchmark result."""
    return float(result.sel(metric=metric, **sel).value.squeeze())


def reason_of(result, metric: str, **sel) -> str:
    """The reason of one metric of a one-judge, one-benchmark result."""
    return str(result.sel(metric=metric, **sel).reason.squeeze().item())
