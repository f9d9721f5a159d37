"""Sample estimators used to check the simulator's exact truth independently."""

from __future__ import annotations

import numpy as np
import xarray as xr

from judgestats.features import item_features
from judgestats.metrics.formulas import derive
from judgestats.schema import Verdict
from judgestats.tally import consensus_label


def item_level(ds: xr.Dataset, benchmark: str) -> tuple[np.ndarray, np.ndarray]:
    """Item features (judge, item, feature) and the length difference (item,)."""
    sub = ds.isel(item=np.flatnonzero(ds["benchmark"].values == benchmark))
    v = sub["verdict"].transpose("judge", "item", "order", "run").values
    label = consensus_label(sub["human"].values)
    feats = item_features(v, label[None, :], list(sub["order"].values))
    diff = sub["length_a"].values - sub["length_b"].values
    return feats, diff, v


def verbosity(v: np.ndarray, diff: np.ndarray) -> np.ndarray:
    """Pearson r over valid judgments of length_a - length_b with +1 A/-1 B/0 tie.

    ``v`` has shape (judge, item, order, run); returns one value per judge.
    """
    valid = (v == Verdict.A) | (v == Verdict.B) | (v == Verdict.TIE)
    score = (v == Verdict.A).astype(float) - (v == Verdict.B)
    x = np.broadcast_to(diff[None, :, None, None], v.shape)
    out = []
    for j in range(v.shape[0]):
        m = valid[j]
        out.append(np.corrcoef(x[j][m], score[j][m])[0, 1])
    return np.array(out)


def metrics_with_se(
    feats: np.ndarray, v: np.ndarray, diff: np.ndarray, n_batches: int, seed: int
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Full-sample metrics per judge and their batch-means standard errors.

    Items are split at random into ``n_batches`` equal batches; the standard error
    of a metric is the standard deviation of its per-batch values over
    ``sqrt(n_batches)``, which respects the clustering of judgments in items.
    """
    est = {k: np.asarray(val) for k, val in derive(feats.sum(1)).items()}
    est["verbosity"] = verbosity(v, diff)
    rng = np.random.default_rng(seed)
    batches = np.array_split(rng.permutation(feats.shape[1]), n_batches)
    per = {k: [] for k in est}
    for idx in batches:
        m = derive(feats[:, idx].sum(1))
        for k in m:
            per[k].append(m[k])
        per["verbosity"].append(verbosity(v[:, idx], diff[idx]))
    se = {k: np.std(np.array(per[k]), axis=0, ddof=1) / np.sqrt(n_batches) for k in per}
    return est, se


def canonical_keys(patterns: np.ndarray) -> list[bytes]:
    """A key per (order, run) pattern that ignores the order of runs."""
    keys = []
    for p in patterns.reshape(-1, *patterns.shape[-2:]):
        runs = sorted(map(tuple, p.T.tolist()))
        keys.append(np.array(runs, dtype=np.int8).tobytes())
    return keys
