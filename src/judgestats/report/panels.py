"""Figures of panels laid out with fixed margins, measured once.

Matplotlib's constrained layout measures every tick label of every panel several
times per figure: on a report of 65 judges and 8 benchmarks it took a third of the
plotting time. The report's figures have a known structure (judge names down the
left, titles on top, a legend at the bottom), so their margins are computed here from
the widths of the longest labels, measured once with the renderer's font metrics.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import RendererAgg
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties

__all__ = ["Margins", "panel_figure", "text_inches"]

#: Points per inch.
_PT = 72.0


def text_inches(labels: Iterable[str], fontsize: float) -> float:
    """Return the width in inches of the widest of ``labels`` (lines measured apart).

    Parameters
    ----------
    labels : iterable of str
    fontsize : float
        In points, in the current ``font.family``.

    Returns
    -------
    float
        0 when there is no label.
    """
    renderer = RendererAgg(1, 1, _PT)  # at 72 dpi a pixel is a point
    font = FontProperties(size=fontsize)
    lines = {line for label in labels for line in str(label).split("\n") if line}
    widths = [renderer.get_text_width_height_descent(s, font, ismath=False)[0] for s in lines]
    return max(widths, default=0.0) / _PT


@dataclass(frozen=True)
class Margins:
    """Space around and between panels, in inches.

    Attributes
    ----------
    left, right, top, bottom : float
        Around the grid of panels (tick labels, titles, the legend).
    wspace, hspace : float
        Between two panels of a row, and between two rows.
    """

    left: float
    right: float
    top: float
    bottom: float
    wspace: float = 0.4  # room for the last tick label of one panel and the first of the next
    hspace: float = 0.9


def panel_figure(
    n_panels: int,
    cols: int,
    widths: Sequence[float],
    height: float,
    margins: Margins,
) -> tuple[Figure, list[Axes]]:
    """Return a figure of ``n_panels`` panels, ``cols`` to a row, with fixed margins.

    Parameters
    ----------
    n_panels : int
    cols : int
        Panels per row (at most ``n_panels``).
    widths : sequence of float
        Width of each column's panels, in inches (``cols`` of them).
    height : float
        Height of one panel, in inches.
    margins : Margins

    Returns
    -------
    fig : matplotlib.figure.Figure
        Without a layout engine.
    axes : list of Axes
        The panels in reading order; the grid's unused cells are hidden.
    """
    rows = -(-n_panels // cols)
    m = margins
    width = m.left + sum(widths) + (cols - 1) * m.wspace + m.right
    tall = m.top + rows * height + (rows - 1) * m.hspace + m.bottom
    fig = Figure(figsize=(width, tall))
    grid = fig.subplots(
        rows,
        cols,
        squeeze=False,
        gridspec_kw={
            "left": m.left / width,
            "right": 1 - m.right / width,
            "top": 1 - m.top / tall,
            "bottom": m.bottom / tall,
            "wspace": m.wspace / (sum(widths) / cols),  # a fraction of the mean width
            "hspace": m.hspace / height,
            "width_ratios": list(widths),
        },
    )
    axes = list(grid.ravel())
    for ax in axes[n_panels:]:
        ax.set_visible(False)
    return fig, axes[:n_panels]
