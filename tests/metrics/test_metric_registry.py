"""Adding a metric is one declaration: it reaches every surface."""

import contextlib
import io
import json

import numpy as np
import pytest

from judgestats import compute_metrics, mvvp, save
from judgestats.cli import main
from judgestats.metrics.formulas import DIRECTION, METRICS, REGISTRY, UNITS
from judgestats.metrics.registry import Metric
from judgestats.models import ExactConfig, ExactModel
from judgestats.mvvp import QUANTITY_LABELS
from judgestats.report.tables import summary_table
from judgestats.schema import Verdict
from judgestats.simulate import simulate, small_cohort

TIE_RATE = Metric(
    "tie_rate",
    "share of judgments that are ties",
    "judgments",
    direction="lower",
    numerator="n_tie",
    denominator="cells",
    label="tie rate",
    reported=True,
)


@pytest.fixture(scope="module")
def ds():
    return simulate(small_cohort(), random_seed=0).dataset


def test_one_declaration_reaches_metrics_posterior_and_summary(ds, tmp_path):
    v = ds["verdict"].values
    bench = ds["benchmark"].values
    with REGISTRY.registered(TIE_RATE):
        assert METRICS["tie_rate"] == TIE_RATE.description
        assert UNITS["tie_rate"] == "judgments" and DIRECTION["tie_rate"] == "lower"
        assert QUANTITY_LABELS["tie_rate"] == "tie rate"
        # the closed form, against a count made here
        res = compute_metrics(ds, interval="none")
        for j, judge in enumerate(ds["judge"].values):
            sub = v[j][bench == "MT-Bench"]
            expected = (sub == Verdict.TIE).sum() / (sub != Verdict.MISSING).sum()
            got = float(res.value.sel(judge=judge, benchmark="MT-Bench", metric="tie_rate"))
            assert got == pytest.approx(expected)
        # metrics --json
        path = tmp_path / "ds.nc"
        save(ds, path)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main(["metrics", str(path), "--json", "--interval", "none"]) == 0
        assert "tie_rate" in out.getvalue()
        json.loads(out.getvalue())
        # the posterior of both tiers goes through the same formulas
        tree = ExactModel(ExactConfig(draws=100)).fit(ds, random_seed=0)
        assert np.isfinite(tree["posterior"]["tie_rate"]).all()
        # and the summary records of a report
        table = summary_table(mvvp.check(tree, ds))
        assert "tie_rate" in set(table["quantity"])
    assert "tie_rate" not in METRICS
    with pytest.raises(ValueError, match="already declared"):
        REGISTRY.register(Metric("kappa", "again", "x", numerator="n_a", denominator="cells"))
