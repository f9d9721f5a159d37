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


def _seed_files(folder, names):
    import json

    for n, name in enumerate(names):
        records = [
            {
                "instruction": f"q{i}",
                "output_1": "a",
                "output_2": f"b{i}",
                "annotator": "ann",
                "preference": 1 + (i + n) % 2,
            }
            for i in range(4)
        ]
        (folder / name).write_text(json.dumps(records))


def test_run_pattern_and_label_kind_options(tmp_path):
    _seed_files(tmp_path, ["ann_0.json", "ann_1.json"])
    out = tmp_path / "x.nc"
    res = run("import", str(tmp_path), "-o", str(out))
    assert res.returncode == 0, res.stderr
    assert "rejected 8" in res.stdout and "--run-pattern" in res.stdout
    res = run("import", str(tmp_path), "--run-pattern", r"_(\d+)\.json$", "-o", str(out))
    assert res.returncode == 0, res.stderr
    assert "read 8 = imported 8 + duplicates 0 + rejected 0" in res.stdout
    bad = run("import", str(tmp_path), "--label-kind", "AlpacaEval", "-o", str(out))
    assert bad.returncode != 0 and "expected BENCH=KIND" in bad.stderr
    unknown = run("import", str(tmp_path), "--label-kind", "Nope=preference", "-o", str(out))
    assert unknown.returncode == 2 and "no log read has" in unknown.stderr
