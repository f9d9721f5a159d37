"""Agreement with the human raters themselves: the human ceiling and each judge's votes.

Judges are scored against the human-majority label; where items have several
raters, what a judge can be expected to reach is bounded by how well the humans
agree among themselves (:mod:`judgestats.metrics.human`: each rater against the
others' majority, every pair of raters), and a judge is compared with them on the
same footing by its agreement with *each* vote (``vote_agreement`` of
:mod:`judgestats.metrics.covariates`: every (judgment, vote) pair of an item). This
module gives both a posterior, per benchmark with at least one item rated twice:

* the exact tier's Bayesian bootstrap over the benchmark's items with a
  Dirichlet-process prior (:func:`~judgestats.models.prior.dirichlet_with_novel`):
  per draw, weights ``Dirichlet(1, ..., 1, alpha)`` over the items and a novel
  one, *shared by the raters and every judge*, so that a judge's gap to the human
  ceiling is paired item by item;
* the novel item's features are their expectation under the base measure of
  :mod:`judgestats.models.prior`: every vote A, B or tie with probability 1/3 and
  every judgment A, B, tie or invalid with 1/4, its number of raters and of
  judgments those of a benchmark item, so that no interval collapses to a point
  because every rater agreed;
* a quantity whose denominator the data leave empty stays undefined (NaN): the
  prior alone never measures it.

Reported, not gated: the MVVP's steps score judges against the majority label.

Calibration (``tests/models/test_raters.py``): on 300 simulated benchmarks of 300
items, 3 raters and one judge, the 95% intervals held the closed-form truth 0.957
(raters' pairwise agreement), 0.943 (vote agreement) and 0.960 (the gap) of the
time. With 80 items the gap's covered 0.907 (z-score sd 1.14), and the plain
Bayesian bootstrap of the items' own differences 0.926 over 1,000 replicates (z-score
sd 1.10): a small-sample property of bootstrap intervals of a mean of few-valued item
scores, not of the prior (the plain bootstrap, without it, does the same).
"""

from __future__ import annotations

from functools import lru_cache
from itertools import product

import numpy as np
import xarray as xr

from judgestats.metrics import covariates
from judgestats.metrics import human as human_metrics
from judgestats.models.derived import BLOCK_VALUES
from judgestats.models.prior import DEFAULT_CONCENTRATION, dirichlet_with_novel
from judgestats.schema import Verdict

__all__ = ["CEILING", "GAPS", "VOTES", "rater_agreement"]

#: The human ceiling, per benchmark (:mod:`judgestats.metrics.human`).
CEILING: tuple[str, ...] = tuple(human_metrics.METRICS)
#: Each judge's agreement with each vote (:mod:`judgestats.metrics.covariates`).
VOTES: tuple[str, ...] = ("vote_agreement_s1", "vote_agreement_s2")
#: A judge's gap to the ceiling: its vote agreement minus the raters' pairwise agreement.
GAPS: dict[str, tuple[str, str]] = {
    "ceiling_gap_s1": ("vote_agreement_s1", "human_pairwise_s1"),
    "ceiling_gap_s2": ("vote_agreement_s2", "human_pairwise_s2"),
}
_VOTE_CODES = (Verdict.A, Verdict.B, Verdict.TIE)
#: Raters of a novel item up to which ``G0``'s votes are enumerated (3^8 vectors);
#: beyond, a fixed Monte Carlo sample of this many.
_MAX_ENUMERATED_RATERS = 8
_MC_VOTES = 1 << 14
_PV = [covariates.FEATURES.index(f) for f in ("pv1_hit", "pv1_den", "pv2_hit", "pv2_den")]


@lru_cache(maxsize=32)
def _g0_human(n_raters: int) -> np.ndarray:
    """Return the expected human features of ``n_raters`` votes uniform over A/B/tie."""
    if n_raters <= _MAX_ENUMERATED_RATERS:
        votes = np.array(list(product(_VOTE_CODES, repeat=n_raters)), dtype=np.int8)
    else:  # a fixed sample: deterministic
        votes = np.random.default_rng(0).choice(
            np.array(_VOTE_CODES, dtype=np.int8), (_MC_VOTES, n_raters)
        )
    return human_metrics.features(votes).mean(0)


def _judge_features(verdict: np.ndarray, votes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return every judge's vote-agreement features per item, and its judgments per item.

    ``verdict`` (judge, item, order, run); returns ``(judge, item, 4)`` (``pv1_hit,
    pv1_den, pv2_hit, pv2_den``) and ``(judge, item)``.
    """
    counts = np.stack([(verdict == c).sum((-2, -1)) for c in _VOTE_CODES], -1).astype(float)
    invalid = (verdict == Verdict.INVALID).sum((-2, -1)).astype(float)
    n_judges, n_items = counts.shape[:2]
    feats = covariates.features(
        counts, np.full(n_items, np.nan), np.zeros((n_judges, n_items), dtype=int), votes, invalid
    )
    return feats[..., _PV], (verdict != Verdict.MISSING).sum((-2, -1))


def _g0_votes(judgments: np.ndarray, raters: float) -> np.ndarray:
    """Return the expected vote-agreement features of a novel item, shape (judge, 4).

    The features are bilinear in the judge's verdict counts and the votes, which are
    independent under ``G0``: their expectation is the features of the expected
    counts (``judgments / 4`` of each verdict, ``raters / 3`` of each vote).
    """
    n = judgments[:, None]
    feats = covariates.features(
        np.repeat(n / 4, 3, 1)[:, None, :],
        np.full(1, np.nan),
        np.zeros((len(n), 1), dtype=int),
        np.full((1, 3), raters / 3),
        n / 4,
    )
    return feats[:, 0, _PV]


def _covariate_sums(sums: np.ndarray) -> np.ndarray:
    """Return summed ``pv`` features (..., 4) as covariate features (the others 0)."""
    x = np.zeros((*sums.shape[:-1], len(covariates.FEATURES)))
    x[..., _PV] = sums
    return x


def _vote_metrics(sums: np.ndarray) -> dict[str, np.ndarray]:
    """Return vote agreement from summed ``pv`` features (..., 4)."""
    out = covariates.derive(_covariate_sums(sums))
    return {name: out[name] for name in VOTES}


def _vote_denominators(sums: np.ndarray) -> dict[str, np.ndarray]:
    """Return the ``n`` of vote agreement from summed ``pv`` features (..., 4)."""
    out = covariates.denominators(_covariate_sums(sums))
    return {name: out[name] for name in VOTES}


def _weighted_sums(
    ceiling: np.ndarray,
    pv: np.ndarray,
    g0: np.ndarray,
    g0_votes: np.ndarray,
    draws: int,
    alpha: float,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """Return the Bayesian-bootstrap sums of the raters' and the judges' features.

    ``ceiling`` (item, 8), ``pv`` (judge, item, 4); every draw's item weights are
    shared by both. Drawn in blocks of about
    :data:`~judgestats.models.derived.BLOCK_VALUES` weights, so that the weights of
    a large benchmark are never all held.
    """
    n_items = ceiling.shape[0]
    human_sums = np.empty((draws, ceiling.shape[1]))
    judge_sums = np.empty((draws, pv.shape[0], pv.shape[2]))
    step = max(1, BLOCK_VALUES // max(n_items, 1))
    for lo in range(0, draws, step):
        hi = min(draws, lo + step)
        weights, novel = dirichlet_with_novel(n_items, hi - lo, alpha, rng)
        human_sums[lo:hi] = weights @ ceiling + novel[:, None] * g0
        judge_sums[lo:hi] = np.tensordot(weights, pv, axes=([1], [1]))
        judge_sums[lo:hi] += novel[:, None, None] * g0_votes
    return human_sums, judge_sums


def rater_agreement(
    ds: xr.Dataset,
    *,
    draws: int = 4000,
    alpha: float = DEFAULT_CONCENTRATION,
    random_seed: int | None = None,
) -> xr.Dataset | None:
    """Return the posterior of the human ceiling and of each judge's vote agreement.

    Parameters
    ----------
    ds : xarray.Dataset
        A Judgments dataset.
    draws : int, default 4000
        Independent draws (one chain).
    alpha : float, default :data:`~judgestats.models.prior.DEFAULT_CONCENTRATION`
        Concentration of the Dirichlet-process prior, in pseudo-items.
    random_seed : int, optional

    Returns
    -------
    xarray.Dataset or None
        :data:`CEILING` over ``(chain, draw, benchmark)``, :data:`VOTES` and the gaps
        of :data:`GAPS` over ``(chain, draw, judge, benchmark)``, ``n_rated_twice``
        and ``raters_per_item`` per benchmark; None when no item has two ratings.
    """
    human = ds["human"].transpose("item", ...).values.reshape(ds.sizes["item"], -1)
    votes = human_metrics.vote_counts(human)
    bench = np.asarray(ds["benchmark"].values).astype(str)
    names = [b for b in dict.fromkeys(bench.tolist()) if (votes[bench == b].sum(1) >= 2).any()]
    if not names:
        return None
    verdict = ds["verdict"].transpose("judge", "item", ...).values
    ceiling = human_metrics.features(human)  # (item, 8)
    pv, judgments = _judge_features(verdict, votes)
    n_judges = verdict.shape[0]
    out = {name: np.full((draws, len(names)), np.nan) for name in CEILING}
    out |= {name: np.full((draws, n_judges, len(names)), np.nan) for name in (*VOTES, *GAPS)}
    rated_twice, per_item = [], []
    streams = np.random.default_rng(random_seed).spawn(len(names))
    for b, (name, rng) in enumerate(zip(names, streams, strict=True)):
        idx = np.flatnonzero(bench == name)
        n_votes = votes[idx].sum(1)
        voted = n_votes > 0
        rated_twice.append(int((n_votes >= 2).sum()))
        per_item.append(float(n_votes[voted].mean()))
        counts, times = np.unique(n_votes[voted], return_counts=True)
        g0 = times @ np.stack([_g0_human(int(r)) for r in counts]) / times.sum()
        judged = judgments[:, idx] > 0
        mean_judgments = np.where(
            judged.any(1), judgments[:, idx].sum(1) / np.maximum(judged.sum(1), 1), 0.0
        )
        g0_votes = _g0_votes(mean_judgments, float(n_votes[voted].mean()))
        human_sums, judge_sums = _weighted_sums(
            ceiling[idx], pv[:, idx], g0, g0_votes, draws, alpha, rng
        )
        seen = human_metrics.denominators(ceiling[idx].sum(0))  # the data's own
        for metric, value in human_metrics.derive(human_sums).items():
            out[metric][:, b] = value if seen[metric] > 0 else np.nan
        seen_pv = _vote_denominators(pv[:, idx].sum(1))  # the data's own, per judge
        for metric, value in _vote_metrics(judge_sums).items():
            out[metric][:, :, b] = np.where(seen_pv[metric] > 0, value, np.nan)
        for gap, (vote, ceil) in GAPS.items():
            out[gap][:, :, b] = out[vote][:, :, b] - out[ceil][:, b, None]
    dims_b = ("chain", "draw", "benchmark")
    dims_jb = ("chain", "draw", "judge", "benchmark")
    data: dict[str, tuple[tuple[str, ...], np.ndarray]] = {
        k: (dims_b if k in CEILING else dims_jb, v[None]) for k, v in out.items()
    }
    data["n_rated_twice"] = (("benchmark",), np.array(rated_twice))
    data["raters_per_item"] = (("benchmark",), np.array(per_item))
    return xr.Dataset(
        data,
        coords={
            "chain": [0],
            "draw": np.arange(draws),
            "judge": ds["judge"].values,
            "benchmark": names,
        },
    )
