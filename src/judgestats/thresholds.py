"""The paper's thresholds: the one home of every default cut-off judgestats uses.

Seed 002 (§5.3) and the conventions it cites set the defaults; every config that
takes a threshold (:class:`judgestats.mvvp.MVVPConfig`,
:class:`judgestats.models.DerivedConfig`, the summaries'
:data:`judgestats.models.DEFAULT_THRESHOLDS`) reads its default from here.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PAPER", "Thresholds"]


@dataclass(frozen=True)
class Thresholds:
    """Default thresholds.

    Attributes
    ----------
    min_kappa : float
        0.40, "moderate" agreement on the Landis–Koch scale.
    max_position_bias : float
        0.10, the paper's limit on ``|P(first) - 0.5|``.
    min_test_retest : float
        0.80, Krippendorff's floor for reliable data (test-retest is his alpha).
    max_invalid_rate : float
        0.05, unparseable outputs a judge may give.
    max_rank_shift : float
        3 positions: seed 002 counts shifts of four or more as large.
    paradox_test_retest, paradox_position_bias : float
        0.95 and 0.10: the consistency-bias paradox.
    """

    min_kappa: float = 0.40
    max_position_bias: float = 0.10
    min_test_retest: float = 0.80
    max_invalid_rate: float = 0.05
    max_rank_shift: float = 3
    paradox_test_retest: float = 0.95
    paradox_position_bias: float = 0.10


#: The paper's values.
PAPER = Thresholds()
