"""Compiled models are reused across fits of the same structure."""

import numpy as np
import pytest

from judgestats.models import HierarchicalConfig, HierarchicalModel, sampling
from judgestats.models.sampling import CompiledCache
from judgestats.simulate import simulate, small_cohort
from judgestats.testing import swap_verdicts

TINY = HierarchicalConfig(draws=60, tune=60, reuse_compiled=True)


class FakeCompiled:
    """Stands for a compiled nutpie model: records the data it was filled with."""

    def __init__(self, model):
        self.model, self.data = model, None

    def with_data(self, **data):
        out = FakeCompiled(self.model)
        out.data = data
        return out


@pytest.fixture
def compilations(monkeypatch):
    """Count calls of nutpie's compiler; the process cache replaced by an empty one."""
    import nutpie

    calls = []
    real = nutpie.compile_pymc_model

    def counting(model, **kwargs):
        calls.append(model)
        return real(model, **kwargs)

    monkeypatch.setattr(nutpie, "compile_pymc_model", counting)
    monkeypatch.setattr(sampling, "compiled_models", CompiledCache(2))
    return calls


def test_cache_is_bounded_and_fills_cached_models_with_new_data(monkeypatch):
    import nutpie

    monkeypatch.setattr(nutpie, "compile_pymc_model", lambda model, **kw: FakeCompiled(model))
    cache = CompiledCache(2)
    first, seconds = cache.get("m1", "a", {"x": 1})
    assert first.model == "m1" and first.data is None and seconds >= 0
    again, seconds = cache.get("m2", "a", {"x": 2})
    assert again.model == "m1" and again.data == {"x": 2} and seconds == 0.0
    cache.get("m3", "b", {})
    cache.get("m4", "c", {})  # drops "a", the least recently used
    assert len(cache) == 2
    assert cache.get("m5", "a", {})[0].model == "m5"


@pytest.mark.slow
def test_same_structure_fit_does_not_compile_and_matches_a_fresh_compile(compilations):
    ds = simulate(small_cohort(), random_seed=0, scale=0.1).dataset
    other = swap_verdicts(ds)
    HierarchicalModel(TINY).fit(ds, random_seed=3)
    assert len(compilations) == 1
    reused = HierarchicalModel(TINY).fit(other, random_seed=3)
    assert len(compilations) == 1
    assert reused["sample_stats"].attrs["compile_time"] == 0.0
    sampling.compiled_models.clear()
    fresh = HierarchicalModel(TINY).fit(other, random_seed=3)
    assert len(compilations) == 2
    for name in ("kappa", "test_retest", "trait_spread"):
        np.testing.assert_array_equal(
            reused["posterior"][name].values, fresh["posterior"][name].values
        )


@pytest.mark.slow
def test_without_reuse_new_counts_compile_and_the_same_counts_do_not(compilations):
    cfg = HierarchicalConfig(draws=60, tune=60)
    ds = simulate(small_cohort(), random_seed=0, scale=0.1).dataset
    HierarchicalModel(cfg).fit(ds, random_seed=3)
    HierarchicalModel(cfg).fit(ds, random_seed=4)
    assert len(compilations) == 1
    HierarchicalModel(cfg).fit(swap_verdicts(ds), random_seed=3)
    assert len(compilations) == 2


def test_chains_run_with_one_blas_thread_and_the_callers_setting_comes_back(
    monkeypatch, blas_thread_counts
):
    """OpenBLAS's own threads would compete with the parallel chains for the cores."""
    import nutpie
    import pymc.backends.arviz
    import xarray as xr
    from threadpoolctl import threadpool_limits

    blas_threads = blas_thread_counts
    seen = []

    def fake_sample(compiled, **kwargs):
        seen.append(blas_threads())
        return xr.DataTree.from_dict({"sample_stats": xr.Dataset()})

    cache = CompiledCache(1)
    monkeypatch.setattr(nutpie, "compile_pymc_model", lambda model, **kw: FakeCompiled(model))
    monkeypatch.setattr(nutpie, "sample", fake_sample)
    monkeypatch.setattr(pymc.backends.arviz, "patch_nutpie_idata", lambda *a, **k: None)
    monkeypatch.setattr(sampling, "compiled_models", cache)
    monkeypatch.setattr("judgestats.parallel.CORES", 2)
    settings = sampling.SamplerSettings(10, 10, 2, 2, 0.8)
    with threadpool_limits(limits=2, user_api="blas"):
        before = blas_threads()
        sampling.sample("model", "s", {}, settings, random_seed=0)
        after = blas_threads()
    assert before == after == {2}
    assert seen == [{1}]
