"""Cost of one log density and gradient of the hierarchical tier: exact tilt vs linear shift.

Run: ``.venv/bin/python benchmarks/bench_gradient.py DATA [--calls 200] [--rounds 8]``
or ``.venv/bin/python benchmarks/bench_gradient.py --seed002-scales 1,10``

``DATA`` is a folder or file of logs, or a dataset saved by ``import`` (``.nc``). In one
process, compiles the model's log density and gradient (NUMBA, as nutpie runs it)
twice: as the tier builds it, every judge's mean pattern distribution the benchmark
mean exponentially tilted by its traits
(:meth:`judgestats.models.layout.Layout.split_logits`), and with the tilt replaced by
its first-order approximation, each split's log-odds shifted by ``loadings @ trait``
(the earlier model). The two are timed in alternating rounds at the model's initial
point, so that drifts of the machine's speed reach both; prints the fastest and the
median milliseconds per call and their ratio.

With ``--seed002-scales``, no ``DATA``: the tier's model (the exact tilt) of the
simulated seed-002 cohort at each scale (``simulate(seed002_cohort(), random_seed=0,
scale=...)``, the data of ``bench_scale.py``), timed the same way, with the number of
(judge, split) pairs with items, the likelihood's terms.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np


def _linear(lay, log_mu, log_1mmu, trait, scores=None, apply=None):
    """Split log-odds shifted by loadings @ trait: the tilt's first-order approximation."""
    return (log_mu - log_1mmu) + (trait[:, lay.split_cell, :] * lay.loadings).sum(-1)


def _compiled(model):
    """A PyMC model's log density and gradient (NUMBA) and its initial point."""
    import pytensor
    import pytensor.tensor as pt

    values = model.value_vars
    logp = model.logp()
    fn = pytensor.function(values, [logp, *pt.grad(logp, values)], mode="NUMBA")
    point = model.initial_point()
    inputs = [point[v.name] for v in values]
    fn(*inputs)
    return fn, inputs


def _tilt_and_shift(path: str) -> dict:
    """The linear-shift variant of the tier's model of ``path``, and the model."""
    from pathlib import Path

    from judgestats.io import read_logs
    from judgestats.io.store import load as load_judgments
    from judgestats.models import layout
    from judgestats.models.base import FitData
    from judgestats.models.hierarchical import HierarchicalConfig, build_pymc_model

    saved = Path(path).suffix in (".nc", ".zarr")
    data = FitData.from_data(load_judgments(path) if saved else read_logs(path).dataset)
    exact = layout.Layout.split_logits
    functions = {}
    try:
        for name, logits in (("linear shift", _linear), ("exact tilt", exact)):
            layout.Layout.split_logits = logits  # type: ignore[method-assign]
            functions[name] = _compiled(build_pymc_model(data, HierarchicalConfig()).model)
    finally:
        layout.Layout.split_logits = exact  # type: ignore[method-assign]
    return functions


def seed002_model(scale: float):
    """The tier's built model of the seed-002 cohort at ``scale`` (``bench_scale``'s data)."""
    from judgestats.models.base import FitData
    from judgestats.models.hierarchical import HierarchicalConfig, build_pymc_model
    from judgestats.simulate import seed002_cohort, simulate
    from judgestats.tally import tally

    sim = simulate(seed002_cohort(), random_seed=0, scale=scale)
    return build_pymc_model(FitData.from_data(tally(sim.dataset)), HierarchicalConfig())


def _scales(scales: str) -> dict:
    """The tier's model of the seed-002 cohort at each scale."""
    from judgestats.models.hierarchical import count_data

    functions = {}
    for scale in scales.split(","):
        built = seed002_model(float(scale))
        pairs = count_data(built.layout)["pair_judge"].size
        name = f"{scale}x ({built.layout.n_splits} splits, {pairs} pairs)"
        functions[name] = _compiled(built.model)
    return functions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?")
    parser.add_argument("--seed002-scales", help="e.g. 1,10: the cohort's model at each scale")
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=8)
    args = parser.parse_args()
    if (args.data is None) == (args.seed002_scales is None):
        parser.error("give DATA or --seed002-scales, not both")
    warnings.simplefilter("ignore")
    if args.data is not None:
        functions = _tilt_and_shift(args.data)
    else:
        functions = _scales(args.seed002_scales)
    times: dict[str, list[float]] = {name: [] for name in functions}
    for _ in range(args.rounds):
        for name, (fn, inputs) in functions.items():
            start = time.perf_counter()
            for _ in range(args.calls):
                fn(*inputs)
            times[name].append((time.perf_counter() - start) / args.calls * 1e3)
    width = max(len(name) for name in times)
    print(f"{'model':<{width}s} {'fastest ms':>10s} {'median ms':>10s}")
    for name, t in times.items():
        print(f"{name:<{width}s} {min(t):10.3f} {np.median(t):10.3f}")
    first, *rest = times
    for name in rest:
        print(f"{name} / {first}, fastest: {min(times[name]) / min(times[first]):.2f}")


if __name__ == "__main__":
    main()
