"""Parallel chains with and without BLAS held to the cores they leave.

Run: ``.venv/bin/python benchmarks/bench_blas.py [--scales 1,10] [--steps 150]``

For the hierarchical tier's model of the seed-002 cohort at each scale
(``bench_gradient.seed002_model``, the data of ``bench_scale.py``), compiled once,
nutpie samples 2 chains on 2 cores (``--steps`` tuning steps and as many draws each,
one seed) twice: with OpenBLAS's own threads (its default, as many as the machine
has cores) and with BLAS held to the cores the chains leave, as the tier samples
(:func:`judgestats.parallel.blas_threads`). Prints the seconds, the leapfrog steps
(tuning included) and the milliseconds per step and chain of each. The two use the
same seed, so they take nearly the same steps; the model's matrix products outgrow
OpenBLAS's threshold for threads only at the larger scales.
"""

from __future__ import annotations

import argparse
import time
import warnings
from contextlib import nullcontext

from bench_gradient import seed002_model

CHAINS = 2


def _sample(compiled, steps: int, blas) -> tuple[float, int]:
    """Seconds and leapfrog steps (both chains, tuning included) of one sampling."""
    import nutpie

    start = time.perf_counter()
    with blas:
        idata = nutpie.sample(
            compiled,
            draws=steps,
            tune=steps,
            chains=CHAINS,
            cores=CHAINS,
            seed=1,
            save_warmup=True,
            progress_bar=False,
        )
    seconds = time.perf_counter() - start
    n = sum(int(idata[g]["n_steps"].sum()) for g in ("warmup_sample_stats", "sample_stats"))
    return seconds, n


def main() -> None:
    import nutpie

    from judgestats.parallel import blas_threads

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", default="1,10")
    parser.add_argument("--steps", type=int, default=150, help="tuning steps and draws")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    print(f"{'scale':>5s} {'BLAS':<22s} {'seconds':>8s} {'steps':>7s} {'ms/step/chain':>13s}")
    for scale in args.scales.split(","):
        built = seed002_model(float(scale))
        compiled = nutpie.compile_pymc_model(built.model, backend="numba")
        for name, blas in (
            ("OpenBLAS's own threads", nullcontext()),
            ("held (the tier)", blas_threads(CHAINS)),
        ):
            seconds, steps = _sample(compiled, args.steps, blas)
            per_step = seconds / (steps / CHAINS) * 1e3
            print(f"{scale:>5s} {name:<22s} {seconds:8.1f} {steps:7d} {per_step:13.3f}", flush=True)


if __name__ == "__main__":
    main()
