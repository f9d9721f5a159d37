"""Metrics that need item covariates: verbosity bias and self-enhancement.

They follow the pattern of :mod:`judgestats.metrics.formulas` (sums over items of
item-level features, then a formula), but their features depend on more than an
item's verdicts and label: on the response lengths (``length_a``, ``length_b``) and
on which model wrote each response (``model_a``, ``model_b``). The features of one
judge on one item are

* ``vb_n``, ``vb_d``, ``vb_dd``, ``vb_s``, ``vb_ss``, ``vb_sd``: over the judge's A, B and
  tie verdicts on an item whose two lengths are known, the count, the sums of the
  (centred) length difference ``d = length_a - length_b``, of ``d²``, of the verdict
  score ``s`` (+1 A, -1 B, 0 tie), of ``s²`` and of ``s d``. Invalid verdicts have no
  score and are left out of verbosity bias (their share is ``invalid_rate``);
* ``self_win``, ``self_den``: on an item where exactly one response was written by the
  judge's own model (or family), the judge's wins for that response (a tie counts
  one half) and its A, B and tie verdicts;
* ``others_win``, ``others_den``: the same for the verdicts of the other judges that
  own neither response, on the same items;
* ``pv1_hit``, ``pv1_den``, ``pv2_hit``, ``pv2_den``: agreement with *each* human vote
  rather than with the human-majority label, as MT-Bench's authors compute it: every
  (judgment, vote) pair of an item is a comparison. S1: A, B, tie and invalid
  judgments against A, B and tie votes (an invalid judgment is a miss); S2: A, B and
  invalid judgments against A and B votes.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

import numpy as np

from judgestats.features import feature_index
from judgestats.metrics.formulas import explain

__all__ = ["FEATURES", "METRICS", "UNITS", "denominators", "derive", "features", "own_side"]

#: Names of the covariate features, in the order of the last axis of :func:`features`.
FEATURES: tuple[str, ...] = (
    "vb_n",
    "vb_d",
    "vb_dd",
    "vb_s",
    "vb_ss",
    "vb_sd",
    "self_win",
    "self_den",
    "others_win",
    "others_den",
    "pv1_hit",
    "pv1_den",
    "pv2_hit",
    "pv2_den",
)
_INDEX = {name: i for i, name in enumerate(FEATURES)}

#: Every metric :func:`derive` returns, with its description.
METRICS: dict[str, str] = {
    "verbosity_bias": "Pearson r of length difference A - B with verdict (+1 A, -1 B, 0 tie)",
    "self_win_rate": "judge's win rate for responses of its own model (tie = 1/2)",
    "others_win_rate": "other judges' win rate for the same responses (tie = 1/2)",
    "self_enhancement": "self win rate minus the other judges' win rate",
    "vote_agreement_s1": "agreement with each human vote (not the majority), 3 classes",
    "vote_agreement_s2": "agreement with each non-tie human vote, non-tie judgments",
}

#: Metric name → what its ``n`` counts.
UNITS: dict[str, str] = {
    "verbosity_bias": "A/B/tie judgments on items with both lengths",
    "self_win_rate": "A/B/tie judgments of own-model responses",
    "others_win_rate": "other judges' A/B/tie judgments of those responses",
    "self_enhancement": "A/B/tie judgments of own-model responses",
    "vote_agreement_s1": "(judgment, human vote) pairs on an item",
    "vote_agreement_s2": "(non-tie judgment, non-tie human vote) pairs on an item",
}

_DEN = {
    "verbosity_bias": "vb_n",
    "self_win_rate": "self_den",
    "others_win_rate": "others_den",
    "self_enhancement": "self_den",
    "vote_agreement_s1": "pv1_den",
    "vote_agreement_s2": "pv2_den",
}


def _f(x: np.ndarray, name: str) -> np.ndarray:
    return x[..., _INDEX[name]]


def own_side(
    judges: Collection[str],
    model_a: np.ndarray,
    model_b: np.ndarray,
    self_models: Mapping[str, str | Collection[str]] | None = None,
) -> np.ndarray:
    """Say which response of each item each judge's own model wrote.

    Parameters
    ----------
    judges : collection of str
        Judge names.
    model_a, model_b : ndarray of str, shape (item,)
        The models that wrote responses A and B (``""`` where unknown).
    self_models : mapping, optional
        Judge → its own model name, or a collection of names (a model family). A
        judge missing from the mapping owns the model of its own name.

    Returns
    -------
    ndarray of int, shape (judge, item)
        +1 where only response A is the judge's own, -1 where only B is, 0 otherwise.
    """
    mapping = dict(self_models or {})
    out = np.zeros((len(judges), len(model_a)), dtype=np.int8)
    for j, judge in enumerate(judges):
        own = mapping.get(judge, judge)
        own = {own} if isinstance(own, str) else set(own)
        in_a = np.isin(model_a, list(own)) & (model_a != "")
        in_b = np.isin(model_b, list(own)) & (model_b != "")
        out[j] = in_a.astype(np.int8) - in_b.astype(np.int8)
    return out


def features(
    counts: np.ndarray,
    length_diff: np.ndarray,
    side: np.ndarray,
    votes: np.ndarray | None = None,
    invalid: np.ndarray | None = None,
) -> np.ndarray:
    """Compute the covariate features of every judge and item.

    Parameters
    ----------
    counts : ndarray, shape (judge, item, 3)
        The judge's A, B and tie verdicts on the item (features ``n_a, n_b, n_tie``).
    length_diff : ndarray of float, shape (item,)
        ``length_a - length_b``; NaN where a length is unknown. Centre it (any
        constant shift leaves the correlation unchanged) to keep the sums well
        conditioned.
    side : ndarray of int, shape (judge, item)
        :func:`own_side`.
    votes : ndarray, shape (item, 3), optional
        The item's human votes for A, B and tie (none by default).
    invalid : ndarray, shape (judge, item), optional
        The judge's invalid verdicts on the item (none by default).

    Returns
    -------
    ndarray of float64, shape (judge, item, len(FEATURES))

    Examples
    --------
    >>> import numpy as np
    >>> counts = np.array([[[1, 0, 0], [0, 1, 0]]], dtype=float)
    >>> f = features(counts, np.array([3.0, -3.0]), np.zeros((1, 2), dtype=int))
    >>> float(dict(zip(FEATURES, f.sum(1)[0]))["vb_sd"])
    6.0
    """
    counts = np.asarray(counts, dtype=float)
    n_a, n_b, n_tie = counts[..., 0], counts[..., 1], counts[..., 2]
    known = np.isfinite(length_diff)
    d = np.where(known, length_diff, 0.0)
    n = np.where(known, n_a + n_b + n_tie, 0.0)
    s = np.where(known, n_a - n_b, 0.0)
    out = np.zeros((*counts.shape[:-1], len(FEATURES)))
    out[..., _INDEX["vb_n"]] = n
    out[..., _INDEX["vb_d"]] = n * d
    out[..., _INDEX["vb_dd"]] = n * d**2
    out[..., _INDEX["vb_s"]] = s
    out[..., _INDEX["vb_ss"]] = np.where(known, n_a + n_b, 0.0)
    out[..., _INDEX["vb_sd"]] = s * d

    valid = n_a + n_b + n_tie
    wins_a, wins_b = n_a + n_tie / 2, n_b + n_tie / 2
    out[..., _INDEX["self_win"]] = np.select([side > 0, side < 0], [wins_a, wins_b], 0.0)
    out[..., _INDEX["self_den"]] = np.where(side != 0, valid, 0.0)
    neutral = (side == 0)[..., None]
    pool = (counts * neutral).sum(0)  # (item, 3): judges that own neither response
    pool_a, pool_b = pool[:, 0] + pool[:, 2] / 2, pool[:, 1] + pool[:, 2] / 2
    out[..., _INDEX["others_win"]] = np.select([side > 0, side < 0], [pool_a, pool_b], 0.0)
    out[..., _INDEX["others_den"]] = np.where(side != 0, pool.sum(-1), 0.0)

    if votes is not None:
        va, vb, vt = (np.asarray(votes, dtype=float)[:, k] for k in range(3))
        bad = np.zeros_like(n_a) if invalid is None else np.asarray(invalid, dtype=float)
        out[..., _INDEX["pv1_hit"]] = n_a * va + n_b * vb + n_tie * vt
        out[..., _INDEX["pv1_den"]] = (valid + bad) * (va + vb + vt)
        out[..., _INDEX["pv2_hit"]] = n_a * va + n_b * vb
        out[..., _INDEX["pv2_den"]] = (n_a + n_b + bad) * (va + vb)
    return out


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def _variances(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """n² × (covariance, var d, var s) of the verbosity sums."""
    n = _f(x, "vb_n")
    cov = n * _f(x, "vb_sd") - _f(x, "vb_d") * _f(x, "vb_s")
    var_d = n * _f(x, "vb_dd") - _f(x, "vb_d") ** 2
    var_s = n * _f(x, "vb_ss") - _f(x, "vb_s") ** 2
    return cov, var_d, var_s


def _positive(var: np.ndarray, x: np.ndarray, square: str) -> np.ndarray:
    """Whether a variance is clearly above rounding error of its sums."""
    n = _f(x, "vb_n")
    return var > 1e-9 * np.maximum(n * _f(x, square), 1e-300)


def derive(x: np.ndarray) -> dict[str, np.ndarray]:
    """Compute every metric of :data:`METRICS` from covariate features summed over items.

    NaN where a metric is undefined; :func:`reasons` says why.
    """
    x = np.asarray(x, dtype=float)
    cov, var_d, var_s = _variances(x)
    ok = _positive(var_d, x, "vb_dd") & _positive(var_s, x, "vb_ss")
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(ok, cov / np.sqrt(np.where(ok, var_d * var_s, 1.0)), np.nan)
    own = _ratio(_f(x, "self_win"), _f(x, "self_den"))
    others = _ratio(_f(x, "others_win"), _f(x, "others_den"))
    return {
        "verbosity_bias": np.clip(r, -1.0, 1.0),
        "self_win_rate": own,
        "others_win_rate": others,
        "self_enhancement": own - others,
        "vote_agreement_s1": _ratio(_f(x, "pv1_hit"), _f(x, "pv1_den")),
        "vote_agreement_s2": _ratio(_f(x, "pv2_hit"), _f(x, "pv2_den")),
    }


def denominators(x: np.ndarray) -> dict[str, np.ndarray]:
    """Return each metric's ``n`` (see :data:`UNITS`) from summed covariate features."""
    x = np.asarray(x, dtype=float)
    return {name: _f(x, den) for name, den in _DEN.items()}


def reasons(x: np.ndarray) -> dict[str, np.ndarray]:
    """Say why each metric is undefined (``""`` where it is defined), from summed features."""
    x = np.asarray(x, dtype=float)
    values = derive(x)
    _, var_d, var_s = _variances(x)
    no_self = (
        _f(x, "self_den") <= 0,
        "no judged item has exactly one response by the judge's own model"
        " (record model_a/model_b, or map judges to models with self_models)",
    )
    no_others = (
        _f(x, "others_den") <= 0,
        "no other judge (owning neither response) judged the judge's own-model responses",
    )
    checks = {
        "verbosity_bias": [
            (_f(x, "vb_n") <= 0, "no A/B/tie judgments on items with both response lengths"),
            (~_positive(var_d, x, "vb_dd"), "the length difference A - B is constant"),
            (~_positive(var_s, x, "vb_ss"), "every verdict has the same score"),
        ],
        "self_win_rate": [no_self],
        "others_win_rate": [no_self, no_others],
        "self_enhancement": [no_self, no_others],
        "vote_agreement_s1": [(_f(x, "pv1_den") <= 0, "no judgment on an item with human votes")],
        "vote_agreement_s2": [
            (_f(x, "pv2_den") <= 0, "no non-tie judgment on an item with non-tie human votes")
        ],
    }
    return {name: explain(values[name], checks[name]) for name in METRICS}


#: Positions of the verdict counts among :data:`judgestats.features.FEATURES`.
COUNT_FEATURES: tuple[int, int, int] = (
    feature_index("n_a"),
    feature_index("n_b"),
    feature_index("n_tie"),
)
