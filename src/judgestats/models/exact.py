"""The exact tier: posterior draws without MCMC, in seconds.

Two methods, same output:

``"bootstrap"`` (default)
    The Bayesian bootstrap over items (Rubin 1981) with a Dirichlet-process prior
    (:mod:`judgestats.models.prior`): each draw gives the items of a benchmark
    Dirichlet(1, ..., 1, alpha) weights, *shared by every judge and metric*, the last
    one going to a novel item drawn from the base measure, and each judge's expected
    item features are the weighted means of its items' features. An item keeps all
    its orders and runs, so replicate correlation is respected; judges rated on the
    same items keep their pairing, so ranks and rank shifts are not made noisier
    than they are. Every reachable verdict pattern keeps prior mass, so no interval
    collapses to a point because a pattern was not seen.
``"dirichlet"``
    Conjugate posteriors, judge by judge, under the same prior: the distribution of
    an item's verdict pattern given its human label is ``DP(alpha / L * G0 +
    counts)`` (``L`` labels present), and the label shares of the benchmark are
    Dirichlet(alpha / L + item counts). Independent across judges (no pairing);
    useful as a check of the bootstrap.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import xarray as xr
from scipy import sparse

from judgestats.features import FEATURES
from judgestats.models.base import FitData, JudgeModel
from judgestats.models.derived import BLOCK_VALUES, MetricDraws, metrics_dataset
from judgestats.models.prior import (
    DEFAULT_CONCENTRATION,
    BasePatterns,
    base_patterns,
    dirichlet_with_novel,
    dp_feature_draws,
)
from judgestats.parallel import thread_map
from judgestats.tally import LABEL_CODES, BenchmarkTally

__all__ = ["ExactConfig", "ExactModel"]


@dataclass(frozen=True)
class ExactConfig:
    """Settings of the exact tier.

    Attributes
    ----------
    method : {"bootstrap", "dirichlet"}
        See the module docs.
    draws : int
        Draws per chain.
    chains : int
        Independent chains (the draws are independent; chains only let R-hat and
        ESS be computed as for MCMC).
    prior : float, default :data:`~judgestats.models.prior.DEFAULT_CONCENTRATION`
        Concentration ``alpha`` of the Dirichlet-process prior, in pseudo-items
        (see :mod:`judgestats.models.prior`).
    """

    method: str = "bootstrap"
    draws: int = 1000
    chains: int = 2
    prior: float = DEFAULT_CONCENTRATION

    def __post_init__(self) -> None:
        if self.method not in ("bootstrap", "dirichlet"):
            raise ValueError(f"method={self.method!r}; use 'bootstrap' or 'dirichlet'")
        if self.draws < 1 or self.chains < 1:
            raise ValueError(f"draws={self.draws}, chains={self.chains}; both must be >= 1")
        if self.prior <= 0:
            raise ValueError(f"prior={self.prior}; must be positive")


def _values_per_draw(bt: BenchmarkTally) -> int:
    """Values of a sampler's largest array per draw: the features or the item weights.

    A block of draws holds about :data:`~judgestats.models.derived.BLOCK_VALUES` of
    them, so that the allocator reuses its memory for the next block (arrays freed
    above glibc's mmap threshold go back to the kernel, and each block's are faulted
    in again: see :func:`judgestats.models.conditionals.draws_per_block`).
    """
    return max(len(bt.judges) * len(FEATURES), len(bt.items) + 1, 1)


#: A sampler of one benchmark: ``draw(n, rng)`` gives ``n`` draws of its judges'
#: expected item features, ``(draw, judge, feature)``.
Sampler = Callable[[int, np.random.Generator], np.ndarray]


def _novel_atoms(base: BasePatterns) -> tuple[np.ndarray, np.ndarray]:
    """``G0``'s (pattern, label) atoms of a novel item, as features and probabilities."""
    n_labels = len(base.labels)
    atoms = base.features[:, base.labels, :].reshape(-1, len(FEATURES))
    return atoms, np.repeat(base.prob, n_labels) / n_labels


def _bootstrap(bt: BenchmarkTally, alpha: float) -> Sampler:
    """Return the benchmark's sampler by the Bayesian bootstrap (see the module docs).

    A judge's expected item features are ``sum_i w_i f(pattern_i, label_i)``: the
    items' weights are summed per (judge, pattern, label) cell (a sparse product,
    one term per judged item) and the cells' sums weight their features. The dense
    form it replaced, every draw's weights times every (item, judge, feature), cost
    draws x items x judges x features (211 G multiply-adds on the 10x seed-002
    cohort). With the sparse DP draws of :data:`~judgestats.models.prior._DENSE_ATOMS`,
    the whole fit took 1.6-1.7 s against 10.2 s at 10x, 0.6 against 2.6-3.2 s at 1x
    and 1.1-1.2 against 1.1 s on LLMBar (``benchmarks/bench_exact.py``, two
    alternating rounds), the same draws to 1e-14.
    """
    lab = np.array([LABEL_CODES.index(int(c)) for c in bt.item_label], dtype=np.int64)
    jj, ii = np.nonzero(bt.item_pattern >= 0)
    n_judges, n_items = bt.item_pattern.shape
    n_patterns, n_labels = len(bt.patterns), len(LABEL_CODES)
    # the (judge, pattern, label) cells judged, judge-major
    cells, cell_of = np.unique(
        (jj * n_patterns + bt.item_pattern[jj, ii]) * n_labels + lab[ii], return_inverse=True
    )
    # by item (CSC): 2-3 times faster than by cell in the product below, same sums
    items_of = sparse.csc_array(
        (np.ones(len(ii)), (cell_of.ravel(), ii)), shape=(len(cells), n_items)
    )
    cell_features = bt.features[(cells // n_labels) % n_patterns, cells % n_labels]
    bounds = np.searchsorted(cells // (n_patterns * n_labels), np.arange(n_judges + 1))
    atoms, prob = _novel_atoms(base_patterns(bt))

    def draw(n: int, rng: np.random.Generator) -> np.ndarray:
        weights, novel = dirichlet_with_novel(n_items, n, alpha, rng)  # shared by judges
        on_cell = items_of @ np.ascontiguousarray(weights.T)  # (cell, draw)
        # feature-major, (feature, draw, judge), as the metric formulas read them
        out = np.empty((len(FEATURES), n, n_judges))
        for j, (lo, hi) in enumerate(itertools.pairwise(bounds)):
            out[..., j] = cell_features[lo:hi].T @ on_cell[lo:hi]
        new = dp_feature_draws(atoms, prob, (n, n_judges), alpha, rng)
        new *= novel[:, None, None]
        out += np.moveaxis(new, -1, 0)  # the novel item's share
        return np.moveaxis(out, 0, -1)

    return draw


def _dirichlet(bt: BenchmarkTally, alpha: float) -> Sampler:
    """Return the benchmark's sampler by conjugate Dirichlet posteriors (module docs)."""
    base = base_patterns(bt)
    labels = bt.label_counts().astype(float)
    present = base.labels
    a = alpha / len(present)  # G0's label is uniform over the labels present

    def draw(n: int, rng: np.random.Generator) -> np.ndarray:
        share = np.zeros((n, len(labels)))
        share[:, present] = rng.dirichlet(labels[present] + a, size=n)
        out = np.zeros((n, len(bt.judges), len(FEATURES)))
        for li in present:
            shape = (n, len(bt.judges))
            new = dp_feature_draws(base.features[:, li, :], base.prob, shape, a, rng)
            for j in range(len(bt.judges)):
                # DP(a G0 + counts): Dirichlet(counts, a) over the seen patterns and P_new
                g = rng.gamma(np.r_[bt.counts[j, li], a], size=(n, bt.counts.shape[-1] + 1))
                theta = g / g.sum(1, keepdims=True)
                expected = theta[:, :-1] @ bt.features[:, li, :] + theta[:, -1:] * new[:, j]
                out[:, j] += share[:, li, None] * expected
        return out

    return draw


class ExactModel(JudgeModel):
    """Exact-tier posterior of every metric (no MCMC).

    Parameters
    ----------
    config : ExactConfig, optional
    derived : DerivedConfig, optional

    Examples
    --------
    >>> from judgestats.models import ExactModel
    >>> model = ExactModel()
    >>> tree = model.fit(ds, random_seed=1)  # doctest: +SKIP
    >>> model.summary(var_names=["kappa"])  # doctest: +SKIP
    """

    name = "exact"
    default_config = ExactConfig()

    def _benchmark_draws(
        self, data: FitData, rng: np.random.Generator, use: Callable[[int, int, np.ndarray], None]
    ) -> None:
        """Draw each benchmark's expected item features; ``use(b, start, draws)`` each block.

        ``draws`` is ``(draw, judge of the benchmark's tally, feature)`` for the draws
        ``start, start + 1, ...`` (chains one after the other on the draw axis). One
        stream per benchmark (spawned, so the draws do not depend on which thread runs
        first), benchmarks in threads: numpy releases the GIL in the bulk of it.
        """
        cfg = self.config
        n = cfg.draws * cfg.chains
        method = _bootstrap if cfg.method == "bootstrap" else _dirichlet
        tallies = list(data.tally)

        def draw(b: int, stream: np.random.Generator) -> None:
            sampler = method(tallies[b], cfg.prior)
            step = max(1, BLOCK_VALUES // _values_per_draw(tallies[b]))
            for start in range(0, n, step):
                use(b, start, sampler(min(step, n - start), stream))

        thread_map(draw, range(len(tallies)), rng.spawn(len(tallies)))

    def _draw_features(
        self, data: FitData, rng: np.random.Generator, random_seed: int | None
    ) -> tuple[xr.DataArray, dict[str, xr.Dataset]]:
        cfg = self.config
        n = cfg.draws * cfg.chains
        # (feature, benchmark, draw, judge) in memory: the metric formulas read one
        # feature at a time, and each benchmark's draws are written as one block (not
        # scattered with a stride of the number of benchmarks)
        out = np.full((len(FEATURES), len(data.benchmarks), n, len(data.judges)), np.nan)

        def write(b: int, start: int, draws: np.ndarray) -> None:  # its own block
            stop = start + len(draws)
            out[:, b, start:stop][:, :, data.rows(b)] = np.moveaxis(draws, -1, 0)

        self._benchmark_draws(data, rng, write)
        # a view with the posterior's dims (splitting the draw axis copies nothing)
        dims = (len(data.judges), len(data.benchmarks), len(FEATURES))
        arr = out.transpose(2, 3, 1, 0).reshape(cfg.chains, cfg.draws, *dims)
        features = xr.DataArray(
            arr,
            dims=("chain", "draw", "judge", "benchmark", "feature"),
            coords=data.coords(cfg.chains, cfg.draws, features=True),
        )
        return features, {}

    def _draw_metrics(
        self, data: FitData, rng: np.random.Generator, random_seed: int | None
    ) -> tuple[xr.Dataset, dict[str, xr.Dataset]]:
        # Each block of a benchmark's draws is turned into metrics as soon as it is
        # drawn: only the blocks in flight hold features (the features of LLMBar's 65
        # judges x 8 sets are 366 MB; its metrics a third of that). The same draws and
        # formulas as the features path: the same numbers, bit for bit.
        cfg = self.config
        sink = MetricDraws((cfg.draws * cfg.chains, len(data.judges), len(data.benchmarks)))
        n_items = {b: data.tally[name].n_items for b, name in enumerate(data.benchmarks)}

        def derive(b: int, start: int, draws: np.ndarray) -> None:
            sink.add((slice(start, start + len(draws)), data.rows(b), b), draws, n_items[b])

        self._benchmark_draws(data, rng, derive)
        split = (cfg.chains, cfg.draws, len(data.judges), len(data.benchmarks))
        metrics = {k: v.reshape(split) for k, v in sink.values.items()}  # chains apart
        return metrics_dataset(metrics, data.coords(cfg.chains, cfg.draws), data.support()), {}
