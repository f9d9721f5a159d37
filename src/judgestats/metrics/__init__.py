"""Closed-form validation metrics and their frequentist intervals.

:func:`compute_metrics` returns every metric per judge × benchmark (optionally per
order, run or category) as a :class:`MetricsResult`, with item-clustered bootstrap
intervals (or the Fleiss–Cohen–Everitt SE of kappa). By default every order and run
enters; ``protocol="agreement"`` keeps one verdict per item (original order, first
run). Invalid verdicts are a category of their own; undefined metrics are NaN with a
reason. :mod:`judgestats.metrics.api` says which judgments enter each metric.

Importing this package registers the ``ds.judgestats`` accessor.
"""

from judgestats.metrics import accessor as _accessor  # noqa: F401  (registers the accessor)
from judgestats.metrics.api import (
    ALL_FEATURES,
    BY,
    HUMAN,
    INTERVALS,
    PROTOCOLS,
    UNITS,
    bootstrap_replicates,
    compute_metrics,
    evaluate,
    exact_match,
    human_agreement,
    item_feature_array,
    kappa,
    kappa_se,
    position_bias,
    select_protocol,
    self_enhancement,
    test_retest,
    two_trial_accuracy,
    verbosity_bias,
)
from judgestats.metrics.api import METRICS as ALL_METRICS
from judgestats.metrics.bootstrap import percentile_interval, resample_weights
from judgestats.metrics.formulas import (
    METRICS,
    cohen_kappa,
    cohen_kappa_se,
    derive,
    krippendorff_alpha_nominal,
)
from judgestats.metrics.result import MetricsResult

__all__ = [
    "ALL_FEATURES",
    "ALL_METRICS",
    "BY",
    "HUMAN",
    "INTERVALS",
    "METRICS",
    "PROTOCOLS",
    "UNITS",
    "MetricsResult",
    "bootstrap_replicates",
    "cohen_kappa",
    "cohen_kappa_se",
    "compute_metrics",
    "derive",
    "evaluate",
    "exact_match",
    "human_agreement",
    "item_feature_array",
    "kappa",
    "kappa_se",
    "krippendorff_alpha_nominal",
    "percentile_interval",
    "position_bias",
    "resample_weights",
    "select_protocol",
    "self_enhancement",
    "test_retest",
    "two_trial_accuracy",
    "verbosity_bias",
]
