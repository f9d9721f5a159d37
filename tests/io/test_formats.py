"""Each importer on small fixtures (tests/io/data) that follow its record layout exactly."""

from __future__ import annotations

import math

import numpy as np
import pytest

import judgestats as js
from judgestats.io import detect
from judgestats.schema import Verdict, validate

M, A, B, TIE, INV = (int(v) for v in Verdict)


def read(path, **options):
    ds, report = js.read_logs(path, **options)
    assert validate(ds) == []
    assert report.balanced
    return ds, report


def verdicts(ds, judge, item, run=0):
    """{order: code} of one judge and item."""
    v = ds.verdict.sel(judge=judge, item=item, run=run)
    return dict(zip(ds.order.values.tolist(), v.values.tolist(), strict=True))


# ------------------------------------------------------------------------- JudgeBench


def test_judgebench_outputs_and_labels(fixtures):
    ds, report = read(fixtures / "judgebench")
    assert {f.format for f in report.files} == {"judgebench"}
    assert (report.read, report.imported, report.invalid) == (17, 17, 2)
    assert ds.judge.values.tolist() == ["gpt-4o", "Skywork-Reward-Gemma-2-27B"]
    assert ds.order.values.tolist() == ["AB", "BA"]
    # Trial 2 is in the presented frame: "B>A" there means response_A won.
    assert verdicts(ds, "gpt-4o", "JudgeBench/p1") == {"AB": A, "BA": A}
    assert verdicts(ds, "gpt-4o", "JudgeBench/p2") == {"AB": A, "BA": B}
    assert verdicts(ds, "gpt-4o", "JudgeBench/p3") == {"AB": TIE, "BA": INV}
    assert verdicts(ds, "gpt-4o", "JudgeBench/p4") == {"AB": B, "BA": INV}
    # p5 has a gold label only: judged by nobody, kept with all verdicts missing.
    assert verdicts(ds, "gpt-4o", "JudgeBench/p5") == {"AB": M, "BA": M}
    assert ds.human.sel(rater="gold").values.tolist() == [A, B, A, B, A]
    assert set(ds.label_kind.values.tolist()) == {"correctness"}
    assert ds.category.sel(item="JudgeBench/p2").item() == "livebench-reasoning"
    assert ds.model_a.sel(item="JudgeBench/p1").item() == "gpt-4o-2024-05-13"
    assert ds.length_a.sel(item="JudgeBench/p1").item() == len("Answer A to p1")
    # Reward-model scores, stored in the item frame.
    rm = ds.sel(judge="Skywork-Reward-Gemma-2-27B", item="JudgeBench/p1", run=0)
    assert rm.score_a.values.tolist() == [0.9, 0.8]
    assert rm.score_b.values.tolist() == [0.1, 0.2]
    assert np.isnan(ds.score_a.sel(judge="gpt-4o").values).all()
    # The labels on judgment records are metadata: the label file's are the ones counted.
    by_file = {f.file.rsplit("/", 2)[-2]: f.imported for f in report.files}
    assert by_file["data"] == 5


# -------------------------------------------------------------------------- FastChat


def test_fastchat_model_and_human_judgments(fixtures):
    ds, report = read(fixtures / "fastchat")
    assert (report.read, report.imported, report.invalid) == (10, 10, 1)
    item1 = "MTBench/81/alpaca-13b/vicuna-13b-v1.3/turn1"
    item2 = "MTBench/81/alpaca-13b/vicuna-13b-v1.3/turn2"
    item3 = "MTBench/82/claude-v1/gpt-4/turn1"
    assert ds.item.values.tolist() == [item1, item2, item3]
    assert ds.judge.values.tolist() == ["gpt-4"]
    # Record 1 lists (vicuna, alpaca): flipped. g1 showed vicuna (the item's B) first.
    assert verdicts(ds, "gpt-4", item1) == {"AB": B, "BA": B}
    assert verdicts(ds, "gpt-4", item2) == {"AB": TIE, "BA": INV}
    # Record 3 lists (gpt-4, claude-v1): g1 = BA, model_2 (claude, A) won; g2 = AB.
    assert verdicts(ds, "gpt-4", item3) == {"AB": B, "BA": A}
    assert ds.rater.values.tolist() == ["expert_0", "author_1", "expert_3"]
    human = ds.human.sel(item=item1)
    assert human.sel(rater="expert_0").item() == B  # model_a = vicuna = item's B
    assert human.sel(rater="author_1").item() == TIE  # tie (bothbad)
    assert ds.human.sel(item=item2, rater="expert_0").item() == B
    assert ds.human.sel(item=item3, rater="expert_3").item() == TIE
    assert ds.label_kind.values.tolist() == ["preference"] * 3
    assert ds.model_a.values.tolist() == ["alpaca-13b", "alpaca-13b", "claude-v1"]


# ------------------------------------------------------------------------ AlpacaEval


def test_alpaca_eval(fixtures):
    ds, report = read(fixtures / "alpaca_eval")
    assert (report.read, report.imported, report.invalid) == (6, 6, 1)
    assert ds.order.values.tolist() == ["unknown"]
    judges = ds.judge.values.tolist()
    assert judges == [
        "alpaca_eval_gpt4_turbo_fn",
        "alpaca_eval_gpt4",
        "weighted_alpaca_eval_gpt4_turbo",
    ]
    assert ds.sizes["item"] == 4  # "Say hi." and "Count to three." each annotated twice
    v = ds.verdict.sel(order="unknown", run=0)
    items = ds.item.values.tolist()
    assert v.sel(judge="alpaca_eval_gpt4_turbo_fn").values.tolist() == [B, A, TIE, INV]
    assert v.sel(judge="alpaca_eval_gpt4", item=items[2]).item() == TIE  # preference 0
    assert v.sel(judge="weighted_alpaca_eval_gpt4_turbo", item=items[3]).item() == B  # 1.73
    pref = ds.preference.sel(judge="weighted_alpaca_eval_gpt4_turbo", item=items[3])
    assert pref.values.ravel().tolist() == [1.73]
    assert ds.model_b.values.tolist() == ["my-model"] * 4
    assert ds.length_a.values.tolist()[:2] == [len("Eat well."), len("Paris.")]


# ------------------------------------------------------------------------ arena-hard


def test_arena_hard(fixtures):
    ds, report = read(fixtures / "arena_hard", baseline="gpt-4-0314")
    assert (report.read, report.imported, report.invalid) == (7, 7, 1)
    judge = "gpt-4-1106-preview"
    # Game 1 shows the baseline (A) first; game 2 swaps, so its "A" is the model (B).
    assert verdicts(ds, judge, "arena-hard/q1/my-model") == {"AB": B, "BA": B}
    assert verdicts(ds, judge, "arena-hard/q2/my-model") == {"AB": TIE, "BA": INV}
    assert verdicts(ds, judge, "arena-hard/q3/my-model") == {"AB": B, "BA": A}
    # A record with one game: the swapped order is missing, not dropped.
    assert verdicts(ds, judge, "arena-hard/q4/my-model") == {"AB": A, "BA": M}
    strength = ds.strength.sel(judge=judge, run=0)
    assert strength.values.tolist() == [[1, 2], [0, -1], [2, 1], [1, -1]]
    assert ds.model_a.values.tolist() == ["gpt-4-0314"] * 4
    assert ds.category.sel(item="arena-hard/q3/my-model").item() == "hard_prompt"


# ---------------------------------------------------------------------------- scores


@pytest.mark.parametrize(("tolerance", "i2"), [(0.0, B), (0.01, TIE)])
def test_scores(fixtures, tolerance, i2):
    ds, report = read(fixtures / "scores", tie_tolerance=tolerance)
    assert (report.read, report.imported, report.rejected, report.invalid) == (6, 5, 1, 1)
    assert "score_a 'high' is not a number" in report.rejects[0].reason
    assert report.rejects[0].line == 7
    assert verdicts(ds, "rm-x", "RewardBench/i1") == {"AB": A, "BA": A}
    assert verdicts(ds, "rm-x", "RewardBench/i2") == {"AB": i2, "BA": B}
    assert verdicts(ds, "rm-x", "RewardBench/i3") == {"AB": INV, "BA": M}
    assert ds.score_a.sel(judge="rm-x", item="RewardBench/i1", run=0).values.tolist() == [1.5, 1.2]
    assert ds.human.sel(rater="human").values.tolist() == [A, B, A]


def test_scores_options_are_checked(fixtures):
    with pytest.raises(ValueError, match="tie_tolerance=-1"):
        js.read_logs(fixtures / "scores", tie_tolerance=-1)


# ---------------------------------------------------------------------------- LLMBar


def test_llmbar_toy_sets(fixtures):
    ds, report = read(fixtures / "llmbar_toy")
    assert (report.read, report.imported, report.invalid) == (21, 21, 1)
    assert ds.judge.values.tolist() == ["Judge/Swap", "Judge/Vanilla"]
    assert set(ds.benchmark.values.tolist()) == {"LLMBar/Toy", "Processed/Pref"}
    toy = "LLMBar/Toy/"
    # The result file lists the records in reverse: matched by content, not position.
    assert verdicts(ds, "Judge/Swap", toy + "0") == {"AB": A, "BA": A}
    # Record 1 had two rounds: the last one is the verdict, the first is kept.
    assert verdicts(ds, "Judge/Swap", toy + "1") == {"AB": B, "BA": B}
    first = ds.first_round.sel(judge="Judge/Swap", item=toy + "1", run=0).values.tolist()
    assert first == [A, B]
    assert ds.rounds.sel(judge="Judge/Swap", item=toy + "1", run=0).values.tolist() == [2, 2]
    # Record 2: auxiliary generations passed over; a null winner is invalid.
    assert verdicts(ds, "Judge/Swap", toy + "2") == {"AB": B, "BA": INV}
    assert ds.human.sel(item=toy + "1", rater="gold").item() == B
    assert ds.label_kind.sel(item=toy + "1").item() == "correctness"
    pref = "Processed/Pref/0"
    assert ds.label_kind.sel(item=pref).item() == "preference"
    assert ds.human.sel(item=pref, rater="human").item() == B
    rating = ds.sel(judge="Judge/Vanilla", item=pref, run=0)
    assert rating.score_a.values.tolist() == [7.0, 7.0]
    assert rating.score_b.values.tolist() == [8.0, 8.0]
    counted = {f.file.rsplit("/", 1)[-1]: f.imported for f in report.files}
    assert counted == {"dataset.json": 3, "result.json": 6}  # last of each name: Pref


def test_llmbar_result_alone_keeps_its_labels_as_metadata(fixtures):
    path = fixtures / "llmbar_toy/Dataset/LLMBar/Toy/evaluators/Judge/Swap/result.json"
    ds, report = read(path)
    assert report.imported == 8  # judgments only: the labels are not counted
    assert (ds.human.sel(rater="gold").values != M).all()


def test_llmbar_result_without_dataset(tmp_path, fixtures):
    src = fixtures / "llmbar_toy/Dataset/LLMBar/Toy/evaluators/Judge/Swap/result.json"
    dst = tmp_path / "Dataset/LLMBar/Lone/evaluators/Judge/Swap/result.json"
    dst.parent.mkdir(parents=True)
    dst.write_bytes(src.read_bytes())
    ds, report = read(dst)
    assert ds.item.values.tolist()[0] == "LLMBar/Lone/0"
    assert "no " in report.notes[0].reason and "dataset.json" in report.notes[0].reason


# ------------------------------------------------------------- position bias, PandaLM


def test_position_bias_toy(fixtures):
    ds, report = read(fixtures / "position_bias")
    assert (report.read, report.imported, report.invalid) == (7, 7, 2)
    companions = [n for n in report.notes if "passed over" in n.reason]
    assert [n.file.rsplit("/", 1)[-1] for n in companions] == ["length_stats.csv"]
    # No pattern named: the one that finds most verdicts in each file, said per file.
    chosen = [n for n in report.notes if n not in companions]
    assert [n.file.rsplit("/", 1)[-1] for n in chosen] == ["record_judge-x_3.tsv"] * 2
    assert all(n.reason.startswith("verdict pattern 'mt-bench' found") for n in chosen)
    assert ds.judge.values.tolist() == ["judge-x"]
    assert ds.run.values.tolist() == [0, 1]
    item = "MTBench/1/m-base/m-other"
    assert verdicts(ds, "judge-x", item, run=0) == {"AB": A, "BA": A}
    assert verdicts(ds, "judge-x", item, run=1) == {"AB": INV, "BA": A}
    assert verdicts(ds, "judge-x", "MTBench/2/m-base/m-other", run=0) == {"AB": TIE, "BA": INV}
    # Run 2 has one order of question 2 only: the other is missing.
    assert verdicts(ds, "judge-x", "MTBench/2/m-base/m-other", run=1) == {"AB": TIE, "BA": M}
    match = ds["match"].sel(judge="judge-x", item=item)
    assert match.sel(order="AB", run=1).item() == "[[B]] | [[A]]"
    assert ds.length_a.sel(item=item).item() == len("base turn one") + len("base turn two")
    assert ds.length_b.sel(item=item).item() == len("other one") + len("other two, much longer")
    # The rule for several matches is an option.
    ds_first, _ = read(fixtures / "position_bias", multiple_matches="first")
    assert verdicts(ds_first, "judge-x", item, run=1) == {"AB": B, "BA": A}


def test_position_bias_user_pattern(fixtures):
    ds, report = read(
        fixtures / "position_bias/data_MTBench_toy/Repetition1-toy",
        verdict_pattern=r"Assistant (A|B) is better",
    )
    item = "MTBench/2/m-base/m-other"
    # Row 4 showed m-other first: "Assistant A" is the item's B.
    assert verdicts(ds, "judge-x", item) == {"AB": INV, "BA": B}
    assert report.invalid == 3


def test_pandalm_toy(fixtures):
    ds, report = read(fixtures / "pandalm")
    assert {f.file.rsplit("/", 1)[-1]: (f.read, f.imported) for f in report.files} == {
        "judge-x-testset-v1.json": (3, 3),
        "pandalm-7b-testset-v1.json": (2, 2),
        "testset-v1.json": (9, 9),
    }
    assert ds.judge.values.tolist() == ["judge-x", "pandalm-7b"]
    v = ds.verdict.sel(order="AB", run=0)
    assert v.sel(judge="judge-x").values.tolist() == [A, TIE, INV]
    assert v.sel(judge="pandalm-7b").values.tolist() == [B, TIE, M]
    assert ds.human.values.tolist() == [[A, A, B], [B, B, B], [TIE, A, TIE]]
    assert ds.category.values.tolist() == ["Grammarly", "IMDB", "Gmail"]
    assert ds.model_a.values.tolist() == ["bloom-7b"] * 3


def test_pandalm_judge_file_alone_reads_its_testset(fixtures):
    ds, report = read(fixtures / "pandalm/judge-x-testset-v1.json")
    assert report.imported == 3  # the test set's labels are metadata here
    assert ds.rater.values.tolist() == ["annotator1", "annotator2", "annotator3"]
    assert ds.category.values.tolist() == ["Grammarly", "IMDB", "Gmail"]


# ------------------------------------------------------------------- detection


@pytest.mark.parametrize(
    ("relative", "name"),
    [
        ("judgebench/data/dataset=judgebench,response_model=gpt-4o-2024-05-13.jsonl", "judgebench"),
        ("fastchat/gpt-4_pair.jsonl", "fastchat"),
        ("fastchat/human_judgments.jsonl", "fastchat"),
        ("alpaca_eval/annotations.json", "alpaca_eval"),
        ("arena_hard/my-model.jsonl", "arena_hard"),
        ("scores/rm_scores.csv", "scores"),
        ("llmbar_toy/Dataset/LLMBar/Toy/dataset.json", "llmbar"),
        ("llmbar_toy/Dataset/LLMBar/Toy/evaluators/Judge/Swap/result.json", "llmbar"),
        ("position_bias/data_MTBench_toy/Repetition1-toy/record_judge-x_3.tsv", "position_bias"),
        ("pandalm/testset-v1.json", "pandalm"),
        ("pandalm/judge-x-testset-v1.json", "pandalm"),
        ("table/judgments.csv", "table"),
    ],
)
def test_each_fixture_is_detected_as_its_format(fixtures, relative, name):
    importer, reasons = detect(fixtures / relative)
    assert importer is not None and importer.name == name, reasons
    # Exactly one format-specific importer accepts it (the generic table may too).
    accepting = [n for n, why in reasons.items() if why.startswith("accepts")]
    assert [n for n in accepting if n != "table"] == ([name] if name != "table" else [])


def test_mixed_folder_reads_every_format(fixtures):
    ds, report = read(fixtures, baseline="gpt-4-0314")
    formats = {f.format for f in report.files}
    # Inspect logs are written by inspect_ai during the tests (test_inspect.py), not stored.
    assert formats == set(js.io.importers()) - {"inspect"}
    assert report.read == report.imported + report.duplicates + report.rejected
    text = report.format()
    assert "adds up" in text and "judgebench" in text and "note" in text
    assert math.isclose(ds.sizes["judge"], len(set(ds.judge.values.tolist())))


def test_generic_table(fixtures):
    ds, report = read(fixtures / "table")
    assert (report.read, report.imported, report.invalid) == (5, 5, 1)
    assert verdicts(ds, "j1", "demo/q1") == {"AB": A, "BA": B}
    assert verdicts(ds, "j1", "demo/q2") == {"AB": TIE, "BA": INV}
    assert verdicts(ds, "j2", "demo/q2") == {"AB": M, "BA": M}  # judged by j1 only
    assert ds.human.sel(rater="human").values.tolist() == [A, B]
