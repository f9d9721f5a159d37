"""Splitting one file's records into partitions of whole items."""

from __future__ import annotations

import zlib

import numpy as np
import pandas as pd

from judgestats.accounting import Reject
from judgestats.engine.partition import first_seen, partition_of, split_parsed
from judgestats.io import Parsed


def test_partition_is_a_stable_hash_of_the_item():
    items = pd.Series(["b/1", "b/2", "b/1", "é/3"], dtype="category")
    want = [zlib.crc32(s.encode()) % 5 for s in items]
    assert partition_of(items, 5).tolist() == want


def test_first_seen_is_the_smallest_key():
    got = first_seen(pd.Series(["x", "y", "x", "z"]), np.array([7, 3, 1, 9]))
    assert got.to_dict() == {"x": 1, "y": 3, "z": 9}


def test_split_keeps_items_whole_and_the_counts():
    judgments = pd.DataFrame(
        {
            "judge": ["j"] * 6,
            "item": [f"b/{i % 3}" for i in range(6)],
            "order": ["AB", "BA"] * 3,
            "run": [0] * 6,
            "verdict": [0] * 6,
            "line": np.arange(1, 7),
        }
    )
    labels = pd.DataFrame({"item": ["b/0", "b/2"], "rater": ["h", "h"], "label": [0, 1]})
    labels["line"] = [1, 3]
    parsed = Parsed("f.csv", "table", judgments=judgments, labels=labels)
    parsed.rejects.append(Reject("f.csv", 9, "bad"))
    parsed.read = (parsed.read or 0) + 1  # a record that was not even a reject row
    parts = split_parsed(parsed, 3, 0)
    assert sum(p.parsed.read or 0 for p in parts) == parsed.read
    assert parts[0].parsed.rejects == parsed.rejects
    assert all(not p.parsed.rejects for p in parts[1:])
    owner = {}
    for k, p in enumerate(parts):
        for item in [*p.parsed.judgments["item"], *p.parsed.labels["item"]]:
            assert owner.setdefault(item, k) == k  # every record of an item in one part
    assert sorted(owner) == ["b/0", "b/1", "b/2"]
