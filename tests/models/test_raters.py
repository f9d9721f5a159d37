"""The posterior of the human ceiling and of each judge's agreement with each vote."""

from pathlib import Path

import numpy as np
import pytest

from judgestats.models.raters import rater_agreement
from judgestats.schema import Verdict
from judgestats.testing import make_judgments

PANDALM = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "pandalm"
A, B, TIE, INVALID, MISSING = (
    int(v) for v in (Verdict.A, Verdict.B, Verdict.TIE, Verdict.INVALID, Verdict.MISSING)
)


def _simulate(rng, n_items, q, r, n_raters=3):
    """Items with a true label A or B; raters vote it with probability ``q``, else one
    of the other two (B/A or tie) at random; one judge, one verdict per item, right
    with probability ``r``, else one of the other two at random."""
    truth = rng.choice([A, B], n_items)
    other = np.where(truth == A, B, A)

    def vote(p, shape):
        wrong = rng.random(shape) >= p
        alt = np.where(rng.random(shape) < 0.5, other[:, None], TIE)
        return np.where(wrong, alt, truth[:, None])

    human = vote(q, (n_items, n_raters))
    verdict = vote(r, (n_items, 1)).reshape(1, n_items, 1, 1)
    return make_judgments(verdict, human, orders=("AB",))


def _truth(q, r):
    """Closed forms: two votes agree (S1); a judgment agrees with a vote (S1)."""
    pairwise = q * q + 2 * ((1 - q) / 2) ** 2
    votes = r * q + 2 * ((1 - r) / 2) * ((1 - q) / 2)
    return pairwise, votes


def test_intervals_cover_the_closed_form_truth_over_replicates():
    """Over 300 simulated benchmarks of 300 items (3 raters, one judge), the 95%
    intervals of the raters' pairwise agreement, the judge's vote agreement and their
    gap hold the closed-form truth 0.93-0.97 of the time (nominal 0.95; the Monte
    Carlo standard error of 300 replicates is 0.013). With 80 items the gap's covered
    0.907 (module docs: a small-sample property of the bootstrap of a mean of
    few-valued item scores)."""
    rng = np.random.default_rng(7)
    q, r = 0.8, 0.7
    pairwise, votes = _truth(q, r)
    true = {
        "human_pairwise_s1": pairwise,
        "vote_agreement_s1": votes,
        "ceiling_gap_s1": votes - pairwise,
    }
    hits = {k: [] for k in true}
    for seed in range(300):
        post = rater_agreement(_simulate(rng, 300, q, r), draws=1000, random_seed=seed)
        for name, value in true.items():
            draws = post[name].values.ravel()
            lo, hi = np.quantile(draws, [0.025, 0.975])
            hits[name].append(lo <= value <= hi)
    for name, h in hits.items():
        assert 0.93 <= np.mean(h) <= 0.97, (name, np.mean(h))


def test_no_interval_collapses_when_every_rater_agrees():
    """Every rater and the judge give every item the same label: the prior's novel
    item keeps the intervals open below 1 (the plain item bootstrap would give
    exactly 1 in every resample)."""
    human = np.array([[A, A, A], [B, B, B]] * 10)
    verdict = human[:, :1].reshape(1, 20, 1, 1)
    post = rater_agreement(make_judgments(verdict, human, orders=("AB",)), random_seed=0)
    for name in ("human_pairwise_s1", "human_majority_s2", "vote_agreement_s1"):
        lo, hi = np.quantile(post[name].values, [0.025, 0.975])
        assert lo < hi < 1.0 + 1e-12 and lo < 0.99, (name, lo, hi)


def test_undefined_where_the_data_leave_it_so():
    """None without an item rated twice; NaN for a judge that judged none of a
    benchmark's items, and for the non-tie ceiling where every vote is a tie."""
    one = make_judgments(np.zeros((1, 4, 1, 1)), np.array([A, B, A, B]), orders=("AB",))
    assert rater_agreement(one) is None
    verdict = np.full((2, 4, 1, 1), A)
    verdict[1, :2] = MISSING  # judge 1 sees only benchmark "y"
    human = np.array([[TIE, TIE], [TIE, TIE], [A, A], [A, B]])
    ds = make_judgments(verdict, human, orders=("AB",), benchmark=["x", "x", "y", "y"])
    post = rater_agreement(ds, random_seed=1)
    assert np.isnan(post["vote_agreement_s1"].sel(judge="j1", benchmark="x")).all()
    assert np.isfinite(post["vote_agreement_s1"].sel(judge="j1", benchmark="y")).all()
    assert np.isnan(post["human_pairwise_s2"].sel(benchmark="x")).all()
    assert np.isfinite(post["human_pairwise_s2"].sel(benchmark="y")).all()


@pytest.mark.skipif(not PANDALM.exists(), reason="needs ../shared/data/pandalm")
def test_pandalm_matches_the_closed_form_metrics():
    """On PandaLM's 999 items with three annotators, the posterior medians equal the
    closed-form metrics (:func:`judgestats.metrics.compute_metrics`, which sums the
    items' features directly) to within a tenth of a posterior sd (the prior's one
    pseudo-item moves them by about 1/1000), and the 95% intervals are as wide as
    the item bootstrap's to within 15%."""
    from judgestats.io import read_logs
    from judgestats.metrics import compute_metrics

    ds = read_logs(PANDALM).dataset
    post = rater_agreement(ds, random_seed=0)
    names = [
        "human_pairwise_s1",
        "human_pairwise_s2",
        "human_majority_s1",
        "human_majority_s2",
        "vote_agreement_s1",
        "vote_agreement_s2",
    ]
    closed = compute_metrics(ds, names, random_seed=0).to_frame()
    assert len(closed) >= 6
    for row in closed.itertuples():
        if not np.isfinite(row.value):
            continue
        da = post[row.metric].sel(benchmark=row.benchmark)
        if "judge" in da.dims:
            da = da.sel(judge=row.judge)
        draws = da.values.ravel()
        assert abs(np.median(draws) - row.value) < 0.1 * draws.std(), row
        lo, hi = np.quantile(draws, [0.025, 0.975])
        assert (hi - lo) == pytest.approx(row.hi - row.lo, rel=0.15), row


def test_blocks_of_draws_leave_the_posterior_as_it_is(monkeypatch):
    """Drawn 5 at a time (the block size forced down) or all at once, the draws are
    of one posterior: every mean within 4 Monte Carlo standard errors of the other
    (independent draws), and every draw filled."""
    from judgestats.models import raters

    ds = _simulate(np.random.default_rng(3), 200, 0.8, 0.7)
    whole = rater_agreement(ds, draws=4000, random_seed=1)
    monkeypatch.setattr(raters, "BLOCK_VALUES", 1000)  # 5 draws of 200 items
    blocked = rater_agreement(ds, draws=4000, random_seed=2)
    for name in ("human_pairwise_s1", "vote_agreement_s2", "ceiling_gap_s1"):
        a, b = whole[name].values.ravel(), blocked[name].values.ravel()
        assert np.isfinite(b).all()
        se = np.sqrt((a.var() + b.var()) / len(a))
        assert abs(a.mean() - b.mean()) < 4 * se, name
        assert b.std() == pytest.approx(a.std(), rel=0.1), name
