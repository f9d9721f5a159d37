"""import -> save -> load -> compare is identical, for netCDF and zarr."""

from pathlib import Path

import pytest
import xarray as xr

from judgestats.accounting import ImportReport
from judgestats.errors import LogFormatError
from judgestats.io import load, read_logs, save
from judgestats.io.store import atomic_output, check_output
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


def _dataset():
    return simulate(demo_cohort(), random_seed=1, scale=0.05).dataset


def test_interrupted_save_leaves_the_previous_file(tmp_path, monkeypatch):
    path = save(_dataset(), tmp_path / "judgments.nc")
    before = path.read_bytes()

    def interrupted(self, target, **kwargs):
        Path(target).write_bytes(b"partial")
        raise KeyboardInterrupt

    monkeypatch.setattr(xr.Dataset, "to_netcdf", interrupted)
    with pytest.raises(KeyboardInterrupt):
        save(_dataset(), path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["judgments.nc"]  # no temp left


def test_a_second_writer_of_one_output_gets_a_clear_error(tmp_path):
    path = tmp_path / "judgments.nc"
    with atomic_output(path) as tmp:
        with pytest.raises(LogFormatError, match="another judgestats process"):
            save(_dataset(), path)
        tmp.write_bytes(b"first writer")
    assert path.read_bytes() == b"first writer"


def test_save_refuses_a_source_log_and_a_wrong_suffix(tmp_path):
    log = tmp_path / "log.csv"
    log.write_text("judge,item,verdict\nj,q,A\n", encoding="utf-8")
    ds, _ = read_logs(log)
    with pytest.raises(LogFormatError, match="one of the inputs"):
        save(ds, log)
    assert log.read_text(encoding="utf-8") == "judge,item,verdict\nj,q,A\n"
    with pytest.raises(LogFormatError, match=r"\.nc.*\.zarr"):
        save(ds, tmp_path / "out.h5")
    with pytest.raises(LogFormatError, match="one of the inputs"):
        check_output(tmp_path / "x.nc", inputs=[tmp_path / "." / "x.nc"])


def test_report_folder_is_replaced_in_one_step(tmp_path):
    out = tmp_path / "report"
    out.mkdir()
    (out / "index.html").write_text("old", encoding="utf-8")
    with atomic_output(out, folder_of=["index.html", "summary.csv"]) as tmp:
        tmp.mkdir()
        (tmp / "index.html").write_text("new", encoding="utf-8")
        (tmp / "summary.csv").write_text("new", encoding="utf-8")
        assert (out / "index.html").read_text(encoding="utf-8") == "old"  # not yet
    assert sorted(p.name for p in out.iterdir()) == ["index.html", "summary.csv"]
    mine = out / "notes.txt"  # a file of the user's is kept
    mine.write_text("mine", encoding="utf-8")
    with atomic_output(out, folder_of=["index.html", "summary.csv"]) as tmp:
        tmp.mkdir()
        (tmp / "index.html").write_text("newer", encoding="utf-8")
    assert mine.read_text(encoding="utf-8") == "mine"
    assert (out / "index.html").read_text(encoding="utf-8") == "newer"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]


def test_loading_a_foreign_netcdf_names_what_is_missing(tmp_path):
    path = tmp_path / "other.nc"
    xr.Dataset({"x": ("a", [1, 2])}).to_netcdf(path, engine="h5netcdf")
    with pytest.raises(LogFormatError, match="not a Judgments dataset: missing 'verdict'"):
        load(path)


def test_runs_that_would_not_fit_in_memory_are_an_error_naming_the_line(tmp_path, monkeypatch):
    from judgestats.io import _assemble

    monkeypatch.setattr(_assemble, "MAX_CELLS", 10**6)  # this machine's memory, made small
    log = tmp_path / "log.csv"
    log.write_text("judge,item,verdict,run\nj,q1,A,0\nj,q2,A,2000000\n", encoding="utf-8")
    with pytest.raises(LogFormatError, match=r"log\.csv:3: run 2000000 makes the dataset"):
        read_logs(log)
