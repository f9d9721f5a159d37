"""Built-in importers: :data:`BUILTINS`, one per module.

One module per source format, each with a ``from_<source>()`` function and its
importer ``IMPORTER`` under the format's name. Importing them registers nothing:
:func:`judgestats.io.importers` builds the registry from :data:`BUILTINS` and the
entry points each time it is asked.

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

from importlib import import_module

#: The built-in format modules, in the order detection asks them.
_MODULES: tuple[str, ...] = (
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
)

#: The built-in importers, in the order detection asks them.
BUILTINS = tuple(import_module(f"{__name__}.{name}").IMPORTER for name in _MODULES)

__all__ = ["BUILTINS"]
