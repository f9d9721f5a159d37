"""``python -m judgestats metrics``: JSON records and the text table."""

from __future__ import annotations

import json

import pytest
from metrics_helpers import make_ds

from judgestats.cli import main
from judgestats.io import save


@pytest.fixture
def saved(tmp_path, rng):
    v = rng.choice([0, 1, 2, 3], size=(2, 30, 2, 2), p=[0.5, 0.35, 0.1, 0.05])
    human = rng.choice([0, 1, 2], size=(30, 3))
    ds = make_ds(v, human, judges=["judge-a", "judge-b"], benchmark="mt")
    return save(ds, tmp_path / "judgments.nc")


def test_metrics_json_records(saved, capsys):
    assert main(["metrics", str(saved), "--json", "--resamples", "50", "--seed", "1"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert {r["judge"] for r in records} == {"judge-a", "judge-b", "(human)"}
    kappa = next(r for r in records if r["judge"] == "judge-a" and r["metric"] == "kappa")
    assert set(kappa) >= {"judge", "benchmark", "metric", "value", "lo", "hi", "n"}
    assert kappa["benchmark"] == "mt"
    assert kappa["lo"] <= kappa["value"] <= kappa["hi"]
    assert kappa["n"] == 30 * 2 * 2  # items x orders x runs


def test_metrics_text_by_order_and_metric_choice(saved, capsys):
    argv = ["metrics", str(saved), "--by", "order", "--metric", "exact_match"]
    assert main([*argv, "--metric", "test_retest", "--resamples", "20"]) == 0
    out = capsys.readouterr().out
    assert "95% interval" in out
    lines = [line for line in out.splitlines()[1:] if line.strip()]
    assert len(lines) == 2 * 2 * 2  # judges x orders x metrics
    assert all(("exact_match" in line) or ("test_retest" in line) for line in lines)


def test_metrics_fce_and_agreement_protocol(saved, capsys):
    argv = ["metrics", str(saved), "--json", "--interval", "fce", "--protocol", "agreement"]
    assert main([*argv, "--metric", "kappa"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert len(records) == 2
    assert all(r["n"] == 30 and r["se"] > 0 for r in records)


def test_metrics_bad_self_model(saved):
    with pytest.raises(SystemExit, match="JUDGE=MODEL"):
        main(["metrics", str(saved), "--self-model", "nomodel"])
