"""Write real Inspect AI logs with inspect_ai's ``eval()`` and its mock model provider.

Three judges (``mockllm/judge-1..3``) judge two benchmarks for three epochs, every
item in both presentation orders:

* ``MT-Bench``: the item id, the order (``AB``/``BA``) and the human label (item
  frame, ties included) in the sample metadata;
* ``JudgeBench``: the item id as ``pair_id``, a ``swapped`` flag, and the correct
  response as the target, in the presented frame.

Judges answer in the presented frame: judges 1 and 2 with ``[[A]]``/``[[B]]``/``[[C]]``,
judge 3 with ``Choice: A``; a few answers hold no verdict. Prompts show the verdict
markers, so a reader that looked at the prompt would find wrong verdicts. Token
usage is set on every output, so no tokenizer is needed and nothing goes to the
network. Every log is written as ``.eval`` and converted to ``.json`` with
inspect_ai's own writer.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

JUDGES = ("mockllm/judge-1", "mockllm/judge-2", "mockllm/judge-3")
BENCHMARKS = ("MT-Bench", "JudgeBench")
EPOCHS = 3
ITEMS = 8
_HUMAN = ("A", "B", "tie", "A", "B", "A", "tie", "B")


def _pick(*parts: object) -> int:
    return int(hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest(), 16)


def _outputs(judge: str):
    from inspect_ai.model import ModelOutput, ModelUsage

    calls: dict[str, int] = {}

    def generate(messages, tools, tool_choice, config):
        prompt = messages[-1].text
        k = calls.get(prompt, 0)
        calls[prompt] = k + 1
        r = _pick(judge, prompt, k) % 10
        slot = "A" if r < 5 else "B" if r < 8 else "tie" if r < 9 else None
        if slot is None:
            text = "I cannot decide between them."
        elif judge.endswith("3"):
            text = f"Both are fine, but one is better.\nChoice: {slot}"
        else:
            text = "Reasoning about both.\n" + {"A": "[[A]]", "B": "[[B]]", "tie": "[[C]]"}[slot]
        out = ModelOutput.from_content(model=judge, content=text)
        out.usage = ModelUsage(input_tokens=20, output_tokens=8, total_tokens=28)
        return out

    return generate


def _dataset(benchmark: str):
    from inspect_ai.dataset import MemoryDataset, Sample

    samples = []
    for i in range(ITEMS):
        for order in ("AB", "BA"):
            prompt = (
                f"[{benchmark} {i} {order}] Which response is better? Answer [[A]], [[B]]"
                " or [[C]] (or 'Choice: A')."
            )
            if benchmark == "MT-Bench":
                meta = {"item_id": f"q{i}", "order": order, "human": _HUMAN[i]}
                target = ""
            else:
                correct = "A" if i % 3 else "B"  # item frame: binary, no ties
                shown = correct if order == "AB" else {"A": "B", "B": "A"}[correct]
                meta = {"pair_id": f"p{i}", "swapped": order == "BA"}
                target = shown
            samples.append(Sample(input=prompt, target=target, id=f"{i}-{order}", metadata=meta))
    return MemoryDataset(samples, name=benchmark)


def _task():
    from inspect_ai import Task, task
    from inspect_ai.solver import generate

    @task
    def pairwise(benchmark: str) -> Task:
        return Task(dataset=_dataset(benchmark), solver=generate(), epochs=EPOCHS)

    return pairwise


def write_logs(root: Path) -> tuple[Path, Path]:
    """Write the logs under ``root``; return the ``.eval`` and the ``.json`` folders."""
    from inspect_ai import eval
    from inspect_ai.log import write_eval_log
    from inspect_ai.model import get_model

    eval_dir, json_dir = root / "eval", root / "json"
    json_dir.mkdir(parents=True)
    pairwise = _task()
    for judge in JUDGES:
        for benchmark in BENCHMARKS:
            model = get_model(judge, custom_outputs=_outputs(judge))
            (log,) = eval(
                pairwise(benchmark=benchmark),
                model=model,
                log_dir=str(eval_dir),
                log_format="eval",
                display="none",
            )
            assert log.status == "success", log.error
            write_eval_log(log, str(json_dir / (Path(log.location).stem + ".json")), "json")
    return eval_dir, json_dir
