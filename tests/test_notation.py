"""Each part's notation page (book/<part>/notation.md) against the chapters of that part.

A notation page is a table, one row per symbol: | Symbol | Meaning | Where |. These tests
keep it in step with the chapters. Every symbol the chapters typeset appears in the first
column of a row; no symbol has two rows (one meaning per symbol within a part); and a row
that names the chapters defining its symbol (``{doc}`01_setting` ``) is right: the symbol,
as the row writes it, occurs in the maths of one of them. A renamed symbol, a new one, or a
row left behind therefore fails.
"""
from __future__ import annotations

import functools
import re
from pathlib import Path

import jupytext
import pytest

from tools import notebooks as nbtools

PARTS = ("relu", "quadratic")
HEADER = re.compile(r"^\|\s*Symbol\s*\|\s*Meaning\s*\|\s*Where\s*\|\s*$")

#: Letters that are symbols (the book's own macros included); other commands are operators
#: or fonts (\frac, \norm, \E, \mathrm{...}) and name nothing part-specific.
GREEK = ("alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda "
         "mu nu xi pi rho sigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi "
         "Pi Sigma Upsilon Phi Psi Omega relu wstar").split()
TEXT_GROUP = re.compile(r"\\(?:text|mathrm|operatorname\*?|textrm|mbox)\s*\{[^{}]*\}")
RM = re.compile(r"\\rm\s*[a-zA-Z]+")
COMMAND = re.compile(r"\\([a-zA-Z]+)")
LETTER = re.compile(r"(?<![a-zA-Z])[a-zA-Z](?![a-zA-Z])")


def maths(markdown: str) -> list[str]:
    """The TeX of every $...$ and $$...$$ of a Markdown text."""
    display = re.findall(r"\$\$(.+?)\$\$", markdown, re.S)
    inline = re.findall(r"\$([^$\n]+?)\$", re.sub(r"\$\$.+?\$\$", " ", markdown, flags=re.S))
    return display + inline


def symbols(tex: str) -> set[str]:
    """The symbols of a TeX formula: Greek letters and the book's macros, and Latin letters
    standing alone (``T_{\\rm orth}`` gives T, ``\\mathcal F_j`` gives F and j)."""
    tex = RM.sub(" ", TEXT_GROUP.sub(" ", tex))
    found = {name for name in COMMAND.findall(tex) if name in GREEK}
    return found | set(LETTER.findall(COMMAND.sub(" ", tex)))


@functools.lru_cache(maxsize=None)
def chapter_markdown(md: Path) -> str:
    """The Markdown cells of a chapter (its prose and maths, not its code)."""
    nb = jupytext.read(md, fmt="md:myst")
    return "\n".join(cell.source for cell in nb.cells if cell.cell_type == "markdown")


def rows(page: Path) -> list[tuple[str, str, str]]:
    """The rows (symbol, meaning, where) of the page's Symbol | Meaning | Where tables."""
    found, inside = [], False
    for line in page.read_text(encoding="utf-8").splitlines():
        if HEADER.match(line):
            inside = True
            continue
        if inside and re.fullmatch(r"\|[-:| ]+\|", line.strip()):
            continue  # the header's rule
        if inside and line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
            assert len(cells) == 3, f"{page.name}: a row needs three cells, got {line!r}"
            found.append(tuple(cells))
        else:
            inside = False
    return found


def squeeze(tex: str) -> str:
    return re.sub(r"\s+", "", tex)


def missing_symbols(chapters: list[Path], page: Path) -> dict[str, list[str]]:
    """Symbols typeset in the chapters but in no row of the page, with where they occur."""
    listed = set().union(*(symbols(t) for sym, _, _ in rows(page) for t in maths(sym)))
    missing: dict[str, list[str]] = {}
    for md in chapters:
        for tex in maths(chapter_markdown(md)):
            for name in symbols(tex) - listed:
                missing.setdefault(name, []).append(f"{md.name}: ${tex.strip()[:60]}$")
    return missing


def misplaced_rows(page: Path) -> list[str]:
    """Rows whose symbol (as written) occurs in none of the chapters the row names."""
    wrong = []
    for sym, _, where in rows(page):
        docs = re.findall(r"\{doc\}`(?:[^`<]*<)?([^`>]+)>?`", where)
        if not docs:
            continue  # notation used throughout the part (norms, indices): no chapter named
        texts = [squeeze(chapter_markdown(page.parent / f"{doc}.md")) for doc in docs]
        for tex in maths(sym):
            if not any(squeeze(tex) in text for text in texts):
                wrong.append(f"${tex}$ is not in {', '.join(docs)}")
    return wrong


def part_chapters(part: str) -> list[Path]:
    return [md for md in nbtools.chapters() if md.parent.name == part]


@pytest.mark.parametrize("part", PARTS)
def test_every_symbol_of_the_part_has_a_row(part):
    missing = missing_symbols(part_chapters(part), nbtools.ROOT / "book" / part / "notation.md")
    assert not missing, f"book/{part}/notation.md lacks a row for:\n" + "\n".join(
        f"  {name}: {where[0]} (and {len(where) - 1} more)" for name, where in sorted(missing.items()))


@pytest.mark.parametrize("part", PARTS)
def test_one_row_per_symbol(part):
    seen: dict[str, str] = {}
    twice = []
    for sym, meaning, _ in rows(nbtools.ROOT / "book" / part / "notation.md"):
        for tex in maths(sym):
            key = squeeze(tex)
            if key in seen:
                twice.append(f"${tex}$: {seen[key]!r} and {meaning!r}")
            seen[key] = meaning
    assert not twice, f"book/{part}/notation.md gives a symbol two rows:\n" + "\n".join(twice)


@pytest.mark.parametrize("part", PARTS)
def test_each_row_names_a_chapter_that_uses_its_symbol(part):
    wrong = misplaced_rows(nbtools.ROOT / "book" / part / "notation.md")
    assert not wrong, f"book/{part}/notation.md:\n" + "\n".join(wrong)


def test_the_checks_see_a_new_symbol_and_a_stale_row(tmp_path):
    chapter = tmp_path / "01_chapter.md"
    chapter.write_text(
        "---\njupytext:\n  text_representation:\n    format_name: myst\n"
        "kernelspec:\n  display_name: Python 3\n  language: python\n  name: python3\n---\n\n"
        "We write $\\kappa = \\norm{x}^2$ and $T_{\\mathrm{orth}}$, and $\\zeta$ is new.\n\n"
        "```{code-cell} ipython3\nzeta = 1  # $\\eta$ in code is not prose\n```\n")
    page = tmp_path / "notation.md"
    page.write_text(
        "| Symbol | Meaning | Where |\n|---|---|---|\n"
        "| $\\kappa$ | the scale | {doc}`01_chapter` |\n"
        "| $T_{\\mathrm{orth}}$ | a step | {doc}`01_chapter` |\n"
        "| $A_2$ | a constant, renamed in the chapter | {doc}`01_chapter` |\n"
        "| $x$ | an input | throughout |\n")
    assert set(missing_symbols([chapter], page)) == {"zeta"}
    assert misplaced_rows(page) == ["$A_2$ is not in 01_chapter"]
    assert symbols(r"\frac{\norm{w_{\mathrm{GD}} - \wstar}}{\norm{\wstar}} + \mathcal F_j") == {
        "w", "wstar", "F", "j"}
