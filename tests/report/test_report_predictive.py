"""The report's posterior predictive section, from checks of known outcome."""

import json

import numpy as np
import xarray as xr

from judgestats.models import HierarchicalConfig
from judgestats.models.base import FitData
from judgestats.models.layout import build_layout
from judgestats.models.ppc import PredictiveChecks, misfit_level, misfits
from judgestats.report.predictive import predictive_table, section
from judgestats.simulate import simulate, small_cohort


def _predictive(twins: bool) -> xr.Dataset:
    ds = simulate(small_cohort(), random_seed=0, scale=0.4).dataset.copy(deep=True)
    if twins:  # judges 1 and 3 copy 0 and 2: agreement beyond their shares
        for a, b in ((0, 1), (2, 3)):
            ds["verdict"][dict(judge=b)] = ds["verdict"].isel(judge=a).values
    data = FitData.from_data(ds)
    layout = build_layout(data, HierarchicalConfig().rare_per_judge)
    checks = PredictiveChecks(layout, data, 1, 300)
    rng = np.random.default_rng(0)
    for c, block in enumerate(layout.blocks):
        bt = data.tally[data.benchmarks[block.benchmark]]
        counts = bt.counts[:, block.label, :] + 1e-3
        theta = np.concatenate([counts, np.full((len(counts), 1), 1e-3)], -1)
        theta = np.broadcast_to(theta / theta.sum(-1, keepdims=True), (300, *theta.shape))
        checks.add(0, c, theta.copy(), rng)
    return checks.dataset()


def _tree(pred: xr.Dataset) -> xr.DataTree:
    tree = xr.DataTree.from_dict({"predictive": pred})
    tree.attrs["misfits"] = json.dumps(misfits(pred))
    return tree


def test_section_lists_flagged_checks_table_and_figure():
    pred = _predictive(twins=True)
    page = "\n".join(section(_tree(pred)))
    assert "<h2>Posterior predictive checks</h2>" in page
    assert "check(s) flagged" in page and "inter-judge agreement" in page
    assert page.count('<img alt="posterior predictive check"') == 1  # 2 benchmarks, one figure
    table = predictive_table(pred)
    assert list(table["benchmark"]) == list(pred["benchmark"].values)
    assert (table["agreement p"] < misfit_level(pred)).all()
    assert (table["patterns flagged"] == 0).all()


def test_section_says_when_nothing_is_flagged_and_is_absent_without_checks():
    page = "\n".join(section(_tree(_predictive(twins=False))))
    assert "No posterior predictive check is flagged." in page
    assert section(None) == []
    assert section(xr.DataTree()) == []


def test_section_says_whether_the_judges_draws_were_paired():
    pred = _predictive(twins=True)
    tree = _tree(pred)
    paired = "\n".join(section(tree))  # no config recorded: the default pairs them
    assert "err wide, not narrow" in paired and "pair_items off" not in paired
    tree.attrs["config"] = json.dumps({"pair_items": False})
    unpaired = "\n".join(section(tree))
    assert "pair_items off" in unpaired and "err wide" not in unpaired
