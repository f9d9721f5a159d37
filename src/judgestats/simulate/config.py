"""Specifications of a simulated cohort: judges, benchmarks and their parameters.

Three frozen dataclasses describe what :func:`judgestats.simulate.simulate` draws:

* :class:`JudgeParams`: how one judge behaves on one benchmark (agreement with the
  label, ties, position preference, run-to-run stability, length preference,
  invalid outputs). The generative model that uses them is in
  :mod:`judgestats.simulate.model`.
* :class:`BenchmarkSpec`: a benchmark's size, label structure, presentation orders,
  runs, categories, response lengths and item effects (a difficulty shared by every
  judge and human rater of an item, and label noise).
* :class:`CohortConfig`: judges × benchmarks and the parameters of every pair that
  was run; a pair without parameters was not run (its verdicts are missing).

Every check raises :class:`ValueError` naming the bad value.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

__all__ = [
    "LABEL_STRUCTURES",
    "BenchmarkSpec",
    "CohortConfig",
    "JudgeParams",
]

#: Label structures a benchmark can have.
LABEL_STRUCTURES: tuple[str, ...] = ("preference", "correctness", "chosen_rejected")

_DEFAULT_LABEL_PROBS: dict[str, tuple[float, float, float]] = {
    "preference": (1 / 3, 1 / 3, 1 / 3),
    "correctness": (0.5, 0.5, 0.0),
    "chosen_rejected": (0.5, 0.5, 0.0),
}
_DEFAULT_LABEL_KIND = {
    "preference": "preference",
    "correctness": "correctness",
    "chosen_rejected": "preference",
}


def _check_unit(name: str, value: float, low: float = 0.0) -> None:
    if not (isinstance(value, (int, float)) and math.isfinite(value) and low <= value <= 1):
        raise ValueError(f"{name}={value!r}; expected a number in [{low:g}, 1]")


@dataclass(frozen=True)
class JudgeParams:
    """How one judge behaves on one benchmark.

    Parameters
    ----------
    agreement : float, default 0.8
        P(intended verdict = the label | A/B label, intended verdict not a tie).
    agreement_b : float, optional
        The same for items labelled B, when it differs from items labelled A (a
        judge that recognises the usual winner more readily than an upset, on a
        benchmark where response A is usually the better one). Default: equal to
        ``agreement``.
    tie_rate : float, default 0.05
        P(intended verdict = tie | the label is A or B).
    tie_recall : float, optional
        P(intended verdict = tie | the label is tie); an intended verdict on a tie
        label that is not a tie is A or B with equal probability. Default: equal
        to ``tie_rate`` (ties carry no information about tie labels).
    position : float, default 0.0
        Preference for a presentation slot, in [-1, 1]: in each presented order
        the judge picks the first slot with probability ``position`` (if positive)
        or the second slot with probability ``-position`` (if negative), and
        otherwise follows its intended verdict. Position bias grows with
        ``|position|``; 1 is the always-first judge.
    stability : float, default 1.0
        P(a run reproduces the item's order-level decision); otherwise the run
        re-decides from scratch (a fresh draw of the same distribution), so
        stability changes test-retest and flips but not the verdict marginals.
    length_preference : float, default 0.0
        P(the intended verdict is replaced by the longer response), the source
        of verbosity bias.
    invalid_rate : float, default 0.0
        P(a judgment's output is unparseable), independently per judgment.
    runs : int, optional
        Replicate runs of every (item, order) by this judge, when it differs from
        the benchmark's ``runs`` (judges run a different number of times).

    Examples
    --------
    >>> JudgeParams(agreement=0.9, position=0.2).tie_recall
    0.05
    """

    agreement: float = 0.8
    agreement_b: float | None = None
    tie_rate: float = 0.05
    tie_recall: float | None = None
    position: float = 0.0
    stability: float = 1.0
    length_preference: float = 0.0
    invalid_rate: float = 0.0
    runs: int | None = None

    def __post_init__(self) -> None:
        if self.runs is not None and (
            isinstance(self.runs, bool) or not isinstance(self.runs, int) or self.runs < 1
        ):
            raise ValueError(f"runs={self.runs!r}; expected a positive integer or None")
        if self.tie_recall is None:
            object.__setattr__(self, "tie_recall", self.tie_rate)
        if self.agreement_b is None:
            object.__setattr__(self, "agreement_b", self.agreement)
        for f in dataclasses.fields(self):
            if f.name != "runs":
                _check_unit(f.name, getattr(self, f.name), -1.0 if f.name == "position" else 0.0)
        if self.invalid_rate >= 1:
            raise ValueError(f"invalid_rate={self.invalid_rate!r}; expected a number in [0, 1)")

    def replace(self, **changes: Any) -> JudgeParams:
        """Return a copy with some parameters changed.

        ``tie_recall`` and ``agreement_b``, where equal to ``tie_rate`` and
        ``agreement``, keep following them unless changed too.

        Parameters
        ----------
        **changes : float
            New parameter values.

        Returns
        -------
        JudgeParams
        """
        # A parameter that follows another (equal to it) keeps following it.
        for lead, follower in (("tie_rate", "tie_recall"), ("agreement", "agreement_b")):
            following = getattr(self, follower) == getattr(self, lead)
            if lead in changes and follower not in changes and following:
                changes[follower] = None
        return dataclasses.replace(self, **changes)

    def as_dict(self) -> dict[str, float]:
        """Return the parameters as a plain dict (``runs`` NaN where not set)."""
        return {
            f.name: float("nan") if getattr(self, f.name) is None else float(getattr(self, f.name))
            for f in dataclasses.fields(self)
        }

    def runs_on(self, spec: BenchmarkSpec) -> int:
        """Return the runs this judge makes on ``spec``."""
        return spec.runs if self.runs is None else self.runs


@dataclass(frozen=True)
class BenchmarkSpec:
    """A simulated benchmark.

    Parameters
    ----------
    name : str
        Benchmark name (the ``benchmark`` coordinate; item ids are ``name/key``).
    n_items : int
        Number of items.
    label_structure : {"preference", "correctness", "chosen_rejected"}
        ``"preference"``: A/B/tie human preferences (like MT-Bench);
        ``"correctness"``: binary A/B gold (like JudgeBench);
        ``"chosen_rejected"``: binary, each item presented in *one* order chosen at
        random (like RewardBench).
    label_probs : tuple of 3 float, optional
        P(label = A, B, tie). Default: uniform A/B/tie for preference, A/B 50/50
        otherwise.
    orders : tuple of str, default ("AB", "BA")
        Presentation orders used ("AB" original, "BA" swapped).
    random_order : bool, optional
        Present each item in one of ``orders`` chosen uniformly at random instead
        of in all of them. Default: True for chosen/rejected benchmarks.
    runs : int, default 3
        Replicate runs of every (item, order).
    label_kind : {"preference", "correctness"}, optional
        The ``label_kind`` coordinate; default from ``label_structure``.
    categories : tuple of str, default ()
        Item categories, assigned uniformly at random (none: empty category).
    models : tuple of str, default ()
        Models whose responses are compared; each item gets two distinct ones at
        random (none: empty names).
    length_range : tuple of 2 int, default (200, 2000)
        Range of the shorter response's length (uniform integers).
    length_spread : int, default 600
        The length difference ``length_a - length_b`` is uniform on the integers
        ``-length_spread .. length_spread``, independently of everything else.
    difficulty_sd : float, default 0.0
        Spread of the items' shared difficulty: each item has a difficulty
        ``z ~ Normal(0, 1)``, and for every judge and every human rater of the item
        the log-odds of agreeing with the true label move by ``-difficulty_sd * z``
        (see :mod:`judgestats.simulate.model`). 0: items are alike.
    label_noise : float, default 0.0
        P(a human rater's label is a fresh draw from ``label_probs`` instead of the
        true label) on an item of average difficulty; its log-odds move by
        ``+difficulty_sd * z``, so hard items have noisier labels.
    raters : int, default 1
        Human raters per item; the item's label is their plurality
        (:func:`judgestats.tally.consensus_label`).

    Examples
    --------
    >>> spec = BenchmarkSpec("JudgeBench", 350, "correctness")
    >>> spec.label_probs, spec.label_kind, spec.random_order
    ((0.5, 0.5, 0.0), 'correctness', False)
    """

    name: str
    n_items: int
    label_structure: Literal["preference", "correctness", "chosen_rejected"] = "preference"
    label_probs: tuple[float, float, float] | None = None
    orders: tuple[str, ...] = ("AB", "BA")
    random_order: bool | None = None
    runs: int = 3
    label_kind: str | None = None
    categories: tuple[str, ...] = ()
    models: tuple[str, ...] = ()
    length_range: tuple[int, int] = (200, 2000)
    length_spread: int = 600
    difficulty_sd: float = 0.0
    label_noise: float = 0.0
    raters: int = 1

    def __post_init__(self) -> None:
        sd = self.difficulty_sd
        if not (isinstance(sd, (int, float)) and math.isfinite(sd) and sd >= 0):
            raise ValueError(f"difficulty_sd={sd!r}; expected a non-negative number")
        _check_unit("label_noise", self.label_noise)
        if self.label_noise >= 1:
            raise ValueError(f"label_noise={self.label_noise!r}; expected a number in [0, 1)")
        if isinstance(self.raters, bool) or not isinstance(self.raters, int) or self.raters < 1:
            raise ValueError(f"raters={self.raters!r}; expected a positive integer")
        if not isinstance(self.name, str) or not self.name or "/" in self.name:
            raise ValueError(f"name={self.name!r}; expected a non-empty string without '/'")
        if self.label_structure not in LABEL_STRUCTURES:
            raise ValueError(
                f"label_structure={self.label_structure!r}; expected one of {LABEL_STRUCTURES}"
            )
        if not isinstance(self.n_items, int) or self.n_items < 1:
            raise ValueError(f"n_items={self.n_items!r}; expected a positive integer")
        if not isinstance(self.runs, int) or self.runs < 1:
            raise ValueError(f"runs={self.runs!r}; expected a positive integer")
        given = self.label_probs or _DEFAULT_LABEL_PROBS[self.label_structure]
        probs = tuple(float(p) for p in given)
        if len(probs) != 3 or min(probs) < 0 or not math.isclose(sum(probs), 1.0):
            raise ValueError(
                f"label_probs={self.label_probs!r}; expected three non-negative numbers"
                " (A, B, tie) summing to 1"
            )
        object.__setattr__(self, "label_probs", probs)
        orders = tuple(self.orders)
        if not orders or len(set(orders)) != len(orders) or not set(orders) <= {"AB", "BA"}:
            raise ValueError(f"orders={self.orders!r}; expected distinct values among 'AB', 'BA'")
        object.__setattr__(self, "orders", orders)
        if self.random_order is None:
            object.__setattr__(self, "random_order", self.label_structure == "chosen_rejected")
        kind = self.label_kind or _DEFAULT_LABEL_KIND[self.label_structure]
        if kind not in ("preference", "correctness"):
            raise ValueError(f"label_kind={self.label_kind!r}; expected preference or correctness")
        object.__setattr__(self, "label_kind", kind)
        object.__setattr__(self, "categories", tuple(self.categories))
        object.__setattr__(self, "models", tuple(self.models))
        if len(self.models) == 1:
            raise ValueError(f"models={self.models!r}; give none or at least two")
        lo, hi = self.length_range
        if not (0 < lo <= hi) or self.length_spread < 0:
            raise ValueError(
                f"length_range={self.length_range!r}, length_spread={self.length_spread!r};"
                " expected 0 < low <= high and a non-negative spread"
            )

    @property
    def presentations(self) -> tuple[tuple[tuple[str, ...], float], ...]:
        """The sets of orders an item can be presented in, with their probabilities."""
        if self.random_order:
            return tuple(((o,), 1 / len(self.orders)) for o in self.orders)
        return ((self.orders, 1.0),)

    @property
    def has_item_effects(self) -> bool:
        """True when items differ in difficulty or labels are noisy."""
        return self.difficulty_sd > 0 or self.label_noise > 0

    @property
    def judgments_per_item(self) -> int:
        """Judgments one judge makes on one item."""
        return len(self.presentations[0][0]) * self.runs

    def replace(self, **changes: Any) -> BenchmarkSpec:
        """Return a copy with some fields changed.

        Fields derived from ``label_structure`` when the spec was made
        (``label_probs``, ``random_order``, ``label_kind``) keep their values;
        pass them too when changing the label structure.

        Parameters
        ----------
        **changes
            New field values.

        Returns
        -------
        BenchmarkSpec
        """
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True)
class CohortConfig:
    """Judges × benchmarks and the parameters of every pair that was run.

    Parameters
    ----------
    judges : tuple of str
        Judge names, in the order of the ``judge`` dimension.
    benchmarks : tuple of BenchmarkSpec
        Benchmarks, in the order their items appear.
    params : mapping of (judge, benchmark name) to JudgeParams
        A pair that is absent was not run: its verdicts are missing and its true
        metrics NaN.

    Examples
    --------
    >>> bench = BenchmarkSpec("toy", 10)
    >>> cfg = CohortConfig.from_judges({"j1": JudgeParams(), "j2": JudgeParams()}, [bench])
    >>> cfg.n_judgments
    120
    """

    judges: tuple[str, ...]
    benchmarks: tuple[BenchmarkSpec, ...]
    params: Mapping[tuple[str, str], JudgeParams] = field(default_factory=dict)

    def __post_init__(self) -> None:
        judges = tuple(self.judges)
        benchmarks = tuple(self.benchmarks)
        object.__setattr__(self, "judges", judges)
        object.__setattr__(self, "benchmarks", benchmarks)
        if not judges or len(set(judges)) != len(judges) or not all(judges):
            raise ValueError(f"judges={judges!r}; expected distinct non-empty names")
        names = [b.name for b in benchmarks]
        if not names or len(set(names)) != len(names):
            raise ValueError(f"benchmarks named {names!r}; expected distinct names")
        params = dict(self.params)
        for key, value in params.items():
            if not (isinstance(key, tuple) and len(key) == 2):
                raise ValueError(f"params key {key!r}; expected (judge, benchmark)")
            if key[0] not in judges or key[1] not in names:
                raise ValueError(
                    f"params key {key!r} names an unknown judge or benchmark;"
                    f" judges {list(judges)}, benchmarks {names}"
                )
            if not isinstance(value, JudgeParams):
                raise ValueError(f"params[{key!r}] = {value!r} is not a JudgeParams")
        object.__setattr__(self, "params", MappingProxyType(params))

    @classmethod
    def from_judges(
        cls,
        judges: Mapping[str, JudgeParams | Mapping[str, JudgeParams]],
        benchmarks: Iterable[BenchmarkSpec],
    ) -> CohortConfig:
        """Build a cohort from per-judge parameters.

        Parameters
        ----------
        judges : mapping
            ``{judge: JudgeParams}`` (same parameters on every benchmark) or
            ``{judge: {benchmark: JudgeParams}}`` (benchmarks left out were not
            run by that judge).
        benchmarks : iterable of BenchmarkSpec

        Returns
        -------
        CohortConfig
        """
        benchmarks = tuple(benchmarks)
        params: dict[tuple[str, str], JudgeParams] = {}
        for judge, value in judges.items():
            for b in benchmarks:
                p = value if isinstance(value, JudgeParams) else value.get(b.name)
                if p is not None:
                    params[(judge, b.name)] = p
        return cls(tuple(judges), benchmarks, params)

    def benchmark(self, name: str) -> BenchmarkSpec:
        """Return the benchmark called ``name``."""
        for b in self.benchmarks:
            if b.name == name:
                return b
        raise ValueError(f"benchmark {name!r} not in {[b.name for b in self.benchmarks]}")

    def get(self, judge: str, benchmark: str) -> JudgeParams | None:
        """Return the parameters of a pair, or None if the pair was not run."""
        return self.params.get((judge, benchmark))

    @property
    def n_judgments(self) -> int:
        """Judgments the cohort makes (pairs run × items × orders shown × runs)."""
        total = 0
        for (_, b), p in self.params.items():
            spec = self.benchmark(b)
            total += spec.n_items * len(spec.presentations[0][0]) * p.runs_on(spec)
        return total

    def subset(
        self, judges: Iterable[str] | None = None, benchmarks: Iterable[str] | None = None
    ) -> CohortConfig:
        """Keep some judges and/or benchmarks (in the order given).

        Parameters
        ----------
        judges, benchmarks : iterable of str, optional
            Names to keep; all by default.

        Returns
        -------
        CohortConfig
        """
        js = tuple(judges) if judges is not None else self.judges
        bs = (
            tuple(self.benchmark(b) for b in benchmarks)
            if benchmarks is not None
            else (self.benchmarks)
        )
        for j in js:
            if j not in self.judges:
                raise ValueError(f"judge {j!r} not in {list(self.judges)}")
        names = {b.name for b in bs}
        params = {k: v for k, v in self.params.items() if k[0] in js and k[1] in names}
        return CohortConfig(js, bs, params)

    def drop(self, judge: str, benchmark: str | None = None) -> CohortConfig:
        """Mark a judge as not run on a benchmark (or on all, removing the judge).

        Parameters
        ----------
        judge : str
        benchmark : str, optional
            Default: remove the judge altogether.

        Returns
        -------
        CohortConfig
        """
        if judge not in self.judges:
            raise ValueError(f"judge {judge!r} not in {list(self.judges)}")
        if benchmark is None:
            return self.subset(judges=[j for j in self.judges if j != judge])
        self.benchmark(benchmark)
        params = {k: v for k, v in self.params.items() if k != (judge, benchmark)}
        return CohortConfig(self.judges, self.benchmarks, params)

    def with_judge(
        self, judge: str, params: JudgeParams | Mapping[str, JudgeParams]
    ) -> CohortConfig:
        """Add (or replace) a judge.

        Parameters
        ----------
        judge : str
        params : JudgeParams or mapping of benchmark name to JudgeParams

        Returns
        -------
        CohortConfig
        """
        rest = {k: v for k, v in self.params.items() if k[0] != judge}
        for b in self.benchmarks:
            p = params if isinstance(params, JudgeParams) else params.get(b.name)
            if p is not None:
                rest[(judge, b.name)] = p
        judges = self.judges if judge in self.judges else (*self.judges, judge)
        return CohortConfig(judges, self.benchmarks, rest)

    def with_benchmark(self, benchmark: str, /, **changes: Any) -> CohortConfig:
        """Change a benchmark's specification (renaming keeps its judges' parameters).

        Parameters
        ----------
        benchmark : str
            Name of the benchmark to change.
        **changes
            Fields of :class:`BenchmarkSpec`, ``name`` included.

        Returns
        -------
        CohortConfig
        """
        new = self.benchmark(benchmark).replace(**changes)
        bs = tuple(new if b.name == benchmark else b for b in self.benchmarks)
        params = {(j, new.name if b == benchmark else b): p for (j, b), p in self.params.items()}
        return CohortConfig(self.judges, bs, params)

    def scaled(self, factor: float) -> CohortConfig:
        """Return the cohort with every benchmark's item count multiplied by ``factor``.

        Parameters
        ----------
        factor : float
            Positive; each benchmark keeps at least one item.

        Returns
        -------
        CohortConfig
        """
        if not (isinstance(factor, (int, float)) and factor > 0 and math.isfinite(factor)):
            raise ValueError(f"scale={factor!r}; expected a positive number")
        bs = tuple(b.replace(n_items=max(1, round(b.n_items * factor))) for b in self.benchmarks)
        return CohortConfig(self.judges, bs, dict(self.params))
