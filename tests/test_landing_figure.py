"""The landing page's figure is the one ``tools/landing_figure.py`` draws from ibcore today.

Pixels are compared, not bytes: a last-digit difference of the linear algebra on another
CPU may shade a few pixels of a line differently, while a change of the computation or of
the drawing moves whole curves.
"""
from __future__ import annotations

import io
import re

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


def shown_width(png: bytes) -> int:
    """The landing figure's natural width on the page, in CSS px: its ``{figure}``'s ``:width:``,
    or else the PNG's pixels (what a browser gives an image of no width)."""
    intro = (landing_figure.ROOT / "book" / "intro.md").read_text(encoding="utf-8")
    options = intro.split("```{figure} figures/" + landing_figure.OUT.name, 1)[1].split("\n\n", 1)[0]
    given = re.search(r"^:width:\s*(\d+)px\s*$", options, re.M)
    return int(given.group(1)) if given else int.from_bytes(png[16:20], "big")


def test_landing_figure_is_legible_on_a_laptop_and_on_a_phone():
    """Its smallest letter, as the landing page shows it (at its natural width, or narrower in a
    narrower column), reaches the house minimum; and its legends cover no data."""
    import matplotlib.pyplot as plt

    from ibcore.book.figure_report import figure_record, illegible

    fig = landing_figure.figure()
    width = shown_width(landing_figure.OUT.read_bytes())
    record = figure_record(fig, css_width=width, css_dpi=width / fig.get_figwidth())
    plt.close(fig)
    assert not illegible(record), illegible(record)
    assert not record["overlaps"], record["overlaps"]
