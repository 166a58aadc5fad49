"""The set-up that every chapter shares, in one place.

A chapter's first (hidden) cell is::

    import numpy as np
    import matplotlib.pyplot as plt
    import ibcore.relu as R          # or ibcore.quadratic as q, ibcore.linear
    from ibcore.notebook import *

Importing this module applies the house plot style
(:func:`ibcore.plotting.use_house_style`) and brings the names that chapters use
around the solvers: the sweep runner and its summaries (:func:`fit_slope` for a scaling
exponent with its interval), the explorer, the plot helpers, the progress bar,
:func:`glue` and :func:`glue_text` (computed numbers in the prose), and :func:`show`
(a table rounded and styled the same way in every chapter).
"""
from __future__ import annotations

from .plotting import COLORS, PALETTE, fit_loglog_slope, legend_outside, slope_triangle
from .plotting import use_house_style
from .progress import progress
from .summary import fit_slope, interval_text, summarise, summarise_columns, with_intervals
from .sweep import sweep
from .widgets import explorer

__all__ = ["glue", "glue_text", "show", "Table", "sweep", "summarise", "summarise_columns",
           "with_intervals",
           "interval_text", "fit_slope", "explorer", "progress", "PALETTE", "COLORS",
           "legend_outside", "fit_loglog_slope", "slope_triangle"]

try:  # the book build puts glued numbers into the text, captions and alt texts
    from myst_nb import glue
except ImportError:  # Colab and Binder have no myst_nb: the notebook does not render them
    def glue(name, value, display=True):
        """Stand-in for :func:`myst_nb.glue` outside the book build: shows nothing."""
        return None


class Table:
    """A DataFrame as the book shows it: rounded, without the index, with a caption.

    In a notebook and on the site it renders as a styled HTML table; its plain-text form
    (what nbval compares and what a terminal prints) is the DataFrame's own text, so that
    executing a chapter twice prints the same thing.
    """

    def __init__(self, frame, *, digits: int = 3, caption: str | None = None):
        self.frame, self.digits, self.caption = frame, digits, caption

    def _repr_html_(self) -> str:
        import hashlib

        styler = self.frame.style.format(precision=self.digits).hide(axis="index")
        if self.caption:
            styler = styler.set_caption(self.caption)
        # a stable id: the default is random, which would change the page at every build
        key = hashlib.sha256(self.frame.to_csv().encode()).hexdigest()[:10]
        return styler.set_uuid(f"ib{key}").to_html()

    def __repr__(self) -> str:
        text = self.frame.to_string(index=False, float_format=lambda v: f"{v:.{self.digits}f}")
        return f"{self.caption}\n{text}" if self.caption else text


def show(frame, *, digits: int = 3, caption: str | None = None) -> Table:
    """Display a DataFrame (a sweep table or a summary) rounded to ``digits`` decimals."""
    return Table(frame, digits=digits, caption=caption)


def glue_text(name: str, text: str) -> None:
    """Glue a text for the prose: ``{glue:md}`name``` renders it inline (no quotes)."""
    from IPython.display import Markdown

    glue(name, Markdown(text), display=False)


use_house_style()
