"""Fixtures of the importer tests: the real logs in ../shared/data, read once per session."""

from __future__ import annotations

from pathlib import Path

import pytest

import judgestats as js

REPO = Path(__file__).resolve().parents[2]
#: The project's real judgment logs (see its README); tests skip where it is absent.
SHARED_DATA = (REPO / ".." / "shared" / "data").resolve()
#: Small files written for the tests, following each format's record layout.
FIXTURES = Path(__file__).resolve().parent / "data"


def _real(name: str) -> js.io.ReadResult:
    folder = SHARED_DATA / name
    if not folder.is_dir():
        pytest.skip(f"real data {folder} is not available")
    return js.read_logs(folder)


@pytest.fixture(scope="session")
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real data {SHARED_DATA} is not available")
    return SHARED_DATA


@pytest.fixture(scope="session")
def llmbar() -> js.io.ReadResult:
    return _real("llmbar")


@pytest.fixture(scope="session")
def position_bias() -> js.io.ReadResult:
    return _real("position_bias")


@pytest.fixture(scope="session")
def pandalm() -> js.io.ReadResult:
    return _real("pandalm")
