"""The hierarchical tier: partial pooling of judges within a benchmark (PyMC + nutpie).

Model, for benchmark ``b``, human label ``l`` (A, B, tie, none) and judge ``j``: an
item's verdict pattern over (order, run) is categorical with probabilities
``theta[j, b, l]``, and the judges of a benchmark are pooled around a common mean.
The pattern distribution is a Dirichlet tree (:mod:`judgestats.models.tree`): a
pattern is reached by choosing a decision (modal verdict per order), then whether
all runs agreed, then the exact pattern; at every node ``n`` of the tree::

    mu[n]        = softmax(0, eta[n])       eta ~ Normal(0, eta_sigma)
    log kappa[b, l, level] ~ Normal(log_kappa_mu, log_kappa_sigma)
    theta[j, n]  ~ Dirichlet(kappa[b, l, level(n)] * mu[n])
    counts[j, n] ~ Multinomial(n[j, n], theta[j, n])

so each judge's counts at each node are Dirichlet-multinomial around the benchmark
mean: judges are pooled within a benchmark, never across benchmarks (rank shifts
between benchmarks are not shrunk away), and each level has its own pooling
strength. The likelihood has one term per (judge, tree entry), with the pattern
counts of the tally as weights, never one term per judgment.

Parameterisation. ``theta`` is integrated out analytically: NUTS samples only the
benchmark-level ``eta`` and ``kappa`` with the Dirichlet-multinomial likelihood, and
``theta`` is drawn afterwards from its exact conditional posterior
``Dirichlet(kappa * mu + counts)``. This is the centred / non-centred choice taken
one step further: a centred ``theta`` (sampled given ``kappa``) has the funnel between
``kappa`` and ``theta`` that hurts sparse cells (a JudgeBench judge with a handful of
tie-labelled items), a non-centred one wastes effective samples when cells hold
hundreds of items that pin ``theta`` down; with ``theta`` marginalised there is no
funnel at any cell size, so the same form serves sparse and large data. The
benchmark means ``eta`` are centred: every judge of the benchmark informs them, so
they are well identified whatever a single cell holds. Label shares of a benchmark
are conjugate, ``Dirichlet(1 + item counts per label)``, shared by all judges. Each
posterior draw gives every judge's expected item features, from which
:mod:`judgestats.models.derived` computes every metric.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np
import xarray as xr

from judgestats.features import FEATURES
from judgestats.models.base import FitData, JudgeModel
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
        Normal prior of the log pooling concentration: ``exp(4.6) ≈ 100`` pseudo-items
        is moderate pooling; the wide sigma lets the data decide.
    cores : int
        Chains sampled in parallel.
    """

    draws: int = 1000
    tune: int = 1000
    chains: int = 2
    target_accept: float = 0.9
    eta_sigma: float = 3.0
    rare_per_judge: float = 2.0
    log_kappa_mu: float = 4.6
    log_kappa_sigma: float = 2.0
    cores: int = 2

    def __post_init__(self) -> None:
        if min(self.draws, self.tune, self.chains, self.cores) < 1:
            raise ValueError("draws, tune, chains and cores must all be >= 1")
        if not 0 < self.target_accept < 1:
            raise ValueError(f"target_accept={self.target_accept}; must be in (0, 1)")
        if self.eta_sigma <= 0 or self.log_kappa_sigma <= 0:
            raise ValueError("eta_sigma and log_kappa_sigma must be positive")


def _cells(bt: BenchmarkTally) -> list[int]:
    """Label indices with at least one item in the benchmark."""
    return [li for li, m in enumerate(bt.label_counts()) if m > 0]


@dataclass(frozen=True)
class _Layout:
    """All (benchmark, label) trees flattened into one vector of entries."""

    cells: list[tuple[int, int]]
    trees: list[PatternTree]
    entry_offset: list[int]
    node_offset: list[int]
    entry_node: np.ndarray
    entry_kappa: np.ndarray
    node_kappa: np.ndarray
    counts: np.ndarray  # (judge, entry)

    @property
    def n_nodes(self) -> int:
        return len(self.node_kappa)


def _layout(data: FitData, config: HierarchicalConfig) -> _Layout:
    cells, trees, e_off, n_off = [], [], [], []
    entry_node, entry_kappa, node_kappa, counts = [], [], [], []
    n_e = n_n = 0
    for b, bt in enumerate(data.tally):
        tree = pattern_tree(
            bt.patterns, bt.counts.sum((0, 1)), config.rare_per_judge * len(bt.judges)
        )
        rows = [data.judges.index(j) for j in bt.judges]
        for li in _cells(bt):
            c = len(cells)
            cells.append((b, li))
            trees.append(tree)
            e_off.append(n_e)
            n_off.append(n_n)
            entry_node.append(tree.entry_node + n_n)
            entry_kappa.append(c * len(LEVELS) + tree.entry_level)
            lv = np.zeros(tree.n_nodes, dtype=np.int64)
            lv[tree.entry_node] = tree.entry_level
            node_kappa.append(c * len(LEVELS) + lv)
            y = np.zeros((len(data.judges), tree.n_entries))
            y[rows] = tree.entry_counts(bt.counts[:, li, :])
            counts.append(y)
            n_e += tree.n_entries
            n_n += tree.n_nodes
    cat = lambda parts, dt=np.int64: (  # noqa: E731
        np.concatenate(parts).astype(dt) if parts else np.zeros(0, dt)
    )
    return _Layout(
        cells,
        trees,
        e_off,
        n_off,
        cat(entry_node),
        cat(entry_kappa),
        cat(node_kappa),
        np.concatenate(counts, 1) if counts else np.zeros((len(data.judges), 0)),
    )


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
        Free variables ``eta`` (one logit per tree entry but the first of each node,
        the reference) and ``log_kappa`` (one per
        benchmark × label × level); the likelihood is a single potential over the
        Dirichlet-multinomial terms. The flattened layout is kept as ``model.layout``.
    """
    import pymc as pm
    import pytensor.tensor as pt

    lay = _layout(data, config)
    node_of = np.zeros((len(lay.entry_node), lay.n_nodes))
    node_of[np.arange(len(lay.entry_node)), lay.entry_node] = 1.0
    active = lay.counts.sum(0) > 0  # entries no judge reached add nothing but prior
    with pm.Model() as model:
        # The first child of every node is the reference category (logit 0): a free
        # logit per child would leave one direction per node fixed only by the prior,
        # and NUTS would need trajectories many times longer.
        first = np.r_[True, lay.entry_node[1:] != lay.entry_node[:-1]]
        eta_free = pm.Normal("eta", 0.0, config.eta_sigma, shape=int((~first).sum()))
        eta = pt.zeros(len(lay.entry_node))
        eta = pt.set_subtensor(eta[np.flatnonzero(~first)], eta_free)
        log_kappa = pm.Normal(
            "log_kappa",
            config.log_kappa_mu,
            config.log_kappa_sigma,
            shape=len(lay.cells) * len(LEVELS),
        )
        kappa = pt.exp(log_kappa)
        ex = pt.exp(eta)
        mu = ex / pt.dot(pt.dot(ex, node_of), node_of.T)
        a = kappa[lay.entry_kappa] * mu
        big_a = kappa[lay.node_kappa]
        n_node = lay.counts @ node_of  # (judge, node)
        y = lay.counts[:, active]
        a_act = a[active]
        logp = pt.sum(pt.gammaln(y + a_act) - pt.gammaln(a_act)) + pt.sum(
            pt.gammaln(big_a) - pt.gammaln(n_node + big_a)
        )
        pm.Potential("dirichlet_multinomial", logp)
    model.layout = lay  # type: ignore[attr-defined]
    return model


def _segment_normalise(g: np.ndarray, node: np.ndarray, n_nodes: int) -> np.ndarray:
    sums = np.zeros((*g.shape[:-1], n_nodes))
    np.add.at(np.moveaxis(sums, -1, 0), node, np.moveaxis(g, -1, 0))
    return g / sums[..., node]


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
        lay: _Layout = model.layout  # type: ignore[attr-defined]
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
        first = np.r_[True, lay.entry_node[1:] != lay.entry_node[:-1]]
        eta = np.zeros((post.sizes["chain"], post.sizes["draw"], len(lay.entry_node)))
        eta[..., ~first] = post["eta"].values
        kappa = np.exp(post["log_kappa"].values)  # (chain, draw, cell * level)
        ex = np.exp(eta)
        mu = _segment_normalise(ex, lay.entry_node, lay.n_nodes)
        a = kappa[..., lay.entry_kappa] * mu
        out = np.full(
            (n_chain, n_draw, len(data.judges), len(data.benchmarks), len(FEATURES)), np.nan
        )
        tallies = list(data.tally)
        shares = {}
        for b, bt in enumerate(tallies):
            labels = bt.label_counts().astype(float)
            shares[b] = rng.dirichlet(labels + (labels > 0) + 1e-12, size=(n_chain, n_draw))
            out[:, :, [data.judges.index(j) for j in bt.judges], b, :] = 0.0
        for c, (b, li) in enumerate(lay.cells):
            bt, tree = tallies[b], lay.trees[c]
            rows = [data.judges.index(j) for j in bt.judges]
            sl = slice(lay.entry_offset[c], lay.entry_offset[c] + tree.n_entries)
            for ch in range(n_chain):  # one chain at a time bounds memory
                g = rng.gamma(a[ch, :, None, sl] + lay.counts[None, rows, sl])
                p = _segment_normalise(g, tree.entry_node, tree.n_nodes)
                theta = tree.leaf_probabilities(p)  # (draw, judge, pattern)
                block = shares[b][ch, :, li, None, None] * (theta @ bt.features[:, li, :])
                chain_out = out[ch]  # a view: (draw, judge, benchmark, feature)
                chain_out[:, rows, b, :] += block
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
        conc = np.full(
            (n_chain, n_draw, len(data.benchmarks), len(LABEL_NAMES), len(LEVELS)), np.nan
        )
        for c, (b, li) in enumerate(lay.cells):
            conc[:, :, b, li, :] = kappa[..., c * len(LEVELS) : (c + 1) * len(LEVELS)]
        hyper = xr.Dataset(
            {"pooling_concentration": (("chain", "draw", "benchmark", "label", "level"), conc)},
            coords={k: v for k, v in coords.items() if k != "judge"}
            | {"label": list(LABEL_NAMES), "level": list(LEVELS)},
        )
        groups = {"hyper": hyper, "sample_stats": idata["sample_stats"].to_dataset()}
        return features, groups
