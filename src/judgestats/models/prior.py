"""The base measure of both tiers: every reachable verdict pattern keeps prior mass.

A posterior that only puts mass on the verdict patterns it saw collapses to a point
when a judge happens to show one pattern (six items, always right, in both orders
and every run): every metric then has an interval of zero width, and a validation
step passes on no evidence. Both tiers therefore give every reachable pattern
prior mass through one *base measure* ``G0`` over an item's (label, pattern):

* the label is uniform over the human-label classes present in the benchmark
  (A, B, tie, none);
* the item is judged in every (order, run) cell that holds a verdict on some item
  of the benchmark, and each of those judgments is, independently, A, B, tie or
  invalid with probability 1/4.

The exact tier's prior is a Dirichlet process with concentration ``alpha``
(:data:`DEFAULT_CONCENTRATION`, 1: one pseudo-item) and base
measure ``G0``, shared by judges through the items: its posterior given ``n`` items
is ``DP(alpha G0 + sum_i delta_i)``. A draw is exactly (Sethuraman 1994; the
Bayesian bootstrap is its ``alpha -> 0`` limit)::

    (w_1 .. w_n, W) ~ Dirichlet(1, .., 1, alpha)      shared by every judge
    P = sum_i w_i delta_(item i) + W * P_new          P_new ~ DP(alpha, G0)

with ``P_new`` drawn per judge by stick-breaking (:func:`dp_feature_draws`), so
that unseen items do not make two judges agree by construction. For one verdict
per item, ``n`` items all judged right and a single label class, the posterior of
the accuracy is therefore ``Beta(n + alpha/4, 3 alpha/4)`` in closed form. The
hierarchical tier adds a *novel* leaf under the root of every pattern tree whose
items follow ``P_new`` (same draws), so the tree keeps mass on every pattern it has
not seen.

Where a judge's own data leave a metric's denominator empty (no run judged in both
orders, no replicate), the metric stays undefined: the prior alone never measures
a quantity (see :func:`judgestats.models.derived.derived_quantities`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import product

import numpy as np
from scipy import sparse

from judgestats.features import item_features
from judgestats.schema import Verdict
from judgestats.tally import LABEL_CODES, BenchmarkTally, canonical_patterns

__all__ = [
    "DEFAULT_CONCENTRATION",
    "BasePatterns",
    "base_patterns",
    "dirichlet_with_novel",
    "dp_feature_draws",
]

#: Verdicts a judgment can take under the base measure, with equal probability.
_CODES = np.array([Verdict.A, Verdict.B, Verdict.TIE, Verdict.INVALID], dtype=np.int8)
#: Designs with more cells than this are represented by a fixed Monte Carlo sample.
_MAX_ENUMERATED_CELLS = 8
_MC_PATTERNS = 1 << 16
#: Sticks of the truncated stick-breaking draw; the mass left over,
#: ``(alpha / (1 + alpha)) ** _STICKS`` on average (6e-8 at alpha = 1), goes to the last.
_STICKS = 24
#: Draws per block of :func:`dp_feature_draws`: its temporaries stay a few MB whatever
#: the number of draws (all at once, they held 250 MB for 65 judges x 2000 draws).
_DP_BLOCK = 8192


#: Concentration ``alpha`` of the prior, in pseudo-items: the default of both tiers.
#:
#: The novel part's weight, about ``alpha / (n + alpha)`` for ``n`` items, pulls every
#: metric toward its value under ``G0``, a judge that answers at random: by about
#: ``alpha / n`` of the distance, which is several posterior sd where the sd is small,
#: as for the test-retest of a nearly deterministic judge. Measured over 20 replicates
#: of :func:`~judgestats.simulate.coverage.shared_difficulty_cohort` (exact tier, data
#: seeds 1000-1019; ``benchmarks/bench_coverage.py --tier exact --replicates 20
#: --prior ALPHA``), test-retest's z-scores (posterior mean - truth) / sd had mean
#: -0.32 and sd 0.92 at ``alpha = 1`` (the two near-deterministic judges' -0.49 to
#: -0.91, sd 0.35-0.58: intervals too wide and too low; 95% coverage 0.931), +0.02
#: and 1.00 at 1/4 (coverage 0.954 +- 0.008) and +0.21 and 1.23 at 1/20 (too narrow:
#: coverage 0.927, a cell covered in 14 of 20); the other quantities moved within
#: their Monte Carlo error (flip rate 0.946 -> 0.931 +- 0.011 at 1/4). 1/4 is not the
#: default because the plan's predictions by runs (:mod:`judgestats.plan`, which
#: updates its futures with this prior) then under-predict how often a verdict
#: settles: in the calibration test of the plan by runs
#: (``tests/plan/test_plan_calibration.py``, 150 replicates) settled minus predicted
#: was +0.060 +- 0.028 at 1/4 against +0.023 +- 0.027 at 1 (with the plugged-in run
#: noise the plan had before, +0.081 +- 0.026 against +0.045 +- 0.025).
#: In the hierarchical tier ``alpha`` only spreads the novel leaf's items over ``G0``
#: (``P_new``): its coverage over the same 20 replicates was the same at 1/4 as at 1,
#: to three decimals.
DEFAULT_CONCENTRATION = 1.0


@dataclass(frozen=True)
class BasePatterns:
    """``G0`` of one benchmark as weighted atoms.

    Attributes
    ----------
    features : ndarray, shape (K, label, feature)
        Item features of each canonical pattern under each label of
        :data:`~judgestats.tally.LABEL_CODES`.
    prob : ndarray, shape (K,)
        Probability of each pattern under ``G0`` (sums to 1).
    labels : ndarray of int, shape (L,)
        Label indices (into :data:`~judgestats.tally.LABEL_CODES`) present in the
        benchmark, over which ``G0``'s label is uniform.
    """

    features: np.ndarray
    prob: np.ndarray
    labels: np.ndarray

    def mean_features(self, label: int) -> np.ndarray:
        """Return the expected item features under ``G0`` for one label index, shape (feature,)."""
        return self.prob @ self.features[:, label, :]


def _design_mask(bt: BenchmarkTally) -> np.ndarray:
    """Return the (order, run) cells with a verdict on at least one item of the benchmark."""
    return (bt.patterns != Verdict.MISSING).any(0)  # runs are sorted present-first


@lru_cache(maxsize=64)
def _patterns_for(mask_bytes: bytes, shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Canonical patterns of a design and their ``G0`` probabilities (cached)."""
    mask = np.frombuffer(mask_bytes, dtype=bool).reshape(shape)
    cells = np.flatnonzero(mask.ravel())
    if len(cells) <= _MAX_ENUMERATED_CELLS:
        values = np.array(list(product(_CODES, repeat=len(cells))), dtype=np.int8)
    else:  # a fixed sample: deterministic, and large enough that G0's moments hold
        rng = np.random.default_rng(0)
        values = rng.choice(_CODES, size=(_MC_PATTERNS, len(cells)))
    raw = np.full((len(values), mask.size), Verdict.MISSING, dtype=np.int8)
    raw[:, cells] = values
    canon = canonical_patterns(raw.reshape(-1, *shape))
    flat = canon.reshape(len(canon), -1)
    patterns, counts = np.unique(flat, axis=0, return_counts=True)
    return patterns.reshape(-1, *shape), counts / counts.sum()


def base_patterns(bt: BenchmarkTally) -> BasePatterns:
    """Return ``G0`` of a benchmark: its canonical patterns, their features and mass.

    Parameters
    ----------
    bt : BenchmarkTally
        The benchmark's tally (for its design, orders and labels).

    Returns
    -------
    BasePatterns
        Every pattern of the benchmark's design, enumerated when it has
        at most 8 cells (65,536 raw patterns), else a fixed sample of 65,536.
    """
    mask = _design_mask(bt)
    patterns, prob = _patterns_for(np.ascontiguousarray(mask).tobytes(), mask.shape)
    feats = np.stack(
        [item_features(patterns, np.full(len(patterns), c), bt.orders) for c in LABEL_CODES], 1
    )
    labels = np.flatnonzero(bt.label_counts() > 0)
    return BasePatterns(feats, prob, labels)


def _log_gamma(shape: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Log of Gamma(shape) draws, finite for tiny shapes (``G(a) = G(a + 1) U^(1/a)``)."""
    shape = np.asarray(shape, dtype=float)
    with np.errstate(divide="ignore"):
        return np.log(rng.gamma(shape + 1.0)) + np.log(rng.random(shape.shape)) / shape


def dirichlet_with_novel(
    n_items: int, size: int, alpha: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Draw ``Dirichlet(1, .., 1, alpha)``: weights of ``n_items`` items and of the novel part.

    The items' gammas are ``Exp(1)`` draws, which neither underflow nor overflow, and
    are normalised as they are; only the novel part's ``Gamma(alpha)``, tiny for a
    small ``alpha``, is drawn and summed on the log scale.

    Returns
    -------
    weights : ndarray, shape (size, n_items)
    novel : ndarray, shape (size,)
    """
    g = rng.standard_exponential((size, n_items))
    log_novel = _log_gamma(np.full(size, alpha), rng)
    log_total = np.logaddexp(np.log(g.sum(1)), log_novel)
    g /= np.exp(log_total)[:, None]
    return g, np.exp(log_novel - log_total)


def dp_feature_draws(
    atoms: np.ndarray,
    prob: np.ndarray,
    shape: tuple[int, ...],
    alpha: float,
    rng: np.random.Generator,
) -> np.ndarray:
    """Return the expected item features under draws of ``P_new ~ DP(alpha, G0)``.

    ``G0`` is the discrete distribution ``prob`` over ``atoms``; each draw is a
    truncated stick-breaking sum of :data:`_STICKS` atoms (the left-over mass goes to
    the last stick).

    Parameters
    ----------
    atoms : ndarray, shape (K, feature)
        Features of each atom.
    prob : ndarray, shape (K,)
        ``G0``'s probabilities.
    shape : tuple of int
        Shape of the draws (for example ``(draw, judge)``).
    alpha : float
        Concentration.
    rng : numpy.random.Generator

    Returns
    -------
    ndarray, shape (*shape, feature)
    """
    n = int(np.prod(shape))
    out = np.empty((n, atoms.shape[-1]))
    for lo in range(0, n, _DP_BLOCK):  # blocks: the temporaries stay small
        hi = min(n, lo + _DP_BLOCK)
        out[lo:hi] = _stick_draws(atoms, prob, hi - lo, alpha, rng)
    return out.reshape(*shape, atoms.shape[-1])


def _stick_draws(
    atoms: np.ndarray, prob: np.ndarray, n: int, alpha: float, rng: np.random.Generator
) -> np.ndarray:
    """``n`` draws of :func:`dp_feature_draws`, shape ``(n, feature)``."""
    # Beta(1, alpha) by inversion, 1 - U ** (1 / alpha): the same law as rng.beta, a
    # fraction of its cost; the left-over mass goes to the last stick. In place: fewer
    # temporaries.
    v = rng.random((n, _STICKS - 1))
    np.log(v, out=v)
    v /= alpha
    np.expm1(v, out=v)
    np.negative(v, out=v)
    shares = np.empty((n, _STICKS))
    left = np.subtract(1.0, v, out=shares[:, 1:])
    np.cumprod(left, axis=1, out=left)  # left[:, t]: the stick left after t + 1 breaks
    shares[:, -1] = left[:, -1]
    np.multiply(left[:, :-1], v[:, 1:], out=shares[:, 1:-1])  # same places: in place
    shares[:, 0] = v[:, 0]
    picks = _pick(prob, (n, _STICKS), rng)
    return _weighted_atoms(shares, picks, atoms)


def _pick(prob: np.ndarray, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """Draw atom indices with probabilities ``prob``.

    Few atoms: Walker's alias method (two uniforms and a lookup per draw, exact);
    many: the inverse of the cumulative distribution (a binary search per draw).
    """
    k = len(prob)
    if k > _DENSE_ATOMS:
        cdf = np.cumsum(prob)
        cdf /= cdf[-1]
        return np.minimum(np.searchsorted(cdf, rng.random(shape), side="right"), k - 1)
    keep, alias = _alias_table(tuple(np.asarray(prob, dtype=float) / np.sum(prob)))
    u = rng.random(shape)
    u *= k
    column = u.astype(np.intp)
    np.minimum(column, k - 1, out=column)
    coin = rng.random(shape, out=u)
    return np.where(coin < keep[column], column, alias[column])


@lru_cache(maxsize=64)
def _alias_table(prob: tuple[float, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Vose's alias table of a discrete distribution: keep-probabilities and aliases."""
    k = len(prob)
    scaled = [p * k for p in prob]
    keep, alias = np.ones(k), np.arange(k)
    small = [i for i, q in enumerate(scaled) if q < 1.0]
    large = [i for i, q in enumerate(scaled) if q >= 1.0]
    while small and large:
        lo, hi = small.pop(), large.pop()
        keep[lo], alias[lo] = scaled[lo], hi
        scaled[hi] -= 1.0 - scaled[lo]
        (small if scaled[hi] < 1.0 else large).append(hi)
    return keep, alias  # what is left holds probability 1 (up to rounding)


#: Atoms up to which the weights of every draw are held as a dense matrix, beyond
#: which a sparse one (24 sticks a draw) is cheaper. 8,192 draws of 44 features, in
#: three runs of ``benchmarks/bench_dp_atoms.py``: 128 atoms 2.4-2.9 ms dense
#: against 5.3-5.4 sparse, 256 atoms 4.3-7.2 against 5.6-7.0, 512 atoms 9.1-13.1
#: against 5.4-7.2, 1,024 atoms 28.3 against 5.6 (the seed-002 cohort's base measures
#: have 1,632 and 2,448 atoms, LLMBar's 32).
_DENSE_ATOMS = 256


def _weighted_atoms(shares: np.ndarray, picks: np.ndarray, atoms: np.ndarray) -> np.ndarray:
    """Return ``sum_t shares[:, t] * atoms[picks[:, t]]``: each draw's weight on each atom."""
    n, k = len(shares), len(atoms)
    if k <= _DENSE_ATOMS:
        out = np.empty((n, atoms.shape[-1]))
        block = max(1, (1 << 22) // k)  # rows per dense weight block (32 MB)
        start = (np.arange(min(block, n)) * k)[:, None]  # of each row's weights in a block
        for lo in range(0, n, block):
            hi = min(n, lo + block)
            idx = picks[lo:hi] + start[: hi - lo]
            w = np.bincount(idx.ravel(), weights=shares[lo:hi].ravel(), minlength=(hi - lo) * k)
            out[lo:hi] = w.reshape(hi - lo, k) @ atoms
        return out
    rows = np.repeat(np.arange(n), shares.shape[1])
    weights = sparse.csr_array((shares.ravel(), (rows, picks.ravel())), shape=(n, k))
    return np.asarray(weights @ atoms)
