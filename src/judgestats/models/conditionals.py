"""The hierarchical tier's draws after sampling: from hyper-parameters to item features.

NUTS samples the benchmark means, the judge traits and the pooling strengths with
every judge's split probabilities ``v`` integrated out
(:mod:`judgestats.models.hierarchical`). Per posterior draw this module then draws

1. the label shares of every benchmark (conjugate Dirichlet, shared by judges),
2. every judge's split probabilities from their exact Beta conditionals, coupled
   across judges through the items they rated (below),
3. the judge's expected item features per (benchmark, label) cell, with the novel
   leaf's items following ``P_new ~ DP(prior, G0)``,

and summarises the pooling strengths per tree level for the ``hyper`` group. The
label shares come first; each block of draws of a chain (:func:`draws_per_block`)
then draws from its own stream spawned from the generator, blocks in threads, so a
seed gives the same draws whichever thread runs first.

Judges rate the same items
--------------------------
Given the hyper-parameters, a judge's split probability has the conditional
``v ~ Beta(a + n_succ, b + n_rest)``: ``a, b`` the pseudo-items of its judge-level
mean, ``n_succ`` of its ``n`` items at the split's node taking the split's child. Drawn
independently per judge, as the likelihood has it, two judges who saw the same items
get independent draws, and a difference between them (of kappa, a rank) is as noisy
as if they had been rated on different items. Yet an item that is hard for one judge
is often hard for the other: their errors on a benchmark's items are correlated, and
the sampling noise of *which* items the benchmark holds is shared.

The draw used here keeps every judge's conditional exactly and gives them the
dependence of the exact tier's Bayesian bootstrap (Rubin 1981): every item of a
(benchmark, label) cell gets one weight ``e_i ~ Exp(1)`` per draw, *shared by all
judges*, and

``v = (G_a + r G_n) / (G_a + G_b + G_n)``,  ``r = sum_succ e_i / sum_node e_i``,

with ``G_a ~ Gamma(a)``, ``G_b ~ Gamma(b)``, ``G_n ~ Gamma(n)`` drawn per judge and
split. Since ``r ~ Beta(n_succ, n_rest)`` independently of the weights' total, and
``(G_a + G_b) / (G_a + G_b + G_n) ~ Beta(a + b, n)`` independently of ``G_a / (G_a +
G_b) ~ Beta(a, b)``, ``v`` has exactly the Beta conditional above; by the complete
neutrality of the Dirichlet, the splits of one judge stay independent of each other
as the tree's generalised Dirichlet requires. Only the joint law across judges
changes: where the data dominate the pseudo-items (``n >> a + b``) two judges' draws
are those of the paired bootstrap; where the pooling dominates, the judge-level means
do.

This is a coupling of the exact conditionals, not a likelihood for item effects: the
hyper-parameters are sampled with judges independent given them, and the items'
joint law does not feed back into them (a cut; see the module docs of
:mod:`judgestats.models.hierarchical` for the crossed judge x item likelihood that
was measured instead, ``benchmarks/bench_item_effects.py``, and the latent-class
one, ``benchmarks/latent_class.py``). Such a model would also let item effects
inform the pooling, at the cost of a likelihood per joint row instead of per pattern
count, explicit judge-level probabilities, and a form for what items share
(difficulty, label noise, shared position preference). The coupling needs no such form and
costs one matrix product per cell; ``benchmarks/bench_pairing.py`` measures what it
buys (``pair_items=False`` in
:class:`~judgestats.models.hierarchical.HierarchicalConfig` gives the independent
draws).

Where judges share much, the pairing is partial. With an item difficulty of sd 3 on
the log-odds scale (``python benchmarks/bench_pairing.py --replicates 10
--difficulty-sd 3``, 8 judges, data seeds 1000-1009), the median correlation of two
judges' kappa draws was 0.09 coupled, 0.05 independent and 0.39 in the exact tier;
the 90% and 95% intervals of kappa differences covered 0.939 +- 0.009 and 0.973 +-
0.008 coupled (z-score sd 0.87), 0.944 and 0.975 independent, 0.881 +- 0.015 and
0.932 +- 0.013 in the exact tier, and P(judge i above judge j) differed from the
exact tier's by 0.028 in the median pair and 0.066 at most. The coupling pairs the
judges' split probabilities given the hyper-parameters, not their traits, which are
sampled with judges independent given them; there the intervals of differences
erred wide (conservative), not narrow.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import xarray as xr
from scipy import sparse

from judgestats.features import FEATURES
from judgestats.models.base import FitData
from judgestats.models.layout import Layout
from judgestats.models.ppc import PredictiveChecks
from judgestats.models.prior import dp_feature_draws
from judgestats.models.summary import HYPER_ATTR
from judgestats.models.traits import TRAITS
from judgestats.models.tree import LEVELS
from judgestats.parallel import thread_map
from judgestats.tally import LABEL_CODES, LABEL_NAMES

__all__ = [
    "BLOCK_BYTES",
    "draws_per_block",
    "expected_features",
    "hyper_dataset",
    "item_sums",
    "item_weighted_counts",
    "label_shares",
    "split_log_probabilities",
    "trait_spread_draws",
]

#: Bytes of a block's largest array, (draw, judge, entry) or a cell's (item, draw)
#: weights (:func:`draws_per_block`).
BLOCK_BYTES = 8 * 2**20

#: Log probabilities are clipped at this, so that a certain split (log 0 = -inf)
#: does not make -inf * 0 = NaN.
_LOG_FLOOR = -1e4


def draws_per_block(lay: Layout, data: FitData, n_draw: int) -> int:
    """Draws of a chain turned into item features at once (in a thread each).

    As many as keep the block's largest array within :data:`BLOCK_BYTES`, so that
    the allocator reuses a finished block's memory for the next: glibc's ``malloc``
    hands arrays above its mmap threshold (at most 32 MiB) back to the kernel when they
    are freed, and every block of larger arrays is faulted in again page by page. On
    the 10x seed-002 cohort (21 judges, 1,200 entries, 57,220 items; 2 chains of 1,000
    draws), blocks of 250 draws (50 MB arrays) took 22.9-23.7 s, 5.7-6.0 million page
    faults and 22-24 s of system time; blocks of 41 (this budget) 10.3-11.1 s, 0.8-1.0
    million and 1.6-1.8 s; at 1x and on LLMBar the time hardly changes and the peak
    memory halves (``benchmarks/bench_blocks.py``).

    Parameters
    ----------
    lay : Layout
    data : FitData
    n_draw : int
        Draws of a chain.

    Returns
    -------
    int
        Between 1 and ``n_draw``.
    """
    items = max(
        (
            int(np.sum(data.tally[data.benchmarks[b.benchmark]].item_label == LABEL_CODES[b.label]))
            for b in lay.blocks
        ),
        default=0,
    )
    per_draw = 8 * max(lay.counts.size, items, 1)
    return int(np.clip(BLOCK_BYTES // per_draw, 1, max(n_draw, 1)))


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


@dataclass(frozen=True)
class _CellSums:
    """What :func:`item_weighted_counts` needs of one (benchmark, label) cell."""

    items: np.ndarray  # the cell's items (positions in the benchmark's tally)
    entries: slice  # the cell's entry columns of the layout
    leaf_entry: np.ndarray  # (leaf, entry) counts of each leaf's pattern
    judges: list[tuple[int, sparse.csc_array]]  # (judge row, items of each leaf)


def item_sums(lay: Layout, data: FitData) -> list[_CellSums]:
    """Per cell of the layout, the sparse (leaf, item) matrix of every judge with items.

    The same for every block of draws of a fit: built once, read by each block. Each
    of a judge's judged items is one entry of its leaf's row (by item, CSC: built from
    the counts of items per column, no sort).
    """
    out = []
    for c, block in enumerate(lay.blocks):
        bt = data.tally[data.benchmarks[block.benchmark]]
        in_cell = np.flatnonzero(bt.item_label == LABEL_CODES[block.label])
        tree = block.tree
        n_leaf = tree.leaf_entries.shape[0]
        judges = []
        for jj, row in enumerate(data.rows(block.benchmark)):
            pattern = bt.item_pattern[jj, in_cell]
            judged = pattern >= 0
            if judged.any():
                indptr = np.zeros(in_cell.size + 1, dtype=np.int64)
                np.cumsum(judged, out=indptr[1:])
                items_of = sparse.csc_array(
                    (np.ones(int(indptr[-1])), pattern[judged], indptr),
                    shape=(n_leaf, in_cell.size),
                )
                judges.append((int(row), items_of))
        leaf_entry = tree.entry_counts(np.eye(n_leaf))
        out.append(_CellSums(in_cell, lay.entries(c), leaf_entry, judges))
    return out


def item_weighted_counts(
    lay: Layout,
    data: FitData,
    n_draw: int,
    rng: np.random.Generator,
    sums: list[_CellSums] | None = None,
) -> np.ndarray:
    """Entry counts of every judge with each item weighted by a shared ``Exp(1)`` draw.

    One weight per item of a (benchmark, label) cell and draw, the same for every
    judge who rated the item (see the module docs). With every weight 1 this gives
    ``lay.counts``.

    Parameters
    ----------
    lay : Layout
    data : FitData
    n_draw : int
    rng : numpy.random.Generator
    sums : list, optional
        :func:`item_sums` of ``lay`` and ``data``, when several blocks share them.

    Returns
    -------
    ndarray, shape (draw, judge, entry)
    """
    out = np.zeros((n_draw, *lay.counts.shape))
    for cell in item_sums(lay, data) if sums is None else sums:
        # item-major (one copy per cell): the sparse sums below read it as it is
        by_item = np.ascontiguousarray(rng.standard_exponential((n_draw, cell.items.size)).T)
        for row, items_of in cell.judges:
            # each draw's weight on each leaf (its items' weights summed: one pass over
            # the items, by item), then spread over the leaf's entries
            out[:, row, cell.entries] = (items_of @ by_item).T @ cell.leaf_entry
    return out


def split_log_probabilities(
    lay: Layout,
    eta: np.ndarray,
    trait: np.ndarray,
    log_kappa: np.ndarray,
    rng: np.random.Generator,
    weighted: np.ndarray | None = None,
    judge_offset: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Draw every judge's split probabilities from their Beta conditionals (one chain).

    ``v[j, s] ~ Beta(conc[j, s] mu[j, s] + succ[j, s], conc[j, s] (1 - mu[j, s]) + rest[j, s])``,
    drawn from gammas on the log scale: independently per judge, or coupled across
    judges through shared item weights (see the module docs).

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
    weighted : ndarray, shape (draw, judge, entry), optional
        Item-weighted entry counts (:func:`item_weighted_counts`); without them the
        judges' draws are independent.
    judge_offset : ndarray, shape (draw, judge, benchmark), optional
        Each judge's offset of its log pooling concentrations (``log_kappa_judge``);
        none, every judge pooled alike.

    Returns
    -------
    log_v, log_1mv : ndarray, shape (draw, judge, split)
        ``log v`` and ``log (1 - v)``, clipped below at :data:`_LOG_FLOOR`.
    """
    succ, rest = lay.split_counts(lay.counts)  # (judge, split)
    log_eta, log_1meta = -np.logaddexp(0, -eta), -np.logaddexp(0, eta)
    logit = lay.split_logits(log_eta, log_1meta, trait)
    log_mu, log_1mmu = -np.logaddexp(0, -logit), -np.logaddexp(0, logit)
    log_conc = log_kappa[:, None, :] + lay.split_mass(log_eta, log_1meta)[:, None, :]
    if judge_offset is not None:  # (draw, judge, benchmark)
        log_conc = log_conc + judge_offset[:, :, lay.split_benchmark]
    if weighted is None:
        lg1 = _log_gamma_draw(np.exp(log_conc + log_mu) + succ[None], rng)
        lg2 = _log_gamma_draw(np.exp(log_conc + log_1mmu) + rest[None], rng)
    else:
        lg1, lg2 = _coupled_log_gammas(
            lay, np.exp(log_conc + log_mu), np.exp(log_conc + log_1mmu), succ + rest, weighted, rng
        )
    log_total = np.logaddexp(lg1, lg2)
    return np.maximum(lg1 - log_total, _LOG_FLOOR), np.maximum(lg2 - log_total, _LOG_FLOOR)


def _coupled_log_gammas(
    lay: Layout,
    a: np.ndarray,
    b: np.ndarray,
    n: np.ndarray,
    weighted: np.ndarray,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """``log(G_a + r G_n)`` and ``log(G_b + (1 - r) G_n)`` of the module docs.

    Parameters
    ----------
    lay : Layout
    a, b : ndarray, shape (draw, judge, split)
        Pseudo-items of the child and of the later children.
    n : ndarray, shape (judge, split)
        Items at the split's node.
    weighted : ndarray, shape (draw, judge, entry)
        Item-weighted entry counts.
    rng : numpy.random.Generator

    Returns
    -------
    tuple of ndarray, shape (draw, judge, split)
    """
    w_succ, w_rest = lay.split_counts(weighted)
    reached = np.broadcast_to(n > 0, w_succ.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_node = np.log(w_succ + w_rest)
        log_r = np.where(reached, np.log(w_succ) - log_node, 0.0)
        log_1mr = np.where(reached, np.log(w_rest) - log_node, 0.0)
        log_gn = np.where(
            reached, np.log(rng.gamma(np.maximum(n, 1.0), size=w_succ.shape)), -np.inf
        )
    lg_a, lg_b = _log_gamma_draw(a, rng), _log_gamma_draw(b, rng)
    return np.logaddexp(lg_a, log_gn + log_r), np.logaddexp(lg_b, log_gn + log_1mr)


def _cell_features(
    lay: Layout,
    data: FitData,
    cell: int,
    entry_p: np.ndarray,
    prior: float,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
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
    features : ndarray, shape (draw, judge of the benchmark, feature)
    theta : ndarray, shape (draw, judge of the benchmark, K + 1)
        Pattern probabilities, the novel leaf last.
    """
    block = lay.blocks[cell]
    bt = data.tally[data.benchmarks[block.benchmark]]
    rows = data.rows(block.benchmark)
    theta = block.tree.leaf_probabilities(entry_p[:, rows, lay.entries(cell)])
    base = lay.bases[block.benchmark]
    novel = dp_feature_draws(  # the novel leaf's items: P_new ~ DP(alpha, G0)
        base.features[:, block.label, :], base.prob, theta.shape[:2], prior, rng
    )
    return theta[..., :-1] @ bt.features[:, block.label, :] + theta[..., -1:] * novel, theta


def expected_features(
    lay: Layout,
    data: FitData,
    posterior: xr.Dataset,
    prior: float,
    rng: np.random.Generator,
    pair_items: bool = True,
    predictive: PredictiveChecks | None = None,
    consume: Callable[[int, slice, np.ndarray], None] | None = None,
) -> np.ndarray | None:
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
    pair_items : bool, default True
        Couple the judges' draws through the items they rated (module docs).
    predictive : PredictiveChecks, optional
        Posterior predictive checks, fed every cell's pattern probabilities.
    consume : callable, optional
        ``consume(chain, draws, features)`` takes each block of draws (``draws`` a
        slice of the chain's draws, ``features`` as below without the chain axis)
        instead of their being gathered: the features of every draw are never held.
        Blocks may come from several threads at once.

    Returns
    -------
    ndarray, shape (chain, draw, judge, benchmark, feature), or None
        NaN where a judge has no items in a benchmark; None with ``consume``.
    """
    n_chain, n_draw = posterior.sizes["chain"], posterior.sizes["draw"]
    eta = posterior["eta"].values  # (chain, draw, split)
    trait = posterior["trait"].values  # (chain, draw, judge, cell, trait)
    log_kappa = posterior["log_kappa"].values  # (chain, draw, split)
    judge_offset = posterior["log_kappa_judge"].values if "log_kappa_judge" in posterior else None
    shape = (len(data.judges), len(data.benchmarks), len(FEATURES))
    out = None
    if consume is None:
        gathered = np.full((n_chain, n_draw, *shape), np.nan)

        def gather(ch: int, sl: slice, features: np.ndarray) -> None:
            gathered[ch, sl] = features

        consume, out = gather, gathered
    take = consume  # set either way (a name the closure sees as not None)
    shares = label_shares(data, n_chain, n_draw, rng)
    sums = item_sums(lay, data) if pair_items else None

    def block(task: tuple[int, slice], stream: np.random.Generator) -> None:
        ch, sl = task
        n = sl.stop - sl.start
        weighted = item_weighted_counts(lay, data, n, stream, sums) if pair_items else None
        log_v, log_1mv = split_log_probabilities(
            lay,
            eta[ch, sl],
            trait[ch, sl],
            log_kappa[ch, sl],
            stream,
            weighted,
            None if judge_offset is None else judge_offset[ch, sl],
        )
        entry_p = np.exp(lay.entry_log_prob(log_v, log_1mv))  # (draw, judge, entry)
        block_out = np.full((n, *shape), np.nan)  # (draw, judge, benchmark, feature)
        for bi in range(len(data.benchmarks)):
            block_out[:, data.rows(bi), bi, :] = 0.0
        for c, (bi, li) in enumerate(lay.cells):
            rows = data.rows(bi)
            expected, theta = _cell_features(lay, data, c, entry_p, prior, stream)
            if predictive is not None:  # the draws it replicates
                positions, replicated = predictive.kept(sl)
                predictive.add(ch, c, theta[positions], stream, replicated)
            block_out[:, rows, bi, :] += shares[bi][ch, sl, li, None, None] * expected
        take(ch, sl, block_out)

    # blocks of draws in threads (numpy releases the GIL in the bulk of it), each
    # drawing from its own spawned stream; a block's arrays are (draw, judge, entry),
    # so the block size bounds the memory
    step = draws_per_block(lay, data, n_draw)
    tasks = [
        (ch, slice(start, min(start + step, n_draw)))
        for ch in range(n_chain)
        for start in range(0, n_draw, step)
    ]
    thread_map(block, tasks, rng.spawn(len(tasks)))
    return out


def trait_spread_draws(
    lay: Layout, posterior: xr.Dataset, shape: float, scale: float, rng: np.random.Generator
) -> np.ndarray:
    """Draw the trait spreads from their conditionals given the judges' traits.

    The hierarchical tier integrates each (benchmark, trait) variance ``s2`` out of
    the model (:func:`judgestats.models.hierarchical._traits`); given the ``n`` traits
    ``u`` of its group, ``s2 ~ InvGamma(shape + n / 2, scale + sum(u**2) / 2)``, one
    draw per posterior draw.

    Parameters
    ----------
    lay : Layout
    posterior : xarray.Dataset
        NUTS draws of ``trait_u``.
    shape, scale : float
        The prior ``InvGamma(shape, scale)`` of a trait variance.
    rng : numpy.random.Generator

    Returns
    -------
    ndarray, shape (chain, draw, benchmark, trait)
        The spread (sd); NaN for a trait that is no parameter of a benchmark.
    """
    from judgestats.models.hierarchical import trait_groups, trait_mask

    mask = trait_mask(lay)
    group, n_groups = trait_groups(lay, mask)
    u = posterior["trait_u"].values  # (chain, draw, parameter)
    sum_sq = np.zeros((*u.shape[:2], n_groups))
    np.add.at(np.moveaxis(sum_sq, -1, 0), group, np.moveaxis(u**2, -1, 0))
    n = np.bincount(group, minlength=n_groups)
    var = (scale + sum_sq / 2) / rng.gamma(shape + n / 2, size=sum_sq.shape)
    out = np.where(n > 0, np.sqrt(var), np.nan)
    return out.reshape(*u.shape[:2], lay.n_benchmarks, -1)


def hyper_dataset(
    lay: Layout,
    data: FitData,
    posterior: xr.Dataset,
    shape: float,
    scale: float,
    rng: np.random.Generator,
) -> xr.Dataset:
    """Pooling strengths per tree level and trait spreads, for the ``hyper`` group.

    Parameters
    ----------
    lay : Layout
    data : FitData
    posterior : xarray.Dataset
        NUTS draws of ``log_kappa``, ``trait_u`` and, when the model has them, the
        judges' offsets ``log_kappa_judge``.
    shape, scale : float
        The prior ``InvGamma(shape, scale)`` of a trait variance.
    rng : numpy.random.Generator
        For the trait spreads (:func:`trait_spread_draws`).

    Returns
    -------
    xarray.Dataset
        ``pooling_concentration (chain, draw, benchmark, label, level)``: the geometric
        mean of the concentrations of a level's splits; ``trait_spread (chain, draw,
        benchmark, trait)``; with judge offsets in the model, ``judge_pooling (chain,
        draw, judge, benchmark)``: the factor by which a judge's pooling
        concentrations differ from the benchmark's (below 1: pooled less than the
        others; NaN where the judge has no items).
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
    hyper = {HYPER_ATTR: 1}  # diagnosed with the reported metrics
    spread = trait_spread_draws(lay, posterior, shape, scale, rng)
    variables = {
        "pooling_concentration": (
            ("chain", "draw", "benchmark", "label", "level"),
            pooling,
            hyper,
        ),
        "trait_spread": (("chain", "draw", "benchmark", "trait"), spread, hyper),
    }
    if "log_kappa_judge" in posterior:
        present = lay.judge_in_benchmark
        factor = np.where(present, np.exp(posterior["log_kappa_judge"].values), np.nan)
        variables["judge_pooling"] = (("chain", "draw", "judge", "benchmark"), factor, hyper)
    return xr.Dataset(
        variables,
        coords={
            "chain": np.arange(n_chain),
            "draw": np.arange(n_draw),
            "judge": list(data.judges),
            "benchmark": list(data.benchmarks),
            "label": list(LABEL_NAMES),
            "level": list(LEVELS),
            "trait": list(TRAITS),
        },
    )
