"""The import and info commands, run as a user would."""

import contextlib
import io
import subprocess
import sys

import pytest


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
    # every record conflicts with its replicate: nothing imported, exit 2, and the
    # accounting names the option that reads the runs from the file names
    assert res.returncode == 2, res.stderr
    assert "rejected 8" in res.stdout and "--run-pattern" in res.stdout
    res = run("import", str(tmp_path), "--run-pattern", r"_(\d+)\.json$", "-o", str(out))
    assert res.returncode == 0, res.stderr
    assert "read 8 = imported 8 + duplicates 0 + rejected 0" in res.stdout
    bad = run("import", str(tmp_path), "--label-kind", "AlpacaEval", "-o", str(out))
    assert bad.returncode != 0 and "expected BENCH=KIND" in bad.stderr
    unknown = run("import", str(tmp_path), "--label-kind", "Nope=preference", "-o", str(out))
    assert unknown.returncode == 2 and "no log read has" in unknown.stderr


LOG = "judge,item,verdict,order,run\nj1,q1,A,AB,0\nj1,q2,B,BA,0\n"


def call(*args):
    """Run the command line in this process (as ``run`` does in a new one)."""
    from judgestats.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(list(args))
        except SystemExit as exc:
            rc = exc.code
    return subprocess.CompletedProcess(args, rc, out.getvalue(), err.getvalue())


def _log(tmp_path, name="log.csv", text=LOG):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _one_line_error(res, *words):
    assert res.returncode == 2, (res.stdout, res.stderr)
    assert "Traceback" not in res.stderr
    errors = [ln for ln in res.stderr.splitlines() if ln.startswith("judgestats: error:")]
    assert len(errors) == 1, res.stderr
    for w in words:
        assert w in errors[0], errors[0]


def test_import_refuses_to_overwrite_its_input(tmp_path):
    log = _log(tmp_path)
    res = call("import", str(log), "-o", str(log))
    _one_line_error(res, "log.csv", "one of the inputs")
    assert log.read_text(encoding="utf-8") == LOG


def test_import_refuses_an_output_without_a_dataset_suffix(tmp_path):
    res = call("import", str(_log(tmp_path)), "-o", str(tmp_path / "out.csv"))
    _one_line_error(res, ".nc", ".zarr")
    assert not (tmp_path / "out.csv").exists()


def test_same_file_given_twice_is_read_once(tmp_path):
    log = _log(tmp_path)
    res = call("import", str(log), str(log), str(tmp_path), "-o", str(tmp_path / "x.nc"))
    assert res.returncode == 0, res.stderr
    assert "read 2 = imported 2 + duplicates 0 + rejected 0 (adds up)" in res.stdout
    assert res.stdout.count("the same file as") == 2


def test_import_with_nothing_read_exits_2_after_the_accounting(tmp_path):
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "notes.txt").write_text("not a log\n", encoding="utf-8")
    res = call("import", str(tmp_path / "logs"), "-o", str(tmp_path / "x.nc"))
    _one_line_error(res, "nothing imported")
    assert "read 0 = imported 0" in res.stdout
    assert not (tmp_path / "x.nc").exists()


def test_output_path_errors_are_messages(tmp_path):
    log = _log(tmp_path)
    (tmp_path / "dir.nc").mkdir()
    _one_line_error(call("import", str(log), "-o", str(tmp_path / "dir.nc")), "is a folder")
    (tmp_path / "file").write_text("x", encoding="utf-8")
    res = call("report", str(log), "-o", str(tmp_path / "file"), "--fast")
    _one_line_error(res, "not a folder")
    assert "fitting" not in res.stderr  # refused before any work


def test_foreign_netcdf_says_what_is_missing(tmp_path):
    import xarray as xr

    path = tmp_path / "other.nc"
    xr.Dataset({"x": ("a", [1, 2])}).to_netcdf(path, engine="h5netcdf")
    for command in ("info", "metrics"):
        _one_line_error(
            call(command, str(path)), "other.nc", "not a Judgments dataset", "'verdict'"
        )


def test_unreadable_file_with_format_is_a_reject_not_a_traceback(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"\xff\xfe\x00\xd8")  # a UTF-16 mark, then half a surrogate pair
    res = call("import", str(bad), "--format", "table", "-o", str(tmp_path / "x.nc"))
    _one_line_error(res, "nothing imported")
    assert "UTF-16" in res.stdout


def test_json_numbers_too_large_for_a_float_reject_their_record(tmp_path):
    huge = "1" + "0" * 400
    text = f'{{"judge": "j", "item": "q1", "verdict": "A", "length_a": {huge}}}\n'
    text += '{"judge": "j", "item": "q2", "verdict": "A", "length_a": 1e400}\n'
    text += f'{{"judge": "j", "item": "q3", "verdict": "A", "length_a": {"9" * 5000}}}\n'
    text += '{"judge": "j", "item": "q4", "verdict": "A"}\n'
    res = call("import", str(_log(tmp_path, "log.jsonl", text)), "-o", str(tmp_path / "x.nc"))
    assert res.returncode == 0, res.stderr
    assert "read 4 = imported 1 + duplicates 0 + rejected 3 (adds up)" in res.stdout
    assert res.stdout.count("does not fit a float64") == 3


def test_verdict_map_has_a_command_line_spelling(tmp_path):
    log = _log(tmp_path, text="judge,item,verdict\nj1,q1,left\n")
    res = call("import", str(log), "-o", str(tmp_path / "x.nc"))
    _one_line_error(res, "nothing imported")
    assert "--verdict-map" in res.stdout
    res = call("import", str(log), "--verdict-map", "left=A", "-o", str(tmp_path / "x.nc"))
    assert res.returncode == 0, res.stderr
    _one_line_error(call("import", str(log), "--verdict-map", "left", "-o", "y.nc"), "RAW=TARGET")
    bad = call("import", str(log), "--verdict-map", "left=up", "-o", str(tmp_path / "y.nc"))
    _one_line_error(bad, "verdict_map")


def test_interrupt_exits_130_with_one_line(tmp_path, monkeypatch, capsys):
    from judgestats import cli
    from judgestats.cli import import_

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(import_, "load_input", interrupted)
    out = tmp_path / "x.nc"
    try:
        rc = cli.main(["import", str(_log(tmp_path)), "-o", str(out)])
    except KeyboardInterrupt:
        pytest.fail("the interrupt escaped main() as a traceback")
    assert rc == 130
    err = capsys.readouterr().err
    assert err.strip().splitlines() == ["judgestats: interrupted; no output was written"]
    assert not out.exists()


@pytest.mark.parametrize(
    ("pattern", "words"),
    [("seed(\\d+", ["run_pattern", "not a regular expression"]), ("(a)(b)", ["2 groups"])],
)
def test_a_bad_run_pattern_exits_2_before_reading(tmp_path, pattern, words):
    log = _log(tmp_path)
    res = call("import", str(log), "--run-pattern", pattern, "-o", str(tmp_path / "x.nc"))
    _one_line_error(res, *words)
    assert not (tmp_path / "x.nc").exists() and "read " not in res.stdout


POSITION_TSV = "cmp_index\tanswer1\tanswer2\tjudge-y\n1;m-a;m-b\tshort\tlonger one\t[[A]]\n"


def test_benchmark_option_names_the_benchmark_of_logs_that_lack_one(tmp_path):
    log = _log(tmp_path, "record_judge-y_1.tsv", POSITION_TSV)
    out = tmp_path / "x.nc"
    res = call("import", str(log), "-o", str(out))
    assert res.returncode == 2 and "--benchmark NAME" in res.stdout + res.stderr
    res = call("import", str(log), "--benchmark", "MyBench", "-o", str(out))
    assert res.returncode == 0, res.stderr
    info = call("info", str(out))
    assert "MyBench: 1 items" in info.stdout, info.stdout


def test_verbose_logs_this_package_and_only_warnings_of_others(demo_logs):
    """``-v`` shows the package's details; PyTensor and ArviZ, imported after it, log
    their INFO lines (configuration, backends) at import, which it must not show."""
    code = (
        "from judgestats.cli import main; import sys;"
        f" main(['-v', 'info', {str(demo_logs)!r}]); import pytensor, arviz"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    lines = res.stderr.splitlines()
    assert any(line.startswith("INFO judgestats: reading ") for line in lines), lines
    assert not [line for line in lines if line.startswith("INFO") and "judgestats" not in line]
