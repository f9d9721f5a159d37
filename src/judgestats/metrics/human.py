"""The human–human ceiling: how well the human raters agree with each other.

Judges are scored against the human-majority label (:func:`judgestats.tally.consensus_label`:
the plurality of the raters, a tied plurality being a tie). What a judge can be
expected to reach is bounded by how well humans agree among themselves, measured on
the same items as in MT-Bench (Zheng et al. 2023, appendix D.3):

* ``human_majority_s1`` / ``_s2``: each rater against the majority of the *other*
  raters of the item (human-majority vs human), over the three classes (S1), or over
  rater–majority pairs that are both non-tie (S2);
* ``human_pairwise_s1`` / ``_s2``: every unordered pair of raters of an item.

Only A, B and tie ratings count; items with fewer than two such ratings add nothing.
The item features are ``hm1_hit, hm1_den, hm2_hit, hm2_den, hp1_hit, hp1_den, hp2_hit,
hp2_den``.
"""

from __future__ import annotations

import numpy as np

from judgestats.metrics.formulas import explain
from judgestats.schema import Verdict

__all__ = ["FEATURES", "METRICS", "UNITS", "denominators", "derive", "features", "vote_counts"]

#: Names of the human features, in the order of the last axis of :func:`features`.
FEATURES: tuple[str, ...] = (
    "hm1_hit",
    "hm1_den",
    "hm2_hit",
    "hm2_den",
    "hp1_hit",
    "hp1_den",
    "hp2_hit",
    "hp2_den",
)
_INDEX = {name: i for i, name in enumerate(FEATURES)}

#: Every metric :func:`derive` returns: name → (description, hit, denominator).
_SPEC: dict[str, tuple[str, str, str]] = {
    "human_majority_s1": (
        "each rater vs the majority of the others, 3 classes",
        "hm1_hit",
        "hm1_den",
    ),
    "human_majority_s2": (
        "each rater vs the majority of the others, both non-tie",
        "hm2_hit",
        "hm2_den",
    ),
    "human_pairwise_s1": (
        "agreement of pairs of raters of an item, 3 classes",
        "hp1_hit",
        "hp1_den",
    ),
    "human_pairwise_s2": ("agreement of pairs of raters, both non-tie", "hp2_hit", "hp2_den"),
}

#: Every metric :func:`derive` returns, with its description.
METRICS: dict[str, str] = {name: spec[0] for name, spec in _SPEC.items()}

#: Metric name → what its ``n`` counts.
UNITS: dict[str, str] = {
    "human_majority_s1": "ratings of items with two or more raters",
    "human_majority_s2": "non-tie ratings with a non-tie majority of the others",
    "human_pairwise_s1": "pairs of raters of an item",
    "human_pairwise_s2": "pairs of non-tie ratings of an item",
}

_CODES = (Verdict.A, Verdict.B, Verdict.TIE)


def _pairs(n: np.ndarray) -> np.ndarray:
    return n * (n - 1) / 2


def features(human: np.ndarray) -> np.ndarray:
    """Compute the human-agreement features of every item.

    Parameters
    ----------
    human : ndarray of int, shape (item, rater)
        Rater labels (:class:`~judgestats.schema.Verdict` codes).

    Returns
    -------
    ndarray of float64, shape (item, len(FEATURES))

    Examples
    --------
    >>> import numpy as np
    >>> f = features(np.array([[0, 0, 1]]))
    >>> dict(zip(FEATURES, f[0]))["hp1_hit"], dict(zip(FEATURES, f[0]))["hp1_den"]
    (np.float64(1.0), np.float64(3.0))
    """
    h = np.asarray(human)
    n_items = h.shape[0]
    per = vote_counts(h)  # (item, 3)
    out = np.zeros((n_items, len(FEATURES)))
    out[:, _INDEX["hp1_den"]] = _pairs(per.sum(-1))
    out[:, _INDEX["hp1_hit"]] = _pairs(per).sum(-1)
    out[:, _INDEX["hp2_den"]] = _pairs(per[:, 0] + per[:, 1])
    out[:, _INDEX["hp2_hit"]] = _pairs(per[:, 0]) + _pairs(per[:, 1])

    # Leave one rater out: the majority of the others, with the rule of the label the
    # judges are scored against. Raters with the same label share the same "others",
    # so three leave-one-out majorities per item suffice, whatever the number of raters.
    drop = per[:, None, :] - np.eye(3)[None]  # (item, left-out label, 3)
    majority = _plurality(drop)  # (item, left-out label)
    has_others = per.sum(-1, keepdims=True) >= 2
    agree = majority == np.array(_CODES)
    s1 = np.where(has_others, per, 0.0)
    s2 = np.where(has_others & (majority != Verdict.TIE), per, 0.0)[:, :2]
    out[:, _INDEX["hm1_den"]] = s1.sum(-1)
    out[:, _INDEX["hm1_hit"]] = (s1 * agree).sum(-1)
    out[:, _INDEX["hm2_den"]] = s2.sum(-1)
    out[:, _INDEX["hm2_hit"]] = (s2 * agree[:, :2]).sum(-1)
    return out


def vote_counts(human: np.ndarray) -> np.ndarray:
    """Return the A, B and tie ratings of every item, shape (item, 3), as floats.

    Parameters
    ----------
    human : ndarray of int, shape (item, rater)
        Rater labels (:class:`~judgestats.schema.Verdict` codes); missing and invalid
        ones count nowhere.
    """
    h = np.asarray(human)
    return np.stack([(h == c).sum(-1) for c in _CODES], -1).astype(float)


def _plurality(counts: np.ndarray) -> np.ndarray:
    """Plurality of A/B/tie counts (..., 3); a tied top is TIE, no votes MISSING.

    The rule of :func:`judgestats.tally.consensus_label`, on counts.
    """
    top = counts.max(-1, keepdims=True)
    winners = (counts == top) & (top > 0)
    label = np.where(winners.sum(-1) == 1, np.argmax(counts, -1), Verdict.TIE)
    return np.where(top[..., 0] > 0, label, Verdict.MISSING)


def _f(x: np.ndarray, name: str) -> np.ndarray:
    return x[..., _INDEX[name]]


def derive(x: np.ndarray) -> dict[str, np.ndarray]:
    """Compute every metric of :data:`METRICS` from human features summed over items.

    NaN where a metric is undefined; :func:`reasons` says why.
    """
    x = np.asarray(x, dtype=float)
    out = {}
    for name, (_, hit, den) in _SPEC.items():
        d = _f(x, den)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[name] = np.where(d > 0, _f(x, hit) / np.where(d > 0, d, 1), np.nan)
    return out


def denominators(x: np.ndarray) -> dict[str, np.ndarray]:
    """Return each metric's ``n`` (see :data:`UNITS`) from summed human features."""
    x = np.asarray(x, dtype=float)
    return {name: _f(x, den) for name, (_, _, den) in _SPEC.items()}


def reasons(x: np.ndarray) -> dict[str, np.ndarray]:
    """Say why each metric is undefined (``""`` where it is defined), from summed features."""
    x = np.asarray(x, dtype=float)
    values = derive(x)
    msg = {
        "1": "no item has two or more human ratings",
        "2": "no item has two or more non-tie human ratings",
    }
    return {
        name: explain(values[name], [(_f(x, den) <= 0, msg[name[-1]])])
        for name, (_, _, den) in _SPEC.items()
    }
