"""The report files: summary.json against the posterior, CSV, LaTeX, self-contained HTML."""

from __future__ import annotations

import base64
import json
import math
import re
from xml.etree import ElementTree

import numpy as np
import pandas as pd
import pytest

from judgestats.models import load_posterior, summarize

TOL = 1e-12  # the records are copies of the summary: equal up to float printing


@pytest.fixture(scope="module")
def summary(demo_run):
    return json.loads((demo_run.folder / "summary.json").read_text())


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_summary_json_agrees_with_the_posterior(demo_run, summary):
    tree = load_posterior(demo_run.folder / "posterior.nc")
    names = sorted({r["quantity"] for r in summary["records"]} - {"max_abs_rank_shift"})
    s = summarize(tree, var_names=names, prob=summary["prob"], thresholds={})
    index = {
        (row.variable, row.judge, row.benchmark, row.benchmark_pair): row
        for row in s.astype(object).where(s.notna(), None).itertuples()
    }
    checked = 0
    for rec in summary["records"]:
        if rec["quantity"] == "max_abs_rank_shift":
            continue
        row = index[(rec["quantity"], rec["judge"], rec["benchmark"], rec["benchmark_pair"])]
        if rec["quantity"] in ("paradox", "top_k_all"):
            expected = (row.mean, None, None)  # a probability, without interval
        else:
            expected = (row.median, row.lo, row.hi)
        got = (rec["value"], rec["lo"], rec["hi"])
        for g, e in zip(got, expected, strict=True):
            if e is None or (isinstance(e, float) and math.isnan(e)):
                assert g is None, rec
            else:
                assert g == pytest.approx(e, abs=TOL), rec
        checked += 1
    assert checked > 100
    assert summary["model"] == tree.attrs["model"] == "exact"
    assert summary["warnings"] == json.loads(tree.attrs["warnings"])


def test_summary_json_probabilities_agree_with_the_draws(demo_run, summary):
    tree = load_posterior(demo_run.folder / "posterior.nc")
    post = tree["posterior"]
    for rec in summary["records"]:
        if rec["quantity"] in ("kappa", "position_bias", "test_retest") and rec["p_threshold"]:
            x = post[rec["quantity"]].sel(judge=rec["judge"], benchmark=rec["benchmark"]).values
            op, value = rec["threshold"].split()
            side = x > float(value) if op == ">" else x < float(value)
            assert rec["p_threshold"] == pytest.approx(side.mean(), abs=TOL), rec


def test_summary_records_are_unique_and_complete(summary):
    frame = pd.DataFrame(summary["records"])
    keys = ["judge", "benchmark", "benchmark_pair", "quantity"]
    assert not frame.duplicated(keys).any()
    steps = frame.dropna(subset=["step"])
    assert set(steps["verdict"]) <= {"PASS", "FAIL", "INCONCLUSIVE", "NOT MEASURED"}
    # Steps 1, 2, 3 and 5 for every judge x benchmark judged; step 4 once per judge.
    per_cell = steps[steps.step != 4].groupby(["judge", "benchmark"])["step"].apply(sorted)
    assert all(s == [1, 2, 3, 5] for s in per_cell)
    per_judge = steps[steps.step == 4].groupby("judge").size()
    assert (per_judge == 1).all()
    assert set(per_judge.index) == set(per_cell.index.get_level_values("judge"))


def test_csv_matches_json(demo_run, summary):
    csv = pd.read_csv(demo_run.folder / "summary.csv")
    js = pd.DataFrame(summary["records"])
    assert list(csv.columns) == list(js.columns)
    assert len(csv) == len(js)
    np.testing.assert_allclose(
        csv["value"].to_numpy(float), js["value"].to_numpy(float), rtol=1e-12, equal_nan=True
    )


def test_latex_tables(demo_run):
    tex = (demo_run.folder / "tables.tex").read_text()
    assert tex.count(r"\toprule") == tex.count(r"\bottomrule") == 3
    assert r"\usepackage{booktabs}" in tex
    assert re.search(r"& -?\d\.\d\d \[-?\d\.\d\d, -?\d\.\d\d\] &", tex)
    assert re.search(r"& \d+(\.5)? \[\d+, \d+\]", tex)  # ranks
    assert "95\\%" in tex


def test_html_is_self_contained(demo_run):
    page = (demo_run.folder / "index.html").read_text()
    # Nothing to fetch: no external stylesheet, script or image.
    assert not re.search(r"(src|href)=\"(https?:)?//", page)
    assert "<link" not in page and "<script" not in page
    uris = re.findall(r'<img alt="([a-z_]+)" src="data:image/svg\+xml;base64,([^"]+)"', page)
    assert [name for name, _ in uris] == ["agreement", "position_bias", "paradox", "ranks"]
    judges = set(pd.read_csv(demo_run.folder / "summary.csv")["judge"])
    for _, data in uris:
        svg = ElementTree.fromstring(base64.b64decode(data))
        assert svg.tag == "{http://www.w3.org/2000/svg}svg"
        width, height = (float(svg.get(k).removesuffix("pt")) for k in ("width", "height"))
        assert width > 400 and height > 200
        # text is text: the judges are named in it, in a font the reader has
        texts = [t for t in svg.iter("{http://www.w3.org/2000/svg}text")]
        assert judges & {"".join(t.itertext()) for t in texts}
        assert all("sans-serif" in t.get("style", "") for t in texts)
    for section in ("MVVP verdicts", "Diagnostics", "Import accounting", "All estimates"):
        assert section in page


@pytest.mark.filterwarnings("ignore::judgestats.models.ConvergenceWarning")
def test_html_shows_failed_diagnostics(tmp_path):
    from judgestats import mvvp
    from judgestats.models import ExactConfig, ExactModel
    from judgestats.report import write_report
    from judgestats.simulate import simulate, small_cohort

    cfg = (
        small_cohort()
        .with_benchmark("MT-Bench", n_items=60)
        .with_benchmark("JudgeBench", n_items=40)
    )
    ds = simulate(cfg, random_seed=1).dataset
    tree = ExactModel(ExactConfig(draws=200)).fit(ds, random_seed=1)
    tree.attrs["warnings"] = json.dumps(["kappa: R-hat up to 1.2 (> 1.01) for 3 of 12 cells"])
    files = write_report(tree, mvvp.check(tree, ds), tmp_path)
    page = files["html"].read_text()
    assert "Sampler diagnostics failed" in page
    assert "kappa: R-hat up to 1.2 (&gt; 1.01) for 3 of 12 cells" in page
    assert json.loads(files["json"].read_text())["warnings"] == [
        "kappa: R-hat up to 1.2 (> 1.01) for 3 of 12 cells"
    ]


def test_estimates_are_listed_up_to_a_limit_then_pointed_to(demo_run):
    import pandas as pd

    from judgestats.report.html import MAX_ESTIMATE_ROWS, _estimates_section

    page = (demo_run.folder / "index.html").read_text()
    assert "records (also in summary.csv and summary.json)</summary><table" in page
    many = _estimates_section(pd.DataFrame(index=range(MAX_ESTIMATE_ROWS + 1)))
    assert "<table" not in many
    assert f"{MAX_ESTIMATE_ROWS + 1} records" in many and "summary.csv" in many
