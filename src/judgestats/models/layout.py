"""The hierarchical tier's flattened layout: every (benchmark, label) tree as binary splits.

A node of a pattern tree (:mod:`judgestats.models.tree`) with children
``c1 .. cm`` (largest first) is a chain of ``m - 1`` binary splits, "``c_i`` or one
of the later children": a generalised Dirichlet, which gives every category its
own concentration instead of one per node. Each (benchmark, label) *cell* is built
on its own by :func:`cell_block`; :meth:`Layout.from_blocks` concatenates the
blocks, offsetting their entry, node and split indices with cumulative sums.

The layout separates what the PyMC graph is built from (:meth:`Layout.structure`:
trees, splits, levels, cells) from what only fills it (pattern counts, items per
judge, trait loadings), so that a compiled model is reused for new counts of the
same structure (:mod:`judgestats.models.sampling`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy import sparse
from scipy.linalg import block_diag

from judgestats.models.base import FitData
from judgestats.models.prior import BasePatterns, base_patterns
from judgestats.models.traits import TRAITS, split_loadings, trait_scores
from judgestats.models.tree import PatternTree, pattern_tree
from judgestats.tally import BenchmarkTally

__all__ = [
    "TINY",
    "CellBlock",
    "Layout",
    "apply_np",
    "apply_pt",
    "build_layout",
    "cell_block",
    "tree_splits",
    "with_novel",
]

#: A subtree mass below this is taken as this in a split's probability (its log-odds
#: about -690, not -inf); no gradient flows through a mass held at it.
TINY = 1e-300


def with_novel(counts: np.ndarray) -> np.ndarray:
    """Pattern counts with a zero column for the novel leaf (never observed)."""
    return np.concatenate([counts, np.zeros((*counts.shape[:-1], 1), counts.dtype)], -1)


def tree_splits(tree: PatternTree) -> tuple[np.ndarray, np.ndarray]:
    """Return the binary splits of one tree.

    Parameters
    ----------
    tree : PatternTree

    Returns
    -------
    entry_split : ndarray of int, shape (E,)
        Split of each entry, -1 for the last child of its node (no split of its own).
    later : ndarray of float, shape (S, E)
        1 where an entry comes after the split's child in the split's node.
    """
    node = tree.entry_node
    last = np.r_[node[1:] != node[:-1], True]
    split_entry = np.flatnonzero(~last)
    entry_split = np.full(tree.n_entries, -1, dtype=np.int64)
    entry_split[split_entry] = np.arange(len(split_entry))
    entries = np.arange(tree.n_entries)
    later = (node[None, :] == node[split_entry, None]) & (entries[None, :] > split_entry[:, None])
    return entry_split, later.astype(float)


@dataclass(frozen=True)
class CellBlock:
    """One (benchmark, label) cell of the layout, with local entry and split indices.

    Attributes
    ----------
    benchmark, label : int
        Indices of the cell's benchmark (in the fit data) and human label.
    tree : PatternTree
        The benchmark's pattern tree, with a novel leaf.
    entry_split : ndarray of int, shape (E,)
        Local split of each entry, -1 for a node's last child.
    later : ndarray of float, shape (S, E)
        1 where an entry comes after a split's child in its node.
    counts : ndarray of float, shape (judge, E)
        Items of each judge (of the fit data) passing through each entry.
    items : ndarray of float, shape (judge,)
        Items of each judge in the cell.
    leaf_features : ndarray, shape (K + 1, feature)
        Item features of each pattern under the cell's label, then G0's mean.
    loadings : ndarray, shape (S, trait)
        Derivative of each split's log-odds per unit trait at the cell's mean.
    scores : ndarray, shape (K + 1, trait)
        Standardised trait features of every leaf
        (:func:`~judgestats.models.traits.trait_scores`), 0 for a trait without
        loadings: a judge's traits tilt the cell's pattern distribution by
        ``exp(scores @ trait)``.
    """

    benchmark: int
    label: int
    tree: PatternTree
    entry_split: np.ndarray
    later: np.ndarray
    counts: np.ndarray
    items: np.ndarray
    leaf_features: np.ndarray
    loadings: np.ndarray
    scores: np.ndarray

    @property
    def split_entry(self) -> np.ndarray:
        """Local entry that each split isolates."""
        return np.flatnonzero(self.entry_split >= 0)


def cell_block(
    bt: BenchmarkTally,
    benchmark: int,
    label: int,
    tree: PatternTree,
    base: BasePatterns,
    rows: list[int],
    n_judges: int,
) -> CellBlock:
    """Build the block of one (benchmark, label) cell.

    Parameters
    ----------
    bt : BenchmarkTally
        The benchmark's tally.
    benchmark, label : int
        Index of the benchmark in the fit data, index of the label.
    tree : PatternTree
        The benchmark's pattern tree (with a novel leaf).
    base : BasePatterns
        The benchmark's base measure (the novel leaf's mean features).
    rows : list of int
        Row in the fit data of each judge of the benchmark.
    n_judges : int
        Judges of the fit data.

    Returns
    -------
    CellBlock
    """
    entry_split, later = tree_splits(tree)
    cell_counts = bt.counts[:, label, :]
    leaf_features = np.vstack([bt.features[:, label, :], base.mean_features(label)])
    counts = np.zeros((n_judges, tree.n_entries))
    counts[rows] = tree.entry_counts(with_novel(cell_counts))
    items = np.zeros(n_judges)
    items[rows] = cell_counts.sum(-1)
    split_entry = np.flatnonzero(entry_split >= 0)
    weights = with_novel(cell_counts.sum(0))
    loadings = split_loadings(tree, weights, leaf_features, split_entry, later)
    scores = trait_scores(weights, leaf_features) * loadings.any(0)
    return CellBlock(
        benchmark, label, tree, entry_split, later, counts, items, leaf_features, loadings, scores
    )


def _offsets(sizes: list[int]) -> np.ndarray:
    """Start of each block in a concatenation of blocks of these sizes."""
    return np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)[:-1]]).astype(np.int64)


def _path_matrix(tree: PatternTree) -> np.ndarray:
    """(leaf, entry): 1 for every entry on the path from the root to a leaf."""
    out = np.zeros((tree.leaf_entries.shape[0], tree.n_entries))
    rows, depth = np.nonzero(tree.leaf_entries >= 0)
    out[rows, tree.leaf_entries[rows, depth]] = 1.0
    return out


def _block_diag(blocks: list[np.ndarray]) -> np.ndarray:
    """Dense block-diagonal matrix of 2-d blocks (empty blocks allowed)."""
    return block_diag(*blocks) if blocks else np.zeros((0, 0))


@dataclass(frozen=True)
class Layout:
    """All (benchmark, label) trees flattened into binary splits.

    Attributes
    ----------
    blocks : tuple of CellBlock
        The cells, in the order benchmark, then label.
    bases : tuple of BasePatterns
        Per benchmark: the base measure of the novel leaf.
    n_benchmarks : int
        Benchmarks of the fit data.
    entry_offset : ndarray of int, shape (cell,)
        First global entry of each cell.
    split_entry, split_level, split_cell, split_node : ndarray of int, shape (split,)
        Global entry each split isolates, tree level of its node, its cell, its
        global node.
    entry_split : ndarray of int, shape (entry,)
        Global split of each entry, -1 for a node's last child.
    before : scipy.sparse.csr_array, shape (entry, split)
        1 where the split precedes the entry in its node.
    later : ndarray, shape (split, entry)
        1 where the entry comes after the split's child.
    node_path : scipy.sparse.csr_array, shape (node, entry)
        Entries on the path from the root to a node.
    counts : ndarray, shape (judge, entry)
        Items of each judge through each entry.
    loadings : ndarray, shape (split, trait)
        Derivative of each split's log-odds per unit trait at the cell's mean.
    cell_items : ndarray, shape (judge, cell)
        Items of each judge in each cell.
    scores : ndarray, shape (leaf, trait)
        Standardised trait features of every leaf of every cell (see
        :meth:`split_logits`).
    leaf_cell : ndarray of int, shape (leaf,)
        Cell of each leaf; the leaves of a cell are contiguous, from ``leaf_offset``.
    leaf_offset : ndarray of int, shape (cell,)
        First leaf of each cell.
    leaf_path : scipy.sparse.csr_array, shape (leaf, entry)
        Entries on the path from the root to a leaf.
    """

    blocks: tuple[CellBlock, ...]
    bases: tuple[BasePatterns, ...]
    n_benchmarks: int
    entry_offset: np.ndarray
    split_entry: np.ndarray
    split_level: np.ndarray
    split_cell: np.ndarray
    split_node: np.ndarray
    entry_split: np.ndarray
    before: sparse.csr_array
    later: np.ndarray
    node_path: sparse.csr_array
    counts: np.ndarray
    loadings: np.ndarray
    cell_items: np.ndarray
    scores: np.ndarray
    leaf_cell: np.ndarray
    leaf_offset: np.ndarray
    leaf_path: sparse.csr_array

    @classmethod
    def from_blocks(
        cls,
        blocks: list[CellBlock],
        bases: list[BasePatterns],
        n_judges: int,
        n_benchmarks: int,
    ) -> Layout:
        """Concatenate cell blocks, offsetting their indices.

        Parameters
        ----------
        blocks : list of CellBlock
        bases : list of BasePatterns
            One per benchmark.
        n_judges, n_benchmarks : int
            Judges and benchmarks of the fit data (the shapes when there are no cells).

        Returns
        -------
        Layout
        """
        trees = [b.tree for b in blocks]
        entry_offset = _offsets([t.n_entries for t in trees])
        node_offset = _offsets([t.n_nodes for t in trees])
        n_splits = [len(b.split_entry) for b in blocks]
        split_offset = _offsets(n_splits)

        def joined(parts: list[np.ndarray], dtype: type = np.int64) -> np.ndarray:
            return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype)

        local = [b.split_entry for b in blocks]
        entry_split = joined(
            [
                np.where(b.entry_split >= 0, b.entry_split + so, -1)
                for b, so in zip(blocks, split_offset, strict=True)
            ]
        )
        later = _block_diag([b.later for b in blocks])
        n_leaves = [t.leaf_entries.shape[0] for t in trees]
        return cls(
            blocks=tuple(blocks),
            bases=tuple(bases),
            n_benchmarks=n_benchmarks,
            entry_offset=entry_offset,
            split_entry=joined([s + eo for s, eo in zip(local, entry_offset, strict=True)]),
            split_level=joined([t.entry_level[s] for t, s in zip(trees, local, strict=True)]),
            split_cell=np.repeat(np.arange(len(blocks), dtype=np.int64), n_splits),
            split_node=joined(
                [t.entry_node[s] + no for t, s, no in zip(trees, local, node_offset, strict=True)]
            ),
            entry_split=entry_split,
            before=sparse.csr_array(later.T),
            later=later,
            node_path=sparse.csr_array(_block_diag([t.node_path for t in trees])),
            counts=(
                np.concatenate([b.counts for b in blocks], 1) if blocks else np.zeros((n_judges, 0))
            ),
            loadings=(
                np.concatenate([b.loadings for b in blocks])
                if blocks
                else np.zeros((0, len(TRAITS)))
            ),
            cell_items=(
                np.stack([b.items for b in blocks], 1) if blocks else np.zeros((n_judges, 0))
            ),
            scores=(
                np.concatenate([b.scores for b in blocks]) if blocks else np.zeros((0, len(TRAITS)))
            ),
            leaf_cell=np.repeat(np.arange(len(blocks), dtype=np.int64), n_leaves),
            leaf_offset=_offsets(n_leaves),
            leaf_path=sparse.csr_array(
                _block_diag([_path_matrix(t) for t in trees]) if blocks else np.zeros((0, 0))
            ),
        )

    @property
    def cells(self) -> list[tuple[int, int]]:
        """(benchmark, label) of each cell."""
        return [(b.benchmark, b.label) for b in self.blocks]

    @property
    def trees(self) -> list[PatternTree]:
        """Pattern tree of each cell."""
        return [b.tree for b in self.blocks]

    @property
    def leaf_features(self) -> list[np.ndarray]:
        """Per cell, (K + 1, feature): the patterns' item features, then G0's mean."""
        return [b.leaf_features for b in self.blocks]

    @property
    def n_splits(self) -> int:
        """Binary splits of all cells."""
        return len(self.split_entry)

    def entries(self, cell: int) -> slice:
        """Global entries of one cell."""
        start = int(self.entry_offset[cell])
        return slice(start, start + self.blocks[cell].tree.n_entries)

    def structure(self) -> str:
        """Digest of everything the PyMC graph is built from, apart from counts.

        Two layouts with the same digest differ only in their pattern counts, items
        per judge and trait loadings and scores, which the model takes as data.
        """
        h = hashlib.sha256()
        h.update(np.asarray([*self.counts.shape, self.n_benchmarks], np.int64).tobytes())
        for part in (
            self.split_level,
            self.split_cell,
            self.split_node,
            self.entry_split,
            self.before.indices,
            self.before.indptr,
            self.node_path.indices,
            self.node_path.indptr,
            self.leaf_path.indices,
            self.leaf_path.indptr,
            np.asarray([b.benchmark for b in self.blocks], np.int64),
        ):
            h.update(np.asarray(part.shape, np.int64).tobytes())
            h.update(np.ascontiguousarray(part, dtype=np.int64).tobytes())
        return h.hexdigest()

    def split_counts(self, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Items taking each split's child, and items going on to a later child.

        ``counts`` is ``(..., entry)``. The later children's sum is a sparse product:
        the draws after sampling pass ``(draw, judge, entry)`` blocks, and a split has a
        few later entries (a block of 250 draws of the 10x seed-002 cohort: 0.12 s
        against 0.23 s for the dense product's 6.0 G multiplications, nearly all by
        zero).
        """
        return counts[..., self.split_entry], apply_np(counts, self.later_csr)

    def entry_log_prob(self, log_v, log_1mv, apply=None):
        """Log within-node probability of every entry from split log probabilities.

        Entry ``c_i`` of a node is "not ``c_1`` .. not ``c_(i-1)``, then ``c_i``" (its own
        split is absent for the last child). ``apply(x, matrix)`` multiplies the last
        axis of ``x`` by a sparse 0/1 matrix: :func:`apply_np` (the default) for
        arrays, :func:`apply_pt` to build the PyTensor graph with the same code.
        """
        apply = apply or apply_np
        has = (self.entry_split >= 0).astype(float)
        own = has * log_v[..., np.maximum(self.entry_split, 0)]
        return own + apply(log_1mv, self.before)

    def leaf_log_prob(self, log_mu, log_1mmu, apply=None):
        """Log probability of every leaf under its cell's mean (product along its path)."""
        apply = apply or apply_np
        return apply(self.entry_log_prob(log_mu, log_1mmu, apply), self.leaf_path)

    def split_mass(self, log_mu, log_1mmu, apply=None):
        """Log probability, under the mean, of reaching each split's node.

        A Dirichlet(kappa * mu) over patterns is the tree whose node concentrations are
        kappa times the mean mass under the node; scaling each split's concentration by
        its node's mass keeps a rarely reached split from getting as many pseudo-items
        as the root.
        """
        apply = apply or apply_np
        log_entry = self.entry_log_prob(log_mu, log_1mmu, apply)
        return apply(log_entry, self.node_path)[..., self.split_node]

    def split_logits(self, log_mu, log_1mmu, trait, scores=None, apply=None):
        """Log-odds of every judge's trait-level mean at every split.

        A judge's mean pattern distribution in a cell is the benchmark mean ``p``
        (from the split probabilities ``mu``) exponentially tilted by its traits,
        ``q[k] ~ p[k] exp(scores[k] @ trait)``; a split's log-odds are then the log
        of ``q``'s mass under the split's child over its mass under the later
        children. At ``trait = 0`` they are ``logit(mu)``; their derivative there is
        the split's :attr:`loadings`. The tilt is exact, not linearised: a judge far
        from the cohort (near-deterministic, strongly position-biased) reaches the
        feature means its traits say, where a shift of every split's log-odds by
        ``loadings @ trait`` moves them less and less.

        Parameters
        ----------
        log_mu, log_1mmu : array, shape (..., split)
            ``log mu`` and ``log (1 - mu)`` of the benchmark means.
        trait : array, shape (..., judge, cell, trait)
        scores : array, shape (leaf, trait), optional
            :attr:`scores` by default (the model passes its data variable).
        apply : callable, optional
            :func:`apply_np` (the default, for arrays) or :func:`apply_pt` (PyTensor).

        Returns
        -------
        array, shape (..., judge, split)
        """
        log_p = self.leaf_log_prob(log_mu, log_1mmu, apply)
        return self.tilted_logits(log_p, trait, scores, apply)

    def tilted_logits(self, log_p, trait, scores=None, apply=None):
        """:meth:`split_logits` from the leaves' log probabilities ``log_p`` (..., leaf).

        The hierarchical tier's likelihood computes the same in one compiled pass
        (:mod:`judgestats.models.kernels`).
        """
        n_leaves, n_traits = self.scores.shape
        # the tilt of every leaf, as one product with a (cell x trait, leaf) matrix that
        # holds each leaf's scores in its cell's rows
        rows = (self.leaf_cell[:, None] * n_traits + np.arange(n_traits)).ravel()
        cols = np.repeat(np.arange(n_leaves), n_traits)
        shape = (len(self.blocks) * n_traits, n_leaves)
        if apply is apply_pt:
            import pytensor.tensor as pt

            exp, log, maximum, top = pt.exp, pt.log, pt.maximum, self._cell_max_pt
            by_cell = pt.zeros(shape)[rows, cols].set(
                (self.scores if scores is None else scores).ravel()
            )
            flat = trait.reshape((*[trait.shape[i] for i in range(trait.ndim - 2)], shape[0]))
        else:
            apply = apply or apply_np
            exp, log, maximum, top = np.exp, np.log, np.maximum, self._cell_max_np
            by_cell = np.zeros(shape)
            by_cell[rows, cols] = (self.scores if scores is None else scores).ravel()
            flat = trait.reshape(*trait.shape[:-2], shape[0])
        log_q = log_p[..., None, :] + flat @ by_cell
        # scaled by each (judge, cell)'s largest leaf, which cancels in every ratio
        mass = apply(exp(log_q - top(log_q)[..., self.leaf_cell]), self._leaf_under)
        # a subtree whose mass underflows: log-odds about -690, not -inf
        child = log(maximum(mass[..., self.split_entry], TINY))
        return child - log(maximum(apply(mass, self.later_csr), TINY))

    @cached_property
    def _leaf_under(self) -> sparse.csr_array:
        """(entry, leaf): 1 for every leaf under an entry."""
        return sparse.csr_array(self.leaf_path.T)

    @cached_property
    def cell_benchmark(self) -> np.ndarray:
        """Benchmark of every cell, shape (cell,)."""
        return np.asarray([b for b, _ in self.cells], dtype=np.int64).reshape(-1)

    @cached_property
    def split_benchmark(self) -> np.ndarray:
        """Benchmark of every split, shape (split,)."""
        return self.cell_benchmark[self.split_cell]

    @cached_property
    def judge_in_benchmark(self) -> np.ndarray:
        """Whether every judge has items in every benchmark, shape (judge, benchmark)."""
        items = np.zeros((self.cell_items.shape[0], self.n_benchmarks))
        np.add.at(items.T, self.cell_benchmark, self.cell_items.T)
        return items > 0

    @cached_property
    def later_csr(self) -> sparse.csr_array:
        """:attr:`later` as a sparse matrix (canonical: sorted indices, no zeros)."""
        return sparse.csr_array(self.later)

    def _cell_max_np(self, x: np.ndarray) -> np.ndarray:
        """Largest value over each cell's leaves (last axis)."""
        return np.maximum.reduceat(x, self.leaf_offset, axis=-1)

    def _cell_max_pt(self, x):
        """Largest value over each cell's leaves (last axis), PyTensor; no gradient."""
        import pytensor.tensor as pt
        from pytensor.gradient import disconnected_grad

        size = np.diff(np.r_[self.leaf_offset, len(self.leaf_cell)])
        pad = self.leaf_offset[:, None] + np.minimum(  # a short cell repeats its last leaf
            np.arange(size.max(initial=1))[None], size[:, None] - 1
        )
        return disconnected_grad(pt.max(x[..., pad], axis=-1))


def apply_np(x: np.ndarray, matrix: sparse.csr_array) -> np.ndarray:
    """``x @ matrix.T`` over the last axis of an array, ``matrix`` sparse."""
    flat = x.reshape(-1, x.shape[-1])
    return np.asarray((matrix @ flat.T).T).reshape(*x.shape[:-1], matrix.shape[0])


def apply_pt(x, matrix: sparse.csr_array):
    """``x @ matrix.T`` over the last axis of a PyTensor tensor, as a scatter-add.

    ``matrix`` is sparse and 0/1. A dense product would spend most of every gradient
    on zeros: each entry has a few splits before it in its node, each node a few
    entries on its path.
    """
    import pytensor.tensor as pt

    coo = matrix.tocoo()
    if x.ndim == 1:
        return pt.inc_subtensor(pt.zeros(matrix.shape[0])[coo.row], x[coo.col])
    # one indexed add along the leading axis
    xt = pt.moveaxis(x, -1, 0)
    out = pt.zeros((matrix.shape[0], *[xt.shape[i] for i in range(1, x.ndim)]))
    return pt.moveaxis(pt.inc_subtensor(out[coo.row], xt[coo.col]), 0, -1)


def build_layout(data: FitData, rare_per_judge: float) -> Layout:
    """Flatten the pattern trees of every (benchmark, label) cell with items.

    Parameters
    ----------
    data : FitData
        The tally of the dataset.
    rare_per_judge : float
        A tree category seen on fewer than this many items per judge of the
        benchmark is rare (see :func:`~judgestats.models.tree.pattern_tree`).

    Returns
    -------
    Layout
    """
    blocks: list[CellBlock] = []
    bases: list[BasePatterns] = []
    for b, bt in enumerate(data.tally):
        tree = pattern_tree(
            bt.patterns, bt.counts.sum((0, 1)), rare_per_judge * len(bt.judges), novel=True
        )
        base = base_patterns(bt)
        bases.append(base)
        rows = data.rows(b)
        blocks += [
            cell_block(bt, b, li, tree, base, rows, len(data.judges))
            for li, m in enumerate(bt.label_counts())
            if m > 0
        ]
    return Layout.from_blocks(blocks, bases, len(data.judges), len(data.benchmarks))
