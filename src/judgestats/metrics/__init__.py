"""Closed-form validation metrics and their frequentist intervals."""

from judgestats.metrics.formulas import METRICS, cohen_kappa, derive, krippendorff_alpha_nominal

__all__ = ["METRICS", "cohen_kappa", "derive", "krippendorff_alpha_nominal"]
