"""The importer kit: what an importer of a new log format is built from.

An importer is an object with ``name``, ``description``, ``can_read(path) ->
Detection`` and ``read(path, **options) -> Parsed`` (the :class:`Importer`
protocol); an ``options`` attribute names the keyword options ``read`` takes. Give
it to :func:`~judgestats.io.read_logs` as ``importers=[...]``, or publish it in the
``judgestats.importers`` entry-point group of your package, and every file it
accepts is read with it.

For a format of JSON records the kit does most of the work: :func:`parse_records`
walks the records (with their lines), and a ``parse(collector, record, line)`` of
yours adds judgments, labels and item metadata to the :class:`Collector`. A record
whose fields are wrong raises :class:`RecordError` (the ``get_*`` helpers raise it
for you): the record is then rejected whole, with its file, line and reason, and
the accounting still adds up. Any other exception is a bug of the importer and
stops the import with a traceback.

Formats that are tables underneath are read column by column: :func:`read_delimited`
gives a frame of categoricals, and :func:`codes_of` (:func:`row_codes` to index by),
:func:`relabel`, :func:`flat_key` and :func:`duplicated` work on their integer codes, so that the
work is done once per distinct value, never once per row in Python (:func:`integer_codes`
codes a column of integers by counting).

Examples
--------
A format of JSON Lines ``{"judge": ..., "item": ..., "winner": "A" | "B" | "tie"}``:

>>> from judgestats.io import kit
>>> from judgestats.schema import Verdict
>>> WINNERS = {"a": Verdict.A, "b": Verdict.B, "tie": Verdict.TIE}
>>> def parse(col, rec, line):
...     item = kit.item_id("mybench", kit.get_key(rec, "item"))
...     verdict = kit.code_of(rec.get("winner"), WINNERS, Verdict.INVALID)
...     col.judgment(kit.get_str(rec, "judge"), item, "AB", 0, verdict, line)
...     col.item(item, benchmark="mybench")
>>> def from_mine(path):
...     return kit.parse_records(path, "mine", parse)
>>> MINE = kit.SourceImporter(
...     "mine",
...     "my JSON Lines of judge, item, winner",
...     from_mine,
...     kit.record_detector("my judgments", ["judge", "item", "winner"]),
... )
>>> import judgestats as js
>>> ds, report = js.read_logs("mine.jsonl", importers=[MINE])  # doctest: +SKIP
"""

from judgestats.accounting import Reject
from judgestats.io._assemble import Parsed, item_id
from judgestats.io._codes import (
    arrow_text,
    codes_of,
    duplicated,
    factorize,
    first_rows,
    flat_key,
    integer_codes,
    relabel,
    row_codes,
    text_index,
    values_of,
)
from judgestats.io._records import (
    JSON_SUFFIXES,
    Collector,
    RecordError,
    SourceImporter,
    canonical_pair,
    check_label_kind,
    code_of,
    companion,
    detect_record,
    get_dict,
    get_key,
    get_list,
    get_number,
    get_str,
    has_fields,
    option_names,
    parse_records,
    record_detector,
    swap_ab,
    text_length,
    trial_slot,
)
from judgestats.io._text import (
    first_record,
    iter_csv,
    iter_json_array,
    iter_jsonl,
    iter_records,
    load_json,
    read_bytes,
    read_delimited,
    sniff_text,
)
from judgestats.io.registry import Detection, Importer
from judgestats.io.verdicts import VerdictExtractor, choose_pattern, extractor_for

__all__ = [
    "JSON_SUFFIXES",
    "Collector",
    "Detection",
    "Importer",
    "Parsed",
    "RecordError",
    "Reject",
    "SourceImporter",
    "VerdictExtractor",
    "arrow_text",
    "canonical_pair",
    "check_label_kind",
    "choose_pattern",
    "code_of",
    "codes_of",
    "companion",
    "detect_record",
    "duplicated",
    "extractor_for",
    "factorize",
    "first_record",
    "first_rows",
    "flat_key",
    "get_dict",
    "get_key",
    "get_list",
    "get_number",
    "get_str",
    "has_fields",
    "integer_codes",
    "item_id",
    "iter_csv",
    "iter_json_array",
    "iter_jsonl",
    "iter_records",
    "load_json",
    "option_names",
    "parse_records",
    "read_bytes",
    "read_delimited",
    "record_detector",
    "relabel",
    "row_codes",
    "sniff_text",
    "swap_ab",
    "text_index",
    "text_length",
    "trial_slot",
    "values_of",
]
