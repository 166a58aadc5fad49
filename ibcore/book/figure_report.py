"""The figure checks of the test suite: no legend over data, lettering legible where shown (internal).

``make test`` executes the chapters with the environment variable
``IBCORE_FIGURE_REPORT`` naming a file; its kernels then load this module as an
IPython extension (``tools/ipython_kernel_config.py``), which records every figure a
chapter displays and appends it to that file, one JSON line per figure (the explorers'
frames are recorded where they are drawn, in :mod:`ibcore.book.frames`, and figures glued
for another page in :mod:`ibcore.book.glue`). A record holds

* the legends drawn over plotted data (:func:`legend_overlaps`);
* the lettering: the font size in points of the smallest text of each kind (tick labels,
  axis labels, titles, legend entries, annotations such as a heatmap's numbers), from
  :func:`lettering`;
* the image as the page shows it: its natural width in CSS pixels, the CSS pixels per
  inch of the figure (100: the house style's ``figure.dpi``) and a digest of its PNG, by
  which the browser checks find it on the built pages.

A letter of ``pt`` points is ``pt / 72 * css_dpi`` CSS pixels at the image's natural width;
the page shows the image at most as wide as its column (``max-width: 100%``), so it shrinks
with the column: :func:`effective_px`. ``tests/test_figures.py`` fails on any overlap and
on lettering smaller than :data:`ibcore.book.style.MIN_LETTERING_PX` at the widths of
:data:`ibcore.book.style.COLUMN_PX`; ``tests/site/test_figure_widths.py`` measures those
widths in the browser. Readers' kernels never load this module.
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
import sys

import numpy as np

from .style import COLUMN_PX, MIN_LETTERING_PX

__all__ = ["legend_overlaps", "lettering", "panels_in_a_row", "figure_record", "effective_px", "illegible", "report_figure",
           "write_record", "watch_displayed_figures",
           "load_ipython_extension"]

#: Digits of a PNG's sha256 that name it in a record (the site names its images by the whole).
DIGEST_CHARS = 16


def png_digest(png: bytes) -> str:
    """The short digest of a PNG's bytes by which records and pages name an image."""
    return hashlib.sha256(png).hexdigest()[:DIGEST_CHARS]


def load_ipython_extension(shell) -> None:
    """Check every figure the kernel displays, from the next cell on.

    Installed before each cell runs, since ``ibcore.book.style._use_house_style``
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
        if image is not None:  # None: an empty figure, not shown
            data, meta = image if isinstance(image, tuple) else (image, {})
            data = base64.b64decode(data) if isinstance(data, str) else data
            # retina: a PNG of twice the CSS size, whose CSS width IPython gives in its metadata
            width = meta.get("width", int.from_bytes(data[16:20], "big"))
            report_figure(fig, drawn=True, css_width=width, css_dpi=fig.dpi, png=data, kind="figure")
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


# ------------------------------------------------------------------ lettering


def _texts(fig):
    """(kind, Text) of every piece of text ``fig`` draws, by kind: ``tick``, ``label``,
    ``title``, ``legend``, ``annotation``."""
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        if ax.axison:
            for axis in (ax.xaxis, ax.yaxis):
                if not axis.get_visible():
                    continue
                for tick in axis._update_ticks():  # the ticks drawn (within the view limits)
                    yield from (("tick", t) for t in (tick.label1, tick.label2))
                yield "tick", axis.offsetText  # "1e-3", "+1" beside an axis
                yield "label", axis.label
        yield from (("title", t) for t in (ax.title, ax._left_title, ax._right_title))
        yield from (("annotation", t) for t in ax.texts)  # text and annotate: a heatmap's numbers
        legend = ax.get_legend()
        if legend is not None and legend.get_visible():
            yield from (("legend", t) for t in (*legend.get_texts(), legend.get_title()))
    for legend in fig.legends:
        if legend.get_visible():
            yield from (("legend", t) for t in (*legend.get_texts(), legend.get_title()))
    yield from (("annotation", t) for t in fig.texts)
    yield "title", fig._suptitle
    yield from (("label", getattr(fig, name, None)) for name in ("_supxlabel", "_supylabel"))


def lettering(fig) -> dict[str, dict]:
    """The smallest text of each kind that ``fig`` draws: ``{kind: {"pt": size, "text": text}}``.

    Kinds: ``tick`` (tick labels, an axis's offset text), ``label`` (axis labels), ``title``,
    ``legend`` (entries and title), ``annotation`` (``ax.text``, ``annotate``, ``fig.text``).
    Sizes are font sizes in points; in maths, sub- and superscripts are drawn smaller
    (mathtext: 70%), which this does not count. Lay the figure out first (draw or save it).
    """
    found: dict[str, dict] = {}
    for kind, text in _texts(fig):
        if text is None or not text.get_visible() or not text.get_text().strip():
            continue
        size = float(text.get_fontsize())
        if kind not in found or size < found[kind]["pt"]:
            found[kind] = {"pt": size, "text": text.get_text()}
    return found


def panels_in_a_row(fig) -> int:
    """The largest number of panels side by side in ``fig`` (colorbars and twin axes aside)."""
    boxes = {tuple(np.round(ax.get_position().bounds, 3)) for ax in fig.axes
             if ax.get_visible() and not hasattr(ax, "_colorbar")}
    most = 0
    for x, y, w, h in boxes:
        middle = y + h / 2
        row = sorted((bx, bx + bw) for bx, by, bw, bh in boxes if by < middle < by + bh)
        columns, right = 0, -np.inf
        for left, end in row:  # boxes that overlap sideways are one column (an inset, a twin)
            if left >= right - 1e-3:
                columns += 1
            right = max(right, end)
        most = max(most, columns)
    return most


def _name(fig) -> str:
    """A figure's name for a reader of the report: its title, or its first axes' title."""
    if fig._suptitle is not None and fig._suptitle.get_text():
        return fig._suptitle.get_text()
    titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
    return titles[0] if titles else (fig.axes[0].get_ylabel() if fig.axes else "")


def figure_record(fig, *, css_width: float, css_dpi: float, png: bytes | None = None, drawn: bool = False,
                  **fields) -> dict:
    """What the checks need of one figure as a page shows it (see the module's notes).

    ``css_width``: the image's natural width in CSS pixels; ``css_dpi``: CSS pixels per inch
    of the figure; ``png``: the image shown (its digest names it); ``fields``: added as they are.
    """
    if not drawn:
        fig.draw_without_rendering()
    return {"name": _name(fig), "width_in": round(float(fig.get_figwidth()), 3), "css_width": round(float(css_width)),
            "css_dpi": float(css_dpi), "digest": png_digest(png) if png is not None else None,
            "lettering": lettering(fig), "panels_in_a_row": panels_in_a_row(fig),
            "overlaps": legend_overlaps(fig, drawn=True), **fields}


def effective_px(record: dict, shown_width: float | None = None) -> tuple[float, str, str]:
    """The smallest lettering of a recorded figure in CSS pixels as shown ``shown_width`` px
    wide (default: its natural width), with its kind and text."""
    if not record["lettering"]:
        return float("inf"), "", ""
    kind, smallest = min(record["lettering"].items(), key=lambda item: item[1]["pt"])
    scale = 1.0 if shown_width is None else min(1.0, shown_width / record["css_width"])
    return smallest["pt"] / 72 * record["css_dpi"] * scale, kind, smallest["text"]


def illegible(record: dict, widths: dict[int, float] | None = None) -> list[str]:
    """The screens at which a recorded figure's smallest lettering is below the house minimum.

    ``widths``: screen width -> the width the page shows the image at there (measured in a
    browser), for the screens to judge; by default every screen of
    :data:`~ibcore.book.style.MIN_LETTERING_PX`, at the smaller of the image's natural width
    and the content column (:data:`~ibcore.book.style.COLUMN_PX`).
    """
    if widths is None:
        widths = {screen: min(record["css_width"], COLUMN_PX[screen]) for screen in MIN_LETTERING_PX}
    found = []
    for screen, shown in widths.items():
        least = MIN_LETTERING_PX[screen]
        px, kind, text = effective_px(record, shown)
        if px < least:
            found.append(f"{px:.1f} px < {least:g} at {screen} px ({kind} {text!r}, shown {shown:.0f} px wide "
                         f"of {record['css_width']})")
    return found


def report_figure(fig, *, drawn: bool = False, css_width: float | None = None, css_dpi: float = 100,
                  png: bytes | None = None, **fields) -> dict:
    """Record ``fig`` (:func:`figure_record`) and append it to ``$IBCORE_FIGURE_REPORT``.

    Each JSON line also names the notebook (``$IBCORE_NOTEBOOK``, set by the book's nbval
    plugin). ``css_width`` defaults to the figure's width at ``css_dpi``. Without the
    variable, nothing is written. Returns the record.
    """
    if css_width is None:
        css_width = fig.get_figwidth() * css_dpi
    record = figure_record(fig, drawn=drawn, css_width=css_width, css_dpi=css_dpi, png=png, **fields)
    write_record(record)
    return record


def write_record(record: dict) -> None:
    """Append ``record`` to ``$IBCORE_FIGURE_REPORT`` (with the notebook's name), if it is set."""
    path = os.environ.get("IBCORE_FIGURE_REPORT")
    if path:
        line = {"notebook": os.environ.get("IBCORE_NOTEBOOK", os.getcwd()), **record}
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(line) + "\n")
