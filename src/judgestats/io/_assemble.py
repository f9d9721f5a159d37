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
    """

    file: str
    format: str
    judgments: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=_JUDGMENT_COLS))
    labels: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=_LABEL_COLS))
    items: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=["item"]))
    rejects: list[Reject] = field(default_factory=list)
    read: int | None = None

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
    if table.empty:
        return table, pd.Series(False, index=table.index), []
    grouped = table.groupby(key, sort=False, dropna=False)[value]
    n_values = grouped.transform("nunique")
    conflict = n_values > 1
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


def _py(value: object) -> object:
    """Return a plain Python scalar for messages (``1``, not ``np.int64(1)``)."""
    return value.item() if isinstance(value, np.generic) else value


def _line(value: object) -> int | None:
    return None if value is None or pd.isna(value) else int(value)


def _items_table(parsed: Sequence[Parsed], items: list[str]) -> pd.DataFrame:
    frames = [p.items for p in parsed if not p.items.empty]
    meta = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["item"])
    out = pd.DataFrame(index=pd.Index(items, name="item"))
    for name, (kind, fill) in ITEM_COORDS.items():
        if name in meta:
            col = meta[["item", name]].dropna()
            if kind == "U":
                col = col[col[name].astype(str) != str(fill)]
            first = col.drop_duplicates("item").set_index("item")[name]
            values = first.reindex(out.index)
        else:
            values = pd.Series(np.nan, index=out.index)
        if kind == "f":
            out[name] = pd.to_numeric(values, errors="coerce").astype(float)
        else:
            out[name] = values.where(values.notna(), fill).astype(str)
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
    lt_kept, lt_dup_files, lt_conf_all = _dedup(lt, LABEL_KEY, "label", "labels")
    counted_lines = set(
        zip(lt.loc[lt["counted"], "file"], lt.loc[lt["counted"], "line"], strict=True)
    )
    lt_conf = [(f, r) for f, r in lt_conf_all if (f, r.line) in counted_lines]
    label_notes = [r for f, r in lt_conf_all if (f, r.line) not in counted_lines]
    lt_dup_files = lt_dup_files[lt.loc[lt_dup_files.index, "counted"]]
    lt_counted = lt_kept[lt_kept["counted"]]

    # Items: judged or labelled ones, then any only described (kept, all missing).
    seen = list(dict.fromkeys([*jt_kept["item"], *lt_kept["item"]]))
    for p in parsed:
        seen += [i for i in p.items.get("item", []) if i not in set(seen)]
    if items_order is not None:
        seen = [i for i in items_order if i in set(seen)] + [
            i for i in seen if i not in set(items_order)
        ]
    judges = list(dict.fromkeys(jt_kept["judge"]))
    orders = [o for o in ORDERS if o in set(jt_kept["order"])] or ["AB"]
    runs = int(jt_kept["run"].max()) + 1 if not jt_kept.empty else 1
    raters = list(dict.fromkeys(lt_kept["rater"]))
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
    for name in ITEM_COORDS:
        values = meta[name].to_numpy()
        values = values.astype(float) if values.dtype.kind == "f" else values.astype(str)
        ds = ds.assign_coords({name: ("item", values)})

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
    report = ImportReport(tuple(accounts), rejects, tuple(label_notes))
    ds.attrs["sources"] = json.dumps([{"file": p.file, "format": p.format} for p in parsed])
    ds.attrs["accounting"] = report.to_json()
    return check(ds), report
