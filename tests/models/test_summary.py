"""``summarize`` against ``arviz_stats`` (the reference implementation of its columns)."""

import arviz_stats as azs
import numpy as np
import pandas as pd
import pytest
import xarray as xr

from judgestats.models import summarize
from judgestats.models.diagnostics import TAIL_PROBS

PROB = 0.9


def _reference(tree, names, sample_stats=False):
    """arviz_stats' mean, sd, median, ETI (and diagnostics), one row per variable and cell."""
    stats = azs.summary(
        tree,
        var_names=names,
        kind="stats",
        ci_kind="eti",
        ci_prob=PROB,
        skipna=True,
        round_to="none",
    )
    median = azs.summary(
        tree, var_names=names, kind="stats_median", ci_prob=PROB, skipna=True, round_to="none"
    )
    out = pd.concat([stats, median[["median"]]], axis=1)
    if sample_stats:
        diag = azs.summary(tree, var_names=names, kind="diagnostics", round_to="none")
        # tail ESS at the quantiles of Vehtari et al. (arviz_stats' default is ci_prob's)
        tail = azs.ess(tree["posterior"].to_dataset()[names], method="tail", prob=TAIL_PROBS)
        diag["ess_tail"] = tail.to_dataframe().loc[:, names[0]].to_numpy()
        out = pd.concat([out, diag], axis=1)
    return out


def _ours(tree, names, **kwargs):
    """Our summary indexed like arviz_stats' rows: ``name[judge, benchmark]``."""
    s = summarize(tree, var_names=names, prob=PROB, **kwargs)
    s.index = [f"{v}[{j}, {b}]" for v, j, b in zip(s.variable, s.judge, s.benchmark, strict=True)]
    return s


def _synthetic_tree(with_nan):
    """Two chains of skewed draws over 3 judges x 2 benchmarks, some draws NaN (seeded)."""
    rng = np.random.default_rng(11)
    x = rng.beta(2.0, 5.0, size=(2, 500, 3, 2)) + np.linspace(0, 0.2, 500)[None, :, None, None]
    if with_nan:
        x[rng.random(x.shape) < 0.1] = np.nan  # a quantity undefined in some draws
    coords = {"judge": ["a", "b", "c"], "benchmark": ["x", "y"]}
    post = xr.Dataset({"kappa": (("chain", "draw", "judge", "benchmark"), x)}, coords=coords)
    stats = xr.Dataset({"diverging": (("chain", "draw"), np.zeros((2, 500), bool))})
    return xr.DataTree.from_dict({"posterior": post, "sample_stats": stats})


def _compare(ours, ref, columns):
    ref = ref.loc[ours.index]
    for ours_col, ref_col in columns.items():
        np.testing.assert_allclose(
            ours[ours_col].to_numpy(float),
            ref[ref_col].to_numpy(float),
            rtol=1e-12,
            atol=1e-14,
            err_msg=ours_col,
        )


STATS = {
    "mean": "mean",
    "sd": "sd",
    "median": "median",
    "lo": f"eti{int(PROB * 100)}_lb",
    "hi": f"eti{int(PROB * 100)}_ub",
}


def test_stats_equal_arviz_stats_on_the_exact_posterior(exact_tree):
    names = ["kappa", "position_bias", "test_retest"]
    ours = _ours(exact_tree, names)
    assert len(ours) > 10 and ours["sd"].gt(0).all()  # the comparison has cells to fail on
    _compare(ours, _reference(exact_tree, names), STATS)


@pytest.mark.parametrize("with_nan", [False, True])
def test_stats_and_diagnostics_equal_arviz_stats_on_chains(with_nan):
    tree = _synthetic_tree(with_nan)
    ours = _ours(tree, ["kappa"])
    _compare(ours, _reference(tree, ["kappa"], sample_stats=True), STATS)
    if not with_nan:  # arviz_stats' diagnostics do not skip NaN draws
        diagnostics = {c: c for c in ("r_hat", "ess_bulk", "ess_tail")}
        _compare(ours, _reference(tree, ["kappa"], sample_stats=True), diagnostics)


def test_sd_is_the_sample_sd_not_the_population_sd():
    tree = _synthetic_tree(False)
    draws = tree["posterior"]["kappa"].sel(judge="a", benchmark="x").values.ravel()
    row = _ours(tree, ["kappa"]).loc["kappa[a, x]"]
    assert row["sd"] == pytest.approx(np.std(draws, ddof=1), rel=1e-12)
    assert row["sd"] != pytest.approx(np.std(draws, ddof=0), rel=1e-6)


def test_diagnostics_of_the_same_draws_are_computed_once(monkeypatch):
    """A report asks twice (the fit's warnings, the summary); new values ask anew."""
    from judgestats.models import diagnostics as module
    from judgestats.models import summary

    calls = []
    real = module.diagnostics
    monkeypatch.setattr(module, "diagnostics", lambda x: calls.append(1) or real(x))
    draws = np.random.default_rng(5).normal(size=(3, 2, 2, 50))
    first = summary._cell_diagnostics(draws)
    again = summary._cell_diagnostics(draws.copy())
    assert len(calls) == 1
    for a, b in zip(first, again, strict=True):
        np.testing.assert_array_equal(a, b)
    again[0][...] = -1.0  # a caller's change does not reach the cache
    np.testing.assert_array_equal(summary._cell_diagnostics(draws)[0], first[0])
    moved = draws.copy()
    moved[0, 0, 0, 0] += 1e-9  # other values: computed again
    summary._cell_diagnostics(moved)
    assert len(calls) == 2
