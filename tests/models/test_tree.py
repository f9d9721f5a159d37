"""The pattern tree: designs, stability, decisions and patterns as nested choices."""

import numpy as np

from judgestats.models.tree import LEVELS, pattern_tree
from judgestats.schema import Verdict

A, B, M = int(Verdict.A), int(Verdict.B), int(Verdict.MISSING)


def _paths(tree):
    """Per leaf, the set of entries on its path."""
    return [set(row[row >= 0].tolist()) for row in tree.leaf_entries]


def _node_of_level(tree, level):
    return set(tree.entry_node[tree.entry_level == LEVELS.index(level)].tolist())


def test_judges_run_a_different_number_of_times_share_no_node_below_the_design():
    # (order, run): three runs, or two runs and a missing third
    patterns = np.array(
        [
            [[A, A, A], [A, A, A]],
            [[A, A, B], [A, A, A]],
            [[A, A, M], [A, A, M]],
            [[A, B, M], [A, A, M]],
        ]
    )
    tree = pattern_tree(patterns, np.ones(4), min_count=0.0)
    design = _node_of_level(tree, "design")
    assert len(design) == 1  # the root chooses between the two designs
    paths = _paths(tree)
    # the stability entries of the 3-run patterns and of the 2-run patterns differ:
    # "every run agreed" is not pooled across the designs
    three, two = paths[0] | paths[1], paths[2] | paths[3]
    stability = set(np.flatnonzero(tree.entry_level == LEVELS.index("stability")).tolist())
    assert (three & stability) and (two & stability)
    assert not (three & two & stability)


def test_a_single_design_has_no_design_choice():
    patterns = np.array([[[A, A]], [[A, B]], [[B, B]]])
    tree = pattern_tree(patterns, np.ones(3), min_count=0.0)
    assert not _node_of_level(tree, "design")
    # the novel leaf is one more child of the root, which chooses stability
    novel = pattern_tree(patterns, np.ones(3), min_count=0.0, novel=True)
    assert not _node_of_level(novel, "design")
    top = [row[row >= 0][-1] for row in novel.leaf_entries]  # paths run leaf to root
    root = novel.entry_node[top[3]]
    assert novel.entry_level[novel.entry_node == root].tolist() == [
        LEVELS.index("stability")
    ] * int((novel.entry_node == root).sum())
    assert novel.entry_node[top[0]] == novel.entry_node[top[1]] == root  # stable, unstable


def test_leaf_probabilities_sum_to_one_over_designs():
    patterns = np.array([[[A, A, A]], [[A, B, A]], [[A, A, M]], [[B, A, M]], [[B, B, M]]])
    tree = pattern_tree(patterns, np.array([5.0, 1.0, 3.0, 1.0, 2.0]), min_count=0.0, novel=True)
    rng = np.random.default_rng(0)
    entry_p = np.empty(tree.n_entries)
    for node in range(tree.n_nodes):  # a random categorical per node
        at = tree.entry_node == node
        entry_p[at] = rng.dirichlet(np.ones(at.sum()))
    np.testing.assert_allclose(tree.leaf_probabilities(entry_p).sum(), 1.0)
