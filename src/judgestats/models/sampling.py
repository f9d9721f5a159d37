"""Sampling the hierarchical tier with nutpie, compiling each model structure once.

Compilation dominates small models (about 15 s against 3 s of sampling for a
63-cell cohort). A fit of a model compiled before in the same process (the same
counts and priors, another seed or number of draws) reuses it. With
``HierarchicalConfig.reuse_compiled`` the model takes every count as ``pm.Data``
(:func:`judgestats.models.hierarchical.count_data`), and a fit of the same
structure (same judges, benchmarks and pattern trees, new counts) reuses the
compiled model with the counts swapped in through nutpie's ``with_data``. The cache is
bounded (:data:`CACHE_SIZE` structures, least recently used dropped).

Seeds are turned into nutpie's seed as ``pymc.sample`` does, so a fit gives the
same draws as ``pm.sample(model, random_seed=seed)`` with nutpie.

The chains are the parallelism: while they run, BLAS (OpenBLAS, which NumPy and
SciPy ship and the compiled gradient calls for its matrix products) gets only the
cores the chains leave (:func:`judgestats.parallel.blas_threads`). Left alone,
OpenBLAS starts its own threads for each product above a size threshold, and every
chain's threads compete with the other chains' for the same cores. On the 10x
seed-002 cohort (2 chains on 2 cores, 150 tuning steps and 150 draws each) that took
110.5 s against 41.1 s with BLAS held: 7.4 against 2.8 ms per leapfrog step and
chain. At 1x, whose products stay below the threshold, the two agree (1.46 and 1.40
ms); ``benchmarks/bench_blas.py``.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np
import xarray as xr

from judgestats.parallel import blas_threads
from judgestats.progress import sampling_progress

__all__ = ["CACHE_SIZE", "CompiledCache", "SamplerSettings", "compiled_models", "sample"]

log = logging.getLogger("judgestats")

#: Compiled model structures kept in a process.
CACHE_SIZE = 4


@dataclass(frozen=True)
class SamplerSettings:
    """NUTS settings of one fit: draws and tuning steps per chain, chains, cores."""

    draws: int
    tune: int
    chains: int
    cores: int
    target_accept: float

    @classmethod
    def of(cls, config: Any) -> SamplerSettings:
        """Take the settings from a config with fields of the same names."""
        return cls(config.draws, config.tune, config.chains, config.cores, config.target_accept)


class CompiledCache:
    """Compiled nutpie models by structure, the least recently used dropped first.

    Parameters
    ----------
    maxsize : int
        Structures kept.
    """

    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self._models: OrderedDict[str, Any] = OrderedDict()

    def __len__(self) -> int:
        return len(self._models)

    def clear(self) -> None:
        """Drop every compiled model."""
        self._models.clear()

    def get(self, model: Any, structure: str, data: dict[str, np.ndarray]) -> tuple[Any, float]:
        """Return the compiled model of ``model``'s structure, filled with ``data``.

        Parameters
        ----------
        model : pymc.Model
            Compiled when its structure is not cached.
        structure : str
            Digest of everything the model's graph is built from, apart from data.
        data : dict of str to ndarray
            Values of the model's ``pm.Data`` (none when its counts are constants).

        Returns
        -------
        compiled : nutpie compiled model
        seconds : float
            Time spent compiling (0 when the structure was cached).
        """
        import nutpie

        compiled = self._models.get(structure)
        if compiled is not None:
            self._models.move_to_end(structure)
            return (compiled.with_data(**data) if data else compiled), 0.0
        start = time.perf_counter()
        compiled = nutpie.compile_pymc_model(model, backend="numba")
        seconds = time.perf_counter() - start
        self._models[structure] = compiled
        while len(self._models) > self.maxsize:
            self._models.popitem(last=False)
        return compiled, seconds


#: The process's compiled models.
compiled_models = CompiledCache(CACHE_SIZE)


def _nutpie_seed(random_seed: int, chains: int) -> int:
    """Return the seed ``pymc.sample`` hands nutpie for ``random_seed``."""
    rngs = np.random.default_rng(random_seed).spawn(chains)
    return int(rngs[0].integers(2**30))


def sample(
    model: Any,
    structure: str,
    data: dict[str, np.ndarray],
    settings: SamplerSettings,
    random_seed: int,
) -> xr.DataTree:
    """Sample a PyMC model with nutpie, reusing a compiled model of its structure.

    Parameters
    ----------
    model : pymc.Model
    structure : str
        Digest of the model's graph apart from its ``pm.Data``.
    data : dict of str to ndarray
        Values of the model's ``pm.Data``.
    settings : SamplerSettings
    random_seed : int

    Returns
    -------
    xarray.DataTree
        nutpie's result; ``sample_stats`` attrs ``compile_time`` (0 when a compiled
        model was reused) and ``sampling_time``, in seconds.
    """
    import nutpie
    from pymc.backends.arviz import patch_nutpie_idata

    compiled, compile_time = compiled_models.get(model, structure, data)
    log.info("NUTS[nutpie]: %s", "compiled" if compile_time else "compiled model reused")
    start = time.perf_counter()
    cores = min(settings.cores, settings.chains)
    with sampling_progress() as callback, blas_threads(cores):
        idata = nutpie.sample(
            compiled,
            draws=settings.draws,
            tune=settings.tune,
            chains=settings.chains,
            cores=cores,
            seed=_nutpie_seed(random_seed, settings.chains),
            save_warmup=False,
            progress_bar=False,
            progress_callback=callback,
            target_accept=settings.target_accept,
        )
    sampling_time = time.perf_counter() - start
    patch_nutpie_idata(idata, model, sampling_time=sampling_time)
    idata["sample_stats"].attrs.update(compile_time=compile_time, sampling_time=sampling_time)
    return idata
