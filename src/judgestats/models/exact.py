"""The exact tier: posterior draws without MCMC, in seconds.

Two methods, same output:

``"bootstrap"`` (default)
    The Bayesian bootstrap over items (Rubin 1981): each draw gives the items of a
    benchmark Dirichlet(1, ..., 1) weights, *shared by every judge and metric*, and
    each judge's expected item features are the weighted means of its items'
    features. An item keeps all its orders and runs, so replicate correlation is
    respected; judges rated on the same items keep their pairing, so ranks and rank
    shifts are not made noisier than they are.
``"dirichlet"``
    Conjugate Dirichlet posteriors, judge by judge: the distribution of an item's
    verdict pattern given its human label is Dirichlet(prior + counts), and the label
    shares of the benchmark are Dirichlet(prior + item counts). Independent across
    judges (no pairing), and it adds a prior; useful as a check of the bootstrap.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import xarray as xr

from judgestats.features import FEATURES
from judgestats.models.base import FitData, JudgeModel
from judgestats.tally import LABEL_CODES, BenchmarkTally

__all__ = ["ExactConfig", "ExactModel"]


@dataclass(frozen=True)
class ExactConfig:
    """Settings of the exact tier.

    Attributes
    ----------
    method : {"bootstrap", "dirichlet"}
        See the module docs.
    draws : int
        Draws per chain.
    chains : int
        Independent chains (the draws are independent; chains only let R-hat and
        ESS be computed as for MCMC).
    prior : float
        Total prior mass of the symmetric Dirichlet priors of the ``"dirichlet"``
        method (spread evenly over patterns and over labels).
    """

    method: str = "bootstrap"
    draws: int = 1000
    chains: int = 2
    prior: float = 1.0

    def __post_init__(self) -> None:
        if self.method not in ("bootstrap", "dirichlet"):
            raise ValueError(f"method={self.method!r}; use 'bootstrap' or 'dirichlet'")
        if self.draws < 1 or self.chains < 1:
            raise ValueError(f"draws={self.draws}, chains={self.chains}; both must be >= 1")
        if self.prior <= 0:
            raise ValueError(f"prior={self.prior}; must be positive")


def _item_features(bt: BenchmarkTally) -> np.ndarray:
    """Features of every (judge, item), zero where the judge has no verdict."""
    lab = np.array([LABEL_CODES.index(int(c)) for c in bt.item_label])
    f = bt.features[np.maximum(bt.item_pattern, 0), lab[None, :], :]
    return np.where((bt.item_pattern >= 0)[..., None], f, 0.0)


def _bootstrap(bt: BenchmarkTally, n: int, rng: np.random.Generator) -> np.ndarray:
    weights = rng.dirichlet(np.ones(len(bt.items)), size=n)  # (draw, item)
    f = _item_features(bt)  # (judge, item, feature)
    return np.einsum("di,jif->djf", weights, f, optimize=True)


def _dirichlet(bt: BenchmarkTally, n: int, rng: np.random.Generator, prior: float) -> np.ndarray:
    k = bt.patterns.shape[0]
    labels = bt.label_counts().astype(float)
    share = rng.dirichlet(labels + prior / len(labels), size=n)  # (draw, label)
    out = np.zeros((n, len(bt.judges), len(FEATURES)))
    for j in range(len(bt.judges)):
        for li in range(len(LABEL_CODES)):
            if labels[li] == 0:
                continue
            theta = rng.dirichlet(bt.counts[j, li] + prior / k, size=n)  # (draw, pattern)
            out[:, j] += share[:, li, None] * (theta @ bt.features[:, li, :])
    return out


class ExactModel(JudgeModel):
    """Exact-tier posterior of every metric (no MCMC).

    Parameters
    ----------
    config : ExactConfig, optional
    derived : DerivedConfig, optional

    Examples
    --------
    >>> from judgestats.models import ExactModel
    >>> model = ExactModel()
    >>> tree = model.fit(ds, random_seed=1)  # doctest: +SKIP
    >>> model.summary(var_names=["kappa"])  # doctest: +SKIP
    """

    name = "exact"
    default_config = ExactConfig()

    def _draw_features(
        self, data: FitData, rng: np.random.Generator, random_seed: int | None
    ) -> tuple[xr.DataArray, dict[str, xr.Dataset]]:
        cfg = self.config
        n = cfg.draws * cfg.chains
        out = np.full((n, len(data.judges), len(data.benchmarks), len(FEATURES)), np.nan)
        for b, bt in enumerate(data.tally):
            if cfg.method == "bootstrap":
                draws = _bootstrap(bt, n, rng)
            else:
                draws = _dirichlet(bt, n, rng, cfg.prior)
            idx = [data.judges.index(j) for j in bt.judges]
            out[:, idx, b, :] = draws
        arr = out.reshape(cfg.chains, cfg.draws, *out.shape[1:])
        features = xr.DataArray(
            arr,
            dims=("chain", "draw", "judge", "benchmark", "feature"),
            coords={
                "chain": np.arange(cfg.chains),
                "draw": np.arange(cfg.draws),
                "judge": list(data.judges),
                "benchmark": list(data.benchmarks),
                "feature": list(FEATURES),
            },
        )
        return features, {}
