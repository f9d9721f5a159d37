"""The latent-class model of shared items: its base measure and its Gibbs sampler."""

import itertools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import latent_class
import numpy as np
import pytest
from scipy.special import gammaln

from judgestats.schema import Verdict


@pytest.mark.parametrize("runs", [1, 2, 3])
def test_base_weight_is_g0_counted_over_raw_patterns(runs):
    """``G0``'s probability of a canonical pattern, in closed form, against the share of
    the raw (order, run) verdict arrays that canonicalise to it (the prior module's
    enumeration, which counts them)."""
    from judgestats.models.prior import _patterns_for

    mask = np.ones((2, runs), dtype=bool)
    patterns, prob = _patterns_for(mask.tobytes(), mask.shape)
    weight = latent_class.base_weight(patterns)
    np.testing.assert_allclose(weight, prob, rtol=1e-12)
    assert weight.sum() == pytest.approx(1.0)


def test_base_weight_of_a_pattern_with_a_missing_run():
    """Two identical run columns and an empty third: one ordering, 4 cells."""
    pat = np.array([[[Verdict.A, Verdict.A, Verdict.MISSING], [Verdict.B, Verdict.B, -1]]])
    assert latent_class.base_weight(pat)[0] == pytest.approx(4.0**-4)


def test_crp_tables_have_the_closed_form_mean_and_variance():
    """Tables of a Chinese restaurant: the number is a sum of independent Bernoulli
    ``a / (a + i)``, i = 0..n-1, whose mean and variance are closed forms; over 20,000
    draws per (count, concentration) the mean is within 4 standard errors and the
    variance within 5."""
    rng = np.random.default_rng(2)
    count = np.array([0, 1, 2, 7, 40, 300])
    conc = np.array([0.5, 3.0, 0.01, 2.0, 25.0, 1e-3])
    draws = latent_class.crp_tables(np.tile(count, (20000, 1)), conc, rng)
    for n, a, t in zip(count, conc, draws.T, strict=True):
        p = a / (a + np.arange(n))
        se = np.sqrt(p @ (1 - p) / len(t))
        assert abs(t.mean() - p.sum()) <= 4 * se + 1e-12, (n, a, t.mean(), p.sum())
        m4 = ((t - t.mean()) ** 4).mean()  # the sample variance's se from its 4th moment
        assert abs(t.var() - p @ (1 - p)) <= 5 * np.sqrt((m4 - t.var() ** 2) / len(t)) + 1e-12


@pytest.fixture(scope="module")
def tiny():
    """One benchmark of 6 items (2 labels), 2 judges, 2 and 3 runs: 2^6 class assignments."""
    from judgestats.models.base import FitData
    from judgestats.simulate import shared_difficulty_cohort, simulate

    cfg = shared_difficulty_cohort(3, difficulty_sd=2.0, scale=0.03)
    ds = simulate(cfg, random_seed=3).dataset
    ds = ds.isel(item=ds["benchmark"].values == "jb", judge=[0, 2])
    return FitData.from_data(ds).tally["jb"]


def test_s_step_samples_its_grid_posterior(tiny):
    """Metropolis on every judge's log ``s`` with the counts and parents held: the chain's
    mean and sd against the posterior on a fine grid, computed with scipy's
    Dirichlet-multinomial (not the module's likelihood), within 5 Monte Carlo
    standard errors (by batch means)."""
    from scipy import stats

    cfg = latent_class.LatentClassConfig(chains=1, classes_per_label=2)
    smp = latent_class._Sampler(tiny, cfg, np.random.default_rng(4))
    counts = smp.counts()
    draws = []
    for _ in range(20000):
        smp.step_s(counts)
        draws.append(smp.log_s[0].copy())
    draws = np.array(draws)[1000:]
    grid = np.linspace(-8, 14, 2001)
    parent = np.exp(smp.log_parent[0, smp.parent])  # (class, entry)
    for j in range(smp.n_judges):
        mine = smp.rows.judge == j
        log_post = stats.norm(*latent_class.S_PRIOR).logpdf(grid)
        for c in range(smp.n_classes):
            n = counts[0, c, mine].round().astype(int)
            if n.sum() == 0:
                continue
            for k, x in enumerate(grid):
                log_post[k] += stats.dirichlet_multinomial.logpmf(
                    n, np.exp(x) * parent[c, mine], n.sum()
                )
        w = np.exp(log_post - log_post.max())
        w /= w.sum()
        mean = w @ grid
        sd = np.sqrt(w @ (grid - mean) ** 2)
        batches = draws[:, j].reshape(50, -1).mean(1)
        se = batches.std(ddof=1) / np.sqrt(len(batches))
        assert abs(draws[:, j].mean() - mean) < 5 * se, (j, draws[:, j].mean(), mean, se)
        assert draws[:, j].std() == pytest.approx(sd, rel=0.1)


def _enumerated_moments(smp, bt):
    """Posterior mean of every judge's expected item features, and the cross moments
    ``E[f_0 f_1']`` of judges 0 and 1, given ``s`` and the parents (the sampler's,
    held), by enumerating every assignment of the items to their label's classes and
    integrating the class-level distributions and the shares out in closed form
    (Dirichlet-multinomial sequence probabilities, Dirichlet moments)."""
    from judgestats.features import FEATURES
    from judgestats.tally import LABEL_CODES

    d, k_all = smp.n_classes // len(smp.labels), smp.n_classes
    label = np.searchsorted(smp.labels, [LABEL_CODES.index(int(c)) for c in bt.item_label])
    s = np.exp(smp.log_s[0])
    parent = np.exp(smp.log_parent[0])  # (parent, entry)
    g0_mean = np.stack([smp.base.mean_features(li) for li in smp.labels])
    seen = [np.unique(row[row >= 0]) for row in bt.item_pattern]
    log_post, means, cross = [], [], []
    for choice in itertools.product(range(d), repeat=len(label)):
        z = label * d + np.array(choice)
        a_pi = 1.0 + np.bincount(z, minlength=k_all)  # Dirichlet of the shares given z
        lp = gammaln(k_all) - gammaln(k_all + len(z)) + gammaln(a_pi).sum()
        per_class = np.zeros((smp.n_judges, k_all, len(FEATURES)))  # E[class's features | z]
        for j in range(smp.n_judges):
            entries = np.flatnonzero(smp.rows.judge == j)  # seen patterns, then the rest
            for c in range(k_all):
                a = s[j] * parent[smp.parent[c], entries]
                k = np.searchsorted(seen[j], bt.item_pattern[j, z == c])
                n_k = np.bincount(k, minlength=len(entries))
                lp += gammaln(a.sum()) - gammaln(a.sum() + n_k.sum())
                lp += (gammaln(a + n_k) - gammaln(a)).sum()
                e_theta = (a + n_k) / (a.sum() + n_k.sum())
                feats = bt.features[seen[j], smp.labels[c // d], :]
                per_class[j, c] = e_theta[:-1] @ feats + e_theta[-1] * g0_mean[c // d]
        total = a_pi.sum()
        e_pi = a_pi / total
        e_pi2 = (np.outer(a_pi, a_pi) + np.diag(a_pi)) / (total * (total + 1))
        log_post.append(lp)
        means.append(np.einsum("c,jcf->jf", e_pi, per_class))
        cross.append(np.einsum("cd,cf,dg->fg", e_pi2, per_class[0], per_class[1]))
    w = np.exp(np.array(log_post) - max(log_post))
    w /= w.sum()
    return np.tensordot(w, np.array(means), axes=1), np.tensordot(w, np.array(cross), axes=1)


def test_class_steps_match_the_enumerated_posterior(tiny):
    """The steps of the classes and their parameters, with ``s`` and the parents held
    (their own steps are tested apart): the posterior means of every judge's expected
    features, and of the products of judge 0's and judge 1's (what pairs them), equal
    the exact ones (all 64 class assignments enumerated, the class-level distributions
    integrated out) within 5 Monte Carlo standard errors (arviz's mcse over 4
    chains), for every one that varies. Mutation-checked: a class step without the
    judges' term, or class shares from their prior, breaks it."""
    import arviz as az
    import xarray as xr

    cfg = latent_class.LatentClassConfig(chains=4, classes_per_label=2)
    smp = latent_class._Sampler(tiny, cfg, np.random.default_rng(11))
    smp.log_s[:] = np.log(0.3)  # classes far apart: the assignment matters
    smp.log_parent[:] = smp.log_parent[:1]
    draws = []
    for sweep in range(3200):
        smp.step_parameters()
        if sweep >= 200:
            draws.append(smp.features())
        smp.step_classes()
    draws = np.stack(draws, 1)  # (chain, draw, judge, feature)
    exact_mean, exact_cross = _enumerated_moments(smp, tiny)
    products = np.einsum("cdf,cdg->cdfg", draws[:, :, 0], draws[:, :, 1])
    for sampled, exact in ((draws, exact_mean), (products, exact_cross)):
        da = xr.DataArray(sampled, dims=("chain", "draw", *(f"d{i}" for i in range(2))))
        se = az.mcse(xr.Dataset({"f": da}))["f"].values
        varies = se > 1e-9
        assert varies.sum() > 20
        err = np.abs(sampled.mean((0, 1)) - exact)[varies] / se[varies]
        assert err.max() < 5, f"largest error {err.max():.1f} mcse"
