"""What every judgestats model shares: config in, ``fit`` → DataTree, save/load, summary.

A model is a specification: a frozen config dataclass (``default_config``) plus a
:class:`~judgestats.models.derived.DerivedConfig`. :meth:`JudgeModel.fit` tallies the
data, draws each judge's expected item features per benchmark (the part a subclass
implements in :meth:`JudgeModel._draw_features`), derives every reported quantity
and returns an ArviZ-style :class:`xarray.DataTree` with groups ``posterior``,
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
from judgestats.models.derived import DerivedConfig, derived_quantities
from judgestats.tally import LABEL_NAMES, Tally, tally

__all__ = ["ConvergenceWarning", "FitData", "JudgeModel"]

log = logging.getLogger("judgestats")


class ConvergenceWarning(UserWarning):
    """A sampler diagnostic failed (R-hat, ESS or divergences); the report shows it."""


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

    def support(self) -> xr.DataArray:
        """Observed item features summed per judge and benchmark (zeros where absent)."""
        out = np.zeros((len(self.judges), len(self.benchmarks), len(FEATURES)))
        for b, bt in enumerate(self.tally):
            out[[self.judges.index(j) for j in bt.judges], b] = bt.feature_sums()
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
        add hyper-parameter draws under ``"hyper"``.
        """
        raise NotImplementedError

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
        features, groups = self._draw_features(fit_data, rng, random_seed)
        constant = fit_data.constant_data()
        # Tiers draw expected features per item; scaled to the judge's item count they
        # are expected sums, so that sample-size terms (Krippendorff's 2N - 1) match
        # the closed-form estimate on the same data.
        features = features * constant["n_items"].astype(float)
        posterior = derived_quantities(features, self.derived, fit_data.support())
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
        from judgestats.models.summary import diagnose

        problems = diagnose(tree)
        tree.attrs["warnings"] = json.dumps(problems)
        for p in problems:
            warnings.warn(p, ConvergenceWarning, stacklevel=2)
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


def save_posterior(tree: xr.DataTree, path: str | Path) -> Path:
    """Write a posterior DataTree to netCDF (``.nc``) or zarr (``.zarr``)."""
    path = Path(path)
    if path.suffix == ".zarr":
        tree.to_zarr(path, mode="w")
    else:
        tree.to_netcdf(path, engine="h5netcdf")
    return path


def load_posterior(path: str | Path) -> xr.DataTree:
    """Read a posterior written by :func:`save_posterior`, into memory."""
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
