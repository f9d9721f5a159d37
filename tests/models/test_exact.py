"""Exact tier: agreement with closed form, pairing, calibration, configs."""

import numpy as np
import pytest
import xarray as xr

from judgestats.metrics import bootstrap_replicates, compute_metrics
from judgestats.models import DerivedConfig, ExactConfig, ExactModel, summarize
from judgestats.models.prior import DEFAULT_CONCENTRATION
from judgestats.simulate import (
    BenchmarkSpec,
    CohortConfig,
    JudgeParams,
    simulate,
)

METRICS = ["kappa", "exact_match", "p_first", "test_retest", "flip_rate", "invalid_rate"]


def test_posterior_mean_agrees_with_closed_form(small, exact_tree):
    point = compute_metrics(small.dataset, METRICS, interval="none")
    post = exact_tree["posterior"]
    for m in METRICS:
        est = point.value.sel(metric=m).transpose("judge", "benchmark")
        mean = post[m].mean(("chain", "draw")).transpose("judge", "benchmark")
        sd = post[m].std(("chain", "draw")).transpose("judge", "benchmark")
        n = exact_tree["constant_data"]["n_items"].transpose("judge", "benchmark").values
        # the Bayesian bootstrap is centred on the sample estimate (within 0.2 sd), moved
        # by the prior's pseudo-items, whose weight ~a/(n + a) can shift a metric
        # ranging over an interval of width 2 by at most 2a/(n + a)
        a = DEFAULT_CONCENTRATION
        gap = np.abs(mean.values - est.sel(judge=mean.judge).values)
        assert np.all(gap < 0.2 * sd.values + 2 * a / (n + a)), m


def test_sd_matches_item_bootstrap_not_judgment_level(small, exact_tree):
    reps = bootstrap_replicates(small.dataset, ["kappa"], n_resamples=1000, random_seed=5)
    boot_sd = reps.sel(metric="kappa").std("resample").transpose("judge", "benchmark")
    post_sd = exact_tree["posterior"]["kappa"].std(("chain", "draw"))
    post_sd = post_sd.transpose("judge", "benchmark").sel(judge=boot_sd.judge)
    ratio = post_sd.values / boot_sd.values
    assert np.all((ratio > 0.85) & (ratio < 1.15)), ratio
    fce = compute_metrics(small.dataset, ["kappa"], interval="fce")
    fce_sd = fce.data["se"].sel(metric="kappa").transpose("judge", "benchmark")
    # the FCE SE counts each item once (its six judgments are not independent): never
    # narrower than the posterior, and conservative by at most about half
    ratio_fce = fce_sd.sel(judge=post_sd.judge).values / post_sd.values
    assert np.all((ratio_fce > 0.9) & (ratio_fce < 1.6)), ratio_fce


def test_judges_on_the_same_items_stay_paired(small):
    ds = small.dataset
    twin = ds["verdict"].isel(judge=[0]).assign_coords(judge=["twin"])
    both = ds.drop_dims("judge").assign(verdict=xr.concat([ds["verdict"], twin], "judge"))
    tree = ExactModel(ExactConfig(draws=200)).fit(both, random_seed=2)
    k = tree["posterior"]["kappa"]
    first = str(ds.judge.values[0])
    a, b = k.sel(judge=first).values.ravel(), k.sel(judge="twin").values.ravel()
    # the same item weights: the twins move together; only the prior's novel item,
    # whose verdicts are drawn per judge, tells them apart
    assert np.corrcoef(a, b)[0, 1] > 0.99
    n = int(tree["constant_data"]["n_items"].min())
    # the novel item's weight is Beta(1, n): below 3 / n in 95% of draws, and it moves a
    # kappa (range 2) by at most twice its weight
    assert np.quantile(np.abs(a - b), 0.95) < 6 / n


def test_same_seed_same_draws(small):
    a = ExactModel(ExactConfig(draws=50)).fit(small.dataset, random_seed=9)
    b = ExactModel(ExactConfig(draws=50)).fit(small.dataset, random_seed=9)
    np.testing.assert_array_equal(a["posterior"]["kappa"].values, b["posterior"]["kappa"].values)


@pytest.mark.parametrize("method", ["bootstrap", "dirichlet"])
def test_metrics_derived_per_benchmark_equal_the_features_path(small, method):
    # the tier derives each benchmark's metrics as its features are drawn; the generic
    # path (every feature drawn first, then derived) must give the same numbers
    from judgestats.models.base import FitData, JudgeModel

    model = ExactModel(ExactConfig(method=method, draws=40))
    data = FitData.from_data(small.dataset)
    streamed, _ = model._draw_metrics(data, np.random.default_rng(3), 3)
    generic, _ = JudgeModel._draw_metrics(model, data, np.random.default_rng(3), 3)
    assert list(streamed.data_vars) == list(generic.data_vars)
    xr.testing.assert_identical(streamed, generic)


def test_metric_draws_never_hold_every_benchmarks_features(monkeypatch):
    import tracemalloc

    from judgestats.features import FEATURES
    from judgestats.models import exact
    from judgestats.models.base import FitData

    cohort = CohortConfig.from_judges(
        {f"j{i}": JudgeParams() for i in range(12)},
        [BenchmarkSpec(f"b{k}", n_items=60, runs=1) for k in range(8)],
    )
    data = FitData.from_data(simulate(cohort, random_seed=1).dataset)
    monkeypatch.setattr(exact, "BLOCK_VALUES", 1 << 16)  # 0.5 MB blocks
    tracemalloc.start()
    try:
        metrics, _ = ExactModel(ExactConfig(draws=2000))._draw_metrics(
            data, np.random.default_rng(0), 0
        )
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    features = 8 * 12 * 2 * 2000 * len(FEATURES) * 8  # float64, every benchmark: 135 MB
    held = sum(v.nbytes for v in metrics.data_vars.values())  # a third of that
    # beyond the metrics it returns, it holds the blocks in flight (two threads): the
    # features path held every feature, and the stick-breaking draws as much again
    assert peak - held < 0.1 * features, (peak / 1e6, held / 1e6, features / 1e6)


def test_dirichlet_method_agrees_with_bootstrap(small, exact_tree):
    tree = ExactModel(ExactConfig(method="dirichlet", draws=1000)).fit(small.dataset, 4)
    for m in ("kappa", "test_retest", "p_first"):
        a = exact_tree["posterior"][m].mean(("chain", "draw"))
        b = tree["posterior"][m].mean(("chain", "draw"))
        sd = exact_tree["posterior"][m].std(("chain", "draw"))
        # same data, the prior's pseudo-items spread over the labels and no pairing: within 1 sd
        assert np.all(np.abs(a - b) < sd), m


def test_ranks_and_rank_shifts_are_consistent(exact_tree):
    post = exact_tree["posterior"]
    rank = post["rank"]
    n = rank.sizes["judge"]
    # ranks within a benchmark are a permutation of 1..n in every draw
    np.testing.assert_array_equal(
        np.sort(rank.isel(benchmark=0).values, axis=-1)[0, 0], np.arange(1, n + 1)
    )
    pair = str(post["benchmark_pair"].values[0])
    b1, b2 = pair.split(" -> ")
    np.testing.assert_array_equal(
        post["rank_shift"].sel(benchmark_pair=pair).values,
        (rank.sel(benchmark=b2) - rank.sel(benchmark=b1)).values,
    )
    assert set(np.unique(post["top_k_all"].values)) <= {0.0, 1.0}
    assert float(post["max_rank_shift"].min()) >= 0


def test_paradox_probability_finds_the_paradox_judge(small, exact_tree):
    p = exact_tree["posterior"]["paradox"].mean(("chain", "draw"))
    truth = (small.truth["test_retest"] > 0.95) & (small.truth["position_bias"] > 0.10)
    assert bool(truth.sel(judge="Qwen 3 8B", benchmark="MT-Bench"))
    assert float(p.sel(judge="Qwen 3 8B", benchmark="MT-Bench")) > 0.95
    assert float(p.sel(judge="Gemini 3.1 Pro", benchmark="MT-Bench")) < 0.05


def test_summary_columns_and_thresholds(exact_tree):
    s = summarize(exact_tree, var_names=["position_bias", "max_rank_shift"], prob=0.9)
    assert {"mean", "median", "lo", "hi", "p_threshold", "r_hat", "ess_bulk", "ess_tail"} <= set(
        s.columns
    )
    pb = s[s.variable == "position_bias"]
    draws = exact_tree["posterior"]["position_bias"]
    row = pb.iloc[0]
    d = draws.sel(judge=row.judge, benchmark=row.benchmark).values.ravel()
    assert row.p_threshold == pytest.approx(np.mean(d < 0.10))
    assert row.lo == pytest.approx(np.quantile(d, 0.05))
    assert (s.variable == "max_rank_shift").sum() == 1
    with pytest.raises(ValueError, match="no posterior quantity"):
        summarize(exact_tree, var_names=["nonsense"])


def test_config_errors_quote_the_value():
    with pytest.raises(ValueError, match="'magic'"):
        ExactConfig(method="magic")
    with pytest.raises(ValueError, match="'nonsense'"):
        DerivedConfig(rank_by="nonsense")


@pytest.mark.slow
def test_calibration_of_90_percent_intervals():
    """Coverage of 90% intervals over 200 replicates with known truth: within 85-95%."""
    spec = BenchmarkSpec("bench", 200, "preference", runs=2)
    judges = {
        "steady": {"bench": JudgeParams(agreement=0.85, position=0.05, stability=0.95)},
        "biased": {"bench": JudgeParams(agreement=0.7, position=0.25, stability=0.9)},
    }
    cfg = CohortConfig.from_judges(judges, (spec,))
    model = ExactModel(ExactConfig(draws=400, chains=1))
    hits = []
    truth = None
    for rep in range(200):
        res = simulate(cfg, random_seed=1000 + rep)
        truth = res.truth if truth is None else truth
        s = summarize(model.fit(res.dataset, random_seed=rep), var_names=METRICS[:5], prob=0.9)
        t = np.array(
            [
                float(truth[v].sel(judge=j, benchmark=b))
                for v, j, b in zip(s.variable, s.judge, s.benchmark, strict=True)
            ]
        )
        hits.append((s.lo.values <= t) & (t <= s.hi.values))
    coverage = np.mean(hits)
    assert 0.85 <= coverage <= 0.95, coverage


def test_saved_posterior_is_small_and_loads_back_identical(small, exact_tree, tmp_path):
    import h5py

    from judgestats.models import load_posterior, save_posterior
    from judgestats.models.derived import DERIVED_VARIABLES

    path = save_posterior(exact_tree, tmp_path / "posterior.nc")
    with h5py.File(path) as f:
        stored = set(f["posterior"])
        assert f["posterior"]["kappa"].dtype == np.float32
        assert f["posterior"]["kappa"].compression == "gzip"
        assert f["constant_data"]["n_items"].dtype == np.int64  # counts stay exact
    # recomputed on load, never stored: ranks and shifts, and metrics of metrics
    assert not stored & {*DERIVED_VARIABLES, "deflation", "position_bias", "order_consistency"}
    back = load_posterior(path)
    for group in ("posterior", "constant_data"):
        xr.testing.assert_identical(back[group].to_dataset(), exact_tree[group].to_dataset())
    assert list(back["posterior"].data_vars) == list(exact_tree["posterior"].data_vars)
    assert back.attrs == exact_tree.attrs


@pytest.mark.parametrize("k", [7, 5000])  # the alias table, and the inverse cdf
def test_atoms_of_the_novel_items_are_picked_with_their_prior_probability(k):
    from judgestats.models.prior import _pick

    rng = np.random.default_rng(0)
    prob = rng.dirichlet(np.full(k, 0.5))
    prob[1] = 0.0  # never picked
    x = _pick(prob, (400_000, 2), rng).ravel()
    from scipy.stats import chisquare

    counts = np.bincount(x, minlength=k)
    assert counts[1] == 0
    expected = prob / prob.sum() * x.size
    big = expected >= 5  # the rest pooled, as the chi-square test needs
    rest = ~big & (expected > 0)
    observed, wanted = counts[big], expected[big]
    if rest.any():
        observed, wanted = np.r_[observed, counts[rest].sum()], np.r_[wanted, expected[rest].sum()]
    assert chisquare(observed, wanted).pvalue > 1e-4


def test_bootstrap_features_are_each_judges_weighted_item_features(small):
    # oracle: item by item, every item's weight times its features under the judge's
    # pattern and the item's label, plus the novel item's share of its DP draw
    from judgestats.models.base import FitData
    from judgestats.models.exact import _bootstrap, _novel_atoms
    from judgestats.models.prior import base_patterns, dirichlet_with_novel, dp_feature_draws
    from judgestats.tally import LABEL_CODES

    for bt in FitData.from_data(small.dataset).tally:
        n, alpha = 7, 1.0
        got = _bootstrap(bt, alpha)(n, np.random.default_rng(3))
        rng = np.random.default_rng(3)
        weights, novel = dirichlet_with_novel(len(bt.items), n, alpha, rng)
        atoms, prob = _novel_atoms(base_patterns(bt))
        new = dp_feature_draws(atoms, prob, (n, len(bt.judges)), alpha, rng)
        expected = novel[:, None, None] * new
        for j in range(len(bt.judges)):
            for i, label in enumerate(bt.item_label):
                if bt.item_pattern[j, i] >= 0:
                    f = bt.features[bt.item_pattern[j, i], LABEL_CODES.index(int(label))]
                    expected[:, j] += weights[:, i, None] * f
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
