"""Turn what importers parsed into one Judgments dataset, accounting for every record.

Every importer produces a :class:`Parsed` per file: long tables of judgments and of
labels (each row carrying its source line), a table of item metadata, the rejects
found while parsing, and how many records were read. :func:`assemble` merges any
number of them: exact duplicates are merged and counted, conflicting records
(same key, different verdict) are all rejected with the lines of the others, and
the rest is written into the dense ``verdict`` and ``human`` arrays.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import xarray as xr

from judgestats.accounting import FileAccount, ImportReport, Reject
from judgestats.errors import LogFormatError
from judgestats.io._codes import (
    appearance,
    arrow_text,
    codes_of,
    duplicated,
    factorize,
    first_rows,
    flat_key,
    has_repeats,
    integer_codes,
    is_dense,
    row_codes,
    text_index,
    values_of,
)
from judgestats.schema import DIMS, ITEM_COORDS, ORDERS, Verdict, check, empty_judgments

__all__ = ["HIDDEN_FIELDS", "JUDGMENT_KEY", "LABEL_KEY", "Parsed", "assemble", "item_id"]

#: Columns that identify one judgment.
JUDGMENT_KEY = ["judge", "item", "order", "run"]
#: Columns that identify one label.
LABEL_KEY = ["item", "rater"]
_JUDGMENT_COLS = [*JUDGMENT_KEY, "verdict", "line"]
#: Judgment columns compared when merging duplicates but not stored: a column whose
#: name starts with ``_`` (what each is called in messages).
HIDDEN_FIELDS = {"_text": "raw text"}
_LABEL_COLS = [*LABEL_KEY, "label", "line", "counted"]


def item_id(benchmark: str, key: object) -> str:
    """Return the dataset-wide item id ``"<benchmark>/<key>"``.

    Items are keyed by benchmark so that ids from different sources never clash.
    """
    return f"{benchmark}/{key}"


@dataclass
class Parsed:
    """What an importer read from one file.

    Attributes
    ----------
    file : str
        Path of the file, as given.
    format : str
        Name of the importer.
    judgments : pandas.DataFrame
        Columns ``judge, item, order, run, verdict, line``; ``verdict`` holds
        :class:`~judgestats.schema.Verdict` codes in the item frame. Extra columns
        (for example ``strength``) become extra variables over ``(judge, item, order, run)``.
    labels : pandas.DataFrame
        Columns ``item, rater, label, line`` and optionally ``counted`` (bool): a
        label that rides along on a judgment row (``counted=False``) is item metadata,
        not a record of its own, and enters neither the counts nor the rejects (a
        conflict between such labels is reported as a note).
    items : pandas.DataFrame
        Column ``item`` and any of :data:`~judgestats.schema.ITEM_COORDS`.
    rejects : list of Reject
        Records rejected while parsing.
    read : int
        Judgments plus labels extracted, plus records that could not be read at all.
    notes : list of Reject
        Things worth reporting that are not records (a companion file not found, a
        label that could not be used as metadata); they enter no count.
    """

    file: str
    format: str
    judgments: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=_JUDGMENT_COLS))
    labels: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=_LABEL_COLS))
    items: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=["item"]))
    rejects: list[Reject] = field(default_factory=list)
    read: int | None = None
    notes: list[Reject] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.read is None:
            counted = (
                self.labels["counted"].fillna(True).astype(bool).sum()
                if ("counted" in self.labels)
                else len(self.labels)
            )
            self.read = len(self.judgments) + int(counted) + len(self.rejects)


def _shown(column: str, value: object) -> str:
    """Return a compared value as messages show it (verdict codes by name)."""
    value = _py(value)
    if column in ("verdict", "label") and isinstance(value, int):
        return Verdict(value).name
    if column.startswith("_"):
        return "its own"
    return repr(value)


def _conflict_reason(grp: pd.DataFrame, key: list[str], values: list[str], what: str) -> str:
    """Why the records of one key conflict: the fields in which they differ, where."""
    first = grp.iloc[0]
    ident = ", ".join(f"{k}={_py(first[k])!r}" for k in key)
    differ = [c for c in values if grp[c].nunique(dropna=False) > 1]
    main = values[0]
    where = lambda c: ", ".join(  # noqa: E731
        f"{_shown(c, v)} at {f}:{_line(ln)}"
        for v, f, ln in zip(grp[c], grp["file"], grp["line"], strict=True)
    )
    if main in differ:
        return f"conflicting {what} for {ident}: {where(main)}"
    parts = [
        HIDDEN_FIELDS.get(c, c) + ("" if c.startswith("_") else f" ({where(c)})") for c in differ
    ]
    at = ", ".join(f"{f}:{_line(ln)}" for f, ln in zip(grp["file"], grp["line"], strict=True))
    return (
        f"conflicting records for {ident}: same {main} {_shown(main, first[main])} at {at} but"
        f" different {'; '.join(parts)}; an exact duplicate must match in every field"
    )


def _union(columns: Sequence[pd.Series]) -> pd.Categorical:
    """One column of text over all files, as codes into the distinct values of all.

    The importers give their key columns as categoricals (or plain text, factorised
    here); only the distinct values of each are compared, never the rows.
    """
    if (
        len(columns) == 1
        and isinstance(columns[0].dtype, pd.CategoricalDtype)
        and columns[0].cat.categories.dtype == "str"
    ):
        return columns[0].array  # one file's text categorical: its codes are the codes
    if len(columns) > 1 and all(c.dtype == "str" for c in columns):
        # Text (not categorical) in every file, as many small files give it: one
        # factorisation of all rows instead of one per file; same codes and categories.
        columns = [pd.concat(columns, ignore_index=True)]
    parts = [codes_of(c) for c in columns]
    first = parts[0][1] if parts else None
    if first is not None and all(u.dtype == first.dtype and u.equals(first) for _, u in parts):
        # Every file has the same distinct values in the same order (files over the
        # same items, one per judge): their codes are the codes of the union.
        categories = text_index(first)
        merged = np.concatenate([c for c, _ in parts])
        return pd.Categorical.from_codes(merged, categories=categories, validate=False)
    values = [values_of(u) for _, u in parts]
    categories = pd.Index(pd.unique(np.concatenate(values)) if values else [], dtype="str")
    codes = [
        np.append(categories.get_indexer(pd.Index(v)), -1)[c]
        for (c, _), v in zip(parts, values, strict=True)
    ]
    merged = np.concatenate(codes) if codes else np.zeros(0, dtype=np.int64)
    return pd.Categorical.from_codes(merged, categories=categories, validate=False)


def _stack(
    frames: Sequence[pd.DataFrame], files: Sequence[str], coded: Sequence[str]
) -> pd.DataFrame:
    """Concatenate the tables of several files, with a ``file`` column.

    The ``coded`` columns (the key, and every column a file gives as categorical) and
    ``file`` stay categorical: codes, not text, for every row. A coded column that is
    plain text in every file is concatenated with the rest and factorised once; one
    that is categorical somewhere is merged by its categories (:func:`_union`).
    """
    # once per frame (each column taken from a frame is a Series made)
    dtypes: list[dict[str, Any]] = [{str(k): v for k, v in f.dtypes.items()} for f in frames]
    columns = dict.fromkeys([*coded, *(c for d in dtypes for c in d)])
    coded = [
        c
        for c in columns
        if all(c in d for d in dtypes)
        and (c in coded or any(isinstance(d[c], pd.CategoricalDtype) for d in dtypes))
    ]
    merged = [c for c in coded if any(d[c] != "str" for d in dtypes)]
    skip = set(merged)
    parts = frames if not skip else [f[[c for c in f.columns if c not in skip]] for f in frames]
    out = pd.concat(parts, ignore_index=True)
    for c in coded:  # taken out and put back: the coded columns come last
        out[c] = _union([f[c] for f in frames] if c in skip else [out.pop(c)])
    names = pd.Index(list(dict.fromkeys(files)), dtype="str")
    which = np.repeat(names.get_indexer(pd.Index(list(files))), [len(f) for f in frames])
    out["file"] = pd.Categorical.from_codes(which, categories=names, validate=False)
    return out


def _key_codes(values: pd.Series) -> np.ndarray:
    """Codes of a key column: an integer column's by counting, any other's by its values."""
    if values.dtype.kind in "iu":
        counted = integer_codes(values.to_numpy())
        if counted is not None:
            return counted[0]
    return codes_of(values)[0]


def _key(table: pd.DataFrame, key: Sequence[str]) -> np.ndarray:
    """Return the flat key of every row of ``table`` (see :func:`.flat_key`)."""
    return flat_key([_key_codes(table[k]) for k in key])


def _value_codes(values: pd.Series) -> np.ndarray:
    """Codes of a compared column (missing values equal to each other)."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        return values.cat.codes.to_numpy()
    return pd.factorize(values, use_na_sentinel=False)[0]


def _raw_values(values: pd.Series) -> np.ndarray:
    """Return a compared column as an array in which equal neighbours are equal values.

    A categorical's codes; any other column's values (a missing value differs from
    every value, itself too: such rows are compared by codes, not taken as repeats).
    """
    if isinstance(values.dtype, pd.CategoricalDtype):
        return values.cat.codes.to_numpy()
    return values.to_numpy()


def _plain(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with its categorical columns as plain values, for messages."""
    return table.astype(
        {c: object for c in table.columns if isinstance(table[c].dtype, pd.CategoricalDtype)}
    )


def _dedup(
    table: pd.DataFrame,
    flat: np.ndarray,
    key: list[str],
    value: str,
    what: str,
    same: Sequence[str] = (),
) -> tuple[np.ndarray, np.ndarray, list[tuple[str, Reject]]]:
    """Which rows of ``table`` to keep, which are merged duplicates, and conflict rejects.

    Rows with the same key (``flat``, from :func:`_key`) are exact duplicates when
    they agree in ``value`` and in every other column but ``line``, ``file`` and the
    columns ``same`` (equal in every row given); otherwise all of them are rejected
    as a conflict. Rows are compared on the codes of their values, and only those
    that differ from the row before them.
    """
    n = len(table)
    values = [value] + [c for c in table.columns if c not in (*key, value, "line", "file", *same)]
    # A row equal to the row before it (key and values) repeats it: it is a duplicate,
    # or in a conflict, and only the other rows need comparing. Labels riding along
    # on the judgments of one item come in such runs.
    changed = np.ones(n, dtype=bool)
    if n > 1:
        differs = flat[1:] != flat[:-1]
        for v in values:
            column = _raw_values(table[v])
            differs |= column[1:] != column[:-1]
        changed[1:] = differs
    if changed.all() and not has_repeats(flat):
        return np.ones(n, dtype=bool), np.zeros(n, dtype=bool), []  # no key repeats
    rows = np.flatnonzero(changed)
    keys = flat[rows]
    keys = keys if is_dense(keys) else factorize(keys)[0]
    record = flat_key([keys, *(_value_codes(table[v].iloc[rows]) + 1 for v in values)])
    distinct = rows[~duplicated(record)]  # the first row of each distinct record
    bad = np.unique(flat[distinct][duplicated(flat[distinct], keep=False)])
    conflict = np.isin(flat, bad) if len(bad) else np.zeros(n, dtype=bool)
    rejects = []
    groups: Iterable[tuple[Any, pd.DataFrame]] = (
        _plain(table[conflict]).groupby(key, sort=False, dropna=False) if len(bad) else []
    )
    for _, grp in groups:
        reason = _conflict_reason(grp, key, values, what)
        for f, ln in zip(grp["file"], grp["line"], strict=True):
            rejects.append((f, Reject(f, _line(ln), reason)))
    # Outside conflicts a key has one record: its later rows are the duplicates.
    dup = np.ones(n, dtype=bool)
    dup[distinct] = False
    dup &= ~conflict
    return ~conflict & ~dup, dup, rejects


def _rows(table: pd.DataFrame, rows: np.ndarray) -> pd.DataFrame:
    """``table.iloc[rows]``, not copied when ``rows`` is every row in order."""
    return table if len(rows) == len(table) else table.iloc[rows]


def _dedup_labels(
    lt: pd.DataFrame,
) -> tuple[np.ndarray, np.ndarray, list[tuple[str, Reject]], list[Reject]]:
    """Deduplicate labels: label records (counted) first, then metadata labels.

    A metadata label (one riding along on a judgment record) never displaces or
    rejects a label record: where both exist the label record is kept, and a
    disagreement is a note. Metadata labels that conflict among themselves are
    dropped with a note. Returns the rows kept and the duplicates merged (masks over
    ``lt``), the conflict rejects and the notes.
    """
    flat = _key(lt, LABEL_KEY)
    counted = lt["counted"].to_numpy(dtype=bool)
    c_rows, m_rows = np.flatnonzero(counted), np.flatnonzero(~counted)
    keep = np.zeros(len(lt), dtype=bool)
    dup = np.zeros(len(lt), dtype=bool)
    # Each call compares rows of one kind: "counted" is the same in all of them.
    dedup = partial(_dedup, key=LABEL_KEY, value="label", what="labels", same=["counted"])
    keep_c, dup_c, conflicts = dedup(_rows(lt, c_rows), flat[c_rows])
    keep[c_rows], dup[c_rows] = keep_c, dup_c
    notes: list[Reject] = []
    if len(m_rows):
        has_record = np.isin(flat[m_rows], flat[c_rows])
        kept_c = c_rows[keep_c]
        shadowed = m_rows[has_record]
        record = pd.Index(flat[kept_c]).get_indexer(flat[shadowed])
        labels = lt["label"].to_numpy()
        found = record >= 0
        differ = shadowed[found][labels[shadowed[found]] != labels[kept_c[record[found]]]]
        other = dict(zip(flat[kept_c], labels[kept_c], strict=True))
        for row in differ:
            r = lt.iloc[row]
            notes.append(
                Reject(
                    str(r["file"]),
                    _line(r["line"]),
                    f"label {Verdict(int(r['label'])).name} of item {str(r['item'])!r} (rater"
                    f" {str(r['rater'])!r}) disagrees with the label record"
                    f" ({Verdict(int(other[flat[row]])).name}), which is kept",
                )
            )
        alone = m_rows[~has_record]
        keep_m, _, meta_conf = dedup(_rows(lt, alone), flat[alone])
        keep[alone] = keep_m
        notes += [r for _, r in meta_conf]
    return keep, dup, conflicts, notes


def _label_table(frames: Sequence[pd.DataFrame], parsed: Sequence[Parsed]) -> pd.DataFrame:
    """Stack the label tables of the files (``frames``, one per ``parsed``) for merging."""
    if frames:
        lt = _stack(frames, [p.file for p in parsed], LABEL_KEY)
        lt["label"] = lt["label"].astype(np.int8)
    else:
        lt = pd.DataFrame({c: pd.Series([], dtype="category") for c in [*LABEL_KEY, "file"]})
        lt = lt.assign(label=np.zeros(0, dtype=np.int8), line=np.zeros(0, dtype=np.int64))
    if "counted" not in lt:
        lt["counted"] = True
    lt["counted"] = lt["counted"].fillna(True).astype(bool)
    return lt


def _label_heads(labels: pd.DataFrame) -> np.ndarray:
    """Return which rows of a file's labels stand for all of them.

    Every label record (``counted``) does, and the first ride-along label of each
    item, rater and label; the other ride-along labels repeat one of those (a long
    table repeats an item's label on every judgment of it). A table with columns
    beyond :data:`_LABEL_COLS` keeps every row.
    """
    n = len(labels)
    counted = (
        labels["counted"].fillna(True).to_numpy(dtype=bool)
        if "counted" in labels
        else np.ones(n, dtype=bool)
    )
    if counted.all() or not set(labels.columns) <= set(_LABEL_COLS):
        return np.ones(n, dtype=bool)
    codes = [codes_of(labels[c])[0] for c in LABEL_KEY]
    label = labels["label"].to_numpy()
    # Integer labels are their own codes once made non-negative.
    codes.append(
        label.astype(np.int64) - label.min()
        if label.dtype.kind in "iu"
        else _value_codes(labels["label"])
    )
    # A ride-along label equal to the row before it repeats it: only the others are
    # compared.
    changed = counted.copy()
    changed[0] = True
    for c in codes:
        changed[1:] |= c[1:] != c[:-1]
    changed[1:] |= counted[:-1]
    at = np.flatnonzero(changed & ~counted)
    heads = counted.copy()
    heads[at[~duplicated(flat_key([c[at] + 1 for c in codes]))]] = True
    return heads


def _appearance(*columns: pd.Series) -> list[str]:
    """Distinct values of the columns together, as strings, in order of appearance."""
    parts = []
    for c in columns:
        if len(c):
            codes, uniques = row_codes(pd.Series(c))
            # text stays Arrow text: no Python string is made before the end
            parts.append(arrow_text(uniques).take(appearance(codes)))
    if not parts:
        return []
    # Arrow's hash keeps the order of first appearance, ten times faster than pandas'
    return pc.unique(pa.chunked_array(parts, type=pa.large_string())).to_pylist()


def _positions(index: pd.Index, values: pd.Series) -> np.ndarray:
    """Position in ``index`` of every row's value (looked up once per distinct value)."""
    codes, uniques = row_codes(values)
    # Text looked up in text of the same dtype: no conversion of either.
    same = uniques.dtype == index.dtype and uniques.dtype == "str"
    found = index.get_indexer(uniques if same else pd.Index(values_of(uniques)))
    return np.append(found, -1).take(codes)


def _per_file(files: pd.Series) -> Counter[str]:
    """How many rows each file has in ``files``."""
    codes, names = row_codes(files)
    counts = np.bincount(codes[codes >= 0], minlength=len(names))
    return Counter({str(k): int(v) for k, v in zip(names, counts, strict=True) if v})


def _renamed(values: pd.Series, names: Mapping[str, str]) -> pd.Categorical:
    """Return a text column renamed by ``names``, once per distinct value."""
    codes, uniques = codes_of(values)
    new, renamed = pd.factorize(pd.Index([names.get(u, u) for u in uniques], dtype=object))
    categories = pd.Index(values_of(pd.Index(renamed)), dtype="str")
    return pd.Categorical.from_codes(
        np.append(new, -1)[codes], categories=categories, validate=False
    )


def _text_array(values: np.ndarray) -> np.ndarray:
    """Return text values as numpy text, or as Python strings where that would alter them.

    Fixed-width numpy text drops trailing NUL characters (a benchmark named by one NUL
    character would become empty); such values stay Python strings, exactly as read.
    """
    fixed = values.astype(str)
    plain = pd.api.types.infer_dtype(values, skipna=False) in ("string", "empty")
    if plain and "\x00" not in "".join(values):
        return fixed  # Python strings without NUL: numpy text holds them exactly
    if len(values) and not (fixed.astype(object) == values.astype(object)).all():
        return values_of(pd.Index(values.astype(object)))
    return fixed


def _dense(values: pd.Series, idx: tuple[np.ndarray, ...], shape: tuple[int, ...]) -> np.ndarray:
    """Return an extra variable as a dense array: -1, NaN or ``""`` where no judgment."""
    if values.dtype.kind in "iub":
        arr = np.full(shape, -1, dtype=np.int16)
        arr[idx] = values.to_numpy()
        return arr
    if values.dtype.kind == "f":
        arr = np.full(shape, np.nan)
        arr[idx] = values.to_numpy()
        return arr
    codes, uniques = codes_of(values)
    text = np.append(values_of(uniques), "")
    at = np.full(shape, -1, dtype=np.int64)
    at[idx] = codes
    return text[at].astype(str)


def _py(value: object) -> object:
    """Return a plain Python scalar for messages (``1``, not ``np.int64(1)``)."""
    return value.item() if isinstance(value, np.generic) else value


def _line(value: Any) -> int | None:
    return None if value is None or pd.isna(value) else int(value)


def _metadata_notes(given: pd.DataFrame, name: str) -> list[Reject]:
    """Return a note per item whose rows give ``name`` different values (first kept)."""
    values = given[["item", name, "file", "line"]].dropna(subset=[name])
    distinct = values.drop_duplicates(["item", name])
    counts = distinct.groupby("item", sort=False)[name].size()
    notes = []
    for item, grp in distinct[distinct["item"].isin(counts[counts > 1].index)].groupby(
        "item", sort=False
    ):
        kept, *others = grp.itertuples(index=False)
        shown = ", ".join(
            f"{_py(o[1])!r} at {o.file}{'' if _line(o.line) is None else f':{_line(o.line)}'}"
            for o in others[:3]
        ) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
        notes.append(
            Reject(
                str(kept.file),
                _line(kept.line),
                f"item {item!r}: {name} {_py(kept[1])!r} is kept; other records give {shown}",
            )
        )
    return notes


def _given(
    values: pd.Series, kind: str, fill: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return which rows give a coordinate (not missing, not its fill value), and its values.

    Returns the mask, the values as given (numbers, or the text's original values;
    NaN or ``None`` where not given; for messages), the values the dataset stores
    (numbers, or text as strings) and a key per row, equal where the values given are
    (the numbers, or the codes of the distinct values).
    """
    if kind == "f":
        numbers = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
        return ~np.isnan(numbers), numbers, numbers, numbers
    codes, uniques = row_codes(values)  # a missing value's code -1 takes the last entry
    given = np.asarray([str(v) != str(fill) for v in uniques] + [False], dtype=bool)[codes]
    raw = np.asarray([*uniques, None], dtype=object)[codes]
    raw[~given] = None
    text = np.append(values_of(uniques), fill)[codes]
    return given, raw, text, codes


def _items_table(
    parsed: Sequence[Parsed], items: list[str]
) -> tuple[dict[str, np.ndarray], list[Reject]]:
    """Per item, the first value given of each coordinate (fill values do not count).

    Returns each coordinate's values (floats, or text as :func:`_text_array` keeps
    it) and a note for every coordinate of an item to which its records give
    different values.
    """
    described = [p for p in parsed if not p.items.empty]
    frames = [p.items for p in described]
    meta = (
        (frames[0] if len(frames) == 1 else _stack(frames, [p.file for p in described], ["item"]))
        if frames
        else pd.DataFrame(columns=["item"])
    )
    # Position of every row's item among ``items`` (looked up per distinct item).
    at = _positions(pd.Index(items, dtype="str"), meta["item"])
    files = [p.file for p in described]
    ends = np.cumsum([len(f) for f in frames])
    out: dict[str, np.ndarray] = {}
    notes: list[Reject] = []
    for name, (kind, fill) in ITEM_COORDS.items():
        values = np.full(len(items), fill, dtype=float if kind == "f" else object)
        if name in meta:
            given, raw, stored, key = _given(meta[name], kind, fill)
            # Per item, the first row that gives a value (-1: none does).
            giving = np.flatnonzero(given & (at >= 0))
            first = first_rows(at[giving], len(items))
            values[first >= 0] = stored[giving[first[first >= 0]]]
            # Only an item one of whose rows gives another value than its first can
            # have a note: the notes are written from those items' rows alone, and
            # from the rows of items not in ``items`` (no first value covers them).
            # At 10x the seed-002 cohort's 1.2 million rows, writing every row out
            # as text to look for notes took 2.2 s of a 5.3 s read.
            differs = key[giving] != key[giving[first[at[giving]]]]
            odd = np.zeros(len(items) + 1, dtype=bool)  # the last entry: at -1, False
            odd[at[giving[differs]]] = True
            rows = np.union1d(np.flatnonzero(odd[at]), np.flatnonzero(given & (at < 0)))
            if rows.size:
                shown = pd.DataFrame(
                    {
                        "item": meta["item"].iloc[rows].astype(str).to_numpy(),
                        "file": np.asarray(files, dtype=object)[
                            np.searchsorted(ends, rows, side="right")
                        ],
                        "line": meta["line"].to_numpy()[rows] if "line" in meta else np.nan,
                        name: raw[rows],
                    }
                )
                notes += _metadata_notes(shown, name)
        out[name] = values if kind == "f" else _text_array(values)
    return out, notes


def _memory_cells() -> int:
    """Cells of the dense arrays that fit in memory: an eighth of it, 8 bytes a cell."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # pragma: no cover (not POSIX)
        total = 8 * 2**30
    return max(total // 64, 2**20)


#: Largest judges x items x orders x runs assembled in memory (``verdict`` is one
#: byte a cell, but labels, extra variables and the work on them take more).
MAX_CELLS = _memory_cells()


def _check_size(jt: pd.DataFrame, n_judges: int, n_items: int, n_orders: int) -> int:
    """Return the number of runs, raising if the dense arrays would not fit in memory."""
    if jt.empty:
        return 1
    at = int(jt["run"].to_numpy().argmax())
    runs = int(jt["run"].to_numpy()[at]) + 1
    cells = n_judges * n_items * n_orders * runs
    if cells > MAX_CELLS:  # the module attribute, so that it can be lowered
        row = jt.iloc[at]
        size = (
            f" {n_judges} judges x {n_items} items x {n_orders} orders x {runs} runs ="
            f" {cells:,} cells (about {8 * cells / 2**30:,.1f} GiB), more than fit in"
            f" memory here ({MAX_CELLS:,} cells)"
        )
        # A large run index is the usual cause (runs are stored densely: 0 .. largest).
        where, why = (
            (f"{row['file']}:{_line(row['line'])}", f" run {runs - 1} makes the dataset{size}")
            if runs > 1
            else (str(row["file"]), f" the dataset would be{size}")
        )
        fix = (
            "; runs are numbered 0, 1, 2, ...: fix the run column if it does not count replicates, "
            if runs > 1
            else "; "
        )
        raise LogFormatError(
            f"{where}:{why}{fix}or import the logs in parts (fewer judges, benchmarks or"
            " runs per dataset)"
        )
    return runs


def assemble(
    parsed: Sequence[Parsed],
    *,
    aliases: Mapping[str, str] | None = None,
    items_order: Sequence[str] | None = None,
) -> tuple[xr.Dataset, ImportReport]:
    """Merge parsed files into one Judgments dataset and its accounting.

    Parameters
    ----------
    parsed : sequence of Parsed
        One entry per file read.
    aliases : mapping of str to str, optional
        Judge renames applied before merging (``{"gpt4": "gpt-4-0613"}``), so that
        one judge known by two names becomes one judge.
    items_order : sequence of str, optional
        Item order of the result; by default items appear as first read.

    Returns
    -------
    dataset : xarray.Dataset
        A schema-valid Judgments dataset, with the accounting in ``attrs``.
    report : ImportReport
        Per-file counts and every reject.
    """
    aliases = dict(aliases or {})
    with_judgments = [p for p in parsed if not p.judgments.empty]
    with_labels = [p for p in parsed if not p.labels.empty]
    if with_judgments:
        frames = [p.judgments for p in with_judgments]
        jt = _stack(frames, [p.file for p in with_judgments], ["judge", "item", "order"])
        # An integer extra variable stays integer (-1 where a file lacks it), not float.
        for c in dict.fromkeys(c for f in frames for c in f.columns):
            if c not in _JUDGMENT_COLS and all(
                f[c].dtype.kind in "iub" for f in frames if c in f.columns
            ):
                jt[c] = jt[c].fillna(-1).astype(np.int64)
        jt = jt.astype({"run": np.int64, "verdict": np.int8})
    else:
        jt = pd.DataFrame({c: pd.Series([], dtype="category") for c in [*JUDGMENT_KEY, "file"]})
        jt = jt.assign(run=np.zeros(0, dtype=np.int64), verdict=np.zeros(0, dtype=np.int8))
        jt["line"] = np.zeros(0, dtype=np.int64)
    if aliases:
        jt["judge"] = _renamed(jt["judge"], aliases)
    keep_j, dup_j, jt_conf = _dedup(jt, _key(jt, JUDGMENT_KEY), JUDGMENT_KEY, "verdict", "verdicts")
    # Labels: first without the ride-along labels that repeat one of their file's; the
    # same outcome unless a ride-along label disagrees with another, whose notes name
    # every row: then with all of them.
    heads = [_label_heads(p.labels) for p in with_labels]
    compact = [
        p.labels if h.all() else p.labels[h] for p, h in zip(with_labels, heads, strict=True)
    ]
    lt = _label_table(compact, with_labels)
    keep_l, dup_l, lt_conf, label_notes = _dedup_labels(lt)
    if label_notes and not all(h.all() for h in heads):
        lt = _label_table([p.labels for p in with_labels], with_labels)
        keep_l, dup_l, lt_conf, label_notes = _dedup_labels(lt)
    jt_kept, lt_kept = _rows(jt, np.flatnonzero(keep_j)), _rows(lt, np.flatnonzero(keep_l))
    lt_counted = lt_kept[lt_kept["counted"]]

    # Items: judged or labelled ones, then any only described (kept, all missing).
    described = [p.items["item"] for p in parsed if "item" in p.items]
    seen = _appearance(jt_kept["item"], lt_kept["item"], *described)
    known = set(seen)
    if items_order is not None:
        wanted = set(items_order)
        seen = [i for i in items_order if i in known] + [i for i in seen if i not in wanted]
    judges = _appearance(jt_kept["judge"])
    present = set(_appearance(jt_kept["order"]))
    orders = [o for o in ORDERS if o in present] or ["AB"]
    runs = _check_size(jt_kept, len(judges), len(seen), len(orders))
    raters = _appearance(lt_kept["rater"])
    ds = empty_judgments(judges, seen, orders, runs, raters)
    item_index = pd.Index(seen, dtype="str")

    if not jt_kept.empty:
        idx = (
            _positions(pd.Index(judges, dtype="str"), jt_kept["judge"]),
            _positions(item_index, jt_kept["item"]),
            _positions(pd.Index(orders, dtype="str"), jt_kept["order"]),
            jt_kept["run"].to_numpy(),
        )
        # One flat index: faster to assign through than four index arrays.
        ds["verdict"].values.reshape(-1)[np.ravel_multi_index(idx, ds["verdict"].shape)] = jt_kept[
            "verdict"
        ].to_numpy()
        extra = [
            c
            for c in jt_kept.columns
            if c not in [*_JUDGMENT_COLS, "file"] and not str(c).startswith("_")
        ]
        for name in extra:
            ds[name] = (DIMS, _dense(jt_kept[name], idx, ds["verdict"].shape))
    if not lt_kept.empty:
        ds["human"].values[
            _positions(item_index, lt_kept["item"]),
            _positions(pd.Index(raters, dtype="str"), lt_kept["rater"]),
        ] = lt_kept["label"].to_numpy()

    meta, meta_notes = _items_table(parsed, seen)
    ds = ds.assign_coords({name: ("item", values) for name, values in meta.items()})

    rejects_by_file: dict[str, list[Reject]] = {}
    for p in parsed:
        rejects_by_file.setdefault(p.file, []).extend(p.rejects)
    for f, r in jt_conf + lt_conf:
        rejects_by_file.setdefault(f, []).append(r)
    dup_counts = _per_file(jt.loc[dup_j, "file"]) + _per_file(lt.loc[dup_l, "file"])
    conf_counts = Counter(f for f, _ in jt_conf + lt_conf)
    kept_counts = _per_file(jt_kept["file"]) + _per_file(lt_counted["file"])
    invalid_counts = _per_file(jt_kept.loc[jt_kept["verdict"] == Verdict.INVALID, "file"])

    accounts = []
    for p in parsed:
        accounts.append(
            FileAccount(
                file=p.file,
                format=p.format,
                read=int(p.read or 0),
                imported=kept_counts.pop(p.file, 0),
                duplicates=dup_counts.pop(p.file, 0),
                rejected=len(p.rejects) + conf_counts.pop(p.file, 0),
                invalid=invalid_counts.pop(p.file, 0),
            )
        )
    rejects = tuple(
        r
        for f in dict.fromkeys(p.file for p in parsed)
        for r in sorted(rejects_by_file[f], key=lambda r: r.line or 0)
    )
    file_notes = tuple(n for p in parsed for n in p.notes)
    report = ImportReport(
        tuple(accounts), rejects, file_notes + tuple(label_notes) + tuple(meta_notes)
    )
    ds.attrs["sources"] = json.dumps([{"file": p.file, "format": p.format} for p in parsed])
    ds.attrs["accounting"] = report.to_json()
    return check(ds), report
