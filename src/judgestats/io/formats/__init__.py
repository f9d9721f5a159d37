"""Built-in importers; importing this package registers them.

One module per source format, each with a ``from_<source>()`` function and an
importer registered under the format's name:

=================  ==============================================================
name               source
=================  ==============================================================
``llmbar``         LLMBar ``dataset.json`` and ``evaluators/*/*/result.json``
``position_bias``  position-bias study TSVs (``record_<judge>_<n>.tsv``)
``pandalm``        PandaLM test set and judge result files
``judgebench``     JudgeBench JSONL (labels, or judgments in two trials)
``fastchat``       FastChat MT-Bench model and human pairwise judgments
``alpaca_eval``    AlpacaEval annotations
``inspect``        Inspect AI evaluation logs (``.eval``, ``.json``)
``arena_hard``     arena-hard-auto judgment JSONL
``scores``         reward-model score tables (``score_a``/``score_b``)
``table``          generic long tables, one row per judgment
=================  ==============================================================
"""

from judgestats.io.formats import (
    alpaca_eval,
    arena_hard,
    fastchat,
    inspect,
    judgebench,
    llmbar,
    pandalm,
    position_bias,
    scores,
    table,
)

__all__ = [
    "alpaca_eval",
    "arena_hard",
    "fastchat",
    "inspect",
    "judgebench",
    "llmbar",
    "pandalm",
    "position_bias",
    "scores",
    "table",
]
