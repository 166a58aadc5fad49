"""The review pages ("Part I in review", "Part II in review") quote figures that the chapters really print.

Each row of a review's table names a chapter ({doc} link) and quotes measured figures as
``{measured}`...``` spans (text on the page, never code); every span must occur in the text
printed by that chapter in the build (read from the build's execution cache), so the review
cannot drift away from the chapters.

A figure also belongs to a setting (widths, learning rate, N...). A span that ends with
a colon, such as ``{measured}`(p, p*) = (4, 4), γ/p = 0.1:```, names the setting of the figures that
follow it in the same clause (clauses are separated by ";"). Each such figure must be printed
on a line that also prints its setting, so that a row cannot quote a number from one setting
under the name of another. Every row of Part II names its settings this way.

Part I's rows type no figure at all: each one pastes texts that its chapter computed and glued,
``{glue:text}`03_gap.md::A1_pooled```, and the build fails on a key the chapter does not glue.
Here each such text must come from the chapter the row names, open with its setting (an
assignment such as ``n = 20, d = 1600:`` before the first colon) and carry its interval
(``0.52 [0.47, 0.57]``) unless it is marked as a single example (``one run``); and the row
may hold no figure outside those texts and its maths.
"""
from __future__ import annotations

import re

import pytest

from tools import notebooks as nbtools

REVIEWS = [nbtools.ROOT / "book" / part / "review.md" for part in ("relu", "quadratic")]
#: Reviews whose every row must name the settings of its figures.
SETTINGS_REQUIRED = {"quadratic"}
#: Reviews whose rows paste glued texts instead of quoting figures.
GLUED = {"relu"}
GLUE_REF = re.compile(r"\{glue:\w+\}`(?P<doc>[^`:]+)\.md::(?P<key>[^`:]+)(?::\w+)?`")
GLUED_SETTING = re.compile(r"^[^:]*=[^:]*: \S")
MEASURED = re.compile(r"\{measured\}`([^`]+)`")
INTERVAL = re.compile(r"-?\d[\d.,]*\s\[-?\d[\d.,]*, -?\d[\d.,]*\]")


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
        for span in MEASURED.findall(clause):
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


def glued_references(measured):
    """(doc, key) for every ``{glue:...}`doc.md::key``` of a measured cell, and what is left."""
    refs = [(m["doc"], m["key"]) for m in GLUE_REF.finditer(measured)]
    return refs, GLUE_REF.sub("", measured)


def misglued(doc, refs, rest, glued):
    """What is wrong with a Part I row: figures typed by hand, texts from elsewhere or bare."""
    bad = []
    if not refs:
        bad.append("pastes no glued figure")
    outside = re.sub(r"\$[^$]*\$", "", MEASURED.sub("", rest))
    if MEASURED.search(rest):
        bad.append("quotes figures by hand ({measured}) instead of pasting glued texts")
    if "`" in outside or re.search(r"\d", outside):
        bad.append(f"types figures outside glued texts and maths: {outside.strip()!r}")
    for ref_doc, key in refs:
        if ref_doc != doc:
            bad.append(f"{key!r} is glued by {ref_doc}, not by the row's chapter {doc}")
        elif key not in glued:
            bad.append(f"{key!r} is not glued by {doc}")
        else:
            text = glued[key]
            if not GLUED_SETTING.match(text):
                bad.append(f"{key!r} = {text!r} does not open with its setting")
            if not (INTERVAL.search(text) or "one run" in text):
                bad.append(f"{key!r} = {text!r} carries no interval")
    return bad


def glued_texts(md) -> dict[str, str]:
    """The texts a chapter glued (name -> plain text), from the build's execution cache."""
    nb = nbtools.executed_from_cache(md, nbtools.ROOT / "_build" / ".jupyter_cache")
    texts = {}
    for cell in nb.cells:
        for out in cell.get("outputs", []) if cell.cell_type == "code" else []:
            name = out.get("metadata", {}).get("scrapbook", {}).get("name")
            plain = [v for k, v in out.get("data", {}).items() if k.endswith("text/plain")]
            if name and plain:
                texts[name] = plain[0]
    return texts


def printed_text(md) -> str:
    nb = nbtools.executed_from_cache(md, nbtools.ROOT / "_build" / ".jupyter_cache")
    return "\n".join(o.get("text", "") for c in nb.cells if c.cell_type == "code"
                     for o in c.get("outputs", []) if o.get("output_type") == "stream")


@pytest.mark.parametrize("review", REVIEWS, ids=lambda p: p.parent.name)
def test_review_pages_quote_the_chapters(site, review):
    rows = list(table_rows(review))
    assert len(rows) >= 8, f"{review} has no table of results"
    cache = {}
    stale = []
    for doc, measured in rows:
        chapter = (review.parent / f"{doc}.md").resolve()
        if review.parent.name in GLUED:
            refs, rest = glued_references(measured)
            if chapter not in cache:
                cache[chapter] = glued_texts(chapter)
            stale += [f"{doc}: {msg}" for msg in misglued(doc, refs, rest, cache[chapter])]
            continue
        figures = list(quoted_figures(measured))
        assert figures, f"{review.name}: the row for {doc} quotes no measured figure"
        if review.parent.name in SETTINGS_REQUIRED:
            assert any(setting for setting, _ in figures), \
                f"{review.name}: the row for {doc} names no setting (a measured span ending with ':')"
        if chapter not in cache:
            cache[chapter] = printed_text(chapter)
        stale += [f"{doc}: {msg}" for msg in misquoted(figures, cache[chapter])]
    assert not stale, "figures not printed by their chapter (update the table):\n" + "\n".join(stale)


def test_a_part_one_row_with_a_typed_bare_or_foreign_figure_is_caught():
    """The check of glued rows, without a built site."""
    glued = {"A1": "b₀ = 1, 150 runs: median 0.47 [0.45, 0.49]", "bare": "0.47",
             "example": "n = 20, one run: certified from step 925"}
    row = "median {glue:text}`03_gap.md::A1` at $b_0 = 1$; {glue:text}`03_gap.md::example`"
    assert misglued("03_gap", *glued_references(row), glued) == []
    assert misglued("03_gap", *glued_references("median `0.47`"), glued) == [
        "pastes no glued figure", "types figures outside glued texts and maths: 'median `0.47`'"]
    assert "quotes figures by hand ({measured}) instead of pasting glued texts" in misglued(
        "03_gap", *glued_references("median {measured}`0.47`"), glued)
    assert misglued("03_gap", *glued_references("{glue:text}`03_gap.md::bare`"), glued) == [
        "'bare' = '0.47' does not open with its setting", "'bare' = '0.47' carries no interval"]
    assert misglued("05_two_neurons", *glued_references("{glue:text}`03_gap.md::A1`"), glued) == [
        "'A1' is glued by 03_gap, not by the row's chapter 05_two_neurons"]


def test_a_figure_quoted_under_the_wrong_setting_is_caught():
    """The check itself, without a built site: the mix-up that once sat in Part II's table."""
    printed = ("(p, p*) = (4, 2), γ/p = 0.02: plateau norm from the ODE 0.6847, root 0.6847\n"
               "(p, p*) = (4, 4), γ/p = 0.1: median over 24 runs of the mean Tr Q/p: "
               "SGD 0.7353 [0.7282, 0.7407]; root 0.7270\n")
    m = "{measured}"
    right = (f"{m}`(p, p*) = (4, 2), γ/p = 0.02:` root {m}`0.6847`; {m}`(p, p*) = (4, 4), γ/p = 0.1:` "
             f"SGD {m}`0.7353 [0.7282, 0.7407]`")
    wrong = f"{m}`(p, p*) = (4, 2), γ/p = 0.02:` root {m}`0.6847`, SGD {m}`0.7353 [0.7282, 0.7407]`"
    assert misquoted(quoted_figures(right), printed) == []
    assert misquoted(quoted_figures(wrong), printed) == [
        "'0.7353 [0.7282, 0.7407]' is not printed on a line with its setting "
        "'(p, p*) = (4, 2), γ/p = 0.02:'"]
    # a figure quoted with an interval other than the printed one is caught too
    assert misquoted(quoted_figures(f"{m}`(p, p*) = (4, 4), γ/p = 0.1:` SGD {m}`0.7353 [0.72, 0.74]`"),
                     printed) != []
    # without a setting only the number is checked, as before
    assert misquoted(quoted_figures(f"SGD {m}`0.7270`, missing {m}`0.1234`"), printed) == [
        "'0.1234' is not printed"]

