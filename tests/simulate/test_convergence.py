"""The exact truth against large simulated samples: an independent check.

The truth is enumerated (model.py); the samples are drawn step by step
(simulator.py) and measured with the package's own estimators (item_features +
derive) and a plain Pearson correlation for verbosity. Tolerance: 5 batch-means
standard errors (40 random item batches), plus 1e-12 for metrics that are
constant in the sample (such as an invalid rate of 0).
"""

import numpy as np
import pytest
from scipy import stats
from sim_helpers import canonical_keys, item_level, metrics_with_se

from judgestats.schema import Verdict
from judgestats.simulate import (
    BenchmarkSpec,
    CohortConfig,
    JudgeParams,
    chosen_rejected_benchmark,
    correctness_benchmark,
    paradox_judge,
    pattern_distribution,
    preference_benchmark,
    simulate,
    single_judge,
)

N_ITEMS = 50_000
Z = 5.0
JUDGES = {
    "typical": JudgeParams(
        agreement=0.9,
        agreement_b=0.6,
        tie_rate=0.06,
        tie_recall=0.3,
        position=0.1,
        stability=0.93,
        length_preference=0.15,
        invalid_rate=0.01,
    ),
    "paradox": paradox_judge(),
    "second-slot": JudgeParams(
        agreement=0.7, tie_rate=0.15, position=-0.25, stability=0.6, invalid_rate=0.05
    ),
    "noisy": JudgeParams(
        agreement=0.6, tie_rate=0.3, tie_recall=0.5, stability=0.3, length_preference=0.3
    ),
}


@pytest.fixture(scope="module")
def large():
    benchmarks = [
        # Skewed labels, as in the seed-002 preset's MT-Bench.
        preference_benchmark("pref", N_ITEMS).replace(label_probs=(0.6, 0.25, 0.15)),
        correctness_benchmark("corr", N_ITEMS),
        chosen_rejected_benchmark("cr", N_ITEMS),
    ]
    return simulate(CohortConfig.from_judges(JUDGES, benchmarks), random_seed=20260401)


@pytest.mark.parametrize("benchmark", ["pref", "corr", "cr"])
def test_sample_metrics_converge_to_truth(large, benchmark):
    feats, diff, v = item_level(large.dataset, benchmark)
    est, se = metrics_with_se(feats, v, diff, n_batches=40, seed=7)
    truth = large.truth.sel(benchmark=benchmark)
    checked = 0
    for name, value in est.items():
        true = truth[name].values
        # Undefined in truth exactly where undefined in the sample.
        np.testing.assert_array_equal(np.isfinite(true), np.isfinite(value), err_msg=name)
        ok = np.isfinite(true)
        assert np.all(se[name][ok] < 0.01), (name, se[name])  # the check has power
        err = np.abs(value[ok] - true[ok])
        assert np.all(err <= Z * se[name][ok] + 1e-12), (name, value, true, se[name])
        checked += int(ok.sum())
    assert checked >= 4 * 12


def test_verbosity_matches_the_metrics_definition(large):
    """The package's verbosity_bias estimator converges to the simulator's truth."""
    covariates = pytest.importorskip("judgestats.metrics.covariates")
    feats, diff, v = item_level(large.dataset, "pref")
    counts = np.stack([(v == c).sum((-2, -1)) for c in (Verdict.A, Verdict.B, Verdict.TIE)], -1)
    side = np.zeros(counts.shape[:2], dtype=np.int8)
    x = covariates.features(counts, diff - diff.mean(), side).sum(1)
    estimate = covariates.derive(x)["verbosity_bias"]
    _, se = metrics_with_se(feats, v, diff, n_batches=40, seed=7)
    truth = large.truth["verbosity"].sel(benchmark="pref").values
    assert np.all(np.abs(estimate - truth) <= Z * se["verbosity"])


def test_verbosity_is_detected_when_present(large):
    truth = large.truth["verbosity"].sel(benchmark="pref")
    assert truth.sel(judge="noisy") > 0.2
    assert truth.sel(judge="paradox") == 0.0


@pytest.mark.parametrize(
    "spec",
    [
        BenchmarkSpec("both", 30_000, "preference", runs=2),
        BenchmarkSpec("random", 30_000, "chosen_rejected", runs=3),
    ],
    ids=["both-orders", "random-order"],
)
def test_pattern_frequencies_match_enumeration(spec):
    """Chi-square of sampled pattern counts against the enumerated probabilities."""
    p = JudgeParams(agreement=0.8, tie_rate=0.1, position=0.2, stability=0.7, invalid_rate=0.05)
    res = simulate(single_judge(p, spec), random_seed=3)
    dist = pattern_distribution(p, spec, tuple(res.dataset["order"].values))
    v = res.dataset["verdict"].values[0]
    label = res.dataset["human"].values[:, 0]
    index = {k: i for i, k in enumerate(canonical_keys(dist.patterns))}
    assert len(index) == len(dist.patterns)  # enumerated patterns are distinct
    for li, code in enumerate((Verdict.A, Verdict.B, Verdict.TIE)):
        rows = v[label == code]
        if dist.label_probs[li] == 0:
            assert len(rows) == 0
            continue
        observed = np.zeros(len(index))
        np.add.at(observed, [index[k] for k in canonical_keys(rows)], 1)
        expected = dist.probs[li] * len(rows)
        big = expected >= 5
        obs = np.append(observed[big], observed[~big].sum())
        exp = np.append(expected[big], expected[~big].sum())
        assert abs(exp.sum() - obs.sum()) < 1e-6 * len(rows)  # all mass enumerated
        pvalue = stats.chisquare(obs, exp).pvalue
        assert pvalue > 1e-4, (code, pvalue)
