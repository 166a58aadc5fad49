"""The set-up that every chapter shares, in one place.

A chapter's first (hidden) cell is::

    import numpy as np
    import matplotlib.pyplot as plt
    import ibcore.relu as R          # or ibcore.quadratic as q, ibcore.linear
    from ibcore.notebook import *

Importing this module applies the house plot style
(:func:`ibcore.plotting.use_house_style`) and brings the names that chapters use
around the solvers: the sweep runner and its summaries, the explorer, the plot
helpers, the progress bar, and :func:`myst_nb.glue`.
"""
from __future__ import annotations

from .plotting import COLORS, PALETTE, fit_loglog_slope, legend_outside, slope_triangle
from .plotting import use_house_style
from .progress import progress
from .sweep import summarise, sweep
from .widgets import explorer

__all__ = ["glue", "sweep", "summarise", "explorer", "progress", "PALETTE", "COLORS",
           "legend_outside", "fit_loglog_slope", "slope_triangle"]

try:  # the book build puts glued numbers into the text, captions and alt texts
    from myst_nb import glue
except ImportError:  # Colab and Binder have no myst_nb: the notebook does not render them
    def glue(name, value, display=True):
        """Stand-in for :func:`myst_nb.glue` outside the book build: shows nothing."""
        return None

use_house_style()
