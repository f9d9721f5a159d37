"""The hierarchical tier's draws after sampling: from hyper-parameters to item features.

NUTS samples the benchmark means, the judge traits and the pooling strengths with
every judge's split probabilities ``v`` integrated out
(:mod:`judgestats.models.hierarchical`). Per posterior draw this module then draws

1. the label shares of every benchmark (conjugate Dirichlet, shared by judges),
2. every judge's split probabilities from their exact Beta conditionals,
3. the judge's expected item features per (benchmark, label) cell, with the novel
   leaf's items following ``P_new ~ DP(prior, G0)``,

and summarises the pooling strengths per tree level for the ``hyper`` group. The
random draws are made in this order, chain by chain, so a seed gives the same
draws.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from judgestats.features import FEATURES
from judgestats.models.base import FitData
from judgestats.models.layout import Layout
from judgestats.models.prior import dp_feature_draws
from judgestats.models.traits import TRAITS
from judgestats.models.tree import LEVELS
from judgestats.tally import LABEL_NAMES

__all__ = [
    "expected_features",
    "hyper_dataset",
    "label_shares",
    "split_log_probabilities",
]

#: Log probabilities are clipped at this, so that a certain split (log 0 = -inf)
#: does not make -inf * 0 = NaN.
_LOG_FLOOR = -1e4


def _log_gamma_draw(shape: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Log of Gamma(shape) draws that stay finite for tiny shapes.

    ``Gamma(a) = Gamma(a + 1) * U ** (1 / a)``: drawing on the log scale keeps a rarely
    reached split (concentration far below one, no items of the judge) from
    underflowing to 0 / 0.
    """
    with np.errstate(divide="ignore"):
        return np.log(rng.gamma(shape + 1.0)) + np.log(rng.random(shape.shape)) / shape


def label_shares(
    data: FitData, n_chain: int, n_draw: int, rng: np.random.Generator
) -> list[np.ndarray]:
    """Draw the label shares of every benchmark, ``Dirichlet(1 + items per label)``.

    Parameters
    ----------
    data : FitData
    n_chain, n_draw : int
    rng : numpy.random.Generator

    Returns
    -------
    list of ndarray, shape (chain, draw, label)
        One per benchmark; labels without items get (almost) no share.
    """
    out = []
    for bt in data.tally:
        labels = bt.label_counts().astype(float)
        out.append(rng.dirichlet(labels + (labels > 0) + 1e-12, size=(n_chain, n_draw)))
    return out


def split_log_probabilities(
    lay: Layout,
    eta: np.ndarray,
    trait: np.ndarray,
    log_kappa: np.ndarray,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """Draw every judge's split probabilities from their Beta conditionals (one chain).

    ``v[j, s] ~ Beta(conc[s] mu[j, s] + succ[j, s], conc[s] (1 - mu[j, s]) + rest[j, s])``,
    drawn as two gammas on the log scale.

    Parameters
    ----------
    lay : Layout
    eta : ndarray, shape (draw, split)
        Benchmark-mean logits.
    trait : ndarray, shape (draw, judge, cell, trait)
        Judge traits.
    log_kappa : ndarray, shape (draw, split)
        Log pooling concentrations.
    rng : numpy.random.Generator

    Returns
    -------
    log_v, log_1mv : ndarray, shape (draw, judge, split)
        ``log v`` and ``log (1 - v)``, clipped below at :data:`_LOG_FLOOR`.
    """
    succ, rest = lay.split_counts(lay.counts)  # (judge, split)
    logit = np.repeat(eta[:, None, :], lay.counts.shape[0], axis=1)
    for t in range(len(TRAITS)):  # one trait at a time bounds memory
        logit += trait[:, :, lay.split_cell, t] * lay.loadings[:, t]
    log_mu, log_1mmu = -np.logaddexp(0, -logit), -np.logaddexp(0, logit)
    log_conc = (
        log_kappa[:, None, :]
        + lay.split_mass(-np.logaddexp(0, -eta), -np.logaddexp(0, eta))[:, None, :]
    )
    lg1 = _log_gamma_draw(np.exp(log_conc + log_mu) + succ[None], rng)
    lg2 = _log_gamma_draw(np.exp(log_conc + log_1mmu) + rest[None], rng)
    log_total = np.logaddexp(lg1, lg2)
    return np.maximum(lg1 - log_total, _LOG_FLOOR), np.maximum(lg2 - log_total, _LOG_FLOOR)


def _cell_features(
    lay: Layout,
    data: FitData,
    cell: int,
    entry_p: np.ndarray,
    prior: float,
    rng: np.random.Generator,
) -> np.ndarray:
    """Return the expected item features of the judges of a cell's benchmark (one chain).

    Parameters
    ----------
    lay : Layout
    data : FitData
    cell : int
    entry_p : ndarray, shape (draw, judge, entry)
        Within-node probability of every entry, all cells.
    prior : float
        Concentration of the novel leaf's Dirichlet process.
    rng : numpy.random.Generator

    Returns
    -------
    ndarray, shape (draw, judge of the benchmark, feature)
    """
    block = lay.blocks[cell]
    bt = data.tally[data.benchmarks[block.benchmark]]
    rows = [data.judges.index(j) for j in bt.judges]
    theta = block.tree.leaf_probabilities(entry_p[:, rows, lay.entries(cell)])
    base = lay.bases[block.benchmark]
    novel = dp_feature_draws(  # the novel leaf's items: P_new ~ DP(alpha, G0)
        base.features[:, block.label, :], base.prob, theta.shape[:2], prior, rng
    )
    return theta[..., :-1] @ bt.features[:, block.label, :] + theta[..., -1:] * novel


def expected_features(
    lay: Layout,
    data: FitData,
    posterior: xr.Dataset,
    prior: float,
    rng: np.random.Generator,
) -> np.ndarray:
    """Return the expected item features of every judge and benchmark, per draw.

    Parameters
    ----------
    lay : Layout
    data : FitData
    posterior : xarray.Dataset
        NUTS draws of ``eta``, ``trait`` and ``log_kappa``.
    prior : float
        Concentration of the novel leaf's Dirichlet process.
    rng : numpy.random.Generator

    Returns
    -------
    ndarray, shape (chain, draw, judge, benchmark, feature)
        NaN where a judge has no items in a benchmark.
    """
    n_chain, n_draw = posterior.sizes["chain"], posterior.sizes["draw"]
    eta = posterior["eta"].values  # (chain, draw, split)
    trait = posterior["trait"].values  # (chain, draw, judge, cell, trait)
    log_kappa = posterior["log_kappa"].values  # (chain, draw, split)
    out = np.full((n_chain, n_draw, len(data.judges), len(data.benchmarks), len(FEATURES)), np.nan)
    shares = label_shares(data, n_chain, n_draw, rng)
    for bi, bt in enumerate(data.tally):
        out[:, :, [data.judges.index(j) for j in bt.judges], bi, :] = 0.0
    for ch in range(n_chain):  # one chain at a time bounds memory
        log_v, log_1mv = split_log_probabilities(lay, eta[ch], trait[ch], log_kappa[ch], rng)
        entry_p = np.exp(lay.entry_log_prob(log_v, log_1mv))  # (draw, judge, entry)
        chain_out = out[ch]  # a view: (draw, judge, benchmark, feature)
        for c, (bi, li) in enumerate(lay.cells):
            rows = [data.judges.index(j) for j in data.tally[data.benchmarks[bi]].judges]
            expected = _cell_features(lay, data, c, entry_p, prior, rng)
            chain_out[:, rows, bi, :] += shares[bi][ch, :, li, None, None] * expected
    return out


def hyper_dataset(lay: Layout, data: FitData, posterior: xr.Dataset) -> xr.Dataset:
    """Pooling strengths per tree level and trait spreads, for the ``hyper`` group.

    Parameters
    ----------
    lay : Layout
    data : FitData
    posterior : xarray.Dataset
        NUTS draws of ``log_kappa`` and ``trait_sd``.

    Returns
    -------
    xarray.Dataset
        ``pooling_concentration (chain, draw, benchmark, label, level)``: the geometric
        mean of the concentrations of a level's splits; ``trait_spread (chain, draw,
        benchmark, trait)``.
    """
    log_kappa = posterior["log_kappa"].values
    n_chain, n_draw = posterior.sizes["chain"], posterior.sizes["draw"]
    pooling = np.full(
        (n_chain, n_draw, len(data.benchmarks), len(LABEL_NAMES), len(LEVELS)), np.nan
    )
    for c, (bi, li) in enumerate(lay.cells):
        for level in range(len(LEVELS)):
            mask = (lay.split_cell == c) & (lay.split_level == level)
            if mask.any():
                pooling[:, :, bi, li, level] = np.exp(log_kappa[..., mask].mean(-1))
    return xr.Dataset(
        {
            "pooling_concentration": (("chain", "draw", "benchmark", "label", "level"), pooling),
            "trait_spread": (("chain", "draw", "benchmark", "trait"), posterior["trait_sd"].values),
        },
        coords={
            "chain": np.arange(n_chain),
            "draw": np.arange(n_draw),
            "benchmark": list(data.benchmarks),
            "label": list(LABEL_NAMES),
            "level": list(LEVELS),
            "trait": list(TRAITS),
        },
    )
