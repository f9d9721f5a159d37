"""Regenerate the bundled demo logs in data/demo (deterministic).

Usage: python scripts/make_demo_data.py [--out data/demo] [--seed N]

Simulates judgestats.simulate.demo_cohort() and writes one log file per
benchmark in the generic table layout: CSV, JSON Lines and Parquet; and the two
snapshots of the drift demo (data/demo-drift/old, data/demo-drift/new: Parquet,
one judge's position bias moved in the new one).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from judgestats.simulate import DEMO_SEED, write_demo_logs
from judgestats.simulate.snapshots import write_drift_demo

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "data" / "demo"
DRIFT_OUT = DEFAULT_OUT.parent / "demo-drift"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder")
    parser.add_argument("--drift-out", type=Path, default=DRIFT_OUT, help="drift demo folder")
    parser.add_argument("--seed", type=int, default=DEMO_SEED, help="random seed")
    args = parser.parse_args(argv)
    written = write_demo_logs(args.out, random_seed=args.seed)
    written += write_drift_demo(args.drift_out, random_seed=args.seed)
    for path in written:
        print(f"{path}  {path.stat().st_size / 1024:.0f} KiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
