"""The "results at a glance" tables quote figures that the chapters really print.

Each row names a chapter ({doc} link) and quotes measured figures in code spans; every
span must occur in the text printed by that chapter in the build (read from the build's
execution cache), so the overview cannot drift away from the chapters.

A figure also belongs to a setting (widths, learning rate, N...). A code span that ends with
a colon, such as `(p, p*) = (4, 4), γ/p = 0.1:`, names the setting of the figures that
follow it in the same clause (clauses are separated by ";"). Each such figure must be printed
on a line that also prints its setting, so that a row cannot quote a number from one setting
under the name of another. Every row of Part II names its settings this way.
"""
from __future__ import annotations

import re

import pytest

from tools import notebooks as nbtools

OVERVIEWS = [nbtools.ROOT / "book" / part / "overview.md" for part in ("relu", "quadratic")]
#: Overviews whose every row must name the settings of its figures.
SETTINGS_REQUIRED = {"quadratic"}


def table_rows(md):
    """(chapter, measured cell) for every row of the results table (the one headed "| Claim |")."""
    in_table = False
    for line in md.read_text(encoding="utf-8").splitlines():
        if line.startswith("| Claim |"):
            in_table = True
            continue
        if not line.startswith("|"):
            in_table = False
        doc = re.search(r"\{doc\}`([^`]+)`", line)
        if in_table and doc:
            yield doc.group(1), line.rstrip("|").split("|")[-1]


def quoted_figures(measured):
    """(setting or None, figure) for every figure span of a measured cell.

    A span ending with ":" is a setting; it applies to the figures after it up to the end of
    its clause (";") or the next setting.
    """
    for clause in measured.split(";"):
        setting = None
        for span in re.findall(r"`([^`]+)`", clause):
            if span.endswith(":"):
                setting = span
            else:
                yield setting, span


def misquoted(figures, printed):
    """The figures that the printed text does not show, or not under their setting."""
    lines = printed.splitlines()
    bad = []
    for setting, fig in figures:
        if setting is None:
            if fig not in printed:
                bad.append(f"{fig!r} is not printed")
        elif not any(setting in line and fig in line for line in lines):
            bad.append(f"{fig!r} is not printed on a line with its setting {setting!r}")
    return bad


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
    for doc, measured in rows:
        figures = list(quoted_figures(measured))
        assert figures, f"{overview.name}: the row for {doc} quotes no measured figure"
        if overview.parent.name in SETTINGS_REQUIRED:
            assert any(setting for setting, _ in figures), \
                f"{overview.name}: the row for {doc} names no setting (a code span ending with ':')"
        chapter = (overview.parent / f"{doc}.md").resolve()
        if chapter not in cache:
            cache[chapter] = printed_text(chapter)
        stale += [f"{doc}: {msg}" for msg in misquoted(figures, cache[chapter])]
    assert not stale, "figures not printed by their chapter (update the table):\n" + "\n".join(stale)


def test_a_figure_quoted_under_the_wrong_setting_is_caught():
    """The check itself, without a built site: the mix-up that once sat in Part II's table."""
    printed = ("(p, p*) = (4, 2), γ/p = 0.02: plateau norm from the ODE 0.6847, root 0.6847\n"
               "(p, p*) = (4, 4), γ/p = 0.1: median over 24 runs of the mean Tr Q/p: "
               "SGD 0.7353 [0.7282, 0.7407]; root 0.7270\n")
    right = ("`(p, p*) = (4, 2), γ/p = 0.02:` root `0.6847`; `(p, p*) = (4, 4), γ/p = 0.1:` "
             "SGD `0.7353 [0.7282, 0.7407]`")
    wrong = "`(p, p*) = (4, 2), γ/p = 0.02:` root `0.6847`, SGD `0.7353 [0.7282, 0.7407]`"
    assert misquoted(quoted_figures(right), printed) == []
    assert misquoted(quoted_figures(wrong), printed) == [
        "'0.7353 [0.7282, 0.7407]' is not printed on a line with its setting "
        "'(p, p*) = (4, 2), γ/p = 0.02:'"]
    # a figure quoted with an interval other than the printed one is caught too
    assert misquoted(quoted_figures("`(p, p*) = (4, 4), γ/p = 0.1:` SGD `0.7353 [0.72, 0.74]`"),
                     printed) != []
    # without a setting only the number is checked, as before
    assert misquoted(quoted_figures("SGD `0.7270`, missing `0.1234`"), printed) == [
        "'0.1234' is not printed"]
