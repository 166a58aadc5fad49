"""The print edition: every page of the book printed by headless Chromium, bound into one PDF.

Sphinx's single-page builder crashes on sphinx-proof's nodes, and a LaTeX route would
need a TeX distribution; Chromium prints exactly what the website shows, with MathJax's
mathematics, the theorem boxes, the figures and the bibliography. The site's print style
sheet (``_static/ib-site.css``) leaves out the navigation, opens every solution of the
edition and shows each explorer as its default frame under its caption; its script
(``_static/ib-layout.js``, ``ibPrint``) runs on the page laid out for print first: each
chapter's evidence moves to the chapter's end, wrapped code lines keep their indentation,
wide equations and tables shrink to the page, and only short blocks refuse to break across
pages. A page whose script raises or logs an error stops the print with the page's name and
the error: it may be half prepared.

The PDF is bound as a book: a cover (the book's title, the two papers it reproduces, its
authors, the edition and the date of the commit it was built from), a contents page whose
entries link to the pages they name, every page numbered at its foot (the PDF viewer's page
number), an outline (bookmarks) by part and page, and links between places of the book that
jump within the PDF. The library reference (``book/reference``, ibcore's docstrings, a third
of the pages) is left out: the contents say where it is. Figures are printed at 200 dpi in at
most 256 colours (the site's are 2x retina PNGs, about 250 dpi on the page), and boxes
without their shadows, which Chromium prints as bitmaps. A copy is written into the site,
``<site>/pdf/<name>.pdf``, where the sidebar links to it; beside the PDF, ``<name>.json``
records where each page of the book starts.

Cross-references carry the page they lead to: "Theorem I.3.1 (p. 57)", and an equation's
number "(I.3.1, p. 57)"; a reference whose target is on its own page, a citation and a
glossary term carry none. Chromium has no ``target-counter()``: every page of the book is
printed with a placeholder where each number goes, the page of every target is read from the
printed PDFs (Chromium writes a named destination for each id that a link of the page names,
and the page's hidden links name every id that the book refers to), and the pages whose
numbers are new or moved are printed again, in the tabs they stayed open in, until none moves.

Usage::

    python -m tools.pdf instructor _build/html _build/pdf    # make pdf
    python -m tools.pdf student _build/student _build/pdf    # make pdf-student
"""
from __future__ import annotations

import argparse
import dataclasses
import datetime
import html
import io
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import yaml

from tools import browser as br
from tools import notebooks as nbtools
from tools.sphinx_editions import pdf_name

MARGIN_MM = {"top": 18, "bottom": 18, "left": 16, "right": 16}
PAPER = {"format": "A4", "print_background": True,
         "margin": {side: f"{mm}mm" for side, mm in MARGIN_MM.items()}}
CSS_PX_PER_MM = 96 / 25.4
# the page's printable box in CSS pixels: the layout that ibPrint.prepare measures
PRINT_WIDTH = round((210 - MARGIN_MM["left"] - MARGIN_MM["right"]) * CSS_PX_PER_MM)
PRINT_HEIGHT = round((297 - MARGIN_MM["top"] - MARGIN_MM["bottom"]) * CSS_PX_PER_MM)
# figures printed 178 mm wide at most: 1400 pixels is 200 dpi
FIGURE_MAX_PIXELS = 1400

# The library reference: ibcore's docstrings, for a reader at a keyboard (108 of the 359 pages
# it took in print). Online only; the contents say so where it would be.
ONLINE_ONLY = "book/reference/"
ONLINE_ONLY_NOTE = ("on the website only: ibcore's functions and their docstrings "
                    "(in a notebook, help(name) prints the same text)")
# the papers the book reproduces, named on the cover (keys of references.bib)
PAPERS = ("lai2026relu", "bocchi2026escape")

# Links are printed as URLs under this prefix, then rewritten into jumps within the PDF:
# LINK + "page/<n>" (the contents) and LINK + "ref/<k>" (the k-th link of a page of the book
# to a place of the book, which the page's `refs` names).
LINK = "https://print.invalid/"
# the page number a cross-reference carries until its target's page is known: as wide as most
PLACEHOLDER = "000"
# prints of the book at most, the first included, before the page numbers must have settled
MAX_ROUNDS = 4

# Gathers the evidence (ibPrint.gatherEvidence), then rewrites the links of the article: a link
# to a place of the book in `files` gets a LINK + "ref/<k>" URL and, unless it is a citation or
# a glossary term, an empty span for its page number; links to the loopback server otherwise
# (the navigation, the library reference) are printed as plain text. Then ibPrint.prepare.
PREPARE_JS = """({base, link, pageHeight, files}) => {
  if (window.ibPrint) window.ibPrint.gatherEvidence();
  const article = document.querySelector('.bd-article') || document.body;
  const refs = [];
  for (const a of document.querySelectorAll('a[href]')) {
    if (!a.href.startsWith(base)) continue;
    const url = new URL(a.href);
    const file = decodeURIComponent(url.pathname).replace(/^\\//, '').replace(/\\.html$/, '');
    if (!url.pathname.endsWith('.html') || !files.includes(file) || !article.contains(a)) {
      a.removeAttribute('href');
      continue;
    }
    const labelled = a.matches('.reference.internal') && !a.closest('.bibtex-citation') && !a.querySelector('.std-term');
    a.dataset.ibRef = refs.length;
    a.href = link + 'ref/' + refs.length;
    refs.push({file, id: decodeURIComponent(url.hash.slice(1)), labelled});
    if (!labelled) continue;
    const span = document.createElement('span');
    span.className = 'ib-page-ref';
    const last = a.lastChild;
    const close = last && last.nodeType === 3 && a.textContent.trim().startsWith('(') && /\\)\\s*$/.exec(last.data);
    if (close) {  // "(I.3.1)" takes its page inside: "(I.3.1, p. 57)"
      span.dataset.inside = '1';
      const rest = document.createTextNode(last.data.slice(close.index));
      last.data = last.data.slice(0, close.index);
      a.append(span, rest);
    } else a.append(span);
  }
  if (window.ibPrint) window.ibPrint.prepare(pageHeight);
  const heading = document.querySelector('main h1, article h1, h1')?.innerText.replace(/[#¶]\\s*$/, '').trim() || '';
  return {heading, refs};
}"""

# `{k: page}`: the page number that the k-th link carries ('' for none)
LABEL_JS = """(labels) => {
  for (const [k, page] of Object.entries(labels)) {
    const span = document.querySelector(`a[data-ib-ref="${k}"] > span.ib-page-ref`);
    span.textContent = !page ? '' : span.dataset.inside ? `, p.\\u00a0${page}` : `\\u00a0(p.\\u00a0${page})`;
  }
}"""

# Chromium writes a named destination, with its page, for each id that a link of the page
# names: hidden links name the ids that the book refers to.
DESTINATIONS_JS = """(ids) => {
  const box = document.createElement('div');
  box.style.display = 'none';
  for (const id of ids) {
    const a = document.createElement('a');
    a.href = '#' + id;
    box.append(a);
  }
  document.body.append(box);
}"""


def toc_entries(root: Path = nbtools.ROOT) -> list[dict]:
    """The book's pages in reading order, each with the caption of the part it belongs to."""
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    entries = [{"file": toc["root"], "part": None}]

    def add(items, caption):
        for item in items:
            entries.append({"file": item["file"], "part": caption})
            add(item.get("sections", []), caption)

    for part in toc.get("parts", []):
        add(part.get("chapters", []), part.get("caption"))
    return entries


def printed_entries(root: Path = nbtools.ROOT) -> list[dict]:
    """The pages of the print edition: the book's but the library reference."""
    return [entry for entry in toc_entries(root) if not entry["file"].startswith(ONLINE_ONLY)]


def reproduced_papers(root: Path = nbtools.ROOT) -> list[dict]:
    """The papers the book reproduces, from references.bib: authors' surnames as the book names
    them ("Lai, Wang, Tao & Muthukumar"), title and where it appeared."""
    from pybtex.database import parse_file

    entries = parse_file(str(root / "references.bib")).entries
    papers = []
    for key in PAPERS:
        fields = entries[key].fields
        names = [" ".join(person.last_names) for person in entries[key].persons["author"]]
        venue = re.search(r"\(([^)]+)\)\s*$", fields.get("booktitle", ""))
        where = (f"{venue.group(1)} {fields['year']}" if venue
                 else f"arXiv:{fields['eprint']}, {fields['year']}" if "eprint" in fields
                 else f"{fields.get('booktitle') or fields.get('journal', '')} {fields['year']}".strip())
        papers.append({"authors": ", ".join(names[:-1]) + " & " + names[-1] if len(names) > 1 else names[0],
                       "title": re.sub(r"[{}]", "", fields["title"]), "where": where})
    return papers


def edition_date(root: Path = nbtools.ROOT) -> str:
    """The date of the commit the book is printed from, with its hash ("4 December 2026 (commit
    208380b)"): the same for every print of a commit; today's date outside a git checkout."""
    def git(*args):
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True)

    try:
        day, commit = git("log", "-1", "--format=%cs %h").stdout.split()
        changed = git("status", "--porcelain", "--untracked-files=no").stdout.strip()
    except (OSError, subprocess.CalledProcessError, ValueError):
        today = datetime.date.today()
        return f"{today.day} {today:%B %Y}"
    date = datetime.date.fromisoformat(day)
    return f"{date.day} {date:%B %Y} (commit {commit}" + (", with local changes)" if changed else ")")


def _front_matter(title: str, edition: str, contents: list[tuple], *, root: Path = nbtools.ROOT) -> str:
    """The cover and the contents: ``contents`` holds ``(part, heading, first page or None,
    note)`` rows."""
    config = nbtools.load_config(root)
    rows, part = [], object()
    for caption, heading, first_page, note in contents:
        if caption != part and caption:
            rows.append(f'<tr class="part"><td colspan="2">{html.escape(caption)}</td></tr>')
        part = caption
        if first_page is None:
            rows.append(f'<tr class="note"><td colspan="2">{html.escape(note)}</td></tr>')
            continue
        target = f"{LINK}page/{first_page}"
        rows.append(f'<tr><td><a href="{target}">{html.escape(heading)}</a></td>'
                    f'<td class="page"><a href="{target}">{first_page}</a></td></tr>')
    papers = "".join(f'<p class="paper"><em>{html.escape(p["title"])}</em><br>'
                     f'{html.escape(p["authors"])} · {html.escape(p["where"])}</p>' for p in reproduced_papers(root))
    note = ("Instructor edition: exercises with their solutions" if edition == "instructor"
            else "Student edition: exercises without solutions")
    book = title.removesuffix(nbtools.STUDENT_TITLE_SUFFIX)
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>
  body {{ font-family: sans-serif; color: #222; }}
  .cover {{ height: 255mm; display: flex; flex-direction: column; break-after: page; }}
  .cover h1 {{ font-size: 32pt; margin: 45mm 0 5mm; }}
  .cover .subtitle {{ font-size: 14pt; margin: 0 0 8mm; color: #444; }}
  .cover .authors {{ font-size: 13pt; margin: 0 0 28mm; }}
  .cover .label {{ font-size: 10pt; text-transform: uppercase; letter-spacing: 0.08em; color: #666; margin: 0 0 3mm; }}
  .cover .paper {{ font-size: 11.5pt; margin: 0 0 5mm; line-height: 1.45; }}
  .cover .foot {{ margin-top: auto; border-top: 1px solid #999; padding-top: 4mm; font-size: 11pt; }}
  .cover .foot p {{ margin: 0 0 1.5mm; }}
  table {{ width: 100%; border-collapse: collapse; font-size: 11pt; }}
  td {{ padding: 1.2mm 0; }} td.page {{ text-align: right; }}
  tr.part td {{ font-weight: bold; padding-top: 5mm; }}
  tr.note td {{ font-style: italic; color: #444; }}
  a {{ color: inherit; text-decoration: none; }}
</style></head><body>
<div class="cover">
<h1>{html.escape(book)}</h1>
<p class="subtitle">Executable tutorials on the implicit bias of gradient methods</p>
<p class="authors">{html.escape(config["author"])}</p>
<p class="label">Reproduced from</p>
{papers}
<div class="foot"><p>{note}; the explorers appear as their default frame.</p>
<p>{html.escape(edition_date(root))}</p></div></div>
<h2>Contents</h2><table>{''.join(rows)}</table></body></html>"""


def _page_numbers(count: int) -> str:
    """``count`` A4 pages, each with its number at its foot (the first, the cover, blank)."""
    pages = "".join(f'<div class="p"><span>{n if n > 1 else ""}</span></div>' for n in range(1, count + 1))
    return f"""<!doctype html><html><head><meta charset="utf-8"><style>
  @page {{ size: A4; margin: 0; }} body {{ margin: 0; }}
  .p {{ height: 296mm; position: relative; break-after: page; }} .p:last-child {{ break-after: auto; }}
  .p span {{ position: absolute; bottom: 9mm; left: 0; right: 0; text-align: center;
            font: 9pt sans-serif; color: #444; }}
</style></head><body>{pages}</body></html>"""


def _shrink_figure(route):
    """Serve a figure at most FIGURE_MAX_PIXELS wide (the page prints it at 200 dpi or more)."""
    from PIL import Image

    response = route.fetch()
    body = response.body()
    try:
        image = Image.open(io.BytesIO(body))
        if image.width > FIGURE_MAX_PIXELS:
            # area-averaged, then at most 256 colours (a plot has fewer, a colour map 256): the
            # PDF stores pixels deflated, and flat colours deflate well
            height = round(image.height * FIGURE_MAX_PIXELS / image.width)
            smaller = image.convert("RGB").resize((FIGURE_MAX_PIXELS, height), Image.BOX)
            out = io.BytesIO()
            smaller.quantize(256, dither=Image.Dither.NONE).save(out, "PNG")
            body = out.getvalue()
    except OSError:  # not an image Pillow reads: as served
        pass
    route.fulfill(response=response, body=body)


def _uri(annot) -> str:
    action = annot.get("/A")
    return str(action.get_object().get("/URI", "")) if action is not None else ""


@dataclasses.dataclass
class _Page:
    """A page of the book, open in its tab, and its latest print."""

    file: str
    part: str | None
    tab: object
    errors: list[str]  # the tab's script errors (tools.browser.script_errors)
    heading: str
    refs: list[dict]  # its links to places of the book: {file, id, labelled}
    labels: dict[int, str]  # the page number each labelled link carries in the print
    pdf: bytes = b""
    count: int = 0  # pages
    places: dict[str, tuple[int, float]] = dataclasses.field(default_factory=dict)  # id -> 0-based page, top
    link_pages: dict[int, int] = dataclasses.field(default_factory=dict)  # link -> 0-based page of its end

    def print(self) -> None:
        from pypdf import PdfReader

        self.tab.evaluate(LABEL_JS, {str(k): v for k, v in self.labels.items()})
        self.pdf = self.tab.pdf(**PAPER)
        if self.errors:
            raise RuntimeError(f"{self.file}.html: a script failed when it was printed: {'; '.join(self.errors)}")
        reader = PdfReader(io.BytesIO(self.pdf))
        self.count = len(reader.pages)
        self.places = {name.lstrip("/"): (reader.get_destination_page_number(dest), float(dest.top))
                       for name, dest in reader.named_destinations.items()}
        self.link_pages = {}
        for i, page in enumerate(reader.pages):
            for annot in page.get("/Annots", []):
                uri = _uri(annot.get_object())
                if uri.startswith(LINK + "ref/"):
                    self.link_pages[int(uri.removeprefix(LINK + "ref/"))] = i  # the last: its end


def _target(ref: dict, pages: dict[str, _Page], first: dict[str, int]) -> tuple[int, float | None]:
    """The 1-based page of the book where ``ref`` leads, and the height of its place on that
    page (PDF points; None for the start of its page of the book, or a place not printed)."""
    page, top = pages[ref["file"]].places.get(ref["id"], (0, None))
    return first[ref["file"]] + page, top


def _labels(page: _Page, pages: dict[str, _Page], first: dict[str, int]) -> dict[int, str]:
    """The page number each labelled link of ``page`` should carry: none on its target's page."""
    labels = {}
    for k, ref in enumerate(page.refs):
        if ref["labelled"]:
            target, _ = _target(ref, pages, first)
            end = page.link_pages.get(k)  # None: not printed (inside hidden content)
            labels[k] = "" if end is None or first[page.file] + end == target else str(target)
    return labels


def _link_targets(writer, pages: list[_Page], first: dict[str, int]) -> None:
    """Turn the printed LINK URLs into jumps within the PDF, to a page or to a place on it."""
    from pypdf.generic import ArrayObject, FloatObject, NameObject, NullObject

    by_page = {first[p.file] - 1 + i: p for p in pages for i in range(p.count)}
    by_file = {p.file: p for p in pages}
    for index, book_page in enumerate(writer.pages):
        for annot in book_page.get("/Annots", []):
            annot = annot.get_object()
            uri = _uri(annot)
            if not uri.startswith(LINK):
                continue
            kind, _, value = uri.removeprefix(LINK).partition("/")
            target, top = ((int(value), None) if kind == "page"
                           else _target(by_page[index].refs[int(value)], by_file, first))
            del annot["/A"]
            view = ([NameObject("/Fit")] if top is None
                    else [NameObject("/XYZ"), NullObject(), FloatObject(top), NullObject()])
            annot[NameObject("/Dest")] = ArrayObject([writer.pages[target - 1].indirect_reference, *view])


def _open(context, base: str, entries: list[dict]) -> list[_Page]:
    """Load and prepare each page of ``entries`` in a tab of its own, and print it with a
    placeholder for every page number (the first round)."""
    files = [entry["file"] for entry in entries]
    pages = []
    for entry in entries:
        tab = context.new_page()
        tab.emulate_media(media="print")  # laid out as printed, for ibPrint.prepare to measure
        errors = br.script_errors(tab)  # a script that fails may leave its page half prepared
        br.load(tab, f"{base}/{entry['file']}.html")
        found = tab.evaluate(PREPARE_JS, {"base": base, "link": LINK, "pageHeight": PRINT_HEIGHT, "files": files})
        if errors:
            raise RuntimeError(f"{entry['file']}.html: a script failed when it was printed: {'; '.join(errors)}")
        pages.append(_Page(entry["file"], entry["part"], tab, errors, found["heading"], found["refs"],
                           {k: PLACEHOLDER for k, ref in enumerate(found["refs"]) if ref["labelled"]}))
    for page in pages:
        page.tab.evaluate(DESTINATIONS_JS, sorted({ref["id"] for other in pages for ref in other.refs
                                                   if ref["file"] == page.file and ref["id"]}))
        page.print()
    return pages


def _front(tab, title: str, edition: str, pages: list[_Page], notes: dict) -> tuple[object, dict[str, int], int]:
    """The front matter printed (a cover and the contents, whose length is known once laid out),
    the 1-based page where each page of the book starts, and the number of pages."""
    from pypdf import PdfReader

    front_pages = 2
    while True:
        first, contents, at = {}, [], front_pages + 1
        for i, page in enumerate(pages):
            if i in notes:
                contents.append((notes[i][0], None, None, notes[i][1]))
            first[page.file] = at
            contents.append((page.part, page.heading, at, None))
            at += page.count
        tab.set_content(_front_matter(title, edition, contents))
        front = PdfReader(io.BytesIO(tab.pdf(**PAPER)))
        if len(front.pages) == front_pages:
            return front, first, at - 1
        front_pages = len(front.pages)


def _bind(front, pages: list[_Page], first: dict[str, int], numbers, title: str):
    """The book: the front matter, then every page, with the outline, the page numbers at the
    feet and the links' jumps."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    writer.append(front)
    parts: dict[str, object] = {}
    for page in pages:
        writer.append(PdfReader(io.BytesIO(page.pdf)), import_outline=False)
        parent = None
        if page.part:
            if page.part not in parts:
                parts[page.part] = writer.add_outline_item(title=page.part, page_number=first[page.file] - 1)
            parent = parts[page.part]
        writer.add_outline_item(title=page.heading, page_number=first[page.file] - 1, parent=parent)
    # the pages' named destinations, which served to find the places (the same id on many pages)
    writer.root_object.pop("/Names", None)
    if len(numbers.pages) != len(writer.pages):
        raise RuntimeError(f"{len(numbers.pages)} page numbers printed for {len(writer.pages)} pages")
    for number, book_page in zip(numbers.pages, writer.pages):
        book_page.merge_page(number)
        book_page.compress_content_streams()  # merging leaves the page's content uncompressed
    _link_targets(writer, pages, first)
    writer.page_mode = "/UseOutlines"
    writer.add_metadata({"/Title": title, "/Author": nbtools.load_config()["author"]})
    writer.compress_identical_objects(remove_duplicates=True, remove_unreferenced=True)
    return writer


def build(edition: str, site: Path, out_dir: Path, *, entries: list[dict] | None = None, log=print) -> Path:
    """Print the pages of ``site`` (built for ``edition``) into ``out_dir/<name>.pdf``; return its path.

    ``entries``: the pages, ``{"file", "part"}`` in reading order; by default the book's
    (:func:`printed_entries`), with a line in the contents where the library reference would be.
    """
    from pypdf import PdfReader

    site, out_dir = Path(site).resolve(), Path(out_dir)
    if not (site / "index.html").exists():
        raise FileNotFoundError(f"{site} holds no built site")
    title = nbtools.load_config()["title"] + (nbtools.STUDENT_TITLE_SUFFIX if edition == "student" else "")
    notes = {}  # index of a printed page -> (part, note): a line of the contents before it
    if entries is None:
        toc, entries = toc_entries(), printed_entries()
        online = [i for i, entry in enumerate(toc) if entry["file"].startswith(ONLINE_ONLY)]
        if online:
            notes[online[0]] = (toc[online[0]]["part"], ONLINE_ONLY_NOTE)
    with br.serve(site) as base, br.browser() as b:
        context = b.new_context(viewport={"width": PRINT_WIDTH, "height": PRINT_HEIGHT})
        context.route("**/_images/*.png", _shrink_figure)
        start = time.perf_counter()
        pages = _open(context, base, entries)  # each stays open: its numbers go in without loading it again
        by_file = {page.file: page for page in pages}
        loaded = time.perf_counter()
        front_tab = context.new_page()
        reprinted = []  # pages printed again, per round
        while True:
            front, first, total = _front(front_tab, title, edition, pages, notes)
            moved = [page for page in pages if _labels(page, by_file, first) != page.labels]
            if not moved:
                break
            if len(reprinted) + 1 == MAX_ROUNDS:
                raise RuntimeError(f"the page numbers of cross-references still move after {MAX_ROUNDS} "
                                   f"prints: {[page.file for page in moved]}")
            for page in moved:
                page.labels = _labels(page, by_file, first)
                page.print()
            reprinted.append(len(moved))
        front_tab.set_content(_page_numbers(total))
        numbers = PdfReader(io.BytesIO(front_tab.pdf(format="A4", margin={side: "0" for side in MARGIN_MM})))
        context.close()
        done = time.perf_counter()
    labelled = sum(bool(label) for page in pages for label in page.labels.values())
    log(f"  loaded and printed {len(pages)} pages of the site in {loaded - start:.0f} s; printed again with "
        f"the page numbers of {labelled} cross-references in {done - loaded:.0f} s "
        f"({' + '.join(map(str, reprinted)) or 'no'} pages)")
    unplaced = sorted({f"{ref['file']}#{ref['id']}" for page in pages for ref in page.refs
                       if ref["id"] and ref["id"] not in by_file[ref["file"]].places})
    if unplaced:  # a target inside hidden content: the link leads to its page's start
        log(f"  {len(unplaced)} targets not printed, their page's start instead: {', '.join(unplaced[:5])}")

    writer = _bind(front, pages, first, numbers, title)
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / pdf_name(edition)
    with out.open("wb") as fh:
        writer.write(fh)
    # where each page starts, for the tests (1-based PDF page numbers)
    starts = [{"file": page.file, "title": page.heading, "first_page": first[page.file]} for page in pages]
    out.with_suffix(".json").write_text(json.dumps({"edition": edition, "pages": starts}, indent=1) + "\n")
    in_site = site / "pdf" / out.name
    in_site.parent.mkdir(exist_ok=True)
    shutil.copyfile(out, in_site)
    log(f"{out}: {len(writer.pages)} pages, {out.stat().st_size / 1e6:.1f} MB (also {in_site})")
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("edition", choices=["instructor", "student"])
    parser.add_argument("site", type=Path, help="the built site of that edition")
    parser.add_argument("out_dir", type=Path)
    args = parser.parse_args(argv)
    build(args.edition, args.site, args.out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
