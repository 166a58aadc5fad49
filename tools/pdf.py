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

The PDF is bound as a book: a title page, a contents page whose entries link to the pages
they name, every page numbered at its foot (the PDF viewer's page number), an outline
(bookmarks) by part and page, and links between pages of the book that jump within the
PDF. Figures are printed at 200 dpi in at most 256 colours (the site's are 2x retina PNGs,
about 250 dpi on the page), and boxes without their shadows, which Chromium prints as bitmaps. A copy is written into the site, ``<site>/pdf/<name>.pdf``, where the sidebar links
to it; beside the PDF, ``<name>.json`` records where each page of the book starts.

Usage::

    python -m tools.pdf instructor _build/html _build/pdf    # make pdf prints both
    python -m tools.pdf student _build/student _build/pdf
"""
from __future__ import annotations

import argparse
import html
import io
import json
import shutil
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


def _front_matter(title: str, edition: str, contents: list[tuple[str | None, str, int]]) -> str:
    rows, part = [], object()
    for caption, heading, first_page in contents:
        if caption != part and caption:
            rows.append(f'<tr class="part"><td colspan="2">{html.escape(caption)}</td></tr>')
        part = caption
        target = f"{LINK}page/{first_page}"
        rows.append(f'<tr><td><a href="{target}">{html.escape(heading)}</a></td>'
                    f'<td class="page"><a href="{target}">{first_page}</a></td></tr>')
    note = ("Instructor edition: exercises with their solutions." if edition == "instructor"
            else "Student edition: exercises without solutions.")
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>
  body {{ font-family: sans-serif; color: #222; }}
  .title {{ height: 230mm; display: flex; flex-direction: column; justify-content: center; break-after: page; }}
  .title h1 {{ font-size: 30pt; margin: 0 0 6mm; }} .title p {{ font-size: 13pt; }}
  table {{ width: 100%; border-collapse: collapse; font-size: 11pt; }}
  td {{ padding: 1.2mm 0; }} td.page {{ text-align: right; }}
  tr.part td {{ font-weight: bold; padding-top: 5mm; }}
  a {{ color: inherit; text-decoration: none; }}
</style></head><body>
<div class="title"><h1>{html.escape(title)}</h1>
<p>Executable tutorials reproducing two 2026 papers on the implicit bias of gradient methods.</p>
<p>{note} Printed from the website built on {time.strftime('%Y-%m-%d')}; the explorers appear as their
default frame.</p></div>
<h2>Contents</h2><table>{''.join(rows)}</table></body></html>"""


def _page_numbers(count: int) -> str:
    """``count`` A4 pages, each with its number at its foot (the first, the title page, blank)."""
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
    """Print every page of ``site`` (built for ``edition``) into ``out_dir/<name>.pdf``; return its path."""
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
        for entry in toc_entries():
            br.load(page, f"{base}/{entry['file']}.html")
            heading = page.evaluate(PREPARE_JS, [base, LINK, PRINT_HEIGHT])
            if errors:
                raise RuntimeError(f"{entry['file']}.html: a script failed when it was printed: {'; '.join(errors)}")
            printed.append((entry, heading, page.pdf(**PAPER)))
        log(f"  printed {len(printed)} pages of the site in {time.perf_counter() - start:.0f} s")
        readers = [PdfReader(io.BytesIO(data)) for _, _, data in printed]
        # the front matter: a title page and a contents page (whose length is known once laid out)
        front_pages = 2
        for _ in range(2):
            first, contents = front_pages + 1, []
            for (entry, heading, _), reader in zip(printed, readers):
                contents.append((entry["part"], heading, first))
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
    starts = [{"file": entry["file"], "title": heading, "first_page": start}
              for (entry, heading, _), (_, _, start) in zip(printed, contents)]
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
