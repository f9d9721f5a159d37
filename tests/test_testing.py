"""The public test helpers, and the properties they let any test state."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from judgestats import compute_metrics
from judgestats.metrics.formulas import METRICS
from judgestats.models import ExactConfig, ExactModel
from judgestats.schema import validate
from judgestats.testing import from_table, judgments, make_judgments


def test_builders_make_schema_valid_datasets():
    ds = from_table(np.array([[3, 1], [0, 2]]))
    assert validate(ds) == []
    assert int((ds["verdict"] >= 0).sum()) == 6
    with pytest.raises(ValueError, match="orders"):
        make_judgments(np.zeros((1, 2, 1, 1)), orders=("AB", "BA"))


@settings(
    max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(judgments())
def test_no_defined_interval_collapses_and_nothing_raises(ds):
    assert validate(ds) == []
    compute_metrics(ds, interval="none")
    post = ExactModel(ExactConfig(draws=100)).fit(ds, random_seed=0)["posterior"]
    for name in METRICS:
        x = post[name].values
        defined = np.isfinite(x).all(axis=(0, 1))  # (judge, benchmark) cells
        width = np.nanquantile(x, 0.975, axis=(0, 1)) - np.nanquantile(x, 0.025, axis=(0, 1))
        assert np.all(width[defined] > 0), name
