"""Saving and loading Judgments datasets (netCDF or zarr), losslessly."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import xarray as xr

from judgestats.errors import LogFormatError
from judgestats.schema import check

__all__ = ["load", "save"]


def _is_zarr(path: Path) -> bool:
    return path.suffix == ".zarr" or (path.is_dir() and (path / "zarr.json").exists())


def save(ds: xr.Dataset, path: str | Path) -> Path:
    """Write a Judgments dataset to netCDF (``.nc``, via h5netcdf) or zarr (``.zarr``).

    Parameters
    ----------
    ds : xarray.Dataset
        A schema-valid Judgments dataset.
    path : str or Path
        Destination; the suffix chooses the format.

    Returns
    -------
    Path
        The path written.
    """
    path = Path(path)
    check(ds)
    if _is_zarr(path):
        ds.to_zarr(path, mode="w")
    else:
        ds.to_netcdf(path, engine="h5netcdf")
    return path


def load(path: str | Path) -> xr.Dataset:
    """Read a Judgments dataset written by :func:`save`, and check its schema.

    Parameters
    ----------
    path : str or Path
        A ``.nc`` file or a ``.zarr`` store.

    Returns
    -------
    xarray.Dataset
        Loaded into memory, string coordinates restored to fixed-width unicode.
    """
    path = Path(path)
    if not path.exists():
        raise LogFormatError(f"{path}: no such file")
    try:
        if _is_zarr(path):
            ds = xr.open_zarr(path).load()
        else:
            with xr.open_dataset(path, engine="h5netcdf") as f:
                ds = f.load()
    except (OSError, ValueError) as exc:
        raise LogFormatError(f"{path}: not a readable netCDF/zarr dataset ({exc})") from None
    # Variable-length strings come back as object arrays; restore the in-memory dtype.
    for name, var in ds.variables.items():
        if var.dtype == object:
            ds[name] = var.astype(str) if var.size else var.astype("U1")
    for name in ("verdict", "human"):
        fv = ds[name].attrs.get("flag_values")
        if fv is not None:
            ds[name].attrs["flag_values"] = np.asarray(fv, dtype=np.int8)
    return check(ds)
