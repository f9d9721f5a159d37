"""Session-scoped report runs shared by the report tests (exact tier, fixed seed)."""

from __future__ import annotations

import pytest
from report_helpers import real_paths, run_cli

from judgestats.cli._common import DEMO_DATA


@pytest.fixture(scope="session")
def demo_run(tmp_path_factory):
    """``judgestats report --fast --fail-on fail`` on the bundled demo logs."""
    if not any(DEMO_DATA.glob("*")):
        pytest.skip(f"the demo logs are absent ({DEMO_DATA})")
    return run_cli(["--fast", "--seed", "1", "--fail-on", "fail"], tmp_path_factory.mktemp("demo"))


@pytest.fixture(scope="session")
def real_run(tmp_path_factory):
    """The report on real logs of ../shared/data (LLMBar subset + position-bias study)."""
    paths = real_paths()
    if len(paths) < 9:
        pytest.skip("../shared/data (LLMBar and position-bias folders) is absent")
    run = run_cli([*map(str, paths), "--fast", "--seed", "2"], tmp_path_factory.mktemp("real"))
    if run.rc == 2 and "no importer" in run.err:
        pytest.skip(f"an importer for the real data is missing: {run.err[:200]}")
    return run
