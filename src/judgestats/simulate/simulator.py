"""Draw a Judgments dataset from a cohort specification, with the exact truth.

The draw follows the generative model of :mod:`judgestats.simulate.model` step by
step, vectorised over items, orders and runs. Randomness comes from one
:class:`numpy.random.SeedSequence` per benchmark (items, labels, lengths,
presentation; item difficulties and human raters each from their own stream) and
per judge × benchmark (verdicts), each keyed by the names and ``random_seed``: a
judge's verdicts on a benchmark do not change when other judges or benchmarks are
added or removed, and a benchmark without item effects draws what it drew before
they existed.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass
from typing import Any

import numpy as np
import xarray as xr

from judgestats.schema import ORDERS, Verdict, check, empty_judgments
from judgestats.simulate.config import BenchmarkSpec, CohortConfig, JudgeParams
from judgestats.simulate.model import (
    _shifted,
    cell_marginals,
    decision_matrix,
    intended_probs,
    truth,
)

__all__ = ["HUMAN_RATER", "SimulationResult", "simulate"]

#: Name of the rater of the simulated labels (``human-1``, ``human-2``, ... with several).
HUMAN_RATER = "human"
_LABEL_CODES = np.array([Verdict.A, Verdict.B, Verdict.TIE], dtype=np.int8)


@dataclass(frozen=True)
class SimulationResult:
    """A simulated Judgments dataset with the parameters and exact truth behind it.

    Attributes
    ----------
    dataset : xarray.Dataset
        A schema-valid Judgments dataset.
    truth : xarray.Dataset
        Exact population value of every metric (``METRICS`` plus ``verbosity``)
        over ``(judge, benchmark)``; see :func:`judgestats.simulate.model.truth`.
    params : xarray.Dataset
        The judge parameters over ``(judge, benchmark)`` (NaN for pairs not run;
        ``run_by_judge`` marks the pairs run) and the benchmark specifications over
        ``benchmark``.
    config : CohortConfig
        The (scaled) configuration simulated.
    random_seed : int or None
        The seed used.
    """

    dataset: xr.Dataset
    truth: xr.Dataset
    params: xr.Dataset
    config: CohortConfig
    random_seed: int | None


def _rng(random_seed: int | None, *names: str) -> np.random.Generator:
    key = tuple(zlib.crc32(n.encode()) for n in names)
    return np.random.default_rng(np.random.SeedSequence(random_seed, spawn_key=key))


def _categorical(rng: np.random.Generator, probs: np.ndarray) -> np.ndarray:
    """One draw per row of ``probs`` (rows sum to 1), as int8 indices."""
    cum = np.cumsum(probs, axis=-1)
    u = rng.random(probs.shape[:-1])
    return (u[..., None] >= cum[..., :-1]).sum(-1).astype(np.int8)


@dataclass(frozen=True)
class _Items:
    """What every judge shares about a benchmark's items."""

    keys: np.ndarray
    label: np.ndarray  # true label, index 0..2 (A, B, tie)
    human: np.ndarray  # (item, rater) label codes
    difficulty: np.ndarray  # z ~ Normal(0, 1), zeros without a difficulty spread
    longer: np.ndarray  # index 0..1 (A, B)
    shown: np.ndarray  # bool (item, order of spec.orders)
    category: np.ndarray
    length_a: np.ndarray
    length_b: np.ndarray
    model_a: np.ndarray
    model_b: np.ndarray


def _draw_items(spec: BenchmarkSpec, random_seed: int | None) -> _Items:
    rng = _rng(random_seed, "items", spec.name)
    n = spec.n_items
    width = len(str(n - 1))
    keys = np.array([f"{i:0{width}d}" for i in range(n)])
    label = _categorical(rng, np.broadcast_to(np.asarray(spec.label_probs), (n, 3)))
    d = rng.integers(-spec.length_spread, spec.length_spread + 1, size=n)
    coin = rng.integers(0, 2, size=n)
    longer = np.where(d > 0, 0, np.where(d < 0, 1, coin)).astype(np.int8)
    base = rng.integers(spec.length_range[0], spec.length_range[1] + 1, size=n)
    length_a = (base + np.maximum(d, 0)).astype(float)
    length_b = (base + np.maximum(-d, 0)).astype(float)
    if spec.random_order:
        pick = rng.integers(0, len(spec.orders), size=n)
        shown = pick[:, None] == np.arange(len(spec.orders))[None, :]
    else:
        shown = np.ones((n, len(spec.orders)), dtype=bool)
    if spec.categories:
        category = np.asarray(spec.categories)[rng.integers(0, len(spec.categories), size=n)]
    else:
        category = np.full(n, "")
    if spec.models:
        m = len(spec.models)
        first = rng.integers(0, m, size=n)
        second = (first + rng.integers(1, m, size=n)) % m
        model_a, model_b = np.asarray(spec.models)[first], np.asarray(spec.models)[second]
    else:
        model_a = model_b = np.full(n, "")
    # Item effects come from streams of their own: a benchmark without them draws
    # exactly what it drew before they existed.
    if spec.difficulty_sd > 0:
        difficulty = _rng(random_seed, "difficulty", spec.name).standard_normal(n)
    else:
        difficulty = np.zeros(n)
    human = np.repeat(_LABEL_CODES[label][:, None], spec.raters, axis=1)
    if spec.label_noise > 0:
        r_rng = _rng(random_seed, "raters", spec.name)
        eps = _shifted(spec.label_noise, spec.difficulty_sd * difficulty)
        for r in range(spec.raters):
            noisy = r_rng.random(n) < eps
            fresh = _categorical(r_rng, np.broadcast_to(np.asarray(spec.label_probs), (n, 3)))
            human[:, r] = np.where(noisy, _LABEL_CODES[fresh], human[:, r])
    return _Items(
        keys,
        label,
        human,
        difficulty,
        longer,
        shown,
        category,
        length_a,
        length_b,
        model_a,
        model_b,
    )


def _draw_verdicts(
    p: JudgeParams,
    spec: BenchmarkSpec,
    items: _Items,
    rng: np.random.Generator,
    noise: np.random.Generator | None = None,
) -> np.ndarray:
    """Verdicts of one judge, shape (item, len(spec.orders), the judge's runs).

    The item's decisions (steps 2 and 3 of the model: the intended verdict and the
    decision in each order) are drawn from ``rng``, the run-to-run noise (step 4:
    re-decisions and invalid outputs) from ``noise`` (default ``rng``, the draws of
    :func:`simulate`). Snapshots of a judge share ``rng`` and differ in ``noise``
    (:mod:`judgestats.simulate.snapshots`).
    """
    noise = rng if noise is None else noise
    n, runs = spec.n_items, p.runs_on(spec)
    at: tuple[np.ndarray, ...] = ()
    shift = None
    if spec.difficulty_sd > 0:  # per item: (item, ...) arrays indexed by item
        shift, at = -spec.difficulty_sd * items.difficulty, (np.arange(n),)
    u = _categorical(rng, intended_probs(p, shift)[(*at, items.label, items.longer)])
    out = np.empty((n, len(spec.orders), runs), dtype=np.int8)
    for k, o in enumerate(spec.orders):
        w = _categorical(rng, decision_matrix(p, o)[u])
        marg = cell_marginals(p, o, shift)[..., :3]
        marg = marg / marg.sum(-1, keepdims=True)
        fresh = _categorical(
            noise,
            np.broadcast_to(marg[(*at, items.label, items.longer)][:, None, :], (n, runs, 3)),
        )
        stable = noise.random((n, runs)) < p.stability
        v = np.where(stable, w[:, None], fresh)
        v = np.where(noise.random((n, runs)) < p.invalid_rate, Verdict.INVALID, v)
        out[:, k, :] = np.where(items.shown[:, k, None], v, Verdict.MISSING)
    return out


def _params_dataset(config: CohortConfig) -> xr.Dataset:
    judges, names = list(config.judges), [b.name for b in config.benchmarks]
    fields = [f for f in JudgeParams().as_dict() if f != "runs"]
    values = np.full((len(fields), len(judges), len(names)), np.nan)
    run = np.zeros((len(judges), len(names)), dtype=bool)
    judge_runs = np.zeros((len(judges), len(names)), dtype=np.int64)
    for (judge, bench), p in config.params.items():
        j, b = judges.index(judge), names.index(bench)
        d = p.as_dict()
        values[:, j, b] = [d[f] for f in fields]
        run[j, b] = True
        judge_runs[j, b] = p.runs_on(config.benchmark(bench))
    data: dict[str, Any] = {f: (("judge", "benchmark"), values[i]) for i, f in enumerate(fields)}
    data["run_by_judge"] = (("judge", "benchmark"), run)
    data["judge_runs"] = (("judge", "benchmark"), judge_runs)
    bs = config.benchmarks
    data["n_items"] = ("benchmark", [b.n_items for b in bs])
    data["runs"] = ("benchmark", [b.runs for b in bs])
    data["label_structure"] = ("benchmark", [b.label_structure for b in bs])
    data["label_kind"] = ("benchmark", [b.label_kind for b in bs])
    data["random_order"] = ("benchmark", [bool(b.random_order) for b in bs])
    data["orders"] = ("benchmark", [",".join(b.orders) for b in bs])
    data["label_probs"] = (("benchmark", "label"), [list(b.label_probs or ()) for b in bs])
    data["length_spread"] = ("benchmark", [b.length_spread for b in bs])
    data["difficulty_sd"] = ("benchmark", [float(b.difficulty_sd) for b in bs])
    data["label_noise"] = ("benchmark", [float(b.label_noise) for b in bs])
    data["raters"] = ("benchmark", [b.raters for b in bs])
    return xr.Dataset(
        data, coords={"judge": judges, "benchmark": names, "label": ["A", "B", "tie"]}
    )


def simulate(
    config: CohortConfig, random_seed: int | None = None, *, scale: float = 1.0
) -> SimulationResult:
    """Simulate the judgments of a cohort.

    Parameters
    ----------
    config : CohortConfig
        Judges, benchmarks and parameters (see :mod:`judgestats.simulate.presets`).
    random_seed : int, optional
        Seed of all randomness; the same seed gives the same dataset. None draws
        fresh entropy.
    scale : float, default 1.0
        Multiplies every benchmark's item count (at least one item each); the
        truth does not depend on it.

    Returns
    -------
    SimulationResult
        The dataset, the exact truth, the parameters and the configuration.

    Examples
    --------
    >>> from judgestats.simulate import simulate, small_cohort
    >>> res = simulate(small_cohort(), random_seed=1)
    >>> res.dataset.sizes["judge"], res.truth["kappa"].dims
    (5, ('judge', 'benchmark'))
    """
    if scale != 1.0:
        config = config.scaled(scale)
    orders = [o for o in ORDERS if any(o in b.orders for b in config.benchmarks)]
    runs = max(
        [b.runs for b in config.benchmarks]
        + [p.runs_on(config.benchmark(b)) for (_, b), p in config.params.items()]
    )
    n_raters = max(b.raters for b in config.benchmarks)
    raters = [HUMAN_RATER] if n_raters == 1 else [f"{HUMAN_RATER}-{r + 1}" for r in range(n_raters)]
    drawn = {b.name: _draw_items(b, random_seed) for b in config.benchmarks}
    item_ids = np.concatenate([[f"{b}/{k}" for k in it.keys] for b, it in drawn.items()])
    ds = empty_judgments(list(config.judges), item_ids.tolist(), orders, runs, raters)
    verdict = ds["verdict"].values
    start = 0
    for spec in config.benchmarks:
        it = drawn[spec.name]
        sl = slice(start, start + spec.n_items)
        o_idx = [orders.index(o) for o in spec.orders]
        for j, judge in enumerate(config.judges):
            p = config.get(judge, spec.name)
            if p is None:
                continue
            v = _draw_verdicts(p, spec, it, _rng(random_seed, "verdicts", spec.name, judge))
            block = verdict[j, sl]
            block[:, o_idx, : v.shape[-1]] = v
        ds["human"].values[sl, : spec.raters] = it.human
        start += spec.n_items

    def per_item(name: str) -> np.ndarray:
        return np.concatenate([getattr(drawn[b.name], name) for b in config.benchmarks])

    coords = {
        "benchmark": np.concatenate([np.full(b.n_items, b.name) for b in config.benchmarks]),
        "label_kind": np.concatenate([np.full(b.n_items, b.label_kind) for b in config.benchmarks]),
        **{k: per_item(k) for k in ("category", "length_a", "length_b", "model_a", "model_b")},
    }
    ds = ds.assign_coords({k: ("item", v) for k, v in coords.items()})
    ds.attrs["sources"] = json.dumps([{"file": "<simulated>", "format": "simulate"}])
    ds.attrs["simulation"] = json.dumps({"random_seed": random_seed, "scale": scale})
    return SimulationResult(
        dataset=check(ds),
        truth=truth(config),
        params=_params_dataset(config),
        config=config,
        random_seed=random_seed,
    )
