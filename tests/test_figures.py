"""No legend of the book covers plotted data.

While nbval executes the chapters (``make check``), ``IBCORE_FIGURE_REPORT`` names a file to
which the chapters' kernels append a check of every figure a chapter displays and of every
explorer frame (``ibcore._figure_report``, loaded by tools/ipython_kernel_config.py). This
module reads that report, which ``make check`` passes as ``--figure-report``.
"""
from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from tools import notebooks as nbtools

ROOT = nbtools.ROOT
CHAPTERS = [p.relative_to(ROOT).as_posix() for p in nbtools.chapters()]


@pytest.fixture(scope="module")
def report(figure_report: Path) -> dict[str, list[dict]]:
    by_chapter = defaultdict(list)
    for line in figure_report.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        by_chapter[record["notebook"]].append(record)
    return by_chapter


def describe(overlap: dict) -> str:
    axes = overlap["axes"] or overlap["suptitle"] or overlap["ylabel"]
    return f"legend of the axes {axes!r} covers {overlap['covers']}"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_no_legend_covers_plotted_data(report, chapter):
    records = report.get(chapter, [])
    assert records, f"{chapter}: no figure was checked (does it call use_house_style()?)"
    overlaps = [describe(o) for r in records for o in r["overlaps"]]
    assert not overlaps, (f"{chapter}: move these legends off the data (loc=..., or "
                          "ibcore.plotting.legend_outside):\n" + "\n".join(overlaps))
