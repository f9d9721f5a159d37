"""Later snapshots of a simulated cohort: the same items judged again.

A judge re-run months later sees the same items; its behaviour may have moved.
:func:`simulate_snapshot` draws a snapshot of a cohort whose items (labels,
lengths, presentation) are those of :func:`~judgestats.simulate.simulate` with the
same seed. The verdicts follow the simulator's generative model
(:mod:`judgestats.simulate.model`) with its randomness split in two: the item's
decisions (the intended verdict and the decision in each order) come from uniforms
that every snapshot shares, the run-to-run noise (fresh re-decisions, invalid
outputs) from uniforms of the snapshot's own. A judge whose parameters did not
change therefore keeps its decisions and differs between snapshots only by its
run-to-run noise, as an unchanged endpoint would; one whose parameters moved
changes on the items its new parameters decide differently (common random
numbers). Snapshot 0 is not the dataset of :func:`simulate` (the split changes
the draws), but has the same distribution.
"""

from __future__ import annotations

import json
from pathlib import Path

from judgestats.simulate.config import CohortConfig
from judgestats.simulate.simulator import (
    SimulationResult,
    _draw_items,
    _draw_verdicts,
    _rng,
    simulate,
)

__all__ = [
    "DEMO_DRIFT_JUDGE",
    "DEMO_DRIFT_POSITION",
    "drift_demo_cohort",
    "simulate_snapshot",
    "write_drift_demo",
]


def simulate_snapshot(
    config: CohortConfig, random_seed: int | None, snapshot: int
) -> SimulationResult:
    """Simulate snapshot ``snapshot`` of a cohort: the items of seed ``random_seed``.

    Parameters
    ----------
    config : CohortConfig
        Judges, benchmarks and parameters of this snapshot; its benchmarks must be
        those of the first snapshot for the items to be the same.
    random_seed : int or None
        The seed of the first snapshot.
    snapshot : int
        Which snapshot: each has its own run-to-run noise.

    Returns
    -------
    SimulationResult
        Its truth is that of ``config``.

    Examples
    --------
    >>> from judgestats.simulate import simulate, small_cohort
    >>> a = simulate(small_cohort(), random_seed=0, scale=0.1).dataset
    >>> b = simulate_snapshot(small_cohort().scaled(0.1), 0, 1).dataset
    >>> c = simulate_snapshot(small_cohort().scaled(0.1), 0, 2).dataset
    >>> bool((a["item"] == b["item"]).all()), bool((b["verdict"] == c["verdict"]).all())
    (True, False)
    """
    first = simulate(config, random_seed)
    ds = first.dataset.copy(deep=True)
    orders = ds["order"].values.tolist()
    verdict = ds["verdict"].values
    start = 0
    for spec in config.benchmarks:
        items = _draw_items(spec, random_seed)
        sl = slice(start, start + spec.n_items)
        o_idx = [orders.index(o) for o in spec.orders]
        for j, judge in enumerate(config.judges):
            p = config.get(judge, spec.name)
            if p is None:
                continue
            shared = _rng(random_seed, "decisions", spec.name, judge)
            own = _rng(random_seed, "noise", spec.name, judge, f"snapshot {snapshot}")
            v = _draw_verdicts(p, spec, items, shared, own)
            block = verdict[j, sl]
            block[:, o_idx, : v.shape[-1]] = v
        start += spec.n_items
    ds.attrs["simulation"] = json.dumps({"random_seed": random_seed, "snapshot": snapshot})
    return SimulationResult(ds, first.truth, first.params, config, random_seed)


#: The judge whose position bias moves in the drift demo, and by how much.
DEMO_DRIFT_JUDGE, DEMO_DRIFT_POSITION = "GPT-4o", 0.25


def drift_demo_cohort() -> CohortConfig:
    """Return the later demo cohort: :func:`demo_cohort` with one judge's position moved.

    :data:`DEMO_DRIFT_JUDGE` prefers the first slot more strongly, by
    :data:`DEMO_DRIFT_POSITION` on every benchmark; every other judge is unchanged.
    """
    from judgestats.simulate.presets import demo_cohort

    cohort = demo_cohort()
    moved = {}
    for b in cohort.benchmarks:
        p = cohort.get(DEMO_DRIFT_JUDGE, b.name)
        if p is not None:
            moved[b.name] = p.replace(position=min(1.0, p.position + DEMO_DRIFT_POSITION))
    return cohort.with_judge(DEMO_DRIFT_JUDGE, moved)


def write_drift_demo(folder: str | Path, random_seed: int) -> list[Path]:
    """Write the two snapshots of the drift demo, ``old/`` and ``new/``, as Parquet.

    Both judge the items of :func:`demo_cohort` with shared decisions
    (:func:`simulate_snapshot`); in ``new/`` the judge :data:`DEMO_DRIFT_JUDGE` has
    moved (:func:`drift_demo_cohort`).

    Parameters
    ----------
    folder : str or Path
    random_seed : int

    Returns
    -------
    list of Path
        The files written, one per snapshot and benchmark.
    """
    from judgestats.simulate.export import judgments_table
    from judgestats.simulate.presets import demo_cohort

    written = []
    for name, cohort, snapshot in (("old", demo_cohort(), 0), ("new", drift_demo_cohort(), 1)):
        table = judgments_table(simulate_snapshot(cohort, random_seed, snapshot).dataset)
        out = Path(folder) / name
        out.mkdir(parents=True, exist_ok=True)
        for bench, part in table.groupby("benchmark", sort=False):
            path = out / f"{str(bench).lower().replace('-', '_')}.parquet"
            part.reset_index(drop=True).to_parquet(path, index=False)
            written.append(path)
    return written
