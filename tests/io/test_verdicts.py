import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judgestats.io.verdicts import (
    PATTERNS,
    Extraction,
    VerdictExtractor,
    extract_verdicts,
    resolve_pattern,
)
from judgestats.schema import Verdict

A, B, TIE, INVALID = Verdict.A, Verdict.B, Verdict.TIE, Verdict.INVALID


@pytest.mark.parametrize(
    ("pattern", "text", "verdict", "strength"),
    [
        ("mt-bench", "Assistant A is better.\n\n[[A]]", A, 1),
        ("mt-bench", "Final verdict: [[B]]", B, 1),
        ("mt-bench", "It is a tie: [[C]]", TIE, 0),
        ("mt-bench", "[[ A ]]", A, 1),
        ("arena-hard", "My final verdict is [[A>>B]].", A, 2),
        ("arena-hard", "My final verdict is [[A>B]].", A, 1),
        ("arena-hard", "My final verdict is tie: [[A=B]]", TIE, 0),
        ("arena-hard", "[[B>A]]", B, 1),
        ("arena-hard", "[[B>>A]]", B, 2),
        ("choice", "Reasoning...\nChoice: A", A, 1),
        ("choice", "choice: (b)", B, 1),
        ("choice", "Choice: tie", TIE, 0),
        ("llmbar", "Output (a)", A, 1),
        ("llmbar", "Output (b) is better.", B, 1),
    ],
)
def test_named_patterns(pattern, text, verdict, strength):
    found = VerdictExtractor(pattern).extract(text)
    assert (found.verdict, found.strength, found.n_matches) == (verdict, strength, 1)
    assert found.match


def test_no_match_is_invalid_and_inspectable():
    found = VerdictExtractor("mt-bench").extract("Therefore, Assistant A is better.")
    assert found == Extraction(INVALID, -1, "", 0)
    assert VerdictExtractor().extract(None).verdict is INVALID
    assert VerdictExtractor().extract(float("nan")).verdict is INVALID


def test_several_matches_rule():
    text = "Therefore, [[B]] is better than [[A]]."
    assert VerdictExtractor("mt-bench").extract(text) == Extraction(INVALID, -1, "[[B]] | [[A]]", 2)
    assert VerdictExtractor("mt-bench", multiple="first").extract(text).verdict is B
    assert VerdictExtractor("mt-bench", multiple="last").extract(text).verdict is A
    agreeing = VerdictExtractor("mt-bench").extract("[[A]] ... so again [[A]]")
    assert (agreeing.verdict, agreeing.match, agreeing.n_matches) == (A, "[[A]] | [[A]]", 2)


def test_many_matches_are_shown_capped():
    found = VerdictExtractor("mt-bench").extract("[[A]] " * 15)
    assert found.verdict is A and found.n_matches == 15
    assert found.match.endswith("(5 more)")


def test_user_regex_and_labels():
    ex = VerdictExtractor(r"Winner:\s*(\w+)", labels={"left": "A", "right": "B", "even": "tie"})
    assert ex.extract("Winner: right").verdict is B
    assert ex.extract("Winner: EVEN").verdict is TIE
    assert ex.extract("Winner: A").verdict is A  # default labels still apply
    unknown = ex.extract("Winner: nobody")
    assert (unknown.verdict, unknown.match) == (INVALID, "Winner: nobody")
    named = VerdictExtractor(r"(?:Final|Verdict): (?P<verdict>[AB])")
    assert named.extract("Final: B").verdict is B
    whole = VerdictExtractor(re.compile(r"\bA\b|\bB\b"))
    assert whole.extract("so B").verdict is B


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("(A", "neither a named pattern"),
        (r"(A)|(B)", "2 capture groups"),
        (42, "must be a pattern name"),
    ],
)
def test_bad_patterns_are_named_errors(pattern, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        VerdictExtractor(pattern)


def test_bad_rule_and_label():
    with pytest.raises(ValueError, match="multiple_matches='most'"):
        VerdictExtractor(multiple="most")
    with pytest.raises(ValueError, match="labels"):
        VerdictExtractor(labels={"x": "maybe"})


def test_resolve_pattern_and_vectorised_extraction():
    assert resolve_pattern("arena-hard") is PATTERNS["arena-hard"]
    assert resolve_pattern(r"\[\[(.)\]\]").name == "custom"
    df = extract_verdicts(["[[A]]", "[[C]]", "nothing", None, "[[B]] [[A]]"])
    assert df["verdict"].tolist() == [0, 2, 3, 3, 3]
    assert df["match"].tolist() == ["[[A]]", "[[C]]", "", "", "[[B]] | [[A]]"]
    assert df["n_matches"].tolist() == [1, 1, 0, 0, 2]


@settings(max_examples=60, deadline=None)
@given(
    st.text(), st.sampled_from(sorted(PATTERNS)), st.sampled_from(["unanimous", "first", "last"])
)
def test_any_text_gives_a_verdict_never_an_error(text, pattern, rule):
    found = VerdictExtractor(pattern, multiple=rule).extract(text)
    assert found.verdict in (A, B, TIE, INVALID)
    assert (found.n_matches == 0) == (found.match == "")
    assert (found.verdict is INVALID) == (found.strength == -1)
