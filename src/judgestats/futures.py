"""Simulated futures of a judge's data, drawn from the exact tier's posterior predictive.

The two kinds of future of :func:`judgestats.plan.plan` (its module docs state the
method and its approximations):

* :func:`item_futures`: ``N`` more items, in the design of the judge's existing ones;
* :func:`run_futures`: ``K`` more runs of every existing (item, order) unit, from a
  Pólya urn per unit (:class:`RunNoise`).

Each returns, per future, posterior draws of the expected item features given the
data after the addition (the exact tier's Dirichlet process over (label, pattern)
atoms, scaled to the item count as :meth:`~judgestats.models.ExactModel.fit` does)
and what the future's items count for in the MVVP evidence rule.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

import numpy as np

from judgestats.features import FEATURES, item_features
from judgestats.models.prior import base_patterns, dp_feature_draws
from judgestats.schema import Verdict
from judgestats.tally import LABEL_CODES, BenchmarkTally, canonical_patterns, unique_patterns

__all__ = [
    "Cell",
    "PriorCache",
    "RunNoise",
    "cell",
    "evidence",
    "item_futures",
    "run_futures",
    "run_noise",
]

_NO_LABEL = LABEL_CODES.index(Verdict.MISSING)
_LABEL_CODES = np.asarray(LABEL_CODES, dtype=np.int8)
#: Draws of the prior's novel part kept per cell and resampled (its weight is
#: about ``alpha / (n + alpha)``, so a finite pool changes nothing visible).
_POOL = 2000
#: Outcomes of one run of a unit: A, B, tie, invalid.
_OUTCOMES = np.array([Verdict.A, Verdict.B, Verdict.TIE, Verdict.INVALID], dtype=np.int8)
#: Pseudo-count per outcome in a (label, order) class's mean run distribution.
_MEAN_PSEUDO = 0.5
#: Bounds of the urn's concentration (runs no more alike than chance: the upper one).
_CONCENTRATION_BOUNDS = (1e-3, 1e6)


def evidence(
    patterns: np.ndarray, label: np.ndarray, orders: tuple[str, ...], min_runs: int
) -> np.ndarray:
    """Return what each item counts for in the evidence rule, shape (item, 3).

    The columns: labelled, judged in both orders, (item, order) units with
    ``min_runs`` runs.
    """
    present = patterns != Verdict.MISSING
    paired = np.zeros(len(patterns), dtype=bool)
    if "AB" in orders and "BA" in orders:
        ab, ba = orders.index("AB"), orders.index("BA")
        paired = (present[:, ab] & present[:, ba]).any(-1)
    units = (present.sum(-1) >= min_runs).sum(-1)
    return np.stack([label != _NO_LABEL, paired, units], -1).astype(float)


@dataclass(frozen=True)
class Cell:
    """One judge's items on one benchmark, as atoms of (label, pattern).

    Attributes
    ----------
    counts : ndarray, shape (K,)
        Items per atom.
    labels : ndarray of int, shape (K,)
        Label index of each atom (into :data:`~judgestats.tally.LABEL_CODES`).
    patterns : ndarray of int8, shape (K, order, run)
    features, evidence : ndarray, shape (K, feature) and (K, 3)
    novel_atoms, novel_prob, novel_evidence : ndarray
        ``G0``'s atoms in (pattern, label) order, their probabilities and evidence.
    prior_pool : ndarray, shape (POOL, feature)
        Draws of the expected features of ``P_new ~ DP(alpha, G0)``.
    orders : tuple of str
    """

    counts: np.ndarray
    labels: np.ndarray
    patterns: np.ndarray
    features: np.ndarray
    evidence: np.ndarray
    novel_atoms: np.ndarray
    novel_prob: np.ndarray
    novel_evidence: np.ndarray
    prior_pool: np.ndarray
    orders: tuple[str, ...]

    @property
    def n_items(self) -> int:
        """Items the judge has now."""
        return int(self.counts.sum())

    @property
    def max_runs(self) -> int:
        """Most runs of one (item, order) unit now."""
        return int((self.patterns != Verdict.MISSING).sum(-1).max(initial=0))


@dataclass(frozen=True)
class _Novel:
    """``G0`` of one design, and a pool of draws of ``P_new``'s expected features.

    Its atoms are in (pattern, label) order, with their probabilities and evidence.
    """

    atoms: np.ndarray
    prob: np.ndarray
    evidence: np.ndarray
    pool: np.ndarray


class PriorCache:
    """``G0`` and its ``P_new`` pool per benchmark and added runs, built once per plan.

    Enumerating ``G0`` of a design costs far more than a future; every open verdict
    of a benchmark shares it (the pool is a Monte Carlo picture of the prior, and
    sharing it changes no expectation).
    """

    def __init__(self, min_runs: int, alpha: float, rng: np.random.Generator) -> None:
        self.min_runs, self.alpha, self._rng = min_runs, alpha, rng
        self._built: dict[tuple[str, int], _Novel] = {}

    def get(self, bt: BenchmarkTally, added_runs: int = 0) -> _Novel:
        """Return ``G0`` of the benchmark's design with ``added_runs`` more runs per cell."""
        key = (bt.benchmark, added_runs)
        if key not in self._built:
            if added_runs:  # every designed cell gains the runs
                wider = [bt.patterns, *[bt.patterns[..., :1]] * added_runs]
                bt = replace(bt, patterns=np.concatenate(wider, -1))
            self._built[key] = _novel(bt, self.min_runs, self.alpha, self._rng)
        return self._built[key]


def _novel(bt: BenchmarkTally, min_runs: int, alpha: float, rng: np.random.Generator) -> _Novel:
    base = base_patterns(bt)
    n_lab = len(base.labels)
    atoms = base.features[:, base.labels, :].reshape(-1, len(FEATURES))
    prob = np.repeat(base.prob, n_lab) / n_lab
    # G0's atoms in the (pattern, label) order of exact._novel; every cell of the
    # benchmark's design is judged, so their evidence is the design's.
    design = (bt.patterns != Verdict.MISSING).any(0)
    full = np.where(design, Verdict.A, Verdict.MISSING)[None]
    novel_ev = evidence(np.repeat(full, n_lab, 0), base.labels, bt.orders, min_runs)
    pool = dp_feature_draws(atoms, prob, (_POOL,), alpha, rng)
    return _Novel(atoms, prob, np.tile(novel_ev, (len(base.prob), 1)), pool)


def cell(bt: BenchmarkTally, judge: str, min_runs: int, priors: PriorCache) -> Cell:
    """Return the :class:`Cell` of one judge on one benchmark."""
    j = bt.judges.index(judge)
    lab, k = np.nonzero(bt.counts[j])
    g0 = priors.get(bt)
    return Cell(
        counts=bt.counts[j, lab, k].astype(float),
        labels=lab,
        patterns=bt.patterns[k],
        features=bt.features[k, lab, :],
        evidence=evidence(bt.patterns[k], lab, bt.orders, min_runs),
        novel_atoms=g0.atoms,
        novel_prob=g0.prob,
        novel_evidence=g0.evidence,
        prior_pool=g0.pool,
        orders=bt.orders,
    )


def item_futures(
    c: Cell, added: int, futures: int, draws: int, alpha: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Posterior draws of expected features after ``added`` simulated items.

    Returns
    -------
    features : ndarray, shape (futures, draws, feature)
        Scaled to the item count, as :meth:`JudgeModel.fit` does.
    evidence : ndarray, shape (futures, 3)
        Counted items after the addition.
    """
    k = len(c.counts)
    theta = rng.dirichlet(np.r_[c.counts, alpha], size=futures)
    picks = rng.multinomial(added, theta)  # (futures, K + 1); the last: novel items
    n_novel = picks[:, -1]
    slots = max(int(n_novel.max()), 1)
    cdf = np.cumsum(c.novel_prob)
    idx = np.minimum(
        np.searchsorted(cdf / cdf[-1], rng.random((futures, slots)), side="right"),
        len(cdf) - 1,
    )
    active = (np.arange(slots)[None, :] < n_novel[:, None]).astype(float)
    counts = c.counts[None, :] + picks[:, :k]
    g_seen = rng.gamma(np.broadcast_to(counts[:, None, :], (futures, draws, k)))
    g_novel = rng.gamma(np.broadcast_to(active[:, None, :], (futures, draws, slots)))
    g_prior = rng.gamma(alpha, size=(futures, draws))
    total = g_seen.sum(-1) + g_novel.sum(-1) + g_prior
    prior_part = c.prior_pool[rng.integers(len(c.prior_pool), size=(futures, draws))]
    expected = (
        g_seen @ c.features
        + np.einsum("sdm,smf->sdf", g_novel, c.novel_atoms[idx])
        + g_prior[..., None] * prior_part
    ) / total[..., None]
    n_after = c.counts.sum() + added
    ev = counts @ c.evidence + np.einsum("sm,smc->sc", active, c.novel_evidence[idx])
    return expected * n_after, ev


@dataclass(frozen=True)
class RunNoise:
    """A judge's run-to-run noise on one benchmark, as a Pólya urn per unit.

    The next run of an (item, order) unit whose runs so far show outcome counts
    ``n`` (A, B, tie, invalid) is outcome ``v`` with probability
    ``(n_v + concentration * mean_v) / (sum(n) + concentration)``, ``mean`` that of
    the unit's (label, order) class.

    Attributes
    ----------
    mean : ndarray, shape (label, order, outcome)
        Share of each outcome among the judge's runs per (label, order) class, with
        :data:`_MEAN_PSEUDO` added per outcome.
    concentration : float
        Moment estimate from the pairwise agreement of runs within units:
        ``P(two runs agree) = (concentration * S + 1) / (concentration + 1)``, ``S``
        the chance agreement ``sum(mean ** 2)`` averaged over the pairs.
    agreement : float
        The observed pairwise agreement.
    """

    mean: np.ndarray
    concentration: float
    agreement: float


def _outcome_counts(patterns: np.ndarray) -> np.ndarray:
    """Return the runs of each outcome per unit, shape (..., order, outcome)."""
    return np.stack([(patterns == v).sum(-1) for v in _OUTCOMES], -1).astype(float)


def run_noise(c: Cell, weights: np.ndarray | None = None) -> RunNoise | None:
    """Estimate a judge's :class:`RunNoise`; None with no unit of two or more runs.

    Parameters
    ----------
    c : Cell
    weights : ndarray, shape (K,), optional
        Weight of each of the cell's patterns, in items (default: its item count);
        a Bayesian bootstrap of the items gives ``Gamma(count)`` weights.
    """
    counts = c.counts if weights is None else weights
    n_uv = _outcome_counts(c.patterns)  # (K, order, outcome)
    runs = n_uv.sum(-1)
    pairs = runs * (runs - 1) / 2 * counts[:, None]
    if pairs.sum() == 0:
        return None
    class_counts = np.zeros((len(LABEL_CODES), len(c.orders), len(_OUTCOMES)))
    np.add.at(class_counts, c.labels, n_uv * counts[:, None, None])
    mean = class_counts + _MEAN_PSEUDO
    mean /= mean.sum(-1, keepdims=True)
    agree = ((n_uv * (n_uv - 1) / 2).sum(-1) * counts[:, None]).sum() / pairs.sum()
    chance = ((mean**2).sum(-1)[c.labels] * pairs).sum() / pairs.sum()
    lo, hi = _CONCENTRATION_BOUNDS
    conc = hi if agree <= chance else (1 - agree) / (agree - chance)
    return RunNoise(mean, float(np.clip(conc, lo, hi)), float(agree))


def _extended(c: Cell, noise: RunNoise, most: int, futures: int, rng: np.random.Generator):
    """Patterns of every item with ``most`` more runs per unit, shape (future, item, order, run).

    Each future's run noise is estimated from a Bayesian bootstrap of the judge's
    items (``noise`` where a draw leaves no unit of two runs), so that the futures
    carry the uncertainty of the urn's concentration and mean shares: plugged in, the
    futures' runs followed the judge's estimated stability instead of a stability the
    data allow, and the plan under-predicted how often step 3 settles.
    """
    item_atom = np.repeat(np.arange(len(c.counts)), c.counts.astype(np.int64))
    pat = c.patterns[item_atom]  # (n, order, R)
    labels = c.labels[item_atom]
    shown = (pat != Verdict.MISSING).any(-1)  # (n, order)
    drawn = [run_noise(c, rng.gamma(c.counts.astype(float))) or noise for _ in range(futures)]
    conc = np.array([d.concentration for d in drawn])[:, None, None, None]
    mean = np.stack([d.mean[labels] for d in drawn])  # (future, n, order, outcome)
    g = rng.gamma(conc * mean + _outcome_counts(pat))
    p = g / g.sum(-1, keepdims=True)  # (future, n, order, outcome)
    cum = np.cumsum(p, -1)
    u = rng.random((*p.shape[:-1], most))
    new = _OUTCOMES[(u[..., None] >= cum[..., None, :-1]).sum(-1)]  # (future, n, order, most)
    new = np.where(shown[None, :, :, None], new, Verdict.MISSING).astype(np.int8)
    return np.concatenate([np.broadcast_to(pat, (futures, *pat.shape)), new], -1), labels


def _collapsed_draws(
    atom: np.ndarray, n_atoms: int, features: np.ndarray, pool: np.ndarray,
    draws: int, alpha: float, rng: np.random.Generator,
) -> np.ndarray:  # fmt: skip
    """Exact-tier draws of expected features for one future's items, given their atoms."""
    counts = np.bincount(atom, minlength=n_atoms)
    used = np.flatnonzero(counts)
    g = rng.gamma(np.broadcast_to(counts[used].astype(float), (draws, len(used))))
    g_prior = rng.gamma(alpha, size=draws)
    prior_part = pool[rng.integers(len(pool), size=draws)]
    total = g.sum(-1) + g_prior
    return (g @ features[used] + g_prior[:, None] * prior_part) / total[:, None]


def run_futures(
    c: Cell,
    bt: BenchmarkTally,
    noise: RunNoise,
    added: tuple[int, ...],
    futures: int,
    draws: int,
    priors: PriorCache,
    rng: np.random.Generator,
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Posterior draws of expected features after ``K`` more runs, for each ``K`` of ``added``.

    The futures are nested: those with ``K`` runs added are the first ``K`` of
    ``max(added)`` added runs (common random numbers along the grid).

    Yields
    ------
    features : ndarray, shape (futures, draws, feature)
    evidence : ndarray, shape (futures, 3)
    """
    most = max(added)
    ext, labels = _extended(c, noise, most, futures, rng)
    n, runs_now = ext.shape[1], c.patterns.shape[-1]
    for k in added:
        pat = canonical_patterns(ext[..., : runs_now + k])
        pool = priors.get(bt, k).pool
        lab = np.broadcast_to(labels.astype(np.int8)[None, :, None], (futures, n, 1))
        rows = np.concatenate([lab, pat.reshape(futures, n, -1)], -1)
        uniq, inv = unique_patterns(rows.reshape(futures * n, -1))  # codes -1 to 3
        inv = inv.reshape(futures, n)
        u_pat = uniq[:, 1:].reshape(len(uniq), *pat.shape[-2:])
        u_lab = uniq[:, 0]
        feats = item_features(u_pat, _LABEL_CODES[u_lab], c.orders)
        u_ev = evidence(u_pat, u_lab, c.orders, priors.min_runs)
        x = np.stack(
            [
                _collapsed_draws(inv[f], len(uniq), feats, pool, draws, priors.alpha, rng)
                for f in range(futures)
            ]
        )
        ev = np.stack([u_ev[inv[f]].sum(0) for f in range(futures)])
        yield x * n, ev
