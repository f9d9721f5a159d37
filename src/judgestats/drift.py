"""Has the judge drifted? The posterior of new - old between two snapshots of logs.

Hosted judges change without a version number; seed 002 asks teams to re-validate
on a schedule. :func:`drift` compares two snapshots of the same judges.

Pairing
-------
The two snapshots are put into one dataset in which each judge appears twice
(``"<judge> [old]"`` and ``"<judge> [new]"``) over the union of the items, and the
exact tier (:class:`~judgestats.models.ExactModel`, Bayesian bootstrap) is fitted
to it. Its item weights are shared by every judge of a benchmark, so on the items
judged in both snapshots the change new - old is *paired by item*: the items'
own difficulty cancels, as in a paired test; items judged in one snapshot only
enter that snapshot's side alone.

Verdicts
--------
Per judge, benchmark and metric, with ``delta`` the metric's tolerated change
(:data:`DEFAULT_DELTAS`, one per metric) and the equal-tailed interval of
probability ``prob`` of the change, by the MVVP's interval rule
(:func:`judgestats.mvvp.interval_verdict`) against ``< delta`` and ``> -delta``:

* STABLE: the interval lies wholly inside ``(-delta, delta)``;
* CHANGED: it lies wholly beyond ``delta`` or wholly below ``-delta``;
* INCONCLUSIVE: anything else, and a CHANGED or STABLE on fewer than
  ``min_items`` items in either snapshot (withheld, the count in the reason);
* NOT MEASURED: the metric is undefined in either snapshot.

``P(|change| > delta)`` is reported beside it.

Item flips
----------
On the items judged in both snapshots, each (item, order) unit gives pairs of
verdicts: across snapshots (each old run with each new run) and within a snapshot
(run against run). Without drift both disagree equally often, since runs are
exchangeable; the excess ``disagreement across - disagreement within`` (Bayesian
bootstrap over items) is the earliest sign of drift, judged by the same rule with
its own delta (``item_flips``). With one run per snapshot the within-snapshot
noise is not measured and neither is the excess.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from judgestats.models.prior import DEFAULT_CONCENTRATION
from judgestats.mvvp import MVVPConfig, StepVerdict, Threshold, interval_verdict
from judgestats.schema import ITEM_COORDS, ORDERS, Verdict, check, empty_judgments

__all__ = [
    "DEFAULT_DELTAS",
    "Change",
    "DriftConfig",
    "DriftResult",
    "ItemFlips",
    "MetricChange",
    "drift",
    "pair_snapshots",
]

_MVVP = MVVPConfig()

#: Tolerated change of each compared metric (and of the item-flip excess).
DEFAULT_DELTAS: dict[str, float] = {
    "kappa": 0.05,
    "exact_match": 0.05,
    "position_bias": 0.03,
    "position_bias_signed": 0.03,
    "flip_rate": 0.05,
    "test_retest": 0.05,
    "invalid_rate": 0.02,
    "item_flips": 0.03,
}

OLD, NEW = "old", "new"


def _tag(judge: str, snapshot: str) -> str:
    return f"{judge} [{snapshot}]"


class Change(StrEnum):
    """The verdict of a comparison between snapshots."""

    CHANGED = "CHANGED"
    STABLE = "STABLE"
    INCONCLUSIVE = "INCONCLUSIVE"
    NOT_MEASURED = "NOT MEASURED"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class DriftConfig:
    """Deltas, interval probability and evidence floor of :func:`drift`.

    Attributes
    ----------
    deltas : mapping of str to float
        Tolerated change per metric (:data:`DEFAULT_DELTAS`); the metrics compared
        are its keys other than ``item_flips``.
    prob : float
        Interval probability (the MVVP's default).
    min_items : int
        Items each snapshot needs before a CHANGED or STABLE is given (the MVVP's).
    draws, chains : int
        Exact-tier draws.
    """

    deltas: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_DELTAS))
    prob: float = _MVVP.prob
    min_items: int = _MVVP.min_items
    draws: int = 1000
    chains: int = 2

    def __post_init__(self) -> None:
        merged = {**DEFAULT_DELTAS, **dict(self.deltas)}
        for name, value in merged.items():
            if not (np.isfinite(value) and value > 0):
                raise ValueError(f"delta for {name!r} is {value!r}; must be a positive number")
        object.__setattr__(self, "deltas", merged)
        if not 0 < self.prob < 1:
            raise ValueError(f"prob={self.prob!r}; must be strictly between 0 and 1")
        if self.min_items < 1 or self.draws < 1 or self.chains < 1:
            raise ValueError("min_items, draws and chains must be at least 1")

    @property
    def metrics(self) -> tuple[str, ...]:
        """The metrics compared."""
        return tuple(m for m in self.deltas if m != "item_flips")


def change_verdict(lo: float, hi: float, delta: float) -> Change:
    """Return the verdict of an interval of a change against ``(-delta, delta)``.

    Parameters
    ----------
    lo, hi : float
        Interval of the change (NaN: not measured).
    delta : float
        Tolerated change.

    Returns
    -------
    Change

    Examples
    --------
    >>> change_verdict(0.08, 0.20, 0.05).value
    'CHANGED'
    >>> change_verdict(-0.02, 0.03, 0.05).value
    'STABLE'
    >>> change_verdict(0.01, 0.09, 0.05).value
    'INCONCLUSIVE'
    """
    below = interval_verdict(lo, hi, Threshold("<", delta))
    above = interval_verdict(lo, hi, Threshold(">", -delta))
    if StepVerdict.NOT_MEASURED in (below, above):
        return Change.NOT_MEASURED
    if StepVerdict.FAIL in (below, above):
        return Change.CHANGED
    if below is above is StepVerdict.PASS:
        return Change.STABLE
    return Change.INCONCLUSIVE


@dataclass(frozen=True)
class MetricChange:
    """The change of one metric of one judge on one benchmark.

    Attributes
    ----------
    judge, benchmark, metric : str
    old, new : float
        Posterior medians in each snapshot.
    change, lo, hi : float
        Posterior median and interval of new - old.
    delta : float
    p_exceeds : float
        P(|change| > delta).
    verdict : Change
    reason : str
    n_old, n_new, n_shared : int
        Items judged in the old, the new and both snapshots.
    """

    judge: str
    benchmark: str
    metric: str
    old: float
    new: float
    change: float
    lo: float
    hi: float
    delta: float
    p_exceeds: float
    verdict: Change
    reason: str
    n_old: int
    n_new: int
    n_shared: int

    def to_dict(self) -> dict[str, Any]:
        """Return the record as plain values."""
        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        d["verdict"] = self.verdict.value
        return d


@dataclass(frozen=True)
class ItemFlips:
    """Item-level disagreement between snapshots against run-to-run noise.

    Attributes
    ----------
    judge, benchmark : str
    n_shared : int
        Items judged in both snapshots.
    flipped : int
        Of those, items whose majority verdict (over orders and runs) changed.
    across, within : float
        Share of disagreeing verdict pairs across snapshots and within one.
    excess, lo, hi : float
        Posterior median and interval of ``across - within``.
    delta : float
    verdict : Change
    reason : str
    """

    judge: str
    benchmark: str
    n_shared: int
    flipped: int
    across: float
    within: float
    excess: float
    lo: float
    hi: float
    delta: float
    verdict: Change
    reason: str

    def to_dict(self) -> dict[str, Any]:
        """Return the record as plain values."""
        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        d["verdict"] = self.verdict.value
        return d


@dataclass(frozen=True)
class DriftResult:
    """Every comparison between two snapshots.

    Attributes
    ----------
    changes : tuple of MetricChange
    flips : tuple of ItemFlips
    config : DriftConfig
    unmatched : tuple of str
        Judges present in one snapshot only (not compared).
    """

    changes: tuple[MetricChange, ...]
    flips: tuple[ItemFlips, ...]
    config: DriftConfig
    unmatched: tuple[str, ...] = ()

    def get(self, judge: str, benchmark: str, metric: str) -> MetricChange:
        """Return the change of one metric."""
        for c in self.changes:
            if (c.judge, c.benchmark, c.metric) == (judge, benchmark, metric):
                return c
        raise KeyError(f"no change of {metric!r} for {judge!r} on {benchmark!r}")

    def to_frame(self) -> pd.DataFrame:
        """One row per judge, benchmark and metric."""
        return pd.DataFrame([c.to_dict() for c in self.changes])

    def flips_frame(self) -> pd.DataFrame:
        """One row per judge and benchmark: item flips against run-to-run noise."""
        return pd.DataFrame([f.to_dict() for f in self.flips])

    @property
    def changed(self) -> list[MetricChange | ItemFlips]:
        """Every comparison whose verdict is CHANGED."""
        every: list[MetricChange | ItemFlips] = [*self.changes, *self.flips]
        return [c for c in every if c.verdict is Change.CHANGED]

    def to_json(self) -> dict[str, Any]:
        """Return the result as plain JSON-ready values."""
        return {
            "config": {
                "deltas": dict(self.config.deltas),
                "prob": self.config.prob,
                "min_items": self.config.min_items,
            },
            "changes": [c.to_dict() for c in self.changes],
            "item_flips": [f.to_dict() for f in self.flips],
            "unmatched_judges": list(self.unmatched),
        }

    def format(self) -> str:
        """Return the terminal summary: every CHANGED and INCONCLUSIVE comparison."""
        counts = {v: 0 for v in Change}
        every: list[MetricChange | ItemFlips] = [*self.changes, *self.flips]
        for c in every:
            counts[c.verdict] += 1
        lines = [
            "drift (new - old): " + ", ".join(f"{n} {v.value}" for v, n in counts.items() if n),
            f"{'judge':<22} {'benchmark':<14} {'metric':<22} {'change [interval]':<26} "
            f"{'delta':>6} {'P(>delta)':>9}  verdict",
        ]
        for c in self.changes:
            if c.verdict in (Change.CHANGED, Change.INCONCLUSIVE):
                lines.append(
                    f"{c.judge[:22]:<22} {c.benchmark[:14]:<14} {c.metric[:22]:<22} "
                    f"{f'{c.change:+.3f} [{c.lo:+.3f}, {c.hi:+.3f}]':<26} {c.delta:>6.3f} "
                    f"{c.p_exceeds:>9.2f}  {c.verdict.value}"
                )
        for f in self.flips:
            if f.verdict in (Change.CHANGED, Change.INCONCLUSIVE):
                lines.append(
                    f"{f.judge[:22]:<22} {f.benchmark[:14]:<14} {'item flips (excess)':<22} "
                    f"{f'{f.excess:+.3f} [{f.lo:+.3f}, {f.hi:+.3f}]':<26} {f.delta:>6.3f} "
                    f"{'':>9}  {f.verdict.value}"
                )
        if self.unmatched:
            lines.append(f"in one snapshot only (not compared): {', '.join(self.unmatched)}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.format()


def pair_snapshots(old: xr.Dataset, new: xr.Dataset) -> tuple[xr.Dataset, tuple[str, ...]]:
    """Put two snapshots into one dataset, each shared judge tagged ``[old]``/``[new]``.

    Parameters
    ----------
    old, new : xarray.Dataset
        Judgments datasets.

    Returns
    -------
    paired : xarray.Dataset
        Items: the union (old first); item coordinates and human labels from the
        old snapshot where it has the item.
    judges : tuple of str
        The judges of both snapshots, compared.

    Raises
    ------
    ValueError
        If no judge is in both, or a shared item belongs to different benchmarks.
    """
    judges = tuple(j for j in old["judge"].values.tolist() if j in set(new["judge"].values))
    if not judges:
        raise ValueError(
            f"no judge is in both snapshots (old: {old['judge'].values.tolist()[:5]}, new: "
            f"{new['judge'].values.tolist()[:5]}): use --alias OLD=NEW to match renamed judges"
        )
    old_items = old["item"].values.tolist()
    items = old_items + [i for i in new["item"].values.tolist() if i not in set(old_items)]
    shared = sorted(set(old_items) & set(new["item"].values.tolist()))
    if shared:
        b_old = old["benchmark"].sel(item=shared).values
        b_new = new["benchmark"].sel(item=shared).values
        bad = np.flatnonzero(b_old != b_new)
        if bad.size:
            i = bad[0]
            raise ValueError(
                f"item {shared[i]!r} is on benchmark {b_old[i]!r} in the old snapshot and "
                f"{b_new[i]!r} in the new one: item ids must name the same item in both"
            )
    orders = [o for o in ORDERS if o in set(old["order"].values) | set(new["order"].values)]
    runs = max(old.sizes["run"], new.sizes["run"])
    raters = list(dict.fromkeys([*old["rater"].values.tolist(), *new["rater"].values.tolist()]))
    tags = [_tag(j, s) for j in judges for s in (OLD, NEW)]
    out = empty_judgments(tags, items, orders, runs, raters)
    coords = {}
    for name in ITEM_COORDS:
        values = out[name].values.astype(object)
        for snap in (new, old):  # old last: it wins on shared items
            idx = [items.index(i) for i in snap["item"].values.tolist()]
            values[idx] = snap[name].values
        kind = ITEM_COORDS[name][0]
        coords[name] = ("item", values.astype(float if kind == "f" else str))
    out = out.assign_coords(coords)
    human = out["human"].values
    for snap in (new, old):
        idx = [items.index(i) for i in snap["item"].values.tolist()]
        r_idx = [raters.index(r) for r in snap["rater"].values.tolist()]
        h = snap["human"].transpose("item", "rater").values
        block = human[np.ix_(idx, r_idx)]
        human[np.ix_(idx, r_idx)] = np.where(h != Verdict.MISSING, h, block)
    verdict = out["verdict"].values
    for snap, tag in ((old, OLD), (new, NEW)):
        v = snap["verdict"].transpose("judge", "item", "order", "run").values
        idx = [items.index(i) for i in snap["item"].values.tolist()]
        o_idx = [orders.index(o) for o in snap["order"].values.tolist()]
        j_snap = snap["judge"].values.tolist()
        for j in judges:
            block = v[j_snap.index(j)]
            target = verdict[tags.index(_tag(j, tag))]
            target[np.ix_(idx, o_idx, range(block.shape[-1]))] = block
    out.attrs["sources"] = old.attrs.get("sources", "[]")
    return check(out), judges


def _eti(x: np.ndarray, prob: float) -> tuple[float, float, float]:
    x = x[np.isfinite(x)]
    if not x.size:
        return np.nan, np.nan, np.nan
    lo, med, hi = np.quantile(x, [(1 - prob) / 2, 0.5, (1 + prob) / 2])
    return float(med), float(lo), float(hi)


def _withheld(
    verdict: Change, reason: str, n_old: int, n_new: int, floor: int
) -> tuple[Change, str]:
    if verdict in (Change.CHANGED, Change.STABLE) and min(n_old, n_new) < floor:
        return (
            Change.INCONCLUSIVE,
            f"only {min(n_old, n_new)} items in a snapshot (< {floor}): {verdict.value} "
            f"withheld ({reason})",
        )
    return verdict, reason


def _reason(verdict: Change, prob: float, delta: float) -> str:
    p = f"{prob:.0%}"
    return {
        Change.CHANGED: f"the {p} interval of new - old lies wholly beyond ±{delta:g}",
        Change.STABLE: f"the {p} interval of new - old lies wholly within ±{delta:g}",
        Change.INCONCLUSIVE: f"the {p} interval of new - old straddles ±{delta:g}",
        Change.NOT_MEASURED: "the metric is undefined in at least one snapshot",
    }[verdict]


def _disagreements(v: np.ndarray) -> tuple[np.ndarray, ...]:
    """Per item: disagreeing and total verdict pairs within ``v[item, order, run]``."""
    present = v != Verdict.MISSING
    codes = (Verdict.A, Verdict.B, Verdict.TIE, Verdict.INVALID)
    n = present.sum(-1)
    per = np.stack([(v == c).sum(-1) for c in codes], -1)
    pairs = n * (n - 1) / 2
    agree = (per * (per - 1) / 2).sum(-1)
    return (pairs - agree).sum(-1), pairs.sum(-1)


def _across(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per item: disagreeing and total (old run, new run) pairs, over orders."""
    codes = (Verdict.A, Verdict.B, Verdict.TIE, Verdict.INVALID)
    na, nb = (a != Verdict.MISSING).sum(-1), (b != Verdict.MISSING).sum(-1)
    agree = sum((a == c).sum(-1) * (b == c).sum(-1) for c in codes)
    return (na * nb - agree).sum(-1), (na * nb).sum(-1)


def _majority(v: np.ndarray) -> np.ndarray:
    codes = np.array([Verdict.A, Verdict.B, Verdict.TIE, Verdict.INVALID])
    per = np.stack([(v == c).sum((-2, -1)) for c in codes], -1)
    top = per.max(-1, keepdims=True)
    return np.where((per == top).sum(-1) == 1, codes[per.argmax(-1)], -9)


def _item_flips(
    paired: xr.Dataset, judge: str, bench: str, config: DriftConfig, rng: np.random.Generator
) -> ItemFlips:
    sub = paired.isel(item=np.flatnonzero(paired["benchmark"].values == bench))
    v = sub["verdict"].transpose("judge", "item", "order", "run")
    a, b = v.sel(judge=_tag(judge, OLD)).values, v.sel(judge=_tag(judge, NEW)).values
    both = (a != Verdict.MISSING).any((-2, -1)) & (b != Verdict.MISSING).any((-2, -1))
    a, b = a[both], b[both]
    delta = config.deltas["item_flips"]
    d_x, n_x = _across(a, b)
    da, na = _disagreements(a)
    db, nb = _disagreements(b)
    d_w, n_w = da + db, na + nb
    flipped = int((_majority(a) != _majority(b)).sum())
    across = float(d_x.sum() / n_x.sum()) if n_x.sum() else np.nan
    within = float(d_w.sum() / n_w.sum()) if n_w.sum() else np.nan
    med = lo = hi = np.nan
    if np.isfinite(within) and np.isfinite(across):
        w = rng.dirichlet(np.ones(len(a)), size=config.draws * config.chains)
        with np.errstate(invalid="ignore", divide="ignore"):
            excess = (w @ d_x) / (w @ n_x) - (w @ d_w) / (w @ n_w)
        med, lo, hi = _eti(excess, config.prob)
    verdict = change_verdict(lo, hi, delta)
    reason = _reason(verdict, config.prob, delta)
    if verdict is Change.NOT_MEASURED:
        reason = (
            "one run per snapshot: run-to-run noise is not measured, judge each snapshot "
            "at least twice"
            if np.isfinite(across)
            else "no item was judged in both snapshots"
        )
    verdict, reason = _withheld(verdict, reason, len(a), len(a), config.min_items)
    return ItemFlips(
        judge, bench, len(a), flipped, across, within, med, lo, hi, delta, verdict, reason
    )


def drift(
    old: xr.Dataset,
    new: xr.Dataset,
    config: DriftConfig | None = None,
    *,
    random_seed: int | None = None,
) -> DriftResult:
    """Compare two snapshots of judgment logs, judge by judge (see the module docs).

    Parameters
    ----------
    old, new : xarray.Dataset
        Judgments datasets of the earlier and the later snapshot.
    config : DriftConfig, optional
        Deltas, interval probability, evidence floor and draws.
    random_seed : int, optional

    Returns
    -------
    DriftResult

    Examples
    --------
    >>> from judgestats.simulate import simulate, small_cohort
    >>> cohort = small_cohort()
    >>> old = simulate(cohort, random_seed=0, scale=0.3).dataset
    >>> new = simulate(cohort, random_seed=1, scale=0.3).dataset
    >>> res = drift(old, new, random_seed=0)
    >>> res.get("Qwen 3 8B", "MT-Bench", "kappa").verdict.value in (
    ...     "STABLE", "INCONCLUSIVE")
    True
    """
    from judgestats.models import ConvergenceWarning, ExactConfig, ExactModel

    config = config or DriftConfig()
    rng = np.random.default_rng(random_seed)
    paired, judges = pair_snapshots(old, new)
    unmatched = tuple(sorted(set(old["judge"].values.tolist()) ^ set(new["judge"].values.tolist())))
    model = ExactModel(
        ExactConfig(draws=config.draws, chains=config.chains, prior=DEFAULT_CONCENTRATION)
    )
    with warnings.catch_warnings():
        # The exact tier's draws are independent: R-hat describes no sampler here.
        warnings.simplefilter("ignore", ConvergenceWarning)
        post = model.fit(paired, random_seed=random_seed)["posterior"].to_dataset()
    assert model.result is not None  # set by fit
    n_items = model.result["constant_data"]["n_items"]
    stacked = post.stack(sample=("chain", "draw"))
    changes, flips = [], []
    benchmarks = [str(b) for b in post["benchmark"].values]
    for judge in judges:
        t_old, t_new = _tag(judge, OLD), _tag(judge, NEW)
        for bench in benchmarks:
            n_old = int(n_items.sel(judge=t_old, benchmark=bench))
            n_new = int(n_items.sel(judge=t_new, benchmark=bench))
            if n_old == 0 or n_new == 0:
                continue
            sub = paired.isel(item=np.flatnonzero(paired["benchmark"].values == bench))
            judged = (sub["verdict"] != Verdict.MISSING).any(("order", "run"))
            n_shared = int((judged.sel(judge=t_old) & judged.sel(judge=t_new)).sum())
            for metric in config.metrics:
                if metric not in stacked:
                    continue
                x = stacked[metric].sel(benchmark=bench)
                a, b = x.sel(judge=t_old).values, x.sel(judge=t_new).values
                diff = b - a
                med, lo, hi = _eti(diff, config.prob)
                delta = config.deltas[metric]
                ok = np.isfinite(diff)
                p_exc = float(np.mean(np.abs(diff[ok]) > delta)) if ok.any() else np.nan
                verdict = change_verdict(lo, hi, delta)
                verdict, reason = _withheld(
                    verdict, _reason(verdict, config.prob, delta), n_old, n_new, config.min_items
                )
                changes.append(
                    MetricChange(
                        judge=judge,
                        benchmark=bench,
                        metric=metric,
                        old=_eti(a, config.prob)[0],
                        new=_eti(b, config.prob)[0],
                        change=med,
                        lo=lo,
                        hi=hi,
                        delta=delta,
                        p_exceeds=p_exc,
                        verdict=verdict,
                        reason=reason,
                        n_old=n_old,
                        n_new=n_new,
                        n_shared=n_shared,
                    )
                )
            if n_shared:
                flips.append(_item_flips(paired, judge, bench, config, rng))
    return DriftResult(tuple(changes), tuple(flips), config, unmatched)
