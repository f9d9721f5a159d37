"""Judge traits: the directions in which judges of a benchmark differ.

A judge differs from the cohort of a benchmark in a few traits that act on every
verdict it gives: how often it agrees with the label, how often it says tie or
gives an unparseable answer, whether it prefers the first-presented response,
whether it changes its verdict when the order is swapped, whether its runs agree.
Each trait moves probability between many verdict patterns at once. The
hierarchical tier (:mod:`judgestats.models.hierarchical`) tilts the benchmark's
mean pattern distribution by ``exp(trait * score)``, a pattern's *score* being its
standardised feature (:func:`trait_scores`), so that one trait value moves all
splits of the pattern tree coherently, as the trait does
(:meth:`~judgestats.models.layout.Layout.split_logits`). A split's *loading*
(:func:`split_loadings`) is how much the trait's item feature differs, on average
over the items of the benchmark, between the split's child and the children after
it: the derivative of the split's log-odds under the tilt at the cohort mean. It
decides which traits a cell can move (a trait without loadings is not a parameter).

Features are standardised per (benchmark, label) cell by their item sd, so a trait
is a log-odds shift per sd of its feature. The sd is floored at
:data:`SD_FLOOR` times the feature's range in the cell: a feature that varies on
a handful of items of a large benchmark (one invalid answer in 20,000) would
otherwise get loadings in the thousands, a trait prior of unit scale would then
move log-odds by thousands, and no starting point of the sampler is finite (seen
on the seed-002 cohort at 10 times its items, loadings up to 5,614). With the
floor, a standardised feature stays within about ``1 / SD_FLOOR`` sd.

A trait that is constant in a cell (one run gives no run agreement) or a linear
combination of traits kept before it has all its loadings and scores set to 0 in that
cell.
"""

from __future__ import annotations

import numpy as np

from judgestats.features import feature_index
from judgestats.models.tree import PatternTree

__all__ = ["SD_FLOOR", "TRAITS", "split_loadings", "trait_scores"]

#: Item features whose directions are judge traits: agreement with an A label (or
#: preference for A), ties, invalid answers, first-position picks, position flips,
#: run agreement.
TRAITS: tuple[str, ...] = ("n_a", "n_tie", "invalid", "first", "flip", "pr_hit")
_PSEUDO = 0.01  # items added to every pattern, so that unseen subtrees have a mean
_RANK_TOL = 1e-6
#: Floor of a feature's item sd, as a share of its range in the cell: the sd of a
#: 0/1 feature seen on 1 item in 400.
SD_FLOOR = 0.05


def _independent(loadings: np.ndarray) -> np.ndarray:
    """Columns that are not (nearly) linear combinations of earlier kept columns."""
    keep: list[int] = []
    for t in range(loadings.shape[1]):
        col = loadings[:, t]
        norm = np.linalg.norm(col)
        if norm < _RANK_TOL:
            continue
        if keep:
            basis = loadings[:, keep]
            coef, *_ = np.linalg.lstsq(basis, col, rcond=None)
            if np.linalg.norm(col - basis @ coef) < 1e-3 * norm:
                continue
        keep.append(t)
    return np.asarray(keep, dtype=np.int64)


def trait_scores(weights: np.ndarray, features: np.ndarray) -> np.ndarray:
    """Return every pattern's standardised trait features in one cell.

    Parameters
    ----------
    weights : ndarray, shape (K,)
        Items showing each pattern in this cell, over all judges.
    features : ndarray, shape (K, feature)
        Item features of each pattern under this cell's label.

    Returns
    -------
    ndarray, shape (K, len(TRAITS))
        Each trait's feature minus its item mean, over its item sd (floored at
        :data:`SD_FLOOR` times its range); 0 for a constant feature.
    """
    f = features[:, [feature_index(t) for t in TRAITS]].astype(float)
    w = np.asarray(weights, dtype=float) + _PSEUDO
    mean = w @ f / w.sum()
    sd = np.sqrt(w @ (f - mean) ** 2 / w.sum())
    sd = np.maximum(sd, SD_FLOOR * (f.max(0) - f.min(0)))
    return np.where(sd > _RANK_TOL, (f - mean) / np.where(sd > _RANK_TOL, sd, 1.0), 0.0)


def split_loadings(
    tree: PatternTree,
    weights: np.ndarray,
    features: np.ndarray,
    split_entry: np.ndarray,
    later: np.ndarray,
) -> np.ndarray:
    """Return the loading of every trait on every split of one (benchmark, label) tree.

    Parameters
    ----------
    tree : PatternTree
        The benchmark's pattern tree.
    weights : ndarray, shape (K,)
        Items showing each pattern in this cell, over all judges.
    features : ndarray, shape (K, feature)
        Item features of each pattern under this cell's label.
    split_entry : ndarray of int, shape (S,)
        Entry (of this tree) that each split isolates.
    later : ndarray, shape (S, E)
        1 where an entry comes after the split's child in its node.

    Returns
    -------
    ndarray, shape (S, len(TRAITS))
        Mean standardised feature under the split's child minus that under the
        later children.
    """
    z = trait_scores(weights, features)
    w = np.asarray(weights, dtype=float) + _PSEUDO
    mass = tree.entry_counts(w)  # (E,) items under each entry
    total = tree.entry_counts(z.T * w)  # (T, E) feature sums under each entry
    child = total[:, split_entry] / mass[split_entry]
    rest = (total @ later.T) / (later @ mass)
    loadings = (child - rest).T
    kept = _independent(loadings)
    out = np.zeros_like(loadings)
    out[:, kept] = loadings[:, kept]
    return out
