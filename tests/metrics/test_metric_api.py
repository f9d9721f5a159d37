"""Metrics on Judgments datasets: seed 002's oracles, protocols, groupings, edge cases."""

from __future__ import annotations

import json
from statistics import correlation

import krippendorff
import numpy as np
import pytest
from metrics_helpers import INVALID, MISSING, TIE, A, B, from_table, make_ds, reason_of, value
from scipy.stats import pearsonr
from sklearn.metrics import cohen_kappa_score

import judgestats.metrics as jm
from judgestats.features import FEATURES
from judgestats.metrics import HUMAN, compute_metrics
from judgestats.tally import consensus_label

NONE = {"interval": "none"}
JUDGES = ["j0", "j1", "j2"]
MT_BENCH = np.array([[770, 55, 15], [45, 65, 10], [18, 7, 15]])


# ---------------------------------------------------------------- seed 002 oracles


def test_seed002_mtbench_table_through_a_dataset():
    res = compute_metrics(from_table(MT_BENCH), **NONE)
    assert value(res, "raw_agreement") == pytest.approx(0.850, abs=1e-12)
    assert value(res, "agreement_s1") == pytest.approx(0.850, abs=1e-12)
    assert value(res, "kappa") == pytest.approx(0.471, abs=5e-4)
    # seed 002's script subtracts kappa from the raw agreement: its 37.9 pp is the
    # oracle of deflation_raw; the paper's deflation is the tie-excluded EM - kappa
    assert round(value(res, "deflation_raw") * 100, 1) == 37.9
    assert value(res, "deflation") == pytest.approx(
        value(res, "exact_match") - value(res, "kappa"), abs=1e-12
    )
    assert value(res, "exact_match") == pytest.approx(835 / 960)  # tie-excluded
    assert int(res.sel(metric="kappa").data["n"].squeeze()) == 1000


def paired_orders(first_first: int, second_second: int) -> np.ndarray:
    """One run, both orders: items where the judge picks the first slot in both orders,
    then items where it picks the second slot in both."""
    ab = [A] * first_first + [B] * second_second
    ba = [B] * first_first + [A] * second_second
    return np.array([ab, ba]).T[None, :, :, None]


def test_seed002_position_bias():
    res = compute_metrics(make_ds(paired_orders(692, 308)), **NONE)
    assert value(res, "p_first") == pytest.approx(0.692, abs=1e-12)
    assert value(res, "position_bias") == pytest.approx(0.192, abs=1e-12)
    assert value(res, "position_bias_signed") == pytest.approx(0.192, abs=1e-12)
    assert int(res.sel(metric="p_first").data["n"].squeeze()) == 2000
    # The fair judge: picks the better response (the label) whatever the slot.
    label = np.repeat([A, B], 500)
    fair = np.repeat(label[None, :, None, None], 2, axis=2)
    assert value(compute_metrics(make_ds(fair, label), **NONE), "position_bias") == 0


def test_seed002_test_retest():
    runs = np.zeros((1, 1000, 1, 3), dtype=int)
    runs[0, 992:, 0, 1] = B  # 8 unstable items
    res = compute_metrics(make_ds(runs, orders=["AB"]), **NONE)
    # seed 002's script: the share of items identical in every run
    assert value(res, "test_retest_share") == pytest.approx(0.992, abs=1e-12)
    # the paper's test-retest: Krippendorff's alpha, runs as coders
    expected = krippendorff.alpha(reliability_data=runs[0, :, 0].T, level_of_measurement="nominal")
    assert value(res, "test_retest") == pytest.approx(expected, abs=1e-12)


def test_seed002_always_first_judge_is_reliable_without_validity():
    label = np.repeat([A, B], 500)
    v = np.zeros((1, 1000, 2, 3), dtype=int)
    v[..., 0, :], v[..., 1, :] = A, B  # the first slot, whatever it holds
    res = compute_metrics(make_ds(v, label), **NONE)
    assert value(res, "test_retest") == 1
    assert value(res, "kappa") == pytest.approx(0.0, abs=1e-12)
    assert value(res, "raw_agreement") == 0.5
    assert value(res, "position_bias") == 0.5
    assert value(res, "flip_rate") == 1


def test_seed002_chance_agreement_one_is_nan_with_reason():
    res = compute_metrics(from_table(np.array([[1000, 0], [0, 0]])), **NONE)
    assert np.isnan(value(res, "kappa"))
    assert reason_of(res, "kappa").startswith("chance agreement is 1")


# ------------------------------------------------------------- undefined, not crash


def test_undefined_metrics_are_nan_with_reasons():
    v = np.zeros((1, 4, 1, 1), dtype=int)
    for orders in (["AB"], ["unknown"]):
        res = compute_metrics(make_ds(v, np.array([A, A, B, B]), orders=orders), **NONE)
        for metric, words in [
            ("test_retest", "fewer than two runs"),
            ("test_retest_share", "fewer than two runs"),
            ("position_bias", "swap"),
            ("flip_rate", "swap"),
            ("two_trial_accuracy", "both orders"),
            ("verbosity_bias", "lengths"),
            ("self_enhancement", "own model"),
        ]:
            assert np.isnan(value(res, metric)), metric
            assert words in reason_of(res, metric), metric
        assert value(res, "exact_match") == 0.5
        assert HUMAN not in res.data["judge"].values  # one rater: no ceiling


def test_empty_and_absent_judges_do_not_crash():
    v = np.full((2, 3, 2, 2), MISSING)
    v[0] = A
    res = compute_metrics(make_ds(v, np.array([A, B, TIE])), random_seed=0, n_resamples=20)
    assert np.isnan(res.sel(judge="j1").value).all()
    assert set(res.to_frame()["judge"]) == {"j0"}  # the judge that never judged is skipped
    assert len(res.to_frame(skip_empty=False)) == 2 * len(res.metrics)


# ---------------------------------------------------------- protocols and groupings


@pytest.fixture
def cohort(rng):
    n_items = 40
    v = rng.choice([A, B, TIE, INVALID], size=(3, n_items, 2, 3), p=[0.45, 0.4, 0.1, 0.05])
    v[1, :5] = MISSING
    human = rng.choice([A, B, TIE, MISSING], size=(n_items, 3), p=[0.4, 0.4, 0.1, 0.1])
    bench = np.repeat(["mt", "jb"], n_items // 2)
    category = np.tile(["x", "y", "y", "z"], n_items // 4)
    lengths = (rng.integers(50, 500, n_items), rng.integers(50, 500, n_items))
    models = (rng.choice(["j0", "m1", "j2"], n_items), rng.choice(["m1", "j1", "m3"], n_items))
    return make_ds(v, human, benchmark=bench, category=category, lengths=lengths, models=models)


def _same_values(a, b):
    np.testing.assert_allclose(a.value.values, b.value.values, rtol=1e-12, equal_nan=True)


def test_agreement_protocol_is_original_order_first_run(cohort):
    res = compute_metrics(cohort, protocol="agreement", **NONE)
    _same_values(res, compute_metrics(cohort.isel(order=[0], run=[0]), **NONE))
    why = res.sel(metric="test_retest", judge=JUDGES).reason
    assert why.str.contains("fewer than two runs").all()


@pytest.mark.parametrize("dim", ["order", "run"])
def test_by_order_and_run_equal_subsets(cohort, dim):
    res = compute_metrics(cohort, by=dim, **NONE)
    for label in cohort[dim].values:
        sub = compute_metrics(cohort.sel({dim: [label]}), **NONE)
        _same_values(res.sel({dim: label}), sub)


def test_by_category_equals_subsets(cohort):
    res = compute_metrics(cohort, by="category", **NONE)
    for bench in ("mt", "jb"):
        for cat in ("x", "y", "z"):
            mask = (cohort["benchmark"].values == bench) & (cohort["category"].values == cat)
            sub = compute_metrics(cohort.isel(item=np.flatnonzero(mask)), **NONE)
            got = res.sel(benchmark=bench, category=cat)
            _same_values(got, sub.sel(benchmark=bench))


def test_invalid_is_its_own_category(cohort):
    res = compute_metrics(cohort, **NONE).sel(judge="j0", benchmark="mt")
    sub = cohort.isel(judge=[0], item=np.flatnonzero(cohort["benchmark"].values == "mt"))
    v = sub["verdict"].values[0]  # (item, order, run)
    label = consensus_label(sub["human"].values)
    judged = (v != MISSING) & (label[:, None, None] != MISSING)
    h = np.broadcast_to(label[:, None, None], v.shape)[judged]
    expected = cohen_kappa_score(h, v[judged], labels=[A, B, TIE, INVALID])
    assert value(res, "kappa") == pytest.approx(expected, abs=1e-12)
    assert value(res, "invalid_rate") == pytest.approx((v == INVALID).sum() / (v != MISSING).sum())
    ab = np.isin(h, [A, B])
    assert value(res, "exact_match") == pytest.approx((v[judged] == h)[ab].mean())


# ------------------------------------------------------------ verbosity, self, humans


def test_verbosity_bias_is_pearson_over_judgments(cohort):
    res = compute_metrics(cohort, "verbosity_bias", **NONE)
    for bench in ("mt", "jb"):
        mask = cohort["benchmark"].values == bench
        v = cohort["verdict"].values[2][mask]  # judge j2: (item, order, run)
        d = (cohort["length_a"].values - cohort["length_b"].values)[mask]
        keep = np.isin(v, [A, B, TIE])  # invalid verdicts have no score
        score = np.select([v == A, v == B], [1, -1], 0)[keep]
        dd = np.broadcast_to(d[:, None, None], v.shape)[keep]
        expected = pearsonr(dd, score).statistic
        assert value(res, "verbosity_bias", judge="j2", benchmark=bench) == pytest.approx(
            expected, abs=1e-12
        )


def test_verbosity_bias_seed002_contrast():
    diffs = np.arange(-200, 201, 10)
    # Length-biased judge: always the longer response (B at d = 0, as in the seed).
    biased = np.where(diffs > 0, A, B)[None, :, None, None]
    ds = make_ds(biased, orders=["AB"], lengths=(diffs + 1000, np.full(len(diffs), 1000)))
    expected = correlation(diffs.tolist(), (diffs > 0).astype(int).tolist())
    assert value(compute_metrics(ds, **NONE), "verbosity_bias") == pytest.approx(expected)
    assert round(expected, 3) == 0.866
    # Fair judge: one win and one loss at every length difference.
    fair = np.array([[A, B]] * len(diffs))[None, :, :, None]
    ds = make_ds(fair, lengths=(diffs + 1000, np.full(len(diffs), 1000)))
    assert abs(value(compute_metrics(ds, **NONE), "verbosity_bias")) < 1e-12


def test_self_enhancement_by_hand():
    # Items: gpt vs llama (x2), llama vs gpt, claude vs llama. Judges gpt-4, claude, judge3.
    models = (["gpt-4o", "gpt-4o", "llama", "claude"], ["llama", "llama", "gpt-4o", "llama"])
    v = np.array(
        [
            [A, A, B, B],  # gpt-4 judge: always its own model
            [B, TIE, A, A],  # claude judge
            [A, B, B, B],  # judge3 (owns nothing)
        ]
    )[:, :, None, None]
    ds = make_ds(v, orders=["AB"], judges=["gpt-4", "claude", "judge3"], models=models)
    res = compute_metrics(ds, self_models={"gpt-4": ["gpt-4o", "gpt-4"]}, **NONE)
    # gpt-4 on its 3 items: 3 wins. Others owning neither response there: claude and
    # judge3: gpt-4o wins [0, 0.5, 0] (claude) + [1, 0, 1] (judge3) = 2.5 of 6.
    assert value(res, "self_win_rate", judge="gpt-4") == 1
    assert value(res, "others_win_rate", judge="gpt-4") == pytest.approx(2.5 / 6)
    assert value(res, "self_enhancement", judge="gpt-4") == pytest.approx(1 - 2.5 / 6)
    # claude owns "claude" by name: item 3, it says A (its own) -> 1; gpt-4 says B,
    # judge3 says B -> 0 of 2.
    assert value(res, "self_win_rate", judge="claude") == 1
    assert value(res, "others_win_rate", judge="claude") == 0
    assert "own model" in reason_of(res, "self_win_rate", judge="judge3")


def test_human_ceiling_row():
    human = np.array([[A, A, B], [A, A, A], [TIE, A, B], [B, MISSING, B]])
    ds = make_ds(np.zeros((1, 4, 1, 1), dtype=int), human, orders=["AB"])
    res = compute_metrics(ds, **NONE)
    row = res.sel(judge=HUMAN)
    # Pairs: item0 1/3, item1 3/3, item2 0/3, item3 1/1 -> 5/10.
    assert value(row, "human_pairwise_s1") == pytest.approx(5 / 10)
    # Non-tie pairs: item0 1/3, item1 3/3, item2 0/1, item3 1/1 -> 5/8.
    assert value(row, "human_pairwise_s2") == pytest.approx(5 / 8)
    # Rater vs majority of the others: item0 A:{A,B}->tie x, A x, B:{A,A}->A x; item1 3/3;
    # item2: tie vs {A,B}=tie hit, A vs {tie,B} x, B vs {tie,A} x; item3 2/2 -> 6/11.
    assert value(row, "human_majority_s1") == pytest.approx(6 / 11)
    assert np.isnan(value(row, "kappa"))
    assert np.isnan(value(res.sel(judge="j0"), "human_pairwise_s1"))
    frame = res.to_frame()
    assert set(frame.loc[frame["judge"] == HUMAN, "metric"]) == set(jm.human.METRICS)
    assert not frame.loc[frame["judge"] == "j0", "metric"].isin(list(jm.human.METRICS)).any()


# ------------------------------------------------------------------------ bootstrap


def test_vectorised_bootstrap_equals_resampling_items_one_by_one(cohort):
    n_resamples = 12
    reps = jm.bootstrap_replicates(cohort, n_resamples=n_resamples, random_seed=7)
    bench = cohort["benchmark"].values
    rng = np.random.default_rng(7)
    draws = [
        np.flatnonzero(bench == b)[rng.integers(0, (bench == b).sum(), (n_resamples, 20))]
        for b in ("mt", "jb")
    ]
    for r in range(n_resamples):
        sub = cohort.isel(item=np.concatenate([d[r] for d in draws]))
        expected = compute_metrics(sub, **NONE).value
        got = reps.isel(resample=r).sel(judge=expected["judge"])
        np.testing.assert_allclose(
            got.values, expected.values, rtol=1e-9, atol=1e-12, equal_nan=True
        )


def test_bootstrap_is_seeded_and_paired_across_judges(cohort):
    twin = cohort.reindex(judge=["j0", "j1", "j2", "j0"]).assign_coords(
        judge=["j0", "j1", "j2", "twin"]
    )
    # The twin owns the same model, so that self-enhancement is paired too.
    reps = jm.bootstrap_replicates(twin, n_resamples=50, random_seed=3, self_models={"twin": "j0"})
    np.testing.assert_array_equal(reps.sel(judge="j0"), reps.sel(judge="twin"))
    a = compute_metrics(cohort, n_resamples=50, random_seed=3)
    b = compute_metrics(cohort, n_resamples=50, random_seed=3)
    c = compute_metrics(cohort, n_resamples=50, random_seed=4)
    np.testing.assert_array_equal(a.lo.values, b.lo.values)
    assert not np.allclose(a.lo.values, c.lo.values, equal_nan=True)


def test_percentile_intervals_follow_prob(cohort):
    wide = compute_metrics(cohort, "kappa", n_resamples=400, random_seed=1).sel(judge=JUDGES)
    narrow = compute_metrics(cohort, "kappa", n_resamples=400, prob=0.5, random_seed=1)
    narrow = narrow.sel(judge=JUDGES)
    reps = jm.bootstrap_replicates(cohort, "kappa", n_resamples=400, random_seed=1)
    reps = reps.sel(judge=JUDGES)
    np.testing.assert_allclose(wide.lo, reps.quantile(0.025, "resample"), rtol=1e-12)
    np.testing.assert_allclose(narrow.hi, reps.quantile(0.75, "resample"), rtol=1e-12)
    assert (narrow.hi - narrow.lo < wide.hi - wide.lo).all()
    assert ((wide.lo <= wide.value) & (wide.value <= wide.hi)).all()


def replicated_cohort(rng, n_items=400, noise=0.03):
    """Every item's verdict is decided once and repeated over 2 orders x 3 runs
    (with a little noise): replicates of an item are strongly correlated."""
    label = rng.choice([A, B, TIE], size=n_items, p=[0.45, 0.4, 0.15])
    right = rng.random(n_items) < 0.7
    base = np.where(right, label, rng.choice([A, B, TIE], size=n_items))
    v = np.repeat(base[:, None, None], 2, 1).repeat(3, 2)
    flip = rng.random(v.shape) < noise
    v = np.where(flip, rng.choice([A, B, TIE], size=v.shape), v)
    return make_ds(v[None], label)


def test_independent_judgments_give_too_narrow_intervals(rng):
    ds = replicated_cohort(rng)
    item = compute_metrics(ds, "kappa", n_resamples=2000, random_seed=0)
    fce_item = compute_metrics(ds, "kappa", interval="fce")  # each item counted once
    item_sd = float(item.data["se"].squeeze())
    # Judgment-level bootstrap: resample the 2400 judgments, ignoring the items.
    sums = jm.item_feature_array(ds).sel(judge="j0").sum("item").values
    table = jm.formulas.confusion(sums[: len(FEATURES)])
    fce_sd = float(jm.formulas.cohen_kappa_se(table))  # every judgment independent
    assert 0.8 < float(fce_item.data["se"].squeeze()) / item_sd < 1.6
    draws = np.random.default_rng(1).multinomial(
        int(table.sum()), (table / table.sum()).ravel(), size=2000
    )
    judgment_sd = float(np.std(jm.cohen_kappa(draws.reshape(-1, 3, 4)), ddof=1))
    # Six correlated judgments per item carry about the information of one: the naive
    # spreads are near 1/sqrt(6) of the item-clustered one.
    assert fce_sd < 0.6 * item_sd
    assert judgment_sd < 0.6 * item_sd
    # With one verdict per item the FCE SE is right: it matches the item bootstrap.
    one = compute_metrics(ds, "kappa", protocol="agreement", n_resamples=2000, random_seed=0)
    fce_one = compute_metrics(ds, "kappa", protocol="agreement", interval="fce")
    assert float(fce_one.data["se"].squeeze()) == pytest.approx(
        float(one.data["se"].squeeze()), rel=0.15
    )


# --------------------------------------------------------------- results, accessor


def test_records_are_json_ready(cohort):
    res = compute_metrics(cohort, n_resamples=30, random_seed=0)
    records = res.to_records()
    text = json.dumps(records)
    assert "NaN" not in text
    first = records[0]
    for key in ("judge", "benchmark", "metric", "value", "lo", "hi", "n", "n_items", "reason"):
        assert key in first
    assert isinstance(first["n_items"], int)
    assert {r["judge"] for r in records} == {"j0", "j1", "j2", HUMAN}
    cats = compute_metrics(cohort, "kappa", by="category", **NONE).to_records()
    assert {r["category"] for r in cats} == {"x", "y", "z"}


def test_accessor_delegates(cohort):
    via_accessor = cohort.judgestats.kappa(n_resamples=30, random_seed=2)
    direct = jm.kappa(cohort, n_resamples=30, random_seed=2)
    np.testing.assert_array_equal(via_accessor.lo.values, direct.lo.values)
    assert via_accessor.metrics == ["kappa", "alpha", "raw_agreement", "deflation"]
    assert cohort.judgestats.metrics(**NONE).metrics == list(jm.ALL_METRICS)
    assert cohort.judgestats.tally()["mt"].judges == ("j0", "j1", "j2")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"protocol": "some"}, "protocol='some'"),
        ({"by": "judge"}, "by='judge'"),
        ({"interval": "bayes"}, "interval='bayes'"),
        ({"prob": 1.5}, "prob=1.5"),
        ({"n_resamples": 1}, "n_resamples=1"),
        ({"metrics": ["kapa"]}, "kapa"),
    ],
)
def test_bad_arguments_name_the_value(cohort, kwargs, match):
    with pytest.raises(ValueError, match=match):
        compute_metrics(cohort, **kwargs)


def test_bootstrap_intervals_cover_the_simulated_truth():
    simulate = pytest.importorskip("judgestats.simulate")
    presets = pytest.importorskip("judgestats.simulate.presets")
    inside = []
    for seed in (1, 2):
        sim = simulate.simulate(presets.small_cohort(), random_seed=seed)
        truth = sim.truth
        res = compute_metrics(sim.dataset, n_resamples=1000, random_seed=0).data
        for metric in [m for m in jm.ALL_METRICS if m in truth]:
            cell = res.sel(metric=metric, judge=truth["judge"], benchmark=truth["benchmark"])
            t = truth[metric].values
            ok = np.isfinite(t) & np.isfinite(cell["lo"].values)
            hit = (cell["lo"].values - 1e-12 <= t) & (t <= cell["hi"].values + 1e-12)
            inside += hit[ok].tolist()
    # Nominal 95%; the cells share items (correlated), so allow some slack. The two
    # fixed seeds give 0.947 and 0.958.
    assert len(inside) > 250
    assert np.mean(inside) >= 0.90


def test_agreement_with_each_human_vote_beside_the_consensus():
    # Three raters per item, A, A, B: the majority label is A, the votes disagree.
    from judgestats.schema import empty_judgments

    ds = empty_judgments(["j"], ["q1", "q2"], ["AB"], 1, ["r1", "r2", "r3"])
    ds = ds.assign_coords(benchmark=("item", ["b", "b"]))
    ds["human"].values[:] = [[A, A, B], [B, B, TIE]]
    ds["verdict"].values[0, :, 0, 0] = [A, B]
    res = compute_metrics(ds, interval="none")
    # an independent count of (judgment, vote) pairs
    votes = ds["human"].values
    verdicts = ds["verdict"].values[0, :, 0, 0]
    pairs = [(v, h) for v, row in zip(verdicts, votes, strict=True) for h in row]
    s1 = np.mean([v == h for v, h in pairs])
    s2 = np.mean([v == h for v, h in pairs if v != TIE and h != TIE])

    def judge(metric):
        return float(res.value.sel(judge="j", metric=metric).squeeze())

    assert judge("vote_agreement_s1") == pytest.approx(s1)  # 4 of 6
    assert judge("vote_agreement_s2") == pytest.approx(s2)  # 4 of 5
    assert judge("agreement_s2") == 1.0  # against the majority label


def test_kappa_with_one_label_class_is_undefined_not_zero():
    # every item labelled A: kappa would be 0 for any judge that is not always A
    res = compute_metrics(from_table(np.array([[90, 10]])), **NONE)
    assert np.isnan(value(res, "kappa"))
    assert "same label" in reason_of(res, "kappa")
    assert value(res, "exact_match") == pytest.approx(0.9)
