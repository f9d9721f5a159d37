"""The scale benchmarks (bench_scale, bench_blas) run against the package as it is.

The benchmarks are not run by the suite (their figures go in the README); these
tests keep the parts of ``benchmarks/bench_scale.py`` that call the package from
drifting away from its API, and check that a stage stopped at its time limit takes
its processes with it.
"""

import argparse
import math
import os
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import bench_scale  # noqa: E402


@pytest.mark.slow
def test_hierarchical_stage_compiles_and_samples_through_the_tier(small_fit_data):
    from judgestats.models import HierarchicalConfig

    out = bench_scale._sample_counts_model(small_fit_data, HierarchicalConfig(draws=30, tune=30))
    assert set(out) == {"compile", "sample", "rhat", "ess"}
    assert out["compile"] >= 0 and out["sample"] > 0  # 0 s compiling when cached
    assert math.isfinite(out["rhat"]) and out["rhat"] >= 0.99
    assert math.isfinite(out["ess"]) and out["ess"] > 0


def test_a_stage_past_its_limit_is_stopped_and_said_to_be(tmp_path):
    args = argparse.Namespace(draws=10, tune=10, resamples=10, scale_of=1.0)
    # the child would fit the per-judgment model of data that is not there; it is
    # stopped first (its interpreter alone takes longer than the limit to start)
    res = bench_scale.run_stage("per-judgment", args, tmp_path, limit=0.05)
    assert set(res) == {"stopped"} and res["stopped"] >= 0.05
    row = bench_scale._row("per-judgment model", res)
    assert "stopped" in row and "> " in row
    # nothing of the stopped stage (its work folder in its arguments, lines not cut) is
    # left running
    with os.popen("ps -ww -eo args") as ps:
        assert not any(str(tmp_path) in line for line in ps)


@pytest.fixture(scope="module")
def small_fit_data():
    from judgestats.models.base import FitData
    from judgestats.simulate import simulate, small_cohort

    return FitData.from_data(simulate(small_cohort(), random_seed=3, scale=1).dataset)


@pytest.mark.slow
def test_blas_benchmark_samples_the_seed002_model_both_ways(capsys, monkeypatch):
    import bench_blas

    monkeypatch.setattr(sys, "argv", ["bench_blas.py", "--scales", "0.02", "--steps", "5"])
    bench_blas.main()
    rows = capsys.readouterr().out.splitlines()[1:]
    assert [r.split()[0] for r in rows] == ["0.02", "0.02"]
    steps = [int(r.split()[-2]) for r in rows]
    assert all(s >= 2 * 2 * 5 for s in steps)  # at least one step per iteration and chain
