"""The hierarchical tier: partial pooling of judges within a benchmark (PyMC + nutpie).

Model, for benchmark ``b``, human label ``l`` (A, B, tie, none) and judge ``j``: an
item's verdict pattern over (order, run) is categorical with probabilities
``theta[j, b, l]``, Dirichlet-multinomial around a judge-level mean that is partially
pooled across the judges of the benchmark. The pattern distribution is a Dirichlet
tree (:mod:`judgestats.models.tree`): a pattern is reached by choosing its design
(which (order, run) cells were asked; only where the judges of a benchmark differ in
it), in which orders all runs agreed, then the decision (modal verdict per order),
then the exact pattern. Each node's choice among its children (largest first) is a chain of
binary splits, "this child, or a later one" — a generalised Dirichlet, so that
every category has its own pooling strength. For every split ``s`` of a cell ``c``::

    eta[s]        ~ Normal(0, eta_sigma)                 benchmark-mean logit
    p[k]          = prod of logistic(+-eta) along leaf k's path    benchmark mean
    s2[b, t]      ~ InvGamma(trait_shape, trait_sigma^2 / 2)   trait spread (integrated out)
    u[j, c, t]    ~ Normal(0, s2[b, t]), centred over j        judge trait
    q[j, k]       ~ p[k] * exp(sum_t u[j, c, t] * x[k, t])         judge-level mean
    mu[j, s]      = q[j] under s's child / q[j] under the later children
    log kappa[s]  = m[level(s)] + tau * w[s]             w ~ Normal(0, 1)
    d[j, b]       ~ Normal(0, s2_d[b]), centred over j   s2_d ~ InvGamma (integrated out)
    conc[j, s]    = kappa[s] * exp(d[j, b]) * M[s]   M[s]: mean mass reaching s's node
    v[j, s]       ~ Beta(conc[j, s] * mu[j, s], conc[j, s] * (1 - mu[j, s]))
    n[j, s]       ~ Binomial(n[j, s] + rest[j, s], v[j, s])

A judge's pooling concentrations are the benchmark's times its own factor
``exp(d[j, b])`` (:func:`_judge_offsets`; ``judge_pooling`` in the posterior): a
judge whose verdicts stray from its traits' mean more than the others' do is pooled
less, instead of being pulled toward them as strongly as the judges the cohort
resembles.

The judge-level mean ``q[j]`` is the benchmark mean ``p`` exponentially tilted by
the judge's *traits* (:mod:`judgestats.models.traits`): agreement (preference for
A), ties, invalid answers, first-position picks, position flips and run agreement,
``x[k, t]`` being pattern ``k``'s item feature of trait ``t``, standardised in the
cell (:meth:`~judgestats.models.layout.Layout.split_logits`). A trait moves every
split at once; the traits are pooled across the judges of a benchmark with one
spread per trait. The Dirichlet-multinomial around ``mu[j]`` takes what the traits
do not explain, pooled split by split with strengths pooled per tree level.

The tilt is exact. An earlier version shifted each split's log-odds by the trait
times the split's *loading* (the tilt's derivative at the cell's mean), which is
right only near the cohort: on an exchangeable 3-judge cohort
(``tests/models/test_traits.py``) a trait of 3 moves the mean standardised
first-position feature by 2.63 sd under the tilt and by 0.24 sd under the shift, and
a trait of 1 by 1.24 and 0.37 sd. A near-deterministic,
strongly position-biased judge could not be reached by its traits and was pulled
toward the others by the pooling. Written as a PyTensor graph, the exact tilt cost
about a third more per gradient than the shift (1.32 times on LLMBar).

Why traits. Judges differ in a few ways that act on every verdict, and each way
moves probability between many patterns a little. Pooled split by split only, such
a difference looks on each split like noise that judges share, and is shrunk away:
the first version of this tier, without traits, covered 85% of true values with its
95% intervals on an exchangeable cohort and about 70% with 90% intervals on small
ones. A trait adds the small moves of all splits into one well-measured quantity,
which is pooled by how much judges really differ in it.

Full support. Every tree has a *novel* leaf under its root for items whose pattern
follows the base measure of :mod:`judgestats.models.prior` (never observed, so its
mass is what the prior and the data leave it); each draw gives those items a pattern
distribution ``P_new ~ DP(prior, G0)`` per judge. No pattern the data did not show
loses its mass, so no interval collapses to a point on small data.

Judges are pooled within a benchmark, never across benchmarks (rank shifts between
benchmarks are not shrunk away). The likelihood has one beta-binomial term per
(judge, split) with items, weighted by the pattern counts of the tally, never one
term per judgment: the tilt, the split probabilities and every term, with
their gradient, are one compiled kernel (:mod:`judgestats.models.kernels`).

Parameterisation, chosen by data size. ``v`` is integrated out analytically: NUTS
samples the benchmark-level ``eta``, the traits and the pooling strengths, and ``v``
is drawn afterwards from its exact conditional posterior. A centred ``v`` has the
funnel between ``kappa`` and ``v`` that hurts sparse cells (a JudgeBench judge with a
handful of tie-labelled items), a non-centred one wastes effective samples when
cells hold hundreds of items that pin ``v`` down; marginalised, there is no funnel
at any cell size. The split means ``eta`` are centred: every judge of the benchmark
informs them. The traits are centred and their spread is integrated out (see
:func:`_traits` for the measurement behind the choice); the pooling strengths are
non-centred, being many and mostly weakly informed (a split seen on a few items
cannot show how much judges differ).
Label shares of a benchmark are conjugate, ``Dirichlet(1 + item counts per label)``,
shared by all judges. Each posterior draw gives every judge's expected item
features, from which :mod:`judgestats.models.derived` computes every metric.

Measured with the simulator's exact truth (``tests/models/test_recovery.py``,
``benchmarks/bench_coverage.py``, README): 95% intervals of this tier cover at
least 90% of true values on the seed-002 and exchangeable cohorts, and 90%
intervals cover within the nominal band on small exchangeable cohorts.

Items shared by judges. The likelihood treats the judges as independent given
the hyper-parameters, although they rate the same items and an item's difficulty is
shared by all of them; the draws after sampling pair them through the items they
rated without changing any judge's own posterior
(:mod:`judgestats.models.conditionals`), and the posterior predictive checks
(:mod:`judgestats.models.ppc`) flag inter-judge agreement the likelihood does not
explain. Over 20 replicates of a cohort with a shared item difficulty, a judge run
twice and two near-deterministic, strongly position-biased judges
(:func:`judgestats.simulate.shared_difficulty_cohort`, data seeds 1000-1019,
``benchmarks/bench_coverage.py --tier both --replicates 20 --cores 2``), the 95%
intervals cover kappa 0.950, exact match 0.948, P(first) 0.950, flip rate 0.942,
test-retest 0.931 and kappa differences 0.960 (Monte Carlo error 0.006-0.014,
z-score sd 0.96-1.08), the 90% intervals 0.892, 0.881, 0.879, 0.902, 0.875 and
0.919; the randomised PIT of ranks and rank shifts covers 0.954 and 0.940; no cell is
covered in fewer than 16 of 20 replicates; P(judge i ranked above judge j) differs
from the exact tier's by 0.012 in the median pair and 0.025 at most (mean over
replicates of the absolute difference; the mean difference is 0.021 +- 0.005 at
most).

Pooling priors twice as wide. Those figures are for the present scales of the
pooling priors (``trait_sigma`` 4, ``log_kappa_sigma`` 1, ``log_kappa_spread`` 0.6,
``judge_kappa_spread`` 2), twice the earlier ones (2, 0.5, 0.3 and 1), which on the
same 20 datasets and seeds gave 0.952, 0.950, 0.956, 0.938, 0.915 and 0.957 (90%:
test-retest 0.871), and P(above) gaps of 0.038 and 0.037 +- 0.007: test-retest
under-covered (its coverage rose by 0.017 +- 0.006 with the wider priors, the
difference paired by replicate; the others moved by less than their error) and the
two tiers' P(above) differed by more than 0.03. Pooled less, the judges that
stand out keep more of their own data. A fit takes 28.0 s per replicate against 22.3 s
(2 chains of 1,000 draws on 2 cores). In earlier runs, with other versions of this
tier, the figures on the first 10 of those datasets were 0.958, 0.963, 0.954, 0.942,
0.933 and 0.954.

What made the difference, measured on data seeds 1000-1009:

* the judges' own pooling factors (:func:`_judge_offsets`) and a wider prior of the
  trait spreads (``trait_sigma`` 2, :func:`_traits`) together took the figures
  above from 0.950, 0.963, 0.942, 0.912, 0.917 and 0.957 (P(above) gap 0.022 and
  0.078; the flip rate of the judge that flips least in a benchmark covered in 5 of
  10 replicates). Shrinkage was the cause: with the DM residual unpooled
  (``log_kappa`` near -4) the two near-deterministic judges' test-retest had mean
  z-scores of +1.47 and +0.62 over 4 replicates, pooled -0.95 and -1.05 over 10,
  pulled about one posterior sd toward the cohort, as were the flip rate of the
  judge that flips least (+1.37 and +1.47 in two benchmarks) and the test-retest
  of the least stable one (+1.14).
* The judges' factors alone moved those two test-retests to -0.12 and -0.14 and
  the others not; with trait spreads centred at 1 (``trait_sigma`` 1) coverage was
  0.912 for the flip rate and 0.929 for test-retest, the P(above) gap 0.068.
* The wider trait prior alone: flip rate 0.933, test-retest 0.921, gap 0.042; a
  prior of 4 alone (0.938 and 0.932 on 8 replicates, gap 0.030) pooled less and
  cost more sampling. With the judges' factors, a spread of 2 for them alone gave
  test-retest 0.921 over 20 replicates; all pooling priors twice as wide (4 for the
  traits) gave the figures above.
* Not kept: a heavier-tailed trait prior per judge (each judge's traits scaled by
  its own ``InvGamma(2, 2)`` variance factor), flip rate 0.908, test-retest 0.921,
  gap 0.097; a wider spread of the log pooling strengths within a tree level
  (``log_kappa_spread`` 1.5), 0.921 and 0.917.

Before the design level of the tree and the inverse-gamma trait prior, the same
figures were 0.917, 0.932, 0.938, 0.875, 0.932 and 0.929 on 8 replicates, and the
P(above) gap 0.054 and 0.188.

Why the items enter after sampling and not the likelihood. A crossed judge x item
likelihood was built and measured (``benchmarks/bench_item_effects.py``): one effect
per item, ``b ~ Normal(0, 1)`` shared by every judge who rated it, moving every
judge's traits by ``b`` times a loading per (cell, trait); integrated out item by
item by Gauss-Hermite quadrature (7 nodes) over the distinct joint rows of the
judges' patterns; with every judge's residual drawn explicitly (a logistic-normal
with this tier's pooling strengths), since a mixture over items leaves no
Dirichlet-multinomial to integrate out. Its likelihood matches direct integration
item by item (``tests/benchmarks/test_bench_item_effects.py``). On the
shared-difficulty cohort (data seed 1000: 8 judges, 650 items) one gradient cost
15.8 times this tier's (3.66 against 0.23 ms; 3,327 free parameters against 1,688);
with 2 chains of 400 draws after 400 tuning steps NUTS took 1,339 s against 17.8 s,
258 leapfrog steps per draw against 45, and the crossed model's chains did not
agree (R-hat up to 1.46 for the benchmark means and 1.71 for the traits, bulk ESS
down to 3, against 1.029 and 1.026). Without the residuals the chains agreed (R-hat
at most 1.021; 660 s, 207 steps per draw), but judges then differ only in their six
traits, and what the traits do not carry is lost. Residuals orthogonal to each
cell's trait loadings did not mix either (R-hat up to 1.96), nor centred where a
judge has 20 items or more at a split (1.55), so neither the linearised trade-off
with the traits nor the residuals' non-centred scale is the cause. The chains
disagree mostly on the two near-deterministic judges (in a shorter run with centred
residuals, 22 of the 24 residuals and 27 of the 40 traits with R-hat above 1.05):
their items sit on one side of most of their splits, where the likelihood is nearly
flat and their residuals and traits both push the same way; this tier integrates
that residual out, exact at any count. Without residuals at splits a judge's items
never leave, the steps halve but R-hat stays up to 1.28; without those two judges
the crossed chains nearly agree (R-hat up to 1.14, bulk ESS down to 11) in 1,248 s
against 20 s. Bounding the residuals' sd at e on the logit scale (against e^3) took
the traits' R-hat to 1.05 in 462 s, but left the judges' pooling offsets at 1.11
(where the bound binds they no longer reach the likelihood): the residuals' scale
growing where a judge's likelihood is flat looks like most of the failure (one run
each; without the judges' offsets in that scale R-hat rose to 1.94; a bound that
tapers, the variance still growing a quarter as fast beyond it, 1.95; the tier's own
beta residual drawn explicitly as a ratio of gammas, 3.05). Seven nodes
were also too few:
at loadings of about 1 per sd of a trait's feature the likelihood of 65 items was
0.49 log units off direct integration (41 nodes: 5e-4). A latent-class
(Dawid-Skene) likelihood was measured too (``benchmarks/latent_class.py``: every
item's class shared by its judges, each judge's pattern distribution per class a
Dirichlet process pooled toward its own per label, sampled by blocked Gibbs, every
step conjugate or one-dimensional). With the human label as one more rater of the
class, as Dawid and Skene have it, the judges' kappa against the human label sat
2.6-2.9 posterior sd below the truth on average, whatever the number of classes: it
measures agreement with a latent truth, not with the humans. With the classes
anchored to the human label (a label's items in its own classes), it mixed (R-hat at
most 1.004, 1.036 for its pooling strengths) and over 20 replicates covered as the
exact tier did (95%: kappa 0.950, test-retest 0.923, kappa differences 0.955;
P(above) 0.021 from the exact tier's at most), but with an item difficulty of sd 3
its flip rate and test-retest under-covered (0.892 and 0.908 against the exact
tier's 0.950 and 0.942), it does not pool judges, and a fit took 39 s. So the tier is a
modular posterior, a *cut* (Plummer 2015): the hyper-parameters are sampled with
judges independent given them, and the items' joint law (their Bayesian bootstrap,
shared by the judges) enters with the judges' split probabilities
(:mod:`judgestats.models.conditionals`) without feeding back into the pooling.
Measured above, this gives differences, ranks and rank shifts their pairing (95%
coverage 0.960, 0.954, 0.940 over 20 replicates). What it gives up: item effects
do not inform the pooling; an item with several human raters enters with their
plurality label, not as ratings of the same latent class; and replicated data
cannot reproduce the judges' agreement beyond their pattern distributions, which
the predictive check flags (:mod:`judgestats.models.ppc`; on every LLMBar set).
A crossed model needs its own compiled kernel (as
:mod:`judgestats.models.kernels` is for this one) and a residual that mixes for
near-deterministic judges before its calibration can be measured.

``prior_scale`` multiplies every pooling prior's scale, to show how much the
posterior depends on them (``benchmarks/bench_prior_sensitivity.py``).

Where the code lives: :mod:`judgestats.models.layout` flattens the trees into
splits, this module builds the PyMC model from them (:func:`build_pymc_model`),
whose likelihood and its gradient are the compiled kernel of
:mod:`judgestats.models.kernels`, :mod:`judgestats.models.sampling` samples it
with nutpie (compiled once per model; with ``reuse_compiled``, once per structure:
a refit with new counts and the same pattern trees does not compile again) and
:mod:`judgestats.models.conditionals` turns the draws into item features.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import xarray as xr

from judgestats.models.base import FitData, JudgeModel
from judgestats.models.conditionals import expected_features, hyper_dataset
from judgestats.models.derived import MetricDraws
from judgestats.models.layout import Layout, apply_pt, build_layout
from judgestats.models.ppc import PredictiveChecks
from judgestats.models.prior import DEFAULT_CONCENTRATION
from judgestats.models.sampling import SamplerSettings, sample
from judgestats.models.traits import TRAITS
from judgestats.models.tree import LEVELS

__all__ = [
    "BuiltModel",
    "HierarchicalConfig",
    "HierarchicalModel",
    "Pooled",
    "build_pymc_model",
    "count_data",
    "offset_groups",
    "pooled_parameters",
    "trait_groups",
    "trait_mask",
]


@dataclass(frozen=True)
class HierarchicalConfig:
    """Settings of the hierarchical tier.

    Attributes
    ----------
    draws, tune, chains : int
        NUTS draws per chain, tuning steps, chains.
    target_accept : float
        NUTS target acceptance rate. 0.9: with the exact trait tilt, 0.8 left one
        divergent transition in 2 x 1,000 draws on the seed-002 cohort (data seed 1;
        final step sizes 0.17-0.18); 0.9 left none, with the same 31 leapfrog steps
        per draw (step sizes 0.14-0.15) and sampling 90.7 s against 89.0 s.
    eta_sigma : float
        Prior sd of the benchmark-mean logits at each tree node.
    rare_per_judge : float
        A tree category seen on fewer than this many items per judge of the
        benchmark is rare and pooled in a node of its own (see
        :func:`~judgestats.models.tree.pattern_tree`).
    log_kappa_mu, log_kappa_sigma : float
        Normal prior of the mean log pooling concentration of each tree level. A
        concentration is the number of pseudo-items (spread over the tree by the mean
        pattern mass) that pull a judge toward its trait-level mean in what the
        traits do not explain. The default, about e = 2.7 pseudo-items, lets the
        data decide (they typically ask for tens to hundreds).
    log_kappa_spread : float
        Scale of the half-normal prior of the spread of log pooling concentrations
        around their level's mean.
    trait_sigma, trait_shape : float
        The variance of each judge trait across the judges of a benchmark (in
        log-odds per sd of the trait's item feature) has the prior
        ``InvGamma(trait_shape, trait_sigma**2 / 2)``: mean ``trait_sigma**2 / 2``
        (8 by default: about three log-odds per sd of the feature), zero density at 0
        (a few judges cannot pool a trait away), integrated out of the model
        (:func:`_traits`).
    judge_kappa_spread : float, default 2.0
        The variance, across the judges of a benchmark, of their offsets to the log
        pooling concentrations has the prior ``InvGamma(trait_shape,
        judge_kappa_spread**2 / 2)``, integrated out: a judge whose verdicts stray
        from its traits' mean more than the others' do is pooled less
        (:func:`_judge_offsets`). 0 pools every judge alike.
    cores : int
        Chains sampled in parallel.
    prior : float, default :data:`~judgestats.models.prior.DEFAULT_CONCENTRATION`
        Concentration of the Dirichlet process that the items of each tree's novel
        leaf follow (see :mod:`judgestats.models.prior`); the novel leaf's mass itself
        is a split of the tree like any other.
    prior_scale : float, default 1.0
        Multiplies the scale of every prior that sets how strongly judges are pooled
        (``trait_sigma``, ``log_kappa_sigma``, ``log_kappa_spread`` and
        ``judge_kappa_spread``): 0.5 and 2
        show how much the posterior depends on them (``fit --prior-scale``;
        ``benchmarks/bench_prior_sensitivity.py``).
    reuse_compiled : bool, default False
        Take every count as ``pm.Data``, so that a later fit of the same structure
        (same judges, benchmarks and pattern trees, other counts) reuses the compiled
        sampler instead of compiling again. Compiling such a model takes about twice
        as long as one with the counts as constants (``benchmarks/bench_recompile.py``),
        and replicates of a simulation rarely share their pattern trees, so this pays
        only for repeated fits of one structure. Without it, a fit of the same counts
        and priors (another seed or number of draws) still reuses the compiled model.
    pair_items : bool, default True
        Couple the judges' split probabilities through the items they rated, so that
        differences between judges, ranks and rank shifts keep the pairing of judges
        rated on the same items; every judge's own posterior is unchanged (see
        :mod:`judgestats.models.conditionals`). False draws the judges independently
        given the hyper-parameters.
    """

    draws: int = 1000
    tune: int = 400
    chains: int = 2
    target_accept: float = 0.9
    eta_sigma: float = 3.0
    rare_per_judge: float = 2.0
    log_kappa_mu: float = 1.0
    log_kappa_sigma: float = 1.0
    log_kappa_spread: float = 0.6
    trait_sigma: float = 4.0
    cores: int = 2
    trait_shape: float = 2.0
    prior: float = DEFAULT_CONCENTRATION
    prior_scale: float = 1.0
    reuse_compiled: bool = False
    pair_items: bool = True
    judge_kappa_spread: float = 2.0

    def __post_init__(self) -> None:
        if not (self.prior_scale > 0 and np.isfinite(self.prior_scale)):
            raise ValueError(f"prior_scale={self.prior_scale!r}; must be a positive number")
        if min(self.draws, self.tune, self.chains, self.cores) < 1:
            raise ValueError("draws, tune, chains and cores must all be >= 1")
        if not 0 < self.target_accept < 1:
            raise ValueError(f"target_accept={self.target_accept}; must be in (0, 1)")
        if min(self.eta_sigma, self.log_kappa_sigma, self.trait_sigma, self.trait_shape) <= 0:
            raise ValueError(
                "eta_sigma, log_kappa_sigma, trait_sigma and trait_shape must be positive"
            )
        if not self.judge_kappa_spread >= 0:
            raise ValueError(f"judge_kappa_spread={self.judge_kappa_spread!r}; must be >= 0")

    @property
    def trait_scale(self) -> float:
        """Scale of the inverse-gamma prior of a trait's variance (``prior_scale`` in)."""
        return 0.5 * (self.prior_scale * self.trait_sigma) ** 2

    @property
    def judge_kappa_scale(self) -> float:
        """Scale of the inverse-gamma prior of the variance of the judges' offsets."""
        return 0.5 * (self.prior_scale * self.judge_kappa_spread) ** 2


def trait_mask(lay: Layout) -> np.ndarray:
    """(judge, cell, trait): True where a judge has items and the trait has loadings."""
    present = lay.cell_items > 0  # (judge, cell)
    loaded = np.zeros((len(lay.blocks), len(TRAITS)), dtype=bool)
    np.logical_or.at(loaded, lay.split_cell, lay.loadings != 0)
    return present[:, :, None] & loaded[None]


def trait_groups(lay: Layout, mask: np.ndarray) -> tuple[np.ndarray, int]:
    """Return the (benchmark, trait) group of every trait parameter, and the group count.

    Parameters
    ----------
    lay : Layout
    mask : ndarray of bool, shape (judge, cell, trait)
        :func:`trait_mask`: the traits that are parameters, in C order.

    Returns
    -------
    group : ndarray of int, shape (parameter,)
        ``benchmark * n_traits + trait``.
    n_groups : int
    """
    _, cell, trait = np.nonzero(mask)
    return lay.cell_benchmark[cell] * mask.shape[-1] + trait, lay.n_benchmarks * mask.shape[-1]


def _traits(lay: Layout, mask: np.ndarray, shape: float, scale: float):
    """Judge traits, shape (judge, cell, trait), partially pooled within each benchmark.

    A judge's trait in a cell is ``Normal(0, s2)``, ``s2`` the variance of that trait
    across the judges of the cell's benchmark, with the prior ``InvGamma(shape,
    scale)``. The variance is integrated out: the traits of one (benchmark, trait)
    group are jointly Student-t, with log density ``-(shape + n / 2) * log(1 + sum u**2
    / (2 scale))`` for ``n`` traits, and NUTS samples the traits themselves (centred);
    the spreads are drawn afterwards from their inverse-gamma conditionals
    (:func:`judgestats.models.conditionals.trait_spread_draws`). The traits are then
    centred over the judges of each cell: the benchmark-mean logits ``eta`` are the
    average judge, and a shift of every trait by the same amount (which the
    likelihood cannot tell from a shift of ``eta``) is not a direction the sampler
    has to explore along a ridge shared with ``eta``. Traits without loadings in a
    cell, and judges without items in it, are fixed at 0 and are not parameters at
    all (``mask``, from :func:`trait_mask`): on LLMBar they are 42% of the (judge,
    cell, trait) grid.

    Why this prior, and why integrated out. Measured on replicates 1004-1011 of
    :func:`~judgestats.simulate.coverage.shared_difficulty_cohort` (the same datasets
    and seeds for every variant): 95% coverage of kappa, exact match, P(first), flip
    rate, test-retest and kappa differences; the largest and median gap between the
    tiers' P(judge i ranked above judge j); the trait spreads' worst bulk ESS of 2,000
    draws; and on the 21-judge seed-002 cohort, leapfrog steps per draw and sampling:

    * HalfNormal(1) on the sd, non-centred: .922 .932 .932 .901 .906 .946; gaps .237
      and .062; ESS 115-255 in every fit; 31 steps, 88 s;
    * Gamma(2, 2) on the sd, non-centred: .932 .932 .932 .896 .922 .951; .211, .053;
      ESS 234; 31 steps, 88 s;
    * InvGamma(2, 0.1) on the variance, integrated out: .958 .958 .932 .885 .911
      .964; .137, .039; ESS 67; 31 steps, 77 s;
    * InvGamma(2, 0.5), non-centred: .964 .958 .938 .927 .917 .957; .081, .021; ESS
      378; 71 steps, 176 s, a divergence; centred: 59 steps, 123 s;
    * InvGamma(2, 0.5), integrated out (this form): .964 .948 .938 .917 .911 .957;
      .079, .021; ESS 243; 61 steps, 130 s.

    The default became ``InvGamma(2, 2)`` (``trait_sigma`` 2) with the judges' own
    pooling factors (:func:`_judge_offsets`), on replicates 1000-1009, and later
    ``InvGamma(2, 8)`` (``trait_sigma`` 4) when every pooling prior was widened
    twofold: see the module docs (still 63 leapfrog steps per draw on the 1x
    seed-002 cohort, seed 0). With ``trait_sigma`` 2, on the 1x seed-002 cohort NUTS
    took 63 leapfrog steps per draw (seeds 0 and 2, and a whole report), against 134
    with ``InvGamma(2, 2)`` and no factors (seed 0) and 39-60 with the default
    before (``InvGamma(2, 0.5)``, no factors): the wider prior lets the traits trade off against the
    residual, which the judges' factors partly take up. On LLMBar the trait spreads
    mix better under it (1 of 48 cells under a bulk ESS of 400, against 15 of 48 and
    an R-hat up to 1.025), at 63 steps per draw against 32.

    Sampling only the centred traits' free coordinates (a zero-sum basis per (cell,
    trait), the map of PyMC's ``ZeroSumNormal``, with the cells' trait means
    integrated out: the same posterior of ``trait``) halved the leapfrog steps on the
    seed-002 cohort (32 against 67 per draw) but mixed worse: the traits' worst bulk
    ESS was 56 against 257 and their R-hat 1.043 against 1.015 (one fit each, 2 x
    1,000 draws, seed 0). The cell means of ``trait_u``, which only the prior
    informs, act as a redundant parameter that lets a group's common scale move (the
    parameter expansion of Liu and Wu 1999); their own R-hat (up to 1.032 there)
    says nothing about any reported quantity.
    Keeping those means but sampling each (cell, trait) column in rotated
    coordinates (its mean, and an orthonormal zero-sum basis of the judges'
    deviations: the same joint density, an orthogonal change of variables) fixes
    the conditioning that the means cause (the posterior correlation of the raw
    traits has eigenvalues from 2e-4 to 15 on the 1x seed-002 cohort) but not the
    mixing: on the 10x cohort, seeds 0 and 1, NUTS took 42 and 53 leapfrog steps per
    draw against 88 and 93, and sampled in 71 and 79 s against 144 and 128 s, while
    the trait spreads' worst bulk ESS fell to 123 and 147 from 209 and 222 (pooling
    concentrations 386 against 772 for seed 1). Per second, the slowest-mixing
    quantities gained nothing, and more fits flagged them.

    A prior with mass near 0 lets a few judges pool a trait away, and the two
    extreme judges of that cohort were then pulled toward the others; the gain is the
    prior's, which keeps the spread off 0 (``InvGamma(2, 0.5)`` puts almost no mass
    below a spread of 0.15, ``InvGamma(2, 2)`` below 0.3), not the form's. Among its
    forms, integrating the spread out mixed best. Its cost is on large cohorts: the
    traits, less pooled, trade off against the Dirichlet-multinomial residual, and on
    the seed-002 cohort NUTS takes about twice the leapfrog steps of the half-normal
    prior. A centred form with a
    half-normal spread mixed worst of all (LLMBar: R-hat 2.06, ESS 3).
    """
    return _centred_student_t("trait", mask, *trait_groups(lay, mask), shape, scale)


def _centred_student_t(
    name: str, mask: np.ndarray, group: np.ndarray, n_groups: int, shape: float, scale: float
):
    """Judge-level parameters pooled by an integrated-out inverse-gamma variance, centred.

    One parameter per True entry of ``mask`` (judge first), ``Normal(0, s2[g])`` for
    its group ``g``, ``s2[g] ~ InvGamma(shape, scale)`` integrated out: the
    parameters of a group are jointly Student-t, with log density ``-(shape + n / 2)
    * log(1 + sum u**2 / (2 scale))`` for ``n`` parameters (potential
    ``{name}_prior``), and NUTS samples them (``{name}_u``, Flat). Returned on
    ``mask``'s grid, centred over the judges (first axis) that have an entry, 0
    elsewhere. :func:`_traits` and :func:`_judge_offsets` are such parameters.
    """
    import pymc as pm
    import pytensor.tensor as pt

    at = np.flatnonzero(mask.ravel())
    n = np.bincount(group, minlength=n_groups).astype(float)
    u = pm.Flat(f"{name}_u", shape=len(at))
    sum_sq = pt.zeros(n_groups)[group].inc(u**2)
    pm.Potential(f"{name}_prior", pt.sum(-(shape + n / 2) * pt.log1p(sum_sq / (2 * scale))))
    full = pt.zeros(mask.size)[at].set(u).reshape(mask.shape)
    keep = mask.astype(float)  # 0/1: PyTensor's rewrites refuse bool products
    mean = full.sum(0) / np.maximum(mask.sum(0), 1)
    return (full - mean) * keep


def _judge_offsets(lay: Layout, shape: float, scale: float):
    """Each judge's offset of its log pooling concentrations per benchmark, (judge, benchmark).

    The offsets of a benchmark's judges are ``Normal(0, s2[b])``, centred over them,
    with ``s2[b] ~ InvGamma(shape, scale)`` integrated out as the traits' spreads are
    (:func:`_traits`: jointly Student-t, the offsets themselves sampled), for the
    judges with items in the benchmark; 0 elsewhere, and everywhere when ``scale``
    is 0 (every judge pooled alike). Centred, they share the benchmark's pooling out
    among its judges, and the level means of ``log_kappa`` keep its strength.
    Uncentred (with a half-normal spread, non-centred), a shift of every judge's
    offset and the opposite shift of the level means were one likelihood: on the 1x
    seed-002 cohort, whose judges the traits describe fully, the offsets drifted to
    a median factor of 740 (up to 8,110) past the soft bound of ``log_kappa``, and
    NUTS took 165 leapfrog steps per draw. Centred but non-centred in their spread,
    they took 63 steps and left a divergent transition in 3 of 4 fits there (seeds 0
    to 2 and a report). The deterministic ``log_kappa_judge`` holds the offsets.
    """
    import pymc as pm
    import pytensor.tensor as pt

    present, group, n_groups = offset_groups(lay)
    if scale <= 0:
        return pt.zeros(present.shape)
    name = "log_kappa_judge"
    return pm.Deterministic(name, _centred_student_t(name, present, group, n_groups, shape, scale))


def offset_groups(lay: Layout) -> tuple[np.ndarray, np.ndarray, int]:
    """Where the judges' pooling offsets are, and their pooling groups.

    Returns
    -------
    present : ndarray of bool, shape (judge, benchmark)
        A judge has an offset in a benchmark where it has items.
    group : ndarray of int
        The group (benchmark) of every offset, in ``present``'s order of True entries.
    n_groups : int
    """
    present = lay.judge_in_benchmark
    return present, np.nonzero(present)[1], lay.n_benchmarks


def count_data(lay: Layout) -> dict[str, np.ndarray]:
    """Everything the PyMC model takes from the counts, by the name of its ``pm.Data``.

    The (judge, split) pairs with items, their items through the split's child
    (``succ``) and through a later child (``rest``), and the trait scores of every
    leaf. Two layouts with the same
    :meth:`~judgestats.models.layout.Layout.structure` and :func:`trait_mask` (which
    traits are parameters) give one compiled model, filled with this data.

    Parameters
    ----------
    lay : Layout

    Returns
    -------
    dict of str to ndarray
    """
    succ, rest = lay.split_counts(lay.counts)  # (judge, split)
    jj, ss = np.nonzero(succ + rest)
    return {
        "pair_judge": jj,
        "pair_split": ss,
        "succ": np.rint(succ[jj, ss]).astype(np.int64),
        "rest": np.rint(rest[jj, ss]).astype(np.int64),
        "scores": np.ascontiguousarray(lay.scores),
    }


@dataclass(frozen=True)
class BuiltModel:
    """The PyMC model of a fit, with the layout it was built from.

    Attributes
    ----------
    model : pymc.Model
    layout : Layout
    data : dict of str to ndarray
        The values of the model's ``pm.Data`` (:func:`count_data`); empty unless
        ``HierarchicalConfig.reuse_compiled``, when the counts are constants.
    structure : str
        Digest of everything else the model is built from: models with the same
        structure share one compiled sampler.
    """

    model: Any
    layout: Layout
    data: dict[str, np.ndarray]
    structure: str


def _prior_key(config: HierarchicalConfig) -> str:
    """Return the config fields that enter the model's graph, as text."""
    return repr(
        (
            config.eta_sigma,
            config.log_kappa_mu,
            config.log_kappa_sigma,
            config.log_kappa_spread,
            config.trait_sigma,
            config.trait_shape,
            config.prior_scale,
            config.judge_kappa_spread,
        )
    )


@dataclass(frozen=True)
class Pooled:
    """The variables of the judges' pooling, as PyTensor tensors (:func:`pooled_parameters`).

    Attributes
    ----------
    log_mu, log_1mmu : TensorVariable, shape (split,)
        Log probabilities of every split's child and later children under the
        benchmark mean.
    trait : TensorVariable, shape (judge, cell, trait)
        The judges' traits (centred).
    log_conc : TensorVariable, shape (split,)
        Log pooling concentration of every split (the judges' offsets not added).
    judge_offset : TensorVariable, shape (judge, benchmark)
        Each judge's offset of its log pooling concentrations.
    """

    log_mu: Any
    log_1mmu: Any
    trait: Any
    log_conc: Any
    judge_offset: Any


def pooled_parameters(lay: Layout, mask: np.ndarray, config: HierarchicalConfig) -> Pooled:
    """Add the benchmark means, the traits and the pooling strengths to the model in context.

    Every likelihood of the judges' patterns is built on them: the tier's own
    (:func:`build_pymc_model`) and the crossed item-effects prototype of
    ``benchmarks/bench_item_effects.py``.

    Parameters
    ----------
    lay : Layout
    mask : ndarray of bool, shape (judge, cell, trait)
        :func:`trait_mask`.
    config : HierarchicalConfig

    Returns
    -------
    Pooled
    """
    import pymc as pm
    import pytensor.tensor as pt

    eta = pm.Normal("eta", 0.0, config.eta_sigma, shape=lay.n_splits)
    scale = config.prior_scale
    trait = pm.Deterministic("trait", _traits(lay, mask, config.trait_shape, config.trait_scale))
    log_mu, log_1mmu = -pt.softplus(-eta), -pt.softplus(eta)
    # Pooling strengths are themselves pooled across the splits of a level: a
    # split seen on a handful of items (a judge's rare invalid outputs) cannot
    # show how much judges differ, and borrows that from the level. Such splits
    # are many and weakly informed, so the non-centred form is used here.
    level_mean = pm.Normal(
        "log_kappa_level",
        config.log_kappa_mu,
        scale * config.log_kappa_sigma,
        shape=len(LEVELS),
    )
    level_sd = pm.HalfNormal("log_kappa_sd", scale * config.log_kappa_spread)
    z = pm.Normal("log_kappa_z", 0.0, 1.0, shape=lay.n_splits)
    raw = level_mean[lay.split_level] + level_sd * z
    # Softly bounded to |log kappa| < 12: beyond exp(12) pooling is complete anyway,
    # and an unbounded tail lets a chain wander where the beta functions lose all
    # precision (seen as a chain stuck at a step size of 1e-130).
    log_kappa = pm.Deterministic("log_kappa", 12.0 * pt.tanh(raw / 12.0))
    log_conc = log_kappa + lay.split_mass(log_mu, log_1mmu, apply=apply_pt)
    judge_offset = _judge_offsets(lay, config.trait_shape, config.judge_kappa_scale)
    return Pooled(log_mu, log_1mmu, trait, log_conc, judge_offset)


def build_pymc_model(data: FitData, config: HierarchicalConfig) -> BuiltModel:
    """Build the PyMC model of every benchmark (one model, compiled once).

    Parameters
    ----------
    data : FitData
        The tally of the dataset.
    config : HierarchicalConfig
        Priors.

    Returns
    -------
    BuiltModel
        ``model`` has free variables ``eta`` (the logit of the benchmark mean of every
        binary split of the pattern tree), ``trait_u`` (judge traits, their spread
        integrated out; deterministic ``trait``, centred) and the pooling
        concentrations (deterministic ``log_kappa``); the likelihood is one potential
        summing a beta-binomial term per judge and split with items, i.e. the
        Dirichlet-multinomial of the tree with ``theta`` integrated out, and one the
        traits' prior. Everything taken from the counts (:func:`count_data`) is
        ``pm.Data`` with ``config.reuse_compiled``, constants otherwise.
    """
    import pymc as pm
    import pytensor.tensor as pt

    from judgestats.models.kernels import tree_log_likelihood  # numba: on first use

    lay = build_layout(data, config.rare_per_judge)
    values = count_data(lay)
    mask = trait_mask(lay)  # which traits are parameters: part of the structure
    with pm.Model() as model:
        if config.reuse_compiled:  # counts swapped into the compiled model
            d = {name: pm.Data(name, value) for name, value in values.items()}
        else:  # counts as constants, folded into the graph: compiles about twice as fast
            d = {name: pt.as_tensor_variable(value) for name, value in values.items()}
        pooled = pooled_parameters(lay, mask, config)
        log_p = lay.leaf_log_prob(pooled.log_mu, pooled.log_1mmu, apply=apply_pt)
        pm.Potential(
            "dirichlet_multinomial",
            tree_log_likelihood(lay, log_p, pooled.trait, pooled.log_conc, pooled.judge_offset, d),
        )
    traits = hashlib.sha256(np.packbits(mask).tobytes()).hexdigest()
    structure = f"{lay.structure()}:{traits}:{_prior_key(config)}"
    if not config.reuse_compiled:  # the counts are part of the graph
        digest = hashlib.sha256(
            b"".join(np.ascontiguousarray(v).tobytes() for v in values.values())
        )
        structure = f"{structure}:{digest.hexdigest()}"
        values = {}
    return BuiltModel(model, lay, values, structure)


class HierarchicalModel(JudgeModel):
    """Hierarchical-tier posterior of every metric (PyMC, sampled with nutpie).

    A fit of a model compiled before in the process reuses the compiled sampler
    (:mod:`judgestats.models.sampling`); with ``HierarchicalConfig.reuse_compiled``,
    so does a fit of the same structure with new counts.

    Parameters
    ----------
    config : HierarchicalConfig, optional
    derived : DerivedConfig, optional

    Examples
    --------
    >>> from judgestats.models import HierarchicalModel, HierarchicalConfig
    >>> model = HierarchicalModel(HierarchicalConfig(draws=500))
    >>> tree = model.fit(ds, random_seed=1)  # doctest: +SKIP
    """

    name = "hierarchical"
    default_config = HierarchicalConfig()

    def _draw_features(
        self, data: FitData, rng: np.random.Generator, random_seed: int | None
    ) -> tuple[xr.DataArray, dict[str, xr.Dataset]]:
        fit = _Sampled.of(self.config, data, rng, random_seed)
        features = xr.DataArray(
            fit.expected_features(rng),
            dims=("chain", "draw", "judge", "benchmark", "feature"),
            coords=data.coords(*fit.sizes, features=True),
        )
        return features, fit.groups(rng)

    def _draw_metrics(
        self, data: FitData, rng: np.random.Generator, random_seed: int | None
    ) -> tuple[xr.Dataset, dict[str, xr.Dataset]]:
        # As _draw_features, each block of draws turned into metrics as it is drawn:
        # the features of every draw are never held (366 MB for LLMBar). The same
        # draws and formulas: the same numbers, bit for bit.
        fit = _Sampled.of(self.config, data, rng, random_seed)
        sink = MetricDraws((*fit.sizes, len(data.judges), len(data.benchmarks)))
        n_items = data.constant_data()["n_items"].transpose("judge", "benchmark").values

        def derive(ch: int, sl: slice, features: np.ndarray) -> None:
            sink.add((ch, sl), features, n_items)  # NaN (absent judges) stays NaN

        fit.expected_features(rng, derive)
        return sink.dataset(data.coords(*fit.sizes), data.support()), fit.groups(rng)


@dataclass(frozen=True)
class _Sampled:
    """A sampled model: what the features, the predictive checks and the groups need."""

    config: HierarchicalConfig
    data: FitData
    built: BuiltModel
    idata: xr.DataTree
    posterior: xr.Dataset
    checks: PredictiveChecks

    @classmethod
    def of(
        cls,
        config: HierarchicalConfig,
        data: FitData,
        rng: np.random.Generator,
        random_seed: int | None,
    ) -> _Sampled:
        """Build and sample the model (seeded by ``random_seed``, else by ``rng``)."""
        built = build_pymc_model(data, config)
        seed = int(rng.integers(2**31 - 1)) if random_seed is None else int(random_seed)
        idata = sample(built.model, built.structure, built.data, SamplerSettings.of(config), seed)
        post = idata["posterior"].to_dataset()
        checks = PredictiveChecks(built.layout, data, post.sizes["chain"], post.sizes["draw"])
        return cls(config, data, built, idata, post, checks)

    @property
    def sizes(self) -> tuple[int, int]:
        """Chains and draws per chain."""
        return self.posterior.sizes["chain"], self.posterior.sizes["draw"]

    def expected_features(
        self,
        rng: np.random.Generator,
        consume: Callable[[int, slice, np.ndarray], None] | None = None,
    ) -> np.ndarray | None:
        """:func:`~judgestats.models.conditionals.expected_features` of the draws."""
        cfg = self.config
        return expected_features(
            self.built.layout,
            self.data,
            self.posterior,
            cfg.prior,
            rng,
            cfg.pair_items,
            self.checks,
            consume,
        )

    def groups(self, rng: np.random.Generator) -> dict[str, xr.Dataset]:
        """Return the tree's other groups; call it after the features (same ``rng``)."""
        cfg = self.config
        return {
            "hyper": hyper_dataset(
                self.built.layout, self.data, self.posterior, cfg.trait_shape, cfg.trait_scale, rng
            ),
            "sample_stats": self.idata["sample_stats"].to_dataset(),
            "predictive": self.checks.dataset(),
        }
