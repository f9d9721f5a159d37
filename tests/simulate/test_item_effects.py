"""Item effects of the simulator: shared difficulty, label noise, per-judge runs.

Oracles: closed forms (one-dimensional integrals done by ``scipy.integrate.quad``,
binomial sums for several raters) and large simulated samples measured with the
package's estimators, as in ``test_convergence.py`` (5 batch-means standard errors
over 40 item batches).
"""

import math

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.special import expit, logit
from sim_helpers import item_level, metrics_with_se

from judgestats.schema import Verdict
from judgestats.simulate import (
    BenchmarkSpec,
    CohortConfig,
    JudgeParams,
    correctness_benchmark,
    preference_benchmark,
    simulate,
    true_metrics,
)
from judgestats.simulate import model as sim_model

SD = 1.5


def _mean_over_difficulty(f):
    """E[f(z)] for z ~ Normal(0, 1), by adaptive quadrature (independent of the code)."""
    return integrate.quad(lambda z: f(z) * stats.norm.pdf(z), -np.inf, np.inf, epsabs=1e-13)[0]


def _one_shot(spec: BenchmarkSpec) -> BenchmarkSpec:
    return spec.replace(orders=("AB",), runs=1)


def test_difficulty_accuracy_is_the_mean_over_items():
    # No ties, no position, one judgment per item: exact match = E[expit(logit a - sd z)].
    spec = _one_shot(BenchmarkSpec("c", 10, "correctness", difficulty_sd=SD))
    for a in (0.55, 0.8, 0.97):
        m = true_metrics(JudgeParams(agreement=a, tie_rate=0.0), spec)
        want = _mean_over_difficulty(lambda z, a=a: expit(logit(a) - SD * z))
        assert m["exact_match"] == pytest.approx(want, abs=1e-10)
        # kappa with balanced binary labels and a symmetric judge: 2 * accuracy - 1
        assert m["kappa"] == pytest.approx(2 * want - 1, abs=1e-10)
        assert want < a  # the check has power: difficulty pulls accuracy toward 1/2


def test_quadrature_has_converged(monkeypatch):
    spec = preference_benchmark("p", 10).replace(difficulty_sd=2.5, label_noise=0.2, raters=3)
    p = JudgeParams(agreement=0.9, tie_rate=0.1, position=0.2, stability=0.7)
    base = true_metrics(p, spec)
    monkeypatch.setattr(sim_model, "DIFFICULTY_STEP", sim_model.DIFFICULTY_STEP / 2)
    finer = true_metrics(p, spec)
    for name, value in base.items():
        if math.isfinite(value):
            assert finer[name] == pytest.approx(value, abs=1e-12), name


@pytest.mark.parametrize("raters", [1, 3])
def test_label_noise_closed_form(raters):
    # A perfect judge agrees with the human label exactly when the raters' plurality
    # is the true label; one rater keeps it with q = 1 - eps + eps / 2 (binary labels).
    eps = 0.3
    spec = _one_shot(BenchmarkSpec("c", 10, "correctness", label_noise=eps, raters=raters))
    m = true_metrics(JudgeParams(agreement=1.0, tie_rate=0.0), spec)
    q = 1 - eps / 2
    want = q if raters == 1 else q**3 + 3 * q**2 * (1 - q)
    assert m["exact_match"] == pytest.approx(want, abs=1e-12)


def test_label_noise_grows_on_hard_items():
    # Hard items have noisier labels: the perfect judge's agreement is
    # E[1 - eps(z) / 2], eps(z) = expit(logit(eps) + sd z).
    eps = 0.2
    spec = _one_shot(BenchmarkSpec("c", 10, "correctness", label_noise=eps, difficulty_sd=SD))
    m = true_metrics(JudgeParams(agreement=1.0, tie_rate=0.0), spec)
    want = _mean_over_difficulty(lambda z: 1 - expit(logit(eps) + SD * z) / 2)
    assert m["exact_match"] == pytest.approx(want, abs=1e-10)


def test_without_item_effects_nothing_changes():
    spec = preference_benchmark("p", 10)
    p = JudgeParams(agreement=0.85, position=0.1, stability=0.9)
    same = spec.replace(difficulty_sd=0.0, label_noise=0.0, raters=1)
    assert true_metrics(p, same) == true_metrics(p, spec)
    a = simulate(CohortConfig.from_judges({"j": p}, [spec]), random_seed=3).dataset
    b = simulate(CohortConfig.from_judges({"j": p}, [same]), random_seed=3).dataset
    np.testing.assert_array_equal(a["verdict"].values, b["verdict"].values)


def test_judges_run_a_different_number_of_times():
    spec = preference_benchmark("p", 40, runs=3)
    cfg = CohortConfig.from_judges(
        {"once": JudgeParams(runs=1), "thrice": JudgeParams(), "five": JudgeParams(runs=5)},
        [spec],
    )
    res = simulate(cfg, random_seed=0)
    v = res.dataset["verdict"]
    assert v.sizes["run"] == 5
    ran = (v != Verdict.MISSING).any(("item", "order")).values  # (judge, run)
    assert ran.sum(1).tolist() == [1, 3, 5]
    assert math.isnan(float(res.truth["test_retest"].sel(judge="once", benchmark="p")))
    assert math.isfinite(float(res.truth["test_retest"].sel(judge="five", benchmark="p")))
    assert cfg.n_judgments == 40 * 2 * (1 + 3 + 5)
    assert res.params["judge_runs"].values[:, 0].tolist() == [1, 3, 5]


def test_config_checks():
    with pytest.raises(ValueError, match="difficulty_sd=-1"):
        BenchmarkSpec("b", 3, difficulty_sd=-1)
    with pytest.raises(ValueError, match="label_noise=1"):
        BenchmarkSpec("b", 3, label_noise=1.0)
    with pytest.raises(ValueError, match="raters=0"):
        BenchmarkSpec("b", 3, raters=0)
    with pytest.raises(ValueError, match="runs=0"):
        JudgeParams(runs=0)


JUDGES = {
    "strong": JudgeParams(agreement=0.92, tie_rate=0.05, position=0.05, stability=0.9),
    "biased": JudgeParams(agreement=0.8, tie_rate=0.02, position=0.6, stability=0.98),
    "weak": JudgeParams(agreement=0.65, tie_rate=0.15, stability=0.6, runs=2),
    "once": JudgeParams(agreement=0.75, tie_rate=0.05, runs=1),
}
N_ITEMS = 40_000


@pytest.fixture(scope="module")
def large():
    benchmarks = [
        preference_benchmark("pref", N_ITEMS).replace(difficulty_sd=SD, label_noise=0.15, raters=3),
        correctness_benchmark("corr", N_ITEMS).replace(difficulty_sd=SD),
    ]
    return simulate(CohortConfig.from_judges(JUDGES, benchmarks), random_seed=20260501)


@pytest.mark.parametrize("benchmark", ["pref", "corr"])
def test_sample_metrics_converge_to_population_truth(large, benchmark):
    feats, diff, v = item_level(large.dataset, benchmark)
    est, se = metrics_with_se(feats, v, diff, n_batches=40, seed=11)
    t = large.truth.sel(benchmark=benchmark)
    checked = 0
    for name, value in est.items():
        true = t[name].values
        np.testing.assert_array_equal(np.isfinite(true), np.isfinite(value), err_msg=name)
        ok = np.isfinite(true)
        assert np.all(se[name][ok] < 0.02), (name, se[name])
        err = np.abs(value[ok] - true[ok])
        assert np.all(err <= 5 * se[name][ok] + 1e-12), (name, value, true, se[name])
        checked += int(ok.sum())
    assert checked >= 40


def test_difficulty_is_shared_by_judges():
    # Two one-shot judges without ties or position: their item-level correctness is
    # correlated only through the shared difficulty, with covariance
    # E[a1(z) a2(z)] - E[a1(z)] E[a2(z)] (a closed form, no simulation).
    n = 60_000
    spec = _one_shot(BenchmarkSpec("c", n, "correctness", difficulty_sd=SD))
    ps = {
        "j1": JudgeParams(agreement=0.9, tie_rate=0.0),
        "j2": JudgeParams(agreement=0.7, tie_rate=0.0),
    }
    res = simulate(CohortConfig.from_judges(ps, [spec]), random_seed=5)
    v = res.dataset["verdict"].values[:, :, 0, 0]
    right = (v == res.dataset["human"].values[None, :, 0]).astype(float)
    a1 = lambda z: expit(logit(0.9) - SD * z)  # noqa: E731
    a2 = lambda z: expit(logit(0.7) - SD * z)  # noqa: E731
    cov = _mean_over_difficulty(lambda z: a1(z) * a2(z)) - _mean_over_difficulty(
        a1
    ) * _mean_over_difficulty(a2)
    sample = np.cov(right)[0, 1]
    # sd of a sample covariance of bounded variables: at most 0.5 / sqrt(n)
    assert abs(sample - cov) < 5 * 0.5 / math.sqrt(n)
    assert cov > 20 * 0.5 / math.sqrt(n)  # the check has power
