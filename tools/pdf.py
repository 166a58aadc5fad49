"""The print edition: every page of a built site printed by headless Chromium, bound into one PDF.

Sphinx's single-page builder crashes on sphinx-proof's nodes, and a LaTeX route would
need a TeX distribution; Chromium prints exactly what the website shows, with MathJax's
mathematics, the theorem boxes, the figures and the bibliography. The site's print style
sheet (``_static/ib-site.css``) leaves out the navigation, opens every solution of the
edition and shows each explorer as its default frame under its caption; its script
(``_static/ib-layout.js``, ``ibPrint.prepare``) runs on the page laid out for print first:
wrapped code lines keep their indentation, wide equations and tables shrink to the page,
and only short blocks refuse to break across pages. A page whose script raises or logs an
error stops the print with the page's name and the error: it may be half prepared.

The PDF is bound as a book: a cover (the book's title, the two papers it reproduces, its
authors, the edition and the date of the commit it was built from), a contents page whose
entries link to the pages they name, every page numbered at its foot (the PDF viewer's page
number), an outline (bookmarks) by part and page, and links between pages of the book that
jump within the PDF. The library reference (``book/reference``, ibcore's docstrings, a third
of the pages) is left out: the contents say where it is. Figures are printed at 200 dpi in at
most 256 colours (the site's are 2x retina PNGs, about 250 dpi on the page), and boxes
without their shadows, which Chromium prints as bitmaps. A copy is written into the site,
``<site>/pdf/<name>.pdf``, where the sidebar links to it; beside the PDF, ``<name>.json``
records where each page of the book starts.

Usage::

    python -m tools.pdf instructor _build/html _build/pdf    # make pdf
    python -m tools.pdf student _build/student _build/pdf    # make pdf-student
"""
from __future__ import annotations

import argparse
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
# LINK + "page/<n>" (the contents) and LINK + "doc/<file>" (a link to another page of the book).
LINK = "https://print.invalid/"

# Links to another page of the book jump to its first page; links to a place inside a page
# (equations, theorems) and to the loopback server otherwise are printed as plain text.
PREPARE_JS = """([base, link, pageHeight]) => {
  for (const a of document.querySelectorAll('a[href]')) {
    const url = new URL(a.href, location.href);
    if (a.href.startsWith(base) && !url.hash && url.pathname.endsWith('.html'))
      a.href = link + 'doc/' + url.pathname.replace(/^\\//, '').replace(/\\.html$/, '');
    else if (a.href.startsWith(base) || a.getAttribute('href').startsWith('#')) a.removeAttribute('href');
  }
  if (window.ibPrint) window.ibPrint.prepare(pageHeight);
  return document.querySelector('main h1, article h1, h1')?.innerText.replace(/[#¶]\\s*$/, '').trim() || '';
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


def _link_targets(writer, first_pages: dict[str, int]) -> int:
    """Turn the printed LINK URLs into jumps to pages of the PDF; return how many."""
    from pypdf.generic import ArrayObject, NameObject

    count = 0
    for page in writer.pages:
        for annot in page.get("/Annots", []):
            annot = annot.get_object()
            action = annot.get("/A")
            uri = str(action.get_object().get("/URI", "")) if action is not None else ""
            if not uri.startswith(LINK):
                continue
            kind, _, value = uri[len(LINK):].partition("/")
            index = int(value) - 1 if kind == "page" else first_pages.get(value)
            del annot["/A"]
            if index is None or not 0 <= index < len(writer.pages):
                continue  # a page outside the book: left as text
            annot[NameObject("/Dest")] = ArrayObject([writer.pages[index].indirect_reference, NameObject("/Fit")])
            count += 1
    return count


def build(edition: str, site: Path, out_dir: Path, *, log=print) -> Path:
    """Print the pages of ``site`` (built for ``edition``) into ``out_dir/<name>.pdf``, all but the
    library reference, whose place a line of the contents takes; return its path."""
    from pypdf import PdfReader, PdfWriter

    site, out_dir = Path(site).resolve(), Path(out_dir)
    if not (site / "index.html").exists():
        raise FileNotFoundError(f"{site} holds no built site")
    title = nbtools.load_config()["title"] + (nbtools.STUDENT_TITLE_SUFFIX if edition == "student" else "")
    printed: list[tuple[dict, str, bytes]] = []
    with br.serve(site) as base, br.browser() as b:
        page = b.new_page(viewport={"width": PRINT_WIDTH, "height": PRINT_HEIGHT})
        page.emulate_media(media="print")  # laid out as printed, for ibPrint.prepare to measure
        page.route("**/_images/*.png", _shrink_figure)
        errors = br.script_errors(page)  # a script that fails may leave its page half prepared
        start = time.perf_counter()
        for entry in printed_entries():
            br.load(page, f"{base}/{entry['file']}.html")
            heading = page.evaluate(PREPARE_JS, [base, LINK, PRINT_HEIGHT])
            if errors:
                raise RuntimeError(f"{entry['file']}.html: a script failed when it was printed: {'; '.join(errors)}")
            printed.append((entry, heading, page.pdf(**PAPER)))
        log(f"  printed {len(printed)} pages of the site in {time.perf_counter() - start:.0f} s")
        readers = [PdfReader(io.BytesIO(data)) for _, _, data in printed]
        # the front matter: a cover and the contents (whose length is known once laid out)
        toc = toc_entries()
        online = next(i for i, entry in enumerate(toc) if entry["file"].startswith(ONLINE_ONLY))
        front_pages = 2
        for _ in range(3):
            first, contents = front_pages + 1, []
            for (entry, heading, _), reader in zip(printed, readers):
                if toc.index(entry) > online and not any(row[2] is None for row in contents):
                    contents.append((toc[online]["part"], None, None, ONLINE_ONLY_NOTE))  # its place
                contents.append((entry["part"], heading, first, None))
                first += len(reader.pages)
            page.set_content(_front_matter(title, edition, contents))
            front = PdfReader(io.BytesIO(page.pdf(**PAPER)))
            if len(front.pages) == front_pages:
                break
            front_pages = len(front.pages)
        total = first - 1
        page.set_content(_page_numbers(total))
        numbers = PdfReader(io.BytesIO(page.pdf(format="A4", margin={side: "0" for side in MARGIN_MM})))

    writer = PdfWriter()
    writer.append(front)
    parts: dict[str, object] = {}
    first_pages: dict[str, int] = {}
    for (entry, heading, _), reader in zip(printed, readers):
        first = len(writer.pages)
        first_pages[entry["file"]] = first
        writer.append(reader)
        parent = None
        if entry["part"]:
            if entry["part"] not in parts:
                parts[entry["part"]] = writer.add_outline_item(title=entry["part"], page_number=first)
            parent = parts[entry["part"]]
        writer.add_outline_item(title=heading, page_number=first, parent=parent)
    if len(numbers.pages) != len(writer.pages):
        raise RuntimeError(f"{len(numbers.pages)} page numbers printed for {len(writer.pages)} pages")
    for number, book_page in zip(numbers.pages, writer.pages):
        book_page.merge_page(number)
        book_page.compress_content_streams()  # merging leaves the page's content uncompressed
    links = _link_targets(writer, first_pages)
    writer.page_mode = "/UseOutlines"
    writer.add_metadata({"/Title": title, "/Author": nbtools.load_config()["author"]})
    writer.compress_identical_objects(remove_duplicates=True, remove_unreferenced=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / pdf_name(edition)
    with out.open("wb") as fh:
        writer.write(fh)
    # where each page starts, for the tests (1-based PDF page numbers)
    starts = [{"file": entry["file"], "title": heading, "first_page": first_pages[entry["file"]] + 1}
              for entry, heading, _ in printed]
    out.with_suffix(".json").write_text(json.dumps({"edition": edition, "pages": starts}, indent=1) + "\n")
    in_site = site / "pdf" / out.name
    in_site.parent.mkdir(exist_ok=True)
    shutil.copyfile(out, in_site)
    log(f"{out}: {len(writer.pages)} pages, {out.stat().st_size / 1e6:.1f} MB, {links} links "
        f"(also {in_site})")
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
