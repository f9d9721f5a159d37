"""The five MVVP steps checked on a posterior, with the rule of every verdict.

Interval verdicts
-----------------
Steps 1 to 4 compare the equal-tailed interval of probability ``prob`` of one
quantity with a threshold that names its good side:

* PASS: the whole interval is on the good side;
* FAIL: the whole interval is on the bad side;
* INCONCLUSIVE: the interval straddles the threshold;
* NOT MEASURED: the data cannot support the step; the reason says why.

``p_threshold_met`` is the posterior probability of the good side.

Evidence
--------
A verdict needs evidence. Every step counts what it is measured on (labelled items,
items judged in both orders, (item, order) units judged in at least ``min_runs``
runs); with none the step is NOT MEASURED, and with fewer than ``min_items`` a PASS
or FAIL that the interval would give is withheld: INCONCLUSIVE, the count in the
reason. A failed sampler diagnostic (R-hat above 1.01, bulk ESS below its floor)
on the quantity a step decides by likewise turns its PASS or FAIL into
INCONCLUSIVE, naming the diagnostic.

The steps
---------
1. *Chance-correct* (per judge × benchmark): Cohen's kappa against the human label,
   good side ``kappa > min_kappa`` (default 0.40, "moderate" agreement on the
   Landis–Koch scale). Better than chance, P(kappa > 0), is reported in the reason,
   not passed; Krippendorff's alpha, tie-excluded exact match and the deflation
   (exact match minus kappa) are reported beside it. NOT MEASURED when the
   benchmark has no human (or gold) labels on the judge's items, or kappa is
   undefined (chance agreement 1, or one label class only).
2. *Swap positions* (per judge × benchmark): position bias ``|P(first) - 0.5|``
   over runs judged in both orders, good side ``< max_position_bias`` (0.10).
   NOT MEASURED when the logs lack one of the orders ``AB``/``BA`` (or record the
   order as ``"unknown"``), or the judge has no item judged in both.
3. *Replicate* (per judge × benchmark): test-retest, Krippendorff's alpha across
   runs (units (item, order), runs as coders; it does not change with the number of
   runs), good side ``> min_test_retest`` (0.80, Krippendorff's floor for reliable
   data). It is measured on the units judged in at least ``min_runs`` (3) runs, as
   the protocol asks, and says how many; with none the step is NOT MEASURED. The
   share of units identical in every run is reported beside it, with the run count.
4. *Cross-validate* (per judge): the judge must have kappa on at least
   ``min_benchmarks`` (2) benchmarks spanning preference-style and
   correctness-style labels, else NOT MEASURED. The quantity is the judge's largest
   absolute rank shift between any two of its benchmarks (ranks by
   ``DerivedConfig.rank_by``, 1 = best, among the judges ranked on both
   benchmarks, per draw), good side ``<= max_rank_shift`` (3 positions: seed 002
   counts shifts of four or more as large). A rank is relative, so the step also
   asks that the judge's kappa clear the step-1 floor on each of those
   benchmarks: a judge that collapses together with the cohort keeps its rank. It
   FAILs when the shift does or step 1 FAILs on one of them, PASSes only when the
   shift PASSes and step 1 PASSes on every one. NOT MEASURED when fewer than
   ``max_rank_shift + 2`` judges are ranked on both benchmarks of every pair (no
   shift could fail).
5. *Audit the paradox* (per judge × benchmark): the consistency-bias paradox is
   test-retest above ``paradox_test_retest`` (0.95) *and* position bias above
   ``paradox_position_bias`` (0.10) in the same draw. With ``tail = (1 - prob) / 2``:
   PASS when P(paradox) <= tail (in particular when test-retest is credibly below
   0.95: the audit does not apply), FAIL when P(paradox) >= 1 - tail (the
   paradox is credible), INCONCLUSIVE otherwise; the same rule as an interval,
   applied to the joint event. P(test-retest > 0.95) and P(position bias > 0.10)
   are reported beside it. NOT MEASURED when step 2 or step 3 is, and the evidence
   rule of both applies.

Failed diagnostics are also kept in :attr:`MVVPResult.warnings`.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from itertools import combinations
from typing import Any

import numpy as np
import xarray as xr

from judgestats.models.summary import MAX_RHAT, ess_floor, reported_metrics, sample_quantiles
from judgestats.mvvp.design import Design
from judgestats.mvvp.result import (
    Estimate,
    MVVPResult,
    Step,
    StepResult,
    StepVerdict,
    Threshold,
)
from judgestats.thresholds import PAPER

__all__ = [
    "MVVPConfig",
    "check",
    "interval_verdict",
    "mvvp_config_of",
    "probability_verdict",
]

_SAMPLE = ("chain", "draw")

#: Posterior quantities the check (and the report) summarises besides the reported
#: metrics of the registry.
DERIVED_QUANTITIES: tuple[str, ...] = ("rank", "rank_shift", "paradox", "top_k_all", "kendall_tau")


def summary_quantities() -> tuple[str, ...]:
    """Return what the check summarises: every reported metric, then the derived ones."""
    return (*reported_metrics(), *DERIVED_QUANTITIES)


CORRECTNESS, PREFERENCE = "correctness", "preference"


@dataclass(frozen=True)
class MVVPConfig:
    """Thresholds and interval probability of the MVVP check (see the module docs).

    Attributes
    ----------
    prob : float, default 0.95
        Probability of the equal-tailed intervals the verdicts read.
    min_items : int, default 30
        Evidence every PASS or FAIL needs: labelled items (step 1), items judged in
        both orders (step 2), (item, order) units with ``min_runs`` runs (step 3).
    min_kappa : float, default 0.40
        Step 1: kappa must exceed it ("moderate" on the Landis–Koch scale; 0 would
        only ask for better than chance).
    max_position_bias : float, default 0.10
        Step 2: position bias must stay below it.
    min_runs : int, default 3
        Step 3: runs needed per item.
    min_test_retest : float, default 0.80
        Step 3: test-retest (Krippendorff's alpha across runs) must exceed it.
    min_benchmarks : int, default 2
        Step 4: labelled benchmarks needed per judge.
    max_rank_shift : float, default 3
        Step 4: the largest absolute rank shift must not exceed it.
    paradox_test_retest, paradox_position_bias : float, default 0.95, 0.10
        Step 5: the paradox is test-retest above the first and position bias above
        the second. The posterior's ``paradox`` indicator is recomputed with them, so
        that the summaries and step 5 agree.
    max_invalid_rate : float, default 0.05
        Reported: P(invalid rate below it).

    Defaults are the paper's (:data:`judgestats.thresholds.PAPER`).
    """

    prob: float = 0.95
    min_items: int = 30
    min_kappa: float = PAPER.min_kappa
    max_position_bias: float = PAPER.max_position_bias
    min_runs: int = 3
    min_test_retest: float = PAPER.min_test_retest
    min_benchmarks: int = 2
    max_rank_shift: float = PAPER.max_rank_shift
    paradox_test_retest: float = PAPER.paradox_test_retest
    paradox_position_bias: float = PAPER.paradox_position_bias
    max_invalid_rate: float = PAPER.max_invalid_rate

    def __post_init__(self) -> None:
        if not 0 < self.prob < 1:
            raise ValueError(f"prob={self.prob!r}; must be strictly between 0 and 1")
        for name in ("max_position_bias", "paradox_position_bias"):
            value = getattr(self, name)
            if not 0 <= value <= 0.5:
                raise ValueError(f"{name}={value!r}; position bias lies in [0, 0.5]")
        for name in ("min_test_retest", "paradox_test_retest"):
            value = getattr(self, name)
            if not -1 <= value <= 1:
                raise ValueError(f"{name}={value!r}; test-retest (an alpha) lies in [-1, 1]")
        if not -1 <= self.min_kappa < 1:
            raise ValueError(f"min_kappa={self.min_kappa!r}; must be in [-1, 1)")
        if self.min_items < 1:
            raise ValueError(f"min_items={self.min_items!r}; must be at least 1")
        if self.min_runs < 2:
            raise ValueError(f"min_runs={self.min_runs!r}; test-retest needs at least 2 runs")
        if self.min_benchmarks < 2:
            raise ValueError(f"min_benchmarks={self.min_benchmarks!r}; must be at least 2")
        if self.max_rank_shift < 0:
            raise ValueError(f"max_rank_shift={self.max_rank_shift!r}; must be >= 0")

    @property
    def thresholds(self) -> dict[Step, Threshold]:
        """The threshold of each interval step (1 to 4)."""
        return {
            Step.CHANCE_CORRECT: Threshold(">", self.min_kappa),
            Step.SWAP_POSITIONS: Threshold("<", self.max_position_bias),
            Step.REPLICATE: Threshold(">", self.min_test_retest),
            Step.CROSS_VALIDATE: Threshold("<=", self.max_rank_shift),
        }

    @property
    def paradox(self) -> str:
        """The paradox event in words."""
        return (
            f"test_retest > {self.paradox_test_retest:g} and "
            f"position_bias > {self.paradox_position_bias:g}"
        )


def mvvp_config_of(tree: xr.DataTree) -> MVVPConfig | None:
    """Return the MVVP config a report stored in a posterior's attrs (``mvvp_config``)."""
    text = tree.attrs.get("mvvp_config")
    if not text:
        return None
    names = {f.name for f in fields(MVVPConfig)}
    return MVVPConfig(**{k: v for k, v in json.loads(text).items() if k in names})


def interval_verdict(lo: float, hi: float, threshold: Threshold) -> StepVerdict:
    """Return the verdict of an interval against a threshold.

    Parameters
    ----------
    lo, hi : float
        The interval (NaN: not measured).
    threshold : Threshold
        Its good side.

    Returns
    -------
    StepVerdict
        PASS if both ends are on the good side, FAIL if neither is, INCONCLUSIVE if
        the interval straddles the threshold, NOT_MEASURED for a NaN interval.

    Examples
    --------
    >>> interval_verdict(0.02, 0.06, Threshold("<", 0.10)).value
    'PASS'
    >>> interval_verdict(0.08, 0.13, Threshold("<", 0.10)).value
    'INCONCLUSIVE'
    """
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return StepVerdict.NOT_MEASURED
    good = int(threshold.met(lo)) + int(threshold.met(hi))
    return (StepVerdict.FAIL, StepVerdict.INCONCLUSIVE, StepVerdict.PASS)[good]


def probability_verdict(p_bad: float, prob: float) -> StepVerdict:
    """Return the verdict of an event's posterior probability (the paradox).

    Parameters
    ----------
    p_bad : float
        Posterior probability of the bad event (NaN: not measured).
    prob : float
        Interval probability; ``tail = (1 - prob) / 2``.

    Returns
    -------
    StepVerdict
        PASS if ``p_bad <= tail``, FAIL if ``p_bad >= 1 - tail``, else INCONCLUSIVE.

    Examples
    --------
    >>> probability_verdict(0.99, 0.95).value
    'FAIL'
    """
    if not np.isfinite(p_bad):
        return StepVerdict.NOT_MEASURED
    tail = (1 - prob) / 2
    if p_bad <= tail:
        return StepVerdict.PASS
    if p_bad >= 1 - tail:
        return StepVerdict.FAIL
    return StepVerdict.INCONCLUSIVE


def _eti(draws: np.ndarray, prob: float) -> tuple[float, float, float]:
    """Median and equal-tailed interval of draws, non-finite ones dropped.

    Computed by ``summarize``'s own :func:`~judgestats.models.summary.sample_quantiles`.
    """
    x = np.asarray(draws, dtype=float).ravel()
    x = np.where(np.isfinite(x), x, np.nan)
    lo, med, hi = sample_quantiles(x, [(1 - prob) / 2, 0.5, (1 + prob) / 2])
    return float(med), float(lo), float(hi)


_INTERVAL_WORDS = {
    StepVerdict.PASS: "the {p} interval lies wholly on the good side ({t})",
    StepVerdict.FAIL: "the {p} interval lies wholly on the bad side (good: {t})",
    StepVerdict.INCONCLUSIVE: "the {p} interval straddles the threshold ({t})",
}


class _Posterior:
    """Lookups into the posterior summary and draws for one check."""

    def __init__(self, tree: xr.DataTree, config: MVVPConfig) -> None:
        from judgestats.models import summarize

        self.post = _with_paradox(tree["posterior"].to_dataset(), config)
        self._arrays: dict[str, tuple[np.ndarray, tuple[Any, ...]]] = {}
        self._positions: dict[Any, dict[str, int]] = {}
        self.config = config
        self.model = str(tree.attrs.get("model", ""))
        names = [n for n in summary_quantities() if n in self.post]
        thresholds = {
            "kappa": (">", config.min_kappa),
            "position_bias": ("<", config.max_position_bias),
            "test_retest": (">", config.min_test_retest),
            "invalid_rate": ("<", config.max_invalid_rate),
        }
        view = tree.copy()
        view["posterior"] = xr.DataTree(self.post)
        with warnings.catch_warnings():
            # Constant draws (a rank that never moves) make R-hat 0/0: NaN, not news.
            warnings.simplefilter("ignore", RuntimeWarning)
            self.summary = summarize(
                view,
                var_names=names,
                prob=config.prob,
                thresholds=thresholds,
                diagnostics=self.model != "exact",
            )
        n_samples = self.post.sizes.get("chain", 1) * self.post.sizes.get("draw", 1)
        self.min_ess = ess_floor(n_samples)
        self.summary.attrs["min_ess"] = self.min_ess
        self.rows: dict[tuple[str, str | None, str | None], dict[str, Any]] = {}
        for rec in self.summary.to_dict(orient="records"):
            where = _key(rec.get("benchmark")) or _key(rec.get("benchmark_pair"))
            self.rows[(str(rec["variable"]), _key(rec.get("judge")), where)] = {
                str(k): v for k, v in rec.items()
            }

    def row(self, name: str, judge: str | None, where: str | None) -> dict[str, Any] | None:
        return self.rows.get((name, judge, where))

    def estimate(
        self, name: str, judge: str, where: str | None, label_where: str = ""
    ) -> Estimate | None:
        rec = self.row(name, judge, where)
        if rec is None:
            return None
        return Estimate(
            name,
            label_where,
            float(rec["median"]),
            float(rec["lo"]),
            float(rec["hi"]),
            rec["threshold"],
            float(rec["p_threshold"]),
        )

    def draws(self, name: str, **sel: str | Sequence[str]) -> np.ndarray:
        """Draws of one quantity at labels ``sel``: ``post[name].sel(sel)``, sample dims first.

        Plain numpy indexing into arrays laid out once per quantity: the check reads
        hundreds of cells, and a labelled selection per cell cost more than the check.
        """
        if name not in self._arrays:
            da = self.post[name].transpose(*_SAMPLE, ...)
            self._arrays[name] = (da.values, da.dims)
        values, dims = self._arrays[name]
        index: list[Any] = []
        for dim in dims:
            if dim not in sel:
                index.append(slice(None))
                continue
            if dim not in self._positions:
                labels = [str(v) for v in self.post[dim].values]
                self._positions[dim] = {v: i for i, v in enumerate(labels)}
            where = sel[dim]
            pos = self._positions[dim]
            index.append(pos[where] if isinstance(where, str) else [pos[w] for w in where])
        return values[tuple(index)]

    def diagnostics(self, rec: dict[str, Any] | None) -> str:
        """Say which sampler diagnostic of a summary row failed (``""`` if none).

        The exact tier's draws are independent and exact: R-hat and ESS describe a
        sampler, and there is none to doubt.
        """
        if rec is None or self.model == "exact":
            return ""
        notes = []
        if np.isfinite(rec["r_hat"]) and rec["r_hat"] > MAX_RHAT:
            notes.append(f"R-hat {rec['r_hat']:.3f} > {MAX_RHAT}")
        ess = rec["ess_bulk"]
        if np.isfinite(ess) and ess < self.min_ess and np.isfinite(rec["r_hat"]):
            notes.append(f"bulk ESS {ess:.0f} < {self.min_ess:g}")
        return f"failed diagnostics ({', '.join(notes)})" if notes else ""


def _with_paradox(post: xr.Dataset, config: MVVPConfig) -> xr.Dataset:
    """Return the posterior with its paradox indicator under the check's thresholds."""
    if not {"test_retest", "position_bias", "paradox"} <= set(post.data_vars):
        return post
    tr, pb = post["test_retest"], post["position_bias"]
    event = (tr > config.paradox_test_retest) & (pb > config.paradox_position_bias)
    paradox = event.astype(float).where(tr.notnull() & pb.notnull())
    return post.assign(paradox=paradox.transpose(*post["paradox"].dims))


def _key(value: Any) -> str | None:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return None
    return str(value)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _withheld(verdict: StepVerdict, reason: str, holds: Sequence[str]) -> tuple[StepVerdict, str]:
    """Turn a PASS or FAIL into INCONCLUSIVE when the evidence or a diagnostic falls short."""
    holds = [h for h in holds if h]
    if not holds:
        return verdict, reason
    if verdict in (StepVerdict.PASS, StepVerdict.FAIL):
        return StepVerdict.INCONCLUSIVE, f"{'; '.join(holds)}: {verdict.value} withheld ({reason})"
    return verdict, f"{reason}; {'; '.join(holds)}"


class _Checker:
    """Builds the step results of one posterior and design."""

    def __init__(self, tree: xr.DataTree, design: Design, config: MVVPConfig) -> None:
        self.p = _Posterior(tree, config)
        self.design = design
        self.config = config
        self.prob_text = f"{config.prob:.0%}"
        n_items: xr.DataArray = tree["constant_data"].to_dataset()["n_items"]
        self.judges = [str(j) for j in n_items["judge"].values]
        self.benchmarks = [str(b) for b in n_items["benchmark"].values]
        self.n_items: np.ndarray = n_items.values

    # -- helpers -------------------------------------------------------------------
    def _short(self, n: int, what: str) -> str:
        """Return the evidence note when ``n`` is below ``min_items`` (``""`` otherwise)."""
        if n >= self.config.min_items:
            return ""
        return f"only {n} {what} (at least {self.config.min_items} are needed: min_items)"

    def _interval_result(
        self,
        step: Step,
        judge: str,
        bench: str | None,
        quantity: str,
        related: Sequence[Estimate | None] = (),
        not_measured: str = "",
        rec: dict[str, Any] | None = None,
        holds: Sequence[str] = (),
        note: str = "",
    ) -> StepResult:
        """Decide a step by the interval of ``quantity`` against the step's threshold.

        ``holds`` are reasons to withhold a PASS or FAIL (too little evidence); a failed
        diagnostic of ``quantity`` is one too. ``note`` is appended to the reason.
        """
        threshold = self.config.thresholds[step]
        rec = rec if rec is not None else self.p.row(quantity, judge, bench)
        est, lo, hi, p_met = (np.nan,) * 4
        if rec is not None:
            est, lo, hi, p_met = (float(rec[k]) for k in ("median", "lo", "hi", "p_threshold"))
        if not_measured:
            verdict, reason = StepVerdict.NOT_MEASURED, not_measured
        else:
            verdict = interval_verdict(lo, hi, threshold)
            if verdict is StepVerdict.NOT_MEASURED:
                reason = f"{quantity} is undefined for these data"
            else:
                reason = _INTERVAL_WORDS[verdict].format(p=self.prob_text, t=threshold)
                verdict, reason = _withheld(verdict, reason, [*holds, self.p.diagnostics(rec)])
        return StepResult(
            step=step,
            judge=judge,
            benchmark=bench,
            quantity=quantity,
            estimate=est,
            lo=lo,
            hi=hi,
            prob=self.config.prob,
            threshold=str(threshold),
            p_threshold_met=p_met,
            verdict=verdict,
            reason=reason + note,
            related=tuple(e for e in related if e is not None and np.isfinite(e.estimate)),
        )

    # -- the steps -----------------------------------------------------------------
    def chance_correct(self, judge: str, bench: str) -> StepResult:
        cell = self.design.cell(judge, bench)
        related = [self.p.estimate(n, judge, bench) for n in ("alpha", "exact_match", "deflation")]
        why, note = "", ""
        if cell["labelled"] == 0:
            why = f"no human or gold labels on {bench}: kappa needs labelled items"
        elif not np.isfinite(self._value("kappa", judge, bench)):
            why = (
                "kappa is undefined: chance agreement is 1, or every labelled item has the"
                " same label (kappa cannot tell agreement from chance)"
            )
        else:
            kappa = self.p.draws("kappa", judge=judge, benchmark=bench)
            p_chance = float(np.mean(kappa[np.isfinite(kappa)] > 0))
            note = f"; better than chance: P(kappa > 0) = {p_chance:.3f}"
        return self._interval_result(
            Step.CHANCE_CORRECT,
            judge,
            bench,
            "kappa",
            related,
            not_measured=why,
            holds=[self._short(cell["labelled"], "labelled items")],
            note=note,
        )

    def swap_positions(self, judge: str, bench: str) -> StepResult:
        cell = self.design.cell(judge, bench)
        orders = self.design.orders
        why = ""
        if not self.design.swapped:
            shown = ", ".join(orders)
            why = (
                f"the logs hold order(s) {shown} only: judge every item in both orders "
                "AB and BA to measure position bias"
                if "unknown" not in orders
                else "the logs do not record which response was shown first ('unknown' "
                "order): position bias needs swapped orders AB and BA"
            )
        elif cell["paired"] == 0:
            why = f"no item of {bench} was judged in both orders AB and BA"
        elif not np.isfinite(self._value("position_bias", judge, bench)):
            why = "no decisive verdict in runs judged in both orders"
        related = [self.p.estimate(n, judge, bench) for n in ("position_bias_signed", "flip_rate")]
        return self._interval_result(
            Step.SWAP_POSITIONS,
            judge,
            bench,
            "position_bias",
            related,
            not_measured=why,
            holds=[self._short(cell["paired_items"], "items judged in both orders")],
        )

    def replicate(self, judge: str, bench: str) -> StepResult:
        cfg = self.config
        runs = self.design.cell(judge, bench)["runs"]
        units = self.design.units_with_runs(judge, bench, cfg.min_runs)
        why = ""
        if units == 0:
            why = (
                f"at most {_plural(runs, 'run')} per item and order on {bench}: the protocol "
                f"needs at least {cfg.min_runs} independent runs for test-retest"
            )
        elif not np.isfinite(self._value("test_retest", judge, bench)):
            why = "test-retest is undefined: every run gave the same single verdict category"
        share = self.p.estimate("test_retest_share", judge, bench, label_where=f"{runs} runs")
        related = [share, self.p.estimate("self_consistency", judge, bench)]
        note = (
            ""
            if why
            else (
                f"; measured on {_plural(units, 'unit')} (item, order) with at least "
                f"{cfg.min_runs} runs"
            )
        )
        return self._interval_result(
            Step.REPLICATE,
            judge,
            bench,
            "test_retest",
            related,
            not_measured=why,
            holds=[self._short(units, f"(item, order) units with {cfg.min_runs}+ runs")],
            note=note,
        )

    def _pair_judges(self, pairs: Sequence[str]) -> int:
        """Return the most judges ranked on both benchmarks of any of ``pairs``."""
        post = self.p.post
        if "pair_judges" in post.coords:
            counts = post["pair_judges"].sel(benchmark_pair=list(pairs)).values
            return int(counts.max(initial=0))
        both = [
            int(((self.n_items[:, self.benchmarks.index(a)] > 0)
                 & (self.n_items[:, self.benchmarks.index(b)] > 0)).sum())
            for a, b in (p.split(" -> ") for p in pairs)
        ]  # fmt: skip
        return max(both, default=0)

    def cross_validate(self, judge: str, step1: Sequence[StepResult]) -> StepResult:
        cfg = self.config
        benches = [
            b
            for b in self.benchmarks
            if self.design.cell(judge, b)["labelled"] > 0
            and np.isfinite(self._value("rank", judge, b))
        ]
        kinds = set().union(*(self.design.kinds(b) for b in benches)) if benches else set()
        related: list[Estimate | None] = [
            self.p.estimate("rank", judge, b, label_where=b) for b in benches
        ]
        why = ""
        pairs = self._pairs(benches) if len(benches) >= 2 else []
        n_pair = self._pair_judges(pairs) if pairs else 0
        if len(benches) < cfg.min_benchmarks:
            listed = ", ".join(benches) or "none"
            why = (
                f"kappa (hence a rank) on {len(benches)} labelled benchmark(s) ({listed}): "
                f"the protocol needs at least {cfg.min_benchmarks}, spanning "
                "preference-style and correctness-style labels"
            )
        elif not {PREFERENCE, CORRECTNESS} <= kinds:
            missing = ({PREFERENCE, CORRECTNESS} - kinds).pop()
            why = (
                f"the judge's benchmarks ({', '.join(benches)}) all have "
                f"{' and '.join(sorted(kinds)) or 'no'} labels: add a benchmark with "
                f"{missing}-style labels"
            )
        elif n_pair - 1 <= cfg.max_rank_shift:
            why = (
                f"at most {n_pair} judges are ranked on both benchmarks of a pair: no rank "
                f"can shift by more than {max(n_pair - 1, 0)} positions, so a shift above "
                f"{cfg.max_rank_shift:g} cannot be seen (at least "
                f"{int(cfg.max_rank_shift) + 2} judges are needed)"
            )
        rec, note = None, ""
        failed: list[str] = []
        unsure: list[str] = []
        if not why:
            related += [self.p.estimate("rank_shift", judge, p, label_where=p) for p in pairs]
            shift = np.abs(self.p.draws("rank_shift", judge=judge, benchmark_pair=pairs))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN draws
                largest = np.nanmax(shift, axis=-1)
            med, lo, hi = _eti(largest, cfg.prob)
            threshold = cfg.thresholds[Step.CROSS_VALIDATE]
            rec = {
                "median": med,
                "lo": lo,
                "hi": hi,
                "p_threshold": float(np.mean(threshold.met(largest[np.isfinite(largest)]))),
                "r_hat": np.nan,
                "ess_bulk": np.nan,
            }
            own = {r.benchmark: r.verdict for r in step1 if r.benchmark in benches}
            failed = [b for b, v in own.items() if v is StepVerdict.FAIL]
            unsure = [b for b, v in own.items() if v not in (StepVerdict.PASS, StepVerdict.FAIL)]
            note = f"; ranks among the {n_pair} judges ranked on both benchmarks of a pair"
        result = self._interval_result(
            Step.CROSS_VALIDATE,
            judge,
            None,
            "max_abs_rank_shift",
            related,
            not_measured=why,
            rec=rec,
            note=note,
        )
        # A rank is relative: the judge's own kappa must clear the step-1 floor too.
        floor = f"the step-1 floor (kappa > {cfg.min_kappa:g})"
        if result.verdict is not StepVerdict.FAIL and failed:
            result = replace(
                result,
                verdict=StepVerdict.FAIL,
                reason=f"kappa is credibly below {floor} on {', '.join(failed)}: a stable "
                f"rank among judges who fail is no evidence; {result.reason}",
            )
        elif result.verdict is StepVerdict.PASS and unsure:
            result = replace(
                result,
                verdict=StepVerdict.INCONCLUSIVE,
                reason=f"kappa has not credibly cleared {floor} on {', '.join(unsure)}: "
                f"PASS withheld ({result.reason})",
            )
        return result

    def audit_paradox(
        self, judge: str, bench: str, swap: StepResult, rep: StepResult
    ) -> StepResult:
        cfg = self.config
        t_tr, t_pb = f"> {cfg.paradox_test_retest:g}", f"> {cfg.paradox_position_bias:g}"
        tr_rec = self.p.row("test_retest", judge, bench)
        pb_rec = self.p.row("position_bias", judge, bench)
        p_joint = p_tr = p_pb = np.nan
        measured = StepVerdict.NOT_MEASURED not in (swap.verdict, rep.verdict)
        if measured:
            tr = self.p.draws("test_retest", judge=judge, benchmark=bench)
            pb = self.p.draws("position_bias", judge=judge, benchmark=bench)
            ok = np.isfinite(tr) & np.isfinite(pb)
            high_tr = tr[ok] > cfg.paradox_test_retest
            high_pb = pb[ok] > cfg.paradox_position_bias
            p_tr, p_pb = float(high_tr.mean()), float(high_pb.mean())
            p_joint = float((high_tr & high_pb).mean())
        related = []
        for name, rec, text, p in (
            ("test_retest", tr_rec, t_tr, p_tr),
            ("position_bias", pb_rec, t_pb, p_pb),
        ):
            if rec is not None and measured:
                related.append(Estimate(name, "", rec["median"], rec["lo"], rec["hi"], text, p))
        tail = (1 - cfg.prob) / 2
        verdict = probability_verdict(p_joint, cfg.prob)
        if rep.verdict is StepVerdict.NOT_MEASURED:
            verdict = StepVerdict.NOT_MEASURED
            reason = f"step 3 (test-retest) is not measured on {bench}: {rep.reason}"
        elif swap.verdict is StepVerdict.NOT_MEASURED:
            verdict = StepVerdict.NOT_MEASURED
            reason = f"step 2 (position bias) is not measured on {bench}: {swap.reason}"
        elif verdict is StepVerdict.FAIL:
            reason = (
                f"the paradox is credible: P({cfg.paradox}) = {p_joint:.3f} >= {1 - tail:g}; "
                "the judge's stability hides a position bias, do not claim reliability"
            )
        elif verdict is StepVerdict.INCONCLUSIVE:
            reason = (
                f"P({cfg.paradox}) = {p_joint:.3f} lies between {tail:g} and {1 - tail:g}: "
                f"P(test_retest {t_tr}) = {p_tr:.2f}, P(position_bias {t_pb}) = {p_pb:.2f}"
            )
        elif p_tr <= tail:
            reason = (
                f"test-retest is credibly at most {cfg.paradox_test_retest:g} "
                f"(P(test_retest {t_tr}) = {p_tr:.3f}): the audit does not apply"
            )
        else:
            reason = (
                f"P(test_retest {t_tr}) = {p_tr:.2f}, but position bias is credibly at most "
                f"{cfg.paradox_position_bias:g} there: P(paradox) = {p_joint:.3f} <= {tail:g}"
            )
        if measured:
            cell = self.design.cell(judge, bench)
            units = self.design.units_with_runs(judge, bench, cfg.min_runs)
            verdict, reason = _withheld(
                verdict,
                reason,
                [
                    self._short(cell["paired_items"], "items judged in both orders"),
                    self._short(units, f"(item, order) units with {cfg.min_runs}+ runs"),
                    self.p.diagnostics(tr_rec),
                    self.p.diagnostics(pb_rec),
                ],
            )
        return StepResult(
            step=Step.AUDIT_PARADOX,
            judge=judge,
            benchmark=bench,
            quantity="paradox",
            estimate=p_joint,
            lo=np.nan,
            hi=np.nan,
            prob=cfg.prob,
            threshold=f"not ({cfg.paradox})",
            p_threshold_met=1 - p_joint,
            verdict=verdict,
            reason=reason,
            related=tuple(related),
        )

    # -- plumbing ------------------------------------------------------------------
    def _value(self, name: str, judge: str, bench: str) -> float:
        rec = self.p.row(name, judge, bench)
        return np.nan if rec is None else float(rec["median"])

    def _pairs(self, benches: Sequence[str]) -> list[str]:
        """Names of the posterior's benchmark pairs among ``benches``."""
        names = [str(x) for x in self.p.post["benchmark_pair"].values]
        pairs = list(combinations(self.benchmarks, 2))
        if len(pairs) != len(names):
            raise ValueError("posterior benchmark_pair does not match its benchmarks")
        return [n for n, (a, b) in zip(names, pairs, strict=True) if a in benches and b in benches]

    def run(self) -> list[StepResult]:
        out: list[StepResult] = []
        for j, judge in enumerate(self.judges):
            step1 = []
            for b, bench in enumerate(self.benchmarks):
                if self.n_items[j, b] == 0:
                    continue
                s1 = self.chance_correct(judge, bench)
                s2 = self.swap_positions(judge, bench)
                s3 = self.replicate(judge, bench)
                out += [s1, s2, s3, self.audit_paradox(judge, bench, s2, s3)]
                step1.append(s1)
            out.append(self.cross_validate(judge, step1))
        key = {s: i for i, s in enumerate(Step)}
        bench_order = {b: i for i, b in enumerate(self.benchmarks)}
        judge_order = {j: i for i, j in enumerate(self.judges)}
        return sorted(
            out,
            key=lambda r: (
                judge_order[r.judge],
                bench_order.get(r.benchmark, -1) if r.benchmark else len(bench_order),
                key[r.step],
            ),
        )


def check(
    tree: xr.DataTree,
    data: xr.Dataset | Design,
    config: MVVPConfig | None = None,
    **thresholds: Any,
) -> MVVPResult:
    """Check the five MVVP steps for every judge (and benchmark) of a posterior.

    Parameters
    ----------
    tree : xarray.DataTree
        A posterior made by a judgestats model (:meth:`JudgeModel.fit`), or loaded
        with :func:`judgestats.models.load_posterior`.
    data : xarray.Dataset or Design
        The Judgments dataset the posterior was fitted to (or its :class:`Design`):
        it says how many runs, which orders and which labels the data hold, which a
        posterior cannot tell.
    config : MVVPConfig, optional
        Thresholds and interval probability; default the config stored in the
        posterior's attrs by a report (``mvvp_config``), else :class:`MVVPConfig`'s.
    **thresholds
        Fields of :class:`MVVPConfig` overriding ``config`` (``prob=0.9``,
        ``min_kappa=0.4``, ...).

    Returns
    -------
    MVVPResult
        One :class:`StepResult` per step and judge (and benchmark for steps 1, 2, 3
        and 5); the rules are in the module docs.

    Examples
    --------
    >>> from judgestats.models import ExactModel
    >>> from judgestats.simulate import simulate, small_cohort
    >>> ds = simulate(small_cohort(), random_seed=0).dataset
    >>> tree = ExactModel().fit(ds, random_seed=0)
    >>> result = check(tree, ds, min_kappa=0.2)
    >>> result.get(2, "Qwen 3 8B", "MT-Bench").verdict.value
    'FAIL'
    """
    config = config or mvvp_config_of(tree) or MVVPConfig()
    if thresholds:
        config = replace(config, **thresholds)
    design = data if isinstance(data, Design) else Design.from_judgments(data)
    judges = [str(j) for j in tree["constant_data"].to_dataset()["judge"].values]
    missing = [j for j in judges if j not in design.judges]
    if missing:
        raise ValueError(
            f"judges {missing[:5]} of the posterior are not in the data passed to check(): "
            "pass the dataset the posterior was fitted to"
        )
    checker = _Checker(tree, design, config)
    return MVVPResult(
        results=tuple(checker.run()),
        config=config,
        design=design,
        summary=checker.p.summary,
        model=str(tree.attrs.get("model", "")),
        warnings=tuple(json.loads(tree.attrs.get("warnings", "[]"))),
        misfits=tuple(json.loads(tree.attrs.get("misfits", "[]"))),
        rank_by=str(tree["posterior"].attrs.get("rank_by", "kappa")),
    )
