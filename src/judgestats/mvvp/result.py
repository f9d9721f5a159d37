"""Typed results of the MVVP check: verdicts, steps, estimates, and their display.

:class:`MVVPResult` holds one :class:`StepResult` per step and judge (and benchmark,
for the per-benchmark steps). It has a plain-text table (``str``/``repr``), an
HTML table for Jupyter (``_repr_html_``), both rendered by pandas from
:meth:`MVVPResult.grid` (``judgestats.report.verdicts``), and a tidy DataFrame
(:meth:`to_frame`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from judgestats.metrics.formulas import DIRECTION, REGISTRY
from judgestats.metrics.result import json_scalar

if TYPE_CHECKING:
    from judgestats.mvvp.check import MVVPConfig
    from judgestats.mvvp.design import Design

__all__ = [
    "QUANTITY_LABELS",
    "Estimate",
    "MVVPResult",
    "Step",
    "StepResult",
    "StepVerdict",
    "Threshold",
    "format_estimate",
]


class StepVerdict(StrEnum):
    """The verdict of one MVVP step.

    ``PASS``: the interval lies wholly on the good side of the threshold; ``FAIL``:
    wholly on the bad side; ``INCONCLUSIVE``: it straddles the threshold;
    ``NOT_MEASURED``: the data cannot support the step (the reason says why).
    """

    PASS = "PASS"
    FAIL = "FAIL"
    INCONCLUSIVE = "INCONCLUSIVE"
    NOT_MEASURED = "NOT MEASURED"

    def __str__(self) -> str:
        return self.value

    @property
    def severity(self) -> int:
        """0 PASS < 1 NOT MEASURED < 2 INCONCLUSIVE < 3 FAIL (used by CI gates)."""
        return _SEVERITY[self]

    @classmethod
    def parse(cls, value: str | StepVerdict) -> StepVerdict:
        """Return the member for a value or name (``"not-measured"`` also works).

        Parameters
        ----------
        value : str or StepVerdict

        Returns
        -------
        StepVerdict
        """
        if isinstance(value, StepVerdict):
            return value
        key = str(value).strip().upper().replace("-", " ").replace("_", " ")
        for member in cls:
            if member.value == key:
                return member
        raise ValueError(f"unknown verdict {value!r}; expected one of {[m.value for m in cls]}")


_SEVERITY = {
    StepVerdict.PASS: 0,
    StepVerdict.NOT_MEASURED: 1,
    StepVerdict.INCONCLUSIVE: 2,
    StepVerdict.FAIL: 3,
}


class Step(IntEnum):
    """The five steps of the Minimum Viable Validation Protocol (seed 002, §5.3)."""

    CHANCE_CORRECT = 1
    SWAP_POSITIONS = 2
    REPLICATE = 3
    CROSS_VALIDATE = 4
    AUDIT_PARADOX = 5

    @property
    def title(self) -> str:
        """Short name of the step, as the protocol words it."""
        return _TITLES[self]

    @property
    def per_benchmark(self) -> bool:
        """Whether the step is checked per benchmark (all but cross-validation)."""
        return self is not Step.CROSS_VALIDATE


_TITLES = {
    Step.CHANCE_CORRECT: "chance-correct",
    Step.SWAP_POSITIONS: "swap positions",
    Step.REPLICATE: "replicate",
    Step.CROSS_VALIDATE: "cross-validate",
    Step.AUDIT_PARADOX: "audit the paradox",
}


class _Labels(Mapping[str, str]):
    """Display names: every registered metric's label, then the derived quantities'."""

    def __init__(self, derived: dict[str, str]) -> None:
        self._metrics = REGISTRY.field("label")
        self._derived = derived

    def __getitem__(self, name: str) -> str:
        return self._metrics[name] if name in self._metrics else self._derived[name]

    def __iter__(self) -> Iterator[str]:
        yield from self._metrics
        yield from self._derived

    def __len__(self) -> int:
        return len(self._metrics) + len(self._derived)


#: Display names of the quantities (live: metric labels come from the registry).
QUANTITY_LABELS: Mapping[str, str] = _Labels(
    {
        "rank": "rank",
        "rank_shift": "rank shift",
        "max_abs_rank_shift": "largest |rank shift|",
        "paradox": "P(paradox)",
        "top_k_all": "P(top-k everywhere)",
    }
)

#: Quantities that are whole numbers per draw (formatted without decimals).
INTEGER_QUANTITIES = frozenset({"rank", "rank_shift", "max_abs_rank_shift"})
#: Quantities that are 0/1 per draw: their value is a probability, without interval.
PROBABILITY_QUANTITIES = frozenset({"paradox", "top_k_all"})

_OPS = {
    "<": np.less,
    "<=": np.less_equal,
    ">": np.greater,
    ">=": np.greater_equal,
}


@dataclass(frozen=True)
class Threshold:
    """The good side of a step's quantity: ``quantity <op> value``.

    Attributes
    ----------
    op : {"<", "<=", ">", ">="}
    value : float
    """

    op: str
    value: float

    def __post_init__(self) -> None:
        if self.op not in _OPS:
            raise ValueError(f"threshold op {self.op!r}; use one of {sorted(_OPS)}")
        if not math.isfinite(self.value):
            raise ValueError(f"threshold value {self.value!r} must be finite")

    def met(self, x: Any) -> np.ndarray:
        """Return whether ``x`` is on the good side (elementwise; NaN gives False)."""
        with np.errstate(invalid="ignore"):
            return _OPS[self.op](np.asarray(x, dtype=float), self.value)

    def __str__(self) -> str:
        return f"{self.op} {self.value:g}"


def _is_nan(x: float) -> bool:
    return x is None or not math.isfinite(x)


def _num(x: float, quantity: str, digits: int) -> str:
    if quantity in INTEGER_QUANTITIES:
        x = round(float(x), 1)  # quantiles of whole numbers: 2.9999... is 3
        text = f"{x:.0f}" if x.is_integer() else f"{x:.1f}"
    else:
        text = f"{x:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text  # no "-0.00"


def format_estimate(quantity: str, value: float, lo: float, hi: float, digits: int = 2) -> str:
    """Format a value and its interval as papers quote them: ``0.51 [0.47, 0.55]``.

    Parameters
    ----------
    quantity : str
        Name of the quantity; ranks and rank shifts are whole numbers (``5 [3, 8]``).
    value, lo, hi : float
        The estimate and its interval (NaN bounds give the value alone).
    digits : int, default 2
        Decimals of continuous quantities.

    Returns
    -------
    str
        ``"n/a"`` when the value is undefined.

    Examples
    --------
    >>> format_estimate("kappa", 0.512, 0.468, 0.553)
    '0.51 [0.47, 0.55]'
    >>> format_estimate("rank", 5.0, 3.0, 8.0)
    '5 [3, 8]'
    """
    if _is_nan(value):
        return "n/a"
    text = _num(value, quantity, digits)
    if _is_nan(lo) or _is_nan(hi):
        return text
    return f"{text} [{_num(lo, quantity, digits)}, {_num(hi, quantity, digits)}]"


@dataclass(frozen=True)
class Estimate:
    """A quantity reported beside a step's decision (kappa's alpha, a rank shift, ...).

    Attributes
    ----------
    quantity : str
        Posterior variable (or derived quantity) name.
    where : str
        The benchmark or benchmark pair it refers to, when not the step's own.
    estimate : float
        Posterior median (a probability for 0/1 quantities).
    lo, hi : float
        Equal-tailed interval (NaN where none applies).
    threshold : str
        The threshold ``P(...)`` refers to (``""`` if none).
    p_threshold : float
        Posterior probability that the quantity is on the threshold's side.
    """

    quantity: str
    where: str
    estimate: float
    lo: float
    hi: float
    threshold: str = ""
    p_threshold: float = math.nan

    def __str__(self) -> str:
        label = QUANTITY_LABELS.get(self.quantity, self.quantity)
        where = f" ({self.where})" if self.where else ""
        text = f"{label}{where} {format_estimate(self.quantity, self.estimate, self.lo, self.hi)}"
        if self.threshold and not _is_nan(self.p_threshold):
            text += f", P({self.threshold}) = {self.p_threshold:.2f}"
        return text


@dataclass(frozen=True, kw_only=True)
class StepResult:
    """The verdict of one MVVP step for one judge (and benchmark).

    Attributes
    ----------
    step : Step
    judge : str
    benchmark : str or None
        ``None`` for the per-judge step (cross-validation).
    quantity : str
        The quantity the verdict is about (``kappa``, ``position_bias``,
        ``test_retest``, ``max_abs_rank_shift``, ``paradox``).
    estimate : float
        Posterior median (for ``paradox``: the probability of the paradox).
    lo, hi : float
        Equal-tailed interval of probability ``prob`` (NaN for a probability).
    prob : float
        Interval probability.
    threshold : str
        The good side, e.g. ``"< 0.1"``.
    p_threshold_met : float
        Posterior probability that the threshold is met.
    verdict : StepVerdict
    reason : str
        Why, in words.
    related : tuple of Estimate
        Quantities reported beside it (alpha, exact match and deflation beside
        kappa; ranks and rank shifts beside the largest shift; ...).
    """

    step: Step
    judge: str
    benchmark: str | None
    quantity: str
    estimate: float
    lo: float
    hi: float
    prob: float
    threshold: str
    p_threshold_met: float
    verdict: StepVerdict
    reason: str
    related: tuple[Estimate, ...] = ()

    @property
    def formatted(self) -> str:
        """The estimate and interval, formatted (``0.51 [0.47, 0.55]``)."""
        if self.quantity in PROBABILITY_QUANTITIES and not _is_nan(self.estimate):
            return f"{self.estimate:.2f}"
        return format_estimate(self.quantity, self.estimate, self.lo, self.hi)

    def describe(self) -> str:
        """Return one line: where, the verdict, the estimate and the reason."""
        where = self.judge if self.benchmark is None else f"{self.judge} / {self.benchmark}"
        label = QUANTITY_LABELS.get(self.quantity, self.quantity)
        return (
            f"{self.verdict.value:<12}  step {int(self.step)} ({self.step.title}), {where}: "
            f"{label} {self.formatted}; {self.reason}"
        )

    def to_dict(self) -> dict[str, Any]:
        """Return the fields as a flat dict (``related`` as formatted text)."""
        return {
            "step": int(self.step),
            "step_name": self.step.title,
            "judge": self.judge,
            "benchmark": self.benchmark,
            "quantity": self.quantity,
            "estimate": self.estimate,
            "lo": self.lo,
            "hi": self.hi,
            "prob": self.prob,
            "threshold": self.threshold,
            "p_threshold_met": self.p_threshold_met,
            "verdict": self.verdict.value,
            "reason": self.reason,
            "related": "; ".join(str(e) for e in self.related),
        }


@dataclass(frozen=True)
class MVVPResult:
    """Verdicts of the five MVVP steps for every judge (and benchmark).

    Attributes
    ----------
    results : tuple of StepResult
        Grouped by judge; within a judge, by benchmark and step.
    config : MVVPConfig
        Thresholds and interval probability used.
    design : Design
        What the data could support.
    summary : pandas.DataFrame
        The posterior summary (:func:`judgestats.models.summarize`) the verdicts
        were read from.
    model : str
        Name of the model that made the posterior.
    warnings : tuple of str
        Failed sampler diagnostics of the posterior: a report shows them.
    misfits : tuple of str
        Flagged posterior predictive checks (:mod:`judgestats.models.ppc`).
    """

    results: tuple[StepResult, ...]
    config: MVVPConfig
    design: Design = field(repr=False, compare=False)
    summary: pd.DataFrame = field(repr=False, compare=False)
    model: str = ""
    warnings: tuple[str, ...] = ()
    rank_by: str = "kappa"
    misfits: tuple[str, ...] = ()

    @property
    def rank_words(self) -> str:
        """Say what rank 1 means ("1 = highest kappa")."""
        best = "highest" if DIRECTION.get(self.rank_by, "higher") == "higher" else "lowest"
        return f"1 = {best} {QUANTITY_LABELS.get(self.rank_by, self.rank_by)}"

    # -- access ------------------------------------------------------------------
    @property
    def judges(self) -> list[str]:
        """Judges with at least one result, in order."""
        return list(dict.fromkeys(r.judge for r in self.results))

    @property
    def benchmarks(self) -> list[str]:
        """Benchmarks with at least one result, in order."""
        return list(dict.fromkeys(r.benchmark for r in self.results if r.benchmark is not None))

    def select(
        self,
        step: Step | int | None = None,
        judge: str | None = None,
        benchmark: str | None = None,
        verdict: StepVerdict | str | None = None,
    ) -> list[StepResult]:
        """Return the results matching every given criterion.

        Parameters
        ----------
        step : Step or int, optional
        judge, benchmark : str, optional
        verdict : StepVerdict or str, optional

        Returns
        -------
        list of StepResult
        """
        v = None if verdict is None else StepVerdict.parse(verdict)
        return [
            r
            for r in self.results
            if (step is None or r.step == step)
            and (judge is None or r.judge == judge)
            and (benchmark is None or r.benchmark == benchmark)
            and (v is None or r.verdict is v)
        ]

    def get(self, step: Step | int, judge: str, benchmark: str | None = None) -> StepResult:
        """Return the result of one step, judge and benchmark.

        Raises
        ------
        KeyError
            If there is none (the judge did not judge the benchmark).
        """
        step = Step(step)
        bench = benchmark if step.per_benchmark else None
        try:
            return self._index[(step, judge, bench)]
        except KeyError:
            raise KeyError(
                f"no result for step {int(step)}, judge {judge!r}, benchmark {bench!r}"
            ) from None

    @cached_property
    def _index(self) -> dict[tuple[Step, str, str | None], StepResult]:
        return {(r.step, r.judge, r.benchmark): r for r in self.results}

    def counts(self) -> dict[StepVerdict, int]:
        """Return how many results have each verdict."""
        return {v: sum(r.verdict is v for r in self.results) for v in StepVerdict}

    def worst(self, judge: str | None = None) -> StepVerdict:
        """Return the most severe verdict (of one judge, or of all).

        Severity: FAIL > INCONCLUSIVE > NOT MEASURED > PASS.
        """
        rows = self.select(judge=judge)
        if not rows:
            return StepVerdict.NOT_MEASURED
        return max((r.verdict for r in rows), key=lambda v: v.severity)

    # -- tables ------------------------------------------------------------------
    def to_frame(self) -> pd.DataFrame:
        """Return one row per step result.

        Returns
        -------
        pandas.DataFrame
            Columns ``step``, ``step_name``, ``judge``, ``benchmark``, ``quantity``,
            ``estimate``, ``lo``, ``hi``, ``prob``, ``threshold``,
            ``p_threshold_met``, ``verdict``, ``reason``, ``related``.
        """
        return pd.DataFrame([r.to_dict() for r in self.results], columns=_FRAME_COLUMNS)

    def to_records(self) -> list[dict[str, Any]]:
        """Return :meth:`to_frame` as JSON-ready dicts (NaN as ``None``)."""
        return [{k: json_scalar(v) for k, v in r.to_dict().items()} for r in self.results]

    def table(self) -> pd.DataFrame:
        """Return the verdicts as a judge × benchmark by step table of strings."""
        grid = self.grid(once_per_judge=False)
        grid = grid[grid.index.get_level_values("benchmark") != ""]  # the rows() only
        out = grid.map(lambda r: "" if r is None else r.verdict.value)
        out.columns = pd.Index([f"{int(step)} {step.title}" for step in Step])
        return out.reset_index()

    def grid(self, once_per_judge: bool = True) -> pd.DataFrame:
        """Return the results as a judge × benchmark by step frame, what the tables show.

        Parameters
        ----------
        once_per_judge : bool, default True
            Put a per-judge step's result (cross-validation) in the first row of its
            judge only, as a table spanning the judge's rows shows it; False: in every
            row of the judge.

        Returns
        -------
        pandas.DataFrame
            Index: ``(judge, benchmark)`` in result order (:meth:`rows`), then a row
            with benchmark ``""`` for each judge whose only results are per judge.
            Columns: the :class:`Step` members. Cells: the :class:`StepResult`, or
            ``None`` where there is none.
        """
        rows = self.rows()
        with_rows = {judge for judge, _ in rows}
        keys = rows + [(judge, "") for judge in self.judges if judge not in with_rows]
        first = {judge: (judge, bench) for judge, bench in reversed(keys)}
        cells = {
            step: [
                self.find(step, judge, bench)
                if step.per_benchmark or not once_per_judge or first[judge] == (judge, bench)
                else None
                for judge, bench in keys
            ]
            for step in Step
        }
        index = pd.MultiIndex.from_arrays(
            [[judge for judge, _ in keys], [bench for _, bench in keys]],
            names=["judge", "benchmark"],
        )
        columns = pd.Index(list(Step), dtype=object)  # Step members, not their ints
        return pd.DataFrame(cells, index=index, columns=columns, dtype=object)

    def rows(self) -> list[tuple[str, str]]:
        """Return the (judge, benchmark) pairs with results, in result order."""
        return list(
            dict.fromkeys((r.judge, r.benchmark) for r in self.results if r.benchmark is not None)
        )

    def find(self, step: Step, judge: str, bench: str | None) -> StepResult | None:
        """Return :meth:`get`'s result, or ``None`` where there is none."""
        try:
            return self.get(step, judge, bench)
        except KeyError:
            return None

    # -- display (rendered by judgestats.report.verdicts) -------------------------
    def format(self, details: bool = True, max_warnings: int | None = None) -> str:
        """Return the plain-text verdict table (``judgestats.report.verdicts.verdict_text``)."""
        from judgestats.report.verdicts import verdict_text

        return verdict_text(self, details=details, max_warnings=max_warnings)

    def __str__(self) -> str:
        return self.format(details=False)

    def __repr__(self) -> str:
        return (
            f"<MVVPResult: {len(self.judges)} judges, {len(self.benchmarks)} benchmarks>\n"
            + self.format(details=False)
        )

    def to_html(self) -> str:
        """Return the verdict table as an HTML fragment (with its own CSS).

        Each cell holds the verdict and the estimate; hovering shows the reason.
        """
        from judgestats.report.verdicts import verdict_html

        return verdict_html(self)

    def _repr_html_(self) -> str:
        return self.to_html()


_FRAME_COLUMNS = [
    "step",
    "step_name",
    "judge",
    "benchmark",
    "quantity",
    "estimate",
    "lo",
    "hi",
    "prob",
    "threshold",
    "p_threshold_met",
    "verdict",
    "reason",
    "related",
]
