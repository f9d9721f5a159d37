"""Fitted fixtures shared by the model tests (each model structure compiles once)."""

import pytest

from judgestats.models import ExactConfig, ExactModel, HierarchicalModel
from judgestats.simulate import simulate, small_cohort


@pytest.fixture(scope="session")
def small():
    """Five judges, MT-Bench-like (1,200 items) and JudgeBench-like (800 items), 3 runs."""
    return simulate(small_cohort(), random_seed=3, scale=4)


@pytest.fixture(scope="session")
def exact_tree(small):
    return ExactModel(ExactConfig(draws=1000)).fit(small.dataset, random_seed=1)


@pytest.fixture(scope="session")
def hier_model(small):
    model = HierarchicalModel()  # the defaults: R-hat <= 1.01 needs their 2 x 1,000 draws
    model.fit(small.dataset, random_seed=1)
    return model
