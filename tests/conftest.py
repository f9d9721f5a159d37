"""Test-suite options.

``--run-slow`` runs the tests marked ``slow``: parameter recovery, sampler health and
the shorter calibration checks (CI runs them). ``--run-calibration`` also runs the
tests marked ``calibration``: replicate studies of many minutes whose figures the
README quotes with their commands.
"""

import os

import pytest
from hypothesis import settings

# CI draws the same hypothesis examples every run (a failure there is reproducible);
# a developer's run explores new ones.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


def pytest_addoption(parser):
    parser.addoption(
        "--run-slow",
        action="store_true",
        default=False,
        help="run tests marked slow (parameter recovery, calibration, sampler health)",
    )
    parser.addoption(
        "--run-calibration",
        action="store_true",
        default=False,
        help="also run tests marked calibration (replicate studies of many minutes)",
    )


def pytest_collection_modifyitems(config, items):
    calibration = config.getoption("--run-calibration")
    slow = config.getoption("--run-slow") or calibration
    for item in items:
        if "calibration" in item.keywords and not calibration:
            item.add_marker(pytest.mark.skip(reason="calibration: run with --run-calibration"))
        elif "slow" in item.keywords and not slow:
            item.add_marker(pytest.mark.skip(reason="slow: run with --run-slow"))


@pytest.fixture
def blas_thread_counts():
    """Return a function giving the set of thread counts of the loaded BLAS libraries."""
    from threadpoolctl import threadpool_info

    def counts() -> set[int]:
        return {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}

    return counts


@pytest.fixture(scope="session")
def demo_logs():
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "data" / "demo"
    assert any(path.glob("*")), f"the demo logs are missing from {path}"
    return path
