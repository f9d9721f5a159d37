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
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial

import numpy as np
import pandas as pd
import xarray as xr

from judgestats.accounting import FileAccount, ImportReport, Reject
from judgestats.schema import ITEM_COORDS, ORDERS, Verdict, check, empty_judgments

__all__ = ["JUDGMENT_KEY", "LABEL_KEY", "Parsed", "assemble", "item_id"]

#: Columns that identify one judgment.
JUDGMENT_KEY = ["judge", "item", "order", "run"]
#: Columns that identify one label.
LABEL_KEY = ["item", "rater"]
_JUDGMENT_COLS = [*JUDGMENT_KEY, "verdict", "line"]
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


def _dedup(
    table: pd.DataFrame, key: list[str], value: str, what: str
) -> tuple[pd.DataFrame, pd.Series, list[tuple[str, Reject]]]:
    """Split ``table`` into kept rows, duplicate flags and conflict rejects."""
    repeated = table.duplicated(key, keep=False)
    if not repeated.any():  # the common case: nothing to merge, no grouping needed
        return table, table.loc[repeated, "file"], []
    grouped = table[repeated].groupby(key, sort=False, dropna=False)[value]
    conflict = (grouped.transform("nunique") > 1).reindex(table.index, fill_value=False)
    rejects = []
    for _, grp in table[conflict].groupby(key, sort=False, dropna=False):
        where = ", ".join(
            f"{Verdict(int(v)).name} at {f}:{ln}"
            for v, f, ln in zip(grp[value], grp["file"], grp["line"], strict=True)
        )
        first = grp.iloc[0]
        ident = ", ".join(f"{k}={_py(first[k])!r}" for k in key)
        for f, ln in zip(grp["file"], grp["line"], strict=True):
            rejects.append((f, Reject(f, _line(ln), f"conflicting {what} for {ident}: {where}")))
    rest = table[~conflict]
    dup = rest.duplicated(key, keep="first")
    return rest[~dup], rest.loc[dup, "file"], rejects


def _dedup_labels(
    lt: pd.DataFrame,
) -> tuple[pd.DataFrame, pd.Series, list[tuple[str, Reject]], list[Reject]]:
    """Deduplicate labels: label records (counted) first, then metadata labels.

    A metadata label (one riding along on a judgment record) never displaces or
    rejects a label record: where both exist the label record is kept, and a
    disagreement is a note. Metadata labels that conflict among themselves are
    dropped with a note.
    """
    counted = lt[lt["counted"]]
    meta = lt[~lt["counted"]]
    kept_c, dup_files, conflicts = _dedup(counted, LABEL_KEY, "label", "labels")
    notes: list[Reject] = []
    if not meta.empty:
        keys = pd.MultiIndex.from_frame(meta[LABEL_KEY])
        has_record = keys.isin(pd.MultiIndex.from_frame(counted[LABEL_KEY]))
        shadowed = meta[has_record].merge(
            kept_c[[*LABEL_KEY, "label"]], on=LABEL_KEY, suffixes=("", "_record")
        )
        differ = shadowed[shadowed["label"] != shadowed["label_record"]]
        for item, rater, value, other, f, ln in differ[
            [*LABEL_KEY, "label", "label_record", "file", "line"]
        ].itertuples(index=False):
            notes.append(
                Reject(
                    f,
                    _line(ln),
                    f"label {Verdict(int(value)).name} of item {item!r} (rater {rater!r})"
                    f" disagrees with the label record ({Verdict(int(other)).name}), which"
                    " is kept",
                )
            )
        kept_m, _, meta_conf = _dedup(meta[~has_record], LABEL_KEY, "label", "labels")
        notes += [r for _, r in meta_conf]
        kept_c = pd.concat([kept_c, kept_m]).sort_index()
    return kept_c, dup_files, conflicts, notes


def _unique(*columns: pd.Series | np.ndarray) -> list[str]:
    """Distinct values of the columns together, as strings, in order of appearance."""
    arrays = [np.asarray(c, dtype=object) for c in columns]
    if not arrays:
        return []
    return [str(v) for v in pd.unique(np.concatenate(arrays))]


def _py(value: object) -> object:
    """Return a plain Python scalar for messages (``1``, not ``np.int64(1)``)."""
    return value.item() if isinstance(value, np.generic) else value


def _line(value: object) -> int | None:
    return None if value is None or pd.isna(value) else int(value)


def _given(value: object, fill: str) -> bool:
    """Whether a string coordinate value was given (not missing, not the fill value)."""
    return value is not None and str(value) != fill


def _items_table(parsed: Sequence[Parsed], items: list[str]) -> pd.DataFrame:
    """Per item, the first value given of each coordinate (fill values do not count)."""
    frames = [p.items for p in parsed if not p.items.empty]
    meta = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["item"])
    given = pd.DataFrame({"item": meta["item"].astype(str)})
    for name, (kind, fill) in ITEM_COORDS.items():
        if name not in meta:
            continue
        col = meta[name]
        if kind == "f":
            given[name] = pd.to_numeric(col, errors="coerce").astype(float)
        else:
            text = col.astype(object).where(col.notna(), None)
            keep = text.map(partial(_given, fill=fill), na_action="ignore").fillna(False)
            given[name] = text.where(keep.astype(bool), None)
    first = given.groupby("item", sort=False).first().reindex(pd.Index(items, name="item"))
    out = pd.DataFrame(index=first.index)
    for name, (kind, fill) in ITEM_COORDS.items():
        values = first[name] if name in first else pd.Series(np.nan, index=first.index)
        if kind == "f":
            out[name] = pd.to_numeric(values, errors="coerce").astype(float)
        else:
            out[name] = values.astype(object).where(values.notna(), fill).astype(str)
    return out


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
    judgments = [p.judgments.assign(file=p.file) for p in parsed if not p.judgments.empty]
    labels = [p.labels.assign(file=p.file) for p in parsed if not p.labels.empty]
    jt = (
        pd.concat(judgments, ignore_index=True)
        if judgments
        else pd.DataFrame(columns=[*_JUDGMENT_COLS, "file"])
    )
    # An integer extra variable stays integer (-1 where a file lacks it), not float.
    int_extras = {
        c
        for c in jt.columns
        if c not in _JUDGMENT_COLS
        and all(j[c].dtype.kind in "iub" for j in judgments if c in j.columns)
    }
    for c in int_extras:
        jt[c] = jt[c].fillna(-1).astype(np.int64)
    lt = (
        pd.concat(labels, ignore_index=True)
        if labels
        else pd.DataFrame(columns=[*_LABEL_COLS, "file"])
    )
    if aliases and not jt.empty:
        jt["judge"] = jt["judge"].map(lambda j: aliases.get(j, j))
    jt = jt.astype({"judge": str, "item": str, "order": str, "run": np.int64, "verdict": np.int8})
    lt = lt.astype({"item": str, "rater": str, "label": np.int8})
    if "counted" not in lt:
        lt["counted"] = True
    lt["counted"] = lt["counted"].fillna(True).astype(bool)

    jt_kept, jt_dup_files, jt_conf = _dedup(jt, JUDGMENT_KEY, "verdict", "verdicts")
    lt_kept, lt_dup_files, lt_conf, label_notes = _dedup_labels(lt)
    lt_counted = lt_kept[lt_kept["counted"]]

    # Items: judged or labelled ones, then any only described (kept, all missing).
    described = [p.items["item"].to_numpy(dtype=object) for p in parsed if "item" in p.items]
    seen = _unique(jt_kept["item"], lt_kept["item"], *described)
    known = set(seen)
    if items_order is not None:
        wanted = set(items_order)
        seen = [i for i in items_order if i in known] + [i for i in seen if i not in wanted]
    judges = _unique(jt_kept["judge"])
    orders = [o for o in ORDERS if o in set(jt_kept["order"])] or ["AB"]
    runs = int(jt_kept["run"].max()) + 1 if not jt_kept.empty else 1
    raters = _unique(lt_kept["rater"])
    ds = empty_judgments(judges, seen, orders, runs, raters)

    if not jt_kept.empty:
        idx = (
            pd.Index(judges).get_indexer(jt_kept["judge"]),
            pd.Index(seen).get_indexer(jt_kept["item"]),
            pd.Index(orders).get_indexer(jt_kept["order"]),
            jt_kept["run"].to_numpy(),
        )
        ds["verdict"].values[idx] = jt_kept["verdict"].to_numpy()
        extra = [c for c in jt_kept.columns if c not in [*_JUDGMENT_COLS, "file"]]
        for name in extra:
            col = jt_kept[name]
            if col.dtype.kind in "iub":
                arr = np.full(ds["verdict"].shape, -1, dtype=np.int16)
            elif col.dtype.kind == "f":
                arr = np.full(ds["verdict"].shape, np.nan)
            else:
                arr = np.full(ds["verdict"].shape, "", dtype=object)
                col = col.fillna("").astype(str)
            arr[idx] = col.to_numpy()
            if arr.dtype == object:
                arr = arr.astype(str)
            ds[name] = (("judge", "item", "order", "run"), arr)
    if not lt_kept.empty:
        ds["human"].values[
            pd.Index(seen).get_indexer(lt_kept["item"]),
            pd.Index(raters).get_indexer(lt_kept["rater"]),
        ] = lt_kept["label"].to_numpy()

    meta = _items_table(parsed, seen)
    coords = {}
    for name in ITEM_COORDS:
        values = meta[name].to_numpy()
        values = values.astype(float) if values.dtype.kind == "f" else values.astype(str)
        coords[name] = ("item", values)
    ds = ds.assign_coords(coords)

    rejects_by_file: dict[str, list[Reject]] = {}
    for p in parsed:
        rejects_by_file.setdefault(p.file, []).extend(p.rejects)
    for f, r in jt_conf + lt_conf:
        rejects_by_file.setdefault(f, []).append(r)
    dup_counts = Counter(jt_dup_files.tolist()) + Counter(lt_dup_files.tolist())
    conf_counts = Counter(f for f, _ in jt_conf + lt_conf)
    kept_counts = Counter(jt_kept["file"].tolist()) + Counter(lt_counted["file"].tolist())
    invalid_counts = Counter(jt_kept.loc[jt_kept["verdict"] == Verdict.INVALID, "file"].tolist())

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
    report = ImportReport(tuple(accounts), rejects, file_notes + tuple(label_notes))
    ds.attrs["sources"] = json.dumps([{"file": p.file, "format": p.format} for p in parsed])
    ds.attrs["accounting"] = report.to_json()
    return check(ds), report
