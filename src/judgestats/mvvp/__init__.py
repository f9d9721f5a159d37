"""The Minimum Viable Validation Protocol (MVVP): five steps, each with a verdict.

From "Reliability without Validity" (seed 002, §5.3): before trusting an LLM judge,
(1) chance-correct its agreement, (2) swap the positions of the responses, (3)
replicate its runs, (4) cross-validate it on contrasting benchmarks and (5) audit
the consistency-bias paradox. :func:`check` reads a posterior and says, per judge
(and benchmark), PASS, FAIL, INCONCLUSIVE or NOT MEASURED with the interval and
probability behind it; the rules are in :mod:`judgestats.mvvp.check`.

Examples
--------
>>> from judgestats import mvvp
>>> from judgestats.models import ExactModel
>>> from judgestats.simulate import simulate, small_cohort
>>> ds = simulate(small_cohort(), random_seed=0).dataset
>>> result = mvvp.check(ExactModel().fit(ds, random_seed=0), ds)
>>> result.worst("Qwen 3 8B").value
'FAIL'
"""

from judgestats.mvvp.check import MVVPConfig, check, interval_verdict, probability_verdict
from judgestats.mvvp.design import Design
from judgestats.mvvp.result import (
    QUANTITY_LABELS,
    Estimate,
    MVVPResult,
    Step,
    StepResult,
    StepVerdict,
    Threshold,
    format_estimate,
)

__all__ = [
    "QUANTITY_LABELS",
    "Design",
    "Estimate",
    "MVVPConfig",
    "MVVPResult",
    "Step",
    "StepResult",
    "StepVerdict",
    "Threshold",
    "check",
    "format_estimate",
    "interval_verdict",
    "probability_verdict",
]
