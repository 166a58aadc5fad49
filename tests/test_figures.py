"""The book's figures: no legend covers plotted data, and every letter is legible where it is shown.

While nbval executes the chapters (``make check``), ``IBCORE_FIGURE_REPORT`` names a file to
which the chapters' kernels append a record of every figure a chapter displays, of every
explorer frame and of every figure glued for another page (``ibcore.book.figure_report``,
loaded by tools/ipython_kernel_config.py). This module reads that report, which ``make check``
passes as ``--figure-report``.

Lettering: a record gives each figure's smallest text in points, its natural width in CSS
pixels and its CSS pixels per inch; the page shows it at most as wide as the content column
(``ibcore.book.style.COLUMN_PX``, which ``tests/site/test_figure_widths.py`` measures in the
browser), so its smallest letter is computed at a 1280 px laptop and at a 390 px phone and
must reach ``MIN_LETTERING_PX`` (9 and 7 CSS px). ``_build/lettering.txt`` (beside the report)
lists the smallest letter of each chapter at both widths.
"""
from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from ibcore.book.figure_report import effective_px, illegible
from ibcore.book.style import COLUMN_PX, PANELS_IN_A_ROW
from tools import notebooks as nbtools

ROOT = nbtools.ROOT
CHAPTERS = [p.relative_to(ROOT).as_posix() for p in nbtools.chapters()]


@pytest.fixture(scope="module")
def report(figure_report: Path) -> dict[str, list[dict]]:
    """The report's records by chapter; and ``lettering.txt`` beside it, the smallest letter of each."""
    path = figure_report
    by_chapter = defaultdict(list)
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        by_chapter[record["notebook"]].append(record)
    path.with_name("lettering.txt").write_text(lettering_table(by_chapter), encoding="utf-8")
    return by_chapter


def lettering_table(by_chapter: dict[str, list[dict]]) -> str:
    """Per chapter: its figures, its smallest letter at each screen width (CSS px) and the figure
    that holds the smallest at the phone."""
    phone = min(COLUMN_PX)
    shown = lambda r, screen: effective_px(r, min(r["css_width"], COLUMN_PX[screen]))[0]  # noqa: E731
    lines = [f"{'chapter':34s} {'figures':>7s} " + " ".join(f"{w:>5d}px" for w in COLUMN_PX) + "  smallest on a phone"]
    for chapter in CHAPTERS:
        records = by_chapter.get(chapter, [])
        if records:
            worst = min(records, key=lambda r: shown(r, phone))
            lines.append(f"{chapter:34s} {len(records):7d} " + " ".join(f"{min(shown(r, w) for r in records):7.1f}"
                                                                        for w in COLUMN_PX)
                         + f"  {figure_name(worst)}")
    return "\n".join(lines) + "\n"


def describe(overlap: dict) -> str:
    axes = overlap["axes"] or overlap["suptitle"] or overlap["ylabel"]
    return f"legend of the axes {axes!r} covers {overlap['covers']}"


def figure_name(record: dict) -> str:
    if record.get("kind") == "frame":
        return f"explorer {record['explorer'][:50]!r} ({record['frame']})"
    return f"{record.get('kind', 'figure')} {record['name'][:60]!r}"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_no_legend_covers_plotted_data(report, chapter):
    records = report.get(chapter, [])
    assert records, f"{chapter}: no figure was checked (does it import ibcore.book?)"
    overlaps = [describe(o) for r in records for o in r["overlaps"]]
    assert not overlaps, (f"{chapter}: move these legends off the data (loc=..., or "
                          "ibcore.book.legend_outside):\n" + "\n".join(overlaps))


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_lettering_is_legible_on_a_laptop_and_on_a_phone(report, chapter):
    records = report.get(chapter, [])
    assert records, f"{chapter}: no figure was recorded (does it import ibcore.book?)"
    small = sorted({f"{figure_name(r)}: {problem}" for r in records for problem in illegible(r)})
    assert not small, (f"{chapter}: lettering too small where shown (enlarge it, or make the figure "
                       "narrower: stack its panels; see ibcore.book.style):\n" + "\n".join(small))


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_at_most_two_panels_in_a_row(report, chapter):
    wide = sorted({f"{figure_name(r)}: {r['panels_in_a_row']} panels in a row" for r in report.get(chapter, [])
                   if r["panels_in_a_row"] > PANELS_IN_A_ROW})
    assert not wide, f"{chapter}: stack the panels, at most {PANELS_IN_A_ROW} in a row:\n" + "\n".join(wide)
