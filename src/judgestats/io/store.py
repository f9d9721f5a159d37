"""Saving and loading Judgments datasets (netCDF or zarr), losslessly and safely.

Every output is written under a temporary name in its destination folder and renamed
into place when complete, so that an interrupted or failed write leaves the previous
file (or nothing), never a truncated one; a lock beside the destination makes a
second writer of the same output fail with a message naming the first instead of
racing it (:func:`output_lock`; a command holds it from its start to its end).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

from judgestats.errors import LogFormatError
from judgestats.schema import check

try:  # POSIX; elsewhere writers are not locked against each other
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "DATASET_SUFFIXES",
    "atomic_output",
    "check_output",
    "load",
    "output_lock",
    "replace_folder",
    "save",
]

#: Suffixes of a saved dataset (or posterior): netCDF, zarr.
DATASET_SUFFIXES = (".nc", ".zarr")
#: Variables every Judgments dataset has.
_REQUIRED = ("verdict", "human")


def _is_zarr(path: Path) -> bool:
    return path.suffix == ".zarr" or (path.is_dir() and (path / "zarr.json").exists())


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def check_output(
    path: str | Path, *, inputs: Iterable[str | Path] = (), folder: bool = False
) -> Path:
    """Raise a clear error, before any work is done, if ``path`` cannot be written.

    Parameters
    ----------
    path : str or Path
        The output: a dataset file (``.nc`` or ``.zarr``), or with ``folder=True`` a
        report folder.
    inputs : iterable of path, optional
        The files read; the output may not be one of them.
    folder : bool, default False
        The output is a folder of files.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    LogFormatError
        If the output is one of the inputs, has the wrong suffix or kind (a folder
        where a file goes, or the reverse), or its folder is missing or read-only.
    """
    path = Path(path)
    for given in inputs:
        if _same_file(path, Path(given)) or path.absolute() == Path(given).absolute():
            raise LogFormatError(
                f"{path}: the output is one of the inputs; writing it would destroy the"
                " log. Choose another output name"
            )
    if folder:
        if path.exists() and not path.is_dir():
            raise LogFormatError(
                f"{path}: exists and is not a folder; the report is a folder of files,"
                " choose another -o"
            )
    else:
        if path.suffix not in DATASET_SUFFIXES:
            raise LogFormatError(
                f"{path}: an output needs the suffix .nc (netCDF) or .zarr (zarr),"
                f" not {path.suffix or 'none'!r}; for example -o judgments.nc"
            )
        if path.suffix == ".nc" and path.is_dir():
            raise LogFormatError(f"{path}: is a folder; give a file name such as {path}/data.nc")
    parent = path.absolute().parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise LogFormatError(f"{path}: {parent} is not a folder; choose another output")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise LogFormatError(f"{path}: cannot write in {parent} (permission denied)")
    return path


#: Lock files of the outputs this process holds for a whole command
#: (:func:`output_lock`): the command's own write goes ahead without locking again.
_COMMAND_LOCKS: set[Path] = set()


def _lock_file(path: Path) -> Path:
    """Return the lock file of output ``path``: a hidden file beside it."""
    return path.absolute().parent.resolve() / f".{path.name}.lock"


def _holder(lock: Path) -> str:
    """Return which process holds ``lock``, as its file says (``pid N``)."""
    try:
        pid = lock.read_text().strip()
    except OSError:
        pid = ""
    return f"pid {pid}" if pid.isdigit() else "pid unknown"


def _acquire(path: Path, lock: Path) -> Any:
    """Open and lock ``lock`` for output ``path``, or raise naming the process holding it.

    The lock is the operating system's (``flock``): it ends with the process that holds
    it, so a lock file left by a killed process never blocks. A holder removes the file
    before unlocking, so a file locked after its removal is not the lock: it is opened
    again.
    """
    for _ in range(8):
        try:
            fh = open(lock, "a+")  # noqa: SIM115 (held open for the lock's life)
        except OSError as exc:
            raise LogFormatError(
                f"{path}: cannot write in {path.parent} ({exc.strerror})"
            ) from None
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.close()
            raise LogFormatError(
                f"{path}: is being written by another judgestats process ({_holder(lock)});"
                " wait for it to finish, or choose another output (-o)"
            ) from None
        try:
            current = os.stat(lock).st_ino == os.fstat(fh.fileno()).st_ino
        except FileNotFoundError:
            current = False
        if current:
            fh.seek(0)
            fh.truncate()
            fh.write(f"{os.getpid()}\n")
            fh.flush()
            return fh
        fh.close()  # the holder removed it meanwhile: take the new one
    raise LogFormatError(
        f"{path}: other judgestats processes keep writing this output; wait for them to"
        " finish, or choose another output (-o)"
    )


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[Path]:
    """Hold the lock of output ``path`` (creating its folder); yield the lock file."""
    try:
        path.absolute().parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise LogFormatError(f"{path}: cannot create its folder ({exc.strerror})") from None
    lock = _lock_file(path)
    if fcntl is None:  # pragma: no cover (not POSIX: writers are not locked)
        yield lock
        return
    fh = _acquire(path, lock)
    try:
        yield lock
    finally:
        with contextlib.suppress(OSError):
            lock.unlink()  # still locked: a writer waiting meanwhile opens a new file
        fcntl.flock(fh, fcntl.LOCK_UN)
        fh.close()


@contextlib.contextmanager
def output_lock(path: str | Path) -> Iterator[None]:
    """Hold the lock of output ``path`` for a whole command.

    A second writer of the same output meanwhile (another process, or a write not
    of this command) gets a :class:`~judgestats.errors.LogFormatError` naming this
    process; the lock ends with the block or with the process (a killed writer
    leaves no lock that blocks). The command's own :func:`atomic_output` (or
    :func:`save`) of ``path`` inside the block goes ahead without locking again.

    Parameters
    ----------
    path : str or Path
        The output (its folder is created if missing).

    Yields
    ------
    None

    Raises
    ------
    LogFormatError
        If another writer holds the lock, or the folder cannot be written.
    """
    path = Path(path)
    if _lock_file(path) in _COMMAND_LOCKS:
        yield
        return
    with _locked(path) as lock:
        _COMMAND_LOCKS.add(lock)
        try:
            yield
        finally:
            _COMMAND_LOCKS.discard(lock)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def _aside(path: Path, what: str) -> Path:
    return path.parent / f".{path.name}.{what}-{os.getpid()}-{secrets.token_hex(4)}{path.suffix}"


def _swap(tmp: Path, path: Path) -> None:
    """Put ``tmp`` at ``path`` in one rename (a folder there is moved aside first)."""
    if path.is_dir() and not path.is_symlink():
        old = _aside(path, "old")
        os.replace(path, old)
        try:
            os.replace(tmp, path)
        except BaseException:
            os.replace(old, path)
            raise
        _remove(old)
    else:
        os.replace(tmp, path)


@contextlib.contextmanager
def atomic_output(path: str | Path, *, folder_of: Iterable[str] | None = None) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success it replaces ``path`` at once.

    The temporary name has the same suffix (so that writers choosing a format by the
    suffix still do). On an error or an interrupt it is removed and ``path`` is left
    as it was. The output is locked against a second writer meanwhile.

    Parameters
    ----------
    path : str or Path
        The destination (a file, or a folder such as a zarr store).
    folder_of : iterable of str, optional
        The destination is a folder of these files, written into the temporary
        folder; it is put in place with :func:`replace_folder`.

    Yields
    ------
    Path
        Where to write.

    Raises
    ------
    LogFormatError
        If another process is writing the same output, or the folder is not writable.
    """
    path = Path(path)
    held = _lock_file(path) in _COMMAND_LOCKS
    with contextlib.nullcontext() if held else _locked(path):
        tmp = _aside(path, "tmp")
        try:
            yield tmp
            if folder_of is None:
                _swap(tmp, path)
            else:
                replace_folder(tmp, path, folder_of)
        except PermissionError as exc:
            raise LogFormatError(f"{path}: cannot write ({exc.strerror})") from None
        finally:
            _remove(tmp)


def replace_folder(tmp: Path, out: Path, names: Iterable[str]) -> None:
    """Move the finished folder ``tmp`` to ``out``.

    When ``out`` does not exist, or holds nothing but files called ``names`` (an
    earlier report), the folders are swapped, so ``out`` becomes complete in one
    step. Otherwise ``out`` keeps its other files and each of ``tmp``'s replaces its
    namesake in one rename.
    """
    names = set(names)
    if not out.exists() or (out.is_dir() and {p.name for p in out.iterdir()} <= names):
        _swap(tmp, out)
        return
    for item in sorted(tmp.iterdir()):
        _swap(item, out / item.name)
    _remove(tmp)


def save(ds: xr.Dataset, path: str | Path) -> Path:
    """Write a Judgments dataset to netCDF (``.nc``, via h5netcdf) or zarr (``.zarr``).

    The file appears complete or not at all (see :func:`atomic_output`).

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

    Raises
    ------
    LogFormatError
        If the suffix is neither ``.nc`` nor ``.zarr``, the path is one of the logs
        the dataset was read from, or it cannot be written.
    """
    import json

    path = Path(path)
    check(ds)
    sources = [s["file"] for s in json.loads(ds.attrs.get("sources", "[]") or "[]")]
    check_output(path, inputs=sources)
    zarr = _is_zarr(path)
    with atomic_output(path) as tmp:
        if zarr:
            ds.to_zarr(tmp, mode="w")
        else:
            ds.to_netcdf(tmp, engine="h5netcdf")
    return path


def _not_judgments(path: Path, ds: xr.Dataset) -> str:
    missing = [v for v in _REQUIRED if v not in ds.variables]
    found = ", ".join(map(str, list(ds.data_vars)[:6])) or "no variables at its root"
    hint = ""
    with contextlib.suppress(Exception):
        groups = list(xr.open_groups(path, engine="zarr" if _is_zarr(path) else "h5netcdf"))
        if any(g.strip("/") == "posterior" for g in groups):
            hint = (
                "; it holds a posterior (written by 'fit' or 'report'), which"
                " judgestats.models.load_posterior reads"
            )
    return (
        f"{path}: not a Judgments dataset: missing {', '.join(map(repr, missing))}"
        f" (found {found}){hint}; make one from logs with 'judgestats import LOGS -o FILE.nc'"
    )


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

    Raises
    ------
    LogFormatError
        If the file is missing, unreadable, or not a Judgments dataset (the message
        says what is missing).
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
    except (OSError, ValueError, KeyError) as exc:
        raise LogFormatError(f"{path}: not a readable netCDF/zarr dataset ({exc})") from None
    if any(v not in ds.variables for v in _REQUIRED):
        raise LogFormatError(_not_judgments(path, ds))
    # Variable-length strings come back as object arrays; restore the in-memory dtype.
    for name, var in ds.variables.items():
        if var.dtype == object:
            ds[name] = var.astype(str) if var.size else var.astype("U1")
    for name in ("verdict", "human"):
        fv = ds[name].attrs.get("flag_values")
        if fv is not None:
            ds[name].attrs["flag_values"] = np.asarray(fv, dtype=np.int8)
    return check(ds)
