"""Columns as integer codes: the readers' representation of repeated text.

A log repeats few values (judges, items, orders, verdict words) over many rows. The
readers keep such columns as pandas categoricals (dictionary-encoded, as pyarrow
reads them): every check and lookup runs once per distinct value, and merging and
deduplication compare integers. No Python object is made per row.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd
import pyarrow as pa

__all__ = [
    "appearance",
    "arrow_text",
    "codes_of",
    "dense_span",
    "duplicated",
    "factorize",
    "first_rows",
    "flat_key",
    "has_repeats",
    "integer_codes",
    "is_dense",
    "relabel",
    "row_codes",
    "text_index",
    "values_of",
]


def row_codes(values: pd.Series | pd.Categorical) -> tuple[np.ndarray, pd.Index]:
    """Codes of a column in the narrowest integer type that holds them (-1: missing).

    A categorical's own codes, not copied: for indexing by (``per_value[codes]``), not for
    arithmetic, which would overflow a narrow type.
    """
    if isinstance(values.dtype, pd.CategoricalDtype):
        cat = values.array if isinstance(values, pd.Series) else values
        return np.asarray(cat.codes), cat.categories
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    return codes, pd.Index(uniques)


def codes_of(values: pd.Series | pd.Categorical) -> tuple[np.ndarray, pd.Index]:
    """Return the integer codes of a column and its distinct values (-1: missing).

    A categorical's codes are taken as they are; any other column is factorised.
    """
    codes, uniques = row_codes(values)
    return codes.astype(np.int64, copy=False), uniques


def values_of(uniques: pd.Index) -> np.ndarray:
    """Return the distinct values of a column (:func:`codes_of`) as Python strings."""
    values = np.asarray(uniques, dtype=object)
    if pd.api.types.infer_dtype(values, skipna=False) in ("string", "empty"):
        return values  # every value a str (tested in C, not value by value)
    # Never through numpy's fixed-width text, which drops trailing NUL characters.
    out = np.empty(len(values), dtype=object)
    out[:] = [str(v) for v in values]
    return out


def text_index(uniques: pd.Index) -> pd.Index:
    """Return distinct values (:func:`row_codes`) as a text index, the same one if text."""
    return uniques if uniques.dtype == "str" else pd.Index(values_of(uniques), dtype="str")


def arrow_text(uniques: pd.Index) -> pa.Array:
    """Return distinct values (:func:`row_codes`) as Arrow text (``large_string``).

    For work on all of them at once in Arrow: joins, and first appearances over many
    columns (:func:`pyarrow.compute.unique` keeps the order of first appearance).
    """
    return pa.array(text_index(uniques).array).cast(pa.large_string())


def relabel(
    codes: np.ndarray, labels: Sequence[Any] | pd.Index, index: pd.Index | None = None
) -> pd.Series:
    """Return a categorical whose row ``i`` is ``labels[codes[i]]`` (-1: missing).

    Equal labels become one category, so that the codes stay one per distinct value;
    a label ``None`` (or a missing entry of a text index) is missing.
    """
    categories: pd.Index | None
    if isinstance(labels, pd.Index) and labels.dtype == "str":
        text, categories = None, labels
    else:
        text = np.asarray(list(labels), dtype=object)
        every_text = pd.api.types.infer_dtype(text, skipna=False) in ("string", "empty")
        categories = pd.Index(text, dtype="str") if every_text else None
    # the index keeps what it found: the categorical's own check of it is free
    if categories is not None and not categories.hasnans and categories.is_unique:
        # Labels distinct text, none missing: the codes stay (copied, never shared with
        # the caller's array), only the names change.
        taken = np.asarray(codes).astype(_code_type(len(categories)))
    else:
        # by their text: labels 1 and "1" are one category
        text = np.asarray(categories if text is None else text, dtype=object)
        named = np.array([None if pd.isna(v) else str(v) for v in text], dtype=object)
        new, uniques = pd.factorize(pd.Index(named, dtype=object), use_na_sentinel=True)
        taken = np.append(new, -1).astype(_code_type(len(uniques))).take(codes)
        categories = pd.Index(uniques, dtype="str")
    return pd.Series(
        pd.Categorical.from_codes(taken, categories=categories, validate=False), index=index
    )


def _code_type(n: int) -> type[np.signedinteger]:
    """Return the integer type pandas gives the codes of ``n`` categories (none copied)."""
    for kind in (np.int8, np.int16, np.int32):
        if n < np.iinfo(kind).max:
            return kind
    return np.int64


def flat_key(codes: Sequence[np.ndarray]) -> np.ndarray:
    """Return one integer per row, equal for two rows iff all their codes are equal.

    Parameters
    ----------
    codes : sequence of numpy.ndarray
        Non-negative integer codes, one array per column, all of one length.
    """
    sizes = [int(c.max()) + 1 if len(c) else 1 for c in codes]
    if float(np.prod([float(s) for s in sizes])) < 2**62:
        return np.ravel_multi_index(tuple(codes), sizes)
    frame = pd.DataFrame(dict(enumerate(codes)))
    return frame.groupby(list(range(len(codes)))).ngroup().to_numpy()


def appearance(codes: np.ndarray) -> np.ndarray:
    """Return the distinct non-negative codes in order of first appearance.

    Only the first row of each run of equal codes can be a first appearance: the runs'
    heads are hashed, not every row (rows of one value mostly come together).
    """
    heads = codes[np.flatnonzero(codes[1:] != codes[:-1]) + 1] if len(codes) > 1 else codes
    seen = pd.unique(np.concatenate([codes[:1], heads]))
    return seen[seen >= 0]


def first_rows(codes: np.ndarray, n: int) -> np.ndarray:
    """Return, for each of the codes ``0 .. n - 1``, the first row holding it (-1: none)."""
    rows = len(codes)
    first = np.full(n, rows, dtype=np.int64)
    at = np.flatnonzero(codes >= 0)
    np.minimum.at(first, codes[at], at)  # by indexing: no sort of the rows
    first[first == rows] = -1
    return first


def is_dense(key: np.ndarray) -> bool:
    """Say whether non-negative integer keys are dense: at most a few per row possible.

    Dense keys are counted by indexing (a table as long as the largest key); others
    are hashed.
    """
    return len(key) > 0 and dense_span(int(key.max()), len(key))


def dense_span(largest: int, rows: int) -> bool:
    """Say whether keys ``0 .. largest`` of ``rows`` rows are few enough to count by index."""
    return largest <= 8 * rows + 1024


def integer_codes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Return codes of integers and their distinct values (increasing), by counting.

    ``None`` when the values span too wide a range to count (see :func:`dense_span`):
    hash them instead. The codes are the values less the smallest when every value in
    between occurs (as run indices do).
    """
    if not len(values) or values.dtype.kind not in "iu":
        return None
    low, high = int(values.min()), int(values.max())
    if not dense_span(high - low, len(values)):
        return None
    base = values.dtype.type(low)
    offset = (values - base).astype(np.int64, copy=False)
    present = np.bincount(offset) > 0
    distinct = np.flatnonzero(present)
    codes = offset if len(distinct) == len(present) else (np.cumsum(present) - 1).take(offset)
    return codes, distinct.astype(values.dtype) + base


def duplicated(key: np.ndarray, keep: Literal["first", False] = "first") -> np.ndarray:
    """Return which rows repeat an earlier row's key (``keep="first"``), or any other's.

    Parameters
    ----------
    key : numpy.ndarray
        Non-negative integer keys (:func:`flat_key`).
    keep : {"first", False}
        ``"first"``: every occurrence but the first is a duplicate; ``False``: every
        occurrence of a repeated key.
    """
    n = len(key)
    if not is_dense(key):
        return pd.Series(key).duplicated(keep=keep).to_numpy()
    if keep is False:
        return np.bincount(key).take(key) > 1
    first = np.full(int(key.max()) + 1, n, dtype=np.int64)
    rows = np.arange(n, dtype=np.int64)
    np.minimum.at(first, key, rows)
    return first.take(key) != rows


def has_repeats(key: np.ndarray) -> bool:
    """Say whether some non-negative integer key occurs more than once (counted if dense)."""
    if not is_dense(key):
        return bool(pd.Series(key).duplicated().any())
    return bool(np.bincount(key).max() > 1)


def factorize(key: np.ndarray, *, sort: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Return codes and distinct values of non-negative integer keys, in order of appearance.

    As :func:`pandas.factorize`, without hashing when the keys are dense (at most a few
    times as many possible values as rows): the first row of each key is found by
    indexing, and only the distinct keys are sorted. With ``sort`` the distinct values
    are in increasing order instead, found by counting (no first rows to find).
    """
    n = len(key)
    if not is_dense(key):
        codes, uniques = pd.factorize(key, sort=sort)
        return codes.astype(np.int64), np.asarray(uniques)
    if sort:
        counted = np.bincount(key) > 0
        rank = np.cumsum(counted) - 1
        return rank.take(key), np.flatnonzero(counted)
    first = np.full(int(key.max()) + 1, n, dtype=np.int64)
    np.minimum.at(first, key, np.arange(n, dtype=np.int64))
    present = np.flatnonzero(first < n)
    uniques = present[np.argsort(first[present], kind="stable")]
    rank = np.empty(len(first), dtype=np.int64)
    rank[uniques] = np.arange(len(uniques))
    return rank.take(key), uniques
