"""Two writers of one output, as two real processes: the second stops with exit 2.

A holder process takes the output's lock (:func:`judgestats.io.store.output_lock`) and
says so on stdout, then waits for a line on stdin; the import started meanwhile is
the second writer. Nothing depends on timing: each step waits for the other's output.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("fcntl")

_HOLDER = """
import sys
from judgestats.io.store import output_lock
with output_lock(sys.argv[1]):
    print("locked", flush=True)
    sys.stdin.readline()
"""


def _holder(out: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(out)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "locked"
    return proc


def _import(log: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "judgestats", "import", str(log), "-o", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture
def log(tmp_path: Path) -> Path:
    path = tmp_path / "logs.csv"
    path.write_text("judge,item,verdict\nj1,i1,A\nj1,i2,B\n")
    return path


def test_second_writer_exits_2_naming_the_first(log, tmp_path):
    out = tmp_path / "out.nc"
    holder = _holder(out)
    try:
        second = _import(log, out)
    finally:
        holder.communicate("\n")
    assert second.returncode == 2, second.stderr
    assert f"is being written by another judgestats process (pid {holder.pid})" in second.stderr
    assert "choose another output (-o)" in second.stderr
    assert "Traceback" not in second.stderr
    assert not out.exists()
    assert not (tmp_path / ".out.nc.lock").exists()  # the first writer done, removed
    _holder(out).communicate("\n")  # and the output free again


def test_lock_of_a_killed_writer_does_not_block(log, tmp_path):
    out = tmp_path / "out.nc"
    holder = _holder(out)
    holder.kill()
    holder.communicate()
    lock = tmp_path / ".out.nc.lock"
    assert lock.read_text().strip() == str(holder.pid)  # left behind, naming a dead process
    done = _import(log, out)
    assert done.returncode == 0, done.stderr
    assert out.exists()
    assert not lock.exists()


def test_a_command_holding_its_output_lock_writes_it(tmp_path):
    from judgestats.errors import LogFormatError
    from judgestats.io.store import atomic_output, output_lock

    out = tmp_path / "out.nc"
    with output_lock(out), output_lock(out), atomic_output(out) as tmp:
        tmp.write_bytes(b"x")
    assert out.read_bytes() == b"x"
    assert not (tmp_path / ".out.nc.lock").exists()
    conflict = pytest.raises(LogFormatError, match="another judgestats process")
    with atomic_output(out) as tmp:
        tmp.write_bytes(b"y")
        with conflict, output_lock(out):  # a write not of this command still conflicts
            pass
    assert out.read_bytes() == b"y"
