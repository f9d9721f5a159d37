import numpy as np
import pytest

from judgestats.errors import SchemaError
from judgestats.schema import Verdict, check, empty_judgments, validate


def test_empty_dataset_is_valid():
    ds = empty_judgments(["j"], ["b/i"], ["AB", "BA"], 2, ["r"])
    ds = ds.assign_coords(benchmark=("item", ["b"]))
    assert validate(ds) == []
    assert ds["verdict"].attrs["flag_meanings"] == "missing a b tie invalid"
    np.testing.assert_array_equal(ds["verdict"].attrs["flag_values"], [-1, 0, 1, 2, 3])


def test_validate_lists_every_problem_and_check_raises():
    ds = empty_judgments(["j", "j"], ["i"], ["AB", "XY"], 1)
    ds["verdict"].values[0, 0, 0, 0] = 7
    problems = [str(p) for p in validate(ds)]
    assert any("codes [7]" in p for p in problems)
    assert any("duplicate coordinate values ['j']" in p for p in problems)
    assert any("['XY']" in p for p in problems)
    assert any("have no benchmark" in p for p in problems)
    with pytest.raises(SchemaError, match="codes"):
        check(ds)


def test_verdict_parse():
    assert Verdict.parse("tie") is Verdict.TIE
    assert Verdict.parse(1) is Verdict.B
    with pytest.raises(ValueError, match="unknown verdict 'maybe'"):
        Verdict.parse("maybe")
