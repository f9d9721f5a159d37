"""Posterior predictive checks: the accumulator against known pattern distributions.

Fed the judges' own observed pattern shares as every draw's pattern distribution,
the checks must pass (the data are typical of it); fed another judge's, or fed
twins whose verdicts agree item by item beyond what their shares imply, they must
flag. The oracle is the construction of the data, not the code's own output.
"""

import numpy as np
import pytest
import xarray as xr

from judgestats.models import HierarchicalConfig, ppc
from judgestats.models.base import FitData
from judgestats.models.layout import build_layout
from judgestats.models.ppc import (
    PredictiveChecks,
    _mid_p,
    _replicated_matches,
    misfits,
    pattern_name,
)
from judgestats.schema import Verdict
from judgestats.simulate import simulate, small_cohort

N_DRAW = 400


def _fit_data(ds):
    data = FitData.from_data(ds)
    return data, build_layout(data, HierarchicalConfig().rare_per_judge)


@pytest.fixture(scope="module")
def cohort():
    return simulate(small_cohort(), random_seed=0).dataset


def _checks(data, layout, theta_of, seed=0):
    """Run the checks with ``theta_of(bt, label) -> (judge, K + 1)`` for every draw."""
    checks = PredictiveChecks(layout, data, 1, N_DRAW)
    rng = np.random.default_rng(seed)
    for c, block in enumerate(layout.blocks):
        bt = data.tally[data.benchmarks[block.benchmark]]
        theta = theta_of(bt, block.label)
        checks.add(0, c, np.broadcast_to(theta, (N_DRAW, *theta.shape)).copy(), rng)
    return checks.dataset()


def _own_shares(bt, label):
    counts = bt.counts[:, label, :] + 1e-3  # every pattern possible
    theta = np.concatenate([counts, np.full((len(counts), 1), 1e-3)], -1)
    return theta / theta.sum(-1, keepdims=True)


def test_pattern_name_reads_orders_and_runs():
    pattern = np.array([[Verdict.A, Verdict.TIE], [Verdict.B, Verdict.MISSING]])
    assert pattern_name(pattern, ("AB", "BA")) == "AB: A T · BA: B"


def test_mid_p_is_two_sided():
    rep = np.arange(100.0)[:, None]
    np.testing.assert_allclose(_mid_p(rep, np.array([49.5])), [1.0])
    np.testing.assert_allclose(_mid_p(rep, np.array([200.0])), [0.0])


def test_own_shares_pass_every_judge_check(cohort):
    data, layout = _fit_data(cohort)
    out = _checks(data, layout, _own_shares)
    assert np.nanmin(out["ppc_patterns"].values) > 0.05
    assert np.nanmin(out["ppc_trait"].values) > 0.01
    assert misfits(out) == []


def test_another_judges_shares_are_flagged(cohort):
    data, layout = _fit_data(cohort)

    def shifted(bt, label):
        return np.roll(_own_shares(bt, label), 1, axis=0)  # judge j gets judge j - 1's

    out = _checks(data, layout, shifted)
    flagged = misfits(out)
    assert len(flagged) >= 5
    assert any("pattern frequencies" in line for line in flagged)
    assert out["ppc_patterns"].median().item() < 0.01


def test_twins_agree_beyond_their_shares(cohort):
    twins = cohort.copy(deep=True)  # two pairs of twins among the 5 judges
    for a, b in ((0, 1), (2, 3)):
        twins["verdict"][dict(judge=b)] = twins["verdict"].isel(judge=a).values
    data, layout = _fit_data(twins)
    out = _checks(data, layout, _own_shares)
    obs = out["agreement_observed"].values
    _, _, hi = out["agreement_replicated"].values
    assert np.all(obs > hi)
    assert np.all(out["ppc_agreement"].values < 0.01)
    flagged = [line for line in misfits(out) if "inter-judge agreement" in line]
    assert flagged
    # a p-value of 0 is said to be below what the replicates can show, not 0
    assert out.attrs["replicates"] == N_DRAW
    assert all(f"no replicate of {N_DRAW} as extreme" in line for line in flagged)
    # without the twins, the same judges' agreement is typical of their shares
    data, layout = _fit_data(cohort)
    plain = _checks(data, layout, _own_shares)
    assert np.all(plain["ppc_agreement"].values > 0.01)


def test_judges_without_items_have_no_checks():
    ds = simulate(small_cohort(), random_seed=1, scale=0.2).dataset.copy(deep=True)
    bench = ds["benchmark"].values
    first = np.unique(bench)[0]
    ds["verdict"][dict(judge=0, item=np.flatnonzero(bench == first))] = Verdict.MISSING
    data, layout = _fit_data(ds)
    out = _checks(data, layout, _own_shares)
    j0 = data.judges[0]
    assert np.isnan(out["ppc_patterns"].sel(judge=j0, benchmark=first).item())
    assert np.isnan(out["ppc_trait"].sel(judge=j0, benchmark=first)).all()


def test_a_shared_random_order_is_design_not_agreement():
    """Each item shown in one random order, the same for every judge: not a misfit."""
    from judgestats.simulate import CohortConfig, JudgeParams, chosen_rejected_benchmark

    bench = (chosen_rejected_benchmark("one-order", 300),)
    judges = {
        name: {"one-order": JudgeParams(agreement=a, position=0.2, stability=0.9)}
        for name, a in (("a", 0.7), ("b", 0.8), ("c", 0.9))
    }
    ds = simulate(CohortConfig.from_judges(judges, bench), random_seed=4).dataset
    data, layout = _fit_data(ds)
    out = _checks(data, layout, _own_shares)
    assert out["ppc_agreement"].item() > 0.01


def test_replicated_matches_against_a_judge_by_judge_simulation():
    """Mean: the closed form sum over pairs of sum_k theta_jk theta_lk; variance: a loop.

    Three judges share one peaked distribution, so pairs sharing a judge are
    positively correlated: the variance exceeds that of independent pairs.
    """
    rng = np.random.default_rng(0)
    base = np.array([0.7, 0.2, 0.1])
    theta = np.broadcast_to(base, (4000, 3, 3)).copy()
    shown = np.ones((3, 10), dtype=bool)
    shown[2, :4] = False
    m = _replicated_matches(theta, shown, rng)
    q = float(base @ base)
    pairs = shown.astype(float) @ shown.T.astype(float)
    n_pairs = pairs[np.triu_indices(3, 1)].sum()
    assert m.mean() == pytest.approx(n_pairs * q, abs=4 * m.std() / np.sqrt(len(m)))
    loop = np.random.default_rng(1)
    sims = []
    for _ in range(4000):
        total = 0
        for item in range(10):
            ks = [loop.choice(3, p=base) for j in range(3) if shown[j, item]]
            total += sum(a == b for x, a in enumerate(ks) for b in ks[x + 1 :])
        sims.append(total)
    se = m.var() * np.sqrt(2 / len(m))  # sd of a sample variance, near normal
    assert m.var() == pytest.approx(np.var(sims), abs=4 * se)
    assert m.var() > 1.2 * n_pairs * q * (1 - q)  # independent pairs: too narrow


@pytest.mark.parametrize("n_k", [1, 3, 40])
def test_replicated_matches_equal_pairwise_comparison_of_the_same_draws(n_k):
    """The one-pass kernel against every pair of judges compared, from the same uniforms."""
    rng = np.random.default_rng(3)
    theta = rng.dirichlet(np.full(n_k, 0.3), size=(300, 6))
    shown = rng.random((6, 9)) < 0.7
    got = ppc._replicated_matches(theta, shown, np.random.default_rng(4))
    cdf = np.cumsum(theta, -1)
    cdf[..., -1] = 1.0
    u = np.random.default_rng(4).random((300, 6, 9))  # one block: the same stream
    k = (cdf[:, :, None, :] <= u[..., None]).sum(-1)  # (draw, judge, item)
    same = k[:, :, None, :] == k[:, None, :, :]  # (draw, judge, judge, item)
    both = shown[:, None, :] & shown[None, :, :]
    upper = np.triu(np.ones((6, 6), dtype=bool), 1)[..., None]
    expected = (same & both & upper).sum((1, 2, 3)).astype(float)
    assert expected.sum() > 0
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("n_k", [3, 4, 6, 10])  # 6, 10: x * K rounds up to an edge
def test_a_uniform_at_or_just_below_a_share_picks_the_right_pattern(n_k):
    """Shares on the guide table's slice edges: the search neither overshoots nor stops short.

    Judge 0's uniforms sit on and just below every cumulative share, judge 1's in the
    middle of the pattern judge 0 must get: every item is one matching pair.
    """
    shares = np.arange(1, n_k + 1) / n_k
    shares[-1] = 1.0
    edges = np.concatenate([[0.0], shares[:-1], np.nextafter(shares, 0)])
    want = (shares[None, :] <= edges[:, None]).sum(1)
    middle = (np.r_[0.0, shares[:-1]] + shares) / 2
    u = np.stack([edges, middle[want]])[None]  # (draw, judge, item)
    cdf = np.broadcast_to(shares, (1, 2, n_k)).copy()
    shown = np.ones((2, edges.size), dtype=bool)
    assert ppc._compiled_count_matches()(cdf, u, shown).tolist() == [edges.size]


def test_the_normal_tail_matches_the_normal_distribution():
    from scipy.stats import norm

    from judgestats.models.ppc import _normal_p

    rep = np.random.default_rng(3).normal(2.0, 0.5, size=(200_000, 1))
    for obs in (2.0, 3.0, 3.5, 4.0):
        z = (obs - 2.0) / 0.5
        two = _normal_p(rep, np.array([obs]), two_sided=True)[0]
        assert two == pytest.approx(2 * norm.sf(z), rel=0.02, abs=1e-4)
        # P(rep >= obs)
        assert _normal_p(rep, np.array([obs]), two_sided=False)[0] == pytest.approx(
            norm.sf(z), rel=0.02, abs=1e-4
        )
    flat = np.ones((10, 2))
    assert _normal_p(flat, np.array([1.0, 2.0]), two_sided=True).tolist() == [1.0, 0.0]


def _predictive(p, tail, replicates):
    from judgestats.models.ppc import TAIL

    judge, bench, trait = ["a", "b"], ["x"], ["t"]
    nan2 = np.full((2, 1), np.nan)
    return xr.Dataset(
        {
            "ppc_patterns": (("judge", "benchmark"), np.asarray(p, float).reshape(2, 1)),
            f"ppc_patterns{TAIL}": (("judge", "benchmark"), np.asarray(tail, float).reshape(2, 1)),
            "ppc_trait": (("judge", "benchmark", "trait"), nan2[..., None]),
            "ppc_agreement": (("benchmark",), [np.nan]),
        },
        coords={"judge": judge, "benchmark": bench, "trait": trait},
        attrs={"replicates": replicates},
    )


def test_below_what_the_replicates_resolve_the_normal_tail_decides():
    from judgestats.models.ppc import flagged

    # 2 checks: level 0.005. With 1,000 replicates a p-value of 0.001 can be shown,
    # and the replicates decide
    wide = _predictive([0.0, 0.003], [0.5, 0.5], replicates=1000)
    assert flagged(wide, "ppc_patterns").values.ravel().tolist() == [True, True]
    # with 50 (1 / 50 > 0.005), p = 0 only says none was as extreme: flagged
    # where the normal tail is below the level, not where it is above
    narrow = _predictive([0.0, 0.0], [1e-9, 0.2], replicates=50)
    assert flagged(narrow, "ppc_patterns").values.ravel().tolist() == [True, False]
    (line,) = misfits(narrow)
    assert "judge a" in line
    assert "no replicate of 50 as extreme; p = 1e-09 by a normal approximation" in line
    far = _predictive([0.0, 0.0], [1e-40, 0.2], replicates=50)
    assert "p < 1e-12 by a normal approximation" in misfits(far)[0]


def test_long_runs_are_thinned_to_the_replicates_kept(cohort):
    # 2 chains x 1,000 draws in blocks of 250: every 4th draw is replicated, 500 in all,
    # each once, in order, whichever blocks they fall in
    data, layout = _fit_data(cohort)
    checks = PredictiveChecks(layout, data, 2, 1000, replicates=500)
    assert checks.thin == 4
    seen = []
    for start in range(0, 1000, 250):
        positions, replicated = checks.kept(slice(start, min(start + 250, 1000)))
        assert len(positions) == replicated.stop - replicated.start
        seen += list(start + positions)
    assert seen == list(range(0, 1000, 4))
    one = PredictiveChecks(layout, data, 1, 300, replicates=500)
    positions, replicated = one.kept(slice(0, 300))
    assert one.thin == 1 and list(positions) == list(range(300)) and replicated == slice(0, 300)
