"""Item features added for the metrics: two-trial accuracy, S1/S2, pairing, humans."""

from __future__ import annotations

import numpy as np
import pytest
from metrics_helpers import INVALID, MISSING, TIE, A, B

from judgestats.features import FEATURES, item_features
from judgestats.metrics import human
from judgestats.metrics.formulas import derive
from judgestats.tally import consensus_label

ORDERS = ["AB", "BA"]
SYMBOL = {A: "A>B", B: "A<B", TIE: "A=B"}


def features_of(ab: int, ba: int, label: int = A) -> dict[str, float]:
    """Features of one item with one run: verdict ``ab`` in order AB, ``ba`` in BA."""
    f = item_features(np.array([[[ab], [ba]]]), np.array([label]), ORDERS)[0]
    return dict(zip(FEATURES, f.tolist(), strict=True))


def seed000_pseudocode(v1: str, v2: str, gold: str) -> bool:
    """JudgeBench's scoring recipe exactly as seed 000's pseudo-code writes it."""
    if v1 in ["A>B", "A=B"] and v2 in ["A>B", "A=B"]:
        agg = "A>B"
    elif v1 in ["A<B", "A=B"] and v2 in ["A<B", "A=B"]:
        agg = "A<B"
    else:
        agg = "incorrect"
    return (agg == "A>B" and gold == "A") or (agg == "A<B" and gold == "B")


def test_double_tie_is_correct_in_seed000_pseudocode_but_wrong_here():
    # The pseudo-code's first branch catches a double tie and calls it A>B ...
    assert seed000_pseudocode("A=B", "A=B", gold="A")
    # ... the paper's text (and ours): ties in both trials are deemed incorrect.
    f = features_of(TIE, TIE, label=A)
    assert (f["tt_hit"], f["tt_den"]) == (0, 1)


@pytest.mark.parametrize(
    ("ab", "ba", "label", "correct"),
    [
        (A, A, A, 1),  # consistent and right
        (A, TIE, A, 1),  # one tie, the other trial decides
        (TIE, A, A, 1),
        (A, B, A, 0),  # inconsistent pair
        (B, A, A, 0),
        (TIE, TIE, A, 0),  # double tie
        (B, B, A, 0),
        (B, TIE, B, 1),
        (A, INVALID, A, 1),  # an invalid trial is a vote of 0
        (INVALID, INVALID, A, 0),
    ],
)
def test_two_trial_accuracy_follows_the_text(ab, ba, label, correct):
    f = features_of(ab, ba, label)
    assert f["tt_den"] == 1
    assert f["tt_hit"] == correct
    both = int(ab == label and ba == label)
    assert f["bc_hit"] == both


def test_two_trial_agrees_with_pseudocode_except_double_tie():
    for ab in (A, B, TIE):
        for ba in (A, B, TIE):
            for gold, label in (("A", A), ("B", B)):
                ours = features_of(ab, ba, label)["tt_hit"] == 1
                theirs = seed000_pseudocode(SYMBOL[ab], SYMBOL[ba], gold)
                assert ours == theirs or (ab == ba == TIE)


@pytest.mark.parametrize(
    ("ab", "ba", "label", "s1", "s2"),
    [
        (A, A, A, (1, 1), (1, 1)),
        (A, B, A, (0, 1), (0, 0)),  # inconsistent -> tie: a miss in S1, out of S2
        (A, B, TIE, (1, 1), (0, 0)),  # inconsistent -> tie = human tie
        (TIE, TIE, TIE, (1, 1), (0, 0)),
        (B, B, A, (0, 1), (0, 1)),
        (A, INVALID, A, (0, 1), (0, 1)),  # invalid stays in, as a miss
        (A, A, MISSING, (0, 0), (0, 0)),  # no label: not counted
        (A, MISSING, A, (1, 1), (1, 1)),  # one order only: its verdict
    ],
)
def test_mtbench_setups_combine_orders(ab, ba, label, s1, s2):
    f = features_of(ab, ba, label)
    assert (f["s1_hit"], f["s1_den"]) == s1
    assert (f["s2_hit"], f["s2_den"]) == s2


def test_position_counts_use_paired_runs_only():
    # Run 0 judged in both orders, run 1 only in AB.
    v = np.array([[[A, A], [B, MISSING]]])
    f = dict(zip(FEATURES, item_features(v, np.array([A]), ORDERS)[0], strict=True))
    assert (f["first_paired"], f["decisive_paired"]) == (2, 2)
    assert (f["first"], f["decisive"]) == (3, 3)
    unknown = item_features(np.array([[[A, B]]]), np.array([A]), ["unknown"])[0]
    assert unknown[FEATURES.index("decisive_paired")] == 0


def test_features_invariant_to_relabelling_runs(rng):
    v = rng.choice([-1, 0, 1, 2, 3], size=(200, 2, 4))
    label = rng.choice([-1, 0, 1, 2], size=200)
    perm = rng.permutation(4)
    np.testing.assert_allclose(
        item_features(v, label, ORDERS), item_features(v[..., perm], label, ORDERS)
    )


def test_raw_agreement_and_deflation_use_the_kappa_table():
    v = np.array([A, A, B, TIE, INVALID])[:, None, None]
    label = np.array([A, B, B, TIE, A])
    out = derive(item_features(v, label, ["AB"]).sum(0))
    assert float(out["raw_agreement"]) == pytest.approx(3 / 5)
    assert float(out["exact_match"]) == pytest.approx(2 / 4)  # tie label excluded
    assert float(out["deflation_raw"]) == pytest.approx(3 / 5 - float(out["kappa"]))
    assert float(out["deflation"]) == pytest.approx(2 / 4 - float(out["kappa"]))


def test_human_features_match_leave_one_out_brute_force(rng):
    h = rng.choice([-1, 0, 1, 2, 3], size=(300, 4), p=[0.2, 0.3, 0.3, 0.15, 0.05])
    f = dict(zip(human.FEATURES, human.features(h).sum(0), strict=True))
    expect = dict.fromkeys(human.FEATURES, 0)
    for row in h:
        rated = [r for r in row if r in (A, B, TIE)]
        for k, r in enumerate(rated):
            others = np.array(rated[:k] + rated[k + 1 :] or [MISSING])
            majority = consensus_label(others[None])[0]  # the judges' label rule
            if majority == MISSING:
                continue
            expect["hm1_den"] += 1
            expect["hm1_hit"] += majority == r
            if TIE not in (r, majority):
                expect["hm2_den"] += 1
                expect["hm2_hit"] += majority == r
        for i in range(len(rated)):
            for j in range(i + 1, len(rated)):
                expect["hp1_den"] += 1
                expect["hp1_hit"] += rated[i] == rated[j]
                if TIE not in (rated[i], rated[j]):
                    expect["hp2_den"] += 1
                    expect["hp2_hit"] += rated[i] == rated[j]
    assert f == pytest.approx(expect)
