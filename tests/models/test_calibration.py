"""Calibration over replicates: coverage per quantity, mean over replicated datasets.

The cohort (:func:`~judgestats.simulate.coverage.shared_difficulty_cohort`) has a
shared item difficulty, label noise, a judge that runs twice and two
near-deterministic, strongly position-biased judges; its truth is the exact
population value. Each replicate is a fresh dataset (data seeds 1000, 1001, ...,
as in ``benchmarks/bench_coverage.py``). The target bands are 0.87-0.93 for 90%
intervals and 0.93-0.97 for 95% intervals, for the mean over replicates; the
tolerance adds two Monte Carlo errors (sd across replicates / sqrt(replicates)).
Integer-valued quantities (ranks, rank shifts) have intervals whose endpoints are
attained with positive probability, so they cover more than nominal; for them only
the lower end is required of the reported intervals, the band is an expected
failure, and the band is required of the randomised intervals (randomised PIT,
:func:`~judgestats.simulate.coverage.pit_values`), which a calibrated posterior
meets exactly. The hierarchical tier meets the bands; over the 10 replicates fitted
here, not the 80% floor of every cell (an expected failure, which 20 replicates meet).
"""

import numpy as np
import pytest

from judgestats.models import ExactModel, HierarchicalConfig, HierarchicalModel
from judgestats.simulate.coverage import (
    METRIC_QUANTITIES,
    coverage_table,
    replicate_coverage,
    shared_difficulty_cohort,
)

BANDS = {0.9: (0.87, 0.93), 0.95: (0.93, 0.97)}
CONTINUOUS = (*METRIC_QUANTITIES, "kappa_diff")
DISCRETE = ("rank", "rank_shift")
SEEDS = range(1000, 1020)


def _rows(table, quantities):
    return [r for r in table.itertuples() if r.quantity in quantities]


@pytest.fixture(scope="module")
def exact_table():
    res = replicate_coverage(
        shared_difficulty_cohort(), lambda ds, s: ExactModel().fit(ds, random_seed=s), SEEDS
    )
    assert res.n_replicates == 20
    return coverage_table(res)


@pytest.fixture(scope="module")
def hierarchical_table():
    cfg = HierarchicalConfig(cores=1)
    res = replicate_coverage(
        shared_difficulty_cohort(),
        lambda ds, s: HierarchicalModel(cfg).fit(ds, random_seed=s),
        SEEDS[:10],
    )
    return coverage_table(res)


def _check_band(rows, lower_only=False, randomised=False):
    bad = []
    for r in rows:
        lo, hi = BANDS[r.prob]
        mean, mc = (r.randomised, r.randomised_mc_error) if randomised else (r.mean, r.mc_error)
        tol = 2 * mc
        if mean < lo - tol or (not lower_only and mean > hi + tol):
            bad.append((r.quantity, r.prob, round(mean, 3), round(mc, 3)))
    assert not bad, bad


@pytest.mark.slow
def test_exact_tier_continuous_quantities_are_calibrated(exact_table):
    _check_band(_rows(exact_table, CONTINUOUS))
    # no cell is covered by its 95% interval in fewer than 80% of replicates
    cells = [r for r in _rows(exact_table, CONTINUOUS) if r.prob == 0.95]
    assert min(r.min_cell for r in cells) >= 0.8
    assert np.all(exact_table["sd"] > 0)  # replicates differ: the check has power


@pytest.mark.slow
def test_exact_tier_rank_intervals_do_not_under_cover(exact_table):
    _check_band(_rows(exact_table, DISCRETE), lower_only=True)


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="integer-valued quantities over-cover")
def test_exact_tier_rank_intervals_within_band(exact_table):
    _check_band(_rows(exact_table, DISCRETE))


@pytest.mark.slow
def test_exact_tier_rank_distributions_are_calibrated(exact_table):
    _check_band(_rows(exact_table, DISCRETE), randomised=True)


@pytest.mark.calibration  # ten hierarchical fits: many minutes
def test_hierarchical_tier_is_calibrated(hierarchical_table):
    _check_band(_rows(hierarchical_table, CONTINUOUS))
    _check_band(_rows(hierarchical_table, DISCRETE), lower_only=True)
    _check_band(_rows(hierarchical_table, DISCRETE), randomised=True)


@pytest.mark.calibration
@pytest.mark.xfail(
    strict=True,
    reason="over 10 replicates cells of kappa, exact match and test-retest fall to 7"
    " of 10 and a kappa-difference cell to 6 (bench_coverage.py, data seeds"
    " 1000-1009; the exact tier's worst are 7 and 6 of 10 there too), as chance does"
    " to a few of 84 calibrated cells; over 20 replicates every cell is covered in 16"
    " of 20 or more (README, 'Coverage over replicates')",
)
def test_hierarchical_tier_covers_every_cell(hierarchical_table):
    # no cell is covered by its 95% interval in fewer than 80% of replicates
    cells = [r for r in _rows(hierarchical_table, CONTINUOUS) if r.prob == 0.95]
    assert min(r.min_cell for r in cells) >= 0.8
