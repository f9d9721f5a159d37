"""The calibration checks themselves: randomised PIT, worst-cell chance, cell layout."""

import numpy as np
import pytest
from scipy import stats

from judgestats.models import ExactModel
from judgestats.simulate import simulate
from judgestats.simulate.coverage import (
    QUANTITIES,
    _hits,
    _pit,
    coverage_table,
    interval_hits,
    pit_hits,
    pit_values,
    replicate_coverage,
    shared_difficulty_cohort,
    worst_cell_chance,
)


def test_randomised_pit_is_uniform_for_a_calibrated_discrete_posterior():
    # truth and draws from one Poisson(2.5): calibrated by construction. The
    # equal-tailed interval over-covers (its endpoints carry mass); the randomised
    # PIT is exactly uniform, so its central interval covers at the nominal rate.
    rng = np.random.default_rng(5)
    cells = 4000
    lam = rng.uniform(1.0, 4.0, cells)
    draws = rng.poisson(lam, size=(2000, cells)).astype(float)
    truth = rng.poisson(lam).astype(float)
    u = _pit(draws, truth, rng.uniform(size=cells))
    assert stats.kstest(u, "uniform").pvalue > 0.01
    se = np.sqrt(0.9 * 0.1 / cells)  # binomial error of a coverage share
    assert abs(np.mean(pit_hits(u, 0.9)) - 0.9) < 3 * se
    assert np.mean(_hits(draws, truth, 0.9)) > 0.9 + 5 * se


def test_randomised_pit_of_a_continuous_posterior_is_its_quantile():
    rng = np.random.default_rng(6)
    draws = rng.normal(size=(1000, 50))
    truth = rng.normal(size=50)
    u = _pit(draws, truth, rng.uniform(size=50))
    np.testing.assert_allclose(u, (draws < truth).mean(0))
    assert np.isnan(_pit(draws[:, :2], np.array([np.nan, 0.0]), np.ones(2))[0])


def test_worst_cell_chance_matches_simulation():
    rng = np.random.default_rng(7)
    replicates, cells, prob = 10, 40, 0.95
    worst = rng.binomial(replicates, prob, size=(20000, cells)).min(1) / replicates
    for level in (0.6, 0.7):  # chances about 0.04 and 0.37
        simulated = np.mean(worst <= level)
        se = np.sqrt(simulated * (1 - simulated) / len(worst))
        assert 0.01 < simulated < 0.99
        assert abs(worst_cell_chance(level, replicates, cells, prob) - simulated) < 4 * se


@pytest.fixture(scope="module")
def exact_replicates():
    cfg = shared_difficulty_cohort(scale=0.3)
    fit = lambda ds, s: ExactModel().fit(ds, random_seed=s)  # noqa: E731
    return replicate_coverage(cfg, fit, seeds=[1, 2])


def test_every_quantity_has_hits_pit_and_a_table_row(exact_replicates):
    res = exact_replicates
    assert set(res.hits) == set(res.pit) == set(QUANTITIES)
    for q in QUANTITIES:
        assert res.pit[q].shape == res.hits[q][0.95].shape
        u = res.pit[q][np.isfinite(res.pit[q])]
        assert u.size and np.all((u >= 0) & (u <= 1))
        # a cell has a PIT exactly where it has an interval
        np.testing.assert_array_equal(np.isfinite(res.pit[q]), np.isfinite(res.hits[q][0.95]))
    table = coverage_table(res)
    assert len(table) == 2 * len(QUANTITIES)
    assert table[["randomised", "min_cell_chance"]].notna().all().all()


def test_randomised_and_equal_tailed_intervals_agree_for_continuous_quantities():
    cfg = shared_difficulty_cohort(scale=0.3)
    sim = simulate(cfg, random_seed=3)
    post = ExactModel().fit(sim.dataset, random_seed=3)["posterior"].to_dataset()
    from judgestats.simulate.model import truth

    true = truth(cfg)
    hits = interval_hits(post, true, (0.9,))
    pit = pit_values(post, true, np.random.default_rng(0))
    for q in ("kappa", "p_first", "kappa_diff"):
        h, r = hits[q][0.9], pit_hits(pit[q], 0.9)
        ok = np.isfinite(h)
        # they differ only where the truth is within a draw of an interval's end
        assert np.mean(h[ok] == r[ok]) >= 0.95
