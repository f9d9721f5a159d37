"""The prior of both tiers: full support, checked against closed forms."""

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score

from judgestats.models import ExactConfig, ExactModel
from judgestats.models.derived import _rank
from judgestats.models.prior import DEFAULT_CONCENTRATION, dp_feature_draws
from judgestats.schema import Verdict, empty_judgments

DRAWS = 4000  # per chain, 2 chains
#: Level of the Kolmogorov-Smirnov tests against the closed forms.
LEVEL = 1e-3
#: Concentrations checked: one pseudo-item, a quarter of one, and the default.
ALPHAS = sorted({1.0, 0.25, DEFAULT_CONCENTRATION})


def all_right(n: int, labels: list[int]):
    """One judge, ``n`` items, one order and one run, every verdict equal to the label."""
    ds = empty_judgments(["j"], [f"i{k}" for k in range(n)], ["AB"], 1, ["r"])
    ds = ds.assign_coords(benchmark=("item", ["b"] * n))
    lab = np.resize(np.asarray(labels, dtype=np.int8), n)
    ds["human"][:, 0] = lab
    ds["verdict"][:] = lab[None, :, None, None]
    return ds


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("method", ["bootstrap", "dirichlet"])
@pytest.mark.parametrize("n", [3, 10, 30, 100])
def test_accuracy_of_a_judge_always_right_is_the_closed_form_beta(n, method, alpha):
    # Prior DP(alpha, G0): G0 gives the one label class present and each verdict
    # (A, B, tie, invalid) probability 1/4. After n hits the posterior share of hits
    # is Beta(n + alpha/4, 3 alpha/4) exactly (Dirichlet aggregation).
    ds = all_right(n, [Verdict.A])
    cfg = ExactConfig(method=method, draws=DRAWS, prior=alpha)
    tree = ExactModel(cfg).fit(ds, random_seed=n)
    em = tree["posterior"]["exact_match"].values.ravel()
    oracle = stats.beta(n + alpha / 4, 3 * alpha / 4)
    # Drawn metrics are rounded to float32 (derived.MetricDraws), which puts the
    # oracle's mass within 6e-8 of 1 (6% for n = 3 at alpha = 1/4) at exactly 1: the
    # oracle's own draws are rounded alike.
    exact = oracle.rvs(size=200_000, random_state=np.random.default_rng(n)).astype(np.float32)
    assert stats.ks_2samp(em, exact).pvalue > LEVEL
    lo, hi = np.quantile(em, [0.025, 0.975])
    assert hi - lo > 0  # never a point
    assert (lo, hi) == pytest.approx(oracle.ppf([0.025, 0.975]), abs=0.02)


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("n", [4, 10, 30, 100])
def test_kappa_of_a_judge_always_right_is_the_dirichlet_of_its_table(n, alpha):
    # Labels A and B, every verdict right: the posterior of the label x verdict table
    # is Dirichlet(n/2 + alpha/8 on the two hits, alpha/8 on the six other cells);
    # kappa of its draws is computed here with scikit-learn, independently of judgestats.
    ds = all_right(n, [Verdict.A, Verdict.B])
    tree = ExactModel(ExactConfig(draws=DRAWS, prior=alpha)).fit(ds, random_seed=n)
    kappa = tree["posterior"]["kappa"].values.ravel()
    rng = np.random.default_rng(0)
    cells = [(h, v) for h in (0, 1) for v in (0, 1, 2, 3)]
    conc = np.array([n / 2 * (h == v) + alpha / 8 for h, v in cells])
    h, v = np.array(cells).T
    oracle = [
        cohen_kappa_score(h, v, sample_weight=w, labels=[0, 1, 2, 3])
        for w in rng.dirichlet(conc, size=2000)
    ]
    # rounded to float32 as the drawn metrics are (see the test above)
    assert stats.ks_2samp(kappa, np.asarray(oracle, dtype=np.float32)).pvalue > LEVEL
    assert np.quantile(kappa, 0.975) - np.quantile(kappa, 0.025) > 0


def test_intervals_shrink_with_data_and_never_collapse():
    widths = []
    for n in (3, 30, 300):
        post = ExactModel(ExactConfig(draws=1000)).fit(all_right(n, [0, 1]), 0)["posterior"]
        x = post["kappa"].values.ravel()
        widths.append(np.quantile(x, 0.975) - np.quantile(x, 0.025))
    assert widths[0] > widths[1] > widths[2] > 0


@pytest.mark.parametrize("copies", [1, 200])  # 3 atoms: dense weights; 600: sparse
def test_stick_breaking_draws_have_the_dirichlet_process_moments(copies):
    # For P ~ DP(alpha, G0) and a set of G0-mass g: E P = g, Var P = g (1 - g) / (alpha + 1);
    # the sets are the three features, each the feature of ``copies`` atoms.
    atoms = np.tile(np.eye(3), (copies, 1))
    prob = np.tile(np.array([0.2, 0.3, 0.5]), copies) / copies
    for alpha in (0.5, 1.0, 4.0):
        x = dp_feature_draws(atoms, prob, (20000,), alpha, np.random.default_rng(1))
        np.testing.assert_allclose(x.sum(-1), 1.0)
        g = prob[:3] * copies
        np.testing.assert_allclose(x.mean(0), g, atol=0.01)
        np.testing.assert_allclose(x.var(0), g * (1 - g) / (alpha + 1), rtol=0.06)


def test_ties_share_their_average_rank_and_direction_is_respected():
    v = np.array([0.5, 0.9, 0.5, np.nan])
    np.testing.assert_array_equal(_rank(v)[:3], [2.5, 1.0, 2.5])
    assert np.isnan(_rank(v)[3])
    np.testing.assert_array_equal(_rank(v, higher_is_better=False)[:3], [1.5, 3.0, 1.5])
