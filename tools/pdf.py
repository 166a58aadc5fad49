"""The print edition: every page of a built site printed by headless Chromium, merged into one PDF.

Sphinx's single-page builder crashes on sphinx-proof's nodes, and a LaTeX route would
need a TeX distribution; Chromium prints exactly what the website shows, with MathJax's
mathematics, the theorem boxes, the figures and the bibliography. The site's print style
sheet (``_static/ib-site.css``) leaves out the navigation, opens every solution of the
edition and shows each explorer as its default frame under its caption.

The PDF opens with a title page and a contents page (parts, numbered chapters, the
page each starts on); its outline (bookmarks) has one entry per page of the book. A copy
is written into the site, ``<site>/pdf/<name>.pdf``, where the sidebar links to it.

Usage::

    python -m tools.pdf instructor _build/html _build/pdf    # make pdf
    python -m tools.pdf student _build/student _build/pdf    # make pdf-student
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

PAPER = {"format": "A4", "print_background": True,
         "margin": {"top": "18mm", "bottom": "18mm", "left": "16mm", "right": "16mm"}}

# links between pages point at the loopback server while printing: print them as plain text
UNLINK_JS = """(base) => {
  for (const a of document.querySelectorAll('a[href]'))
    if (a.href.startsWith(base) || a.getAttribute('href').startsWith('#')) a.removeAttribute('href');
  return document.querySelector('main h1, article h1, h1')?.innerText.replace(/[#¶]\\s*$/, '').trim() || '';
}"""


def toc_entries(root: Path = nbtools.ROOT) -> list[dict]:
    """The book's pages in reading order, each with the caption of the part it belongs to."""
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    entries = [{"file": toc["root"], "part": None}]
    for part in toc.get("parts", []):
        for chapter in part.get("chapters", []):
            entries.append({"file": chapter["file"], "part": part.get("caption")})
    return entries


def _front_matter(title: str, edition: str, contents: list[tuple[str | None, str, int]]) -> str:
    rows, part = [], object()
    for caption, heading, first_page in contents:
        if caption != part and caption:
            rows.append(f'<tr class="part"><td colspan="2">{html.escape(caption)}</td></tr>')
        part = caption
        rows.append(f"<tr><td>{html.escape(heading)}</td><td class='page'>{first_page}</td></tr>")
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
</style></head><body>
<div class="title"><h1>{html.escape(title)}</h1>
<p>Executable tutorials reproducing two 2026 papers on the implicit bias of gradient methods.</p>
<p>{note} Printed from the website built on {time.strftime('%Y-%m-%d')}; the explorers appear as their
default frame.</p></div>
<h2>Contents</h2><table>{''.join(rows)}</table></body></html>"""


def build(edition: str, site: Path, out_dir: Path, *, log=print) -> Path:
    """Print every page of ``site`` (built for ``edition``) into ``out_dir/<name>.pdf``; return its path."""
    from pypdf import PdfReader, PdfWriter

    site, out_dir = Path(site).resolve(), Path(out_dir)
    if not (site / "index.html").exists():
        raise FileNotFoundError(f"{site} holds no built site")
    title = nbtools.load_config()["title"] + (" (student edition)" if edition == "student" else "")
    printed: list[tuple[dict, str, bytes]] = []
    with br.serve(site) as base, br.browser() as b:
        page = b.new_page()
        start = time.perf_counter()
        for entry in toc_entries():
            br.load(page, f"{base}/{entry['file']}.html")
            heading = page.evaluate(UNLINK_JS, base)
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

    writer = PdfWriter()
    writer.append(front)
    parts: dict[str, object] = {}
    for (entry, heading, _), reader in zip(printed, readers):
        first = len(writer.pages)
        writer.append(reader)
        parent = None
        if entry["part"]:
            if entry["part"] not in parts:
                parts[entry["part"]] = writer.add_outline_item(title=entry["part"], page_number=first)
            parent = parts[entry["part"]]
        writer.add_outline_item(title=heading, page_number=first, parent=parent)
    writer.add_metadata({"/Title": title, "/Author": nbtools.load_config()["author"]})
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
    log(f"{out}: {len(writer.pages)} pages (also {in_site})")
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
