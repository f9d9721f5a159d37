"""The verdict tables (HTML and text) read back cell by cell against the results."""

from __future__ import annotations

import pytest
from html_tables import read_tables

from judgestats import mvvp
from judgestats.models import ExactConfig, ExactModel
from judgestats.mvvp import Step
from judgestats.mvvp.result import QUANTITY_LABELS
from judgestats.report.verdicts import COLUMNS, PLAN_HEADER, verdict_html, verdict_text
from judgestats.simulate import simulate, small_cohort

#: A judge name that needs escaping in HTML.
ODD = 'Q<3> & "8B"'


@pytest.fixture(scope="module")
def result():
    """Five judges on two benchmarks (exact tier, seeded), one judge oddly named."""
    ds = simulate(small_cohort(), random_seed=4, scale=0.5).dataset
    names = [ODD if "Qwen" in j else j for j in ds["judge"].values.tolist()]
    ds = ds.assign_coords(judge=names)
    tree = ExactModel(ExactConfig(draws=200)).fit(ds, random_seed=4)
    return mvvp.check(tree, ds)


def _expected(r):
    label = QUANTITY_LABELS.get(r.quantity, r.quantity)
    return (f"{r.verdict.value} {label} {r.formatted}", r.reason, (r.verdict.name,))


def _cell(c):
    return (" ".join(c["text"].split()), c["title"], tuple(c["badges"]))


def test_one_table_holds_every_result_once_with_reason_and_badge(result):
    page = verdict_html(result, per_benchmark=False)
    (table,) = read_tables(page)
    assert [c["text"] for c in table["head"][0][2:]] == [h for h, _ in COLUMNS]
    rows = result.rows()
    assert len(table["body"]) == len(rows) == 10
    for (judge, bench), cells in zip(rows, table["body"], strict=True):
        assert [c["text"] for c in cells[:2]] == [judge, bench]
        for (_, step), cell in zip(COLUMNS, cells[2:], strict=True):
            assert _cell(cell) == _expected(result.get(step, judge, bench))
    # a judge's name and its per-judge verdict (step 4) span the judge's rows
    assert page.count('rowspan="2"') == len(result.judges)
    assert page.count(' js-cont"') == len(rows) - len(result.judges)
    assert "Q&lt;3&gt; &amp; " in page and "Q<3>" not in page  # the name, escaped


def test_per_benchmark_tables_put_the_worst_first(result):
    page = verdict_html(result, per_benchmark=True)
    tables = read_tables(page)
    assert len(tables) == len(result.benchmarks) == 2
    for bench, table in zip(result.benchmarks, tables, strict=True):
        assert [c["text"] for c in table["head"][0]] == ["judge", *(h for h, _ in COLUMNS)]
        judges = [cells[0]["text"] for cells in table["body"]]
        assert sorted(judges) == sorted(result.judges)
        worst = [
            max(result.get(s, j, bench).verdict.severity for s in Step if s.per_benchmark)
            for j in judges
        ]
        assert worst == sorted(worst, reverse=True)
        for judge, cells in zip(judges, table["body"], strict=True):
            for (_, step), cell in zip(COLUMNS, cells[1:], strict=True):
                assert _cell(cell) == _expected(result.get(step, judge, bench))
        assert f'href="#verdicts-{bench}"' in page


@pytest.mark.parametrize("per_benchmark", [False, True])
def test_plan_column_says_what_settles_each_row(result, per_benchmark):
    judge, bench = result.rows()[1]
    settles = {(judge, bench): "+400 items & 1 run <or so>"}
    tables = read_tables(verdict_html(result, per_benchmark=per_benchmark, settles=settles))
    shown = {}
    for table in tables:
        assert table["head"][0][-1]["text"] == PLAN_HEADER
        for cells in table["body"]:
            shown[cells[0]["text"], cells[-1]["text"]] = cells[-1]["title"]
    assert (judge, settles[(judge, bench)]) in shown
    assert sum(text != "" for _, text in shown) == 1
    assert "settles with" not in verdict_html(result, per_benchmark=per_benchmark)


def test_text_table_rows_and_columns(result):
    lines = verdict_text(result, details=False).splitlines()
    header = lines[1]
    heads = [
        f"{int(s)} {name}"
        for s, name in zip(
            Step, ("chance", "swap", "replicate", "cross-val", "paradox"), strict=True
        )
    ]
    starts = [header.index(h) for h in heads]
    assert lines[2].split() == ["judge", "benchmark"]
    body = lines[3 : 3 + len(result.rows())]
    last = None
    for (judge, bench), line in zip(result.rows(), body, strict=True):
        line = line.ljust(len(header) + 20)
        assert line[: starts[0]].split() == ([bench] if judge == last else [*judge.split(), bench])
        for step, start, end in zip(Step, starts, [*starts[1:], None], strict=True):
            shown = line[start:end].strip()
            if step.per_benchmark or judge != last:
                assert shown == result.get(step, judge, bench).verdict.value
            else:
                assert shown == ""  # a per-judge verdict is shown once per judge
        last = judge
    assert lines[3 + len(result.rows())].endswith("NOT MEASURED")  # the counts
