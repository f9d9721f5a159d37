"""Write simulated judgments as logs in the generic long-table layout.

The layout is that of :mod:`judgestats.io.formats.table`: one row per judgment
with columns ``judge, item, verdict, order, run, benchmark, category, label_kind,
human, length_a, length_b, model_a, model_b``; verdicts and labels are the strings
``"A"``, ``"B"``, ``"tie"``, ``"invalid"``, in the item frame. Reading the files
back with :func:`judgestats.read_logs` gives the simulated dataset again.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

from judgestats.io.formats.table import TABLE_FIELDS
from judgestats.schema import Verdict
from judgestats.simulate.presets import DEMO_SEED, demo_cohort
from judgestats.simulate.simulator import simulate
from judgestats.tally import consensus_label

__all__ = ["DEMO_FILES", "TABLE_COLUMNS", "judgments_table", "write_demo_logs"]

#: Columns of the long table, in order (the generic importer's layout; no rater:
#: the demo logs carry one human label per item).
TABLE_COLUMNS: tuple[str, ...] = tuple(f for f in TABLE_FIELDS if f != "rater")

#: Benchmark of the demo cohort → file it is written to (one format each).
DEMO_FILES: dict[str, str] = {
    "MT-Bench": "mt_bench.csv",
    "JudgeBench": "judgebench.jsonl",
    "RewardBench": "rewardbench.parquet",
}

_NAMES = {Verdict.A: "A", Verdict.B: "B", Verdict.TIE: "tie", Verdict.INVALID: "invalid"}


def judgments_table(ds: xr.Dataset) -> pd.DataFrame:
    """Return the judgments of a dataset as a long table, one row per judgment.

    Parameters
    ----------
    ds : xarray.Dataset
        A Judgments dataset whose item ids are ``benchmark/key``.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`TABLE_COLUMNS`; ``item`` is the key within the benchmark,
        ``human`` the item's consensus label; missing judgments are left out.

    Examples
    --------
    >>> from judgestats.simulate import simulate, small_cohort
    >>> table = judgments_table(simulate(small_cohort(), random_seed=0).dataset)
    >>> len(table), table["verdict"].isin(["A", "B", "tie", "invalid"]).all()
    (15000, np.True_)
    """
    v = ds["verdict"].transpose("judge", "item", "order", "run").values
    j, i, o, r = np.nonzero(v != Verdict.MISSING)
    codes = v[j, i, o, r]
    names = np.empty(len(codes), dtype=object)
    for code, name in _NAMES.items():
        names[codes == code] = name
    label = consensus_label(ds["human"].values)
    human = np.full(len(label), "", dtype=object)
    for code, name in _NAMES.items():
        human[label == code] = name
    bench = ds["benchmark"].values
    items = ds["item"].values
    keys = np.array([s[len(b) + 1 :] for s, b in zip(items, bench, strict=True)])
    return pd.DataFrame(
        {
            "judge": ds["judge"].values[j],
            "item": keys[i],
            "verdict": names,
            "order": ds["order"].values[o],
            "run": ds["run"].values[r],
            "benchmark": bench[i],
            "category": ds["category"].values[i],
            "label_kind": ds["label_kind"].values[i],
            "human": human[i],
            "length_a": ds["length_a"].values[i].astype(np.int64),
            "length_b": ds["length_b"].values[i].astype(np.int64),
            "model_a": ds["model_a"].values[i],
            "model_b": ds["model_b"].values[i],
        },
        columns=list(TABLE_COLUMNS),
    )


def write_demo_logs(folder: str | Path, random_seed: int = DEMO_SEED) -> list[Path]:
    """Simulate the demo cohort and write its logs, one file format per benchmark.

    MT-Bench goes to CSV, JudgeBench to JSON Lines and RewardBench to Parquet
    (:data:`DEMO_FILES`). The output is deterministic given ``random_seed``.

    Parameters
    ----------
    folder : str or Path
        Created if needed; only the files of :data:`DEMO_FILES` are written.
    random_seed : int, default DEMO_SEED

    Returns
    -------
    list of Path
        The files written.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    table = judgments_table(simulate(demo_cohort(), random_seed=random_seed).dataset)
    written = []
    for bench, name in DEMO_FILES.items():
        part = table[table["benchmark"] == bench].reset_index(drop=True)
        path = folder / name
        if path.suffix == ".csv":
            part.to_csv(path, index=False, lineterminator="\n")
        elif path.suffix == ".jsonl":
            part.to_json(path, orient="records", lines=True)
        else:
            part.to_parquet(path, index=False)
        written.append(path)
    return written
