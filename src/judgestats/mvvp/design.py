"""What the data can support: items, labels, runs and swapped orders per judge × benchmark.

The posterior says how large a quantity is; whether an MVVP step *can* be measured
depends on how the data were collected (three runs or one, both presentation
orders or one, human labels or none, which label kinds). :class:`Design` records
that, per judge and benchmark, from a Judgments dataset.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import xarray as xr

from judgestats.schema import Verdict
from judgestats.tally import consensus_label

__all__ = ["Design"]


@dataclass(frozen=True, eq=False)
class Design:
    """How the data were collected, per judge and benchmark.

    Attributes
    ----------
    judges, benchmarks : tuple of str
        Axes of the arrays (benchmarks in order of first appearance).
    orders : tuple of str
        Values of the dataset's ``order`` axis (``"AB"``, ``"BA"``, ``"unknown"``).
    label_kinds : tuple of frozenset of str
        Per benchmark, the label kinds of its labelled items (``"preference"``,
        ``"correctness"``); empty for an unlabelled benchmark.
    n_items : ndarray of int, shape (judge, benchmark)
        Items with at least one verdict of the judge.
    labelled : ndarray of int, shape (judge, benchmark)
        Of those, items with a human (or gold) label.
    runs : ndarray of int, shape (judge, benchmark)
        The most runs with a verdict that any one (item, order) received: the number
        of replicates available for test-retest.
    paired : ndarray of int, shape (judge, benchmark)
        (item, run) cells judged in both orders ``AB`` and ``BA``: what position
        bias is measured on.
    paired_items : ndarray of int, shape (judge, benchmark)
        Items with at least one run judged in both orders.
    unit_runs : ndarray of int, shape (judge, benchmark, run + 1)
        (item, order) units by how many runs they were judged in (index 0: none).
    """

    judges: tuple[str, ...]
    benchmarks: tuple[str, ...]
    orders: tuple[str, ...]
    label_kinds: tuple[frozenset[str], ...]
    n_items: np.ndarray
    labelled: np.ndarray
    runs: np.ndarray
    paired: np.ndarray
    paired_items: np.ndarray
    unit_runs: np.ndarray

    @classmethod
    def from_judgments(cls, ds: xr.Dataset) -> Design:
        """Describe a Judgments dataset.

        Parameters
        ----------
        ds : xarray.Dataset
            A Judgments dataset (see :mod:`judgestats.schema`).

        Returns
        -------
        Design

        Examples
        --------
        >>> from judgestats.schema import empty_judgments
        >>> ds = empty_judgments(["j"], ["i1", "i2"], ["AB", "BA"], 3, ["r"])
        >>> ds = ds.assign_coords(benchmark=("item", ["b", "b"]))
        >>> ds["verdict"][:] = 0
        >>> d = Design.from_judgments(ds)
        >>> int(d.runs[0, 0]), int(d.paired[0, 0]), int(d.labelled[0, 0])
        (3, 6, 0)
        """
        v = ds["verdict"].transpose("judge", "item", "order", "run").values
        present = v != Verdict.MISSING
        orders = tuple(ds["order"].values.tolist())
        bench = ds["benchmark"].values
        names = tuple(dict.fromkeys(bench.tolist()))
        label = consensus_label(ds["human"].transpose("item", "rater").values)
        has_label = label != Verdict.MISSING
        kinds_all = ds["label_kind"].values
        shape = (ds.sizes["judge"], len(names))
        n_items, labelled, runs, paired, paired_items = (
            np.zeros(shape, dtype=np.int64) for _ in range(5)
        )
        unit_runs = np.zeros((*shape, ds.sizes["run"] + 1), dtype=np.int64)
        kinds = []
        for b, name in enumerate(names):
            idx = np.flatnonzero(bench == name)
            p = present[:, idx]
            judged = p.any((-2, -1))
            n_items[:, b] = judged.sum(1)
            labelled[:, b] = (judged & has_label[idx]).sum(1)
            per_unit = p.sum(-1)  # (judge, item, order): runs of each unit
            runs[:, b] = per_unit.max((-2, -1), initial=0)
            for r in range(unit_runs.shape[-1]):
                unit_runs[:, b, r] = (per_unit == r).sum((-2, -1))
            if "AB" in orders and "BA" in orders:
                both = p[:, :, orders.index("AB"), :] & p[:, :, orders.index("BA"), :]
                paired[:, b] = both.sum((-2, -1))
                paired_items[:, b] = both.any(-1).sum(-1)
            kinds.append(frozenset(kinds_all[idx][has_label[idx]].tolist()) - {"unlabelled"})
        return cls(
            judges=tuple(ds["judge"].values.tolist()),
            benchmarks=names,
            orders=orders,
            label_kinds=tuple(kinds),
            n_items=n_items,
            labelled=labelled,
            runs=runs,
            paired=paired,
            paired_items=paired_items,
            unit_runs=unit_runs,
        )

    def cell(self, judge: str, benchmark: str) -> dict[str, int]:
        """Return the counts of one judge × benchmark cell (zeros where absent).

        Parameters
        ----------
        judge, benchmark : str

        Returns
        -------
        dict
            ``n_items``, ``labelled``, ``runs``, ``paired`` and ``paired_items``.
        """
        names = ("n_items", "labelled", "runs", "paired", "paired_items")
        if judge not in self.judges or benchmark not in self.benchmarks:
            return dict.fromkeys(names, 0)
        j, b = self.judges.index(judge), self.benchmarks.index(benchmark)
        return {name: int(getattr(self, name)[j, b]) for name in names}

    def units_with_runs(self, judge: str, benchmark: str, min_runs: int) -> int:
        """Return the (item, order) units judged in at least ``min_runs`` runs."""
        if judge not in self.judges or benchmark not in self.benchmarks:
            return 0
        j, b = self.judges.index(judge), self.benchmarks.index(benchmark)
        return int(self.unit_runs[j, b, min_runs:].sum())

    def kinds(self, benchmark: str) -> frozenset[str]:
        """Return the label kinds of a benchmark's labelled items."""
        if benchmark not in self.benchmarks:
            return frozenset()
        return self.label_kinds[self.benchmarks.index(benchmark)]

    @property
    def swapped(self) -> bool:
        """Whether the dataset has both presentation orders ``AB`` and ``BA``."""
        return "AB" in self.orders and "BA" in self.orders
