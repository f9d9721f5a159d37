"""Read HTML tables back into rows of cells, spans expanded (for checking rendered tables)."""

from __future__ import annotations

from html.parser import HTMLParser


class _Tables(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[dict] = []
        self._cell: dict | None = None
        self._section = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.tables.append({"head": [], "body": []})
        elif tag in ("thead", "tbody"):
            self._section = "head" if tag == "thead" else "body"
        elif tag == "tr" and self.tables:
            self.tables[-1][self._section].append([])
        elif tag in ("td", "th") and self.tables:
            self._cell = {
                "tag": tag,
                "text": "",
                "title": a.get("title", ""),
                "rowspan": int(a.get("rowspan", 1)),
                "classes": (a.get("class") or "").split(),
                "badges": [],
            }
            self.tables[-1][self._section][-1].append(self._cell)
        elif tag == "span" and self._cell is not None and "v" in (a.get("class") or "").split():
            self._cell["badges"].append(next(c for c in a["class"].split() if c != "v"))
        elif tag == "br" and self._cell is not None:
            self._cell["text"] += " "

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell["text"] += data


def read_tables(page: str) -> list[dict]:
    """Return each table's head and body rows; rowspans and joined cells filled in.

    A cell with ``rowspan=n`` is repeated in the ``n - 1`` rows below it, as is a cell
    marked ``js-cont`` (a per-judge cell joined to the one above): every row then has
    every column.
    """
    parser = _Tables()
    parser.feed(page)
    for table in parser.tables:
        pending: dict[int, tuple[dict, int]] = {}
        filled = []
        for row in table["body"]:
            out, cells = [], iter(row)
            col = 0
            while True:
                if col in pending:
                    cell, left = pending.pop(col)
                    out.append(cell)
                    if left > 1:
                        pending[col] = (cell, left - 1)
                    col += 1
                    continue
                cell = next(cells, None)
                if cell is None:
                    break
                if "js-cont" in cell["classes"] and filled:
                    cell = filled[-1][col]
                elif cell["rowspan"] > 1:
                    pending[col] = (cell, cell["rowspan"] - 1)
                out.append(cell)
                col += 1
            filled.append(out)
        table["body"] = filled
    return parser.tables
