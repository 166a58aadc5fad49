"""The figure check of the test suite: no legend drawn over plotted data (internal).

``make test`` executes the chapters with the environment variable
``IBCORE_FIGURE_REPORT`` naming a file; its kernels then load this module as an
IPython extension (``tools/ipython_kernel_config.py``), which checks every figure a
chapter displays with :func:`legend_overlaps` and appends what it finds to that file,
one JSON line per figure (the explorers' frames are checked where they are drawn,
in ``ibcore.book.explorer``). ``tests/test_figures.py`` fails on any overlap.
Readers' kernels never load it.
"""
from __future__ import annotations

import json
import os
import sys

import numpy as np

__all__ = ["legend_overlaps", "report_figure", "watch_displayed_figures", "load_ipython_extension"]


def load_ipython_extension(shell) -> None:
    """Check every figure the kernel displays, from the next cell on.

    Installed before each cell runs, since ``use_house_style``
    (a chapter's first cell) sets the PNG formatter of figures afresh.
    """
    shell.events.register("pre_run_cell", lambda *args: watch_displayed_figures(shell))


def watch_displayed_figures(shell) -> None:
    """Check every figure the kernel displays (at a cell's end, by plt.show or display)."""
    if "matplotlib.figure" not in sys.modules:  # no figure yet: nothing to watch
        return
    from matplotlib.figure import Figure

    png = shell.display_formatter.formatters["image/png"]
    try:
        show = png.lookup_by_type(Figure)
    except KeyError:  # the inline backend has not registered its formatter yet
        return
    if getattr(show, "_ib_checked", False):
        return

    def checked(fig, *args, **kwargs):
        image = show(fig, *args, **kwargs)
        report_figure(fig, drawn=True)  # laid out by the PNG just made
        return image

    checked._ib_checked = True
    png.for_type(Figure, checked)


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
