"""Hierarchical tier: structure, agreement with closed form, edge cases, save/load."""

import json

import numpy as np
import pytest
import xarray as xr

from judgestats.features import FEATURES
from judgestats.metrics import bootstrap_replicates, compute_metrics, item_feature_array
from judgestats.metrics.formulas import cohen_kappa_se, confusion
from judgestats.models import (
    HierarchicalConfig,
    HierarchicalModel,
    diagnose,
    load,
    summarize,
)
from judgestats.models.summary import REPORTED
from judgestats.simulate import (
    CohortConfig,
    JudgeParams,
    chosen_rejected_benchmark,
    correctness_benchmark,
    preference_benchmark,
    simulate,
    single_judge,
    small_cohort,
)

QUANTITIES = list(REPORTED)
TINY = HierarchicalConfig(draws=200, tune=200)


def test_posterior_holds_every_quantity(hier_model):
    tree = hier_model.result
    post = tree["posterior"]
    for name in [*QUANTITIES, "rank", "paradox"]:
        assert post[name].dims == ("chain", "draw", "judge", "benchmark"), name
    assert post["rank_shift"].dims == ("chain", "draw", "judge", "benchmark_pair")
    assert post["kendall_tau"].dims == ("chain", "draw", "benchmark_pair")
    assert post["n_paradox"].dims == ("chain", "draw", "benchmark")
    assert post["top_k_all"].dims == ("chain", "draw", "judge")
    assert "diverging" in tree["sample_stats"]
    assert tree.attrs["model"] == "hierarchical"


def test_sampler_is_healthy_on_the_small_cohort(hier_model):
    tree = hier_model.result
    assert int(tree["sample_stats"]["diverging"].sum()) == 0
    s = summarize(tree, var_names=["kappa", "test_retest", "position_bias"])
    assert s.r_hat.max() <= 1.01
    # every reported metric passes; the trait spreads of five judges mix more slowly
    # (bulk ESS about 180 of 2,000 draws), and diagnose says so
    problems = diagnose(tree)
    assert all(p.startswith(("trait_spread:", "pooling_concentration:")) for p in problems)


def test_hyper_parameters_are_diagnosed(hier_model):
    tree = hier_model.result.copy()
    post = tree["posterior"].to_dataset()
    stuck = post["trait_spread"].copy()
    stuck[1] = stuck[1] + 1.0  # the second chain somewhere else
    tree["posterior"] = xr.DataTree(post.assign(trait_spread=stuck))
    assert any(p.startswith("trait_spread: R-hat") for p in diagnose(tree))


def test_predictive_checks_find_no_misfit_where_the_model_fits(hier_model):
    """The small cohort has no item effects: the model describes it, no check is flagged."""
    tree = hier_model.result
    pred = tree["predictive"].to_dataset()
    assert pred["ppc_patterns"].dims == ("judge", "benchmark")
    assert pred["ppc_trait"].dims == ("judge", "benchmark", "trait")
    for name in ("ppc_patterns", "ppc_trait", "ppc_agreement"):
        values = pred[name].values
        assert np.isfinite(values).all() and ((values >= 0) & (values <= 1)).all(), name
    assert json.loads(tree.attrs["misfits"]) == []
    # the top patterns' observed shares lie within the replicated range
    q = pred["pattern_share_replicated"]
    obs = pred["pattern_share_observed"]
    inside = (q.sel(quantile=0.05) <= obs + 0.02) & (obs - 0.02 <= q.sel(quantile=0.95))
    assert inside.all()


def test_large_sample_means_and_sds_agree_with_closed_form(small, hier_model):
    tree = hier_model.result
    point = compute_metrics(small.dataset, ["kappa", "exact_match", "test_retest"], interval="none")
    reps = bootstrap_replicates(small.dataset, ["kappa"], n_resamples=1000, random_seed=1)
    post = tree["posterior"]
    close = []
    for m in ("kappa", "exact_match", "test_retest"):
        mean = post[m].mean(("chain", "draw")).transpose("judge", "benchmark")
        sd = post[m].std(("chain", "draw")).transpose("judge", "benchmark")
        est = point.value.sel(metric=m).transpose("judge", "benchmark").sel(judge=mean.judge)
        close.append((np.abs(mean - est) < 2 * sd).values.ravel())
    # partial pooling moves extreme judges a little: 90% of cells within 2 sd
    assert np.mean(np.concatenate(close)) >= 0.9
    boot = reps.sel(metric="kappa").std("resample").transpose("judge", "benchmark")
    sd = post["kappa"].std(("chain", "draw")).transpose("judge", "benchmark")
    ratio = (sd / boot.sel(judge=sd.judge)).values
    assert 0.7 < np.median(ratio) < 1.2, ratio
    # the FCE SE with every judgment independent (six per item) is far too narrow
    x = item_feature_array(small.dataset)
    bench = small.dataset["benchmark"].values
    for b in sd.benchmark.values:
        sums = x.isel(item=np.flatnonzero(bench == b)).sum("item").sel(judge=sd.judge).values
        naive = cohen_kappa_se(confusion(sums[..., : len(FEATURES)]))
        assert np.all(sd.sel(benchmark=b).values > 1.3 * naive), b


def test_save_and_load_round_trip(tmp_path, hier_model):
    path = hier_model.save(tmp_path / "posterior.nc")
    again = load(path)
    assert type(again) is HierarchicalModel
    assert again.config == hier_model.config
    assert again.derived == hier_model.derived
    np.testing.assert_array_equal(
        again.result["posterior"]["kappa"].values, hier_model.result["posterior"]["kappa"].values
    )
    np.testing.assert_allclose(
        again.result["predictive"]["ppc_patterns"].values,
        hier_model.result["predictive"]["ppc_patterns"].values,
        rtol=1e-6,
    )
    a = again.summary(var_names=["kappa", "rank_shift"])
    b = hier_model.summary(var_names=["kappa", "rank_shift"])
    np.testing.assert_allclose(a["mean"].to_numpy(), b["mean"].to_numpy())
    assert list(a["judge"]) == list(b["judge"])


@pytest.fixture(scope="module")
def edge_fit():
    """One run; one randomised order; no tie labels with sparse ties; a missing judge."""
    benchmarks = (
        preference_benchmark("pref-sparse-ties", 200, ties="sparse"),
        correctness_benchmark("corr-one-run", 150, runs=1),
        chosen_rejected_benchmark("one-order", 150),
    )
    params = {
        "a": JudgeParams(agreement=0.85, position=0.05, stability=0.95),
        "b": JudgeParams(agreement=0.7, position=0.2, stability=0.9),
        "c": JudgeParams(agreement=0.9, stability=0.99, invalid_rate=0.01),
    }
    cfg = CohortConfig.from_judges(
        {j: {b.name: p for b in benchmarks} for j, p in params.items()}, benchmarks
    ).drop("c", "one-order")
    res = simulate(cfg, random_seed=11)
    return res, HierarchicalModel(TINY).fit(res.dataset, random_seed=2)


def test_edge_cases_fit_and_say_what_is_not_estimable(edge_fit):
    _, tree = edge_fit
    post = tree["posterior"]
    assert np.isnan(post["test_retest"].sel(benchmark="corr-one-run")).all()
    assert np.isfinite(post["kappa"].sel(benchmark="corr-one-run")).all()
    assert np.isnan(post["position_bias"].sel(benchmark="one-order")).all()
    assert np.isnan(post["kappa"].sel(judge="c", benchmark="one-order")).all()
    assert np.isnan(post["rank"].sel(judge="c", benchmark="one-order")).all()
    assert np.isfinite(post["kappa"].sel(judge=["a", "b"], benchmark="one-order")).all()
    assert np.isfinite(post["test_retest"].sel(benchmark="pref-sparse-ties")).all()
    assert int(tree["sample_stats"]["diverging"].sum()) == 0


def test_a_single_judge_fits():
    cfg = single_judge(JudgeParams(agreement=0.8), correctness_benchmark("only", 120))
    res = simulate(cfg, random_seed=4)
    tree = HierarchicalModel(TINY).fit(res.dataset, random_seed=1)
    rank = tree["posterior"]["rank"].values
    assert np.all(rank == 1)
    assert "rank_shift" not in tree["posterior"]
    k = tree["posterior"]["kappa"].sel(judge="judge", benchmark="only")
    assert abs(
        float(k.mean()) - float(res.truth["kappa"].sel(judge="judge", benchmark="only"))
    ) < 4 * float(k.std())


@pytest.mark.slow
def test_metrics_derived_block_by_block_equal_the_features_path(monkeypatch):
    # the tier turns each block of draws into metrics as it is drawn; the generic path
    # (every feature drawn, then derived) must give the same numbers from one sampling
    from judgestats.models import hierarchical
    from judgestats.models.base import FitData, JudgeModel

    real, kept = hierarchical.sample, []

    def sample_once(*args, **kwargs):
        if not kept:
            kept.append(real(*args, **kwargs))
        return kept[0]

    monkeypatch.setattr(hierarchical, "sample", sample_once)
    model = HierarchicalModel(HierarchicalConfig(draws=60, tune=60))
    data = FitData.from_data(simulate(small_cohort(), random_seed=0, scale=0.1).dataset)
    streamed, groups = model._draw_metrics(data, np.random.default_rng(3), 3)
    generic, generic_groups = JudgeModel._draw_metrics(model, data, np.random.default_rng(3), 3)
    xr.testing.assert_identical(streamed, generic)
    assert list(groups) == list(generic_groups)
    for name in groups:
        xr.testing.assert_identical(groups[name], generic_groups[name])


def test_each_judge_has_its_own_pooling_factor(hier_model):
    post = hier_model.result["posterior"]
    factor = post["judge_pooling"]
    assert factor.dims == ("chain", "draw", "judge", "benchmark")
    assert np.isfinite(factor).all() and (factor > 0).all()  # every judge rated both
    # a factor per judge, not one per benchmark: the judges' draws differ
    assert float(factor.std("judge").mean()) > 0


def test_judge_offsets_exist_only_where_the_judge_has_items():
    import pytensor

    from judgestats.models.base import FitData
    from judgestats.models.hierarchical import build_pymc_model

    params = JudgeParams(agreement=0.8, tie_rate=0.05)
    benchmarks = [preference_benchmark("mt", 40), correctness_benchmark("jb", 30)]
    cohort = CohortConfig.from_judges({"a": params, "b": params, "c": {"mt": params}}, benchmarks)
    data = FitData.from_data(simulate(cohort, random_seed=3).dataset)
    built = build_pymc_model(data, HierarchicalConfig())
    u = built.model["log_kappa_judge_u"]
    assert u.type.shape == (5,)  # 3 judges on mt, 2 on jb
    m = built.model
    (graph,) = m.replace_rvs_by_values([m["log_kappa_judge"]])
    offset = pytensor.function([m.rvs_to_values[u]], graph)
    # centred over the judges of each benchmark: equal offsets are no offset at all
    np.testing.assert_array_equal(offset(np.ones(5)), np.zeros((3, 2)))
    # u of (a, mt), (a, jb), (b, mt), (b, jb), (c, mt): mt's mean 2/3, jb's 5/2
    got = offset(np.array([1.0, 2.0, 0.0, 3.0, 1.0]))
    np.testing.assert_allclose(got, [[1 / 3, -0.5], [-2 / 3, 0.5], [1 / 3, 0.0]])
    without = build_pymc_model(data, HierarchicalConfig(judge_kappa_spread=0.0))
    assert "log_kappa_judge_u" not in without.model.named_vars
    assert without.structure != built.structure
