"""bench_gradient compiles the tier's model with the kernel and with the graph it replaced."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import bench_gradient
import pytest


@pytest.mark.slow  # compiles the model twice
def test_the_benchmark_times_both_forms_and_they_agree(tmp_path, monkeypatch, capsys):
    import judgestats as js
    from judgestats.simulate import exchangeable_cohort, simulate

    path = tmp_path / "cohort.nc"
    js.save(simulate(exchangeable_cohort(3, random_seed=1), random_seed=2).dataset, path)
    argv = ["bench_gradient.py", str(path), "--calls", "2", "--rounds", "1"]
    monkeypatch.setattr(sys, "argv", argv)
    bench_gradient.main()
    out = capsys.readouterr().out
    rows = {line.split()[0] for line in out.splitlines()[1:3]}
    assert rows == {"graph", "kernel"}
    ratio_line = out.splitlines()[-1]
    assert ratio_line.startswith("kernel / graph, fastest:")
    difference = float(ratio_line.rsplit(": ", 1)[1].rstrip(")"))
    assert difference < 1e-10
