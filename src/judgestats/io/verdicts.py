r"""Finding the verdict in a judge's raw text.

Judges answer in prose that ends (usually) in a fixed token: ``[[A]]`` in MT-Bench
prompts, ``[[A>>B]]`` in arena-hard, ``Choice: A``, LLMBar's ``Output (a)``. A
:class:`VerdictExtractor` finds those tokens with a regular expression, maps what it
captured to a verdict, and applies a stated rule when a text holds several tokens.
Every importer that reads raw text uses it, and so can any user code::

    >>> from judgestats.io.verdicts import VerdictExtractor
    >>> ex = VerdictExtractor("mt-bench")
    >>> ex.extract("Assistant B is more helpful. [[B]]")
    Extraction(verdict=<Verdict.B: 1>, strength=1, match='[[B]]', n_matches=1)
    >>> ex.extract("I cannot decide.").verdict
    <Verdict.INVALID: 3>

Verdicts found in text name *presentation slots*: A is the response shown first.
Importers convert them to the item frame with the order shown.

Named patterns (:data:`PATTERNS`)
---------------------------------
===============  ==============================================  ==========================
name             matches                                         verdicts
===============  ==============================================  ==========================
``mt-bench``     ``[[A]]``, ``[[B]]``, ``[[C]]``                 A, B, tie (C)
``arena-hard``   ``[[A>>B]]``, ``[[A>B]]``, ``[[A=B]]``, ...     A, B, tie; ``>>`` is
                                                                 strength 2
``choice``       ``Choice: A``, ``Choice: (B)``, ``Choice: tie``  A, B, tie
``llmbar``       ``Output (a)``, ``Output (b)``                  A, B
===============  ==============================================  ==========================

Your own pattern is a regular expression with one capture group (or a group named
``verdict``; without a group the whole match is used). What it captures is looked up,
lower-cased and without spaces, in ``labels=`` and then in :data:`DEFAULT_LABELS`
(``a``, ``b``, ``c``/``tie``, ``1``/``2``, ``a>b``, ``b>>a``, ``first``, ...). A match
that maps to nothing counts as a match with no verdict.

Several matches
---------------
``multiple="unanimous"`` (default): the verdict is the one every match names; matches
that disagree, or one that maps to nothing, make the judgment invalid (the text is
ambiguous, which is data about the judge). ``"first"`` and ``"last"`` take the first
or last match instead. No match at all is always invalid.

What matched stays inspectable: :attr:`Extraction.match` holds every matched text,
joined by ``" | "`` (empty when nothing matched), and importers keep it as the
per-judgment variable ``match``.

Finding the pattern
-------------------
When no pattern is named, :func:`choose_pattern` tries every named pattern on the
file's texts and takes the one that extracts the most verdicts (ties go to the
first in :data:`PATTERNS`). It also counts the texts on which two patterns both
find a verdict and the verdicts differ: such a file mixes phrasings, and the
importers report it with the pattern chosen (:meth:`PatternChoice.describe`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from judgestats.schema import Verdict

__all__ = [
    "DEFAULT_LABELS",
    "MULTIPLE_RULES",
    "PATTERNS",
    "Extraction",
    "PatternChoice",
    "VerdictExtractor",
    "VerdictPattern",
    "choose_pattern",
    "extract_verdicts",
    "extractor_for",
    "resolve_pattern",
]

#: Rules for a text with several matches.
MULTIPLE_RULES: tuple[str, ...] = ("unanimous", "first", "last")

_A, _B, _TIE = Verdict.A, Verdict.B, Verdict.TIE

#: Captured text (lower case, no spaces) to verdict, for every pattern.
DEFAULT_LABELS: dict[str, Verdict] = {
    **dict.fromkeys(["a", "(a)", "1", "first", "assistanta", "outputa", "output(a)"], _A),
    **dict.fromkeys(["b", "(b)", "2", "second", "assistantb", "outputb", "output(b)"], _B),
    **dict.fromkeys(["c", "(c)", "0", "tie", "draw", "equal"], _TIE),
    **dict.fromkeys(["a>b", "a>>b", "b<a", "b<<a"], _A),
    **dict.fromkeys(["b>a", "b>>a", "a<b", "a<<b"], _B),
    **dict.fromkeys(["a=b", "b=a", "a==b"], _TIE),
}

_MAX_SHOWN = 10  # matches kept in ``match``; a text with more says how many more


@dataclass(frozen=True)
class VerdictPattern:
    """A named way to find verdicts in text.

    Attributes
    ----------
    name : str
        Short name, used as ``verdict_pattern=name``.
    regex : str
        Regular expression with one capture group (or a group named ``verdict``).
    description : str
        What it is for, in one line.
    labels : mapping of str to Verdict
        Captured text (lower case, no spaces) to verdict, consulted before
        :data:`DEFAULT_LABELS`.
    flags : int
        ``re`` flags used to compile ``regex``.
    """

    name: str
    regex: str
    description: str
    labels: Mapping[str, Verdict] = field(default_factory=dict)
    flags: int = 0


#: The named patterns of common prompt families.
PATTERNS: dict[str, VerdictPattern] = {
    p.name: p
    for p in (
        VerdictPattern(
            "mt-bench",
            r"\[\[\s*([ABC])\s*\]\]",
            "MT-Bench/FastChat pairwise prompts: [[A]], [[B]], [[C]] (tie)",
        ),
        VerdictPattern(
            "arena-hard",
            r"\[\[\s*([AB]\s*(?:>>|<<|>|<|=)\s*[AB])\s*\]\]",
            "arena-hard-auto: [[A>>B]], [[A>B]], [[A=B]], [[B>A]], [[B>>A]]",
        ),
        VerdictPattern(
            "choice",
            r"\bChoice\s*:\s*\**\s*\(?\s*(A|B|C|tie)\b",
            "'Choice: A' / 'Choice: (B)' / 'Choice: tie'",
            flags=re.IGNORECASE,
        ),
        VerdictPattern(
            "llmbar",
            r"\bOutput\s*\(\s*([ab])\s*\)",
            "LLMBar: 'Output (a)' or 'Output (b)'",
            flags=re.IGNORECASE,
        ),
    )
}


def resolve_pattern(pattern: str | re.Pattern[str] | VerdictPattern) -> VerdictPattern:
    """Return the :class:`VerdictPattern` for a name, a regular expression or a pattern.

    Parameters
    ----------
    pattern : str, re.Pattern or VerdictPattern
        A key of :data:`PATTERNS`, or a regular expression.

    Returns
    -------
    VerdictPattern

    Raises
    ------
    ValueError
        If ``pattern`` is neither a named pattern nor a valid regular expression,
        or has more than one capture group and none named ``verdict``.
    """
    if isinstance(pattern, VerdictPattern):
        compiled = re.compile(pattern.regex, pattern.flags)
        spec = pattern
    elif isinstance(pattern, re.Pattern):
        compiled = pattern
        spec = VerdictPattern("custom", pattern.pattern, "user pattern", flags=pattern.flags)
    elif isinstance(pattern, str) and pattern in PATTERNS:
        return PATTERNS[pattern]
    elif isinstance(pattern, str):
        try:
            compiled = re.compile(pattern)
        except re.error as exc:
            raise ValueError(
                f"verdict_pattern {pattern!r} is neither a named pattern ({', '.join(PATTERNS)})"
                f" nor a valid regular expression ({exc}); fix the expression or use a name"
            ) from None
        spec = VerdictPattern("custom", pattern, "user pattern")
    else:
        raise ValueError(
            f"verdict_pattern {pattern!r} must be a pattern name ({', '.join(PATTERNS)})"
            " or a regular expression"
        )
    if compiled.groups > 1 and "verdict" not in compiled.groupindex:
        raise ValueError(
            f"verdict_pattern {spec.regex!r} has {compiled.groups} capture groups; use one,"
            " or name the verdict's group (?P<verdict>...) and make the others (?:...)"
        )
    return spec


@dataclass(frozen=True)
class Extraction:
    """The verdict found in one text.

    Attributes
    ----------
    verdict : Verdict
        In the presentation frame (A = the response shown first); ``INVALID`` when
        nothing matched or the matches were ambiguous.
    strength : int
        2 for a strong preference (``>>``), 1 for a preference, 0 for a tie, -1 when
        there is no verdict.
    match : str
        Every matched text, joined by ``" | "``; empty when nothing matched.
    n_matches : int
        How many matches the text holds.
    """

    verdict: Verdict
    strength: int
    match: str
    n_matches: int


_NO_TEXT = Extraction(Verdict.INVALID, -1, "", 0)


class VerdictExtractor:
    r"""Find verdicts in raw judge text with a pattern and a rule for several matches.

    Parameters
    ----------
    pattern : str, re.Pattern or VerdictPattern, default "mt-bench"
        A name from :data:`PATTERNS` or a regular expression (see the module docs).
    multiple : {"unanimous", "first", "last"}, default "unanimous"
        What a text with several matches means.
    labels : mapping, optional
        Extra captured texts and their verdicts (``"A"``, ``"B"``, ``"tie"`` or a
        :class:`~judgestats.schema.Verdict`), e.g. ``{"assistant 1": "A"}``.

    Raises
    ------
    ValueError
        For an unknown pattern name, an invalid expression, an unknown rule or label.

    Examples
    --------
    >>> ex = VerdictExtractor(r"Winner: (\w+)", labels={"left": "A", "right": "B"})
    >>> ex.extract("Winner: right").verdict
    <Verdict.B: 1>
    >>> VerdictExtractor("mt-bench").extract("[[A]] ... no, [[B]]").verdict
    <Verdict.INVALID: 3>
    >>> VerdictExtractor("mt-bench", multiple="last").extract("[[A]] ... no, [[B]]").verdict
    <Verdict.B: 1>
    """

    def __init__(
        self,
        pattern: str | re.Pattern[str] | VerdictPattern = "mt-bench",
        *,
        multiple: str = "unanimous",
        labels: Mapping[str, str | Verdict] | None = None,
    ) -> None:
        if multiple not in MULTIPLE_RULES:
            raise ValueError(f"multiple_matches={multiple!r}; use one of {MULTIPLE_RULES}")
        self.pattern = resolve_pattern(pattern)
        self.multiple = multiple
        self._regex = re.compile(self.pattern.regex, self.pattern.flags)
        self._group = (
            "verdict" if "verdict" in self._regex.groupindex else (1 if self._regex.groups else 0)
        )
        table = {**DEFAULT_LABELS, **{_norm(k): v for k, v in self.pattern.labels.items()}}
        for raw, target in (labels or {}).items():
            try:
                code = Verdict.parse(target)
            except ValueError:
                raise ValueError(
                    f"labels[{raw!r}] = {target!r}; map each captured text to 'A', 'B' or 'tie'"
                ) from None
            table[_norm(raw)] = code
        self._labels = table

    def __repr__(self) -> str:
        return f"VerdictExtractor({self.pattern.name!r}, multiple={self.multiple!r})"

    def extract(self, text: object) -> Extraction:
        """Return the :class:`Extraction` of one text (anything not a string has none)."""
        if not isinstance(text, str):
            return _NO_TEXT
        found: list[tuple[str, Verdict | None]] = []
        for m in self._regex.finditer(text):
            whole = m.group(0)
            if not whole:
                continue
            captured = m.group(self._group) or ""
            found.append((whole, self._labels.get(_norm(captured))))
        if not found:
            return _NO_TEXT
        shown = " | ".join(w.strip() for w, _ in found[:_MAX_SHOWN])
        if len(found) > _MAX_SHOWN:
            shown += f" | ... ({len(found) - _MAX_SHOWN} more)"
        if self.multiple == "first":
            chosen = [found[0]]
        elif self.multiple == "last":
            chosen = [found[-1]]
        else:
            chosen = found
        verdicts = {v for _, v in chosen}
        if len(verdicts) != 1 or None in verdicts:
            return Extraction(Verdict.INVALID, -1, shown, len(found))
        verdict = verdicts.pop()
        assert verdict is not None  # for type checkers: None was excluded above
        return Extraction(verdict, _strength(chosen[-1][0], verdict), shown, len(found))

    def extract_all(self, texts: Iterable[object]) -> pd.DataFrame:
        """Extract from many texts.

        Returns
        -------
        pandas.DataFrame
            Columns ``verdict`` (int codes), ``strength``, ``match``, ``n_matches``,
            one row per text, in order.
        """
        rows = [self.extract(t) for t in texts]
        return pd.DataFrame(
            {
                "verdict": pd.Series([int(r.verdict) for r in rows], dtype="int8"),
                "strength": pd.Series([r.strength for r in rows], dtype="int64"),
                "match": pd.Series([r.match for r in rows], dtype=object),
                "n_matches": pd.Series([r.n_matches for r in rows], dtype="int64"),
            }
        )


def extract_verdicts(
    texts: Iterable[object],
    pattern: str | re.Pattern[str] | VerdictPattern = "mt-bench",
    *,
    multiple: str = "unanimous",
    labels: Mapping[str, str | Verdict] | None = None,
) -> pd.DataFrame:
    """Extract verdicts from many texts (see :class:`VerdictExtractor`).

    Parameters
    ----------
    texts : iterable
        The judges' raw outputs.
    pattern, multiple, labels
        As for :class:`VerdictExtractor`.

    Returns
    -------
    pandas.DataFrame
        Columns ``verdict``, ``strength``, ``match``, ``n_matches``.

    Examples
    --------
    >>> extract_verdicts(["[[A]]", "[[C]]", "none"])["verdict"].tolist()
    [0, 2, 3]
    """
    return VerdictExtractor(pattern, multiple=multiple, labels=labels).extract_all(texts)


@dataclass(frozen=True)
class PatternChoice:
    """The named pattern that fits a file's texts best, and how the others did.

    Attributes
    ----------
    pattern : str
        Name of the pattern chosen (a key of :data:`PATTERNS`).
    texts : int
        How many texts were tried.
    extracted : mapping of str to int
        Per pattern name, the texts it extracts a verdict from.
    disagreements : mapping of (str, str) to tuple of int
        Per pair of patterns that both extract a verdict from some texts and name
        different verdicts there, the 0-based positions of those texts.
    """

    pattern: str
    texts: int
    extracted: Mapping[str, int]
    disagreements: Mapping[tuple[str, str], tuple[int, ...]]

    def describe(self, where: Callable[[int], str] = str) -> str:
        """Say which pattern was chosen and why, for the import accounting.

        Parameters
        ----------
        where : callable, default str
            Turns a text's position into where it is (``lambda i: f"line {i + 2}"``).

        Returns
        -------
        str
        """
        others = ", ".join(f"{n} {c}" for n, c in self.extracted.items() if n != self.pattern)
        best = self.extracted[self.pattern]
        if best == 0:
            text = (
                f"no named verdict pattern matches any of {self.texts} texts ({others});"
                " every judgment is INVALID: pass verdict_pattern=REGEX (--verdict-pattern)"
            )
        else:
            text = (
                f"verdict pattern {self.pattern!r} found (verdicts in {best} of {self.texts}"
                f" texts; {others}); pass verdict_pattern= to choose another"
            )
        for (one, two), positions in self.disagreements.items():
            shown = ", ".join(where(i) for i in positions[:5])
            more = f" and {len(positions) - 5} more" if len(positions) > 5 else ""
            text += (
                f"; patterns {one!r} and {two!r} disagree on {len(positions)} texts"
                f" ({shown}{more}): the file mixes phrasings, check them"
            )
        return text


def choose_pattern(
    texts: Sequence[object],
    *,
    multiple: str = "unanimous",
    candidates: Iterable[str] | None = None,
) -> PatternChoice:
    """Try every named pattern on ``texts`` and choose the one extracting the most verdicts.

    Parameters
    ----------
    texts : sequence
        The judges' raw outputs (non-strings have no verdict).
    multiple : {"unanimous", "first", "last"}, default "unanimous"
        The rule for several matches, as used afterwards.
    candidates : iterable of str, optional
        Names of the patterns to try; default every one of :data:`PATTERNS`, in order.

    Returns
    -------
    PatternChoice
        The first pattern of the most verdicts extracted wins a tie.

    Examples
    --------
    >>> choose_pattern(["Choice: A", "choice: (b)", "no idea"]).pattern
    'choice'
    >>> choose_pattern(["[[A]] Choice: B"]).disagreements
    {('mt-bench', 'choice'): (0,)}
    """
    names = list(candidates if candidates is not None else PATTERNS)
    found = {
        n: VerdictExtractor(n, multiple=multiple).extract_all(texts)["verdict"].to_numpy()
        for n in names
    }
    extracted = {n: int((v != Verdict.INVALID).sum()) for n, v in found.items()}
    best = max(names, key=lambda n: extracted[n])  # max keeps the first of equals
    disagreements: dict[tuple[str, str], tuple[int, ...]] = {}
    for i, one in enumerate(names):
        for two in names[i + 1 :]:
            a, b = found[one], found[two]
            both = (a != Verdict.INVALID) & (b != Verdict.INVALID) & (a != b)
            if both.any():
                disagreements[(one, two)] = tuple(int(k) for k in both.nonzero()[0])
    return PatternChoice(best, len(texts), extracted, disagreements)


def extractor_for(
    texts: Sequence[object],
    pattern: str | re.Pattern[str] | VerdictPattern | None,
    *,
    multiple: str = "unanimous",
) -> tuple[VerdictExtractor, PatternChoice | None]:
    """Return the extractor of a file: of ``pattern``, or of the pattern that fits best.

    Parameters
    ----------
    texts : sequence
        The file's raw outputs, used only when ``pattern`` is ``None``.
    pattern : str, re.Pattern, VerdictPattern or None
        The pattern named by the user; ``None`` chooses one with :func:`choose_pattern`.
    multiple : {"unanimous", "first", "last"}, default "unanimous"
        What a text with several matches means.

    Returns
    -------
    extractor : VerdictExtractor
    choice : PatternChoice or None
        How the pattern was chosen; ``None`` when it was named.
    """
    if pattern is not None:
        return VerdictExtractor(pattern, multiple=multiple), None
    choice = choose_pattern(texts, multiple=multiple)
    return VerdictExtractor(choice.pattern, multiple=multiple), choice


def _norm(text: str) -> str:
    return re.sub(r"\s+", "", str(text)).lower()


def _strength(whole: str, verdict: Verdict) -> int:
    if verdict == Verdict.TIE:
        return 0
    return 2 if (">>" in whole or "<<" in whole) else 1
