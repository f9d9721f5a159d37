"""The dask engine reads, accounts and tallies exactly as the in-memory path does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from engine_helpers import assert_same_read, assert_tally_equal

import judgestats as js
from judgestats.engine import read_logs_dask

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "data" / "demo"
SHARED = ROOT.parent / "shared" / "data"


@pytest.fixture(scope="module")
def demo_memory():
    return js.read_logs(DEMO)


@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_demo_equals_in_memory(client, demo_memory, npartitions):
    got = read_logs_dask(DEMO, scheduler=client, npartitions=npartitions, dense=True)
    assert_same_read(got, demo_memory)


def test_closed_form_metrics_equal(client, demo_memory):
    got = read_logs_dask(DEMO, scheduler=client, npartitions=4, dense=True)
    want = js.compute_metrics(demo_memory.dataset, random_seed=3, n_resamples=200)
    have = js.compute_metrics(got.dataset, random_seed=3, n_resamples=200)
    for name in ("value", "lo", "hi", "n", "n_items"):
        np.testing.assert_array_equal(have.data[name].values, want.data[name].values)


def test_tally_without_dense_dataset(client, demo_memory):
    got = read_logs_dask(DEMO, scheduler=client, npartitions=5, dense=False)
    assert got.dataset is None
    assert_tally_equal(got.tally, js.tally(demo_memory.dataset))
    assert got.cells == int(np.prod(list(demo_memory.dataset["verdict"].shape)))


def test_scheduler_address_and_env(client, demo_memory, monkeypatch):
    by_address = read_logs_dask(DEMO, scheduler=client.scheduler.address, npartitions=2)
    assert_same_read(by_address, demo_memory)
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", client.scheduler.address)
    by_env = read_logs_dask(DEMO, npartitions=2)
    assert_same_read(by_env, demo_memory)


HOSTILE = """judge,item,benchmark,order,run,verdict,human
j1,q1,bench,AB,0,A,A
j1,q1,bench,BA,0,B,A
j1,q1,bench,AB,0,A,A
j1,q2,bench,AB,0,A,B
j1,q2,bench,AB,0,B,B
j2,q1,bench,AB,0,tie,A
j2,q3,bench,AB,0,what,tie
j2,q4,bench,AB,0,A
j2,q5,bench,AB,x,A,A
j3,q6,bench,BA,1,B,B
j3,q1,bench,BA,1,invalid,A
"""


def test_hostile_file_rejects(client, tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "bad.csv").write_text(HOSTILE)
    (logs / "more.csv").write_text(HOSTILE.replace("j1,", "j4,").replace("q2", "q7"))
    (logs / "notes.txt").write_text("not a log\n")
    want = js.read_logs(logs)
    assert want.report.rejected > 0 and want.report.duplicates > 0
    for n in (1, 2, 5):
        got = read_logs_dask(logs, scheduler=client, npartitions=n, dense=True)
        assert_same_read(got, want)


@pytest.mark.skipif(not (SHARED / "pandalm").is_dir(), reason="shared PandaLM logs absent")
def test_real_pandalm_logs(client):
    want = js.read_logs(SHARED / "pandalm")
    got = read_logs_dask(SHARED / "pandalm", scheduler=client, npartitions=4, dense=True)
    assert_same_read(got, want)
    have = js.compute_metrics(got.dataset, interval="none").data["value"].values
    np.testing.assert_array_equal(
        have, js.compute_metrics(want.dataset, interval="none").data["value"].values
    )


REPETITION = SHARED / "position_bias" / "judgment_data" / "data_MTBench_repetition"


@pytest.mark.slow
@pytest.mark.skipif(not REPETITION.is_dir(), reason="shared position-bias logs absent")
def test_real_replicate_folders(client):
    """Replicate runs numbered from paths, companion files passed over, across partitions."""
    want = js.read_logs(REPETITION)
    got = read_logs_dask(REPETITION, scheduler=client, npartitions=3, dense=True)
    assert_same_read(got, want)


def test_nothing_importable_equals_in_memory(client, tmp_path):
    (tmp_path / "x.txt").write_text("hello\n")
    (tmp_path / "bad.csv").write_text("judge,item,benchmark,order,run,verdict\nj,q,b,AB,zz,A\n")
    want = js.read_logs(tmp_path)
    assert want.report.imported == 0
    assert_same_read(read_logs_dask(tmp_path, scheduler=client, npartitions=3), want)
