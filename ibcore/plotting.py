"""The book's one plot style.

Every chapter calls :func:`use_house_style` once. The style

* draws on an opaque white figure, so that plots stay readable in the
  theme's dark mode (the theme shows images on their own background);
* cycles through the Okabe--Ito palette, which is safe for the common forms
  of colour blindness, and varies the line style too, so curves differ in
  more than colour (dotted lines never come from the cycle: they mark
  theoretical predictions and references);
* renders inline figures at double resolution ("retina" PNG), crisp on
  high-density screens without the weight of an SVG of many points.

:func:`legend_outside` puts a legend where it cannot cover data, beside the axes or
under the figure; :func:`legend_overlaps` finds legends drawn over plotted data. When the
environment variable ``IBCORE_FIGURE_REPORT`` names a file (``make test`` sets it
while nbval executes the chapters), every figure a chapter displays is checked and
each overlap is appended to that file as a JSON line; ``tests/test_figures.py``
fails on them.
"""
from __future__ import annotations

import json
import os

import matplotlib as mpl
import numpy as np
from cycler import cycler

__all__ = ["PALETTE", "COLORS", "use_house_style", "slope_triangle", "fit_loglog_slope", "legend_outside",
           "legend_overlaps", "report_figure"]

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
#: The cycle order: high-contrast colours first, yellow last (weak on white).
COLORS = [PALETTE[k] for k in ("blue", "vermillion", "green", "orange", "purple", "sky", "black", "yellow")]
# Dotted lines are left out of the cycle: chapters reserve them for predictions and references.
_DASHDOTDOT = (0, (5, 1.5, 1.5, 1.5, 1.5, 1.5))
_LINESTYLES = ["-", "--", "-.", _DASHDOTDOT, "-", "--", "-.", _DASHDOTDOT]

_RC = {
    "figure.facecolor": "white",
    "axes.facecolor": "white",
    "savefig.facecolor": "white",
    "savefig.transparent": False,
    "figure.figsize": (6.4, 4.0),
    "figure.dpi": 100,
    "figure.constrained_layout.use": True,
    "axes.prop_cycle": cycler(color=COLORS) + cycler(linestyle=_LINESTYLES),
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titlesize": 12,
    "axes.labelsize": 11,
    "legend.frameon": False,
    "legend.fontsize": 9,
    "lines.linewidth": 1.8,
    "lines.markersize": 5,
    "image.cmap": "viridis",
    "font.size": 10,
}


def use_house_style() -> None:
    """Apply the book's matplotlib style (and retina inline output in IPython)."""
    mpl.rcParams.update(_RC)
    try:
        from IPython import get_ipython
        from matplotlib_inline.backend_inline import set_matplotlib_formats
    except ImportError:  # plain Python: rcParams are enough
        return
    shell = get_ipython()
    if shell is not None:
        set_matplotlib_formats("retina")
        if os.environ.get("IBCORE_FIGURE_REPORT"):
            _check_displayed_figures(shell)


def _check_displayed_figures(shell) -> None:
    """Check every figure the kernel displays (at a cell's end, by plt.show or display)."""
    from matplotlib.figure import Figure

    png = shell.display_formatter.formatters["image/png"]
    show = png.lookup_by_type(Figure)
    if getattr(show, "_ib_checked", False):
        return

    def checked(fig, *args, **kwargs):
        image = show(fig, *args, **kwargs)
        report_figure(fig, drawn=True)  # laid out by the PNG just made
        return image

    checked._ib_checked = True
    png.for_type(Figure, checked)


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
    """
    if where == "right":
        return ax.legend(**{"loc": "upper left", "bbox_to_anchor": (1.02, 1.0), "borderaxespad": 0.0, **kwargs})
    if where == "below":
        handles, labels = ax.get_legend_handles_labels()
        kwargs.setdefault("ncols", max(1, min(len(handles), 4)))
        return ax.figure.legend(handles, labels, loc="outside lower center", **kwargs)
    raise ValueError(f"where must be 'right' or 'below', got {where!r}")


def _segments_hit_box(points: np.ndarray, box: tuple[float, float, float, float]) -> bool:
    """True when the polyline through ``points`` (display coordinates) crosses the box."""
    x0, y0, x1, y1 = box
    p, q = points[:-1], points[1:]
    ok = np.all(np.isfinite(p), axis=1) & np.all(np.isfinite(q), axis=1)
    p, q = p[ok], q[ok]
    if len(p) == 0:
        return False
    # Liang-Barsky clipping of every segment against the box, vectorised
    d = q - p
    t0, t1 = np.zeros(len(p)), np.ones(len(p))
    hit = np.ones(len(p), dtype=bool)
    for delta, start, low, high in ((d[:, 0], p[:, 0], x0, x1), (d[:, 1], p[:, 1], y0, y1)):
        with np.errstate(divide="ignore", invalid="ignore"):
            ta, tb = (low - start) / delta, (high - start) / delta
        flat = delta == 0
        hit &= ~flat | ((start >= low) & (start <= high))
        enter = np.where(flat, -np.inf, np.minimum(ta, tb))
        leave = np.where(flat, np.inf, np.maximum(ta, tb))
        t0, t1 = np.maximum(t0, enter), np.minimum(t1, leave)
    return bool(np.any(hit & (t0 <= t1)))


def _points_in_box(points: np.ndarray, box) -> bool:
    x0, y0, x1, y1 = box
    return bool(np.any((points[:, 0] >= x0) & (points[:, 0] <= x1) & (points[:, 1] >= y0) & (points[:, 1] <= y1)))


def _artist_name(artist) -> str:
    label = artist.get_label()
    return label if label and not label.startswith("_") else type(artist).__name__


def legend_overlaps(fig, *, pad: float = 2.0, drawn: bool = False) -> list[dict]:
    """Legends of ``fig`` drawn over plotted data (lines, markers, scatter points).

    Each legend's box (in display pixels, shrunk by ``pad``) is compared with every
    visible line and marker of every axes, clipped to its axes as drawn; filled areas
    and images are not data a legend can hide. Returns one record per legend that
    covers something: the axes' title and labels, and the names of what it covers.
    ``drawn=True`` says that ``fig`` has just been drawn (saved) as it is, so that its
    layout is final and the check need not lay it out again (half the cost of a frame).
    """
    from matplotlib.collections import LineCollection, PathCollection
    from matplotlib.lines import Line2D

    if not drawn:
        fig.draw_without_rendering()  # lay out (legends take their final place) without rasterising
    renderer = fig.canvas.get_renderer()
    legends = [(ax, ax.get_legend()) for ax in fig.axes if ax.get_legend() is not None]
    legends += [(None, leg) for leg in fig.legends]
    found = []
    for owner, legend in legends:
        if not legend.get_visible():
            continue
        ext = legend.get_window_extent(renderer)
        box = (ext.x0 + pad, ext.y0 + pad, ext.x1 - pad, ext.y1 - pad)
        if box[0] >= box[2] or box[1] >= box[3]:
            continue
        covered = []
        for ax in fig.axes:
            clip = ax.bbox
            inner = (max(box[0], clip.x0), max(box[1], clip.y0), min(box[2], clip.x1), min(box[3], clip.y1))
            if inner[0] >= inner[2] or inner[1] >= inner[3]:
                continue  # the legend is outside this axes
            for artist in [*ax.lines, *ax.collections]:
                if not artist.get_visible():
                    continue
                hit = False
                if isinstance(artist, Line2D):
                    xy = artist.get_transform().transform(artist.get_xydata())
                    if artist.get_linestyle() not in ("None", "", " ", "none"):
                        hit = _segments_hit_box(xy, inner)
                    if not hit and artist.get_marker() not in (None, "None", "", " ", "none"):
                        hit = _points_in_box(xy[np.all(np.isfinite(xy), axis=1)], inner)
                elif isinstance(artist, PathCollection):
                    xy = artist.get_offset_transform().transform(artist.get_offsets())
                    hit = len(xy) > 0 and _points_in_box(xy[np.all(np.isfinite(xy), axis=1)], inner)
                elif isinstance(artist, LineCollection):
                    trans = artist.get_transform()
                    hit = any(_segments_hit_box(trans.transform(np.asarray(seg)), inner)
                              for seg in artist.get_segments() if len(seg) > 1)
                if hit:
                    covered.append(_artist_name(artist))
        if covered:
            ax = owner if owner is not None else fig.axes[0]
            found.append({"axes": ax.get_title() or "", "xlabel": ax.get_xlabel(), "ylabel": ax.get_ylabel(),
                          "suptitle": fig._suptitle.get_text() if fig._suptitle is not None else "",
                          "covers": covered})
    return found


def report_figure(fig, *, drawn: bool = False) -> list[dict]:
    """Check ``fig`` with :func:`legend_overlaps`; append what it finds to ``$IBCORE_FIGURE_REPORT``.

    Each JSON line also names the notebook (``$IBCORE_NOTEBOOK``, set by the book's nbval
    plugin). Without the variable, nothing is written.
    """
    path = os.environ.get("IBCORE_FIGURE_REPORT")
    found = legend_overlaps(fig, drawn=drawn)
    if path:
        record = {"notebook": os.environ.get("IBCORE_NOTEBOOK", os.getcwd()), "overlaps": found}
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(record) + "\n")
    return found


def fit_loglog_slope(x, y) -> tuple[float, float]:
    """Least-squares fit of ``log y = slope * log x + log C``; returns ``(slope, C)``."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1 or x.size < 2:
        raise ValueError(f"x and y must be 1-d arrays of equal length >= 2, got shapes {x.shape} and {y.shape}")
    if np.any(x <= 0) or np.any(y <= 0):
        raise ValueError("x and y must be positive for a log-log fit")
    slope, intercept = np.polyfit(np.log(x), np.log(y), 1)
    return float(slope), float(np.exp(intercept))


def slope_triangle(ax, x0: float, y0: float, slope: float, *, width: float = 2.0, label: str | None = None,
                   color: str = "0.3") -> None:
    """Draw a reference triangle of the given log-log ``slope`` with its corner at ``(x0, y0)``.

    ``width`` is the horizontal extent as a multiplicative factor.
    """
    x1 = x0 * width
    y1 = y0 * width**slope
    ax.plot([x0, x1, x1, x0], [y0, y0, y1, y0], color=color, lw=1, ls="-")
    ax.annotate(label if label is not None else f"slope {slope:g}", (x1, np.sqrt(y0 * y1)),
                xytext=(4, 0), textcoords="offset points", va="center", fontsize=9, color=color)
