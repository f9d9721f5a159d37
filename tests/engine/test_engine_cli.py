"""``--engine dask`` on import, metrics and report: the same outputs as in memory."""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path

import pytest
import xarray as xr

import judgestats as js
from judgestats.cli import main

DEMO = Path(__file__).resolve().parents[2] / "data" / "demo"


def cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


def test_import_writes_the_in_memory_dataset(client, tmp_path):
    mem, dask = tmp_path / "mem.nc", tmp_path / "dask.nc"
    assert cli("import", str(DEMO), "-o", str(mem))[0] == 0
    code, out, err = cli(
        "import", str(DEMO), "-o", str(dask), "--engine", "dask",
        "--scheduler", client.scheduler.address, "--partitions", "3",
    )  # fmt: skip
    assert code == 0, err
    assert "read 15120 = imported 15120 + duplicates 0 + rejected 0 (adds up)" in out
    xr.testing.assert_identical(js.load(dask), js.load(mem))


def test_metrics_json_equal(client):
    args = ["metrics", str(DEMO), "--json", "--resamples", "100", "--seed", "1"]
    code, mem, _ = cli(*args)
    assert code == 0
    code, dask, err = cli(*args, "--engine", "dask", "--scheduler", client.scheduler.address)
    assert code == 0, err
    assert json.loads(dask) == json.loads(mem)


@pytest.mark.slow
def test_report_fast(client, tmp_path):
    code, out, err = cli(
        "report", str(DEMO), "-o", str(tmp_path / "r"), "--fast", "--draws", "50",
        "--engine", "dask", "--scheduler", client.scheduler.address,
    )  # fmt: skip
    assert code == 0, err
    assert "read 15120 = imported 15120" in out
    assert (tmp_path / "r" / "summary.csv").exists()


def test_without_dask_exit_2_saying_how(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    code, _, err = cli("import", str(DEMO), "-o", str(tmp_path / "x.nc"), "--engine", "dask")
    assert code == 2
    assert "pip install judgestats[dask]" in err
    assert "Traceback" not in err
    assert not (tmp_path / "x.nc").exists()


def test_unreachable_scheduler_exit_2(monkeypatch):
    from judgestats.engine import cluster

    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", "1s")
    code, _, err = cli(
        "metrics", str(DEMO), "--engine", "dask", "--scheduler", "tcp://127.0.0.1:9",
    )  # fmt: skip
    assert code == 2
    assert "cannot reach the dask scheduler at tcp://127.0.0.1:9" in err


@pytest.mark.parametrize("value", ["0", "-2"])
def test_bad_partitions_exit_2(value):
    code, _, err = cli("metrics", str(DEMO), "--engine", "dask", "--partitions", value)
    assert code == 2
    assert f"--partitions {value}: must be at least 1" in err


def test_import_beyond_memory_exit_2_naming_the_size(client, tmp_path, monkeypatch):
    from judgestats.io import _assemble

    ds = js.read_logs(DEMO).dataset
    cells = int(ds["verdict"].size)
    monkeypatch.setattr(_assemble, "MAX_CELLS", cells - 1)  # each partition still fits
    out = tmp_path / "x.nc"
    code, _, err = cli(
        "import", str(DEMO), "-o", str(out), "--engine", "dask",
        "--scheduler", client.scheduler.address, "--partitions", "4",
    )  # fmt: skip
    assert code == 2
    assert f"= {cells:,} cells, more than fit in memory here" in err
    assert not out.exists()
