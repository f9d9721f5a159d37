"""The import and info commands, run as a user would."""

import subprocess
import sys


def run(*args):
    return subprocess.run(
        [sys.executable, "-m", "judgestats", *args], capture_output=True, text=True, check=False
    )


def test_import_prints_the_accounting_and_info_describes(tmp_path, demo_logs):
    out = tmp_path / "demo.nc"
    res = run("import", str(demo_logs), "-o", str(out))
    assert res.returncode == 0, res.stderr
    assert "read 15120 = imported 15120 + duplicates 0 + rejected 0 (adds up)" in res.stdout
    for fmt in ("mt_bench.csv", "judgebench.jsonl", "rewardbench.parquet"):
        assert fmt in res.stdout
    info = run("info", str(out))
    assert info.returncode == 0, info.stderr
    assert "judges (6)" in info.stdout
    assert "MT-Bench: 200 items (preference)" in info.stdout
    assert "verdicts: 15120 judgments" in info.stdout


def test_errors_are_messages_not_tracebacks(tmp_path):
    res = run("import", str(tmp_path / "absent"), "-o", str(tmp_path / "x.nc"))
    assert res.returncode == 2
    assert "no such file or folder" in res.stderr
    assert "Traceback" not in res.stderr
