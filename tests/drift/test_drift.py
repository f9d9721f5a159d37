"""Drift: the interval rule, planted changes over replicates, the command, real logs."""

from pathlib import Path

import numpy as np
import pytest

from judgestats.cli import main
from judgestats.drift import Change, DriftConfig, change_verdict, drift
from judgestats.simulate import BenchmarkSpec, CohortConfig, JudgeParams
from judgestats.simulate.snapshots import simulate_snapshot

REPO = Path(__file__).resolve().parents[2]
SHARED = (REPO / ".." / "shared" / "data").resolve()
DEMO_DRIFT = REPO / "data" / "demo-drift"


@pytest.mark.parametrize(
    ("lo", "hi", "expected"),
    [
        (0.06, 0.2, Change.CHANGED),
        (-0.3, -0.051, Change.CHANGED),
        (-0.04, 0.049, Change.STABLE),
        (0.0, 0.07, Change.INCONCLUSIVE),
        (-0.2, 0.2, Change.INCONCLUSIVE),
        (np.nan, np.nan, Change.NOT_MEASURED),
    ],
)
def test_change_verdict_rule(lo, hi, expected):
    assert change_verdict(lo, hi, 0.05) is expected


def _snapshots(seed, n_items=600, shift=0.25):
    spec = BenchmarkSpec("bench", n_items, "correctness", runs=2)
    judges = {"steady": JudgeParams(agreement=0.8), "mover": JudgeParams(agreement=0.8)}
    old = CohortConfig.from_judges(judges, [spec])
    new = old.with_judge("mover", JudgeParams(agreement=0.8, position=shift))
    return (
        simulate_snapshot(old, seed, 0).dataset,
        simulate_snapshot(new, seed, 1).dataset,
    )


def _rates(replicates, seed0):
    out = {"mover CHANGED": [], "steady STABLE": [], "steady CHANGED": [], "flips CHANGED": []}
    out["steady flips CHANGED"] = []
    for r in range(replicates):
        old, new = _snapshots(seed0 + r)
        res = drift(old, new, DriftConfig(draws=500), random_seed=r)
        mover = res.get("mover", "bench", "position_bias").verdict
        steady = res.get("steady", "bench", "position_bias").verdict
        flips = {f.judge: f.verdict for f in res.flips}
        out["mover CHANGED"].append(mover is Change.CHANGED)
        out["steady STABLE"].append(steady is Change.STABLE)
        out["steady CHANGED"].append(steady is Change.CHANGED)
        out["flips CHANGED"].append(flips["mover"] is Change.CHANGED)
        out["steady flips CHANGED"].append(flips["steady"] is Change.CHANGED)
    rates = {
        k: (np.mean(v), np.sqrt(np.mean(v) * (1 - np.mean(v)) / len(v))) for k, v in out.items()
    }
    for k, (p, se) in rates.items():
        print(f"{k}: {p:.3f} ± {se:.3f} (n={replicates})")
    return rates


def test_planted_drift_quick():
    """Position bias moved by ~0.12 (position 0.25) on 600 items: CHANGED; the steady judge not."""
    rates = _rates(4, seed0=10)
    assert rates["mover CHANGED"][0] == 1.0
    assert rates["steady CHANGED"][0] == 0.0


@pytest.mark.calibration
def test_planted_drift_over_replicates():
    """Over 60 replicates: the moved judge is CHANGED at least 95% of the time, the steady
    one STABLE at least 80% and CHANGED at most 5% (the interval rule's two tails give
    about 2.5% at most when the truth is 0, plus 3 MC s.e.)."""
    rates = _rates(60, seed0=1000)
    assert rates["mover CHANGED"][0] >= 0.95
    assert rates["steady STABLE"][0] >= 0.80
    assert rates["steady CHANGED"][0] <= 0.05
    assert rates["flips CHANGED"][0] >= 0.95
    assert rates["steady flips CHANGED"][0] <= 0.05


def test_drift_command_on_demo(tmp_path, capsys):
    out = tmp_path / "drift"
    code = main([
        "drift", str(DEMO_DRIFT / "old"), str(DEMO_DRIFT / "new"), "-o", str(out),
        "--fail-on", "changed",
    ])  # fmt: skip
    assert code == 1  # the planted drift of GPT-4o trips the gate
    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["index.html", "drift.csv", "item_flips.csv", "drift.json", "drift.tex"]
    )
    text = capsys.readouterr().out
    changed = [ln for ln in text.splitlines() if ln.endswith("CHANGED") and "position_bias " in ln]
    assert changed and all(ln.startswith("GPT-4o ") for ln in changed)


def test_drift_bad_delta_exits_2(tmp_path, capsys):
    args = ["drift", str(DEMO_DRIFT / "old"), str(DEMO_DRIFT / "new"), "-o", str(tmp_path / "d")]
    with pytest.raises(SystemExit) as exc:
        main([*args, "--delta", "kapa=0.1"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--delta 'kapa=0.1'" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "d").exists()


@pytest.mark.skipif(not (SHARED / "position_bias").exists(), reason="real data absent")
def test_drift_between_two_runs_of_the_position_bias_study():
    """Repetition 1 vs 2 of the same judges: every comparison is returned and measured."""
    import judgestats as js

    folder = SHARED / "position_bias" / "judgment_data" / "data_MTBench_repetition"
    snaps = []
    for rep in ("Repetition1-", "Repetition2-"):
        files = sorted(p for p in folder.iterdir() if p.name.startswith(rep))[:4]
        ds, _ = js.read_logs(files)
        snaps.append(ds)
    res = drift(*snaps, DriftConfig(draws=300), random_seed=0)
    assert res.changes
    kinds = {c.verdict for c in res.changes if c.metric == "position_bias"}
    assert kinds - {Change.NOT_MEASURED}
    assert all(f.n_shared > 0 for f in res.flips)
