"""Cost of every stage at 1x and 10x the seed-002 cohort, measured in one run.

Run: ``.venv/bin/python benchmarks/bench_scale.py [--scale 1,10] [--quick]``

The cohort is the simulated 21-judge, 3-benchmark seed-002 cohort
(:func:`judgestats.simulate.seed002_cohort`, about 595,770 judgments at 1x); a scale
multiplies its items. Its long table (:func:`judgestats.simulate.judgments_table`)
is written as a folder of Parquet files, one per judge. Each stage then runs in a
fresh process, so that its peak resident memory is its own:

* pyarrow's bare read of the folder, and ``read_logs`` of it (the ratio);
* ``read_logs_dask`` of it (a cluster in the process, the tally only);
* ``tally``, closed-form metrics (``compute_metrics``, 2,000 item resamples),
  the exact tier, and the hierarchical tier with its compilation and its sampling
  timed apart (max R-hat and min bulk ESS over the sampled parameters but
  ``trait_u``, whose cell means are a redundant parameter);
* the whole ``report`` (hierarchical, ``--engine dask``) and ``report --fast``;
* at the first scale, a 5% item subsample fitted by the per-judgment PyMC model of
  ``bench_models.py`` and by the counts model, with the same draws (the ratio). The
  per-judgment fit is stopped after ``--per-judgment-limit`` seconds (30 minutes by
  default); its row and the ratio are then lower bounds, and say so.

``--quick`` is a smoke run: small scales, few draws and resamples.
``--comparison-only`` runs the import and the subsample comparison alone (on the
first scale).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: Share of the cohort's items in the per-judgment comparison.
SUBSAMPLE = 0.05


# --------------------------------------------------------------------------- children


def _peak() -> int:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _load(work: Path):
    import judgestats as js

    return js.load(work / "data.nc")


def _config(args):
    from judgestats.models import HierarchicalConfig

    return HierarchicalConfig(draws=args.draws, tune=args.tune)


def _subsample(ds, seed: int = 5):
    import numpy as np

    rng = np.random.default_rng(seed)
    keep = np.sort(rng.choice(ds.sizes["item"], int(SUBSAMPLE * ds.sizes["item"]), replace=False))
    return ds.isel(item=keep)


def _stage_arrow(args, work):
    import pyarrow.parquet as pq

    start = time.perf_counter()
    n = len(pq.read_table(work / "logs").to_pandas())
    return {"seconds": time.perf_counter() - start, "rows": n}


def _stage_import(args, work):
    import judgestats as js

    start = time.perf_counter()
    ds, report = js.read_logs(work / "logs")
    out = {"seconds": time.perf_counter() - start, "read": report.read}
    js.save(ds, work / "data.nc")
    return out


def _stage_import_dask(args, work):
    from judgestats.engine import read_logs_dask

    start = time.perf_counter()
    result = read_logs_dask(work / "logs", dense=False)
    return {"seconds": time.perf_counter() - start, "read": result.report.read}


def _stage_tally(args, work):
    from judgestats.tally import tally

    ds = _load(work)
    start = time.perf_counter()
    t = tally(ds)
    patterns = sum(len(b.patterns) for b in t)
    return {"seconds": time.perf_counter() - start, "patterns": patterns}


def _stage_metrics(args, work):
    import judgestats as js

    ds = _load(work)
    start = time.perf_counter()
    js.compute_metrics(ds, n_resamples=args.resamples, random_seed=0)
    return {"seconds": time.perf_counter() - start}


def _stage_exact(args, work):
    from judgestats.models import ExactModel
    from judgestats.tally import tally

    t = tally(_load(work))
    start = time.perf_counter()
    ExactModel().fit(t, random_seed=0)
    return {"seconds": time.perf_counter() - start}


def _sample_counts_model(fit_data, cfg):
    """Build, compile and sample the hierarchical tier's model as the tier does.

    :func:`judgestats.models.sampling.sample` compiles (its cache is empty in this
    fresh process) and samples, and reports the two times apart.
    """
    import arviz_stats as azs

    from judgestats.models.hierarchical import build_pymc_model
    from judgestats.models.sampling import SamplerSettings, sample

    built = build_pymc_model(fit_data, cfg)
    tree = sample(built.model, built.structure, built.data, SamplerSettings.of(cfg), 0)
    stats = tree["sample_stats"].attrs
    # trait_u's means per cell are a redundant parameter that the likelihood does not
    # see (models/hierarchical.py, _traits): the identified traits are ``trait``
    post = tree["posterior"].to_dataset().drop_vars("trait_u")
    rhat = max(float(v.max()) for v in azs.rhat(post).data_vars.values())
    ess = min(float(v.min()) for v in azs.ess(post, method="bulk").data_vars.values())
    return {
        "compile": stats["compile_time"],
        "sample": stats["sampling_time"],
        "rhat": rhat,
        "ess": ess,
    }


def _stage_hier(args, work):
    from judgestats.models.base import FitData
    from judgestats.tally import tally

    data = FitData.from_data(tally(_load(work)))
    start = time.perf_counter()
    out = _sample_counts_model(data, _config(args))
    return {"seconds": time.perf_counter() - start, **out}


def _report(args, work, *extra):
    from judgestats.cli import main

    start = time.perf_counter()
    code = main(
        [
            "report",
            str(work / "logs"),
            "-o",
            str(work / "report"),
            "--engine",
            "dask",
            "--draws",
            str(args.draws),
            "--tune",
            str(args.tune),
            *extra,
        ]
    )
    return {"seconds": time.perf_counter() - start, "status": code}


def _stage_report(args, work):
    return _report(args, work)


def _stage_report_fast(args, work):
    return _report(args, work, "--fast")


def _stage_per_judgment(args, work):
    sys.path.insert(0, str(HERE))
    from bench_models import per_judgment_fit

    sub = _subsample(_load(work))
    start = time.perf_counter()
    per_judgment_fit(sub, args.draws, args.tune, 1)
    return {"seconds": time.perf_counter() - start, "judgments": int((sub["verdict"] >= 0).sum())}


def _stage_counts_sub(args, work):
    from judgestats.models import HierarchicalModel
    from judgestats.tally import tally

    sub = _subsample(_load(work))
    start = time.perf_counter()
    HierarchicalModel(_config(args)).fit(tally(sub), random_seed=1)
    return {"seconds": time.perf_counter() - start}


def _stage_write(args, work):
    return {"seconds": 0.0, "rows": write_cohort(work / "logs", args.scale_of)}


STAGES = {
    "write": ("simulate and write the cohort", _stage_write),
    "arrow": ("pyarrow read_table + to_pandas", _stage_arrow),
    "import": ("import (read_logs, in memory)", _stage_import),
    "import-dask": ("import (read_logs_dask, tally)", _stage_import_dask),
    "tally": ("tally", _stage_tally),
    "metrics": ("closed-form metrics", _stage_metrics),
    "exact": ("exact tier", _stage_exact),
    "report-fast": ("report --fast --engine dask", _stage_report_fast),
    "report": ("report --engine dask (hierarchical)", _stage_report),
    "hier": ("hierarchical tier", _stage_hier),
    "per-judgment": ("per-judgment model, 5% subsample", _stage_per_judgment),
    "counts-sub": ("counts model, same 5% subsample", _stage_counts_sub),
}
#: Stages run after every scale's others (the whole report of each scale first), from
#: the last scale to the first; the comparison on the first scale's data only.
LATE = ("hier",)
COMPARISON = ("per-judgment", "counts-sub")


# --------------------------------------------------------------------------- parent


def write_cohort(folder: Path, scale: float) -> int:
    """Write the scaled cohort's long table, one Parquet file per judge; return its rows."""
    from judgestats.simulate import judgments_table, seed002_cohort, simulate

    table = judgments_table(simulate(seed002_cohort(), random_seed=0, scale=scale).dataset)
    folder.mkdir(parents=True)
    for k, (_, part) in enumerate(table.groupby("judge", sort=False, observed=True)):
        part.to_parquet(folder / f"judge{k:02d}.parquet", index=False)
    return len(table)


def run_stage(name: str, args, work: Path, limit: float | None = None) -> dict:
    """Run a stage in a fresh process; stopped after ``limit`` seconds if given."""
    cmd = [
        sys.executable,
        __file__,
        "--child",
        name,
        "--work",
        str(work),
        "--draws",
        str(args.draws),
        "--tune",
        str(args.tune),
        "--resamples",
        str(args.resamples),
        "--scale-of",
        str(args.scale_of),
    ]
    start = time.perf_counter()
    # its own session, so that a stopped stage takes its sampler's processes with it
    with subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    ) as proc:
        try:
            stdout, stderr = proc.communicate(timeout=limit)
        except subprocess.TimeoutExpired:  # a lower bound of its time, said as such
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return {"stopped": time.perf_counter() - start}
    if proc.returncode != 0:  # a row saying why, and the table goes on
        lines = [ln for ln in stderr.splitlines() if "Error" in ln] or ["(no message)"]
        return {"failed": lines[-1].strip()}
    return json.loads(stdout.strip().splitlines()[-1])


def _row(label: str, res: dict, extra: str = "") -> str:
    if "failed" in res:
        return f"  {label:<40s} FAILED: {res['failed']}"
    if "stopped" in res:
        return f"  {label:<40s} > {res['stopped']:6.0f} s (stopped, still running)"
    return f"  {label:<40s} {res['seconds']:8.2f} s {res['peak'] / 2**30:6.2f} GiB  {extra}"


def _extra(name: str, res: dict) -> str:
    """The comment of a stage's row."""
    r = res[name]
    if any("failed" in res.get(n, {}) for n in (name, "arrow", "per-judgment")):
        return ""
    if "stopped" in r:
        return ""
    if name == "counts-sub" and "stopped" in res["per-judgment"]:
        bound = res["per-judgment"]["stopped"] / r["seconds"]
        return f"per-judgment / counts > {bound:.1f}x (the per-judgment fit was stopped)"
    if name == "import":
        return f"{r['seconds'] / res['arrow']['seconds']:.1f}x pyarrow"
    if name == "tally":
        return f"{r['patterns']} patterns"
    if name == "hier":
        return (
            f"compile {r['compile']:.1f} s, sampling {r['sample']:.1f} s,"
            f" max R-hat {r['rhat']:.3f}, min bulk ESS {r['ess']:.0f}"
        )
    if name == "per-judgment":
        return f"{r['judgments']:,} judgments"
    if name == "counts-sub":
        return f"per-judgment / counts {res['per-judgment']['seconds'] / r['seconds']:.1f}x"
    return ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", help="comma-separated cohort scales (1,10; --quick 0.02,0.2)")
    parser.add_argument("--quick", action="store_true", help="smoke run: small and short")
    parser.add_argument("--draws", type=int, default=1000, help="draws per chain (1000)")
    parser.add_argument("--tune", type=int, default=400, help="tuning steps per chain (400)")
    parser.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples")
    parser.add_argument(
        "--per-judgment-limit",
        type=float,
        default=1800.0,
        help="seconds after which the per-judgment fit is stopped (its row a lower bound)",
    )
    parser.add_argument(
        "--comparison-only",
        action="store_true",
        help="only the per-judgment vs counts comparison, on the first scale's subsample",
    )
    parser.add_argument("--child", choices=list(STAGES), help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--scale-of", type=float, default=1.0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        res = STAGES[args.child][1](args, args.work)
        print(json.dumps({**res, "peak": _peak()}))
        return 0
    if args.quick:
        args.draws, args.tune, args.resamples = 50, 50, 50
    args.scale = args.scale or ("0.02,0.2" if args.quick else "1,10")
    scales = [float(s) for s in args.scale.split(",")]
    if args.comparison_only:
        scales = scales[:1]
    whole: dict[float, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        works = []
        for scale in scales:
            # the cohort is simulated in a child: a child's peak memory would
            # otherwise include what this process held when it started it
            work = Path(tmp) / f"x{scale:g}"
            args.scale_of = scale
            rows = run_stage("write", args, work)["rows"]
            files = len(list((work / "logs").iterdir()))
            print(f"scale {scale:g}x: {rows:,} judgments, {files} Parquet files", flush=True)
            res = {}
            skipped = ("write", *LATE, *COMPARISON)
            wanted = ("arrow", "import") if args.comparison_only else STAGES  # data.nc
            for name in (n for n in STAGES if n in wanted and n not in skipped):
                res[name] = run_stage(name, args, work)
                print(_row(STAGES[name][0], res[name], _extra(name, res)), flush=True)
            if "seconds" in res.get("report", {}):
                whole[scale] = res["report"]["seconds"]
            works.append(work)
        for scale in (s for s in scales[1:] if s in whole and scales[0] in whole):
            ratio = whole[scale] / whole[scales[0]]
            print(f"whole report {scale:g}x / {scales[0]:g}x: {ratio:.2f} (goal <= 2)", flush=True)
        late = [] if args.comparison_only else list(zip(scales, works, strict=True))
        for scale, work in reversed(late):
            print(f"scale {scale:g}x, continued", flush=True)
            res = {}
            for name in LATE:
                res[name] = run_stage(name, args, work)
                print(_row(STAGES[name][0], res[name], _extra(name, res)), flush=True)
        print(f"subsample comparison, {SUBSAMPLE:.0%} of the {scales[0]:g}x cohort's items")
        res = {}
        for name in COMPARISON:
            limit = args.per_judgment_limit if name == "per-judgment" else None
            res[name] = run_stage(name, args, works[0], limit)
            print(_row(STAGES[name][0], res[name], _extra(name, res)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
