"""Test-suite options: ``--run-slow`` runs parameter recovery and calibration."""

import pytest


def pytest_addoption(parser):
    parser.addoption(
        "--run-slow",
        action="store_true",
        default=False,
        help="run tests marked slow (parameter recovery, calibration, sampler health)",
    )


def pytest_collection_modifyitems(config, items):
    if config.getoption("--run-slow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --run-slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def demo_logs():
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "data" / "demo"
    assert any(path.glob("*")), f"the demo logs are missing from {path}"
    return path
