"""The seed-002 preset: size, timing, and true values inside the published ranges."""

import numpy as np
import pytest

from judgestats.schema import Verdict
from judgestats.simulate import seed002_cohort, simulate, true_metrics
from judgestats.simulate.presets import SEED002_RANGES, SEED002_TARGETS

MT, JB, RB = "MT-Bench", "JudgeBench", "RewardBench"


@pytest.fixture(scope="module")
def full():
    return (simulate(seed002_cohort(), random_seed=2026),)


@pytest.fixture(scope="module")
def truth(full):
    return full[0].truth


def ranks(truth, benchmark):
    """Rank by true kappa, 1 = highest."""
    k = truth["kappa"].sel(benchmark=benchmark).values
    r = np.empty(len(k), dtype=int)
    r[np.argsort(-k)] = np.arange(1, len(k) + 1)
    return dict(zip(truth["judge"].values.tolist(), r.tolist(), strict=True))


def inside(values, lo, hi):
    values = np.asarray(values)
    return bool(np.all((values >= lo) & (values <= hi)))


def test_cohort_size(full):
    (res,) = full
    cfg = res.config
    assert len(cfg.judges) == 21
    assert [(b.name, b.n_items) for b in cfg.benchmarks] == [(MT, 2391), (JB, 350), (RB, 2981)]
    assert {"Qwen 3 8B", "Gemini 2.5 Flash", "Gemini 2.5 Pro", "Gemini 3.1 Pro"} <= set(cfg.judges)
    assert {"Claude Opus 4.6", "Llama 3.3 70B", "GPT-4o-mini", "GPT-5.4", "GPT-5.4-mini"} <= set(
        cfg.judges
    )
    assert {"DeepSeek V3.2", "Kimi K2.5", "GLM-5", "Minimax M2.7"} <= set(cfg.judges)
    n = int((res.dataset["verdict"] != Verdict.MISSING).sum())
    assert n == cfg.n_judgments == 533_169
    assert 500_000 <= n <= 600_000


def test_mt_bench_kappa_and_deflation(truth):
    kappa = truth["kappa"].sel(benchmark=MT)
    deflation = truth["deflation_raw"].sel(benchmark=MT)
    assert inside(kappa, *SEED002_RANGES["kappa_mt"])
    assert inside(deflation, *SEED002_RANGES["deflation_mt"])
    # The range is reproduced, not only respected: its ends are the published ones.
    assert round(float(kappa.min()), 3) == 0.376 and round(float(kappa.max()), 3) == 0.511
    assert round(float(deflation.min()), 3) == 0.338
    assert round(float(deflation.max()), 3) == 0.413
    assert float(deflation.mean()) == pytest.approx(0.386, abs=0.002)
    # The other reading of the seed (tie-excluded exact match minus kappa) agrees.
    em_deflation = truth["exact_match"].sel(benchmark=MT) - kappa
    assert inside(em_deflation, *SEED002_RANGES["deflation_mt"])
    assert float(np.abs(em_deflation - deflation).max()) < 0.01


def test_judgebench_kappa(truth):
    kappa = truth["kappa"].sel(benchmark=JB)
    assert inside(kappa, *SEED002_RANGES["kappa_jb"])
    assert round(float(kappa.min()), 3) == 0.271 and round(float(kappa.max()), 3) == 0.875
    assert float(kappa.sel(judge="Qwen 3 8B")) == pytest.approx(0.289, abs=5e-4)


def test_position_bias_where_measured(truth):
    pb = truth["position_bias"]
    for bench in (MT, JB):
        assert inside(pb.sel(benchmark=bench), *SEED002_RANGES["position_bias"])
        assert round(float(pb.sel(benchmark=bench).min()), 3) == 0.002
        assert round(float(pb.sel(benchmark=bench).max()), 3) == 0.192
        assert pb.sel(benchmark=bench).idxmin().item() == "Gemini 2.5 Pro"
        assert pb.sel(benchmark=bench).idxmax().item() == "Qwen 3 8B"
    # One randomised order per item: no paired orders, so not measured.
    assert np.isnan(pb.sel(benchmark=RB)).all()


def test_mean_test_retest(truth):
    tr = truth["test_retest_share"]
    assert float(tr.sel(benchmark=MT).mean()) == pytest.approx(0.943, abs=0.01)
    assert float(tr.sel(benchmark=JB).mean()) == pytest.approx(0.911, abs=0.01)


def test_exactly_two_paradox_judges(truth):
    for bench in (MT, JB):
        t = truth.sel(benchmark=bench)
        paradox = (t["test_retest_share"] > 0.95) & (t["position_bias"] > 0.10)
        assert sorted(t["judge"].values[paradox.values]) == ["Gemini 2.5 Flash", "Qwen 3 8B"]
    mt = truth.sel(benchmark=MT)
    assert float(mt["test_retest_share"].sel(judge="Qwen 3 8B")) == pytest.approx(0.992, abs=5e-4)
    assert float(mt["position_bias"].sel(judge="Qwen 3 8B")) == pytest.approx(0.192, abs=5e-4)
    gemini = float(mt["test_retest_share"].sel(judge="Gemini 2.5 Flash"))
    assert gemini == pytest.approx(0.988, abs=5e-4)
    assert float(mt["position_bias"].sel(judge="Gemini 2.5 Flash")) == pytest.approx(
        0.125, abs=5e-4
    )


def test_rank_shifts(truth):
    r = {b: ranks(truth, b) for b in (MT, JB, RB)}
    shift = {j: max(r[b][j] for b in r) - min(r[b][j] for b in r) for j in r[MT]}
    assert r[MT]["Llama 3.3 70B"] == 5 and r[JB]["Llama 3.3 70B"] == 19
    assert max(shift.values()) == 14
    assert max(shift, key=shift.get) == "Llama 3.3 70B"
    top3 = sorted(j for j in r[MT] if all(r[b][j] <= 3 for b in r))
    assert top3 == ["Claude Opus 4.6", "Gemini 3.1 Pro"]
    spread_mt = float(np.ptp(truth["kappa"].sel(benchmark=MT).values))
    spread_jb = float(np.ptp(truth["kappa"].sel(benchmark=JB).values))
    assert spread_jb / spread_mt == pytest.approx(4.5, abs=0.05)


def test_verbosity(truth):
    v = truth["verbosity"]
    assert inside(v, *SEED002_RANGES["verbosity"]) and float(v.max()) < 0.011
    mt = v.sel(benchmark=MT)
    assert mt.idxmax().item() == "GPT-4o-mini"
    assert int((mt < 0.005).sum()) == 17


def test_stored_parameters_hit_their_targets(full):
    """The rounded parameters stored in the preset still give the calibration targets."""
    cfg = full[0].config
    truth = full[0].truth
    for judge, t in SEED002_TARGETS.items():
        mt = truth.sel(judge=judge, benchmark=MT)
        assert float(mt["kappa"]) == pytest.approx(t["kappa_mt"], abs=2e-5)
        assert float(mt["deflation_raw"]) == pytest.approx(t["deflation_mt"], abs=2e-5)
        assert float(truth["kappa"].sel(judge=judge, benchmark=JB)) == pytest.approx(
            t["kappa_jb"], abs=2e-5
        )
        assert float(truth["kappa"].sel(judge=judge, benchmark=RB)) == pytest.approx(
            t["kappa_rb"], abs=2e-5
        )
        assert float(mt["position_bias"]) == pytest.approx(t["position_bias"], abs=2e-5)
        assert float(mt["test_retest_share"]) == pytest.approx(t["test_retest_mt"], abs=2e-5)
    # The truth in the result is the per-pair truth of model.true_metrics.
    p = cfg.get("GLM-5", JB)
    assert true_metrics(p, cfg.benchmark(JB))["kappa"] == pytest.approx(
        float(truth["kappa"].sel(judge="GLM-5", benchmark=JB)), abs=1e-12
    )


def test_sample_is_close_to_truth(full):
    """A sanity check at the preset's own size (the exact check is test_convergence)."""
    from sim_helpers import item_level

    from judgestats.metrics.formulas import derive

    res = full[0]
    feats, _, _ = item_level(res.dataset, MT)
    kappa = derive(feats.sum(1))["kappa"]
    # 2,391 items: the standard error of kappa is about 0.015.
    np.testing.assert_allclose(kappa, res.truth["kappa"].sel(benchmark=MT).values, atol=0.07)
