"""The landing page's figure is the one ``tools/landing_figure.py`` draws from ibcore today.

Pixels are compared, not bytes: a last-digit difference of the linear algebra on another
CPU may shade a few pixels of a line differently, while a change of the computation or of
the drawing moves whole curves.
"""
from __future__ import annotations

import io

import numpy as np
from PIL import Image

from tools import landing_figure


def pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.int16)


def test_landing_figure_is_current():
    committed = pixels(landing_figure.OUT.read_bytes())
    drawn = pixels(landing_figure.draw())
    assert drawn.shape == committed.shape, "the figure's size changed: run `python -m tools.landing_figure`"
    changed = np.mean(np.abs(drawn - committed).max(axis=2) > 32)
    assert changed < 1e-3, (f"{changed:.2%} of the landing figure's pixels differ from what ibcore computes "
                            "now: run `python -m tools.landing_figure` and commit book/figures/two_stories.png")


def test_the_check_sees_a_changed_curve():
    png = landing_figure.OUT.read_bytes()
    moved = pixels(png).copy()
    moved[:, : moved.shape[1] // 2] = np.roll(moved[:, : moved.shape[1] // 2], 6, axis=0)  # left panel moved
    assert np.mean(np.abs(moved - pixels(png)).max(axis=2) > 32) > 1e-3
