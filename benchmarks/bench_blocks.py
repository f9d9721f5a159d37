"""What the size of a block of draws costs in the hierarchical tier's draws after sampling.

Run: ``.venv/bin/python benchmarks/bench_blocks.py DATA [--blocks 250,50,25,auto] [--rounds 2]``

``DATA`` is a dataset written by ``python -m judgestats import`` (``.nc``), e.g. the
seed-002 cohort at 10x (``bench_scale.write_cohort`` and ``import``). Each round, in
fresh interpreters (memory a process has touched once is cheap to reuse) and in the
order given, :func:`judgestats.models.conditionals.expected_features` turns 2 chains
of 1,000 draws of the hyper-parameters (the model's initial point, every draw alike:
the work does not depend on the values) into item features with the pairing of the
items and the predictive checks, as a fit does, with ``--blocks`` draws per block
(``auto``: :func:`~judgestats.models.conditionals.draws_per_block`). Prints the
seconds, the page faults and the system time of that call, and the peak resident
memory of the process.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time

import numpy as np
import xarray as xr
from _child import child_result

CHAINS, DRAWS = 2, 1000


def child(path: str, block: str) -> dict:
    """Run the draws after sampling once; return what they cost."""
    import pytensor

    from judgestats.io.store import load
    from judgestats.memory import no_hugepage_advice
    from judgestats.models import conditionals
    from judgestats.models.base import FitData
    from judgestats.models.derived import MetricDraws
    from judgestats.models.hierarchical import HierarchicalConfig, build_pymc_model
    from judgestats.models.ppc import PredictiveChecks

    no_hugepage_advice()  # as the command line runs
    data = FitData.from_data(load(path))
    cfg = HierarchicalConfig()
    built = build_pymc_model(data, cfg)
    model = built.model
    names = ["eta", "trait", "log_kappa", "log_kappa_judge"]
    at = model.initial_point()
    fn = pytensor.function(
        model.value_vars,
        model.replace_rvs_by_values([model[n] for n in names]),
        on_unused_input="ignore",
    )
    values = fn(*[at[v.name] for v in model.value_vars])
    post = xr.Dataset(
        {
            n: (
                ("chain", "draw", *(f"{n}_{i}" for i in range(v.ndim))),
                np.broadcast_to(v, (CHAINS, DRAWS, *v.shape)).copy(),
            )
            for n, v in zip(names, values, strict=True)
        }
    )
    if block != "auto":
        conditionals.draws_per_block = lambda *_: int(block)  # type: ignore[assignment]
    step = conditionals.draws_per_block(built.layout, data, DRAWS)
    checks = PredictiveChecks(built.layout, data, CHAINS, DRAWS)
    sink = MetricDraws((CHAINS, DRAWS, len(data.judges), len(data.benchmarks)))
    n_items = data.constant_data()["n_items"].transpose("judge", "benchmark").values

    def derive(ch: int, sl: slice, features: np.ndarray) -> None:
        sink.add((ch, sl), features, n_items)

    before = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    conditionals.expected_features(
        built.layout, data, post, cfg.prior, np.random.default_rng(0), True, checks, derive
    )
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF)
    return {
        "draws": step,
        "seconds": seconds,
        "faults": after.ru_minflt - before.ru_minflt,
        "system": after.ru_stime - before.ru_stime,
        "peak": after.ru_maxrss * 1024,
    }


def main() -> None:
    """Time the draws after sampling with each block size, alternating, fresh processes."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", help="an imported dataset (.nc)")
    parser.add_argument("--blocks", default="250,50,25,auto", help="draws per block")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.data, args.child)))
        return
    head = ("block", 6), ("draws", 6), ("seconds", 8), ("faults", 10), ("system s", 9)
    print(" ".join(f"{name:>{width}s}" for name, width in head), f"{'peak GB':>8s}")
    for _ in range(args.rounds):
        for block in args.blocks.split(","):
            r = child_result([sys.executable, __file__, args.data, "--child", block])
            print(
                f"{block:>6s} {r['draws']:6d} {r['seconds']:8.2f} {r['faults']:10,d} "
                f"{r['system']:9.2f} {r['peak'] / 1e9:8.2f}"
            )


if __name__ == "__main__":
    main()
