"""Session-scoped fits shared by the MVVP tests (fixed seeds)."""

from __future__ import annotations

import pytest
from mvvp_helpers import simulated


@pytest.fixture(scope="session")
def cohort():
    """(dataset, posterior, MVVP result) of the six-judge verdict cohort."""
    return simulated()
