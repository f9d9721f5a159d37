"""Posterior distributions of every validation metric: exact and hierarchical tiers.

PyMC is imported only when the hierarchical tier is fitted, so that reading logs
and the exact tier stay fast to import.
"""

from judgestats.models.base import (
    ConvergenceWarning,
    JudgeModel,
    MisfitWarning,
    load_posterior,
    save_posterior,
)
from judgestats.models.derived import DerivedConfig
from judgestats.models.exact import ExactConfig, ExactModel
from judgestats.models.hierarchical import HierarchicalConfig, HierarchicalModel
from judgestats.models.raters import rater_agreement
from judgestats.models.summary import DEFAULT_THRESHOLDS, diagnose, summarize

#: Model classes by the name stored in a posterior's attrs.
MODELS: dict[str, type[JudgeModel]] = {
    ExactModel.name: ExactModel,
    HierarchicalModel.name: HierarchicalModel,
}


def load(path):
    """Load a saved posterior and rebuild the model that made it.

    Parameters
    ----------
    path : str or Path
        A ``.nc`` or ``.zarr`` written by ``model.save`` or ``judgestats fit``.

    Returns
    -------
    JudgeModel
        With ``result`` set to the loaded posterior.
    """
    return JudgeModel.load(path)


__all__ = [
    "DEFAULT_THRESHOLDS",
    "MODELS",
    "ConvergenceWarning",
    "DerivedConfig",
    "ExactConfig",
    "ExactModel",
    "HierarchicalConfig",
    "HierarchicalModel",
    "JudgeModel",
    "MisfitWarning",
    "diagnose",
    "load",
    "load_posterior",
    "rater_agreement",
    "save_posterior",
    "summarize",
]
