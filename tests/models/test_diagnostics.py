"""Vectorised R-hat and ESS against ``arviz_stats`` (the reference implementation)."""

import numpy as np
import pytest
from arviz_stats.base import array_stats

from judgestats.models.diagnostics import TAIL_PROBS, diagnostics


def _ar1(rng, shape, phi):
    """AR(1) chains along the last axis (seeded), correlation ``phi`` between draws."""
    e = rng.normal(size=shape)
    x = np.empty(shape)
    x[..., 0] = e[..., 0]
    for t in range(1, shape[-1]):
        x[..., t] = phi * x[..., t - 1] + e[..., t]
    return x


def _cells(chains, draws, phi):
    """Twelve cells of chains: AR(1), constant, tied, with a NaN, trending, discrete."""
    rng = np.random.default_rng(chains * 1000 + draws)
    x = _ar1(rng, (12, chains, draws), phi)
    x[0] = 1.0  # constant: R-hat NaN, ESS the number of draws
    x[1] = np.round(x[1])  # many ties among the ranks
    x[2, 0, min(3, draws - 1)] = np.nan  # a NaN draw: NaN diagnostics
    x[3] += np.arange(draws) * 0.05  # a trend: R-hat well above 1
    x[4] = rng.integers(0, 3, size=(chains, draws))  # a rank-like quantity
    return x


def _reference(x):
    ref = []
    for cell in x:
        r = array_stats.rhat(cell, chain_axis=0, draw_axis=1) if x.shape[1] > 1 else np.nan
        b = array_stats.ess(cell, chain_axis=0, draw_axis=1, method="bulk")
        t = array_stats.ess(cell, chain_axis=0, draw_axis=1, method="tail", prob=TAIL_PROBS)
        ref.append((r, b, t))
    return [np.array(c, dtype=float) for c in zip(*ref, strict=True)]


SHAPES = [
    (2, 500, 0.0),
    (2, 500, 0.9),
    (2, 500, -0.6),  # antithetic: ESS above the number of draws
    (4, 101, 0.5),  # odd draws: the middle draw of each chain is dropped
    (1, 50, 0.3),  # one chain: no R-hat
    (2, 4, 0.0),  # the fewest draws diagnosed
    (2, 7, 0.2),
    (3, 1000, 0.99),  # the autocorrelation sequence is long
]


@pytest.mark.parametrize(("chains", "draws", "phi"), SHAPES)
def test_equal_to_arviz_stats(chains, draws, phi):
    x = _cells(chains, draws, phi)
    ref = _reference(x)
    ours = diagnostics(x)
    for name, o, r in zip(("rhat", "ess_bulk", "ess_tail"), ours, ref, strict=True):
        assert np.isfinite(r).sum() >= (0 if chains == 1 and name == "rhat" else 9), name
        np.testing.assert_allclose(o, r, rtol=1e-10, atol=0, equal_nan=True, err_msg=name)


def test_leading_dimensions_and_chunks_keep_their_cells():
    x = _ar1(np.random.default_rng(3), (3, 250, 2, 40), 0.4)  # 750 cells: several chunks
    together = diagnostics(x)
    one_by_one = [diagnostics(x[i, j]) for i in range(3) for j in range(250)]
    for k, t in enumerate(together):
        assert t.shape == (3, 250)
        np.testing.assert_array_equal(t.ravel(), [d[k] for d in one_by_one])


def test_too_few_draws_are_not_diagnosed():
    x = np.random.default_rng(0).normal(size=(5, 2, 3))
    for value in diagnostics(x):
        assert np.isnan(value).all()


def test_a_stuck_chain_is_flagged():
    x = _ar1(np.random.default_rng(1), (2, 1000), 0.5)
    x[1] += 3.0  # the second chain explores somewhere else
    assert float(diagnostics(x)[0]) > 1.5
