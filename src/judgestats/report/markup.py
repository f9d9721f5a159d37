"""HTML written by pandas, made compact for a report that holds thousands of cells."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

__all__ = ["compact", "grid_html"]

_BETWEEN_TAGS = re.compile(r">\s+<")


def compact(markup: str) -> str:
    r"""Drop the indentation pandas puts between tags (a third of a large table's bytes).

    Whitespace between two tags of a table is not shown; text inside cells is kept.

    Examples
    --------
    >>> compact("<tr>\n  <td>a b</td>\n</tr>")
    '<tr><td>a b</td></tr>'
    """
    return _BETWEEN_TAGS.sub("><", markup)


def _float(value: float) -> str:
    """Three significant digits; nothing for a non-finite value."""
    return f"{value:.3g}" if np.isfinite(value) else ""


def grid_html(frame: pd.DataFrame) -> str:
    """Render a frame as a plain ``grid`` table (:meth:`pandas.DataFrame.to_html`)."""
    return compact(
        frame.to_html(
            index=False, classes="grid", border=0, na_rep="", float_format=_float, escape=True
        )
    )
