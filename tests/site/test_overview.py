"""The "results at a glance" tables quote figures that the chapters really print.

Each row names a chapter ({doc} link) and quotes measured figures in code spans; every
span must occur in the text printed by that chapter in the build (read from the build's
execution cache), so the overview cannot drift away from the chapters.
"""
from __future__ import annotations

import re

import pytest

from tools import notebooks as nbtools

OVERVIEWS = [nbtools.ROOT / "book" / part / "overview.md" for part in ("relu", "quadratic")]


def table_rows(md):
    for line in md.read_text(encoding="utf-8").splitlines():
        doc = re.search(r"\{doc\}`([^`]+)`", line)
        if line.startswith("|") and doc:
            measured = line.rstrip("|").split("|")[-1]
            yield doc.group(1), re.findall(r"`([^`]+)`", measured)


def printed_text(md) -> str:
    nb = nbtools.executed_from_cache(md, nbtools.ROOT / "_build" / ".jupyter_cache")
    return "\n".join(o.get("text", "") for c in nb.cells if c.cell_type == "code"
                     for o in c.get("outputs", []) if o.get("output_type") == "stream")


@pytest.mark.parametrize("overview", OVERVIEWS, ids=lambda p: p.parent.name)
def test_results_at_a_glance_quote_the_chapters(site, overview):
    rows = list(table_rows(overview))
    assert len(rows) >= 8, f"{overview} has no results-at-a-glance table"
    cache = {}
    stale = []
    for doc, figures in rows:
        assert figures, f"{overview.name}: the row for {doc} quotes no measured figure"
        chapter = (overview.parent / f"{doc}.md").resolve()
        if chapter not in cache:
            cache[chapter] = printed_text(chapter)
        stale += [f"{doc}: {fig!r}" for fig in figures if fig not in cache[chapter]]
    assert not stale, "figures not printed by their chapter (update the table):\n" + "\n".join(stale)
