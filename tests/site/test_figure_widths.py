"""Figures are shown as wide as the lettering check assumes, and legible as the browser shows them.

``tests/test_figures.py`` computes each figure's smallest letter at the width a page shows it:
its natural width, or the content column's when that is narrower (``ibcore.book.style.COLUMN_PX``:
at least 700 px of figure on a 1280 px laptop, 322 px on a 390 px phone, in either theme). Here
the browser measures the figures of every page at both widths, during the load that the other
browser checks share (``conftest.py``, ``geometry.py``: the laptop's in the light theme, the
phone's after the audit, in the dark theme, whose white card pads every image by 8 px a side):

* every figure of the book (a cell's output, an explorer's frame, a glued or a ``{figure}``
  image) is shown at least as wide as that computation assumes, so that its numbers are the
  smallest letters a reader sees;
* given the figure report of an execution of the chapters (``--figure-report``, which
  ``make chapters`` writes to ``_build/figures.jsonl``), each figure of a page is found in it by
  its digest and judged at the width the browser shows it: the exact check. An explorer's
  frames are judged at the width of its frame on show (they have one size); the landing
  figure, drawn by ``tools/landing_figure.py``, is recorded here. Without a report it skips.
"""
from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from ibcore.book.figure_report import figure_record, illegible
from ibcore.book.style import COLUMN_PX
from tools import landing_figure

from .geometry import DESKTOP, PHONE

EDITIONS = ["instructor", "student"]
WIDTHS = [DESKTOP, PHONE]
TOLERANCE_PX = 1.0  # sub-pixel layout


def _figures(rendered, edition, width):
    """(page, figure) of every figure of the book measured at ``width`` in ``edition``."""
    found = []
    for name, page in rendered(edition).items():
        if page.shared:
            continue
        assert not page.error, f"{name}: {page.error}"
        found += [(name, fig) for fig in page.layout[width]["figures"] if fig["book"]]
    return found


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("edition", EDITIONS)
def test_figures_are_shown_as_wide_as_the_lettering_check_assumes(rendered, edition, width):
    figures = _figures(rendered, edition, width)
    assert len(figures) >= 20, f"only {len(figures)} figures measured at {width} px: did the pages render?"
    narrow = [f"{name} #{fig['where']} {fig['src']}: {fig['width']:.0f} px wide, natural {fig['natural']:.0f}"
              for name, fig in figures if fig["width"] < min(fig["natural"], COLUMN_PX[width]) - TOLERANCE_PX]
    widest = max(fig["width"] for _, fig in figures)
    print(f"\n{edition} at {width} px: {len(figures)} figures, the widest shown {widest:.0f} px "
          f"(the check assumes {COLUMN_PX[width]} px of column)")
    assert not narrow, (f"figures narrower than min(natural width, {COLUMN_PX[width]} px) at {width} px: "
                        "ibcore.book.style.COLUMN_PX is out of date with the site's column:\n" + "\n".join(narrow))


@pytest.fixture(scope="module")
def records(figure_report: Path) -> dict[str, dict]:
    """The figure report's records by digest, with the landing figure's."""
    lines = [json.loads(line) for line in figure_report.read_text(encoding="utf-8").splitlines()]
    by_digest = {r["digest"]: r for r in lines if r.get("digest")}
    png = landing_figure.OUT.read_bytes()
    css_width = int.from_bytes(png[16:20], "big")  # the page gives it no width: its pixels
    fig = landing_figure.figure()
    landing = figure_record(fig, css_width=css_width, css_dpi=css_width / fig.get_figwidth(), png=png,
                            kind="landing", notebook="book/intro.md")
    by_digest[landing["digest"]] = landing
    frames = defaultdict(list)  # an explorer's frames, by (notebook, caption)
    for r in lines:
        if r.get("kind") == "frame":
            frames[r["notebook"], r["explorer"]].append(r)
    for r in by_digest.values():
        r["frames"] = frames.get((r["notebook"], r.get("explorer")), [r]) if r.get("kind") == "frame" else [r]
    return by_digest


@pytest.mark.parametrize("edition", EDITIONS)
def test_lettering_is_legible_as_the_browser_shows_each_figure(rendered, records, edition):
    judged, unknown, small, mismatched = set(), [], [], []
    for width in WIDTHS:
        for name, fig in _figures(rendered, edition, width):
            if fig["digest"] is None:
                continue  # a drawing of the book (an SVG), not a figure it computes
            record = records.get(fig["digest"])
            if record is None:
                unknown.append(f"{name} #{fig['where']} {fig['src']}")
                continue
            if abs(record["css_width"] - fig["natural"]) > TOLERANCE_PX:
                mismatched.append(f"{name} {record['name']!r}: natural width {fig['natural']:.0f} px on the page, "
                                  f"{record['css_width']} in the report")
            for r in record["frames"]:
                judged.add(r["digest"])
                small += [f"{name} {r['name']!r}{' ' + r['frame'] if r.get('frame') else ''}: {problem}"
                          for problem in illegible(r, widths={width: fig["width"]})]
    print(f"\n{edition}: {len(judged)} figures and frames judged at the widths the browser shows them")
    assert not unknown, ("figures of the site missing from the report: was it written by an execution of "
                         "these chapters (make chapters), and the landing figure redrawn?\n" + "\n".join(sorted(set(unknown))))
    assert not mismatched, "\n".join(sorted(set(mismatched)))
    assert not small, "lettering too small as shown:\n" + "\n".join(sorted(set(small)))
    assert len(judged) >= 20
