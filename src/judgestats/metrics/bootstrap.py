"""The item-clustered bootstrap, vectorised: resampling weights and percentile intervals.

An item is the unit of resampling: it keeps all its orders and runs, because
replicates and orders of one item are not independent judgments. A resample is a
vector of item weights (how often each item was drawn); every metric is a function
of weighted sums of item features, so all resamples of all judges and metrics come
from one matrix product ``weights @ features``. The same weights serve every judge,
so differences between judges and their ranks are paired.
"""

from __future__ import annotations

import numpy as np

__all__ = ["percentile_interval", "replicate_sd", "resample_weights", "weighted_sums"]


def resample_weights(
    n_items: int, n_resamples: int, rng: np.random.Generator, *, chunk: int = 256
) -> np.ndarray:
    """Draw item weights of the nonparametric bootstrap.

    Parameters
    ----------
    n_items : int
        Items to resample (with replacement, ``n_items`` draws per resample).
    n_resamples : int
        Number of resamples.
    rng : numpy.random.Generator
        Source of randomness.
    chunk : int, default 256
        Resamples drawn per step (bounds the memory of the index array).

    Returns
    -------
    ndarray of float64, shape (n_resamples, n_items)
        How many times each item was drawn; each row sums to ``n_items``.

    Examples
    --------
    >>> import numpy as np
    >>> w = resample_weights(5, 3, np.random.default_rng(0))
    >>> w.shape, w.sum(1).tolist()
    ((3, 5), [5.0, 5.0, 5.0])
    """
    out = np.empty((n_resamples, n_items))
    for start in range(0, n_resamples, chunk):
        stop = min(start + chunk, n_resamples)
        idx = rng.integers(0, n_items, size=(stop - start, n_items))
        idx += np.arange(stop - start)[:, None] * n_items
        out[start:stop] = np.bincount(idx.ravel(), minlength=(stop - start) * n_items).reshape(
            stop - start, n_items
        )
    return out


def weighted_sums(weights: np.ndarray, features: np.ndarray) -> np.ndarray:
    """Sum item features under each resample's weights.

    Parameters
    ----------
    weights : ndarray, shape (resample, item)
        From :func:`resample_weights`.
    features : ndarray, shape (item, ...)
        Item features (any trailing shape, such as judge × feature).

    Returns
    -------
    ndarray, shape (resample, ...)
    """
    flat = features.reshape(features.shape[0], -1)
    return (weights @ flat).reshape(weights.shape[0], *features.shape[1:])


def percentile_interval(
    replicates: np.ndarray, prob: float = 0.95, axis: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Equal-tailed percentile interval of bootstrap replicates.

    Replicates in which a metric is undefined (NaN) are left out; where every
    replicate is NaN the bounds are NaN. Quantiles interpolate linearly between
    order statistics, as :func:`numpy.quantile` does by default.

    Parameters
    ----------
    replicates : ndarray
        Metric values, one per resample along ``axis``.
    prob : float, default 0.95
        Probability mass inside the interval, in (0, 1).
    axis : int, default 0
        The resample axis.

    Returns
    -------
    lo, hi : ndarray
        The ``(1 - prob) / 2`` and ``(1 + prob) / 2`` quantiles.

    Examples
    --------
    >>> import numpy as np
    >>> lo, hi = percentile_interval(np.arange(101.0), prob=0.9)
    >>> round(float(lo), 9), round(float(hi), 9)
    (5.0, 95.0)
    """
    if not 0 < prob < 1:
        raise ValueError(f"prob={prob!r}: the interval probability must lie in (0, 1)")
    r = np.moveaxis(np.asarray(replicates, dtype=float), axis, 0)
    r = np.sort(np.where(np.isfinite(r), r, np.nan), axis=0)  # NaN sorts last
    count = np.isfinite(r).sum(0)
    bounds = []
    for q in ((1 - prob) / 2, (1 + prob) / 2):
        # Linear interpolation between order statistics (numpy's default method),
        # over the finite replicates of each cell only.
        pos = np.maximum(count - 1, 0) * q
        below = np.floor(pos).astype(np.int64)
        above = np.minimum(below + 1, np.maximum(count - 1, 0))
        lo_v = np.take_along_axis(r, below[None], 0)[0]
        hi_v = np.take_along_axis(r, above[None], 0)[0]
        bounds.append(np.where(count > 0, lo_v + (pos - below) * (hi_v - lo_v), np.nan))
    return bounds[0], bounds[1]


def replicate_sd(replicates: np.ndarray, axis: int = 0) -> np.ndarray:
    """Return the standard deviation (ddof 1) of the finite bootstrap replicates.

    Parameters
    ----------
    replicates : ndarray
        Metric values, one per resample along ``axis``.
    axis : int, default 0
        The resample axis.

    Returns
    -------
    ndarray
        NaN where fewer than two replicates are finite.
    """
    r = np.moveaxis(np.asarray(replicates, dtype=float), axis, 0)
    finite = np.isfinite(r)
    k = finite.sum(0)
    mean = np.where(finite, r, 0.0).sum(0) / np.maximum(k, 1)
    var = (np.where(finite, r - mean, 0.0) ** 2).sum(0) / np.maximum(k - 1, 1)
    return np.where(k >= 2, np.sqrt(var), np.nan)
