"""A crossed judge x item likelihood against the hierarchical tier's, on shared items.

The hierarchical tier's likelihood treats the judges of a benchmark as independent
given the hyper-parameters (one beta-binomial term per (judge, split), every judge's
pattern distribution integrated out), and pairs them afterwards through the items
they rated (:mod:`judgestats.models.conditionals`). This script builds the model
that knows the items instead, and measures what it costs on one replicate of
:func:`judgestats.simulate.shared_difficulty_cohort`:

* every item ``i`` of a (benchmark, label) cell ``c`` has an effect
  ``b_i ~ Normal(0, 1)`` shared by every judge who rated it; a judge's pattern
  distribution on the item is its own tilted along the cell's trait features by
  ``b_i * loading[c]`` (``loading[c, t] ~ Normal(0, 2)``, the first loaded trait of a
  cell half-normal: the sign of ``b`` and ``loading`` is one symmetry);
* every judge keeps a residual per split, now explicit:
  ``logit v[j, s] = tilt + z[j, s] sd[j, s]``, ``z ~ Normal(0, 1)`` with
  ``sd^2 = 1 / (conc mu (1 - mu))`` (the logit variance of the tier's
  ``Beta(conc mu, conc (1 - mu))`` at large concentrations; bounded by e^6), with
  the tier's own pooling strengths, traits and benchmark means
  (:func:`~judgestats.models.hierarchical.pooled_parameters`); a judge's residual
  at a split its items never reach is no parameter (its posterior is its prior);
* ``b`` is integrated out item by item by Gauss-Hermite quadrature (7 nodes), and
  the items with the same patterns of every judge (a joint row) enter once,
  weighted by their number: ``sum_rows m log sum_q w_q prod_j P(pattern_j | b_q)``.

Measured on this machine (data seed 1000, 8 judges, 650 items, 2 cores), one run
(``--sample 400 400``): the crossed model has 3,327 free parameters against 1,688,
and one gradient costs 15.8 times the tier's (3.66 ms against 0.23 ms). Sampled with
nutpie (2 chains, 400 tuning steps and 400 draws, seed 1), the tier took 17.8 s,
45 leapfrog steps per draw, R-hat at most 1.029 (``eta``) and 1.026 (``trait``); the
crossed model 1,339 s, 258 steps per draw (step size 0.046), no divergence, and its
chains did not agree: R-hat up to 1.46 for ``eta``, 1.71 for ``trait``, 1.25 for
the residuals, 1.20 for the judges' pooling offsets, bulk ESS down to 3. An earlier
form of it, with a residual for every (judge, split) of a judge's benchmarks
(6,832 parameters, 3.46 ms per gradient), took 846.5 s, 127 steps per draw, R-hat up
to 1.58; without the half-normal first loading (100 tuning steps and draws) the
loadings' R-hat was 1.89.

Without the residuals (``--residual none``: every judge exactly its traits' tilt of the
benchmark mean at each item effect; 1,736 free parameters, 3.73 ms per gradient),
the chains agree: 660.1 s, 207 steps per draw (step size 0.107), R-hat at most
1.021 (``eta``), 1.016 (``trait``), 1.015 (loadings), bulk ESS at least 159. The
residuals are what breaks the mixing; without them judges differ only in their
six traits, and every difference between judges' pattern frequencies that the
traits do not carry is lost (the tier pools it, through its residual).

Residuals orthogonal to each cell's trait loadings (``--residual orthogonal``, the
linearised trade-off with the traits removed; 4.33 ms per gradient, 18.2 times the
tier's in that run) did not help: 988.8 s, 127 steps per draw, 2 divergent, R-hat
up to 1.96 (``trait``), 1.85 (the judges' pooling offsets), 1.68 (residuals), 1.41
(``eta``).

Nor did centring them where the data pin them (``--residual centred``: the centred
form at the 300 (judge, split) pairs with at least :data:`CENTRED_FROM` items, the
non-centred at the other 1,291; 5.0 ms per gradient, 17.3 times the tier's in that
run): 1,322.8 s, 224 steps per draw, no divergence, R-hat up to 1.55 (``trait``),
1.49 (residuals), 1.16 (``eta``). So the residuals' non-centred scale is not the
cause. Where the chains disagree was read off the draws of a shorter run
(``--sample 200 200 --residual centred --save FILE``; 929 s, R-hat up to 1.25): of
the 24 residuals with R-hat above 1.05, 22 belong to the cohort's two
near-deterministic, position-biased judges (``first-slot`` and ``second-slot``), as
do 27 of the 40 traits above 1.05 and 4 of the 5 largest R-hats of the judges'
pooling offsets (1.08-1.11). Such a judge's items sit on one side of most of its
splits, the likelihood is nearly flat in the direction that pushes them further,
and its traits (through the exact tilt) and its residuals both push that way; the
priors alone place it along a curved valley (a reading consistent with those
figures, not measured apart). The tier integrates that residual out, exact at any
count: with 400 tuning steps and draws its R-hat is at most 1.029 (with 200, as in
that shorter run, up to 1.095 for the traits).

Without those two judges (``--ordinary-only``: 6 judges, 2,950 free parameters,
3.17 ms per gradient, 13.9 times the tier's) the explicit residuals nearly mix:
1,247.9 s, 289 steps per draw, no divergence, R-hat up to 1.14 (4 of 1,354
residuals above 1.05), 1.12 (``eta``, 7 of 637 above 1.05, all at the tree's
decision level) and 1.10 (8 traits), bulk ESS down to 11; the tier: 20.2 s, 32 steps
per draw, R-hat at most 1.035. So the crossed model fails first on the judges the
protocol exists to catch, and costs about 60 times the tier's sampling time on the
others.

Leaving out the residuals where all of a judge's items at a split take one side
(``--residual two-sided``, otherwise as ``centred``: 868 of the 1,591 pairs, 83 of
them with 20 items or more; 2,459 free parameters, 4.53 ms per gradient, 19.0 times
the tier's) more than halved the steps, 752.9 s and 99 per draw, no divergence, but
the chains still disagree: R-hat up to 1.28 (traits and residuals), 1.09 (``eta``,
the judges' pooling offsets). Of the 20 residuals with R-hat above 1.05, 12 belong
to the two near-deterministic judges and 7 to the judge run twice (``judge-01``);
of the 25 traits, 14 and 5. That variant is another model, too: a judge's
probability at a split its items never leave is its traits' alone.

A tighter soft bound on the residuals' log variance did most
(``--residual centred --max-log-variance 2``: a residual's sd at most e, about 2.7
on the logit scale, against e^3, about 20): 461.7 s, 63 steps per draw, R-hat up to
1.051 (traits), 1.084 (residuals) and 1.087 (``eta``), but 1.114 for the judges'
pooling offsets (above 1.06 for 5 of the 8 judges on the correctness benchmark,
``jb``), and 5 divergent transitions, all in one chain. Consistent with it: a
near-deterministic judge's pooling offset lets its residuals' scale grow to the
bound, and its residuals then wander where the likelihood is flat; bounded lower,
they cannot, but where the bound binds the offsets no longer reach the likelihood,
and the residuals' variance is no longer the tier's beta's. A residual whose scale
follows the data where a judge's verdicts are nearly certain, without a bound that
cuts the offsets loose, is what is missing. Not the offsets themselves: left out of
the residuals' scale (``--residual centred --no-judge-scale``, bound e^6) the chains
disagreed more, 631.4 s, 65 steps per draw, 1 divergent, R-hat up to 1.94
(``eta``), 1.88 (traits, 132 above 1.05, of every judge) and 1.85 (residuals).

A bound that tapers instead of cutting (``--max-log-variance 2 --variance-slope
0.25``: beyond the bound the log variance still grows, a quarter as fast, so the
offsets keep a gradient) was worse than the bound: 1,899.8 s, 318 steps per draw,
9 divergent, R-hat up to 1.95 (residuals), 1.90 (traits), 1.37 (``eta``), 1.30
(the judges' pooling offsets).

The tier's own residual, explicit (``--residual beta``: ``v ~ Beta(conc mu, conc (1 -
mu))``, the Beta whose integral the tier's beta-binomial terms are, drawn as a ratio of
gammas, each ``G ~ Gamma(k)`` written ``H exp(-E / k)`` with ``H ~ Gamma(k + 1)`` and
``E ~ Exp(1)``, :func:`gamma_ratio_logit`, so that the nearly flat tail of ``logit v`` at
a small shape ``k`` becomes ``E``'s exponential one; 8,100 free parameters, 4.0 ms per
gradient, 14.5 times the tier's) was far worse: 3,625 s, 874 leapfrog steps per draw
(one chain at the tree depth limit, 1,023, on every draw), step size 0.001, 140
divergent transitions (all in the other chain), R-hat 2.2-3.05 for every group of
parameters, bulk ESS 2. The shapes ``k`` follow the pooling strengths and the traits,
and where ``k`` is small ``log G`` moves by ``E / k`` per unit of ``log k``: the tail
is gone, but the residual's dependence on the hyper-parameters is far more curved than
that tail was (a reading consistent with the step size, not measured apart).

The likelihood itself is right (``tests/benchmarks/test_bench_item_effects.py``:
with 41 nodes it matches adaptive quadrature item by item to 1e-6), but 7 nodes
are not enough where the loadings are about 1 per sd of a trait's feature: 0.49
log units off of 473 on 65 items.

What it says. The tier's likelihood cannot be swapped for an item-level one at the
same cost: the explicit residuals multiply the parameters by two, the quadrature
the trait tilts by seven, and where a judge's verdicts are nearly deterministic its
residuals and traits both push the same saturated splits, which the tier avoids by
integrating the residual out. A crossed model would need its own compiled kernel
(as :mod:`judgestats.models.kernels` is for the tier) and a residual that mixes for
near-deterministic judges (one whose scale follows the data there without a bound
that leaves the pooling offsets unseen) before its calibration can be measured.

Run: ``.venv/bin/python benchmarks/bench_item_effects.py [--sample DRAWS TUNE]
[--residual explicit|orthogonal|centred|two-sided|beta|none] [--ordinary-only]
[--max-log-variance V] [--variance-slope S] [--no-judge-scale] [--save FILE]``
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import numpy as np

from judgestats.models import HierarchicalConfig
from judgestats.models.base import FitData
from judgestats.models.hierarchical import (
    build_pymc_model,
    count_data,
    pooled_parameters,
    trait_mask,
)
from judgestats.models.layout import Layout, apply_pt, build_layout
from judgestats.models.sampling import SamplerSettings, sample
from judgestats.simulate import shared_difficulty_cohort, simulate
from judgestats.tally import LABEL_CODES

#: Largest log variance of a residual's logit (a soft bound).
MAX_LOG_VARIANCE = 6.0

#: Items through a split from which ``--residual centred`` (and ``two-sided``) gives a
#: judge's residual there in the centred form.
CENTRED_FROM = 20


def quadrature(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Hermite nodes (the middle one 0) and log weights for E over Normal(0, 1)."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(n)
    nodes[n // 2] = 0.0
    return nodes, np.log(weights / weights.sum())


@dataclass(frozen=True)
class JointRows:
    """Distinct joint rows of every cell: flat (judge, leaf) positions and multiplicities."""

    index: np.ndarray  # (row, slot); n_judges * n_leaves for "not rated"
    weight: np.ndarray  # (row,)

    @classmethod
    def of(cls, lay: Layout, data: FitData) -> JointRows:
        n_judges, n_leaves = lay.counts.shape[0], len(lay.leaf_cell)
        empty = n_judges * n_leaves
        width = max(len(data.rows(b)) for b in range(len(data.benchmarks)))
        parts, weights = [], []
        for c, block in enumerate(lay.blocks):
            bt = data.tally[data.benchmarks[block.benchmark]]
            rows = np.asarray(data.rows(block.benchmark), dtype=np.int64)
            pattern = bt.item_pattern[:, bt.item_label == LABEL_CODES[block.label]]
            unique, counts = np.unique(pattern.T, axis=0, return_counts=True)
            index = np.full((len(unique), width), empty, dtype=np.int64)
            flat = rows[None, :] * n_leaves + lay.leaf_offset[c] + unique
            index[:, : len(rows)] = np.where(unique >= 0, flat, empty)
            keep = (unique >= 0).any(1)
            parts.append(index[keep])
            weights.append(counts[keep].astype(float))
        return cls(np.concatenate(parts), np.concatenate(weights))


def crossed_model(
    data: FitData,
    config: HierarchicalConfig,
    n_nodes: int,
    item_sigma: float,
    residual: str = "explicit",
    max_log_variance: float = MAX_LOG_VARIANCE,
    judge_scale: bool = True,
    variance_slope: float = 0.0,
):
    """The crossed judge x item model of the module docs (a PyMC model).

    ``residual="none"`` leaves the judges' residuals out: every judge's pattern
    distribution is its traits' tilt of the benchmark mean (at each item effect).
    ``"orthogonal"`` keeps of every judge's residuals (per cell, over its splits)
    only what is orthogonal to the cell's trait loadings, the directions in which
    the traits move the splits' log-odds near the cell's mean. ``"centred"`` gives
    the residuals at (judge, split) pairs with at least :data:`CENTRED_FROM` items the
    centred form, ``"two-sided"`` as well but leaves out those where all of a judge's
    items take one side of the split. ``"beta"`` draws every judge's split
    probability ``v`` from the tier's own ``Beta(conc mu, conc (1 - mu))`` (through
    :func:`gamma_ratio_logit`), its logit moved at an item effect as the mean's is.
    ``max_log_variance`` softly bounds a residual's log variance (normal residuals):
    beyond it the log variance grows by ``variance_slope`` per unit of its unbounded
    value (0: a bound); ``judge_scale=False`` leaves the judges' pooling offsets out of
    the residuals' scale.
    """
    import pymc as pm
    import pytensor.tensor as pt

    lay = build_layout(data, config.rare_per_judge)
    mask = trait_mask(lay)
    rows = JointRows.of(lay, data)
    n_judges, n_splits = lay.counts.shape[0], lay.n_splits
    pairs = count_data(lay)  # the (judge, split) pairs with items, as the tier's terms
    reached = pairs["pair_judge"] * n_splits + pairs["pair_split"]
    with pm.Model() as model:
        pooled = pooled_parameters(lay, mask, config)
        loaded = mask.any(0)  # (cell, trait)
        lead = loaded & (np.cumsum(loaded, 1) == 1)
        other = loaded & ~lead
        sigma = config.prior_scale * item_sigma
        flat = pt.zeros(loaded.size)
        flat = flat[np.flatnonzero(lead.ravel())].set(
            pm.HalfNormal("item_loading_lead", sigma, shape=int(lead.sum()))
        )
        flat = flat[np.flatnonzero(other.ravel())].set(
            pm.Normal("item_loading_u", 0.0, sigma, shape=int(other.sum()))
        )
        loading = pm.Deterministic("item_loading", flat.reshape(loaded.shape))
        log_conc = pooled.log_conc[None, :] + (
            pooled.judge_offset[:, lay.split_benchmark] if judge_scale else 0.0
        )
        nodes, log_w = quadrature(n_nodes)
        log_p = lay.leaf_log_prob(pooled.log_mu, pooled.log_1mmu, apply=apply_pt)[None, :]
        node_trait = pooled.trait[None] + nodes.reshape(-1, 1, 1, 1) * loading[None, None]
        logit = lay.tilted_logits(log_p, node_trait, apply=apply_pt)  # (node, judge, split)
        mean = logit[n_nodes // 2]
        raw = -(log_conc - pt.softplus(-mean) - pt.softplus(mean))
        log_var = raw - (1.0 - variance_slope) * pt.softplus(raw - max_log_variance)
        sd = pt.exp(0.5 * log_var).ravel()
        if residual not in ("none", "beta"):
            pm.Deterministic("residual_sd", sd[reached])
        r = pt.zeros(n_judges * n_splits)
        if residual in ("centred", "two-sided"):
            # Centred where the data pin the residual, non-centred where they cannot;
            # "two-sided": none where all of a judge's items at a split take one side.
            many = pairs["succ"] + pairs["rest"] >= CENTRED_FROM
            two_sided = (pairs["succ"] > 0) & (pairs["rest"] > 0)
            kept = two_sided if residual == "two-sided" else np.ones_like(many)
            rich, poor = reached[many & kept], reached[~many & kept]
            r = r[rich].set(pm.Normal("residual", 0.0, sd[rich], shape=len(rich)))
            z_poor = pm.Normal("residual_z", 0.0, 1.0, shape=len(poor))
            r = r[poor].set(z_poor * sd[poor])
        elif residual == "beta":
            # The tier's own residual, v ~ Beta(conc mu, conc (1 - mu)), as a ratio of
            # gammas, each G ~ Gamma(k) written H exp(-E / k) with H ~ Gamma(k + 1),
            # E ~ Exp(1): the small-shape tail of log G becomes E's exponential one.
            conc = pt.exp(log_conc).ravel()[reached]
            mu = pt.sigmoid(mean).ravel()[reached]
            shape = pt.stack([conc * mu, conc * (1.0 - mu)])
            e = pm.Exponential("residual_e", 1.0, shape=(2, len(reached)))
            h = pm.Gamma("residual_h", alpha=shape + 1.0, beta=1.0, shape=(2, len(reached)))
            r = r[reached].set(gamma_ratio_logit(shape, pt.log(h), e) - mean.ravel()[reached])
        elif residual != "none":
            z_free = pm.Normal("residual_z", 0.0, 1.0, shape=len(reached))
            r = r[reached].set(z_free * sd[reached])
        r = r.reshape((n_judges, n_splits))
        if residual == "orthogonal":
            r = pt.dot(r, _orthogonal_to_loadings(lay))
        shifted = logit + r[None]
        leaf = lay.leaf_log_prob(-pt.softplus(-shifted), -pt.softplus(shifted), apply=apply_pt)
        padded = pt.concatenate([leaf.reshape((n_nodes, -1)), pt.zeros((n_nodes, 1))], axis=1)
        per_node = padded[:, rows.index].sum(-1) + log_w[:, None]
        pm.Potential("items", pt.dot(pt.logsumexp(per_node, axis=0), rows.weight))
    return model


def gamma_ratio_logit(shape, log_h, e):
    """``logit(G_0 / (G_0 + G_1))``, ``G_k = H_k exp(-E_k / shape_k) ~ Gamma(shape_k)``.

    With ``H_k ~ Gamma(shape_k + 1)`` and ``E_k ~ Exp(1)`` (so ``exp(-E_k)`` is uniform),
    ``H_k exp(-E_k / shape_k)`` is ``Gamma(shape_k)`` (Marsaglia and Tsang 2000), and the
    ratio is ``Beta(shape_0, shape_1)``. Numpy arrays or PyTensor tensors, first axis 2.
    """
    return (log_h[0] - e[0] / shape[0]) - (log_h[1] - e[1] / shape[1])


def _orthogonal_to_loadings(lay: Layout) -> np.ndarray:
    """(split, split): per cell, the projection orthogonal to its trait loadings."""
    out = np.eye(lay.n_splits)
    for c in range(len(lay.blocks)):
        at = np.flatnonzero(lay.split_cell == c)
        loadings = lay.loadings[at]
        out[np.ix_(at, at)] -= loadings @ np.linalg.pinv(loadings)
    return out


def _gradient_ms(model, repeats: int) -> tuple[int, float]:
    """Free parameters, and milliseconds per gradient (numba backend, best of 3)."""
    fn = model.compile_fn(model.dlogp(), mode="NUMBA")
    point = model.initial_point()
    fn(point)
    best = np.inf
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(repeats):
            fn(point)
        best = min(best, (time.perf_counter() - start) / repeats)
    return int(sum(v.size for v in point.values())), 1e3 * best


def _sampled(
    model, structure: str, config: HierarchicalConfig, seed: int, save: str | None = None
) -> None:
    import arviz as az

    start = time.perf_counter()
    idata = sample(model, structure, {}, SamplerSettings.of(config), seed)
    seconds = time.perf_counter() - start
    if save:
        idata.to_netcdf(save)
    stats = idata["sample_stats"].to_dataset()
    post = idata["posterior"].to_dataset()
    print(
        f"  {seconds:.1f} s, {float(stats['n_steps'].mean()):.0f} leapfrog steps per draw, "
        f"step size {float(stats['step_size'].mean()):.3f}, "
        f"{int(stats['diverging'].sum())} divergent"
    )
    for name in post.data_vars:
        rhat = az.rhat(post[[name]])[name].values
        ess = az.ess(post[[name]])[name].values
        print(f"  {name:<18s} R-hat max {np.nanmax(rhat):.3f}  bulk ESS min {np.nanmin(ess):.0f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1000, help="data seed")
    parser.add_argument("--nodes", type=int, default=7, help="quadrature nodes (odd)")
    parser.add_argument("--repeats", type=int, default=50, help="gradients timed")
    parser.add_argument(
        "--sample", type=int, nargs=2, metavar=("DRAWS", "TUNE"), help="also sample both"
    )
    parser.add_argument(
        "--residual",
        choices=("explicit", "orthogonal", "centred", "two-sided", "beta", "none"),
        default="explicit",
        help="the judges' residuals (see crossed_model)",
    )
    parser.add_argument("--save", help="write the crossed model's draws here (netCDF)")
    parser.add_argument(
        "--no-judge-scale",
        action="store_true",
        help="the residuals' scale without the judges' pooling offsets",
    )
    parser.add_argument(
        "--max-log-variance",
        type=float,
        default=MAX_LOG_VARIANCE,
        help="soft bound of a residual's log variance",
    )
    parser.add_argument(
        "--variance-slope",
        type=float,
        default=0.0,
        help="slope of a residual's log variance beyond the bound (0: a bound)",
    )
    parser.add_argument(
        "--ordinary-only",
        action="store_true",
        help="leave out the cohort's two near-deterministic judges (the last two)",
    )
    args = parser.parse_args()
    dataset = simulate(shared_difficulty_cohort(), random_seed=args.seed).dataset
    if args.ordinary_only:
        dataset = dataset.isel(judge=slice(None, -2))
    data = FitData.from_data(dataset)
    draws, tune = args.sample or (1000, 400)
    config = HierarchicalConfig(draws=draws, tune=tune)
    tier = build_pymc_model(data, config)
    crossed = crossed_model(
        data,
        config,
        args.nodes,
        2.0,
        residual=args.residual,
        max_log_variance=args.max_log_variance,
        variance_slope=args.variance_slope,
        judge_scale=not args.no_judge_scale,
    )
    n_tier, ms_tier = _gradient_ms(tier.model, args.repeats)
    n_crossed, ms_crossed = _gradient_ms(crossed, args.repeats)
    print(f"tier:    {n_tier:>6d} free parameters, {ms_tier:.3f} ms per gradient")
    print(f"crossed: {n_crossed:>6d} free parameters, {ms_crossed:.3f} ms per gradient")
    print(f"ratio:   {ms_crossed / ms_tier:.1f}")
    if args.sample:
        print("tier, sampled:")
        _sampled(tier.model, tier.structure, config, 1)
        print("crossed, sampled:")
        key = f"crossed:{sorted(vars(args).items())}"  # every option, for the compiled cache
        _sampled(crossed, key, config, 1, args.save)


if __name__ == "__main__":
    main()
