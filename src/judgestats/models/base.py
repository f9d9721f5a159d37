"""What every judgestats model shares: config in, ``fit`` → DataTree, save/load, summary.

A model is a specification: a frozen config dataclass (``default_config``) plus a
:class:`~judgestats.models.derived.DerivedConfig`. :meth:`JudgeModel.fit` tallies the
data, draws each judge's expected item features per benchmark (the part a subclass
implements in :meth:`JudgeModel._draw_features`; both tiers also override
:meth:`JudgeModel._draw_metrics` to turn each block of draws into metrics as it is
drawn, so that the features of every draw are never held at once), derives every
reported quantity and returns an ArviZ-style :class:`xarray.DataTree` with groups ``posterior``,
``constant_data`` and, for MCMC, ``sample_stats``. Configs, the model name and the
package version are stored in the tree's attrs so that :meth:`JudgeModel.load`
rebuilds the model that made a saved posterior.
"""

from __future__ import annotations

import json
import logging
import warnings
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import xarray as xr

from judgestats.features import FEATURES
from judgestats.metrics.formulas import REGISTRY
from judgestats.models.derived import (
    DerivedConfig,
    complete_posterior,
    drawn_metrics,
    stored_quantities,
)
from judgestats.tally import LABEL_NAMES, Tally, tally

__all__ = ["ConvergenceWarning", "FitData", "JudgeModel"]

log = logging.getLogger("judgestats")

_SAMPLE = ("chain", "draw")


class ConvergenceWarning(UserWarning):
    """A sampler diagnostic failed (R-hat, ESS or divergences); the report shows it."""


class MisfitWarning(UserWarning):
    """A posterior predictive check failed (:mod:`judgestats.models.ppc`); the report shows it."""


@dataclass(frozen=True)
class FitData:
    """The tally of a dataset plus the judge and benchmark axes of the posterior."""

    tally: Tally
    judges: tuple[str, ...]
    benchmarks: tuple[str, ...]

    @classmethod
    def from_data(cls, data: xr.Dataset | Tally) -> FitData:
        """Tally a Judgments dataset (or take a tally as it is)."""
        t = data if isinstance(data, Tally) else tally(data)
        judges = tuple(j for j in t.judges if any(j in b.judges for b in t))
        return cls(t, judges, tuple(t.benchmarks))

    def rows(self, benchmark: int) -> list[int]:
        """Row in :attr:`judges` of each judge of benchmark ``benchmark``'s tally."""
        return [self.judges.index(j) for j in self.tally[self.benchmarks[benchmark]].judges]

    def coords(self, chains: int, draws: int, features: bool = False) -> dict[str, Any]:
        """Coordinates of draws over ``(chain, draw, judge, benchmark[, feature])``."""
        out: dict[str, Any] = {
            "chain": np.arange(chains),
            "draw": np.arange(draws),
            "judge": list(self.judges),
            "benchmark": list(self.benchmarks),
        }
        if features:
            out["feature"] = list(FEATURES)
        return out

    def support(self) -> xr.DataArray:
        """Observed item features summed per judge and benchmark (zeros where absent)."""
        out = np.zeros((len(self.judges), len(self.benchmarks), len(FEATURES)))
        for b, bt in enumerate(self.tally):
            out[self.rows(b), b] = bt.feature_sums()
        return xr.DataArray(
            out,
            dims=("judge", "benchmark", "feature"),
            coords={
                "judge": list(self.judges),
                "benchmark": list(self.benchmarks),
                "feature": list(FEATURES),
            },
        )

    def constant_data(self) -> xr.Dataset:
        """Items per judge and benchmark, and items per label and benchmark."""
        n = np.zeros((len(self.judges), len(self.benchmarks)), dtype=np.int64)
        labels = np.zeros((len(self.benchmarks), len(LABEL_NAMES)), dtype=np.int64)
        for b, bt in enumerate(self.tally):
            for j, name in enumerate(bt.judges):
                n[self.judges.index(name), b] = bt.n_items[j]
            labels[b] = bt.label_counts()
        return xr.Dataset(
            {
                "n_items": (("judge", "benchmark"), n),
                "label_count": (("benchmark", "label"), labels),
            },
            coords={
                "judge": list(self.judges),
                "benchmark": list(self.benchmarks),
                "label": list(LABEL_NAMES),
            },
        )


def _config_from(cls: type, data: dict[str, Any]) -> Any:
    names = {f.name for f in fields(cls)}
    return cls(**{k: v for k, v in data.items() if k in names})


class JudgeModel:
    """Base class of the model tiers.

    Parameters
    ----------
    config : dataclass instance, optional
        The tier's config; ``default_config`` when omitted.
    derived : DerivedConfig, optional
        Ranking metric, ``k`` of top-k and paradox thresholds.
    """

    name: ClassVar[str] = "base"
    default_config: ClassVar[Any] = None

    def __init__(self, config: Any = None, derived: DerivedConfig | None = None) -> None:
        self.config = config if config is not None else self.default_config
        self.derived = derived or DerivedConfig()
        self.result: xr.DataTree | None = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.config!r}, {self.derived!r})"

    # -- to implement -------------------------------------------------------------
    def _draw_features(
        self, data: FitData, rng: np.random.Generator, random_seed: int | None
    ) -> tuple[xr.DataArray, dict[str, xr.Dataset]]:
        """Return expected-feature draws ``(chain, draw, judge, benchmark, feature)``.

        Also returns extra groups for the tree (``{"sample_stats": ...}``), and may
        add hyper-parameter draws under ``"hyper"``. The draws are the caller's: it
        scales them in place (they must not share memory with anything else).
        """
        raise NotImplementedError

    def _draw_metrics(
        self, data: FitData, rng: np.random.Generator, random_seed: int | None
    ) -> tuple[xr.Dataset, dict[str, xr.Dataset]]:
        """Return the metric draws of :func:`~judgestats.models.derived.drawn_metrics`.

        From :meth:`_draw_features` (expected features per item; their scaling to
        expected sums is :meth:`~judgestats.models.derived.MetricDraws.add`'s). A tier that draws
        benchmark by benchmark may override it to derive each benchmark's metrics as
        its features are drawn, never holding the features of all of them at once.
        Also returns :meth:`_draw_features`' extra groups.
        """
        features, groups = self._draw_features(data, rng, random_seed)
        n_items = data.constant_data()["n_items"].transpose("judge", "benchmark").values
        return drawn_metrics(features, data.support(), n_items), groups

    # -- public API ---------------------------------------------------------------
    def fit(self, data: xr.Dataset | Tally, random_seed: int | None = None) -> xr.DataTree:
        """Fit the model and return the posterior as a DataTree.

        Parameters
        ----------
        data : xarray.Dataset or Tally
            A Judgments dataset (or its tally).
        random_seed : int, optional
            Seed of every random draw; the same seed gives the same draws.

        Returns
        -------
        xarray.DataTree
            Groups ``posterior`` (every metric over judge × benchmark, ranks, rank
            shifts, P(top-k) indicators, paradox indicators), ``constant_data`` and,
            for MCMC, ``sample_stats``. Also kept as :attr:`result`.
        """
        fit_data = FitData.from_data(data)
        if not fit_data.judges:
            raise ValueError("the data hold no verdicts: nothing to fit")
        rng = np.random.default_rng(random_seed)
        metrics, groups = self._draw_metrics(fit_data, rng, random_seed)
        posterior = complete_posterior(metrics, self.derived)
        constant = fit_data.constant_data()
        hyper = groups.pop("hyper", None)
        if hyper is not None:
            posterior = posterior.merge(hyper)
        tree_groups = {"posterior": posterior, "constant_data": constant}
        tree_groups.update(groups)
        tree = xr.DataTree.from_dict(tree_groups)
        tree.attrs.update(
            model=self.name,
            config=json.dumps(asdict(self.config)),
            derived_config=json.dumps(asdict(self.derived)),
            judgestats_version=_version(),
            random_seed=-1 if random_seed is None else int(random_seed),
        )
        from judgestats.models.ppc import misfits
        from judgestats.models.summary import diagnose

        problems = diagnose(tree)
        misfit = misfits(tree["predictive"].to_dataset()) if "predictive" in tree else []
        tree.attrs["warnings"] = json.dumps(problems)
        tree.attrs["misfits"] = json.dumps(misfit)
        for p in problems:
            warnings.warn(p, ConvergenceWarning, stacklevel=2)
        for p in misfit:
            warnings.warn(p, MisfitWarning, stacklevel=2)
        self.result = tree
        return tree

    def summary(self, **kwargs: Any):
        """Summarise :attr:`result`; see :func:`judgestats.models.summary.summarize`."""
        from judgestats.models.summary import summarize

        if self.result is None:
            raise ValueError("fit the model (or load a saved one) before summarising")
        return summarize(self.result, **kwargs)

    def save(self, path: str | Path) -> Path:
        """Write :attr:`result` to netCDF (``.nc``) or zarr (``.zarr``)."""
        if self.result is None:
            raise ValueError("nothing to save: fit the model first")
        return save_posterior(self.result, path)

    @classmethod
    def load(cls, path: str | Path) -> JudgeModel:
        """Rebuild the model (configs included) and its result from a saved posterior."""
        tree = load_posterior(path)
        return model_from_tree(tree)


def _version() -> str:
    from judgestats import __version__

    return __version__


#: Posterior attr naming the variables left out of a saved posterior (recomputed on load).
_RECOMPUTED = "recomputed_on_load"
#: Posterior attr naming the metrics saved as copies of another one (equal draws).
_COPIES = "copies_on_load"
#: gzip level of the draws on disk: level 9 saves 2 % more for twice the time.
_GZIP_LEVEL = 4


def _disk_posterior(post: xr.Dataset) -> xr.Dataset:
    """Return the posterior without what :func:`load_posterior` rebuilds from the rest.

    Left out: what :func:`complete_posterior` recomputes, and a metric whose draws equal
    those of a metric stored before it (exact match and raw agreement without tie
    labels), recorded as a copy.
    """
    keep = stored_quantities(post)
    dropped = [str(n) for n in post.data_vars if n not in keep]
    same: dict[str, str] = {}
    # a slice of each metric first: metrics that differ do so in their first draw
    head = {
        str(n): v[(0,) * max(v.ndim - 2, 0)]
        for n in keep
        if n in REGISTRY and (v := post[n].values).dtype.kind == "f"
    }
    for i, name in enumerate(keep):
        if name not in head:
            continue
        value = post[name].values
        for other in keep[:i]:
            if (
                other in head
                and other not in same
                and post[other].dims == post[name].dims
                and np.array_equal(head[other], head[name], equal_nan=True)
                and np.array_equal(post[other].values, value, equal_nan=True)
            ):
                same[name] = other
                break
    if not dropped and not same:
        return post
    out = post[[n for n in keep if n not in same]]
    out = out.drop_vars([c for c in ("benchmark_pair", "pair_judges") if c in out.coords])
    out.attrs[_RECOMPUTED] = json.dumps(dropped)
    out.attrs[_COPIES] = json.dumps(same)
    return out


def _encoding(ds: xr.Dataset, zarr: bool) -> dict[str, dict[str, Any]]:
    """Draws as float32 (the drawn metrics are float32 already), gzip-compressed.

    Chunks hold every draw of one cell (judge, benchmark, ...): the draws of a cell are
    alike, and the cells of a judge absent from a benchmark (all NaN) cost nothing.
    Integers are stored as they are.
    """
    out: dict[str, dict[str, Any]] = {}
    for name, var in ds.data_vars.items():
        enc: dict[str, Any] = {}
        if var.dtype.kind == "f":
            enc["dtype"] = "float32"
        if not zarr and var.ndim and var.dtype.kind in "fiub":
            enc.update(compression="gzip", compression_opts=_GZIP_LEVEL, shuffle=True)
            enc["chunksizes"] = tuple(
                n if d in _SAMPLE else 1 for d, n in zip(var.dims, var.shape, strict=True)
            )
        if enc:
            out[str(name)] = enc
    return out


def save_posterior(tree: xr.DataTree, path: str | Path) -> Path:
    """Write a posterior DataTree to netCDF (``.nc``) or zarr (``.zarr``).

    Draws are stored as gzip-compressed float32, and the quantities computed from other
    stored draws (ranks, rank shifts, deflation, ...) are left out:
    :func:`load_posterior` recomputes them, bit for bit.
    """
    path = Path(path)
    disk = tree.copy()
    if "posterior" in disk.children:
        disk["posterior"] = xr.DataTree(_disk_posterior(disk["posterior"].to_dataset()))
    zarr = path.suffix == ".zarr"
    encoding = {node.path: _encoding(node.to_dataset(inherit=False), zarr) for node in disk.subtree}
    encoding = {k: v for k, v in encoding.items() if v}
    if zarr:
        disk.to_zarr(path, mode="w", encoding=encoding)
    else:
        disk.to_netcdf(path, engine="h5netcdf", encoding=encoding)
    return path


def load_posterior(path: str | Path) -> xr.DataTree:
    """Read a posterior written by :func:`save_posterior`, into memory.

    Float32 draws come back as float64 and the quantities left out are recomputed, so
    that the tree equals the one fitted.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such posterior file")
    if path.suffix == ".zarr":
        tree = xr.open_datatree(path, engine="zarr")
    else:
        tree = xr.open_datatree(path, engine="h5netcdf")
    tree = tree.load()
    for node in tree.subtree:
        for name, var in node.dataset.variables.items():
            if var.dtype == object:
                node.dataset = (
                    node.dataset.assign_coords({name: var.astype(str)})
                    if (name in node.dataset.coords)
                    else node.dataset.assign({name: var.astype(str)})
                )
            elif var.dtype == np.float32:
                node.dataset = node.dataset.assign({name: var.astype(float)})
    if "posterior" in tree.children and _RECOMPUTED in tree["posterior"].attrs:
        post = tree["posterior"].to_dataset()
        del post.attrs[_RECOMPUTED]
        copies = json.loads(post.attrs.pop(_COPIES, "{}"))
        post = post.assign({name: post[other] for name, other in copies.items()})
        derived = _config_from(DerivedConfig, post.attrs)  # rank_by, top_k, paradox_*
        tree["posterior"] = xr.DataTree(complete_posterior(post, derived))
    return tree


def model_from_tree(tree: xr.DataTree) -> JudgeModel:
    """Return the model (with configs) that produced ``tree``, holding it as result."""
    from judgestats.models import MODELS

    name = tree.attrs.get("model")
    if name not in MODELS:
        raise ValueError(f"posterior made by unknown model {name!r}; known: {sorted(MODELS)}")
    cls = MODELS[name]
    config = _config_from(type(cls.default_config), json.loads(tree.attrs["config"]))
    derived = _config_from(DerivedConfig, json.loads(tree.attrs["derived_config"]))
    model = cls(config, derived)
    model.result = tree
    return model
