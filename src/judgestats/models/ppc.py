"""Posterior predictive checks of the hierarchical tier.

Per posterior draw, every judge's items of a (benchmark, label) cell are drawn again
from the judge's pattern distribution of that draw, ``Multinomial(n, theta)``, and
compared with the items observed:

* **pattern frequencies**, judge by judge: the Freeman-Tukey discrepancy
  ``sum_k (sqrt(y_k) - sqrt(n theta_k))^2`` of the observed counts ``y`` against the
  replicated ones (summed over the labels of a benchmark); ``p = P(T_rep >= T_obs)``;
* **the judge traits** (:data:`~judgestats.models.traits.TRAITS`: A verdicts, ties,
  invalid answers, first-position picks, flips, run agreement), judge by judge:
  the sum of the trait's item feature over the judge's items, observed against
  replicated, two-sided mid-p;
* **inter-judge agreement**, benchmark by benchmark: the share of (item, pair of
  judges) on which two judges gave the same verdict pattern, among the items both
  judges saw in the same design (the same (order, run) cells: a benchmark that shows
  each item in one random order shows it so to every judge), replicated by drawing
  every judge's pattern on every item from its distribution given that design and
  counting the matching pairs (two pairs that share a judge share its draw, as in
  the data); two-sided mid-p. The
  likelihood treats judges as independent given their pattern distributions, so an
  observed agreement above the replicated one is the signature of what the items
  share (difficulty, an ambiguous pair) and the model does not explain; the draws of
  :mod:`judgestats.models.conditionals` pair the judges through their items, but
  replicated data cannot (there is no item-level model to replicate from).

Items replicated into a tree's novel leaf count as a pattern never seen and carry
the base measure's mean features. A check is flagged when its p-value is below
:data:`MISFIT_LEVEL` divided by the number of checks of the fit (Bonferroni: a fit
of 65 judges on 11 benchmarks makes about 5,000 checks, and 1% of them would fall
below 0.01 by chance alone). With ``S`` replicates no p-value below ``1 / S`` can be
shown, so where the level is below that, a check with no replicate as extreme is
flagged only when a normal approximation of its replicates (the statistics are sums
over many items) puts its p-value below the level too (``ppc_* + TAIL``); its message
gives both, rather than calling its p-value 0. The figures of
the observed and replicated pattern shares, pooled over judges, are kept for the
report.
"""

from __future__ import annotations

import functools

import numpy as np
import xarray as xr

from judgestats.features import feature_index
from judgestats.models.base import FitData
from judgestats.models.layout import Layout
from judgestats.models.traits import TRAITS
from judgestats.schema import Verdict
from judgestats.tally import LABEL_CODES, BenchmarkTally

__all__ = [
    "CHECKS",
    "MISFIT_LEVEL",
    "REPLICATES",
    "TAIL",
    "TOP_PATTERNS",
    "PredictiveChecks",
    "flagged",
    "misfit_level",
    "misfits",
    "pattern_name",
]

#: The p-value variables of a ``predictive`` group and what each checks.
CHECKS = {
    "ppc_patterns": "pattern frequencies",
    "ppc_trait": "trait",
    "ppc_agreement": "inter-judge agreement",
}

#: Family-wise level of the checks of one fit (Bonferroni over its checks).
MISFIT_LEVEL = 0.01
#: Posterior draws the checks replicate at most, evenly thinned from every chain: a
#: p-value below ``1 / REPLICATES`` is decided by the normal approximation anyway
#: (module docs), and replicating every draw of a long run only costs time.
REPLICATES = 500
#: Suffix of a check's p-value by a normal approximation of its replicates.
TAIL = "_normal"
#: Below this, a normal-approximation p-value is given as a bound, not a value.
_SMALLEST_P = 1e-12
#: Patterns (pooled over judges) whose observed and replicated shares are kept.
TOP_PATTERNS = 8
#: Quantiles of the replicated statistics kept for the report.
_QUANTILES = (0.05, 0.5, 0.95)
_LETTER = {Verdict.A: "A", Verdict.B: "B", Verdict.TIE: "T", Verdict.INVALID: "?"}


def pattern_name(pattern: np.ndarray, orders: tuple[str, ...]) -> str:
    """Name a verdict pattern ``(order, run)``: ``"AB: A A · BA: B B"``.

    Missing cells are left out; ``T`` is a tie, ``?`` an invalid answer.
    """
    parts = []
    for o, runs in zip(orders, pattern, strict=True):
        letters = [_LETTER[Verdict(int(v))] for v in runs if v != Verdict.MISSING]
        if letters:
            parts.append(f"{o}: {' '.join(letters)}")
    return " · ".join(parts)


def _designs(bt: BenchmarkTally) -> np.ndarray:
    """Index of each pattern's design: which of its (order, run) cells hold a verdict."""
    filled = (bt.patterns != Verdict.MISSING).reshape(len(bt.patterns), -1)
    return np.unique(filled, axis=0, return_inverse=True)[1].ravel()


def _mid_p(rep: np.ndarray, obs: np.ndarray) -> np.ndarray:
    """Two-sided mid-p of ``obs`` among the replicates ``rep`` (axis 0 = draws)."""
    above = (rep > obs).mean(0) + 0.5 * (rep == obs).mean(0)
    return np.minimum(1.0, 2 * np.minimum(above, 1 - above))


def _normal_p(rep: np.ndarray, obs: np.ndarray | float, two_sided: bool) -> np.ndarray:
    """Return :func:`_mid_p` (two-sided) or ``P(rep >= obs)`` by a normal approximation.

    The replicates (axis 0) are taken as normal with their own mean and sd: the tail
    beyond what ``S`` replicates resolve. A zero spread gives 0 where ``obs`` differs
    from the replicates and 1 where not.
    """
    from scipy.special import ndtr

    mean, sd = rep.mean(0), rep.std(0)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (mean - obs) / sd
    z = np.where(sd > 0, z, np.where(mean == obs, 0.0, np.copysign(np.inf, mean - obs)))
    return np.minimum(1.0, 2 * ndtr(-np.abs(z))) if two_sided else ndtr(z)


#: (draw, judge, item) elements replicated at once: bounds the memory of a replicate.
_BLOCK_ELEMENTS = 2**21


def _replicated_matches(
    theta: np.ndarray, shown: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """Pairs of judges giving the same replicated pattern, summed over items, per draw.

    Every judge's pattern on every item it was shown is drawn from its own pattern
    distribution of the draw, as the model has it (judges independent given their
    distributions), and the matching pairs are counted item by item; pairs sharing a
    judge share its draw, as in the data.

    Parameters
    ----------
    theta : ndarray, shape (draw, judge, K)
        Pattern probabilities (rows sum to 1).
    shown : ndarray of bool, shape (judge, item)
        Whether the judge was shown the item in this design.
    rng : numpy.random.Generator

    Returns
    -------
    ndarray, shape (draw,)
    """
    step = max(1, _BLOCK_ELEMENTS // max(theta.shape[1] * shown.shape[1], 1))
    blocks = [_matches(theta[a : a + step], shown, rng) for a in range(0, len(theta), step)]
    return np.concatenate(blocks)


def _matches(theta: np.ndarray, shown: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """:func:`_replicated_matches` of one block of draws."""
    n_draw, n_judge, _ = theta.shape
    cdf = np.cumsum(theta, -1)
    cdf[..., -1] = 1.0
    u = rng.random((n_draw, n_judge, shown.shape[1]))
    return _compiled_count_matches()(cdf, u, np.ascontiguousarray(shown))


@functools.cache
def _compiled_count_matches():
    """:func:`_count_matches` compiled by numba (imported here: ``--fast`` never needs it).

    Compiled once per machine (numba's on-disk cache), about a second; then loaded.
    """
    import numba

    return numba.njit(cache=True, nogil=True)(_count_matches)


def _count_matches(cdf: np.ndarray, u: np.ndarray, shown: np.ndarray) -> np.ndarray:
    """Count matching pairs per draw among the patterns that uniforms ``u`` pick from ``cdf``.

    A judge's pattern on an item is the number of its cumulative shares at most
    ``u``, found from a guide table (Chen and Asau 1974; Devroye 1986, III.2.4): per
    (draw, judge), where the search of each of ``K`` equal slices of [0, 1) starts, so
    that a search takes about two comparisons however many patterns there are. The
    judges' patterns of an item are then tallied as they come, each adding the judges
    before it with the same pattern: no sort. Run compiled
    (:func:`_compiled_count_matches`), which releases the GIL, so that blocks of draws
    replicate in threads.

    Parameters
    ----------
    cdf : ndarray, shape (draw, judge, K)
        Cumulative pattern shares, the last 1.
    u : ndarray, shape (draw, judge, item)
        Uniforms on [0, 1).
    shown : ndarray of bool, shape (judge, item)

    Returns
    -------
    ndarray, shape (draw,)
    """
    n_draw, n_judge, n_k = cdf.shape
    n_item = u.shape[2]
    out = np.zeros(n_draw)
    tally = np.zeros(n_k, dtype=np.int64)  # judges of the item with each pattern so far
    k = np.empty((n_judge, n_item), dtype=np.int64)  # the draw's patterns
    guide = np.empty(n_k, dtype=np.int64)
    for d in range(n_draw):
        for j in range(n_judge):
            row = cdf[d, j]
            # guide[g]: the shares at most g / K, where the search of a u in
            # [g / K, (g + 1) / K) starts; cdf[-1] = 1 > u ends every search
            p = 0
            for g in range(n_k):
                while row[p] <= g / n_k:
                    p += 1
                guide[g] = p
            for i in range(n_item):  # along the uniforms' memory order
                x = u[d, j, i]
                at = guide[min(int(x * n_k), n_k - 1)]
                while at > 0 and row[at - 1] > x:  # x * K rounded up to a slice's edge
                    at -= 1
                while row[at] <= x:
                    at += 1
                k[j, i] = at
        total = 0
        for i in range(n_item):
            for j in range(n_judge):
                if shown[j, i]:
                    total += tally[k[j, i]]
                    tally[k[j, i]] += 1
            for j in range(n_judge):
                tally[k[j, i]] = 0
        out[d] = total
    return out


class PredictiveChecks:
    """Accumulate the replicated statistics chain by chain, cell by cell.

    Parameters
    ----------
    lay : Layout
    data : FitData
    n_chain, n_draw : int
        Draws of the posterior; every ``thin``-th draw of a chain is replicated, so
        that at most ``replicates`` are.
    replicates : int, default :data:`REPLICATES`
    """

    def __init__(
        self, lay: Layout, data: FitData, n_chain: int, n_draw: int, replicates: int = REPLICATES
    ) -> None:
        self.lay, self.data = lay, data
        self.thin = max(1, -(-n_chain * n_draw // max(replicates, 1)))
        n_kept = -(-n_draw // self.thin)
        n_j, n_b = len(data.judges), len(data.benchmarks)
        shape = (n_chain, n_kept, n_j, n_b)
        self._ft_obs, self._ft_rep = np.zeros(shape), np.zeros(shape)
        self._trait_rep = np.zeros((*shape, len(TRAITS)))
        self._trait_obs = np.zeros((n_j, n_b, len(TRAITS)))
        self._agree_rep = np.zeros((n_chain, n_kept, n_b))
        self._agree_obs = np.zeros(n_b)
        self._agree_n = np.zeros(n_b)
        self._top = [self._top_patterns(bt) for bt in data.tally]
        self._designs = [_designs(bt) for bt in data.tally]
        self._top_rep = np.zeros((n_chain, n_kept, n_b, TOP_PATTERNS))
        self._present = np.zeros((n_j, n_b), dtype=bool)
        self._traits = [feature_index(t) for t in TRAITS]
        for bi, bt in enumerate(data.tally):
            rows = data.rows(bi)
            self._present[rows, bi] = (bt.item_pattern >= 0).any(1)
            counts = bt.counts  # (judge, label, pattern)
            self._trait_obs[rows, bi] = np.einsum(
                "jlk,lkt->jt", counts, np.moveaxis(bt.features[..., self._traits], 1, 0)
            )

    def kept(self, draws: slice) -> tuple[np.ndarray, slice]:
        """Return the draws of a block that are replicated: positions in it, and their slice.

        Parameters
        ----------
        draws : slice
            A block of draws of a chain (``start`` and ``stop`` set).

        Returns
        -------
        positions : ndarray of int
            Positions within the block of the draws replicated.
        replicated : slice
            Their place among the replicated draws of the chain (``add``'s ``draws``).
        """
        t = self.thin
        first, stop = -(-draws.start // t), -(-draws.stop // t)
        return np.arange(first, stop) * t - draws.start, slice(first, stop)

    @staticmethod
    def _top_patterns(bt: BenchmarkTally) -> np.ndarray:
        pooled = bt.counts.sum((0, 1))
        return np.argsort(-pooled, kind="stable")[:TOP_PATTERNS]

    def add(
        self,
        chain: int,
        cell: int,
        theta: np.ndarray,
        rng: np.random.Generator,
        draws: slice = slice(None),
    ) -> None:
        """Replicate one cell of one chain (or of a block of its draws).

        Blocks of draws may be added from several threads at once: each writes only
        its own draws.

        Parameters
        ----------
        chain, cell : int
        theta : ndarray, shape (draw, judge of the benchmark, K + 1)
            Pattern probabilities of every judge of the cell's benchmark, novel leaf
            last, for the replicated draws ``draws`` of the chain (:meth:`kept`).
        rng : numpy.random.Generator
        draws : slice, default every replicated draw
        """
        block = self.lay.blocks[cell]
        bi = block.benchmark
        bt = self.data.tally[self.data.benchmarks[bi]]
        rows = self.data.rows(bi)
        observed = np.concatenate(
            [bt.counts[:, block.label, :], np.zeros((len(rows), 1))], -1
        )  # (judge, K + 1)
        n = observed.sum(-1)
        theta = theta / theta.sum(-1, keepdims=True)
        replicated = rng.multinomial(n.astype(np.int64)[None, :], theta).astype(float)
        expected = np.sqrt(n[None, :, None] * theta)
        ft_obs = ((np.sqrt(observed)[None] - expected) ** 2).sum(-1).T
        self._ft_obs[chain, draws, rows, bi] += ft_obs
        self._ft_rep[chain, draws, rows, bi] += ((np.sqrt(replicated) - expected) ** 2).sum(-1).T
        leaf = block.leaf_features[:, self._traits]  # (K + 1, trait)
        self._trait_rep[chain, draws, rows, bi] += np.moveaxis(replicated @ leaf, 1, 0)
        top = self._top[bi]
        self._top_rep[chain, draws, bi, : top.size] += replicated[..., top].sum(1)
        self._agreement(chain, bi, bt, block.label, theta, rng, draws)

    def _agreement(
        self,
        chain: int,
        bi: int,
        bt: BenchmarkTally,
        label: int,
        theta: np.ndarray,
        rng: np.random.Generator,
        draws: slice,
    ) -> None:
        in_cell = bt.item_label == LABEL_CODES[label]
        pat = bt.item_pattern[:, in_cell]  # (judge, item)
        design = self._designs[bi]  # design of each pattern: the (order, run) cells it fills
        shown = np.where(pat >= 0, design[np.maximum(pat, 0)], -1)
        i, j = np.triu_indices(len(bt.judges), 1)
        seen = theta[..., :-1]  # two novel patterns are never the same one
        for d in np.unique(shown[shown >= 0]):
            # items both judges saw in design d (one random order per item, shared by
            # the judges, is a design, not agreement): matches among its patterns only
            in_d = shown == d  # (judge, item)
            judges, items = np.flatnonzero(in_d.any(1)), np.flatnonzero(in_d.sum(0) >= 2)
            if not items.size:
                continue
            theta_d = seen[:, judges][..., design == d]
            theta_d = theta_d / np.maximum(theta_d.sum(-1, keepdims=True), 1e-300)
            replicated = _replicated_matches(theta_d, in_d[np.ix_(judges, items)], rng)
            self._agree_rep[chain, draws, bi] += replicated
            if chain == 0 and not draws.start:  # observed once
                both = (shown[i] == d) & (shown[j] == d)
                self._agree_obs[bi] += ((pat[i] == pat[j]) & both).sum()
                self._agree_n[bi] += both.sum()

    def dataset(self) -> xr.Dataset:
        """Return the checks' p-values and the figures the report draws.

        Returns
        -------
        xarray.Dataset
            ``ppc_patterns (judge, benchmark)``, ``ppc_trait (judge, benchmark,
            trait)``, ``ppc_agreement (benchmark)``: p-values (NaN where a judge has
            no items); ``trait_observed``/``trait_replicated`` (per item, with
            ``quantile``), ``agreement_observed``/``agreement_replicated``,
            ``pattern_share_observed``/``pattern_share_replicated`` and
            ``pattern_name (benchmark, top)``.
        """
        data = self.data
        n_b = len(data.benchmarks)
        flat = (-1, *self._ft_obs.shape[2:])
        excess = self._ft_rep.reshape(flat) - self._ft_obs.reshape(flat)
        ft = (excess >= 0).mean(0)
        ft_tail = _normal_p(excess, 0.0, two_sided=False)
        rep = self._trait_rep.reshape(-1, *self._trait_rep.shape[2:])
        trait = _mid_p(rep, self._trait_obs[None])
        trait_tail = _normal_p(rep, self._trait_obs, two_sided=True)
        items = np.zeros((len(data.judges), n_b))
        names = np.full((n_b, TOP_PATTERNS), "", dtype=object)
        share_obs = np.full((n_b, TOP_PATTERNS), np.nan)
        total = np.zeros(n_b)
        for bi, bt in enumerate(data.tally):
            items[data.rows(bi), bi] = bt.counts.sum((1, 2))
            top = self._top[bi]
            pooled = bt.counts.sum((0, 1))
            total[bi] = pooled.sum()
            share_obs[bi, : top.size] = pooled[top] / total[bi]
            names[bi, : top.size] = [pattern_name(bt.patterns[k], bt.orders) for k in top]
        absent = ~self._present
        ft[absent], ft_tail[absent] = np.nan, np.nan
        trait[absent], trait_tail[absent] = np.nan, np.nan
        with np.errstate(invalid="ignore", divide="ignore"):
            per_item = items[..., None]
            agree_rep = self._agree_rep.reshape(-1, n_b) / self._agree_n
            agree_obs = self._agree_obs / self._agree_n
            agreement = np.where(self._agree_n > 0, _mid_p(agree_rep, agree_obs[None]), np.nan)
            agreement_tail = np.where(
                self._agree_n > 0, _normal_p(agree_rep, agree_obs, two_sided=True), np.nan
            )
            share_rep = self._top_rep.reshape(-1, n_b, TOP_PATTERNS) / total[:, None]
            trait_rep_q = np.quantile(rep / per_item, _QUANTILES, axis=0)
            trait_obs = self._trait_obs / per_item
        trait_rep_q[:, absent] = np.nan
        trait_obs[absent] = np.nan
        q = np.asarray(_QUANTILES)
        return xr.Dataset(
            {
                "ppc_patterns": (("judge", "benchmark"), ft),
                "ppc_trait": (("judge", "benchmark", "trait"), trait),
                "ppc_agreement": (("benchmark",), agreement),
                **{
                    f"{name}{TAIL}": (dims, value)
                    for name, dims, value in (
                        ("ppc_patterns", ("judge", "benchmark"), ft_tail),
                        ("ppc_trait", ("judge", "benchmark", "trait"), trait_tail),
                        ("ppc_agreement", ("benchmark",), agreement_tail),
                    )
                },
                "trait_observed": (("judge", "benchmark", "trait"), trait_obs),
                "trait_replicated": (
                    ("quantile", "judge", "benchmark", "trait"),
                    trait_rep_q,
                ),
                "agreement_observed": (("benchmark",), agree_obs),
                "agreement_replicated": (
                    ("quantile", "benchmark"),
                    np.quantile(agree_rep, q, axis=0),
                ),
                "pattern_share_observed": (("benchmark", "top"), share_obs),
                "pattern_share_replicated": (
                    ("quantile", "benchmark", "top"),
                    np.quantile(share_rep, q, axis=0),
                ),
                "pattern_name": (("benchmark", "top"), names.astype(str)),
            },
            coords={
                "judge": list(data.judges),
                "benchmark": list(data.benchmarks),
                "trait": list(TRAITS),
                "quantile": q,
                "top": np.arange(TOP_PATTERNS),
            },
            attrs={"replicates": int(self._ft_rep.shape[0] * self._ft_rep.shape[1])},
        )


def _n_checks(predictive: xr.Dataset) -> int:
    return sum(int(np.isfinite(predictive[name].values).sum()) for name in CHECKS)


def misfit_level(predictive: xr.Dataset) -> float:
    """Return the level a check's p-value must fall below to be flagged.

    :data:`MISFIT_LEVEL` over the number of checks of the fit (Bonferroni).
    """
    return MISFIT_LEVEL / max(_n_checks(predictive), 1)


def _p_text(p: float, replicates: int | None, tail: float | None = None) -> str:
    """Return a p-value in words: one of 0 is only below what the replicates show."""
    if p > 0:
        return f"p = {p:.2g}"
    none = f"no replicate of {replicates} as extreme" if replicates else "no replicate as extreme"
    if tail is not None:  # far in a normal tail, digits would claim a precision not had
        shown = f"p = {tail:.2g}" if tail >= _SMALLEST_P else f"p < {_SMALLEST_P:.0e}"
        return f"{none}; {shown} by a normal approximation of the replicates"
    return f"{none}: p < {1 / replicates:.1g}" if replicates else none


def flagged(predictive: xr.Dataset, name: str) -> xr.DataArray:
    """Where check ``name`` (a key of :data:`CHECKS`) is below its level.

    Where the level is below ``1 / S`` (``S`` replicates), a p-value of 0 only says
    that none of them was as extreme; the normal approximation of the replicates
    (``name + TAIL``) then decides, so that the family-wise level holds where the
    replicates cannot show it.
    """
    level = misfit_level(predictive)
    p = predictive[name].values
    out = np.isfinite(p) & (p < level)
    replicates = predictive.attrs.get("replicates")
    tail = predictive.get(f"{name}{TAIL}")
    if replicates and tail is not None and level * replicates < 1:
        out &= tail.values < level
    return predictive[name].copy(data=out)


def misfits(predictive: xr.Dataset) -> list[str]:
    """Describe every check below its Bonferroni level, in words.

    Parameters
    ----------
    predictive : xarray.Dataset
        The ``predictive`` group of a fit (:meth:`PredictiveChecks.dataset`).

    Returns
    -------
    list of str
        One line per flagged check, worst first; empty when every check passes.
    """
    n = _n_checks(predictive)
    if not n:
        return []
    level = misfit_level(predictive)
    replicates = predictive.attrs.get("replicates")
    found: list[tuple[float, float, str]] = []
    for name, what in CHECKS.items():
        p = predictive[name]
        tail = predictive.get(f"{name}{TAIL}")
        for idx in zip(*np.nonzero(flagged(predictive, name).values), strict=True):
            where = {d: str(p[d].values[i]) for d, i in zip(p.dims, idx, strict=True)}
            what_here = f"{where.pop('trait')} ({what})" if "trait" in where else what
            place = ", ".join(f"{d} {v}" for d, v in where.items())
            value = float(p.values[idx])
            approx = float(tail.values[idx]) if tail is not None and value == 0 else None
            found.append(
                (
                    value,
                    1.0 if approx is None else approx,
                    f"posterior predictive check: {what_here} on {place} misfit "
                    f"({_p_text(value, replicates, approx)}; level "
                    f"{level:.2g}: {MISFIT_LEVEL} over {n} checks)",
                )
            )
    return [line for *_, line in sorted(found)]
