"""The bundled demo logs: complete import, and equal to what the script generates."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import judgestats.io as jio
from judgestats.simulate import DEMO_SEED, demo_cohort, judgments_table, simulate
from judgestats.simulate.export import DEMO_FILES, TABLE_COLUMNS, write_demo_logs

DEMO = Path(__file__).resolve().parents[2] / "data" / "demo"


@pytest.fixture(scope="module")
def expected():
    return simulate(demo_cohort(), random_seed=DEMO_SEED)


@pytest.fixture(scope="module")
def imported():
    return jio.read_logs(DEMO)


def test_demo_folder_holds_only_the_logs():
    assert sorted(p.name for p in DEMO.iterdir()) == sorted(DEMO_FILES.values())
    assert sum(p.stat().st_size for p in DEMO.iterdir()) < 3 * 2**20
    assert {p.suffix for p in DEMO.iterdir()} == {".csv", ".jsonl", ".parquet"}


def test_demo_imports_completely(imported, expected):
    _, report = imported
    assert report.rejects == ()
    n = expected.config.n_judgments
    assert sum(a.imported for a in report.files) == n == 15_120
    assert sum(a.read for a in report.files) == n


def test_demo_matches_the_simulation(imported, expected):
    ds, _ = imported
    sim = expected.dataset
    assert set(ds["judge"].values) == set(sim["judge"].values)
    assert set(ds["item"].values) == set(sim["item"].values)
    aligned = ds.sel(judge=sim["judge"].values, item=sim["item"].values, order=sim["order"].values)
    np.testing.assert_array_equal(aligned["verdict"].values, sim["verdict"].values)
    np.testing.assert_array_equal(aligned["human"].values, sim["human"].values)
    for name in ("benchmark", "category", "label_kind", "model_a", "model_b"):
        np.testing.assert_array_equal(aligned[name].values, sim[name].values, err_msg=name)
    np.testing.assert_array_equal(aligned["length_a"].values, sim["length_a"].values)


def test_script_output_is_reproducible(tmp_path, expected):
    written = write_demo_logs(tmp_path)
    assert [p.name for p in written] == list(DEMO_FILES.values())
    for path in written:
        if path.suffix == ".parquet":
            new, old = pd.read_parquet(path), pd.read_parquet(DEMO / path.name)
            pd.testing.assert_frame_equal(new, old)
        else:
            assert path.read_bytes() == (DEMO / path.name).read_bytes(), path.name
    table = judgments_table(expected.dataset)
    assert list(table.columns) == list(TABLE_COLUMNS)
    assert len(table) == expected.config.n_judgments
