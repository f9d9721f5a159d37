"""The Dirichlet tree over verdict patterns used by the hierarchical tier.

An item's verdict pattern over (order, run) is reached through four choices, each a
node of the tree:

0. its *design*: which (order, run) cells were asked at all. A judge run twice and
   one run three times answer different questions at every later node ("did every
   run agree" is likelier with two runs than with three), so judges are pooled only
   within a design. A benchmark whose items all share one design has no such node
   (its tree is as if the level did not exist); the novel leaf of the prior is then a
   choice of the root at the stability level, else at the design level;
1. in which orders every run gave the same verdict (*stability*) — where run-to-run
   stability shows; before the decision, so that every judge's stability is
   estimated from all its items, not from the few items of each decision;
2. its *decision*: the modal verdict of each order (A, B, tie, invalid or missing per
   order) — where agreement with the label and position preference show;
3. the exact pattern, given an unstable decision — which runs deviated, and how.

Without the design node, a judge with two runs among judges with three was pulled
toward their lower stability: on replicates 1004-1011 of
:func:`~judgestats.simulate.coverage.shared_difficulty_cohort`, that judge's
test-retest had a mean z-score of -0.87 and its flip rate +0.71 (-0.04 and +0.25
with the node; the same datasets and seeds).

A judge's pattern distribution is a product of one categorical distribution per
node. Pooling node by node lets each kind of difference between judges (decisions,
stability, details of instability) have its own strength of pooling; a single
Dirichlet over all patterns would let the many rare patterns, which look alike
for every judge, decide how much judges are pooled, and shrink real differences in
agreement and stability away.

This module builds the tree for a benchmark's patterns and flattens it into
*entries* (one per child of every node with two or more children), the layout the
PyMC model and the posterior draws use.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from judgestats.schema import Verdict

__all__ = ["LEVELS", "PatternTree", "pattern_tree"]

#: Names of the tree's levels.
LEVELS: tuple[str, ...] = ("design", "stability", "decision", "pattern", "rare")
_CODES = (Verdict.A, Verdict.B, Verdict.TIE, Verdict.INVALID)


@dataclass(frozen=True)
class PatternTree:
    """A benchmark's pattern tree, flattened.

    Attributes
    ----------
    entry_node : ndarray of int, shape (E,)
        Node of each entry (child slot).
    entry_level : ndarray of int, shape (E,)
        Level (index into :data:`LEVELS`) of each entry's node.
    leaf_entries : ndarray of int, shape (K, depth)
        For each pattern, the entries on its path from the root (-1 padding; a node
        with one child is a certain step and has no entry).
    n_nodes : int
        Nodes with two or more children.
    node_path : ndarray of float, shape (n_nodes, E)
        1 for each entry on the path from the root to a node: the log-probability of
        reaching a node is ``node_path @ log(entry probabilities)``.
    """

    entry_node: np.ndarray
    entry_level: np.ndarray
    leaf_entries: np.ndarray
    n_nodes: int
    node_path: np.ndarray

    @property
    def n_entries(self) -> int:
        """Number of entries."""
        return len(self.entry_node)

    def entry_counts(self, counts: np.ndarray) -> np.ndarray:
        """Items passing through each entry, from pattern counts.

        Parameters
        ----------
        counts : ndarray, shape (..., K)

        Returns
        -------
        ndarray, shape (..., E)
        """
        out = np.zeros((*counts.shape[:-1], self.n_entries), dtype=counts.dtype)
        for level in range(self.leaf_entries.shape[1]):
            e = self.leaf_entries[:, level]
            ok = e >= 0
            np.add.at(np.moveaxis(out, -1, 0), e[ok], np.moveaxis(counts[..., ok], -1, 0))
        return out

    def leaf_probabilities(self, entry_prob: np.ndarray) -> np.ndarray:
        """Pattern probabilities from per-entry (within-node) probabilities.

        Parameters
        ----------
        entry_prob : ndarray, shape (..., E)

        Returns
        -------
        ndarray, shape (..., K)
        """
        out = np.ones((*entry_prob.shape[:-1], self.leaf_entries.shape[0]))
        for level in range(self.leaf_entries.shape[1]):
            e = self.leaf_entries[:, level]
            ok = e >= 0
            out[..., ok] *= entry_prob[..., e[ok]]
        return out


def _weight(node: tuple, children: dict[tuple, list[tuple]], weight: dict[tuple, float]) -> float:
    if node in weight:
        return weight[node]
    return sum(_weight(c, children, weight) for c in children.get(node, []))


def _decision(patterns: np.ndarray) -> np.ndarray:
    """Modal verdict per order (first of A, B, tie, invalid on ties); -1 if none."""
    counts = np.stack([(patterns == c).sum(-1) for c in _CODES], -1)  # (K, order, 4)
    mode = np.asarray(_CODES)[np.argmax(counts, -1)]
    return np.where(counts.sum(-1) > 0, mode, Verdict.MISSING)


def pattern_tree(
    patterns: np.ndarray, weights: np.ndarray, min_count: float, novel: bool = False
) -> PatternTree:
    """Build the Dirichlet tree of a benchmark's distinct patterns.

    Parameters
    ----------
    patterns : ndarray of int, shape (K, order, run)
        The benchmark's distinct patterns.
    weights : ndarray, shape (K,)
        Items showing each pattern, over all judges and labels.
    min_count : float
        Children of a node seen on fewer items than this are *rare*: when a node has
        two or more rare children they are grouped under a node of their own (level
        ``rare``), so that categories too rare to show differences between
        judges do not decide how strongly the frequent ones are pooled.
    novel : bool, default False
        Add a leaf ``K`` (after the ``K`` patterns) under the root for items whose
        pattern is drawn from the base measure (:mod:`judgestats.models.prior`): it
        keeps prior mass on every pattern the data have not shown.

    Returns
    -------
    PatternTree
    """
    k = patterns.shape[0]
    decision = _decision(patterns)
    present = patterns != Verdict.MISSING
    stable = np.all(~present | (patterns == decision[..., None]), axis=-1)  # per order
    children: dict[tuple, list[tuple]] = {}
    level_of: dict[tuple, int] = {}
    weight: dict[tuple, float] = {}
    designs = [tuple(row) for row in present.reshape(k, -1).tolist()]
    several = len(set(designs)) > 1  # one design: no design node, the root chooses stability
    level = {name: i for i, name in enumerate(LEVELS)}
    for i in range(k):
        g = ("g", designs[i]) if several else ("root",)
        st = ("s", designs[i], tuple(stable[i].tolist()))
        d = ("d", *st[1:], tuple(decision[i].tolist()))
        steps = [(st, d, level["decision"]), (d, ("leaf", i), level["pattern"])]
        steps.insert(0, (g, st, level["stability"]))
        if several:
            steps.insert(0, (("root",), g, level["design"]))
        for parent, child, at in steps:
            kids = children.setdefault(parent, [])
            level_of[parent] = at
            if child not in kids:
                kids.append(child)
            weight[child] = weight.get(child, 0.0) + float(weights[i])
    if novel:  # a choice of the root, at its level
        children.setdefault(("root",), []).append(("leaf", k))
        level_of.setdefault(("root",), level["stability"])
        weight[("leaf", k)] = 0.0
    for parent in list(children):
        kids = children[parent]
        rare = [c for c in kids if weight[c] < min_count]
        if len(kids) > 2 and len(rare) >= 2:
            group = ("rare", parent)
            children[group] = rare
            level_of[group] = level["rare"]
            children[parent] = [c for c in kids if c not in rare] + [group]
    for kids in children.values():  # largest first: the order of the splits
        kids.sort(key=lambda c: -_weight(c, children, weight))
    parent_of = {c: p for p, kids in children.items() for c in kids}
    entry_node: list[int] = []
    entry_level: list[int] = []
    entry_of: dict[tuple[tuple, tuple], int] = {}
    n_nodes = 0
    for parent, kids in children.items():
        if len(kids) < 2:
            continue
        for child in kids:
            entry_of[(parent, child)] = len(entry_node)
            entry_node.append(n_nodes)
            entry_level.append(level_of[parent])
        n_nodes += 1

    def path(node: tuple) -> list[int]:
        edges = []
        while node in parent_of:
            parent = parent_of[node]
            if (parent, node) in entry_of:
                edges.append(entry_of[(parent, node)])
            node = parent
        return edges

    n_leaves = k + int(novel)
    paths = [path(("leaf", i)) for i in range(n_leaves)]
    node_keys = [p for p, kids in children.items() if len(kids) >= 2]
    node_path = np.zeros((len(node_keys), len(entry_node)))
    for n, key in enumerate(node_keys):
        node_path[n, path(key)] = 1.0
    depth = max((len(p) for p in paths), default=0)
    leaf_entries = np.full((n_leaves, max(depth, 1)), -1, dtype=np.int64)
    for i, edges in enumerate(paths):
        leaf_entries[i, : len(edges)] = edges
    return PatternTree(
        np.asarray(entry_node, dtype=np.int64),
        np.asarray(entry_level, dtype=np.int64),
        leaf_entries,
        n_nodes,
        node_path,
    )
