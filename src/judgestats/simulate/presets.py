"""Preset cohorts: the 21-judge cohort of seed 002, a small cohort, the demo cohort.

:func:`seed002_cohort` reproduces the cohort of "Reliability without Validity"
(seed ``002``): 21 judges on MT-Bench (2,391 items, A/B/tie preferences with the
skewed marginals of :data:`MT_BENCH_LABELS`),
JudgeBench (350 items, binary correctness) and RewardBench (2,981 chosen/rejected
pairs, one randomised presentation order per item), three runs each, both orders
on MT-Bench and JudgeBench: 533,169 judgments (the paper reports about 541,000).

The judge parameters were found once, offline, with
:func:`judgestats.simulate.calibrate.calibrate` against the targets in
:data:`SEED002_TARGETS` (exact true values; tie rates and invalid rates fixed by
hand), and are stored here rounded to six decimals; nothing is searched at run
time. The targets lie inside the published ranges of :data:`SEED002_RANGES`:

* MT-Bench kappa 0.376–0.511 and deflation 0.338–0.413 (cohort mean 0.385), as
  seed 002's script computes it (``deflation_raw``: raw agreement minus kappa; the
  paper's EM - kappa differs by less than 0.01 on this preset).
  Deflation is the same under both readings of the seed: raw agreement (ties
  included) minus kappa, as ``derive`` computes it, and tie-excluded exact match
  minus kappa (within 0.007; equal for 16 of the 21 judges);
  JudgeBench kappa 0.271–0.875; RewardBench kappa spread 0.281;
* position bias 0.002 (Gemini 2.5 Pro) to 0.192 (Qwen 3 8B), on MT-Bench and
  JudgeBench (with one randomised order, RewardBench has no paired orders, so
  position bias is not measured there);
* mean test-retest 0.943 on MT-Bench and 0.911 on JudgeBench, as the share of units
  identical in every run (``test_retest_share``, the variant of seed 002's script);
* exactly two paradox judges (test-retest > 0.95 with position bias > 0.10):
  Qwen 3 8B (0.992, 0.192) and Gemini 2.5 Flash (0.988, 0.125);
* Llama 3.3 70B ranks 5th by kappa on MT-Bench and 19th on JudgeBench, the
  largest rank shift (14); only Gemini 3.1 Pro and Claude Opus 4.6 are in the
  top three on all three benchmarks; Qwen 3 8B has JudgeBench kappa 0.289;
* verbosity below 0.011 for every judge (GPT-4o-mini largest at 0.010; 17 of 21
  below 0.005).

Judges the seed does not name are filled in plausibly (GPT-4o, GPT-4.1, Claude
Sonnet 4.5, Claude Haiku 4.5, Llama 4 Maverick, Qwen 3 235B, Mistral Large 2,
Mistral Small 3.1). The paper reports Qwen 3 8B as the third-lowest on
JudgeBench and Llama 3.3 70B at rank 19 or 20; both cannot hold, and here
Llama 3.3 70B is 19th (shift 14, the headline) and Qwen 3 8B 20th.
"""

from __future__ import annotations

from judgestats.simulate.cases import chosen_rejected_benchmark, correctness_benchmark
from judgestats.simulate.config import BenchmarkSpec, CohortConfig, JudgeParams

__all__ = [
    "DEMO_SEED",
    "MT_BENCH_LABELS",
    "SEED002_JUDGES",
    "SEED002_RANGES",
    "SEED002_TARGETS",
    "demo_cohort",
    "exchangeable_cohort",
    "seed002_benchmarks",
    "seed002_cohort",
    "small_cohort",
]

_Row = tuple[float, float, float, float, float, float, float, float]

#: P(label = A, B, tie) on MT-Bench: response A usually the better one, few ties.
#: These are the marginals of the seed's MT-Bench table (840/120/40 of 1000); the
#: paper's Table 2 implies chance agreement near 0.7 (Gemini 3.1 Pro: EM 0.849,
#: kappa 0.511), which uniform A/B/tie labels (chance agreement 1/3) cannot give.
MT_BENCH_LABELS: tuple[float, float, float] = (0.84, 0.12, 0.04)

#: Seed of the bundled demo logs (``data/demo``).
DEMO_SEED = 20260402

#: Published ranges of seed 002 that the preset's true values fall in.
SEED002_RANGES: dict[str, tuple[float, float]] = {
    "kappa_mt": (0.376, 0.511),
    "deflation_mt": (0.338, 0.413),
    "kappa_jb": (0.271, 0.875),
    "position_bias": (0.002, 0.192),
    "mean_test_retest_mt": (0.933, 0.953),
    "mean_test_retest_jb": (0.901, 0.921),
    "verbosity": (0.0, 0.011),
}


def _targets(
    kappa_mt: float,
    deflation_mt: float,
    kappa_jb: float,
    kappa_rb: float,
    position_bias: float,
    test_retest_mt: float,
    test_retest_jb: float,
    test_retest_rb: float,
    verbosity: float,
) -> dict[str, float]:
    return {
        "kappa_mt": kappa_mt,
        "deflation_mt": deflation_mt,
        "kappa_jb": kappa_jb,
        "kappa_rb": kappa_rb,
        "position_bias": position_bias,
        "test_retest_mt": test_retest_mt,
        "test_retest_jb": test_retest_jb,
        "test_retest_rb": test_retest_rb,
        "verbosity": verbosity,
    }


#: The exact true values the preset's parameters were calibrated to, per judge.
#: Position bias and verbosity are the same on every benchmark where measured.
SEED002_TARGETS: dict[str, dict[str, float]] = {
    "GPT-4o": _targets(0.474, 0.382, 0.47, 0.755, 0.061, 0.944, 0.912, 0.93, 0.0041),
    "GPT-4o-mini": _targets(0.391, 0.41, 0.33, 0.615, 0.104, 0.909, 0.872, 0.898, 0.01),
    "Claude Sonnet 4.5": _targets(0.492, 0.37, 0.58, 0.84, 0.045, 0.968, 0.935, 0.955, 0.0021),
    "Gemini 2.5 Pro": _targets(0.497, 0.375, 0.72, 0.825, 0.0022, 0.951, 0.92, 0.94, 0.0012),
    "Gemini 2.5 Flash": _targets(0.436, 0.387, 0.55, 0.68, 0.125, 0.988, 0.979, 0.984, 0.0034),
    "Llama 3.3 70B": _targets(0.487, 0.35, 0.297, 0.695, 0.112, 0.921, 0.885, 0.905, 0.0046),
    "Qwen 3 8B": _targets(0.384, 0.393, 0.289, 0.59, 0.1918, 0.992, 0.985, 0.989, 0.0063),
    "Mistral Large 2": _targets(0.429, 0.404, 0.36, 0.665, 0.083, 0.925, 0.889, 0.911, 0.0038),
    "Claude Haiku 4.5": _targets(0.399, 0.4128, 0.4, 0.635, 0.058, 0.957, 0.921, 0.942, 0.0027),
    "GPT-4.1": _targets(0.456, 0.399, 0.51, 0.8, 0.048, 0.953, 0.918, 0.938, 0.0044),
    "Mistral Small 3.1": _targets(0.3762, 0.405, 0.2712, 0.579, 0.143, 0.902, 0.868, 0.889, 0.0071),
    "Llama 4 Maverick": _targets(0.407, 0.393, 0.43, 0.65, 0.097, 0.918, 0.882, 0.903, 0.0082),
    "Qwen 3 235B": _targets(0.443, 0.403, 0.66, 0.74, 0.074, 0.936, 0.903, 0.922, 0.0018),
    "GPT-5.4": _targets(0.481, 0.36, 0.84, 0.835, 0.015, 0.958, 0.927, 0.945, 0.0009),
    "GPT-5.4-mini": _targets(0.422, 0.398, 0.69, 0.725, 0.034, 0.934, 0.9, 0.92, 0.0016),
    "Gemini 3.1 Pro": _targets(0.5108, 0.3382, 0.8748, 0.85, 0.038, 0.962, 0.931, 0.949, 0.0007),
    "Claude Opus 4.6": _targets(0.503, 0.352, 0.858, 0.86, 0.021, 0.975, 0.945, 0.963, 0.0005),
    "DeepSeek V3.2": _targets(0.462, 0.388, 0.8, 0.815, 0.029, 0.947, 0.915, 0.934, 0.0013),
    "Kimi K2.5": _targets(0.468, 0.382, 0.77, 0.785, 0.052, 0.931, 0.898, 0.917, 0.0024),
    "GLM-5": _targets(0.449, 0.385, 0.74, 0.77, 0.067, 0.928, 0.894, 0.914, 0.0031),
    "Minimax M2.7": _targets(0.415, 0.405, 0.62, 0.71, 0.091, 0.912, 0.877, 0.899, 0.0048),
}

#: Judges of the seed-002 cohort, in the order of the ``judge`` dimension.
SEED002_JUDGES: tuple[str, ...] = tuple(SEED002_TARGETS)

# Per judge: parameters on MT-Bench, JudgeBench and RewardBench, in the field order
# of JudgeParams (agreement, agreement_b, tie_rate, tie_recall, position, stability,
# length_preference, invalid_rate). Found by calibrate() against SEED002_TARGETS.
_SEED002_PARAMS: dict[str, tuple[_Row, _Row, _Row]] = {
    "GPT-4o": (
        (0.993003, 0.390982, 0.0125, 0.974158, 0.116525, 0.903539, 0.003403, 0.002),
        (0.774947, 0.774947, 0.01, 0.974158, 0.120933, 0.926345, 0.005362, 0.002),
        (0.94167, 0.94167, 0.01, 0.974158, 0.120933, 0.891235, 0.005362, 0.002),
    ),
    "GPT-4o-mini": (
        (0.950276, 0.501337, 0.01, 1.0, 0.199838, 0.896745, 0.011271, 0.004),
        (0.715796, 0.715796, 0.008, 1.0, 0.206699, 0.904, 0.01451, 0.004),
        (0.902165, 0.902165, 0.008, 1.0, 0.206699, 0.889066, 0.01451, 0.004),
    ),
    "Claude Sonnet 4.5": (
        (0.986021, 0.405304, 0.0175, 0.945101, 0.085513, 0.944567, 0.001642, 0.001),
        (0.828422, 0.828422, 0.014, 0.945101, 0.088855, 0.93607, 0.002644, 0.001),
        (0.975645, 0.975645, 0.014, 0.945101, 0.088855, 0.897968, 0.002644, 0.001),
    ),
    "Gemini 2.5 Pro": (
        (0.96577, 0.351145, 0.015, 0.878096, 0.004183, 0.89699, 0.000772, 0.002),
        (0.872312, 0.872312, 0.012, 0.878096, 0.004348, 0.892393, 0.001383, 0.002),
        (0.926607, 0.926607, 0.012, 0.878096, 0.004348, 0.87968, 0.001383, 0.002),
    ),
    "Gemini 2.5 Flash": (
        (0.996191, 0.54, 0.0075, 1.0, 0.24108, 0.987337, 0.003947, 0.001),
        (0.872662, 0.872662, 0.006, 1.0, 0.248879, 0.981023, 0.005215, 0.001),
        (0.960745, 0.960745, 0.006, 1.0, 0.248879, 0.98166, 0.005215, 0.001),
    ),
    "Llama 3.3 70B": (
        (0.991558, 0.632901, 0.005, 1.0, 0.216175, 0.904483, 0.005186, 0.006),
        (0.696213, 0.696213, 0.004, 1.0, 0.223309, 0.920649, 0.006828, 0.006),
        (0.959152, 0.959152, 0.004, 1.0, 0.223309, 0.878376, 0.006828, 0.006),
    ),
    "Qwen 3 8B": (
        (0.989681, 0.751908, 0.0013, 1.0, 0.373791, 0.99384, 0.010072, 0.001),
        (0.737991, 0.737991, 0.001, 1.0, 0.383366, 0.989525, 0.011794, 0.001),
        (0.985863, 0.985863, 0.001, 1.0, 0.383366, 0.989331, 0.011794, 0.001),
    ),
    "Mistral Large 2": (
        (0.983737, 0.407241, 0.0125, 0.996809, 0.158783, 0.89221, 0.00361, 0.003),
        (0.721927, 0.721927, 0.01, 0.996809, 0.164621, 0.916228, 0.005231, 0.003),
        (0.909948, 0.909948, 0.01, 0.996809, 0.164621, 0.893444, 0.005231, 0.003),
    ),
    "Claude Haiku 4.5": (
        (0.925273, 0.454101, 0.015, 0.917119, 0.110744, 0.952324, 0.002607, 0.002),
        (0.732827, 0.732827, 0.012, 0.917119, 0.114772, 0.94006, 0.003503, 0.002),
        (0.869614, 0.869614, 0.012, 0.917119, 0.114772, 0.939233, 0.003503, 0.002),
    ),
    "GPT-4.1": (
        (0.98577, 0.342605, 0.0125, 0.946401, 0.091667, 0.918027, 0.003413, 0.002),
        (0.78998, 0.78998, 0.01, 0.946401, 0.095136, 0.928666, 0.00559, 0.002),
        (0.954871, 0.954871, 0.01, 0.946401, 0.095136, 0.88669, 0.00559, 0.002),
    ),
    "Mistral Small 3.1": (
        (0.957884, 0.606578, 0.01, 1.0, 0.275823, 0.907537, 0.009373, 0.008),
        (0.697432, 0.697432, 0.008, 1.0, 0.284381, 0.909248, 0.011424, 0.008),
        (0.921508, 0.921508, 0.008, 1.0, 0.284381, 0.891397, 0.011424, 0.008),
    ),
    "Llama 4 Maverick": (
        (0.933965, 0.566492, 0.0125, 0.996841, 0.185883, 0.916571, 0.009272, 0.005),
        (0.777011, 0.777011, 0.01, 0.996841, 0.192452, 0.906941, 0.011678, 0.005),
        (0.918738, 0.918738, 0.01, 0.996841, 0.192452, 0.891247, 0.011678, 0.005),
    ),
    "Qwen 3 235B": (
        (0.995184, 0.361017, 0.01, 0.990256, 0.141759, 0.896622, 0.001568, 0.003),
        (0.89595, 0.89595, 0.008, 0.990256, 0.146992, 0.884569, 0.002428, 0.003),
        (0.943944, 0.943944, 0.008, 0.990256, 0.146992, 0.885357, 0.002428, 0.003),
    ),
    "GPT-5.4": (
        (0.912113, 0.536379, 0.015, 0.867273, 0.02857, 0.944818, 0.000775, 0.001),
        (0.944537, 0.944537, 0.012, 0.867273, 0.029651, 0.827052, 0.001065, 0.001),
        (0.941891, 0.941891, 0.012, 0.867273, 0.029651, 0.878656, 0.001065, 0.001),
    ),
    "GPT-5.4-mini": (
        (0.908631, 0.481178, 0.0125, 0.880056, 0.065003, 0.920104, 0.001465, 0.002),
        (0.879381, 0.879381, 0.01, 0.880056, 0.067367, 0.871428, 0.001972, 0.002),
        (0.898625, 0.898625, 0.01, 0.880056, 0.067367, 0.88899, 0.001972, 0.002),
    ),
    "Gemini 3.1 Pro": (
        (0.939413, 0.585389, 0.02, 0.916426, 0.072063, 0.949056, 0.00063, 0.001),
        (0.988981, 0.988981, 0.016, 0.916426, 0.074876, 0.786407, 0.000867, 0.001),
        (0.975119, 0.975119, 0.016, 0.916426, 0.074876, 0.875901, 0.000867, 0.001),
    ),
    "Claude Opus 4.6": (
        (0.940911, 0.504027, 0.0175, 0.891775, 0.039885, 0.965121, 0.000409, 0.001),
        (0.961172, 0.961172, 0.014, 0.891775, 0.041437, 0.858783, 0.000598, 0.001),
        (0.962247, 0.962247, 0.014, 0.891775, 0.041437, 0.908945, 0.000598, 0.001),
    ),
    "DeepSeek V3.2": (
        (0.95344, 0.403229, 0.0125, 0.903456, 0.055365, 0.922146, 0.001029, 0.003),
        (0.935974, 0.935974, 0.01, 0.903456, 0.057454, 0.843563, 0.001585, 0.003),
        (0.944149, 0.944149, 0.01, 0.903456, 0.057454, 0.87602, 0.001585, 0.003),
    ),
    "Kimi K2.5": (
        (0.972712, 0.419247, 0.0125, 0.948505, 0.099332, 0.892701, 0.002026, 0.003),
        (0.941422, 0.941422, 0.01, 0.948505, 0.10307, 0.826732, 0.003076, 0.003),
        (0.950021, 0.950021, 0.01, 0.948505, 0.10307, 0.855548, 0.003076, 0.003),
    ),
    "GLM-5": (
        (0.960125, 0.473496, 0.0125, 0.963208, 0.128114, 0.90804, 0.002927, 0.004),
        (0.939984, 0.939984, 0.01, 0.963208, 0.132843, 0.840602, 0.00411, 0.004),
        (0.957821, 0.957821, 0.01, 0.963208, 0.132843, 0.860864, 0.00411, 0.004),
    ),
    "Minimax M2.7": (
        (0.968358, 0.451881, 0.01, 1.0, 0.174586, 0.891321, 0.004924, 0.005),
        (0.890427, 0.890427, 0.008, 1.0, 0.180815, 0.865302, 0.006744, 0.005),
        (0.947102, 0.947102, 0.008, 1.0, 0.180815, 0.863709, 0.006744, 0.005),
    ),
}

_MT_CATEGORIES = (
    "writing",
    "roleplay",
    "reasoning",
    "math",
    "coding",
    "extraction",
    "stem",
    "humanities",
)
_MT_MODELS = ("gpt-4", "gpt-3.5-turbo", "claude-v1", "vicuna-13b", "alpaca-13b", "llama-13b")


def seed002_benchmarks(
    mt_bench: int = 2391, judgebench: int = 350, rewardbench: int = 2981, runs: int = 3
) -> tuple[BenchmarkSpec, BenchmarkSpec, BenchmarkSpec]:
    """Return the three benchmarks of seed 002.

    Parameters
    ----------
    mt_bench, judgebench, rewardbench : int
        Item counts (default: the paper's).
    runs : int, default 3
        Replicate runs.

    Returns
    -------
    tuple of BenchmarkSpec
        MT-Bench (preference, labels :data:`MT_BENCH_LABELS`, both orders), JudgeBench
        (correctness, A/B gold, both orders, categories knowledge/reasoning/math/
        coding), RewardBench (chosen/rejected, one random order per item).

    Examples
    --------
    >>> [b.n_items for b in seed002_benchmarks()]
    [2391, 350, 2981]
    """
    return (
        BenchmarkSpec(
            "MT-Bench",
            mt_bench,
            "preference",
            label_probs=MT_BENCH_LABELS,
            runs=runs,
            categories=_MT_CATEGORIES,
            models=_MT_MODELS,
        ),
        correctness_benchmark("JudgeBench", judgebench, runs=runs),
        chosen_rejected_benchmark("RewardBench", rewardbench, runs=runs),
    )


def seed002_cohort() -> CohortConfig:
    """Return the 21-judge, 3-benchmark cohort of seed 002 (533,169 judgments).

    Returns
    -------
    CohortConfig
        See the module docs for the true values it reproduces.

    Examples
    --------
    >>> cfg = seed002_cohort()
    >>> len(cfg.judges), [b.name for b in cfg.benchmarks], cfg.n_judgments
    (21, ['MT-Bench', 'JudgeBench', 'RewardBench'], 533169)
    """
    benchmarks = seed002_benchmarks()
    judges = {
        judge: {b.name: JudgeParams(*row) for b, row in zip(benchmarks, rows, strict=True)}
        for judge, rows in _SEED002_PARAMS.items()
    }
    return CohortConfig.from_judges(judges, benchmarks)


def _seed002_part(judges: list[str], sizes: dict[str, int]) -> CohortConfig:
    """Return some judges of the seed-002 cohort on resized benchmarks."""
    cfg = seed002_cohort().subset(judges=judges, benchmarks=list(sizes))
    for name, n in sizes.items():
        cfg = cfg.with_benchmark(name, n_items=n)
    return cfg


def small_cohort() -> CohortConfig:
    """Return a small cohort for fast tests: 5 judges, 2 contrasting benchmarks.

    Five judges of :func:`seed002_cohort` (Gemini 3.1 Pro, Claude Opus 4.6, Llama
    3.3 70B, and the two kinds of trouble: Qwen 3 8B, a paradox judge, and
    GPT-4o-mini, biased but unstable) on MT-Bench (300 items, preference) and
    JudgeBench (200 items, correctness), 3 runs, both orders: 15,000 judgments.
    Their parameters, hence the truth, are those of the full cohort.

    Returns
    -------
    CohortConfig
        Simulate it with any seed; ``scale=`` shrinks or grows it.

    Examples
    --------
    >>> small_cohort().n_judgments
    15000
    """
    judges = ["Gemini 3.1 Pro", "Claude Opus 4.6", "Llama 3.3 70B", "Qwen 3 8B", "GPT-4o-mini"]
    return _seed002_part(judges, {"MT-Bench": 300, "JudgeBench": 200})


def demo_cohort() -> CohortConfig:
    """Return the cohort of the bundled demo logs (``data/demo``).

    Six judges of :func:`seed002_cohort` (including both paradox judges) on
    MT-Bench (200 items), JudgeBench (120 items) and RewardBench (200 items, one
    random order), 3 runs: 15,120 judgments. Simulate it with
    ``random_seed=DEMO_SEED``.

    Returns
    -------
    CohortConfig
        Written to ``data/demo`` by ``scripts/make_demo_data.py``.

    Examples
    --------
    >>> demo_cohort().n_judgments
    15120
    """
    judges = [
        "Gemini 3.1 Pro",
        "Claude Opus 4.6",
        "GPT-4o",
        "Llama 3.3 70B",
        "Qwen 3 8B",
        "Gemini 2.5 Flash",
    ]
    return _seed002_part(judges, {"MT-Bench": 200, "JudgeBench": 120, "RewardBench": 200})


def exchangeable_cohort(
    n_judges: int,
    benchmarks: tuple[BenchmarkSpec, ...] | None = None,
    random_seed: int | None = None,
) -> CohortConfig:
    """Return a cohort whose judges are drawn at random from one population.

    Partial pooling assumes the judges of a benchmark are exchangeable draws from a
    population; this cohort meets that assumption, which makes it the setting in
    which the hierarchical tier's intervals are expected to be calibrated (the
    hand-set :func:`seed002_cohort`, with its deliberately extreme judges, is a
    harder test of robustness).

    Each judge's parameters are drawn independently per benchmark: agreement
    ~ Uniform(0.6, 0.95), tie rate ~ Uniform(0.02, 0.15), position ~ Normal(0.05,
    0.06) clipped to [-1, 1], stability ~ Uniform(0.80, 0.99), invalid rate ~
    Uniform(0, 0.01).

    Parameters
    ----------
    n_judges : int
        Number of judges (named ``judge-01``, ...).
    benchmarks : tuple of BenchmarkSpec, optional
        Default: a preference benchmark of 400 items and a correctness benchmark
        of 300 items, both orders, three runs.
    random_seed : int, optional
        Seed of the parameter draws.

    Returns
    -------
    CohortConfig

    Examples
    --------
    >>> cfg = exchangeable_cohort(4, random_seed=0)
    >>> len(cfg.judges), [b.name for b in cfg.benchmarks]
    (4, ['preference', 'correctness'])
    """
    import numpy as np

    from judgestats.simulate.cases import preference_benchmark

    if n_judges < 1:
        raise ValueError(f"n_judges={n_judges}; need at least one judge")
    if benchmarks is None:
        benchmarks = (
            preference_benchmark("preference", 400),
            correctness_benchmark("correctness", 300),
        )
    rng = np.random.default_rng(random_seed)
    judges = {}
    for j in range(n_judges):
        judges[f"judge-{j + 1:02d}"] = {
            b.name: JudgeParams(
                agreement=float(rng.uniform(0.6, 0.95)),
                tie_rate=float(rng.uniform(0.02, 0.15)),
                position=float(np.clip(rng.normal(0.05, 0.06), -1, 1)),
                stability=float(rng.uniform(0.80, 0.99)),
                invalid_rate=float(rng.uniform(0.0, 0.01)),
            )
            for b in benchmarks
        }
    return CohortConfig.from_judges(judges, tuple(benchmarks))
