"""Cost of one log density and gradient of the hierarchical tier: exact tilt vs linear shift.

Run: ``.venv/bin/python benchmarks/bench_gradient.py DATA [--calls 200] [--rounds 8]``

``DATA`` is a folder or file of logs, or a dataset saved by ``import`` (``.nc``). In one
process, compiles the model's log density and gradient (NUMBA, as nutpie runs it)
twice: as the tier builds it, every judge's mean pattern distribution the benchmark
mean exponentially tilted by its traits
(:meth:`judgestats.models.layout.Layout.split_logits`), and with the tilt replaced by
its first-order approximation, each split's log-odds shifted by ``loadings @ trait``
(the earlier model). The two are timed in alternating rounds at the model's initial
point, so that drifts of the machine's speed reach both; prints the fastest and the
median milliseconds per call and their ratio.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np


def _linear(lay, log_mu, log_1mmu, trait, scores=None, apply=None):
    """Split log-odds shifted by loadings @ trait: the tilt's first-order approximation."""
    return (log_mu - log_1mmu) + (trait[:, lay.split_cell, :] * lay.loadings).sum(-1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data")
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=8)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    from pathlib import Path

    import pytensor
    import pytensor.tensor as pt

    from judgestats.io import read_logs
    from judgestats.io.store import load as load_judgments
    from judgestats.models import layout
    from judgestats.models.base import FitData
    from judgestats.models.hierarchical import HierarchicalConfig, build_pymc_model

    if Path(args.data).suffix in (".nc", ".zarr"):
        ds = load_judgments(args.data)
    else:
        ds = read_logs(args.data).dataset
    data = FitData.from_data(ds)
    exact = layout.Layout.split_logits
    functions = {}
    try:
        for name, logits in (("exact tilt", exact), ("linear shift", _linear)):
            layout.Layout.split_logits = logits  # type: ignore[method-assign]
            model = build_pymc_model(data, HierarchicalConfig()).model
            values = model.value_vars
            logp = model.logp()
            fn = pytensor.function(values, [logp, *pt.grad(logp, values)], mode="NUMBA")
            point = model.initial_point()
            inputs = [point[v.name] for v in values]
            fn(*inputs)
            functions[name] = (fn, inputs)
    finally:
        layout.Layout.split_logits = exact  # type: ignore[method-assign]
    times: dict[str, list[float]] = {name: [] for name in functions}
    for _ in range(args.rounds):
        for name, (fn, inputs) in functions.items():
            start = time.perf_counter()
            for _ in range(args.calls):
                fn(*inputs)
            times[name].append((time.perf_counter() - start) / args.calls * 1e3)
    print(f"{'model':<14s} {'fastest ms':>10s} {'median ms':>10s}")
    for name, t in times.items():
        print(f"{name:<14s} {min(t):10.3f} {np.median(t):10.3f}")
    ratio = min(times["exact tilt"]) / min(times["linear shift"])
    print(f"exact / linear, fastest: {ratio:.2f}")


if __name__ == "__main__":
    main()
