"""Cost of one log density and gradient of the hierarchical tier: compiled kernel vs graph.

Run: ``.venv/bin/python benchmarks/bench_gradient.py DATA [--calls 200] [--rounds 8]``
or ``.venv/bin/python benchmarks/bench_gradient.py --seed002-scales 1,10``

``DATA`` is a folder or file of logs, or a dataset saved by ``import`` (``.nc``). In one
process, compiles the model's log density and gradient (NUMBA, as nutpie runs it)
twice: as the tier builds it, the likelihood one compiled kernel with its gradient
(:func:`judgestats.models.kernels.tree_log_likelihood`), and with the same likelihood
written as a PyTensor graph and differentiated by PyTensor
(:func:`judgestats.models.kernels.graph_log_likelihood`, the form the kernel
replaced). The two are timed in alternating rounds at the model's initial point, so
that drifts of the machine's speed reach both; prints the fastest and the median
milliseconds per call and their ratio, and the largest difference between the two
gradients.

With ``--seed002-scales``, no ``DATA``: the model of the simulated seed-002 cohort at
each scale (``simulate(seed002_cohort(), random_seed=0, scale=...)``, the data of
``bench_scale.py``), both ways, with the number of (judge, split) pairs with items,
the likelihood's terms.
"""

from __future__ import annotations

import argparse
import time
import warnings
from contextlib import contextmanager

import numpy as np


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


@contextmanager
def _likelihood(form: str):
    """Build models with the likelihood as the compiled kernel or as a PyTensor graph."""
    from judgestats.models import kernels

    kernel = kernels.tree_log_likelihood
    if form == "graph":
        kernels.tree_log_likelihood = kernels.graph_log_likelihood  # type: ignore[assignment]
    try:
        yield
    finally:
        kernels.tree_log_likelihood = kernel  # type: ignore[assignment]


def _both(data, label: str = "") -> dict:
    """The tier's model of ``data`` compiled with each likelihood form."""
    from judgestats.models.hierarchical import HierarchicalConfig, build_pymc_model

    functions = {}
    for form in ("graph", "kernel"):
        with _likelihood(form):
            functions[f"{label}{form}"] = _compiled(
                build_pymc_model(data, HierarchicalConfig()).model
            )
    return functions


def _from_path(path: str) -> dict:
    from pathlib import Path

    from judgestats.io import read_logs
    from judgestats.io.store import load as load_judgments
    from judgestats.models.base import FitData

    saved = Path(path).suffix in (".nc", ".zarr")
    return _both(FitData.from_data(load_judgments(path) if saved else read_logs(path).dataset))


def seed002_data(scale: float):
    """The fit data of the seed-002 cohort at ``scale`` (``bench_scale``'s data)."""
    from judgestats.models.base import FitData
    from judgestats.simulate import seed002_cohort, simulate
    from judgestats.tally import tally

    sim = simulate(seed002_cohort(), random_seed=0, scale=scale)
    return FitData.from_data(tally(sim.dataset))


def seed002_model(scale: float):
    """The tier's built model of the seed-002 cohort at ``scale``."""
    from judgestats.models.hierarchical import HierarchicalConfig, build_pymc_model

    return build_pymc_model(seed002_data(scale), HierarchicalConfig())


def _scales(scales: str) -> dict:
    """The tier's model of the seed-002 cohort at each scale, both forms."""
    from judgestats.models.hierarchical import HierarchicalConfig, count_data
    from judgestats.models.layout import build_layout

    functions = {}
    for scale in scales.split(","):
        data = seed002_data(float(scale))
        lay = build_layout(data, HierarchicalConfig().rare_per_judge)
        pairs = count_data(lay)["pair_judge"].size
        functions |= _both(data, f"{scale}x ({lay.n_splits} splits, {pairs} pairs) ")
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
    functions = _from_path(args.data) if args.data is not None else _scales(args.seed002_scales)
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
    for graph in [name for name in functions if name.endswith("graph")]:
        kernel = graph.removesuffix("graph") + "kernel"
        g = [np.asarray(x) for x in functions[graph][0](*functions[graph][1])]
        k = [np.asarray(x) for x in functions[kernel][0](*functions[kernel][1])]
        pairs = zip(g, k, strict=True)
        diff = max(float(np.max(np.abs(a - b) / (1 + np.abs(a)))) for a, b in pairs)
        print(
            f"{kernel} / {graph}, fastest: {min(times[kernel]) / min(times[graph]):.2f}"
            f" (largest difference of value and gradient, relative: {diff:.1e})"
        )


if __name__ == "__main__":
    main()
