"""Simulation-based calibration (Talts et al. 2018) of the hierarchical tier.

If data are drawn from the model's prior and likelihood and the posterior is computed
correctly, the rank of the true value of any parameter among (nearly independent)
posterior draws is uniform. A skewed rank histogram shows a sampler or model that
is biased; a U shape, intervals too narrow; a hump, too wide.

The hierarchical tier builds its pattern trees, their split order and the trait
loadings from the data (:func:`~judgestats.models.layout.build_layout`). A calibration
needs one fixed model, so a *reference* dataset fixes them, with each judge's number
of items per (benchmark, label) cell. Per simulation:

1. every hyper-parameter is drawn from its prior (``pymc.sample_prior_predictive``
   of the built model: the likelihood potential is ignored there), each trait
   variance from its inverse-gamma prior and the judges' traits given it (the model
   integrates the variance out, so NUTS never sees it; its posterior draws come from
   :func:`~judgestats.models.conditionals.trait_spread_draws`);
2. every judge's split probabilities from their prior conditionals
   (:func:`~judgestats.models.conditionals.split_log_probabilities` with no items),
   and its items' verdict patterns from the tree, ``Multinomial(n, theta)``, the
   novel leaf included;
3. the model is refitted to these counts, the compiled sampler reused
   (``HierarchicalConfig.reuse_compiled``), and the rank of each true value among
   ``draws`` thinned posterior draws is recorded.

Parameters are the sampler's: the benchmark-mean logits ``eta`` of every split, the
level means and spread of the log pooling concentrations, the judges' offsets of
them (per benchmark), the trait spreads and the judges' traits (only those the data
can move: traits with loadings, spreads of benchmarks with a loaded trait).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import xarray as xr
from scipy import stats

from judgestats.models.base import FitData
from judgestats.models.conditionals import split_log_probabilities, trait_spread_draws
from judgestats.models.hierarchical import (
    HierarchicalConfig,
    build_pymc_model,
    count_data,
    offset_groups,
    trait_groups,
    trait_mask,
)
from judgestats.models.layout import Layout
from judgestats.models.sampling import SamplerSettings, compiled_models, sample

__all__ = ["BINS", "SBCResult", "rank_uniformity", "reference_cohort", "sbc_ranks"]

#: Bins of the rank histogram in :func:`rank_uniformity`.
BINS = 10
_GROUPS = ("eta", "log_kappa_level", "log_kappa_sd", "log_kappa_judge", "trait_sd", "trait")
#: Groups drawn by ``pymc.sample_prior_predictive``; the traits and their spreads are
#: drawn by :func:`_prior_traits`, the judges' pooling offsets by :func:`_prior_offsets`.
_SAMPLED = ("eta", "log_kappa_level", "log_kappa_sd", "log_kappa")


def reference_cohort(n_items: int = 40, runs: int = 2) -> xr.Dataset:
    """Return the default reference: 3 judges, one preference benchmark, both orders.

    Small on purpose: calibration matters most where the prior has a say.

    Parameters
    ----------
    n_items : int, default 40
    runs : int, default 2

    Returns
    -------
    xarray.Dataset
    """
    from judgestats.simulate import CohortConfig, JudgeParams, preference_benchmark, simulate

    bench = (preference_benchmark("pref", n_items, runs=runs),)
    judges = {
        f"judge-{i + 1}": {"pref": JudgeParams(agreement=a, position=0.05, stability=0.9)}
        for i, a in enumerate((0.7, 0.8, 0.9))
    }
    return simulate(CohortConfig.from_judges(judges, bench), random_seed=1).dataset


@dataclass(frozen=True)
class SBCResult:
    """Ranks of the true parameters among thinned posterior draws.

    Attributes
    ----------
    ranks : dict of str to ndarray, shape (simulation, parameter)
        By parameter group; ranks run from 0 to ``draws``.
    draws : int
        Thinned posterior draws each rank is taken among.
    divergences : ndarray, shape (simulation,)
        Divergent transitions of each refit.
    """

    ranks: dict[str, np.ndarray]
    draws: int
    divergences: np.ndarray


def _prior_traits(
    lay: Layout, config: HierarchicalConfig, n: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Draw ``n`` trait spreads and judge traits from the tier's prior.

    Returns
    -------
    spread : ndarray, shape (n, benchmark, trait)
        NaN for a trait that is no parameter of a benchmark.
    trait : ndarray, shape (n, judge, cell, trait)
        Centred over the judges of each cell, as the model has them.
    """
    mask = trait_mask(lay)
    group, n_groups = trait_groups(lay, mask)
    var, trait = _prior_centred(mask, group, n_groups, config.trait_scale, config, n, rng)
    used = np.bincount(group, minlength=n_groups) > 0
    spread = np.where(used, np.sqrt(var), np.nan).reshape(n, lay.n_benchmarks, -1)
    return spread, trait


def _prior_centred(
    mask: np.ndarray,
    group: np.ndarray,
    n_groups: int,
    scale: float,
    config: HierarchicalConfig,
    n: int,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """Draw ``n`` sets of centred, pooled judge parameters from their prior.

    The prior of :func:`judgestats.models.hierarchical._centred_student_t`, the
    variances drawn instead of integrated out.

    Returns
    -------
    var : ndarray, shape (n, group)
        The groups' variances, from ``InvGamma(trait_shape, scale)``.
    values : ndarray, shape (n, *mask.shape)
        Centred over the judges (``mask``'s first axis) that have an entry, 0 elsewhere.
    """
    var = scale / rng.gamma(config.trait_shape, size=(n, n_groups))
    u = np.zeros((n, *mask.shape))
    u[:, mask] = rng.normal(size=(n, group.size)) * np.sqrt(var[:, group])
    mean = u.sum(1, keepdims=True) / np.maximum(mask.sum(0), 1)
    return var, (u - mean) * mask


def _prior_offsets(
    lay: Layout, config: HierarchicalConfig, n: int, rng: np.random.Generator
) -> np.ndarray:
    """Draw ``n`` sets of the judges' pooling offsets from the tier's prior.

    Returns
    -------
    ndarray, shape (n, judge, benchmark)
        Centred over the judges of each benchmark, 0 where a judge has no items, as
        the model has them (:func:`~judgestats.models.hierarchical._judge_offsets`).
    """
    present, group, n_groups = offset_groups(lay)
    scale = config.judge_kappa_scale
    return _prior_centred(present, group, n_groups, scale, config, n, rng)[1]


def _simulate_counts(
    lay: Layout, prior: xr.Dataset, s: int, rng: np.random.Generator
) -> np.ndarray:
    """Entry counts of every judge for prior draw ``s`` (steps 1-2 of the module docs)."""
    eta = prior["eta"].values[s][None]
    trait = prior["trait"].values[s][None]
    log_kappa = prior["log_kappa"].values[s][None]
    offset = prior["log_kappa_judge"].values[s][None] if "log_kappa_judge" in prior else None
    empty = replace(lay, counts=np.zeros_like(lay.counts))
    log_v, log_1mv = split_log_probabilities(empty, eta, trait, log_kappa, rng, None, offset)
    entry_p = np.exp(lay.entry_log_prob(log_v, log_1mv))[0]  # (judge, entry)
    counts = np.zeros_like(lay.counts)
    for c, block in enumerate(lay.blocks):
        cols = lay.entries(c)
        theta = block.tree.leaf_probabilities(entry_p[:, cols])
        theta = theta / theta.sum(-1, keepdims=True)
        items = lay.cell_items[:, c].astype(np.int64)
        counts[:, cols] = block.tree.entry_counts(rng.multinomial(items, theta).astype(float))
    return counts


def _tracked(lay: Layout, draws: xr.Dataset) -> dict[str, np.ndarray]:
    """Tracked parameters of ``draws`` (first dim: the draws), by group, flattened."""
    mask = trait_mask(lay)  # (judge, cell, trait)
    loaded = np.zeros((lay.n_benchmarks, mask.shape[-1]), dtype=bool)
    for c, (b, _) in enumerate(lay.cells):
        loaded[b] |= mask[:, c, :].any(0)
    out = {}
    for name in _GROUPS:
        if name not in draws:  # the judges' offsets, in a model without them
            continue
        v = np.asarray(draws[name].values)
        if name == "trait":
            v = v[:, mask]
        elif name == "log_kappa_judge":
            v = v[:, lay.judge_in_benchmark]
        elif name == "trait_sd":
            v = v[:, loaded]
        out[name] = v.reshape(len(v), -1)
    return out


def sbc_ranks(
    reference: xr.Dataset,
    n_simulations: int,
    *,
    config: HierarchicalConfig | None = None,
    draws: int = 99,
    random_seed: int = 0,
) -> SBCResult:
    """Run the calibration on the model structure of ``reference``.

    Parameters
    ----------
    reference : xarray.Dataset
        A Judgments dataset: its pattern trees, loadings and item counts per judge and
        cell fix the model.
    n_simulations : int
    config : HierarchicalConfig, optional
        Priors and sampler settings (``reuse_compiled`` is switched on).
    draws : int, default 99
        Posterior draws each rank is taken among, thinned evenly from all chains.
    random_seed : int, default 0

    Returns
    -------
    SBCResult
    """
    import pymc as pm

    cfg = replace(config or HierarchicalConfig(), reuse_compiled=True)
    data = FitData.from_data(reference)
    built = build_pymc_model(data, cfg)
    lay = built.layout
    compiled_models.get(built.model, built.structure, built.data)  # compile once
    with built.model:
        prior = pm.sample_prior_predictive(
            draws=n_simulations, var_names=list(_SAMPLED), random_seed=random_seed
        )["prior"]
    prior = prior.isel(chain=0).to_dataset()
    rng = np.random.default_rng(random_seed)
    spread, trait = _prior_traits(lay, cfg, n_simulations, rng)
    prior["trait_sd"] = (("draw", "benchmark", "trait_name"), spread)
    prior["trait"] = (("draw", "judge", "cell", "trait_name"), trait)
    if cfg.judge_kappa_scale > 0:
        offsets = _prior_offsets(lay, cfg, n_simulations, rng)
        prior["log_kappa_judge"] = (("draw", "judge", "benchmark"), offsets)
    truth = _tracked(lay, prior)  # (simulation, parameter)
    ranks = {k: np.zeros_like(v, dtype=np.int64) for k, v in truth.items()}
    divergences = np.zeros(n_simulations, dtype=np.int64)
    settings = SamplerSettings.of(cfg)
    for s in range(n_simulations):
        counts = _simulate_counts(lay, prior, s, rng)
        values = count_data(replace(lay, counts=counts))
        idata = sample(built.model, built.structure, values, settings, random_seed + 1 + s)
        post = idata["posterior"].to_dataset()
        spreads = trait_spread_draws(lay, post, cfg.trait_shape, cfg.trait_scale, rng)
        post["trait_sd"] = (("chain", "draw", "benchmark", "trait_name"), spreads)
        post = post.stack(sample=("chain", "draw")).transpose("sample", ...)
        keep = np.linspace(0, post.sizes["sample"] - 1, draws).round().astype(int)
        tracked = _tracked(lay, post.isel(sample=keep))
        for k in ranks:
            ranks[k][s] = (tracked[k] < truth[k][s][None]).sum(0)
        divergences[s] = int(idata["sample_stats"]["diverging"].sum())
    return SBCResult(ranks, draws, divergences)


def rank_uniformity(result: SBCResult) -> dict[str, float]:
    """Chi-square p-value of each parameter's rank histogram, smallest per group.

    Each parameter's ranks over the simulations are binned into :data:`BINS` equal
    bins of ``0 .. draws`` and tested against the uniform distribution; per group the
    smallest p-value is returned, times the group's number of parameters (Bonferroni,
    capped at 1), so that a group passes at level ``a`` when its value exceeds ``a``.

    Parameters
    ----------
    result : SBCResult

    Returns
    -------
    dict of str to float
    """
    edges = np.linspace(0, result.draws + 1, BINS + 1)
    out = {}
    for group, r in result.ranks.items():
        if r.shape[1] == 0:
            continue
        p = [stats.chisquare(np.histogram(r[:, i], edges)[0]).pvalue for i in range(r.shape[1])]
        out[group] = float(min(1.0, np.min(p) * len(p)))
    return out
