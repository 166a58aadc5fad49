"""The print edition (``make pdf``, ``make pdf-student``), read back with poppler's pdftotext.

Every page of the book but the library reference is there under its title, the mathematics
is typeset (no raw TeX outside code), every figure and explorer frame is printed, the
instructor PDF shows the solutions and the student PDF none of them. The cover names the
book, the papers it reproduces, its authors and the commit's date; cross-references carry
the page they jump to; the teaching blocks print open, the evidence at the chapter's end in
smaller type. Run by ``make check``, which passes the folder of the PDFs (``--pdf``) and the
sites they were printed from (``--site``, ``--student-site``).
"""
from __future__ import annotations

import datetime
import functools
import hashlib
import concurrent.futures
import html as htmllib
import json
import re
import shutil
import subprocess
from pathlib import Path

import jupytext
import pytest

from tools import notebooks as nbtools
from tools import pdf as printer
from tools.sphinx_editions import pdf_name

ROOT = nbtools.ROOT
# the pages of the print edition (the library reference is left out)
PRINTED = [ROOT / f"{entry['file']}.md" for entry in printer.printed_entries()]
RAW_TEX = re.compile(r"\$\$|\\begin\{|\\end\{|\\frac|\\sqrt|\\mathbb|\\left|\\norm|\\\(|\\\[")


def _pdf(folder: Path, edition: str) -> Path:
    path = folder / pdf_name(edition)
    if not path.exists():
        pytest.fail(f"{path} is missing: run `make pdf` first")
    if not shutil.which("pdftotext"):
        pytest.fail("pdftotext is missing: run `make system-deps`")
    return path


@functools.cache
def pages_text(path: Path, *, raw: bool = False) -> list[str]:
    """The text of each page of the PDF (pdftotext separates pages with form feeds).

    ``raw`` keeps the order in which Chromium wrote the text: prose stays in one piece
    around typeset formulas, whose glyphs pdftotext otherwise sorts into the lines.
    """
    out = subprocess.run(["pdftotext", *(["-raw"] if raw else []), "-enc", "UTF-8", str(path), "-"],
                         capture_output=True, text=True, check=True).stdout
    return out.split("\f")


def squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def ranges(path: Path) -> dict[str, tuple[int, int]]:
    """0-based [first, last) page indices of each book page, from the index written beside the PDF."""
    index = json.loads(path.with_suffix(".json").read_text())["pages"]
    n = len(pages_text(path))
    starts = [p["first_page"] - 1 for p in index] + [n]
    return {p["file"]: (starts[i], starts[i + 1]) for i, p in enumerate(index)}


def md_title(md: Path) -> str:
    """The page's title as printed: its Markdown heading without inline-code backticks."""
    title = next(line[2:].strip() for line in md.read_text(encoding="utf-8").splitlines() if line.startswith("# "))
    return title.replace("`", "")


@functools.cache
def code_text() -> str:
    """Every code cell and code block of the book, whitespace squashed (TeX is allowed there)."""
    chunks = []
    for md in nbtools.toc_files():
        text = md.read_text(encoding="utf-8")
        chunks += re.findall(r"^```[^\n]*\n(.*?)^```", text, flags=re.S | re.M)
        if nbtools.is_myst_notebook(md):
            chunks += [c.source for c in jupytext.reads(text, fmt="md:myst").cells if c.cell_type == "code"]
    return squash("\n".join(chunks))


def letters(text: str) -> str:
    """Only the letters, lower case: compares prose whatever the line breaks and spacing."""
    return re.sub(r"[^a-z]", "", text.lower())


def prose_runs(fragment: str, words: int = 6) -> list[str]:
    """Runs of at least ``words`` words of prose in an HTML fragment (no maths, no code)."""
    fragment = re.sub(r'<div class="highlight.*?</pre></div>|<pre\b.*?</pre>', "|", fragment, flags=re.S)
    fragment = re.sub(r'<span class="math[^"]*">.*?</span>|<code\b.*?</code>', "|", fragment, flags=re.S)
    fragment = re.sub(r"<(div|p|li|section)\b[^>]*>|</(div|p|li|section)>", "|", fragment)
    text = htmllib.unescape(re.sub(r"<[^>]+>", "", fragment))
    runs = [squash(run).strip(" .,;:()") for run in text.split("|")]
    return [run for run in runs if len(run.split()) >= words]


def solutions(site: Path, md: Path) -> list[str]:
    """The first prose run of each solution on a chapter's page of the instructor site."""
    page = (site / md.relative_to(ROOT).with_suffix(".html")).read_text(encoding="utf-8")
    blocks = re.findall(r'<div class="solution[ "].*?<section id="solution-content">(.*?)</section>', page, re.S)
    return [run for block in blocks for run in prose_runs(block)[:1]]


@pytest.mark.parametrize("edition", ["instructor", "student"])
def test_every_page_of_the_book_is_printed_under_its_title(pdf_folder, edition):
    path = _pdf(pdf_folder, edition)
    text = squash("\n".join(pages_text(path)))
    missing = [md_title(md) for md in PRINTED if squash(md_title(md)) not in text]
    assert not missing, f"{path.name}: titles missing: {missing}"
    found = ranges(path)
    for md in PRINTED:
        first, last = found[md.relative_to(ROOT).with_suffix("").as_posix()]
        assert last > first, f"{md}: no page printed"
        assert squash(md_title(md)) in squash(pages_text(path)[first]), f"{md}: its first page lacks its title"
    assert "Contents" in pages_text(path)[1] or "Contents" in pages_text(path)[2]


@pytest.mark.parametrize("edition", ["instructor", "student"])
def test_mathematics_is_typeset_no_raw_tex_outside_code(pdf_folder, edition):
    path = _pdf(pdf_folder, edition)
    code = code_text()
    raw = []
    for number, page in enumerate(pages_text(path), start=1):
        for line in page.splitlines():
            if RAW_TEX.search(line) and squash(line) not in code:
                raw.append(f"page {number}: {line.strip()[:120]}")
    assert not raw, f"{path.name}: raw TeX outside code:\n" + "\n".join(raw[:20])
    assert "√" in "".join(pages_text(path)), "typeset square roots are missing: did MathJax run?"


@functools.cache
def _page_images(path: Path) -> list[set[str]]:
    """The distinct images drawn on each page: digests of their streams as stored (pypdf's
    ``page.images`` decodes each image and encodes it again as PNG, ten times slower)."""
    from pypdf import PdfReader

    def digests(resources, seen):
        for ref in (resources or {}).get("/XObject", {}).values():
            obj = ref.get_object()
            if obj.get("/Subtype") == "/Image":
                seen.add(hashlib.sha256(obj.get_data()).hexdigest())
            elif obj.get("/Subtype") == "/Form":  # a group that draws images of its own
                digests(obj.get("/Resources"), seen)
        return seen

    return [digests(page.get("/Resources"), set()) for page in PdfReader(path).pages]


def _images_on(path: Path, first: int, last: int) -> int:
    return len(set().union(*_page_images(path)[first:last]))


@pytest.mark.parametrize("edition", ["instructor", "student"])
def test_every_figure_and_explorer_frame_is_printed(pdf_folder, edition, site, student_site):
    path = _pdf(pdf_folder, edition)
    built = site if edition == "instructor" else student_site
    found = ranges(path)
    short = []
    for md in nbtools.chapters():
        page = (built / md.relative_to(ROOT).with_suffix(".html")).read_text(encoding="utf-8")
        article = page[page.find("<main"):page.find("</main>")]
        figures = len(set(re.findall(r'<img[^>]+src="([^"]*_images/[^"]+)"', article)))
        explorers = page.count('"ib-explorer"')  # one default frame each, from the widget state
        first, last = found[md.relative_to(ROOT).with_suffix("").as_posix()]
        printed = _images_on(path, first, last)
        if printed < figures + explorers:
            short.append(f"{md.name}: {printed} images printed, {figures} figures + {explorers} explorers")
    assert not short, f"{path.name}:\n" + "\n".join(short)


def test_instructor_pdf_shows_solutions_and_student_pdf_none(pdf_folder, site):
    instructor, student = _pdf(pdf_folder, "instructor"), _pdf(pdf_folder, "student")
    # (a reference in a solution carries a page number in print, not on the site)
    i_text = letters(without_page("\n".join(pages_text(instructor, raw=True))))
    s_text = letters(without_page("\n".join(pages_text(student, raw=True))))
    samples = [s for md in nbtools.chapters() for s in solutions(site, md)]
    assert len(samples) >= len(nbtools.chapters()), "too few solution texts to compare"
    missing = [s for s in samples if letters(s) not in i_text]
    leaked = [s for s in samples if letters(s) in s_text]
    assert not missing, f"solutions missing from the instructor PDF: {missing[:5]}"
    assert not leaked, f"solution text in the student PDF: {leaked[:5]}"


@pytest.mark.parametrize("edition", ["instructor", "student"])
def test_each_site_links_its_own_pdf(pdf_folder, edition, site, student_site):
    path = _pdf(pdf_folder, edition)
    built = site if edition == "instructor" else student_site
    copy = built / "pdf" / pdf_name(edition)
    assert copy.read_bytes() == path.read_bytes(), f"{copy} is not the PDF of {path}"
    for md in nbtools.toc_files():
        rel = md.relative_to(ROOT).with_suffix(".html")
        page = (built / rel).read_text(encoding="utf-8")
        links = re.findall(r'href="([^"]*pdf/[^"]+\.pdf)"', page)
        assert links, f"{rel}: no link to the PDF"
        assert all((built / rel).parent.joinpath(link).resolve() == copy.resolve() for link in links), links


# ---------------------------------------------------------------- the PDF as a book
def _page_count(path: Path) -> int:
    from pypdf import PdfReader

    return len(PdfReader(path).pages)


FOOT = 790  # points from the top of an A4 page (842 pt): its bottom margin of 18 mm


def foot_text(path: Path) -> list[list[str]]:
    """The words that lie inside each page's bottom margin (pdftotext's boxes; a stretched
    MathJax delimiter can report a box taller than the page, which is not inside it)."""
    out = subprocess.run(["pdftotext", "-bbox", "-y", str(FOOT), "-H", "60", "-W", "600", "-enc", "UTF-8",
                          str(path), "-"], capture_output=True, text=True, check=True).stdout
    word = re.compile(r'<word xMin="[\d.-]+" yMin="([\d.-]+)" xMax="[\d.-]+" yMax="([\d.-]+)">([^<]*)</word>')
    return [[htmllib.unescape(w) for top, bottom, w in word.findall(page) if float(top) >= FOOT
             and float(bottom) <= 843] for page in out.split("<page ")[1:]]


@pytest.mark.parametrize("edition", ["instructor", "student"])
def test_pages_carry_their_number_at_the_foot(pdf_folder, edition):
    path = _pdf(pdf_folder, edition)
    feet = foot_text(path)
    assert len(feet) == _page_count(path)
    wrong = [f"page {n}: {foot or 'nothing'} at its foot" for n, foot in enumerate(feet, start=1)
             if n > 1 and foot != [str(n)]]
    assert not wrong, f"{path.name}: {len(wrong)} pages without their number at the foot:\n" + "\n".join(wrong[:10])
    assert not feet[0], "the cover carries no number"


def _link_targets(path: Path) -> dict[int, set[int]]:
    """0-based page -> the 0-based pages its links jump to (explicit destinations)."""
    from pypdf import PdfReader

    reader = PdfReader(path)
    index = {page.indirect_reference.idnum: i for i, page in enumerate(reader.pages)}
    targets: dict[int, set[int]] = {}
    for i, page in enumerate(reader.pages):
        for annot in page.get("/Annots", []):
            annot = annot.get_object()
            dest = annot.get("/Dest")
            if annot.get("/Subtype") == "/Link" and dest is not None:
                targets.setdefault(i, set()).add(index[dest[0].idnum])
    return targets


@pytest.mark.parametrize("edition", ["instructor", "student"])
def test_contents_link_to_each_page_and_the_outline_lists_them(pdf_folder, edition):
    from pypdf import PdfReader

    path = _pdf(pdf_folder, edition)
    starts = [p["first_page"] - 1 for p in json.loads(path.with_suffix(".json").read_text())["pages"]]
    contents = range(1, starts[0])  # after the title page, before the book's first page
    linked = set().union(*(_link_targets(path).get(i, set()) for i in contents))
    missing = sorted(set(starts) - linked)
    assert not missing, f"{path.name}: the contents do not link to the pages starting at {[m + 1 for m in missing]}"
    numbers = {int(n) for i in contents for n in re.findall(r"\b(\d+)\s*$", pages_text(path)[i], re.M)}
    assert {s + 1 for s in starts} <= numbers, "the contents print the page where each page of the book starts"
    reader = PdfReader(path)
    flat = []

    def walk(items):
        for item in items:
            walk(item) if isinstance(item, list) else flat.append(reader.get_destination_page_number(item))

    walk(reader.outline)
    assert set(starts) <= set(flat), f"{path.name}: the outline misses pages of the book"
    # the chapters do not print their on-page contents list again (the theme's print-only one)
    again = [n + 1 for n, text in enumerate(pages_text(path)) if n >= starts[0]
             and any(line.strip() == "Contents" for line in text.splitlines())]
    assert not again, f"{path.name}: a contents list printed again on pages {again}"


HALF_EMPTY = 0.55  # a page whose last ink (above the foot's number) lies higher is half empty


def half_empty_pages(path: Path) -> list[int]:
    """1-based numbers of the pages whose content ends above HALF_EMPTY of the page's height."""
    import tempfile

    import numpy as np
    from PIL import Image

    with tempfile.TemporaryDirectory() as folder:
        subprocess.run(["pdftoppm", "-r", "15", "-gray", str(path), f"{folder}/p"], check=True)
        ends = []
        for image in sorted(Path(folder).glob("p-*.pgm"), key=lambda f: int(f.stem.split("-")[1])):
            pixels = np.asarray(Image.open(image))
            body = pixels[: int(0.92 * pixels.shape[0])]  # the number's band at the foot left out
            inked = np.flatnonzero((body < 200).any(axis=1))
            ends.append(inked.max() / pixels.shape[0] if inked.size else 0.0)
    return [n for n, end in enumerate(ends, start=1) if end < HALF_EMPTY]


@pytest.mark.parametrize("edition", ["instructor", "student"])
def test_few_pages_end_half_empty(pdf_folder, edition):
    """Besides the front matter and the last page of each page of the book, at most one in 20
    pages may end above 55% of its height (a figure or short block that moved whole)."""
    path = _pdf(pdf_folder, edition)
    starts = [p["first_page"] for p in json.loads(path.with_suffix(".json").read_text())["pages"]]
    total = _page_count(path)
    natural = set(range(1, starts[0])) | {s - 1 for s in starts[1:]} | {total}
    half = half_empty_pages(path)
    others = [n for n in half if n not in natural]
    print(f"\n{path.name}: {total} pages, {path.stat().st_size / 1e6:.1f} MB; {len(half)} end above "
          f"{HALF_EMPTY:.0%} of their height, {len(others)} of them inside a page of the book: {others}")
    assert len(others) <= total / 20, f"{path.name}: half-empty pages inside the book's pages: {others}"


# ---------------------------------------------------------------- front matter and what is left out
@pytest.mark.parametrize("edition", ["instructor", "student"])
def test_the_cover_names_the_book_the_papers_it_reproduces_and_the_commits_date(pdf_folder, edition):
    path = _pdf(pdf_folder, edition)
    cover = pages_text(path)[0]
    config = nbtools.load_config()
    assert squash(config["title"]) in squash(cover), "the book's title is not on the cover"
    assert squash(config["author"]) in squash(cover), "the book's authors are not on the cover"
    # the papers' authors are named as the source of the book, after it, not as its authors
    source = squash(cover).lower().find("reproduced from")
    assert 0 <= squash(cover).find(squash(config["author"])) < source, "no 'Reproduced from' after the authors"
    for authors in ("Lai, Wang, Tao & Muthukumar", "Bocchi, Regimbeau, Lucibello, Saglietti & Cammarota"):
        assert squash(cover).find(authors) > source, f"the cover does not name {authors} as its source"
    for paper in printer.reproduced_papers():  # pdftotext splits a hyphenated word: compare letters
        assert letters(paper["title"]) in letters(cover), f"the cover lacks the title {paper['title']!r}"
    assert ("Instructor edition" if edition == "instructor" else "Student edition") in cover
    # the date is the commit's, whichever commit the PDF was printed from (deterministic for it)
    match = re.search(r"(\d{1,2} [A-Z][a-z]+ \d{4}) \(commit ([0-9a-f]{7,})", squash(cover))
    assert match, f"no date and commit on the cover: {squash(cover)[-200:]}"
    day = subprocess.run(["git", "-C", str(ROOT), "show", "-s", "--format=%cs", match[2]],
                         capture_output=True, text=True, check=True).stdout.strip()
    date = datetime.date.fromisoformat(day)
    assert match[1] == f"{date.day} {date:%B %Y}", f"the cover's date {match[1]} is not commit {match[2]}'s, {day}"


@pytest.mark.parametrize("edition", ["instructor", "student"])
def test_the_library_reference_is_left_out_and_the_contents_say_where_it_is(pdf_folder, edition):
    path = _pdf(pdf_folder, edition)
    reference = [md for md in nbtools.toc_files() if md.relative_to(ROOT).as_posix().startswith(printer.ONLINE_ONLY)]
    assert reference, "the library reference is not where tools/pdf.py looks for it"
    printed = {p["file"] for p in json.loads(path.with_suffix(".json").read_text())["pages"]}
    assert printed == {md.relative_to(ROOT).with_suffix("").as_posix() for md in PRINTED}
    starts = [p["first_page"] - 1 for p in json.loads(path.with_suffix(".json").read_text())["pages"]]
    book = squash("\n".join(pages_text(path)[starts[0]:]))
    index = next(md for md in reference if md.name == "index.md")
    found = [md_title(md) for md in reference if md != index and squash(md_title(md)) in book]
    assert not found, f"{path.name}: pages of the library reference printed: {found}"
    # its opening sentence and its conventions paragraph
    assert "is the small library behind every chapter" not in book
    contents = squash("\n".join(pages_text(path)[1:starts[0]]))
    assert squash(f"{md_title(index)} {printer.ONLINE_ONLY_NOTE}") in contents, \
        "the contents do not say where the library reference is"


# ---------------------------------------------------------------- page numbers of cross-references
def _jumps(path: Path) -> list[dict]:
    """Every link of the PDF that jumps within it: the 0-based page it is on and the page it
    jumps to, its text (the words inside its rectangles), and the page where it ends.
    Consecutive rectangles that jump to the same page are one link until a page number ends
    it (a link that wraps has one rectangle per line, and may go on on the next page)."""
    from pypdf import PdfReader

    reader = PdfReader(path)
    index = {page.indirect_reference.idnum: i for i, page in enumerate(reader.pages)}
    out = subprocess.run(["pdftotext", "-bbox", "-enc", "UTF-8", str(path), "-"],
                         capture_output=True, text=True, check=True).stdout
    word = re.compile(r'<word xMin="([\d.-]+)" yMin="([\d.-]+)" xMax="([\d.-]+)" yMax="([\d.-]+)">([^<]*)</word>')
    words = [[(*map(float, w[:4]), htmllib.unescape(w[4])) for w in word.findall(page)]
             for page in out.split("<page ")[1:]]
    jumps: list[dict] = []
    for i, page in enumerate(reader.pages):
        height = float(page.mediabox.height)
        first = True
        for annot in page.get("/Annots", []):
            annot = annot.get_object()
            if annot.get("/Subtype") != "/Link" or annot.get("/Dest") is None:
                continue
            target = index[annot["/Dest"][0].idnum]
            x0, y0, x1, y1 = map(float, annot["/Rect"])
            top, bottom = height - y1, height - y0
            # the words of the line the rectangle covers most (a tall line's rectangle reaches
            # into the next one)
            overlap = [(min(bottom, b) - max(top, t), w) for left, t, right, b, w in words[i]
                       if x0 - 1 <= (left + right) / 2 <= x1 + 1 and min(bottom, b) > max(top, t)]
            most = max((o for o, _ in overlap), default=0)
            text = " ".join(w for o, w in overlap if o >= 0.6 * most)
            last = jumps[-1] if jumps else None
            # the same link: its next piece on the line (a page number is a piece of its own), or
            # its next line, or its first line on the next page, until a page number ends it
            if last and last["target"] == target and (
                    last["end"] == i and abs(last["box"][1] - top) < 2 and abs(last["box"][2] - x0) < 2
                    or not PAGE_LABEL.search(last["text"]) and (last["end"] == i or first and last["end"] == i - 1)):
                last.update(text=f"{last['text']} {text}".strip(), end=i, box=(x0, top, x1))
            else:
                jumps.append({"page": i, "end": i, "target": target, "text": text, "box": (x0, top, x1)})
            first = False
    return jumps


PAGE_LABEL = re.compile(r"\bp\.\s(\d+)\)")
# a numbered place that a link names: "(I.3.1)", "(P.1)", "Theorem II.3.1", "Fig. I.2.1"
PLACE = re.compile(r"\((?:[IVP]+\.)\d+(?:\.\d+)*\)|\b(?:Theorem|Proposition|Lemma|Conjecture|Corollary|"
                   r"Definition|Fig\.|Figure|Table|Exercise)\s(?:[IVP]+\.)?\d+(?:\.\d+)*")


def without_page(text: str) -> str:
    """A link's text without the page number the print adds to it."""
    return squash(re.sub(r"\s*\(p\.\s\d+\)", "", re.sub(r",\s*p\.\s\d+\)", ")", text)))


@pytest.mark.parametrize("edition", ["instructor", "student"])
def test_cross_references_carry_the_page_they_jump_to(pdf_folder, edition, site, student_site):
    """Every link of the book to a place on another page names that page ("(p. 57)", or
    "(I.3.1, p. 57)"), and the number is the page it jumps to, where the place is: a page's
    title starts it, an equation's number or a theorem's name is on it. Citations and
    glossary terms carry none."""
    path = _pdf(pdf_folder, edition)
    pages = json.loads(path.with_suffix(".json").read_text())["pages"]
    bibliography, glossary = ranges(path)["book/bibliography"], ranges(path)["book/glossary"]
    titles = {letters(p["title"]): p["first_page"] - 1 for p in pages}
    jumps = [j for j in _jumps(path) if j["page"] >= pages[0]["first_page"] - 1]  # not the contents
    wrong, missing, misplaced, labelled, to_titles, to_places = [], [], [], 0, 0, 0
    # a link whose text holds maths is cut into several rectangles (the maths is an element
    # of its own): its number is in one of them, and counts for the others
    numbered = {}
    for jump in jumps:
        if found := PAGE_LABEL.findall(jump["text"]):
            numbered.setdefault((jump["end"], jump["target"]), found)
    for jump in jumps:
        numbers = PAGE_LABEL.findall(jump["text"]) or numbered.get((jump["end"], jump["target"]), [])
        where = f"page {jump['end'] + 1}: {jump['text'][:90]!r} jumps to page {jump['target'] + 1}"
        name = without_page(jump["text"])
        if not numbers:
            # a citation or a glossary term carries no number: it jumps to the bibliography or
            # the glossary, whose place a reader knows
            if (jump["target"] != jump["end"] and jump["end"] == jump["page"]
                    and not bibliography[0] <= jump["target"] < bibliography[1]
                    and not glossary[0] <= jump["target"] < glossary[1]):
                missing.append(where)
            continue
        labelled += 1
        if int(numbers[-1]) != jump["target"] + 1:
            wrong.append(where)
        if letters(name) in titles:
            to_titles += 1
            if jump["target"] != titles[letters(name)]:
                misplaced.append(f"{where}, not to that page's start")
        elif place := PLACE.search(name):
            to_places += 1
            if place[0] not in squash(pages_text(path)[jump["target"]]):
                misplaced.append(f"{where}, which does not show {place[0]}")
    print(f"\n{path.name}: {len(jumps)} links within the book, {labelled} with a page number: "
          f"{to_titles} to a page's start, {to_places} to a numbered place")
    assert to_titles >= 50 and to_places >= 30, f"{path.name}: too few cross-references carry a page number"
    assert not wrong, f"{path.name}: page numbers that are not the page jumped to:\n" + "\n".join(wrong[:10])
    assert not missing, f"{path.name}: links to another page without its number:\n" + "\n".join(missing[:10])
    assert not misplaced, f"{path.name}: links that do not lead to what they name:\n" + "\n".join(misplaced[:10])


# ---------------------------------------------------------------- the teaching blocks in print
TEACHING_RST = """Teaching blocks
===============

Teaching blocks in print
------------------------

The gap falls like one over the square root of d, storymarker for every size we tried.

.. evidence-start:: the slope in d

The fitted slope is evidencemarker -0.50 with interval [-0.53, -0.47] over 40 draws.

.. code-block:: python

   assert abs(slope + 0.5) < 0.05  # the paper's exponent

.. evidence-end::

.. think:: Will the gap grow or shrink with d?

   Predict the slope questionmarker of the gap against d on a log-log plot.

   .. answer::

      It shrinks, answermarker with slope -1/2.
"""


def _teaching_section(folder: Path) -> str:
    """The HTML of an evidence block and a Think prompt in a section, as tools/sphinx_teaching.py
    writes them (a one-page Sphinx build)."""
    from sphinx.application import Sphinx

    (folder / "src").mkdir()
    (folder / "src" / "conf.py").write_text('extensions = ["tools.sphinx_teaching"]\n')
    (folder / "src" / "index.rst").write_text(TEACHING_RST)
    app = Sphinx(str(folder / "src"), str(folder / "src"), str(folder / "out"), str(folder / "doctrees"),
                 "html", status=None, warningiserror=True)
    app.build()
    page = (folder / "out" / "index.html").read_text(encoding="utf-8")
    return re.search(r'<section id="teaching-blocks-in-print">.*?</section>', page, re.S)[0]


def test_teaching_blocks_print_open_and_the_evidence_at_the_chapters_end(pdf_folder, site, tmp_path):
    """The prologue with an evidence block and a Think prompt in its first section, printed as
    the print edition prints: the prompt and its answer in place, the evidence in smaller type
    at the chapter's end, a line in its place that names its page, and a link back."""
    name = "book/prologue/linear_min_norm"
    printed = tmp_path / "site"
    (printed / name).parent.mkdir(parents=True)
    for item in site.iterdir():  # the site's assets as they are; the one page changed
        if item.name not in ("book", "pdf"):
            (printed / item.name).symlink_to(item)
    for item in (site / name).parent.iterdir():
        if item.name != f"{Path(name).name}.html":
            (printed / name).parent.joinpath(item.name).symlink_to(item)
    page = (site / f"{name}.html").read_text(encoding="utf-8")
    opening = page.index("</p>", page.index("<h1")) + len("</p>")
    (printed / f"{name}.html").write_text(page[:opening] + _teaching_section(tmp_path) + page[opening:],
                                          encoding="utf-8")
    # in a thread of its own: Playwright's sync API refuses to start where an asyncio loop
    # runs, and the site's browser checks may have left theirs running in this one
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        path = pool.submit(printer.build, "instructor", printed, tmp_path / "pdf",
                           entries=[{"file": name, "part": None}], log=lambda *_: None).result()
    texts = [squash(t) for t in pages_text(path)]

    def page_of(text):
        return next(n for n, t in enumerate(texts, start=1) if text in t)

    story, question, answer = page_of("storymarker"), page_of("questionmarker"), page_of("answermarker")
    assert answer in (question, question + 1), "the Think prompt's answer is not printed with it"
    assert "Think: Will the gap grow or shrink with d?" in texts[question - 1] and "Answer" in texts[answer - 1]
    stub = re.search(r"Evidence: the slope in d \(p\. (\d+)\)", texts[story - 1])
    assert stub, f"no line names the evidence and its page where it was: {texts[story - 1][:300]}"
    evidence = page_of("evidencemarker")
    # the chapter's evidence blocks come after its main text, its last exercise included
    assert int(stub[1]) == evidence > page_of("best constant step"), \
        "the evidence is not at the chapter's end, on the page named"
    assert evidence > story and "assert abs(slope + 0.5) < 0.05" in texts[evidence - 1]
    assert f"For the section Teaching blocks in print (p. {story})" in texts[evidence - 1], "no link back"
    assert texts[evidence - 1].index("Evidence: the slope in d") < texts[evidence - 1].index("evidencemarker")

    out = subprocess.run(["pdftotext", "-bbox", "-enc", "UTF-8", str(path), "-"], capture_output=True, text=True,
                         check=True).stdout
    heights = {w: float(bottom) - float(top) for top, bottom, w in
               re.findall(r'yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">(\w+marker)</word>', out)}
    assert heights["evidencemarker"] < 0.92 * heights["storymarker"], f"the evidence is not in smaller type: {heights}"
    assert heights["answermarker"] >= 0.95 * heights["storymarker"], f"the answer prints small: {heights}"
