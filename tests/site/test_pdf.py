"""The print edition (``make pdf``), read back with poppler's pdftotext.

Every page of the book is there under its title, the mathematics is typeset (no raw TeX
outside code), every figure and explorer frame is printed, the instructor PDF shows the
solutions and the student PDF none of them. Run by ``make check``, which passes the folder of
the PDFs (``--pdf``) and the sites they were printed from (``--site``, ``--student-site``).
"""
from __future__ import annotations

import functools
import hashlib
import html as htmllib
import json
import re
import shutil
import subprocess
from pathlib import Path

import jupytext
import pytest

from tools import notebooks as nbtools
from tools.sphinx_editions import pdf_name

ROOT = nbtools.ROOT
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
    missing = [md_title(md) for md in nbtools.toc_files() if squash(md_title(md)) not in text]
    assert not missing, f"{path.name}: titles missing: {missing}"
    found = ranges(path)
    for md in nbtools.toc_files():
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
    i_text = letters("\n".join(pages_text(instructor, raw=True)))
    s_text = letters("\n".join(pages_text(student, raw=True)))
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
    assert not feet[0], "the title page carries no number"


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
