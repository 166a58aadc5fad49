"""The reader's text, as built in both editions: no machinery, no number as a code chip.

A chapter, an overview or the landing page tells the science. How the book is built and
tested is told once, in the appendix "How this book checks itself"; the teaching page and
"How to use this book" may name the tools their readers run, and the Library reference
documents the library's own machinery (its sweep cache, its test references). Everywhere
else the prose (code cells and their outputs aside) must not mention it.

A number quoted in the prose is text or maths: an inline code span holding a number (a
"chip", ``0.47 [0.45, 0.49]``) reads as code, not as a measurement. (The Library reference
writes a parameter's values as code, ``record_every=0``, as code documentation does.)
"""
from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from tools import notebooks as nbtools

#: Pages that may speak of the machinery.
MACHINERY_PAGES = {"book/appendix/checks", "book/teaching", "book/how-to-use"}
MACHINERY = re.compile("|".join([
    r"continuous integration", r"\bCI\b", r"hidden checks?", r"unit tests?", r"\btest suite",
    r"\bmake (?:test|check|book|pdf)\b", r"\bnbval\b", r"\bpytest\b", r"\bcores?\b",
    r"\bcached\b", r"\bcaches?\b", r"\btwo processes\b", r"\bjupyter-cache\b",
    r"\btools/\w+", r"\btests/\w+", r"\bthe build\b", r"\bbuilt site\b",
]), re.I)
NUMBER_CHIP = re.compile(r"^\s*[−-]?\d|\d\s*\[[−-]?\d")


class ProseText(HTMLParser):
    """The article's text outside code cells, code blocks and the Library reference's
    signatures; and the inline code spans of that text."""

    SKIP = ("cell_input", "cell_output", "highlight", "sig", "ib-explorer")

    def __init__(self):
        super().__init__()
        self.depth = 0          # inside <article>
        self.skipping = []      # open skipped elements
        self.stack = []
        self.text: list[str] = []
        self.chips: list[str] = []
        self._code: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        if tag == "article":
            self.depth += 1
        skip = tag in ("pre", "script", "style") or any(c in self.SKIP for c in classes)
        self.stack.append((tag, skip))
        if skip:
            self.skipping.append(tag)
        if tag == "code" and self.depth and not self.skipping:
            self._code = []

    def handle_endtag(self, tag):
        while self.stack:
            open_tag, skip = self.stack.pop()
            if skip:
                self.skipping.pop()
            if open_tag == "code" and self._code is not None:
                self.chips.append("".join(self._code))
                self._code = None
            if open_tag == "article":
                self.depth -= 1
            if open_tag == tag:
                break

    def handle_data(self, data):
        if self.depth and not self.skipping:
            self.text.append(data)
            if self._code is not None:
                self._code.append(data)


def prose(page) -> ProseText:
    parser = ProseText()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def pages(site):
    for md in nbtools.toc_files():
        rel = md.relative_to(nbtools.ROOT).with_suffix("").as_posix()
        yield rel, site / f"{rel}.html"


@pytest.mark.slow  # the fixture is asked for by name, which tests/built.py cannot see
@pytest.mark.parametrize("edition", ["site", "student_site"])
def test_no_machinery_in_the_readers_text(request, edition):
    site = request.getfixturevalue(edition)
    found = []
    for rel, page in pages(site):
        if rel in MACHINERY_PAGES or rel.startswith("book/reference/"):
            continue
        text = " ".join(" ".join(prose(page).text).split())
        for m in MACHINERY.finditer(text):
            found.append(f"{rel}: …{text[max(0, m.start() - 60):m.end() + 40]}…")
    assert not found, "machinery in the reader's text (say it in the appendix):\n" + "\n".join(found)


@pytest.mark.slow
@pytest.mark.parametrize("edition", ["site", "student_site"])
def test_no_number_is_a_code_chip(request, edition):
    site = request.getfixturevalue(edition)
    chips = [f"{rel}: `{chip}`" for rel, page in pages(site) if not rel.startswith("book/reference/")
             for chip in prose(page).chips if NUMBER_CHIP.search(chip)]
    assert not chips, "numbers set as inline code (glue them as text or write them as maths):\n" + "\n".join(chips)


def test_the_checks_see_machinery_and_chips(tmp_path):
    page = tmp_path / "p.html"
    page.write_text(
        "<html><body><article><p>Run on both cores, a <code>0.47 [0.45, 0.49]</code> and "
        "<code>ibcore.relu</code>.</p><div class='cell_input'><pre>cached on disk</pre></div>"
        "</article></body></html>")
    parsed = prose(page)
    text = " ".join(parsed.text)
    assert [m.group(0) for m in MACHINERY.finditer(text)] == ["cores"]
    assert [c for c in parsed.chips if NUMBER_CHIP.search(c)] == ["0.47 [0.45, 0.49]"]
