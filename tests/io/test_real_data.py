"""The three real log folders import completely, with pinned shapes, counts and figures.

Counts are pinned as literals (checked once against the files with plain json/csv
scripts) and the per-evaluator figures are recomputed here independently from the raw
files, then compared with the same figures computed from the imported dataset. The
tables in docs/importers.md are checked against the dataset too.
"""

from __future__ import annotations

import csv
import json
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from judgestats.schema import Verdict, validate

DOCS = Path(__file__).resolve().parents[2] / "docs" / "importers.md"
MISSING, A, B, TIE, INVALID = (int(v) for v in Verdict)


# --------------------------------------------------------------------------- LLMBar

LLMBAR_ITEMS = {
    "LLMBar/Adversarial/GPTInst": 92,
    "LLMBar/Adversarial/GPTOut": 47,
    "LLMBar/Adversarial/Manual": 46,
    "LLMBar/Adversarial/Neighbor": 134,
    "LLMBar/Natural": 100,
    "Processed/FairEval": 66,
    "Processed/LLMEval^2": 200,
    "Processed/MT-Bench": 200,
}
STRATEGIES = {
    "GPT-4": 15,
    "ChatGPT": 12,
    "ChatGPT-0301": 10,
    "LLaMA2": 10,
    "Falcon": 10,
    "PaLM2": 8,
}


def test_llmbar_accounting(llmbar):
    ds, report = llmbar
    assert validate(ds) == []
    assert report.balanced
    assert len(report.files) == 357  # 349 result files + 8 dataset files
    assert {f.format for f in report.files} == {"llmbar"}
    assert (report.read, report.imported, report.duplicates, report.rejected) == (
        62811,
        62811,
        0,
        0,
    )
    assert report.invalid == 273
    assert report.notes == ()


def test_llmbar_shape(llmbar):
    ds, _ = llmbar
    assert dict(ds.sizes) == {"judge": 65, "item": 885, "order": 2, "run": 1, "rater": 2}
    assert Counter(j.split("/")[0] for j in ds.judge.values.tolist()) == STRATEGIES
    assert "GPT-4/Vanilla_NoRules" in ds.judge.values
    assert dict(Counter(ds.benchmark.values.tolist())) == LLMBAR_ITEMS
    assert ds.order.values.tolist() == ["AB", "BA"]
    assert ds.rater.values.tolist() == ["gold", "human"]
    kinds = dict(zip(ds.benchmark.values.tolist(), ds.label_kind.values.tolist(), strict=True))
    assert {b: k for b, k in kinds.items()} == {
        b: ("preference" if b.startswith("Processed") else "correctness") for b in LLMBAR_ITEMS
    }
    v = ds.verdict.values
    assert int((v != MISSING).sum()) == 61926
    assert int((v == INVALID).sum()) == 273
    # Every LLMBar set is judged by all 65 evaluators, the Processed sets by 8; the
    # other 57 evaluators' verdicts on them are missing, not dropped.
    asked = (v != MISSING).any(axis=(2, 3))
    for bench in LLMBAR_ITEMS:
        in_bench = ds.benchmark.values == bench
        assert int(asked[:, in_bench].any(axis=1).sum()) == (
            8 if bench.startswith("Processed") else 65
        )
    human = ds.human.values
    assert int((human[:, 0] != MISSING).sum()) == 419  # gold labels of LLMBar/*
    assert int((human[:, 1] != MISSING).sum()) == 466  # human labels of Processed/*
    assert np.all((human != MISSING).sum(axis=1) == 1)


def _llmbar_group(bench: str) -> str:
    if bench == "LLMBar/Natural":
        return "LLMBar/Natural"
    return "LLMBar/Adversarial" if bench.startswith("LLMBar/") else "Processed"


def llmbar_counts_raw(root: Path) -> dict[tuple[str, str], tuple[int, ...]]:
    """(evaluator, group) -> (items, correct AB, correct BA, both correct, consistent).

    Straight from the JSON files: last round, winner compared with ``label``.
    """
    out: dict[tuple[str, str], list[int]] = {}
    for f in sorted(root.glob("Dataset/**/evaluators/*/*/result.json")):
        parts = f.parts
        at = parts.index("evaluators")
        judge = f"{parts[at + 1]}/{parts[at + 2]}"
        bench = "/".join(parts[parts.index("Dataset") + 1 : at])
        c = out.setdefault((judge, _llmbar_group(bench)), [0, 0, 0, 0, 0])
        for rec in json.loads(f.read_text()):
            last = [r for r in rec["results"] if isinstance(r, dict)][-1]
            ab, ba = last["swap = False"]["winner"], last["swap = True"]["winner"]
            label = str(rec["label"])
            c[0] += 1
            c[1] += ab == label
            c[2] += ba == label
            c[3] += ab == label and ba == label
            c[4] += ab is not None and ab == ba
    return {k: tuple(v) for k, v in out.items()}


def llmbar_counts(ds) -> dict[tuple[str, str], tuple[int, ...]]:
    """The same counts from the imported dataset, with numpy."""
    label = ds.human.values.max(axis=1)  # one label per item, the other rater missing
    v = ds.verdict.values[..., 0]  # (judge, item, order)
    ab, ba = v[..., 0], v[..., 1]
    asked = (ab != MISSING) & (ba != MISSING)
    valid = (ab != INVALID) & (ab != MISSING)
    groups = np.array([_llmbar_group(b) for b in ds.benchmark.values.tolist()])
    out = {}
    for j, judge in enumerate(ds.judge.values.tolist()):
        for group in np.unique(groups):
            m = asked[j] & (groups == group)
            if not m.any():
                continue
            ok_ab, ok_ba = ab[j] == label, ba[j] == label
            out[(judge, str(group))] = (
                int(m.sum()),
                int((ok_ab & m).sum()),
                int((ok_ba & m).sum()),
                int((ok_ab & ok_ba & m).sum()),
                int(((ab[j] == ba[j]) & valid[j] & m).sum()),
            )
    return out


def test_llmbar_figures_match_an_independent_count(llmbar, shared_data):
    ds, _ = llmbar
    counts = llmbar_counts(ds)
    assert len(counts) == 65 * 2 + 8
    assert counts == llmbar_counts_raw(shared_data / "llmbar")
    # A few pinned: (items, correct AB, correct BA, both, consistent).
    assert counts[("GPT-4/Vanilla_NoRules", "LLMBar/Natural")] == (100, 92, 95, 92, 97)
    assert counts[("GPT-4/Swap_CoT", "LLMBar/Natural")] == (100, 94, 94, 94, 100)
    assert counts[("GPT-4/Metrics_Reference", "Processed")] == (466, 360, 353, 315, 380)
    assert counts[("PaLM2/Vanilla_NoRules", "LLMBar/Adversarial")] == (319, 186, 190, 147, 232)


def test_llmbar_swap_keeps_the_earlier_round(llmbar, shared_data):
    ds, _ = llmbar
    rounds, first, final = ds.rounds.values, ds.first_round.values, ds.verdict.values
    assert int((rounds == 2).sum()) == 4278  # 2139 two-round records x 2 orders
    swap = np.array([j.split("/")[1].startswith("Swap") for j in ds.judge.values.tolist()])
    assert np.all(rounds[~swap] <= 1)
    one_round = rounds == 1
    np.testing.assert_array_equal(first[one_round], final[one_round])
    changed = int(((first != final) & (rounds == 2)).sum())
    raw_changed = 0
    for f in (shared_data / "llmbar").glob("Dataset/**/evaluators/*/Swap*/result.json"):
        for rec in json.loads(f.read_text()):
            rnds = [r for r in rec["results"] if isinstance(r, dict)]
            for key in ("swap = False", "swap = True"):
                raw_changed += len(rnds) == 2 and rnds[0][key]["winner"] != rnds[1][key]["winner"]
    assert changed == raw_changed == 1431
    # Ratings of Rating* strategies are kept (10 ratings are not numbers in the logs).
    assert int(np.isfinite(ds.score_a.values).sum()) == 5856


# ------------------------------------------------------------------- position bias

PB_JUDGES = [
    "claude-3-haiku-20240307",
    "claude-3-opus-20240229",
    "claude-3-sonnet-20240229",
    "gemini-pro",
    "gpt-3.5-turbo-0125",
    "gpt-3.5-turbo-1106",
    "gpt-4-0125-preview",
    "gpt-4-0613",
    "gpt-4-1106-preview",
]
PB_INVALID = {
    "claude-3-haiku-20240307": 1,
    "claude-3-opus-20240229": 0,
    "claude-3-sonnet-20240229": 1,
    "gemini-pro": 8,
    "gpt-3.5-turbo-0125": 22,
    "gpt-3.5-turbo-1106": 2,
    "gpt-4-0125-preview": 1,
    "gpt-4-0613": 1,
    "gpt-4-1106-preview": 0,
}


def test_position_bias_accounting(position_bias):
    ds, report = position_bias
    assert validate(ds) == []
    assert report.balanced
    assert len(report.files) == 27  # 9 judges x 3 repetitions
    assert (report.read, report.imported, report.rejected, report.invalid) == (5184, 5184, 0, 36)
    # The companions are passed over, each with a note: 27 length_stats.csv, 6 workbooks.
    passed = [n for n in report.notes if "passed over" in n.reason]
    notes = [n.file for n in passed]
    assert len(notes) == 33
    assert sum(n.endswith("length_stats.csv") for n in notes) == 27
    assert sum(n.endswith(".xlsx") for n in notes) == 6
    assert all("passed over, not a log: position_bias" in n.reason for n in passed)
    # Every record file says which verdict pattern it was read with: the study's [[A]].
    chosen = [n for n in report.notes if n not in passed]
    assert len(chosen) == 27
    assert all(n.reason.startswith("verdict pattern 'mt-bench' found") for n in chosen)


def test_position_bias_shape(position_bias):
    ds, _ = position_bias
    assert dict(ds.sizes) == {"judge": 9, "item": 96, "order": 2, "run": 3, "rater": 0}
    assert sorted(ds.judge.values.tolist()) == PB_JUDGES
    assert set(ds.benchmark.values.tolist()) == {"MTBench"}
    assert set(ds.label_kind.values.tolist()) == {"unlabelled"}
    assert ds.run.values.tolist() == [0, 1, 2]
    assert Counter(ds.category.values.tolist()) == dict.fromkeys(
        ["coding", "extraction", "humanities", "math", "reasoning", "roleplay", "stem", "writing"],
        12,
    )
    assert set(ds.model_b.values.tolist()) == {"vicuna-13b-v1.3"}
    assert Counter(ds.model_a.values.tolist()) == dict.fromkeys(
        ["claude-v1", "falcon-40b-instruct", "llama-13b", "stablelm-tuned-alpha-7b"], 24
    )
    v = ds.verdict.values
    assert int((v == MISSING).sum()) == 0  # complete: both orders, every run
    invalid = dict(
        zip(ds.judge.values.tolist(), (v == INVALID).sum(axis=(1, 2, 3)).tolist(), strict=True)
    )
    assert invalid == PB_INVALID
    assert np.all(np.isfinite(ds.length_a.values)) and np.all(ds.length_a.values > 0)
    # What matched stays inspectable: an invalid verdict matched nothing or disagreed.
    match = ds["match"].values
    valid_matches = np.unique(match[v != INVALID]).tolist()
    assert {"[[A]]", "[[B]]", "[[C]]"} <= set(valid_matches)
    assert all(len(set(m.split(" | "))) == 1 for m in valid_matches)  # several, agreeing
    assert int((match[v == INVALID] == "").sum()) == 28  # no match at all
    assert int((match[v == INVALID] != "").sum()) == 8  # disagreeing matches


def position_bias_consistency_raw(root: Path) -> dict[tuple[str, int], tuple[int, int]]:
    """(judge, run) -> (comparisons, order-consistent ones), straight from the TSVs."""
    pattern = re.compile(r"\[\[\s*([ABC])\s*\]\]")
    out = {}
    for f in sorted(root.glob("judgment_data/*/*/record_*.tsv")):
        run = int(re.search(r"Repetition(\d+)", str(f)).group(1)) - 1
        judge = re.match(r"record_(.+)_\d+$", f.stem).group(1)
        with open(f, newline="", encoding="utf-8") as fh:
            rows = list(csv.reader(fh, delimiter="\t"))[1:]
        winners: dict[tuple[str, frozenset], list] = {}
        for row in rows:
            qid, first, second = row[0].split(";")
            found = set(pattern.findall(row[-1]))
            winner = {"A": first, "B": second, "C": "tie"}[found.pop()] if len(found) == 1 else None
            winners.setdefault((qid, frozenset((first, second))), []).append(winner)
        consistent = sum(
            len(w) == 2 and w[0] is not None and w[0] == w[1] for w in winners.values()
        )
        out[(judge, run)] = (len(winners), consistent)
    return out


def position_bias_consistency(ds) -> dict[tuple[str, int], tuple[int, int]]:
    """The same from the dataset: both orders valid and equal in the item frame."""
    v = ds.verdict.values  # (judge, item, order, run)
    ab, ba = v[:, :, 0, :], v[:, :, 1, :]
    asked = (ab != MISSING) & (ba != MISSING)
    same = (ab == ba) & (ab != INVALID) & asked
    return {
        (judge, int(run)): (int(asked[j, :, r].sum()), int(same[j, :, r].sum()))
        for j, judge in enumerate(ds.judge.values.tolist())
        for r, run in enumerate(ds.run.values.tolist())
    }


def test_position_bias_consistency_matches_an_independent_count(position_bias, shared_data):
    ds, _ = position_bias
    counts = position_bias_consistency(ds)
    assert counts == position_bias_consistency_raw(shared_data / "position_bias")
    assert counts[("gpt-4-0613", 0)] == (96, 85)
    assert counts[("gemini-pro", 0)] == (96, 56)
    assert counts[("claude-3-opus-20240229", 2)] == (96, 77)


# ------------------------------------------------------------------------- PandaLM


def test_pandalm(pandalm):
    ds, report = pandalm
    assert validate(ds) == []
    assert report.balanced
    assert (report.read, report.imported, report.rejected, report.invalid) == (4995, 4995, 0, 25)
    assert {Path(f.file).name: (f.read, f.invalid) for f in report.files} == {
        "gpt-3.5-turbo-testset-v1.json": (999, 25),
        "pandalm-7b-testset-v1.json": (999, 0),
        "testset-v1.json": (2997, 0),
    }
    assert dict(ds.sizes) == {"judge": 2, "item": 999, "order": 1, "run": 1, "rater": 3}
    assert ds.judge.values.tolist() == ["gpt-3.5-turbo", "pandalm-7b"]
    assert ds.order.values.tolist() == ["AB"]
    assert ds.rater.values.tolist() == ["annotator1", "annotator2", "annotator3"]
    assert set(ds.label_kind.values.tolist()) == {"preference"}
    assert len(set(ds.category.values.tolist())) == 50
    counts = {
        j: dict(Counter(ds.verdict.sel(judge=j).values.ravel().tolist()))
        for j in ds.judge.values.tolist()
    }
    assert counts == {
        "gpt-3.5-turbo": {A: 460, B: 476, TIE: 38, INVALID: 25},
        "pandalm-7b": {A: 433, B: 459, TIE: 107},
    }
    labels = {
        r: dict(Counter(ds.human.sel(rater=r).values.tolist())) for r in ds.rater.values.tolist()
    }
    assert labels == {
        "annotator1": {A: 427, B: 475, TIE: 97},
        "annotator2": {A: 417, B: 466, TIE: 116},
        "annotator3": {A: 411, B: 475, TIE: 113},
    }


# ---------------------------------------------------------------------- docs tables


def _pct(k: int, n: int) -> str:
    return f"{100 * k / n:.1f}"


def llmbar_table(ds) -> str:
    """Markdown table of the LLMBar figures (as in docs/importers.md)."""
    counts = llmbar_counts(ds)
    lines = [
        "| evaluator | set | items | acc AB | acc BA | both correct | order-consistent |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for (judge, group), (n, ab, ba, both, cons) in sorted(counts.items()):
        lines.append(
            f"| {judge} | {group} | {n} | {_pct(ab, n)} | {_pct(ba, n)} | {_pct(both, n)}"
            f" | {_pct(cons, n)} |"
        )
    return "\n".join(lines)


def position_bias_table(ds) -> str:
    """Markdown table of per-run order consistency in the position-bias study."""
    counts = position_bias_consistency(ds)
    runs = ds.run.values.tolist()
    lines = [
        "| judge | " + " | ".join(f"run {r + 1}" for r in runs) + " | mean | invalid |",
        "|---|" + "---:|" * (len(runs) + 2),
    ]
    invalid = (ds.verdict.values == INVALID).sum(axis=(1, 2, 3))
    for j, judge in enumerate(ds.judge.values.tolist()):
        cells = [counts[(judge, r)] for r in runs]
        mean = sum(c for _, c in cells) / sum(n for n, _ in cells)
        lines.append(
            f"| {judge} | "
            + " | ".join(_pct(c, n) for n, c in cells)
            + f" | {100 * mean:.1f} | {int(invalid[j])} |"
        )
    return "\n".join(lines)


def _docs_block(name: str) -> str:
    text = DOCS.read_text(encoding="utf-8")
    m = re.search(rf"<!-- {name}:start -->\n(.*?)\n<!-- {name}:end -->", text, re.S)
    assert m, f"docs/importers.md lacks the {name} block"
    return m.group(1).strip()


@pytest.mark.parametrize(
    ("block", "fixture", "table"),
    [
        ("llmbar-figures", "llmbar", llmbar_table),
        ("position-bias-figures", "position_bias", position_bias_table),
    ],
)
def test_docs_tables_match_the_data(block, fixture, table, request):
    ds, _ = request.getfixturevalue(fixture)
    assert _docs_block(block) == table(ds)
