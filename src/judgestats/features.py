"""Item-level sufficient features: what one item contributes to every metric.

Every metric in judgestats is a function of *sums over items* of a fixed vector of
item-level features, computed from the item's verdicts over ``(order, run)`` and its
human label. Closed-form metrics sum the features over items; the item bootstrap
takes weighted sums; the Bayesian models take expectations under posterior pattern
probabilities. One definition serves all three, so they cannot drift apart.

The features of one item (``v[order, run]``, label ``h``) are counts:

* ``cells``, ``invalid``: judgments present, and those that were unparseable;
* ``conf_<h>_<v>``: judgments with label ``h`` in {a, b, tie} and verdict ``v`` in
  {a, b, tie, invalid} (the judge–human confusion table, one row per judgment);
* ``em_hit``/``em_den``: tie-excluded exact match (label A or B; a tie or invalid
  verdict is a miss);
* ``first``/``decisive``: judgments choosing the first-presented response, among
  decisive (A or B) judgments with known order;
* ``flip``/``pairs``: runs in which both orders were judged, and whether the item-frame
  verdicts differ (a position flip);
* ``tr_hit``/``tr_den``: (item, order) units with at least two runs, and whether all
  runs agree (test-retest);
* ``sc_hit``/``sc_den``: runs agreeing with the (item, order) majority verdict, over runs
  of units with at least two runs (self-consistency);
* ``pr_hit``/``pr_den``: agreeing pairs of runs, over pairs of runs (pairwise run
  agreement);
* ``tt_hit``/``tt_den``: runs with both orders judged on an A/B-labelled item, and
  whether the net vote of the two orders favours the label (JudgeBench two-trial
  accuracy: a double tie or an inconsistent pair is wrong; an invalid verdict is a
  vote of 0);
* ``n_a``, ``n_b``, ``n_tie``: judgments with each verdict, whatever the label
  (verbosity bias and self-enhancement need them on unlabelled items too);
* ``first_paired``/``decisive_paired``: like ``first``/``decisive`` but only over runs
  judged in both orders ``AB`` and ``BA`` (position bias is defined over paired
  orders; ``"unknown"`` never pairs);
* ``s1_hit``/``s1_den`` and ``s2_hit``/``s2_den``: MT-Bench setups S1 and S2. Each run's
  verdicts over its orders combine into one: all equal gives that verdict, any
  invalid gives invalid, anything else (order-inconsistent) gives a tie. S1 counts
  runs of items labelled A, B or tie, a hit when the combined verdict equals the
  label (three classes); S2 counts runs with an A/B label whose combined verdict is
  not a tie (an invalid one stays in as a miss);
* ``bc_hit``: runs counted by ``tt_den`` in which both orders chose the labelled
  response (LLMBar's "both correct");
* ``ra_n``, ``ra_occ``, ``ra_a``, ``ra_b``, ``ra_tie``, ``ra_invalid``: Krippendorff's
  alpha across runs (runs as coders, (item, order) as units): the pairable values
  of units with at least two runs, the diagonal of their coincidence matrix, and
  the pairable values per category.

Runs are exchangeable replicates: every feature is invariant to relabelling runs
(keeping each run's two orders together), which :mod:`judgestats.tally` uses to
collapse patterns.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from judgestats.schema import Verdict

__all__ = ["CONF", "FEATURES", "LABELS", "VERDICTS", "feature_index", "item_features"]

#: Human-label categories of the confusion table (rows).
LABELS: tuple[str, ...] = ("a", "b", "tie")
#: Verdict categories of the confusion table (columns).
VERDICTS: tuple[str, ...] = ("a", "b", "tie", "invalid")
#: Names of the confusion-table features, row-major (label, verdict).
CONF: tuple[str, ...] = tuple(f"conf_{h}_{v}" for h in LABELS for v in VERDICTS)

#: Names of all item-level features, in the order of the last axis of
#: :func:`item_features`.
FEATURES: tuple[str, ...] = (
    "cells",
    "invalid",
    *CONF,
    "em_hit",
    "em_den",
    "first",
    "decisive",
    "flip",
    "pairs",
    "tr_hit",
    "tr_den",
    "sc_hit",
    "sc_den",
    "pr_hit",
    "pr_den",
    "tt_hit",
    "tt_den",
    "n_a",
    "n_b",
    "n_tie",
    "first_paired",
    "decisive_paired",
    "s1_hit",
    "s1_den",
    "s2_hit",
    "s2_den",
    "bc_hit",
    "ra_n",
    "ra_occ",
    "ra_a",
    "ra_b",
    "ra_tie",
    "ra_invalid",
)

_INDEX = {name: i for i, name in enumerate(FEATURES)}


def feature_index(name: str) -> int:
    """Return the position of feature ``name`` on the last axis of the features."""
    return _INDEX[name]


def item_features(verdict: np.ndarray, label: np.ndarray, orders: Sequence[str]) -> np.ndarray:
    """Compute the item-level features of every item.

    Parameters
    ----------
    verdict : ndarray of int, shape (..., order, run)
        Verdict codes (:class:`~judgestats.schema.Verdict`) in the item frame.
    label : ndarray of int, shape (...)
        The item's human label (A, B, TIE), or MISSING where there is none;
        broadcast against ``verdict.shape[:-2]``.
    orders : sequence of str
        Values of the ``order`` axis (``"AB"``, ``"BA"``, ``"unknown"``).

    Returns
    -------
    ndarray of float64, shape (..., len(FEATURES))
        Feature counts per item, in the order of :data:`FEATURES`.

    Examples
    --------
    >>> import numpy as np
    >>> from judgestats.features import item_features, FEATURES
    >>> f = item_features(np.array([[[0, 0], [1, 0]]]), np.array([0]), ["AB", "BA"])
    >>> float(dict(zip(FEATURES, f[0]))["flip"])
    1.0
    """
    v = np.asarray(verdict)
    lead = v.shape[:-2]
    h = np.broadcast_to(np.asarray(label), lead)
    present = v != Verdict.MISSING
    out = np.zeros((*lead, len(FEATURES)), dtype=np.float64)

    def put(name: str, value: np.ndarray) -> None:
        out[..., _INDEX[name]] = value

    put("cells", present.sum((-2, -1)))
    put("invalid", (v == Verdict.INVALID).sum((-2, -1)))
    codes = (Verdict.A, Verdict.B, Verdict.TIE, Verdict.INVALID)
    counts = np.stack([(v == c).sum((-2, -1)) for c in codes], axis=-1)  # (..., 4)
    for i, hc in enumerate((Verdict.A, Verdict.B, Verdict.TIE)):
        for j in range(4):
            put(CONF[4 * i + j], np.where(h == hc, counts[..., j], 0))
    decisive_label = (h == Verdict.A) | (h == Verdict.B)
    hits = np.where(h == Verdict.A, counts[..., 0], np.where(h == Verdict.B, counts[..., 1], 0))
    put("em_hit", np.where(decisive_label, hits, 0))
    put("em_den", np.where(decisive_label, present.sum((-2, -1)), 0))

    orders = list(orders)
    first = np.zeros(lead)
    decisive = np.zeros(lead)
    for o, first_code in (("AB", Verdict.A), ("BA", Verdict.B)):
        if o in orders:
            vo = v[..., orders.index(o), :]
            first += (vo == first_code).sum(-1)
            decisive += _decisive(vo).sum(-1)
    put("first", first)
    put("decisive", decisive)
    for name, j in (("n_a", 0), ("n_b", 1), ("n_tie", 2)):
        put(name, counts[..., j])

    if "AB" in orders and "BA" in orders:
        ab, ba = v[..., orders.index("AB"), :], v[..., orders.index("BA"), :]
        both = (ab != Verdict.MISSING) & (ba != Verdict.MISSING)
        put("pairs", both.sum(-1))
        put("flip", (both & (ab != ba)).sum(-1))
        vote = _vote(ab, h[..., None]) + _vote(ba, h[..., None])
        tt = both & decisive_label[..., None]
        put("tt_den", tt.sum(-1))
        put("tt_hit", (tt & (vote > 0)).sum(-1))
        put("bc_hit", (tt & (ab == h[..., None]) & (ba == h[..., None])).sum(-1))
        first_paired = (both & (ab == Verdict.A)).sum(-1) + (both & (ba == Verdict.B)).sum(-1)
        put("first_paired", first_paired)
        put("decisive_paired", (both & _decisive(ab)).sum(-1) + (both & _decisive(ba)).sum(-1))

    combined = _combine_orders(v)  # (..., run)
    labelled = (h == Verdict.A) | (h == Verdict.B) | (h == Verdict.TIE)
    s1 = (combined != Verdict.MISSING) & labelled[..., None]
    put("s1_den", s1.sum(-1))
    put("s1_hit", (s1 & (combined == h[..., None])).sum(-1))
    s2 = s1 & decisive_label[..., None] & (combined != Verdict.TIE)
    put("s2_den", s2.sum(-1))
    put("s2_hit", (s2 & (combined == h[..., None])).sum(-1))

    # Replicate agreement within each (item, order) unit.
    per_code = np.stack([(v == c).sum(-1) for c in codes], axis=-1)  # (..., order, 4)
    n_runs = per_code.sum(-1)
    unit = n_runs >= 2
    put("tr_den", unit.sum(-1))
    put("tr_hit", (unit & (per_code.max(-1) == n_runs)).sum(-1))
    put("sc_den", np.where(unit, n_runs, 0).sum(-1))
    put("sc_hit", np.where(unit, per_code.max(-1), 0).sum(-1))
    put("pr_den", (n_runs * (n_runs - 1) / 2).sum(-1))
    put("pr_hit", (per_code * (per_code - 1) / 2).sum((-2, -1)))
    # Coincidences of runs within each unit (Krippendorff): a unit of m pairable values
    # adds n_c (n_c - 1) / (m - 1) to the diagonal for each category c.
    pairable = np.where(unit[..., None], per_code, 0)
    put("ra_n", pairable.sum((-2, -1)))
    with np.errstate(invalid="ignore", divide="ignore"):
        occ = (pairable * (pairable - 1)).sum(-1) / np.where(unit, n_runs - 1, 1)
    put("ra_occ", occ.sum(-1))
    for name, j in (("ra_a", 0), ("ra_b", 1), ("ra_tie", 2), ("ra_invalid", 3)):
        put(name, pairable[..., j].sum(-1))
    return out


def _decisive(v: np.ndarray) -> np.ndarray:
    return (v == Verdict.A) | (v == Verdict.B)


def _combine_orders(v: np.ndarray) -> np.ndarray:
    """Combine each run's verdicts over its orders into one (MT-Bench S1/S2).

    All present verdicts equal gives that verdict; any invalid gives INVALID; any
    other disagreement (an order-inconsistent pair) gives TIE; none present gives
    MISSING. Returns shape (..., run).
    """
    has = [(v == c).any(-2) for c in (Verdict.A, Verdict.B, Verdict.TIE)]
    kinds = has[0].astype(int) + has[1] + has[2]
    single = np.select(has, [Verdict.A, Verdict.B, Verdict.TIE], Verdict.MISSING)
    out = np.where(kinds > 1, Verdict.TIE, single)
    return np.where((v == Verdict.INVALID).any(-2), Verdict.INVALID, out).astype(np.int8)


def _vote(v: np.ndarray, h: np.ndarray) -> np.ndarray:
    """+1 for a verdict of the labelled response, -1 for the other, 0 otherwise."""
    other = np.where(h == Verdict.A, Verdict.B, Verdict.A)
    return (v == h).astype(int) - (v == other).astype(int)
