"""Stage timings and output sizes of ``judgestats report`` on one dataset.

Run: ``.venv/bin/python benchmarks/bench_report.py DATA [--hierarchical] [--command]``

``DATA`` is a ``.nc`` written by ``judgestats import``, or the logs themselves (a
folder or file, e.g. ``../shared/data/llmbar``: then reading them is the first
stage). Every stage of :func:`judgestats.pipeline.create_report` is run in turn in
one process and timed; the table printed at the end holds the stage times, the total
and the size of every report file. Import time of the package is measured in a fresh
interpreter (it is what the command line pays before any work). With ``--command``,
the whole ``python -m judgestats -q report DATA`` is also timed in a fresh process:
what a user waits for, where the report overlaps some of its stages (posterior.nc
is written while the figures are drawn). The stages run as the command runs them,
without NumPy's huge-page advice (:mod:`judgestats.memory`).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path


def _import_seconds() -> float:
    code = (
        "import time; t = time.perf_counter(); import judgestats.cli, judgestats.pipeline, "
        "judgestats.models; print(time.perf_counter() - t)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def _command_seconds(args: argparse.Namespace) -> float:
    """Wall time of ``python -m judgestats -q report DATA`` in a fresh interpreter."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "judgestats", "-q", "report", args.data, "-o", tmp + "/r"]
        cmd += ["--seed", str(args.seed)] + ([] if args.hierarchical else ["--fast"])
        start = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True)
        return time.perf_counter() - start


def main() -> None:
    """Time every stage of a report of one imported dataset and print a table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("data", help="a .nc written by `judgestats import`")
    parser.add_argument("--hierarchical", action="store_true", help="the MCMC tier")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--command", action="store_true", help="also time the whole command, fresh process"
    )
    args = parser.parse_args()
    from judgestats.memory import no_hugepage_advice

    no_hugepage_advice()  # as the command line does
    rows: list[tuple[str, str, str]] = [
        ("import (cli, pipeline, models)", f"{_import_seconds():.2f} s", "")
    ]
    start, start_cpu = time.perf_counter(), time.process_time()

    def stage(name: str, fn):
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        rows.append((name, f"{time.perf_counter() - t:.2f} s", f"{time.process_time() - c:.2f} s"))
        return out

    import numpy as np

    from judgestats.io.store import load as load_judgments
    from judgestats.models import ExactModel, HierarchicalModel, save_posterior
    from judgestats.models.base import FitData
    from judgestats.models.derived import complete_posterior
    from judgestats.mvvp import MVVPConfig, check
    from judgestats.pipeline import derived_for
    from judgestats.report import figures
    from judgestats.report.html import render_html
    from judgestats.report.tables import latex_tables, summary_table, write_summary

    if Path(args.data).suffix == ".nc":
        ds = stage("load dataset", lambda: load_judgments(args.data))
    else:
        from judgestats.io import read_logs

        ds = stage("read the logs", lambda: read_logs(args.data).dataset)
    config = MVVPConfig()
    model = (HierarchicalModel if args.hierarchical else ExactModel)(derived=derived_for(config))
    parts = (0.0, 0.0)  # time of the fit's parts timed apart, not counted in the total
    if not args.hierarchical:
        t0, c0 = time.perf_counter(), time.process_time()
        data = stage("fit: tally", lambda: FitData.from_data(ds))
        rng = np.random.default_rng(args.seed)
        metrics, _ = stage("fit: metric draws", lambda: model._draw_metrics(data, rng, args.seed))
        stage(
            "fit: ranks, shifts, secondary metrics",
            lambda: complete_posterior(metrics, model.derived),
        )
        parts = (time.perf_counter() - t0, time.process_time() - c0)
    tree = stage("fit (whole)", lambda: model.fit(ds, random_seed=args.seed))
    if "sample_stats" in tree.children:  # the sampler's parts of the fit, not in the total
        stats = tree["sample_stats"]
        for part in ("compile_time", "sampling_time"):
            rows.append((f"  of which {part.replace('_', ' ')}", f"{stats.attrs[part]:.2f} s", ""))
        steps = float(stats["n_steps"].mean())
        rows.append(("  leapfrog steps per draw (mean)", f"{steps:.1f}", ""))
    tree.attrs["mvvp_config"] = json.dumps(asdict(config))
    result = stage("MVVP check (with summaries)", lambda: check(tree, ds, config))
    table = stage("summary table", lambda: summary_table(result))

    figs = stage("plots", lambda: figures(result, table))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        stage("write summary.csv/json", lambda: write_summary(result, folder, table))
        tex = stage("LaTeX tables", lambda: latex_tables(result, table))
        (folder / "tables.tex").write_text(tex)
        page = stage("HTML", lambda: render_html(result, table, figs, tree=tree))
        (folder / "index.html").write_text(page, encoding="utf-8")
        stage("write posterior.nc", lambda: save_posterior(tree, folder / "posterior.nc"))
        rows.append(
            (
                "total (every stage above, the fit once)",
                f"{time.perf_counter() - start - parts[0]:.2f} s",
                f"{time.process_time() - start_cpu - parts[1]:.2f} s",
            )
        )
        for f in sorted(folder.iterdir()):
            rows.append((f.name, f"{f.stat().st_size / 1e6:.2f} MB", ""))
    if args.command:
        rows.append(("whole command, fresh process", f"{_command_seconds(args):.2f} s", ""))
    width = max(len(r[0]) for r in rows)
    tier = "hierarchical" if args.hierarchical else "exact (--fast)"
    print(
        f"report of {args.data}, {tier} tier; {ds.sizes['judge']} judges, {ds.sizes['item']} items"
    )
    print("CPU: this process's time (both cores count); on a loaded machine the steadier figure")
    print(f"{'stage':<{width}}  {'wall':>10}  {'CPU':>10}")
    for name, wall, cpu in rows:
        print(f"{name:<{width}}  {wall:>10}  {cpu:>10}")


if __name__ == "__main__":
    main()
