"""summary.json's layout: a line per key and per record, the same document as json.dumps."""

from __future__ import annotations

import json

from judgestats.report.tables import json_text


def test_json_text_reads_back_as_the_document():
    doc = {
        "model": "exact",
        "config": {"prob": 0.95, "nested": [1, 2]},
        "warnings": [],
        "records": [{"judge": 'a "quoted"\nname', "value": None}, {"judge": "b", "value": 0.5}],
        "plan": {"cases": [{"x": 1}]},
    }
    text = json_text(doc)
    assert json.loads(text) == doc
    lines = text.splitlines()
    assert len(lines) == 2 + len(doc) + 1 + len(doc["records"])  # braces, keys, "]", records
    assert lines[5].strip().startswith('{"judge": "a')
    assert lines[6].strip().startswith('{"judge": "b"')
