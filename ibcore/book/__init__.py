"""The book's helpers: what a chapter uses around the solvers, and nothing of the science.

* ``ibcore.book.style`` -- the house plot style (applied when this package is imported),
  the palette and legend placement;
* ``ibcore.book.explorer`` -- explorers, live in a kernel and precomputed on the site;
* ``ibcore.book.glue`` -- computed numbers, tables and figures pasted into the page;
* ``ibcore.book.numbers`` -- numbers rounded for the prose, with their interval for the evidence;
* ``ibcore.book.figure_report`` -- the legibility and legend checks run on every figure.

A chapter imports what it uses::

    from ibcore.book import explorer, glue_estimate, show
"""
from .explorer import explorer
from .glue import glue, glue_figure, glue_text, show
from .numbers import Estimate, glue_estimate, rounded
from .style import COLORS, PALETTE, _use_house_style, legend_outside, slope_triangle

__all__ = ["explorer", "glue", "glue_text", "glue_figure", "show", "glue_estimate", "rounded",
           "Estimate", "PALETTE", "COLORS", "legend_outside", "slope_triangle"]

_use_house_style()
