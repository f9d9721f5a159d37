"""The flattened layout of the hierarchical tier: blocks, concatenation, structure."""

import numpy as np
import pytest

from judgestats.models import HierarchicalConfig
from judgestats.models.base import FitData
from judgestats.models.hierarchical import build_pymc_model, count_data
from judgestats.models.layout import build_layout, tree_splits
from judgestats.simulate import simulate, small_cohort
from judgestats.testing import swap_verdicts

RARE = HierarchicalConfig().rare_per_judge


@pytest.fixture(scope="module")
def cohort():
    return simulate(small_cohort(), random_seed=0, scale=0.1).dataset


@pytest.fixture(scope="module")
def layout(cohort):
    return build_layout(FitData.from_data(cohort), RARE)


def test_tree_splits_chain_each_node_but_its_last_child(layout):
    tree = layout.trees[0]
    entry_split, later = tree_splits(tree)
    node = tree.entry_node
    for e in range(tree.n_entries):
        is_last = e == tree.n_entries - 1 or node[e + 1] != node[e]
        assert (entry_split[e] == -1) == is_last
        if not is_last:
            after = np.flatnonzero(later[entry_split[e]])
            assert np.all(node[after] == node[e]) and np.all(after > e)
            assert len(after) == np.sum((node == node[e]) & (np.arange(len(node)) > e))


def test_blocks_are_concatenated_with_offsets(layout):
    assert layout.split_counts(layout.counts)[0].shape == (layout.counts.shape[0], layout.n_splits)
    for c, block in enumerate(layout.blocks):
        splits = np.flatnonzero(layout.split_cell == c)
        entries = layout.entries(c)
        np.testing.assert_array_equal(
            layout.later[np.ix_(splits, np.arange(entries.start, entries.stop))], block.later
        )
        np.testing.assert_array_equal(layout.split_entry[splits] - entries.start, block.split_entry)
        np.testing.assert_array_equal(layout.counts[:, entries], block.counts)
        np.testing.assert_array_equal(layout.loadings[splits], block.loadings)
        leaves = np.flatnonzero(layout.leaf_cell == c)
        assert leaves[0] == layout.leaf_offset[c] and np.all(np.diff(leaves) == 1)
        np.testing.assert_array_equal(layout.scores[leaves], block.scores)
        # a leaf's path: the entries its pattern counts pass through
        path = layout.leaf_path[leaves][:, np.arange(entries.start, entries.stop)].toarray()
        np.testing.assert_array_equal(path, block.tree.entry_counts(np.eye(len(leaves))))
    # no split reaches outside its cell; "before" is "later" transposed
    assert layout.later.sum() == sum(b.later.sum() for b in layout.blocks)
    np.testing.assert_array_equal(layout.before.toarray(), layout.later.T)
    has = layout.entry_split >= 0
    np.testing.assert_array_equal(layout.split_entry[layout.entry_split[has]], np.flatnonzero(has))


def test_structure_ignores_counts_and_sees_the_trees(cohort, layout):
    swapped = build_layout(FitData.from_data(swap_verdicts(cohort)), RARE)
    assert not np.array_equal(swapped.counts, layout.counts)
    assert swapped.structure() == layout.structure()
    fewer = build_layout(FitData.from_data(cohort.isel(judge=slice(1, None))), RARE)
    assert fewer.structure() != layout.structure()


def test_the_model_takes_counts_as_data(cohort):
    cfg = HierarchicalConfig(reuse_compiled=True)
    first = build_pymc_model(FitData.from_data(cohort), cfg)
    second = build_pymc_model(FitData.from_data(swap_verdicts(cohort)), cfg)
    assert first.structure == second.structure
    assert (
        build_pymc_model(
            FitData.from_data(cohort), HierarchicalConfig(prior_scale=2, reuse_compiled=True)
        ).structure
        != first.structure
    )
    names = {v.name for v in first.model.data_vars}
    assert names == set(count_data(first.layout))
    assert any(not np.array_equal(first.data[n], second.data[n]) for n in names)


def test_by_default_the_counts_are_constants_and_part_of_the_structure(cohort):
    first = build_pymc_model(FitData.from_data(cohort), HierarchicalConfig())
    second = build_pymc_model(FitData.from_data(swap_verdicts(cohort)), HierarchicalConfig())
    assert not first.model.data_vars and first.data == {}
    assert first.structure != second.structure
    again = build_pymc_model(FitData.from_data(cohort), HierarchicalConfig())
    assert again.structure == first.structure
