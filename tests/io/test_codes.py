"""Integer-code helpers of the readers, against pandas as the oracle (dense and sparse keys)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from judgestats.io.kit import duplicated, factorize, first_rows, flat_key


@pytest.mark.parametrize("high", [5, 1000, 10**12])  # dense, dense, sparse (hashed)
def test_factorize_and_duplicated_match_pandas(high):
    key = np.random.default_rng(7).integers(0, high, size=3000)
    codes, uniques = factorize(key)
    want_codes, want_uniques = pd.factorize(key)
    assert codes.tolist() == want_codes.tolist()
    assert np.asarray(uniques).tolist() == np.asarray(want_uniques).tolist()
    codes, uniques = factorize(key, sort=True)
    want_codes, want_uniques = pd.factorize(key, sort=True)
    assert codes.tolist() == want_codes.tolist()
    assert np.asarray(uniques).tolist() == np.asarray(want_uniques).tolist()
    series = pd.Series(key)
    assert duplicated(key).tolist() == series.duplicated(keep="first").tolist()
    assert duplicated(key, keep=False).tolist() == series.duplicated(keep=False).tolist()
    from judgestats.io._codes import has_repeats

    assert has_repeats(key) == bool(series.duplicated().any())
    assert not has_repeats(np.unique(key))


def test_flat_key_is_equal_exactly_when_all_codes_are():
    rng = np.random.default_rng(3)
    columns = [rng.integers(0, n, size=2000) for n in (4, 50, 3)]
    flat = flat_key(columns)
    rows = pd.DataFrame(dict(enumerate(columns)))
    assert pd.Series(flat).duplicated().tolist() == rows.duplicated().tolist()
    # Too many combinations for one integer: still one key per distinct row.
    huge = [rng.integers(0, 2**40, size=500) % 7 * 2**38 for _ in range(3)]
    flat = flat_key(huge)
    rows = pd.DataFrame(dict(enumerate(huge)))
    assert pd.Series(flat).duplicated().tolist() == rows.duplicated().tolist()


def test_appearance_is_the_order_of_first_appearance():
    from judgestats.io._codes import appearance

    rng = np.random.default_rng(5)
    for codes in (
        np.repeat(rng.permutation(40), rng.integers(1, 9, size=40)),  # runs of equal codes
        rng.integers(-1, 30, size=500),  # no runs, missing codes among them
        np.array([3]),
        np.array([], dtype=np.int64),
    ):
        want = pd.unique(codes)
        assert appearance(codes).tolist() == want[want >= 0].tolist()


@pytest.mark.parametrize(
    "values",
    [
        np.arange(6).repeat(4),  # every value between the extremes: codes are offsets
        np.array([7, -3, 7, 120, -3], dtype=np.int64),  # gaps: ranked
        np.array([2**64 - 1, 2**64 - 3], dtype=np.uint64),  # near the top of the type
        np.array([-(2**63), 2**63 - 1], dtype=np.int64),  # too wide to count: None
    ],
)
def test_integer_codes_match_pandas_sorted_factorize(values):
    from judgestats.io._codes import integer_codes

    got = integer_codes(values)
    if int(values.max()) - int(values.min()) > 8 * len(values) + 1024:
        assert got is None
        return
    assert got is not None
    codes, distinct = got
    want_codes, want = pd.factorize(values, sort=True)
    assert codes.tolist() == want_codes.tolist()
    assert [int(v) for v in distinct] == [int(v) for v in want]


def test_first_rows():
    codes = np.array([2, 0, 2, -1, 0, 3])
    assert first_rows(codes, 5).tolist() == [1, -1, 0, 5, -1]


def test_row_codes_are_the_categoricals_own_and_relabel_never_shares_them():
    from judgestats.io.kit import codes_of, relabel, row_codes

    values = pd.Series(pd.Categorical(["b", "a", None, "b"]))
    codes, uniques = row_codes(values)
    assert uniques.tolist() == ["a", "b"]
    assert codes.dtype == np.int8 and np.shares_memory(codes, values.array.codes)
    assert codes_of(values)[0].dtype == np.int64
    assert codes.tolist() == codes_of(values)[0].tolist() == [1, 0, -1, 1]
    renamed = relabel(codes, ["A", "B"])  # distinct names: the codes kept, as a copy
    assert renamed.tolist()[:2] == ["B", "A"] and pd.isna(renamed.iat[2])
    assert not np.shares_memory(renamed.cat.codes.to_numpy(), codes)
    merged = relabel(codes, ["x", "x"])  # equal names: one category
    assert merged.cat.categories.tolist() == ["x"] and merged.tolist()[:2] == ["x", "x"]


def test_first_rows_match_the_first_occurrence_found_by_sorting():
    rng = np.random.default_rng(11)
    for codes in (rng.integers(-1, 50, size=2000), np.array([], dtype=np.int64)):
        want = np.full(60, -1)
        present, at = np.unique(codes, return_index=True)  # oracle: a stable sort
        want[present[present >= 0]] = at[present >= 0]
        assert first_rows(codes, 60).tolist() == want.tolist()


@pytest.mark.parametrize(
    "labels",
    [
        ["A", "B", "C"],  # distinct text: the codes kept
        ["x", "y", "x"],  # equal labels: one category
        ["A", None, "C"],  # a missing label
        [1, "1", 2],  # not all text: by their text, equal ones merged
        [],
    ],
)
def test_relabel_by_a_text_index_equals_relabel_by_a_list(labels):
    from judgestats.io.kit import relabel

    codes = np.array([0, 2, -1, 1, 2]) if labels else np.array([-1])  # -1: a missing row
    by_list = relabel(codes, labels)
    by_index = relabel(
        codes, pd.Index([None if v is None else str(v) for v in labels], dtype="str")
    )
    text = [None if v is None else str(v) for v in labels]
    want = [None if c < 0 or text[c] is None else text[c] for c in codes]  # oracle: by hand
    assert [None if pd.isna(v) else v for v in by_list.tolist()] == want
    assert [None if pd.isna(v) else v for v in by_index.tolist()] == want
    assert by_index.cat.categories.tolist() == by_list.cat.categories.tolist()
    assert by_index.cat.categories.is_unique


def test_items_appear_in_the_order_of_their_first_row_over_all_columns():
    from judgestats.io._assemble import _appearance

    first = pd.Series(pd.Categorical(["b", "a", "b", None, "c"]))
    second = pd.Series(["d", "a", "e", "d"])  # plain text: factorised
    third = pd.Series(pd.Categorical(["e", "f"], categories=["f", "e"]))
    want = list(dict.fromkeys(v for c in (first, second, third) for v in c if isinstance(v, str)))
    assert _appearance(first, second, third) == want == ["b", "a", "c", "d", "e", "f"]
    assert _appearance() == [] and _appearance(pd.Series([], dtype=str)) == []


def test_item_ids_join_benchmark_and_key_with_a_slash():
    from judgestats.io.formats.table import _join_items

    bench = pd.Series(pd.Categorical(["MT", "RB", "MT", "RB", "MT"]))
    key = pd.Series([7, 7, 8, 7, 7])  # integers: their text
    got = _join_items(bench, key)
    assert got.tolist() == ["MT/7", "RB/7", "MT/8", "RB/7", "MT/7"]
    assert got.cat.categories.is_unique and len(got.cat.categories) == 3
    one = _join_items(pd.Series(["B/x"] * 2), pd.Series(["y", "x/y"]))  # one benchmark
    assert one.tolist() == ["B/x/y", "B/x/x/y"]
    clash = _join_items(pd.Series(["a/b", "a"]), pd.Series(["c", "b/c"]))  # one name twice
    assert clash.tolist() == ["a/b/c", "a/b/c"] and clash.cat.codes.tolist() == [0, 0]
