"""The exact tier's fit, in fresh processes, optionally alternating with another version.

Run: ``.venv/bin/python benchmarks/bench_exact.py DATA [DATA ...] [--against SRC] [--rounds 2]``

``DATA`` are datasets written by ``python -m judgestats import`` (``.nc``), e.g. the
seed-002 cohort at 1x and 10x (``bench_scale.write_cohort``, then ``import``). Each
round fits :class:`~judgestats.models.ExactModel` (2 chains of 1,000 draws, seed 0)
on each dataset in a fresh interpreter, with NumPy's huge-page advice off as the
command line runs, and prints the seconds of the fit, the process's system time and
its peak resident memory. ``--against SRC`` (the ``src`` folder of another checkout,
e.g. from ``git worktree add``) runs that version too, alternating with this one.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time

from _child import child_result


def child(path: str) -> dict:
    """Fit the exact tier once; return what it cost."""
    import warnings

    from judgestats.io.store import load
    from judgestats.memory import no_hugepage_advice
    from judgestats.models import ExactModel

    no_hugepage_advice()
    ds = load(path)
    ds.load()
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ExactModel().fit(ds, random_seed=0)
    seconds = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {"seconds": seconds, "system": usage.ru_stime, "peak": usage.ru_maxrss * 1024}


def main() -> None:
    """Fit each dataset with each version, alternating, and print the costs."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="+", help="imported datasets (.nc)")
    parser.add_argument("--against", metavar="SRC", help="another version's src folder")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.data[0])))
        return
    versions = {"this": None} | ({"against": args.against} if args.against else {})
    print(f"{'version':<8s} {'data':<28s} {'fit s':>7s} {'system s':>9s} {'peak GB':>8s}")
    for _ in range(args.rounds):
        for path in args.data:
            for name, src in versions.items():
                env = dict(os.environ)
                if src:
                    env["PYTHONPATH"] = src
                r = child_result([sys.executable, __file__, path, "--child"], env)
                print(
                    f"{name:<8s} {path[-28:]:<28s} {r['seconds']:7.2f} {r['system']:9.2f} "
                    f"{r['peak'] / 1e9:8.2f}"
                )


if __name__ == "__main__":
    main()
