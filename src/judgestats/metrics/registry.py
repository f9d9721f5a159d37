"""The metric registry: one declaration per metric, read by every part of judgestats.

A :class:`Metric` says everything the package needs to know about a metric: its
name, description, display label, what its ``n`` counts, which way is better, how it
is computed from summed item features (a ratio of two features, or a formula), what
leaves it undefined, and whether reports summarise it by default. The closed-form
metrics, both model tiers (through
:func:`judgestats.metrics.formulas.derive`), the MVVP check, the summaries and every
report surface read these declarations, so adding a metric is adding one entry.

Examples
--------
A ratio of two item features is declared without code:

>>> from judgestats.metrics.formulas import REGISTRY
>>> from judgestats.metrics.registry import Metric
>>> tie_rate = Metric("tie_rate", "share of judgments that are ties", "judgments",
...                   direction="lower", numerator="n_tie", denominator="cells")
>>> with REGISTRY.registered(tie_rate):
...     "tie_rate" in REGISTRY
True
>>> "tie_rate" in REGISTRY
False
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["DIRECTIONS", "Metric", "MetricRegistry"]

#: Which way a metric is better: ``"higher"``, ``"lower"``, or ``""`` (neither end).
DIRECTIONS: tuple[str, ...] = ("higher", "lower", "")

#: ``formula(x, done)``: the metric from summed features ``x`` (last axis the
#: features), given the metrics declared before it (``done``, by name).
Formula = Callable[[np.ndarray, Mapping[str, np.ndarray]], np.ndarray]


@dataclass(frozen=True)
class Metric:
    """The declaration of one metric.

    Attributes
    ----------
    name : str
        Identifier (a posterior variable, a ``metric`` coordinate value).
    description : str
        One line: what it measures.
    unit : str
        What its ``n`` (the denominator) counts.
    direction : {"higher", "lower", ""}
        Which way is better; ranks (1 = best) need one.
    numerator : str, optional
        For a ratio metric: the feature summed in the numerator.
    denominator : str, default "labelled"
        The feature that counts ``n`` (``"labelled"``: judgments on labelled items).
    formula : callable, optional
        ``formula(x, done)`` for a metric that is not a plain ratio.
    requires : tuple of str, optional
        Features (or ``"labelled"``) whose emptiness leaves the metric undefined, in
        order of priority; default ``(denominator,)``.
    undefined : str
        Why it is undefined when every required feature is present (for example
        "chance agreement is 1"); ``""`` for ratios.
    label : str
        Display name; default the name with spaces.
    reported : bool
        Summarised, diagnosed and shown by reports by default.
    """

    name: str
    description: str
    unit: str
    direction: str = ""
    numerator: str = ""
    denominator: str = "labelled"
    formula: Formula | None = None
    requires: tuple[str, ...] = ()
    undefined: str = ""
    label: str = ""
    reported: bool = False

    def __post_init__(self) -> None:
        if self.direction not in DIRECTIONS:
            raise ValueError(f"direction={self.direction!r}; choose one of {DIRECTIONS}")
        if not self.numerator and self.formula is None:
            raise ValueError(f"metric {self.name!r} needs a numerator feature or a formula")
        if not self.label:
            object.__setattr__(self, "label", self.name.replace("_", " "))
        if not self.requires:
            object.__setattr__(self, "requires", (self.denominator,))


class MetricRegistry(Mapping[str, Metric]):
    """Metrics by name, in declaration order.

    Parameters
    ----------
    metrics : iterable of Metric
        The built-in declarations.
    """

    def __init__(self, metrics: tuple[Metric, ...]) -> None:
        self._metrics: dict[str, Metric] = {}
        for m in metrics:
            self.register(m)

    def __getitem__(self, name: str) -> Metric:
        return self._metrics[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._metrics)

    def __len__(self) -> int:
        return len(self._metrics)

    def register(self, metric: Metric) -> Metric:
        """Add a metric; a name already declared is refused."""
        if metric.name in self._metrics:
            raise ValueError(f"metric {metric.name!r} is already declared")
        self._metrics[metric.name] = metric
        return metric

    def unregister(self, name: str) -> None:
        """Remove a metric added with :meth:`register`."""
        del self._metrics[name]

    @contextmanager
    def registered(self, metric: Metric) -> Iterator[Metric]:
        """Declare ``metric`` for the duration of a ``with`` block."""
        self.register(metric)
        try:
            yield metric
        finally:
            self.unregister(metric.name)

    def field(self, attribute: str) -> _FieldView:
        """Return a live mapping ``name -> getattr(metric, attribute)``."""
        return _FieldView(self, attribute)


class _FieldView(Mapping[str, Any]):
    """A read-only, live view of one attribute of every registered metric."""

    def __init__(self, registry: MetricRegistry, attribute: str) -> None:
        self._registry = registry
        self._attribute = attribute

    def __getitem__(self, name: str) -> Any:
        return getattr(self._registry[name], self._attribute)

    def __iter__(self) -> Iterator[str]:
        return iter(self._registry)

    def __len__(self) -> int:
        return len(self._registry)

    def __repr__(self) -> str:
        return repr(dict(self))
