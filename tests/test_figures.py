"""No legend of the book covers plotted data.

While nbval executes the chapters (``make test``'s ``chapters`` stage), ``IBCORE_FIGURE_REPORT``
names a file to which the chapters' kernels append a check of every figure a chapter displays
and of every explorer frame (``ibcore.book.figure_report``, loaded by tools/ipython_kernel_config.py). This module runs after
the chapters in the same pytest session and reads that report; without the variable it skips.
"""
from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path

import pytest

from tools import notebooks as nbtools

ROOT = nbtools.ROOT
CHAPTERS = [p.relative_to(ROOT).as_posix() for p in nbtools.chapters()]


@pytest.fixture(scope="module")
def report() -> dict[str, list[dict]]:
    path = os.environ.get("IBCORE_FIGURE_REPORT")
    if not path:
        pytest.skip("set IBCORE_FIGURE_REPORT while nbval runs the chapters (make test's chapters stage does)")
    if not Path(path).exists():
        pytest.fail(f"{path} was not written: did the chapters run first, with ibcore's house style?")
    by_chapter = defaultdict(list)
    for line in Path(path).read_text(encoding="utf-8").splitlines():
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
                          "ibcore.book.legend_outside):\n" + "\n".join(overlaps))
