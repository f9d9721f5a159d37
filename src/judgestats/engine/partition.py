"""Split what was parsed from one file into partitions that each hold whole items.

A verdict pattern is per (judge, item) across orders and runs, and a label per item,
so a partition must hold every record of its items, from every file. Each item goes
to the partition given by a stable hash of its id (:func:`partition_of`); the parts
of one partition, from all files, are then assembled as one small import.

The accounting of a file is split with it: rejects, notes and records that could not
be read at all stay in partition 0, and each partition counts the judgments and
labels it holds, so that the partitions' counts of a file sum to the file's.

Assembling orders judges, items and raters by first appearance over all files;
:func:`split_parsed` records, for each value in each part, where it first appears
(:class:`FirstSeen`), so that the partitions can be put back in that order.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np
import pandas as pd

from judgestats.io import Parsed
from judgestats.io.kit import codes_of, values_of

__all__ = ["FirstSeen", "Part", "first_seen", "merge_first", "partition_of", "split_parsed"]

#: Bits of a first-appearance key: ``kind << 60 | file << 36 | row``.
_FILE_SHIFT, _KIND_SHIFT = 36, 60
#: Kinds of first appearance of an item: as judged, as labelled, as only described
#: (the order in which assembling looks for items).
JUDGED, LABELLED, DESCRIBED = 0, 1, 2


class FirstSeen(NamedTuple):
    """Where each judge, item and rater of a part first appears (smaller is earlier)."""

    judges: pd.Series
    items: pd.Series
    raters: pd.Series


@dataclass(frozen=True)
class Part:
    """One partition's share of one file, with each row's first-appearance key."""

    parsed: Parsed
    judgment_keys: np.ndarray
    label_keys: np.ndarray
    item_keys: np.ndarray

    def first(
        self, aliases: dict[str, str] | None = None, dropped: frozenset[int] = frozenset()
    ) -> FirstSeen:
        """Where each judge, item and rater first appears among the rows kept.

        Parameters
        ----------
        aliases : mapping, optional
            Judge renames, as assembling applies them.
        dropped : frozenset of int
            Lines of this file whose records were rejected when assembling (conflicts):
            assembling orders by the records it keeps.
        """
        jt, lt, it = self.parsed.judgments, self.parsed.labels, self.parsed.items
        j_ok = _kept(jt, dropped)
        l_ok = _kept(lt, dropped)
        judges = jt["judge"][j_ok] if "judge" in jt else pd.Series([], dtype=object)
        if aliases and len(judges):
            codes, uniques = codes_of(judges)
            names = np.array([aliases.get(u, u) for u in values_of(uniques)] + [None], object)
            judges = pd.Series(names[codes])
        items = [
            first_seen(t["item"][ok], keys[ok])
            for t, keys, ok in ((jt, self.judgment_keys, j_ok), (lt, self.label_keys, l_ok))
            if "item" in t
        ]
        if "item" in it:
            items.append(first_seen(it["item"], self.item_keys))
        raters = (
            first_seen(lt["rater"][l_ok], self.label_keys[l_ok])
            if "rater" in lt
            else pd.Series([], dtype=np.int64)
        )
        return FirstSeen(first_seen(judges, self.judgment_keys[j_ok]), merge_first(items), raters)


def _kept(table: pd.DataFrame, dropped: frozenset[int]) -> np.ndarray:
    """Which rows of ``table`` are not on a dropped line."""
    if not dropped or "line" not in table:
        return np.ones(len(table), dtype=bool)
    return ~table["line"].isin(list(dropped)).to_numpy(dtype=bool)


def partition_of(values: pd.Series, n: int) -> np.ndarray:
    """Return the partition (``0 .. n - 1``) of every row, from a stable hash of its value.

    The hash (CRC-32 of the UTF-8 text) is the same in every process and session, so
    that records of one item read by different workers meet in one partition.

    Parameters
    ----------
    values : pandas.Series
        Item ids (text or categorical).
    n : int
        Number of partitions.

    Returns
    -------
    numpy.ndarray of int64
    """
    codes, uniques = codes_of(values)
    texts = values_of(uniques)
    hashed = np.fromiter(
        (zlib.crc32(str(v).encode("utf-8", "surrogatepass")) % n for v in texts),
        dtype=np.int64,
        count=len(texts),
    )
    return np.append(hashed, 0)[codes]


def first_seen(values: pd.Series, key: np.ndarray) -> pd.Series:
    """Return the smallest ``key`` of each distinct value of ``values`` (``value -> key``)."""
    if not len(values):
        return pd.Series([], dtype=np.int64)
    codes, uniques = codes_of(values)
    present = codes >= 0
    order = np.lexsort((key[present], codes[present]))
    c, k = codes[present][order], key[present][order]
    first = np.ones(len(c), dtype=bool)
    first[1:] = c[1:] != c[:-1]
    names = values_of(uniques[c[first]])
    return pd.Series(k[first], index=pd.Index(names, dtype=object), dtype=np.int64)


def _key(kind: int, file_index: int, rows: np.ndarray) -> np.ndarray:
    return (np.int64(kind) << _KIND_SHIFT) | (np.int64(file_index) << _FILE_SHIFT) | rows


def _counted(labels: pd.DataFrame) -> int:
    """Label records that count as read (not metadata riding on a judgment)."""
    if "counted" not in labels:
        return len(labels)
    return int(labels["counted"].fillna(True).astype(bool).sum())


def _groups(table: pd.DataFrame, n: int) -> list[np.ndarray]:
    """Row positions of ``table`` in each partition, in their original order."""
    if table.empty or "item" not in table:
        return [np.arange(len(table)) if k == 0 else np.zeros(0, dtype=np.int64) for k in range(n)]
    which = partition_of(table["item"], n)
    order = np.argsort(which, kind="stable")
    bounds = np.searchsorted(which[order], np.arange(n + 1))
    return [order[bounds[k] : bounds[k + 1]] for k in range(n)]


def split_parsed(parsed: Parsed, n: int, file_index: int) -> list[Part]:
    """Split one file's :class:`~judgestats.io.Parsed` into ``n`` partitions by item.

    Parameters
    ----------
    parsed : Parsed
        What an importer read from one file.
    n : int
        Number of partitions.
    file_index : int
        The file's position among the files read (for first appearances).

    Returns
    -------
    list of Part
        ``n`` parts; their ``read`` counts sum to the file's.
    """
    j_rows = _groups(parsed.judgments, n)
    l_rows = _groups(parsed.labels, n)
    i_rows = _groups(parsed.items, n)
    parts: list[Part] = []
    for k in range(n):
        jt = parsed.judgments.iloc[j_rows[k]]
        lt = parsed.labels.iloc[l_rows[k]]
        it = parsed.items.iloc[i_rows[k]]
        piece = replace(
            parsed,
            judgments=jt,
            labels=lt,
            items=it,
            rejects=[],
            notes=[],
            read=len(jt) + _counted(lt),
        )
        parts.append(
            Part(
                piece,
                _key(JUDGED, file_index, j_rows[k]),
                _key(LABELLED, file_index, l_rows[k]),
                _key(DESCRIBED, file_index, i_rows[k]),
            )
        )
    rest = sum(int(p.parsed.read or 0) for p in parts[1:])
    parts[0] = replace(
        parts[0],
        parsed=replace(
            parts[0].parsed,
            rejects=list(parsed.rejects),
            notes=list(parsed.notes),
            read=int(parsed.read or 0) - rest,
        ),
    )
    return parts


def merge_first(series: list[pd.Series]) -> pd.Series:
    """Return the smallest key of each value over several ``value -> key`` series."""
    series = [s for s in series if len(s)]
    if not series:
        return pd.Series([], dtype=np.int64)
    if len(series) == 1:
        return series[0]
    both = pd.concat(series)
    return both.groupby(level=0, sort=False).min()
