"""The book's one plot style.

Importing :mod:`ibcore.book` applies it (``_use_house_style``). The style

* draws on an opaque white figure, so that plots stay readable in the
  theme's dark mode (the theme shows images on their own background);
* cycles through the Okabe--Ito palette, which is safe for the common forms
  of colour blindness, and varies the line style too, so curves differ in
  more than colour (dotted lines never come from the cycle: they mark
  theoretical predictions and references);
* renders inline figures at double resolution ("retina" PNG), crisp on
  high-density screens without the weight of an SVG of many points;
* letters every figure legibly where the site shows it (below).

Legible lettering. A figure is shown at its natural width, 100 CSS pixels per inch, or
narrower when the page's column is narrower (``COLUMN_PX``: at least 700 px of figure
on a 1280 px screen, 322 px on a 390 px phone). A letter of ``s`` points is then
``s / 72 * 100 * min(1, column / width)`` CSS pixels, which must reach
``MIN_LETTERING_PX``: 9 px on the laptop, 7 px on the phone. Every text of the style
is 11 points or more, and a figure is at most ``WIDE`` (6.8 in) wide, so that
any figure of the style reads at both widths: 15 px on the laptop, and on the phone 7.6 px
for one panel of ``WIDTH`` (6.4 in), 7.1 px for two panels side by side. Hence: at
most two panels in a row, more are stacked; no figure wider than ``WIDE``; and no
``fontsize`` below the style's in a chapter. (``ibcore.book.figure_report`` measures
every figure of the book, ``tests/test_figures.py`` checks them, and
``tests/site/test_figure_widths.py`` measures the column in the browser.)

:func:`~ibcore.book.legend_outside` puts a legend where it cannot cover data, beside the axes or
under the figure (the figure report also checks every figure for legends over data).
"""
from __future__ import annotations

import matplotlib as mpl
import numpy as np
from cycler import cycler

__all__ = ["PALETTE", "COLORS", "WIDTH", "WIDE", "PANELS_IN_A_ROW", "COLUMN_PX", "MIN_LETTERING_PX",
           "slope_triangle", "legend_outside"]

#: Width in CSS pixels at which the site shows a figure at most, by screen width: the content
#: column less the cell's padding, and less the theme's white card in the dark theme (8 px a
#: side around an image, and again around an explorer's frames): 720 and 342 px in the light
#: theme, 700 and 322 px for a frame in the dark one (``tests/site/test_figure_widths.py``
#: measures them).
COLUMN_PX = {1280: 700, 390: 322}
#: The smallest lettering a figure may show, in CSS pixels, by screen width (CONTRIBUTING's
#: "Figures" says why 7 px on a phone).
MIN_LETTERING_PX = {1280: 9.0, 390: 7.0}
#: Width in inches of a figure of one panel, and of the widest figure (two panels in a row).
WIDTH, WIDE = 6.4, 6.8
#: Panels side by side at most: more would shrink on a phone below the lettering's minimum.
PANELS_IN_A_ROW = 2
#: The smallest font size of the style, in points: 11 pt is 7.1 CSS px on a phone in a figure
#: WIDE inches wide (with IPython's 0.1 in margins), 15 px on a laptop.
LETTERING_PT = 11

#: Okabe & Ito (2008) colour-blind-safe palette, by name.
PALETTE = {
    "blue": "#0072B2",
    "orange": "#E69F00",
    "green": "#009E73",
    "vermillion": "#D55E00",
    "sky": "#56B4E9",
    "purple": "#CC79A7",
    "yellow": "#F0E442",
    "black": "#000000",
}
#: The cycle order, high-contrast colours first and yellow last (weak on white).
COLORS = [PALETTE[k] for k in ("blue", "vermillion", "green", "orange", "purple", "sky", "black", "yellow")]
# Dotted lines are left out of the cycle: chapters reserve them for predictions and references.
_DASHDOTDOT = (0, (5, 1.5, 1.5, 1.5, 1.5, 1.5))
_LINESTYLES = ["-", "--", "-.", _DASHDOTDOT, "-", "--", "-.", _DASHDOTDOT]

_RC = {
    "figure.facecolor": "white",
    "axes.facecolor": "white",
    "savefig.facecolor": "white",
    "savefig.transparent": False,
    "figure.figsize": (WIDTH, 4.0),
    "figure.dpi": 100,
    "figure.constrained_layout.use": True,
    "axes.prop_cycle": cycler(color=COLORS) + cycler(linestyle=_LINESTYLES),
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    # every text at LETTERING_PT or more: legible on a phone (the module's notes)
    "font.size": LETTERING_PT,
    "axes.titlesize": 12,
    "axes.labelsize": 12,
    "figure.titlesize": 12,
    "legend.frameon": False,
    "legend.fontsize": LETTERING_PT,
    "legend.title_fontsize": LETTERING_PT,
    "legend.handlelength": 1.8,
    "legend.labelspacing": 0.3,
    "legend.columnspacing": 1.2,
    "legend.borderaxespad": 0.3,
    "lines.linewidth": 1.8,
    "lines.markersize": 5,
    "image.cmap": "viridis",
}


def _use_house_style() -> None:
    """Apply the book's matplotlib style (and retina inline output in IPython)."""
    mpl.rcParams.update(_RC)
    try:
        from IPython import get_ipython
        from matplotlib_inline.backend_inline import set_matplotlib_formats
    except ImportError:  # plain Python: rcParams are enough
        return
    if get_ipython() is not None:
        set_matplotlib_formats("retina")


# ------------------------------------------------------------------ legends


def legend_outside(ax, where: str = "right", **kwargs):
    """Draw the legend of ``ax`` outside its plotting area, where no data can be.

    Use it when no corner of the axes stays clear of the data, as in an explorer whose
    curves move with the sliders. The house style's constrained layout makes room.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes whose labelled artists the legend lists.
    where : {"right", "below"}
        ``"right"``: beside the axes, aligned with its top (the axes get narrower).
        ``"below"``: under the whole figure, centred, the entries in rows of up to
        four (a figure legend, below every axes' labels; for the last row of panels).
    **kwargs
        Passed on to :meth:`~matplotlib.axes.Axes.legend` (``fontsize``, ``ncols``, ...).

    Returns
    -------
    matplotlib.legend.Legend

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from ibcore.book import legend_outside
    >>> fig, ax = plt.subplots()
    >>> _ = ax.plot([0, 1], [0, 1], label="GD")
    >>> legend_outside(ax).get_texts()[0].get_text()
    'GD'
    >>> plt.close(fig)
    """
    if where == "right":
        return ax.legend(**{"loc": "upper left", "bbox_to_anchor": (1.02, 1.0), "borderaxespad": 0.0, **kwargs})
    if where == "below":
        handles, labels = ax.get_legend_handles_labels()
        kwargs.setdefault("ncols", max(1, min(len(handles), 4)))
        return ax.figure.legend(handles, labels, loc="outside lower center", **kwargs)
    raise ValueError(f"where must be 'right' or 'below', got {where!r}")


def slope_triangle(ax, x0: float, y0: float, slope: float, *, width: float = 2.0, label: str | None = None,
                   color: str = "0.3") -> None:
    """Draw a reference triangle of the given log-log ``slope`` with its corner at ``(x0, y0)``.

    ``width`` is the horizontal extent as a multiplicative factor.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from ibcore.book import slope_triangle
    >>> fig, ax = plt.subplots()
    >>> _ = ax.loglog([100, 10_000], [0.3, 0.03])
    >>> slope_triangle(ax, 300, 0.05, -0.5, label="slope -1/2")
    >>> [text.get_text() for text in ax.texts]
    ['slope -1/2']
    >>> plt.close(fig)
    """
    x1 = x0 * width
    y1 = y0 * width**slope
    ax.plot([x0, x1, x1, x0], [y0, y0, y1, y0], color=color, lw=1, ls="-")
    ax.annotate(label if label is not None else f"slope {slope:g}", (x1, np.sqrt(y0 * y1)),
                xytext=(4, 0), textcoords="offset points", va="center", color=color)
