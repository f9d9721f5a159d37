"""A latent-class (Dawid-Skene) model of shared items, sampled by blocked Gibbs.

Every item ``i`` of a benchmark has a class ``z_i`` in ``1..K`` shared by every judge
who rated it and by its human rater; given the class, raters answer independently.
For judge ``j``, with ``p(c)`` the *parent* of class ``c``::

    pi            ~ Dirichlet(1, ..., 1)                  class shares
    phi[c]        ~ Dirichlet(1, ..., 1)                  human label given the class
    theta[j, p]   ~ DP(alpha / P, G0_j)                   judge's patterns per parent
    log s[j]      ~ Normal(log 10, 2)                     how far its classes stray
    theta[j, c]   ~ DP(s[j], theta[j, p(c)])              judge's patterns given the class
    z_i           ~ Categorical(pi)
    label_i       ~ Categorical(phi[z_i])
    pattern[j, i] ~ theta[j, z_i]

``K = D x L`` (``D`` classes per label present, ``L`` labels). A pattern is the
judge's whole (order, run) verdict array, so what a judge's runs and orders share on
an item is its own, and what judges share on it is the class. ``G0_j`` is the base
measure of :mod:`judgestats.models.prior` on the judge's own cells (every verdict
equally likely, runs exchangeable; :func:`base_weight`); on the judge's seen
patterns and a *rest*, the Dirichlet processes are finite Dirichlets, the rest's
items following ``P_new ~ DP(alpha, G0)`` as in both tiers, so no pattern loses its
mass. Two forms (``LatentClassConfig.human``):

``"rater"``
    The Dawid-Skene form: the human label is one more rater of the class, every
    class has one parent (``P = 1``), the classes are exchangeable.
``"anchored"``
    Class ``c`` holds items of one label (``phi[c]`` is that label's indicator), its
    parent is the label (``P = L``): the ``D`` classes of a label are levels of what
    its items share beyond the label (difficulty), each judge's patterns in them
    pooled toward its own per label with strength ``s[j]``.

The hierarchical Dirichlet process is what lets the sampler move items between
classes: with ``theta[j, c] ~ DP(alpha, G0_j)`` directly (a first version), a pattern
never seen in a class has a probability of about ``Gamma(alpha g)``, ``g = 4^-6`` per
pattern, and the blocked sampler hardly ever put an item with it into that class: on
a 6-item benchmark its posterior means were up to 16 Monte Carlo errors off the
enumerated posterior, while on the shared-difficulty cohort R-hat of every metric,
blind to relabelled classes, was at most 1.005.

Sampled by blocked Gibbs, all chains at once (:class:`_Sampler`): ``s`` by
random-walk Metropolis with the class-level patterns integrated out
(Dirichlet-multinomial), the parents from the Chinese-restaurant table counts
(:func:`crp_tables`; the direct-assignment sampler of Teh et al. 2006), the classes'
patterns, shares and label distributions from their Dirichlet conditionals, and the
class counts of every distinct joint row of (patterns, label) from their multinomial.
Each kept draw gives every judge's expected item features ``sum_c pi_c sum_(k, h)
theta[j, c, k] phi[c, h] f(k, h)``, from which :mod:`judgestats.models.derived`
computes every metric as for the other tiers (:class:`LatentClassModel`). Those
features and ``s`` are invariant to relabelling the classes, so label switching does
not touch them; R-hat of ``s`` is the check a relabelled chain cannot pass by symmetry.
Tested (``tests/benchmarks/test_latent_class.py``): the class steps against the
posterior enumerated over every class assignment of a 6-item benchmark (means and
the cross moments of two judges' features, within 5 Monte Carlo errors), the ``s``
step against its posterior on a grid computed with scipy's Dirichlet-multinomial,
the table counts against their closed-form mean and variance, ``G0`` against the
counted patterns.

Measured on :func:`judgestats.simulate.shared_difficulty_cohort` (8 judges, 650
items, 3 benchmarks; item difficulty shared by judges and human raters; two
near-deterministic, position-biased judges), 4 chains of 1,000 draws kept every
second sweep after 500:

* **The Dawid-Skene form estimates another quantity.** With the human as a rater
  (``python benchmarks/latent_class.py --human rater --classes-per-label D --draws
  500``, data seed 1000) the kappa of the judges against the human label sat 2.9,
  2.6 and 2.8 posterior sd below the truth on average (``D`` = 1, 2, 4; z-score sd
  1.45-1.72), exact match 2.65-2.87, while P(first) was not (z-score mean -0.01 to
  +0.01); R-hat at most 1.03 (1.06 for ``s`` at ``D = 4``). The classes are spent on
  what eight judges share and the judge-human association passes through them
  only; where the human's errors and the judges' share an item's difficulty, that
  association is lost. It measures agreement with a latent truth, not with the
  humans, which the protocol's kappa is; the first version above gave -5.
* **Anchored, it mixes and pairs.** ``--classes-per-label 3``: R-hat at most 1.004
  for every metric and 1.036 for ``s``, bulk ESS at least 1,468 and 115, 23.3 s per
  fit of 500 draws. Over 20 replicates (``python benchmarks/bench_coverage.py --tier
  exact latent-class --replicates 20 --classes-per-label 3``, data seeds 1000-1019,
  39.3 s per fit) its 95% intervals covered kappa 0.950, exact match 0.948,
  P(first) 0.950, flip rate 0.944, test-retest 0.923, kappa differences 0.955
  (Monte Carlo error 0.006-0.015; z-score sd 0.93-1.04); 90%: 0.890, 0.881,
  0.883, 0.890, 0.881 and 0.917; the randomised PIT of ranks and rank shifts 0.954
  and 0.938; no cell below 16 of 20; P(judge i above judge j) 0.011 from the
  exact tier's in the median pair and 0.021 at most. The exact tier on the same
  datasets: 0.950, 0.946, 0.944, 0.946, 0.931, 0.945.
* **Where judges share much, it falls short.** With an item difficulty of sd 3
  (``--difficulty-sd 3 --replicates 10``, data seeds 1000-1009) its 95% intervals
  covered flip rate 0.892 +- 0.014 and test-retest 0.908 +- 0.016 (the exact tier
  0.950 and 0.942), their z-scores biased for every judge (flip rate +0.2 to +0.9,
  test-retest -0.4 to -1.0, the mean z-score of each judge over replicates and
  benchmarks): a class's pseudo-items follow its parent, and a
  parent drawn from table counts is flatter than the judge's own pattern
  frequencies, so that rare patterns (a flip, runs that disagree) gain weight
  where the classes are small. Kappa differences covered 0.961 +- 0.007 at 95%
  and 0.925 at 90% (the exact tier 0.932 and 0.881), kappa 0.921 in both; the
  P(above) gap was 0.026 in the median pair and 0.052 at most. With one class per
  label (``--classes-per-label 1``: judges independent given the data but for the
  label shares) the same 10 datasets gave flip rate 0.938 and test-retest 0.929, and
  kappa differences 0.976 +- 0.007 (90%: 0.943; z-score sd 0.86 against 0.93 with
  3 classes and 1.05 in the exact tier): the classes bought part of the pairing and
  cost the run-level metrics.

What it says. The Dawid-Skene form, the human label as a rater of the item's class,
answers another question than the protocol asks; anchored to the human label, latent
classes are a likelihood of shared items that samples well (no funnel: every
conditional is conjugate or one-dimensional) and pairs judges (at a difficulty sd of
1 as the exact tier's bootstrap does, at 3 in part). It does not pool judges (each
keeps its own patterns per class), costs more than the hierarchical tier's fit (39 s
against its 22-28 s for 2 chains of 1,000 draws on 2 cores,
:mod:`judgestats.models.hierarchical`), and under-covers the run-level metrics where
items are strongly shared, so it does not replace the hierarchical tier's cut.

Run: ``.venv/bin/python benchmarks/latent_class.py [--human anchored|rater]
[--classes-per-label D] [--difficulty-sd SD] [--draws N] [--seed SEED]``
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln, logsumexp

from judgestats.features import FEATURES
from judgestats.models.base import FitData
from judgestats.models.conditionals import _LOG_FLOOR
from judgestats.models.exact import ExactModel
from judgestats.models.prior import (
    DEFAULT_CONCENTRATION,
    _log_gamma,
    base_patterns,
    dp_feature_draws,
)
from judgestats.schema import Verdict
from judgestats.tally import LABEL_CODES, BenchmarkTally

__all__ = ["LatentClassConfig", "LatentClassModel", "base_weight", "gibbs"]

#: Verdicts a judgment can take under ``G0``.
_N_VERDICTS = 4
#: Prior of every judge's log ``s``: Normal(mean, sd); e^(+-2 sd) spans 0.2-500 pseudo-items.
S_PRIOR = (math.log(10.0), 2.0)
#: Random-walk Metropolis steps on log ``s`` per sweep, and their sd.
S_STEPS, S_STEP = 3, 0.5


@dataclass(frozen=True)
class LatentClassConfig:
    """Settings of the latent-class model.

    Attributes
    ----------
    draws, chains : int
        Kept draws per chain, and chains (from random class assignments).
    burn : int
        Gibbs sweeps discarded at the start of every chain.
    thin : int
        Sweeps per kept draw.
    classes_per_label : int
        ``D``: classes per human label present in a benchmark.
    prior : float
        ``alpha``: ``G0``'s pseudo-items of every judge, split evenly over the parents
        (``DP(alpha / P, G0_j)`` per parent).
    human : {"anchored", "rater"}
        ``"rater"``: the human label is a rater of the class like the judges, with
        ``phi[c] ~ Dirichlet(1, ..., 1)``; ``"anchored"``: class ``c`` holds the items
        of one label (``phi[c]`` that label's indicator), ``D`` classes per label.
    """

    draws: int = 1000
    chains: int = 4
    burn: int = 500
    thin: int = 2
    classes_per_label: int = 3
    prior: float = DEFAULT_CONCENTRATION
    human: str = "anchored"

    def __post_init__(self) -> None:
        if self.human not in ("anchored", "rater"):
            raise ValueError(f"human={self.human!r}; use 'anchored' or 'rater'")


def base_weight(patterns: np.ndarray) -> np.ndarray:
    """``G0``'s probability of each canonical pattern given the cells it has.

    Every present cell takes one of 4 verdicts with equal probability, and the runs
    are exchangeable: a canonical pattern stands for every distinct ordering of its
    non-empty run columns.

    Parameters
    ----------
    patterns : ndarray, shape (pattern, order, run)

    Returns
    -------
    ndarray, shape (pattern,)
    """
    out = np.empty(len(patterns))
    for k, pat in enumerate(patterns):
        present = pat != Verdict.MISSING
        columns = [tuple(col) for col, keep in zip(pat.T, present.any(0), strict=True) if keep]
        orderings = math.factorial(len(columns))
        for col in set(columns):
            orderings //= math.factorial(columns.count(col))
        out[k] = orderings * float(_N_VERDICTS) ** -int(present.sum())
    return out


def _segment_log_normalise(log_g: np.ndarray, segment: np.ndarray, n_segments: int) -> np.ndarray:
    """Normalise ``exp(log_g)`` to sum to 1 within each segment of the last axis (log scale)."""
    total = np.stack([logsumexp(log_g[..., segment == s], axis=-1) for s in range(n_segments)], -1)
    return log_g - total[..., segment]


def _log_dirichlet_segments(
    shape: np.ndarray, segment: np.ndarray, n_segments: int, rng: np.random.Generator
) -> np.ndarray:
    """Log of independent Dirichlet draws, one per segment of the last axis.

    Gammas of tiny shapes are drawn as ``G(a) = G(a + 1) U^(1/a)`` on the log scale,
    finite where ``G(a)`` itself underflows.
    """
    with np.errstate(over="ignore"):
        lg = _log_gamma(shape, rng)
    # e^-1e4 is 0 as a float, and sums of such logs stay finite
    return _segment_log_normalise(np.maximum(lg, _LOG_FLOOR), segment, n_segments)


def crp_tables(count: np.ndarray, conc: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Tables of a Chinese restaurant with ``count`` customers and concentration ``conc``.

    Customer ``i + 1`` opens a table with probability ``conc / (conc + i)``: the
    auxiliary table counts of the direct-assignment sampler of a hierarchical
    Dirichlet process (Teh et al. 2006), elementwise.
    """
    count = np.asarray(count, dtype=np.int64)
    tables = (count > 0).astype(np.int64)
    live = np.flatnonzero(count > 1)
    n, a = count.ravel()[live], np.broadcast_to(conc, count.shape).ravel()[live]
    flat = tables.ravel()
    for i in range(1, int(n.max(initial=1))):
        keep = n > i
        live, n, a = live[keep], n[keep], a[keep]
        flat[live] += rng.random(len(live)) < a / (a + i)
    return flat.reshape(count.shape)


@dataclass
class _Rows:
    """Distinct joint rows of a benchmark: every judge's seen pattern and the label.

    Entries are every judge's seen patterns (``pattern``, ``judge``) followed by one
    *rest* entry per judge: the mass of the patterns it was not seen to give.
    """

    local: np.ndarray  # (row, judge): entry of the judge's pattern, -1 missing
    label: np.ndarray  # (row,): index into LABEL_CODES
    weight: np.ndarray  # (row,): items
    pattern: np.ndarray  # (seen,): the tally's pattern index
    judge: np.ndarray  # (entry,): the judge of each entry, seen then rest

    @classmethod
    def of(cls, bt: BenchmarkTally) -> _Rows:
        label = np.array([LABEL_CODES.index(int(c)) for c in bt.item_label], dtype=np.int64)
        local = np.full(bt.item_pattern.shape, -1, dtype=np.int64)
        pattern, judge = [], []
        for j, row in enumerate(bt.item_pattern):
            seen, inverse = np.unique(row[row >= 0], return_inverse=True)
            local[j, row >= 0] = len(pattern) + inverse
            pattern.extend(seen)
            judge.extend([j] * len(seen))
        joint, weight = np.unique(np.vstack([local, label]).T, axis=0, return_counts=True)
        return cls(
            joint[:, :-1],
            joint[:, -1],
            weight.astype(np.int64),
            np.asarray(pattern, dtype=np.int64),
            np.asarray(judge + list(range(len(bt.judges))), dtype=np.int64),
        )


def _log_s_likelihood(
    log_s: np.ndarray, counts: np.ndarray, log_parent: np.ndarray, by_judge: np.ndarray
) -> np.ndarray:
    """Log likelihood of every judge's ``s`` with the class-level patterns integrated out.

    ``sum_c log DM(counts[c] | s theta_parent(c))`` per (chain, judge): ``log_s``
    (chain, judge), ``counts`` and ``log_parent`` (chain, class, entry), ``by_judge``
    (entry, judge).
    """
    judge = np.argmax(by_judge, 1)
    a = np.exp(log_s[:, None, judge] + log_parent)  # (chain, class, entry)
    seen = counts > 0
    per_entry = np.where(seen, gammaln(a + counts) - gammaln(np.where(seen, a, 1.0)), 0.0)
    n_jc = counts @ by_judge  # (chain, class, judge)
    s = np.exp(log_s)[:, None, :]
    per_class = gammaln(s) - gammaln(s + n_jc)
    return per_entry.sum(1) @ by_judge + per_class.sum(1)


class _Sampler:
    """The blocked Gibbs sampler of one benchmark, all chains at once (module docs).

    The state: ``alloc`` (chain, row, class), the items of every joint row per
    class; ``log_s`` (chain, judge); ``log_parent`` (chain, parent, entry), every
    judge's pattern distribution per label (per benchmark if the human is a rater);
    ``log_theta`` (chain, class, entry); ``log_pi`` (chain, class); ``log_phi``
    (chain, class, label). Each step draws its part given the others.
    """

    def __init__(self, bt: BenchmarkTally, cfg: LatentClassConfig, rng: np.random.Generator):
        rows = self.rows = _Rows.of(bt)
        self.rng = rng
        n_chains, n_judges, d = cfg.chains, len(bt.judges), cfg.classes_per_label
        n_rows, n_entries = len(rows.weight), len(rows.judge)
        self.n_seen, self.n_judges = len(rows.pattern), n_judges
        self.labels = labels = np.flatnonzero(bt.label_counts() > 0)
        self.n_classes = n_classes = d * len(labels)
        self.anchored = cfg.human == "anchored"
        self.n_parents = len(labels) if self.anchored else 1
        class_label = np.arange(n_classes) // d
        self.parent = class_label if self.anchored else np.zeros(n_classes, dtype=np.int64)
        # G0's pseudo-items per (judge, parent): alpha / L per label, as in the exact tier
        self.alpha = cfg.prior / self.n_parents
        g = base_weight(bt.patterns[rows.pattern])
        # a judge seen in several designs can hold more than G0_j's mass in its seen
        # patterns (G0_j is per design); its rest then keeps a small share
        rest = [max(1.0 - g[rows.judge[: self.n_seen] == j].sum(), 1e-3) for j in range(n_judges)]
        self.g0 = self.alpha * np.concatenate([g, rest])  # (entry,)
        self.onto = np.zeros((n_rows, n_entries))
        r_idx, j_idx = np.nonzero(rows.local >= 0)
        self.onto[r_idx, rows.local[r_idx, j_idx]] = 1.0
        self.label_pos = np.searchsorted(labels, rows.label)
        self.label_onto = np.zeros((n_rows, len(labels)))
        self.label_onto[np.arange(n_rows), self.label_pos] = 1.0
        self.safe, self.present = np.where(rows.local >= 0, rows.local, 0), rows.local >= 0
        self.by_judge = np.zeros((n_entries, n_judges))
        self.by_judge[np.arange(n_entries), rows.judge] = 1.0
        self.feats = bt.features[rows.pattern][:, labels, :]  # (seen, label, feature)
        self.base = base_patterns(bt)
        # (atom, label * feature): the same pattern of a novel item under every label
        self.atoms = self.base.features[:, labels, :].reshape(len(self.base.prob), -1)
        with np.errstate(divide="ignore"):
            self.fixed_phi = np.log(class_label[:, None] == np.arange(len(labels))[None, :])
        # random starting classes, every chain its own (within the row's label if anchored)
        start = np.ones((n_rows, n_classes))
        if self.anchored:
            start *= class_label[None, :] == self.label_pos[:, None]
        self.alloc = rng.multinomial(
            np.broadcast_to(rows.weight, (n_chains, n_rows)), start / start.sum(1, keepdims=True)
        )
        self.log_s = np.full((n_chains, n_judges), S_PRIOR[0])
        self.log_parent = self._dirichlet(
            np.broadcast_to(self.g0 + 1.0, (n_chains, self.n_parents, n_entries))
        )
        self.step_parameters()

    def _dirichlet(self, shape: np.ndarray) -> np.ndarray:
        return _log_dirichlet_segments(shape, self.rows.judge, self.n_judges, self.rng)

    def counts(self) -> np.ndarray:
        """Items per (chain, class, entry)."""
        return np.einsum("crk,re->cke", self.alloc.astype(float), self.onto)

    def conc(self) -> np.ndarray:
        """``s theta_parent`` per (chain, class, entry)."""
        return np.exp(self.log_s[:, None, self.rows.judge] + self.log_parent[:, self.parent])

    def step_s(self, counts: np.ndarray) -> None:
        """Every judge's log ``s`` given the counts and parents, by random-walk Metropolis."""
        parent = self.log_parent[:, self.parent]
        current = _log_s_likelihood(self.log_s, counts, parent, self.by_judge)
        for _ in range(S_STEPS):
            prop = self.log_s + S_STEP * self.rng.standard_normal(self.log_s.shape)
            proposed = _log_s_likelihood(prop, counts, parent, self.by_judge)
            log_ratio = proposed - current
            log_ratio += ((self.log_s - S_PRIOR[0]) ** 2 - (prop - S_PRIOR[0]) ** 2) / (
                2 * S_PRIOR[1] ** 2
            )
            accept = np.log(self.rng.random(self.log_s.shape)) < log_ratio
            self.log_s = np.where(accept, prop, self.log_s)
            current = np.where(accept, proposed, current)

    def step_parents(self, counts: np.ndarray) -> None:
        """The parents given the tables (drawn given the counts, s and the parents)."""
        tables = crp_tables(counts.round().astype(np.int64), self.conc(), self.rng)
        by_parent = np.stack([tables[:, self.parent == p].sum(1) for p in range(self.n_parents)], 1)
        self.log_parent = self._dirichlet(self.g0 + by_parent)

    def step_parameters(self, counts: np.ndarray | None = None) -> None:
        """The classes' pattern distributions, shares and label distributions."""
        counts = self.counts() if counts is None else counts
        self.log_theta = self._dirichlet(self.conc() + counts)
        one = np.zeros(self.n_classes, dtype=np.int64)
        self.log_pi = _log_dirichlet_segments(1.0 + self.alloc.sum(1), one, 1, self.rng)
        if self.anchored:
            self.log_phi = np.broadcast_to(self.fixed_phi, (*self.log_pi.shape, len(self.labels)))
        else:
            shape = 1.0 + np.einsum("crk,rh->ckh", self.alloc.astype(float), self.label_onto)
            self.log_phi = _log_dirichlet_segments(shape, one[: len(self.labels)], 1, self.rng)

    def step_classes(self) -> None:
        """The items of every joint row per class, given the parameters (multinomial)."""
        log_w = self.log_pi[:, None, :] + np.moveaxis(self.log_phi[:, :, self.label_pos], 1, 2)
        per_judge = self.log_theta[:, :, self.safe]  # (chain, class, row, judge)
        log_w += np.moveaxis(np.where(self.present, per_judge, 0.0).sum(-1), 1, 2)
        prob = np.exp(log_w - logsumexp(log_w, axis=-1, keepdims=True))
        prob /= prob.sum(-1, keepdims=True)
        self.alloc = self.rng.multinomial(np.broadcast_to(self.rows.weight, prob.shape[:-1]), prob)

    def sweep(self) -> None:
        """One sweep: s, the parents, the parameters, the classes."""
        counts = self.counts()
        self.step_s(counts)
        self.step_parents(counts)
        self.step_parameters(counts)
        self.step_classes()

    def features(self) -> np.ndarray:
        """Every judge's expected item features at the current state, (chain, judge, feature)."""
        shape = (len(self.log_s), self.n_parents, self.n_judges)
        new = dp_feature_draws(self.atoms, self.base.prob, shape, self.alpha, self.rng)
        return _features(
            self.log_pi,
            self.log_phi,
            self.log_theta[..., : self.n_seen],
            self.log_theta[..., self.n_seen :],
            self.feats,
            self.by_judge[: self.n_seen],
            new[:, self.parent],
            len(self.labels),
        )


def gibbs(
    bt: BenchmarkTally, cfg: LatentClassConfig, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Sample one benchmark; return every judge's expected item features per kept draw.

    Parameters
    ----------
    bt : BenchmarkTally
    cfg : LatentClassConfig
    rng : numpy.random.Generator

    Returns
    -------
    features : ndarray, shape (chain, draw, judge, feature)
    log_s : ndarray, shape (chain, draw, judge)
        Every judge's log ``s`` (how far its classes stray from its label-level
        distribution), invariant to relabelling the classes: a check of the mixing
        that relabelled chains cannot pass by symmetry.
    """
    sampler = _Sampler(bt, cfg, rng)
    out = np.empty((cfg.chains, cfg.draws, len(bt.judges), len(FEATURES)))
    s_out = np.empty((cfg.chains, cfg.draws, len(bt.judges)))
    for sweep in range(cfg.burn + cfg.draws * cfg.thin):
        sampler.sweep()
        if sweep >= cfg.burn and (sweep - cfg.burn) % cfg.thin == cfg.thin - 1:
            kept = (sweep - cfg.burn) // cfg.thin
            out[:, kept] = sampler.features()
            s_out[:, kept] = sampler.log_s
    return out, s_out


def _features(
    log_pi: np.ndarray,
    log_phi: np.ndarray,
    log_theta: np.ndarray,
    log_rest: np.ndarray,
    feats: np.ndarray,
    by_judge: np.ndarray,
    new: np.ndarray,
    n_labels: int,
) -> np.ndarray:
    """Every judge's expected item features at one draw, shape (chain, judge, feature).

    ``new`` (chain, class, judge, label * feature): the features of the items of each
    class's rest, following its parent's ``P_new``.
    """
    weight = np.exp(log_pi[..., None] + log_phi)  # (chain, class, label): pi_c phi[c, h]
    joint = np.einsum("ckh,ckp->chp", weight, np.exp(log_theta))
    seen = np.einsum("chp,phf,pj->cjf", joint, feats, by_judge)
    new = new.reshape(*new.shape[:3], n_labels, -1)
    novel = np.einsum("ckj,ckh,ckjhf->cjf", np.exp(log_rest), weight, new)
    return seen + novel


class LatentClassModel(ExactModel):
    """The latent-class model, its metrics derived as the other tiers' (module docs).

    After a fit, :attr:`log_s` holds every benchmark's draws of its judges' log ``s``,
    (chain, draw, judge).
    """

    name = "latent-class"
    default_config = LatentClassConfig()

    def _benchmark_draws(
        self, data: FitData, rng: np.random.Generator, use: Callable[[int, int, np.ndarray], None]
    ) -> None:
        cfg = self.config
        self.log_s: dict[str, np.ndarray] = {}
        for b, (bt, stream) in enumerate(zip(data.tally, rng.spawn(len(data.tally)), strict=True)):
            draws, self.log_s[bt.benchmark] = gibbs(bt, cfg, stream)
            for ch in range(cfg.chains):
                use(b, ch * cfg.draws, draws[ch])


def main():
    """Mixing and accuracy of the latent-class model on one shared-difficulty replicate."""
    import argparse
    import time

    import arviz as az
    import xarray as xr

    from judgestats.simulate import shared_difficulty_cohort, simulate, truth

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--seed", type=int, default=1000, help="data seed")
    parser.add_argument(
        "--classes-per-label", type=int, default=LatentClassConfig.classes_per_label
    )
    parser.add_argument("--human", choices=("anchored", "rater"), default="anchored")
    parser.add_argument("--difficulty-sd", type=float, default=1.0)
    parser.add_argument("--draws", type=int, default=LatentClassConfig.draws)
    args = parser.parse_args()
    cohort = shared_difficulty_cohort(difficulty_sd=args.difficulty_sd)
    data = FitData.from_data(simulate(cohort, random_seed=args.seed).dataset)
    cfg = LatentClassConfig(
        draws=args.draws, classes_per_label=args.classes_per_label, human=args.human
    )
    start = time.perf_counter()
    model = LatentClassModel(cfg)
    tree = model.fit(data.tally, random_seed=1)
    print(f"fit: {time.perf_counter() - start:.1f} s ({cfg.chains} chains, {cfg.draws} draws)")
    post, true = tree["posterior"].to_dataset(), truth(cohort)
    for q in ("kappa", "exact_match", "p_first", "flip_rate", "test_retest"):
        rhat, ess = az.rhat(post[[q]])[q].values, az.ess(post[[q]])[q].values
        sd = post[q].std(("chain", "draw"))
        z = post[q].mean(("chain", "draw")) - true[q].sel(judge=sd.judge, benchmark=sd.benchmark)
        z = (z / sd).values
        print(
            f"  {q:<12s} R-hat max {np.nanmax(rhat):.3f}  bulk ESS min {np.nanmin(ess):5.0f}"
            f"  z-score mean {np.nanmean(z):+.2f} sd {np.nanstd(z):.2f}"
        )
    for name, log_s in model.log_s.items():
        ds = xr.Dataset({"log_s": (("chain", "draw", "judge"), log_s)})
        rhat, ess = az.rhat(ds)["log_s"].values, az.ess(ds)["log_s"].values
        s = np.exp(np.median(log_s, (0, 1)))
        print(
            f"  {name:<6s} log s R-hat max {rhat.max():.3f}  bulk ESS min {ess.min():4.0f}"
            f"  s median per judge {np.array2string(s, precision=1)}"
        )


if __name__ == "__main__":
    main()
