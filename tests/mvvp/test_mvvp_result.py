"""The result object: access, tables, text and HTML representations."""

from __future__ import annotations

import json

import pytest

from judgestats.mvvp import Step, StepVerdict, format_estimate


def test_repr_and_str_are_tables(cohort):
    _, _, result = cohort
    text = repr(result)
    assert text.startswith("<MVVPResult: 6 judges, 2 benchmarks>")
    assert "1 chance" in text and "5 paradox" in text
    assert "paradox    Pref      FAIL         FAIL" in str(result)
    detailed = result.format()
    assert "FAIL          step 5 (audit the paradox), paradox / Pref" in detailed


def test_html_repr(cohort):
    _, _, result = cohort
    page = result._repr_html_()
    assert page.count("<tr>") == 2 + 12  # header (steps; index names) + judge x benchmark rows
    assert 'class="v FAIL"' in page and 'class="v INCONCLUSIVE"' in page
    assert "title=" in page  # reasons on hover


def test_frame_and_records(cohort):
    _, _, result = cohort
    frame = result.to_frame()
    assert len(frame) == 6 * (4 * 2 + 1)
    assert set(frame["verdict"]) <= {v.value for v in StepVerdict}
    assert frame.loc[frame.step == 4, "benchmark"].isna().all()
    records = result.to_records()
    json.dumps(records)  # JSON-ready: NaN became None
    assert records[0]["step_name"] == "chance-correct"
    table = result.table()
    assert list(table.columns[:2]) == ["judge", "benchmark"]
    assert len(table) == 12


def test_grid_is_what_the_tables_show(cohort):
    _, _, result = cohort
    grid = result.grid()
    assert list(grid.index) == result.rows() and list(grid.columns) == list(Step)
    first = {}
    for judge, bench in result.rows():
        first.setdefault(judge, bench)
    for (judge, bench), row in grid.iterrows():
        for step in Step:
            shown = step.per_benchmark or first[judge] == bench
            assert row[step] is (result.get(step, judge, bench) if shown else None)
    spread = result.grid(once_per_judge=False)
    for judge, bench in result.rows():  # a per-judge result in every row of its judge
        cell = spread.loc[(judge, bench), Step.CROSS_VALIDATE]
        assert cell is result.get(Step.CROSS_VALIDATE, judge)


def test_access(cohort):
    _, _, result = cohort
    assert result.get(Step.CROSS_VALIDATE, "flipper").benchmark is None
    with pytest.raises(KeyError, match="nobody"):
        result.get(1, "nobody", "Pref")
    assert result.worst("paradox") is StepVerdict.FAIL
    assert result.worst("steady") is StepVerdict.PASS
    assert len(result.select(verdict="inconclusive")) == result.counts()[StepVerdict.INCONCLUSIVE]
    assert StepVerdict.parse("not-measured") is StepVerdict.NOT_MEASURED
    with pytest.raises(ValueError, match="'maybe'"):
        StepVerdict.parse("maybe")


@pytest.mark.parametrize(
    ("quantity", "args", "text"),
    [
        ("kappa", (0.512, 0.468, 0.553), "0.51 [0.47, 0.55]"),
        ("rank", (5.0, 3.0, 8.0), "5 [3, 8]"),
        ("rank", (2.5, 1.0, 4.0), "2.5 [1, 4]"),
        ("kappa", (-0.001, -0.04, 0.03), "0.00 [-0.04, 0.03]"),
        ("kappa", (float("nan"), 0.0, 1.0), "n/a"),
        ("test_retest", (0.9, float("nan"), float("nan")), "0.90"),
    ],
)
def test_format_estimate(quantity, args, text):
    assert format_estimate(quantity, *args) == text
