"""import -> save -> load -> compare is identical, for netCDF and zarr."""

import pytest
import xarray as xr

from judgestats.accounting import ImportReport
from judgestats.io import load, read_logs, save
from judgestats.simulate import demo_cohort, simulate


@pytest.mark.parametrize("suffix", [".nc", ".zarr"])
def test_simulated_dataset_round_trips(tmp_path, suffix):
    ds = simulate(demo_cohort(), random_seed=1, scale=0.2).dataset
    again = load(save(ds, tmp_path / f"judgments{suffix}"))
    xr.testing.assert_identical(ds, again)


def test_imported_demo_logs_round_trip_with_their_accounting(tmp_path, demo_logs):
    ds, report = read_logs(demo_logs)
    again = load(save(ds, tmp_path / "demo.nc"))
    xr.testing.assert_identical(ds, again)
    assert ImportReport.from_json(again.attrs["accounting"]) == report
