"""The hierarchical tier: partial pooling of judges within a benchmark (PyMC + nutpie).

Model, for benchmark ``b``, human label ``l`` (A, B, tie, none) and judge ``j``: an
item's verdict pattern over (order, run) is categorical with probabilities
``theta[j, b, l]``, Dirichlet-multinomial around a judge-level mean that is partially
pooled across the judges of the benchmark. The pattern distribution is a Dirichlet
tree (:mod:`judgestats.models.tree`): a pattern is reached by choosing in which
orders all runs agreed, then the decision (modal verdict per order), then the exact
pattern. Each node's choice among its children (largest first) is a chain of
binary splits, "this child, or a later one" — a generalised Dirichlet, so that
every category has its own pooling strength. For every split ``s`` of a cell ``c``::

    eta[s]        ~ Normal(0, eta_sigma)                 benchmark-mean logit
    u[j, c, t]    = trait_sd[b, t] * z[j, c, t]          z ~ Normal(0, 1), centred over j
    mu[j, s]      = logistic(eta[s] + sum_t u[j, c, t] * D[s, t])
    log kappa[s]  = m[level(s)] + tau * w[s]             w ~ Normal(0, 1)
    conc[s]       = kappa[s] * M[s]       M[s]: mean probability of reaching s's node
    v[j, s]       ~ Beta(conc[s] * mu[j, s], conc[s] * (1 - mu[j, s]))
    n[j, s]       ~ Binomial(n[j, s] + rest[j, s], v[j, s])

The judge-level mean ``mu[j]`` is the benchmark mean moved by the judge's *traits*
(:mod:`judgestats.models.traits`): agreement (preference for A), ties, invalid
answers, first-position picks, position flips and run agreement. A trait moves every
split at once, by the split's loading ``D``, the derivative of its log-odds under an
exponential tilt of the pattern distribution by the trait's item feature; the
traits are pooled across the judges of a benchmark with one spread per trait. The
Dirichlet-multinomial around ``mu[j]`` takes what the traits do not explain, pooled
split by split with strengths pooled per tree level.

Why traits. Judges differ in a few ways that act on every verdict, and each way
moves probability between many patterns a little. Pooled split by split only, such
a difference looks on each split like noise that judges share, and is shrunk away:
the first version of this tier, without traits, covered 85% of true values with its
95% intervals on an exchangeable cohort and about 70% with 90% intervals on small
ones. A trait adds the small moves of all splits into one well-measured quantity,
which is pooled by how much judges really differ in it.

Full support. Every tree has a *novel* leaf under its root for items whose pattern
follows the base measure of :mod:`judgestats.models.prior` (never observed, so its
mass is what the prior and the data leave it); each draw gives those items a pattern
distribution ``P_new ~ DP(prior, G0)`` per judge. No pattern the data did not show
loses its mass, so no interval collapses to a point on small data.

Judges are pooled within a benchmark, never across benchmarks (rank shifts between
benchmarks are not shrunk away). The likelihood has one beta-binomial term per
(judge, split) with items, weighted by the pattern counts of the tally, never one
term per judgment.

Parameterisation, chosen by data size. ``v`` is integrated out analytically: NUTS
samples the benchmark-level ``eta``, the traits and the pooling strengths, and ``v``
is drawn afterwards from its exact conditional posterior. A centred ``v`` has the
funnel between ``kappa`` and ``v`` that hurts sparse cells (a JudgeBench judge with a
handful of tie-labelled items), a non-centred one wastes effective samples when
cells hold hundreds of items that pin ``v`` down; marginalised, there is no funnel
at any cell size. The split means ``eta`` are centred: every judge of the benchmark
informs them. Traits are non-centred (see :func:`_traits` for the measurement
behind the choice), and so are the pooling strengths, which are many and mostly
weakly informed (a split seen on a few items cannot show how much judges differ).
Label shares of a benchmark are conjugate, ``Dirichlet(1 + item counts per label)``,
shared by all judges. Each posterior draw gives every judge's expected item
features, from which :mod:`judgestats.models.derived` computes every metric.

Measured with the simulator's exact truth (``tests/models/test_recovery.py``,
``benchmarks/bench_coverage.py``, README): 95% intervals of this tier cover at
least 90% of true values on the seed-002 and exchangeable cohorts, and 90%
intervals cover within the nominal band on small exchangeable cohorts.

What this tier does not model: items shared by judges. Given the hyper-parameters
the judges are independent, although they rate the same items and an item's
difficulty is shared by all of them. Over 10 replicates of a cohort with a shared
item difficulty and two extreme judges
(:func:`judgestats.simulate.shared_difficulty_cohort`,
``tests/models/test_calibration.py``), its 95% intervals cover 0.88-0.93 of the
true metrics (Monte Carlo error 0.013-0.022, z-score sd 1.04-1.23: too narrow
for the extreme judges, which are pooled toward the others) and 0.94 of the
kappa differences between two judges, and its P(judge i ranked above judge j)
differs from the exact tier's paired bootstrap by 0.06 in the median pair, up to
0.20. Most of that gap is in the margins, not the pairing: with each judge's draws
reordered to the dependence of the exact tier's shared item weights
(``benchmarks/bench_pairing.py``, 6 replicates) the gap stays at 0.057 (median)
and 0.179 (largest), so a model of shared items has to come with less pooling of
the extreme judges to bring the tiers together.

``prior_scale`` multiplies every pooling prior's scale, to show how much the
posterior depends on them (``benchmarks/bench_prior_sensitivity.py``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np
import xarray as xr
from scipy import sparse

from judgestats.features import FEATURES
from judgestats.models.base import FitData, JudgeModel
from judgestats.models.prior import (
    DEFAULT_CONCENTRATION,
    BasePatterns,
    base_patterns,
    dp_feature_draws,
)
from judgestats.models.traits import TRAITS, split_loadings
from judgestats.models.tree import LEVELS, PatternTree, pattern_tree
from judgestats.tally import LABEL_NAMES, BenchmarkTally

__all__ = ["HierarchicalConfig", "HierarchicalModel", "build_pymc_model"]

log = logging.getLogger("judgestats")


@dataclass(frozen=True)
class HierarchicalConfig:
    """Settings of the hierarchical tier.

    Attributes
    ----------
    draws, tune, chains : int
        NUTS draws per chain, tuning steps, chains.
    target_accept : float
        NUTS target acceptance rate.
    eta_sigma : float
        Prior sd of the benchmark-mean logits at each tree node.
    rare_per_judge : float
        A tree category seen on fewer than this many items per judge of the
        benchmark is rare and pooled in a node of its own (see
        :func:`~judgestats.models.tree.pattern_tree`).
    log_kappa_mu, log_kappa_sigma : float
        Normal prior of the mean log pooling concentration of each tree level. A
        concentration is the number of pseudo-items (spread over the tree by the mean
        pattern mass) that pull a judge toward its trait-level mean in what the
        traits do not explain. The default, about e = 2.7 pseudo-items, lets the
        data decide (they typically ask for tens to hundreds).
    log_kappa_spread : float
        Scale of the half-normal prior of the spread of log pooling concentrations
        around their level's mean.
    trait_sigma : float
        Scale of the half-normal prior of the spread of each judge trait across the
        judges of a benchmark, in log-odds per sd of the trait's item feature.
    cores : int
        Chains sampled in parallel.
    prior : float, default 1.0
        Concentration of the Dirichlet process that the items of each tree's novel
        leaf follow (see :mod:`judgestats.models.prior`); the novel leaf's mass itself
        is a split of the tree like any other.
    prior_scale : float, default 1.0
        Multiplies the scale of every prior that sets how strongly judges are pooled
        (``trait_sigma``, ``log_kappa_sigma`` and ``log_kappa_spread``): 0.5 and 2
        show how much the posterior depends on them (``fit --prior-scale``;
        ``benchmarks/bench_prior_sensitivity.py``).
    """

    draws: int = 1000
    tune: int = 400
    chains: int = 2
    target_accept: float = 0.8
    eta_sigma: float = 3.0
    rare_per_judge: float = 2.0
    log_kappa_mu: float = 1.0
    log_kappa_sigma: float = 0.5
    log_kappa_spread: float = 0.3
    trait_sigma: float = 1.0
    cores: int = 2
    prior: float = DEFAULT_CONCENTRATION
    prior_scale: float = 1.0

    def __post_init__(self) -> None:
        if not (self.prior_scale > 0 and np.isfinite(self.prior_scale)):
            raise ValueError(f"prior_scale={self.prior_scale!r}; must be a positive number")
        if min(self.draws, self.tune, self.chains, self.cores) < 1:
            raise ValueError("draws, tune, chains and cores must all be >= 1")
        if not 0 < self.target_accept < 1:
            raise ValueError(f"target_accept={self.target_accept}; must be in (0, 1)")
        if min(self.eta_sigma, self.log_kappa_sigma, self.trait_sigma) <= 0:
            raise ValueError("eta_sigma, log_kappa_sigma and trait_sigma must be positive")


def _cells(bt: BenchmarkTally) -> list[int]:
    """Label indices with at least one item in the benchmark."""
    return [li for li, m in enumerate(bt.label_counts()) if m > 0]


@dataclass(frozen=True)
class _Layout:
    """All (benchmark, label) trees flattened into binary splits.

    A node with children ``c1 .. cm`` (largest first) is a chain of ``m - 1`` binary
    splits, "``c_i`` or one of the later children": a generalised Dirichlet, which
    gives every category its own concentration instead of one per node.
    """

    cells: list[tuple[int, int]]
    trees: list[PatternTree]
    entry_offset: list[int]
    split_entry: np.ndarray  # (split,) global entry each split isolates
    split_level: np.ndarray  # (split,) tree level of the split's node
    split_cell: np.ndarray  # (split,) cell of the split
    entry_split: np.ndarray  # (entry,) split of each entry, -1 for a node's last child
    before: sparse.csr_array  # (entry, split) 1 where the split precedes the entry in its node
    later: np.ndarray  # (split, entry) 1 where the entry comes after the split's child
    counts: np.ndarray  # (judge, entry)
    split_node: np.ndarray  # (split,) global node of each split
    node_path: sparse.csr_array  # (node, entry) entries on the path from the root to a node
    loadings: np.ndarray  # (split, trait) shift of each split's log-odds per unit trait
    cell_items: np.ndarray  # (judge, cell) items of each judge in each cell
    leaf_features: list[np.ndarray]  # per cell (K + 1, feature): patterns, then G0's mean
    bases: list[BasePatterns]  # per benchmark: the base measure of the novel leaf

    @property
    def n_splits(self) -> int:
        return len(self.split_entry)

    def split_counts(self, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Items taking each split's child, and items going on to a later child."""
        return counts[..., self.split_entry], counts @ self.later.T

    def entry_log_prob(self, log_v, log_1mv, apply=None):
        """Log within-node probability of every entry from split log probabilities.

        Entry ``c_i`` of a node is "not ``c_1`` .. not ``c_(i-1)``, then ``c_i``" (its own
        split is absent for the last child). ``apply(x, matrix)`` multiplies the last
        axis of ``x`` by a sparse 0/1 matrix: :func:`_apply_np` (the default) for
        arrays, :func:`_apply_pt` to build the PyTensor graph with the same code.
        """
        apply = apply or _apply_np
        has = (self.entry_split >= 0).astype(float)
        own = has * log_v[..., np.maximum(self.entry_split, 0)]
        return own + apply(log_1mv, self.before)

    def split_mass(self, log_mu, log_1mmu, apply=None):
        """Log probability, under the mean, of reaching each split's node.

        A Dirichlet(kappa * mu) over patterns is the tree whose node concentrations are
        kappa times the mean mass under the node; scaling each split's concentration by
        its node's mass keeps a rarely reached split from getting as many pseudo-items
        as the root.
        """
        apply = apply or _apply_np
        log_entry = self.entry_log_prob(log_mu, log_1mmu, apply)
        return apply(log_entry, self.node_path)[..., self.split_node]


def _apply_np(x: np.ndarray, matrix: sparse.csr_array) -> np.ndarray:
    """``x @ matrix.T`` over the last axis of an array, ``matrix`` sparse."""
    flat = x.reshape(-1, x.shape[-1])
    return np.asarray((matrix @ flat.T).T).reshape(*x.shape[:-1], matrix.shape[0])


def _apply_pt(x, matrix: sparse.csr_array):
    """``x @ matrix.T`` for a PyTensor vector and a sparse 0/1 matrix, as a scatter-add.

    A dense product would spend most of every gradient on zeros: each entry has a
    few splits before it in its node, each node a few entries on its path.
    """
    import pytensor.tensor as pt

    coo = matrix.tocoo()
    return pt.inc_subtensor(pt.zeros(matrix.shape[0])[coo.row], x[coo.col])


def _with_novel(counts: np.ndarray) -> np.ndarray:
    """Pattern counts with a zero column for the novel leaf (never observed)."""
    return np.concatenate([counts, np.zeros((*counts.shape[:-1], 1), counts.dtype)], -1)


def _layout(data: FitData, config: HierarchicalConfig) -> _Layout:
    cells: list[tuple[int, int]] = []
    trees: list[PatternTree] = []
    e_off: list[int] = []
    counts: list[np.ndarray] = []
    leaf_features: list[np.ndarray] = []
    bases: list[BasePatterns] = []
    split_entry: list[int] = []
    split_level: list[int] = []
    split_cell: list[int] = []
    entry_split: list[int] = []
    split_node: list[int] = []
    node_paths: list[tuple[int, int, np.ndarray]] = []
    entry_node: list[np.ndarray] = []
    n_e = n_n = 0
    for b, bt in enumerate(data.tally):
        tree = pattern_tree(
            bt.patterns, bt.counts.sum((0, 1)), config.rare_per_judge * len(bt.judges), novel=True
        )
        base = base_patterns(bt)
        bases.append(base)
        rows = [data.judges.index(j) for j in bt.judges]
        for li in _cells(bt):
            c = len(cells)
            cells.append((b, li))
            trees.append(tree)
            e_off.append(n_e)
            leaf_features.append(np.vstack([bt.features[:, li, :], base.mean_features(li)]))
            y = np.zeros((len(data.judges), tree.n_entries))
            y[rows] = tree.entry_counts(_with_novel(bt.counts[:, li, :]))
            counts.append(y)
            last = np.r_[tree.entry_node[1:] != tree.entry_node[:-1], True]
            for e in range(tree.n_entries):
                if last[e]:
                    entry_split.append(-1)
                else:
                    entry_split.append(len(split_entry))
                    split_entry.append(n_e + e)
                    split_level.append(tree.entry_level[e])
                    split_cell.append(c)
                    split_node.append(n_n + tree.entry_node[e])
            node_paths.append((n_n, n_e, tree.node_path))
            entry_node.append(n_n + tree.entry_node)
            n_e += tree.n_entries
            n_n += tree.n_nodes
    entry_split_arr = np.asarray(entry_split, dtype=np.int64)
    split_entry_arr = np.asarray(split_entry, dtype=np.int64)
    entry_node_arr = np.concatenate(entry_node) if entry_node else np.zeros(0, np.int64)
    node_path = np.zeros((n_n, n_e))
    for n0, e0, block in node_paths:
        node_path[n0 : n0 + block.shape[0], e0 : e0 + block.shape[1]] = block
    before = np.zeros((n_e, len(split_entry_arr)))
    later = np.zeros((len(split_entry_arr), n_e))
    for k, entry in enumerate(split_entry_arr):
        same = np.flatnonzero(entry_node_arr == entry_node_arr[entry])
        after = same[same > entry]
        before[after, k] = 1.0
        later[k, after] = 1.0
    split_cell_arr = np.asarray(split_cell, dtype=np.int64)
    cell_items = np.zeros((len(data.judges), len(cells)))
    loadings = np.zeros((len(split_entry_arr), len(TRAITS)))
    tallies = list(data.tally)
    for c, (b, li) in enumerate(cells):
        bt, tree = tallies[b], trees[c]
        s_idx = np.flatnonzero(split_cell_arr == c)
        sl = slice(e_off[c], e_off[c] + tree.n_entries)
        cell_items[[data.judges.index(j) for j in bt.judges], c] = bt.counts[:, li].sum(-1)
        loadings[s_idx] = split_loadings(
            tree,
            _with_novel(bt.counts[:, li, :].sum(0)),
            leaf_features[c],
            split_entry_arr[s_idx] - e_off[c],
            later[s_idx, sl],
        )
    return _Layout(
        cells,
        trees,
        e_off,
        split_entry_arr,
        np.asarray(split_level, dtype=np.int64),
        split_cell_arr,
        entry_split_arr,
        sparse.csr_array(before),
        later,
        np.concatenate(counts, 1) if counts else np.zeros((len(data.judges), 0)),
        np.asarray(split_node, dtype=np.int64),
        sparse.csr_array(node_path),
        loadings,
        cell_items,
        leaf_features,
        bases,
    )


def _traits(lay: _Layout, trait_sd):
    """Judge traits, shape (judge, cell, trait), partially pooled within each cell.

    A judge's trait in a cell is ``Normal(0, trait_sd[cell, trait])`` (``trait_sd`` is
    the spread of the cell's benchmark, one per trait), centred over the judges of the
    cell: the benchmark-mean logits ``eta`` are then the average judge,
    and a shift of every trait by the same amount (which the likelihood cannot tell
    from a shift of ``eta``) is not a direction the sampler has to explore along a
    ridge shared with ``eta``. Traits without loadings in a cell, and judges without
    items in it, are fixed at 0.

    Non-centred (``sd * z``), chosen by data size: the traits of judges differ by
    about as much as the items of one judge can resolve (on simulated cohorts with
    300-400 items per judge, the posterior sd of a trait is 0.05-0.27 against a
    population sd of 0.05-0.18), the regime where the centred form has a funnel
    between ``trait_sd`` and the traits; measured, the centred form reached an ESS of
    about 10 where this one reaches hundreds.
    """
    import pymc as pm

    n_judges, n_cells, n_traits = len(lay.counts), len(lay.cells), len(TRAITS)
    present = lay.cell_items > 0  # (judge, cell)
    loaded = np.zeros((n_cells, n_traits), dtype=bool)
    np.logical_or.at(loaded, lay.split_cell, lay.loadings != 0)
    mask = present[:, :, None] & loaded[None]
    z = pm.Normal("trait_z", 0.0, 1.0, shape=(n_judges, n_cells, n_traits))
    u = trait_sd * z * mask
    mean = u.sum(0) / np.maximum(mask.sum(0), 1)
    return (u - mean) * mask


def _log_rising(x, k: np.ndarray, small: int = 4):
    """``sum(log Gamma(x + k) - log Gamma(x))`` over pairs, for integer counts ``k``.

    The beta-binomial log-likelihood is three such terms. A count of 0 adds nothing;
    a count of at most ``small`` is the sum of ``k`` logarithms, which costs less than
    two log-gamma functions and their digammas in the gradient; larger counts use
    log-gamma. Most (judge, split) counts are small, so this halves the work per
    gradient.
    """
    import pytensor.tensor as pt

    k = np.asarray(np.rint(k), dtype=np.int64)
    total = pt.constant(0.0)
    for i in range(small):
        idx = np.flatnonzero((k > i) & (k <= small))
        if idx.size:
            total = total + pt.sum(pt.log(x[idx] + i))
    big = np.flatnonzero(k > small)
    if big.size:
        total = total + pt.sum(pt.gammaln(x[big] + k[big]) - pt.gammaln(x[big]))
    return total


def build_pymc_model(data: FitData, config: HierarchicalConfig):
    """Build the PyMC model of every benchmark (one model, compiled once).

    Parameters
    ----------
    data : FitData
        The tally of the dataset.
    config : HierarchicalConfig
        Priors.

    Returns
    -------
    pymc.Model
        Free variables ``eta`` (the logit of the benchmark mean of every binary split
        of the pattern tree), ``trait_z`` and ``trait_sd`` (judge traits, deterministic
        ``trait``) and the pooling concentrations (deterministic ``log_kappa``); the
        likelihood is one potential summing a beta-binomial term per judge and split
        with items, i.e. the Dirichlet-multinomial of the tree with ``theta``
        integrated out. The flattened layout is kept as ``model.layout``.
    """
    import pymc as pm
    import pytensor.tensor as pt

    lay = _layout(data, config)
    succ, rest = lay.split_counts(lay.counts)  # (judge, split)
    jj, ss = np.nonzero(succ + rest)
    succ, rest = succ[jj, ss], rest[jj, ss]
    with pm.Model() as model:
        eta = pm.Normal("eta", 0.0, config.eta_sigma, shape=lay.n_splits)
        cell_benchmark = np.asarray([b for b, _ in lay.cells], dtype=np.int64)
        scale = config.prior_scale
        trait_sd = pm.HalfNormal(
            "trait_sd", scale * config.trait_sigma, shape=(len(data.benchmarks), len(TRAITS))
        )[cell_benchmark]
        trait = pm.Deterministic("trait", _traits(lay, trait_sd))
        shift = (trait[:, lay.split_cell, :] * lay.loadings).sum(-1)  # (judge, split)
        logit = eta + shift
        # Pooling strengths are themselves pooled across the splits of a level: a
        # split seen on a handful of items (a judge's rare invalid outputs) cannot
        # show how much judges differ, and borrows that from the level. Such splits
        # are many and weakly informed, so the non-centred form is used here.
        level_mean = pm.Normal(
            "log_kappa_level",
            config.log_kappa_mu,
            scale * config.log_kappa_sigma,
            shape=len(LEVELS),
        )
        level_sd = pm.HalfNormal("log_kappa_sd", scale * config.log_kappa_spread)
        z = pm.Normal("log_kappa_z", 0.0, 1.0, shape=lay.n_splits)
        raw = level_mean[lay.split_level] + level_sd * z
        # Softly bounded to |log kappa| < 12: beyond exp(12) pooling is complete anyway,
        # and an unbounded tail lets a chain wander where the beta functions lose all
        # precision (seen as a chain stuck at a step size of 1e-130).
        log_kappa = pm.Deterministic("log_kappa", 12.0 * pt.tanh(raw / 12.0))
        log_mass = lay.split_mass(-pt.softplus(-eta), -pt.softplus(eta), apply=_apply_pt)
        log_conc = (log_kappa + log_mass)[ss]
        logit_js = logit[jj, ss]
        a = pt.exp(log_conc - pt.softplus(-logit_js))
        b = pt.exp(log_conc - pt.softplus(logit_js))

        log_lik = _log_rising(a, succ) + _log_rising(b, rest) - _log_rising(a + b, succ + rest)
        pm.Potential("dirichlet_multinomial", log_lik)
    model.layout = lay
    return model


def _log_gamma_draw(shape: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Log of Gamma(shape) draws that stay finite for tiny shapes.

    ``Gamma(a) = Gamma(a + 1) * U ** (1 / a)``: drawing on the log scale keeps a rarely
    reached split (concentration far below one, no items of the judge) from
    underflowing to 0 / 0.
    """
    with np.errstate(divide="ignore"):
        return np.log(rng.gamma(shape + 1.0)) + np.log(rng.random(shape.shape)) / shape


class HierarchicalModel(JudgeModel):
    """Hierarchical-tier posterior of every metric (PyMC, sampled with nutpie).

    Parameters
    ----------
    config : HierarchicalConfig, optional
    derived : DerivedConfig, optional

    Examples
    --------
    >>> from judgestats.models import HierarchicalModel, HierarchicalConfig
    >>> model = HierarchicalModel(HierarchicalConfig(draws=500))
    >>> tree = model.fit(ds, random_seed=1)  # doctest: +SKIP
    """

    name = "hierarchical"
    default_config = HierarchicalConfig()

    def _draw_features(
        self, data: FitData, rng: np.random.Generator, random_seed: int | None
    ) -> tuple[xr.DataArray, dict[str, xr.Dataset]]:
        import pymc as pm

        cfg = self.config
        model = build_pymc_model(data, cfg)
        lay: _Layout = model.layout
        seed = int(rng.integers(2**31 - 1)) if random_seed is None else int(random_seed)
        with model:
            idata = pm.sample(
                draws=cfg.draws,
                tune=cfg.tune,
                chains=cfg.chains,
                cores=cfg.cores,
                target_accept=cfg.target_accept,
                random_seed=seed,
                progressbar=log.isEnabledFor(logging.INFO),
                compute_convergence_checks=False,
            )
        post = idata["posterior"]
        n_chain, n_draw = post.sizes["chain"], post.sizes["draw"]
        eta = post["eta"].values  # (chain, draw, split)
        trait = post["trait"].values  # (chain, draw, judge, cell, trait)
        log_kappa = post["log_kappa"].values  # (chain, draw, split)
        succ, rest = lay.split_counts(lay.counts)  # (judge, split)
        out = np.full(
            (n_chain, n_draw, len(data.judges), len(data.benchmarks), len(FEATURES)), np.nan
        )
        tallies = list(data.tally)
        rows = {bi: [data.judges.index(j) for j in bt.judges] for bi, bt in enumerate(tallies)}
        shares = {}
        for bi, bt in enumerate(tallies):
            labels = bt.label_counts().astype(float)
            shares[bi] = rng.dirichlet(labels + (labels > 0) + 1e-12, size=(n_chain, n_draw))
            out[:, :, rows[bi], bi, :] = 0.0
        for ch in range(n_chain):  # one chain at a time bounds memory
            logit = np.repeat(eta[ch, :, None, :], len(data.judges), axis=1)
            for t in range(len(TRAITS)):  # one trait at a time bounds memory
                logit += trait[ch][:, :, lay.split_cell, t] * lay.loadings[:, t]
            log_mu, log_1mmu = -np.logaddexp(0, -logit), -np.logaddexp(0, logit)
            log_conc = (
                log_kappa[ch, :, None, :]
                + lay.split_mass(-np.logaddexp(0, -eta[ch]), -np.logaddexp(0, eta[ch]))[:, None, :]
            )
            # v ~ Beta(a + succ, b + rest) per judge and split, via two gammas
            lg1 = _log_gamma_draw(np.exp(log_conc + log_mu) + succ[None], rng)
            lg2 = _log_gamma_draw(np.exp(log_conc + log_1mmu) + rest[None], rng)
            log_total = np.logaddexp(lg1, lg2)
            # a certain split gives log 0 = -inf; clip so that -inf * 0 is not NaN
            log_v = np.maximum(lg1 - log_total, -1e4)
            log_1mv = np.maximum(lg2 - log_total, -1e4)
            entry_p = np.exp(lay.entry_log_prob(log_v, log_1mv))  # (draw, judge, entry)
            chain_out = out[ch]  # a view: (draw, judge, benchmark, feature)
            for c, (bi, li) in enumerate(lay.cells):
                bt, tree = tallies[bi], lay.trees[c]
                sl = slice(lay.entry_offset[c], lay.entry_offset[c] + tree.n_entries)
                theta = tree.leaf_probabilities(entry_p[:, rows[bi], sl])  # (draw, judge, k+1)
                base = lay.bases[bi]
                novel = dp_feature_draws(  # the novel leaf's items: P_new ~ DP(alpha, G0)
                    base.features[:, li, :], base.prob, theta.shape[:2], cfg.prior, rng
                )
                expected = theta[..., :-1] @ bt.features[:, li, :] + theta[..., -1:] * novel
                block = shares[bi][ch, :, li, None, None] * expected
                chain_out[:, rows[bi], bi, :] += block
        coords = {
            "chain": np.arange(n_chain),
            "draw": np.arange(n_draw),
            "judge": list(data.judges),
            "benchmark": list(data.benchmarks),
        }
        features = xr.DataArray(
            out,
            dims=("chain", "draw", "judge", "benchmark", "feature"),
            coords={**coords, "feature": list(FEATURES)},
        )
        pooling = np.full(
            (n_chain, n_draw, len(data.benchmarks), len(LABEL_NAMES), len(LEVELS)), np.nan
        )
        for c, (bi, li) in enumerate(lay.cells):  # geometric mean over a level's splits
            for level in range(len(LEVELS)):
                mask = (lay.split_cell == c) & (lay.split_level == level)
                if mask.any():
                    pooling[:, :, bi, li, level] = np.exp(log_kappa[..., mask].mean(-1))
        hyper = xr.Dataset(
            {
                "pooling_concentration": (
                    ("chain", "draw", "benchmark", "label", "level"),
                    pooling,
                ),
                "trait_spread": (
                    ("chain", "draw", "benchmark", "trait"),
                    post["trait_sd"].values,
                ),
            },
            coords={k: v for k, v in coords.items() if k != "judge"}
            | {"label": list(LABEL_NAMES), "level": list(LEVELS), "trait": list(TRAITS)},
        )
        groups = {"hyper": hyper, "sample_stats": idata["sample_stats"].to_dataset()}
        return features, groups
