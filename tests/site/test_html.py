"""Static checks of the built HTML: pages, launch buttons, widgets, no leftover errors."""
from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from tools import notebooks as nbtools

CONFIG = nbtools.load_config()
REPO = CONFIG["repository"]["url"].rstrip("/")
BRANCH = CONFIG["repository"]["branch"]
CHAPTERS = nbtools.chapters()
IDS = [p.relative_to(nbtools.ROOT).as_posix() for p in CHAPTERS]


class Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name == "href" and value:
                self.hrefs.append(value)


def page_of(site: Path, md: Path) -> Path:
    return site / md.relative_to(nbtools.ROOT).with_suffix(".html")


def hrefs(page: Path) -> list[str]:
    parser = Links()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser.hrefs


def test_every_toc_page_is_built(site):
    for md in nbtools.toc_files():
        assert page_of(site, md).exists(), f"{md} was not built"


@pytest.mark.parametrize("md", CHAPTERS, ids=IDS)
def test_launch_buttons_open_the_paired_notebook(site, md):
    links = hrefs(page_of(site, md))
    rel = md.relative_to(nbtools.ROOT).with_suffix(".ipynb").as_posix()
    colab = [h for h in links if h.startswith(CONFIG["launch_buttons"]["colab_url"])]
    binder = [h for h in links if h.startswith(CONFIG["launch_buttons"]["binderhub_url"])]
    assert colab == [f"https://colab.research.google.com/github/{urlparse(REPO).path.strip('/')}/blob/{BRANCH}/{rel}"]
    assert len(binder) == 1 and binder[0].endswith(rel) and f"/{BRANCH}?" in binder[0]
    assert (nbtools.ROOT / rel).exists(), f"the launch buttons point at {rel}, which is not in the repository"


@pytest.mark.parametrize("md", CHAPTERS, ids=IDS)
def test_chapter_page_has_no_execution_errors(site, md):
    html = page_of(site, md).read_text(encoding="utf-8")
    for marker in ("Traceback (most recent call last)", 'class="output traceback', 'class="output error'):
        assert marker not in html, f"{md.name}: {marker!r} in the built page"


def test_internal_links_resolve(site):
    broken = []
    for page in site.rglob("*.html"):
        if page.relative_to(site).parts[0] == "_static":
            continue  # theme templates, not pages
        for href in hrefs(page):
            parsed = urlparse(href)
            if parsed.scheme or href.startswith(("#", "mailto:", "//")) or not parsed.path:
                continue
            if re.fullmatch(r"(\.\./)*pdf/[\w-]+\.pdf", href):
                continue  # the PDF, written later by `make pdf` (tests/site/test_pdf.py checks the link)
            target = (page.parent / unquote(parsed.path)).resolve()
            if not target.exists():
                broken.append(f"{page.relative_to(site)} -> {href}")
    assert not broken, "broken internal links:\n" + "\n".join(broken[:50])


def _count_solutions(html: str) -> int:
    return len(re.findall(r'<div class="solution[ "]', html))


def _count_exercises(html: str) -> int:
    return len(re.findall(r'<div class="exercise[ "]', html))


@pytest.mark.parametrize("md", CHAPTERS, ids=IDS)
def test_instructor_edition_shows_every_solution(site, md):
    html = page_of(site, md).read_text(encoding="utf-8")
    assert _count_exercises(html) >= 2
    assert _count_solutions(html) == _count_exercises(html)


@pytest.mark.parametrize("md", CHAPTERS, ids=IDS)
def test_student_edition_has_exercises_and_no_solution(site, student_site, md):
    html = page_of(student_site, md).read_text(encoding="utf-8")
    assert _count_exercises(html) == _count_exercises(page_of(site, md).read_text(encoding="utf-8"))
    assert _count_solutions(html) == 0
    rel = md.relative_to(nbtools.ROOT)
    download = json.loads((student_site / "_sources" / rel.with_suffix(".ipynb")).read_text())
    assert not any("Solution to Exercise" in "".join(c["source"]) for c in download["cells"])
    assert "{solution" not in (student_site / "_sources" / rel).read_text(encoding="utf-8")
    colab = [h for h in hrefs(page_of(student_site, md)) if "colab.research.google.com" in h]
    assert len(colab) == 1 and colab[0].endswith(f"student/{rel.with_suffix('.ipynb').as_posix()}")
    assert (nbtools.ROOT / "student" / rel.with_suffix(".ipynb")).exists()


@pytest.mark.parametrize("md", CHAPTERS, ids=IDS)
def test_download_is_the_executed_launchable_notebook(site, md):
    rel = md.relative_to(nbtools.ROOT).with_suffix(".ipynb")
    assert f"_sources/{rel.as_posix()}" in " ".join(hrefs(page_of(site, md)))
    nb = json.loads((site / "_sources" / rel).read_text())
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert "".join(code[0]["source"]) == nbtools.setup_cell_source(CONFIG)
    assert sum(bool(c["outputs"]) for c in code) >= 3, "the download carries the build's outputs"


PAGES = nbtools.toc_files()


@pytest.mark.parametrize("md", PAGES, ids=[p.relative_to(nbtools.ROOT).as_posix() for p in PAGES])
def test_figures_have_alt_text_or_caption(site, md):
    html = page_of(site, md).read_text(encoding="utf-8")
    captioned = " ".join(f for f in re.findall(r"<figure\b.*?</figure>", html, re.S) if "<figcaption" in f)
    for img in re.findall(r"<img[^>]*_images/[^>]*>", html):
        alt = re.search(r'alt="([^"]*)"', img)
        has_alt = alt and alt.group(1) and "_images/" not in alt.group(1)
        assert has_alt or img in captioned, \
            f"{md.name}: figure without alt text or caption (cell option `mystnb: image: alt:`): {img[:120]}"


def test_widget_state_is_embedded(site):
    for md in CHAPTERS:
        html = page_of(site, md).read_text(encoding="utf-8")
        if "widget-view+json" in html:
            assert "application/vnd.jupyter.widget-state+json" in html, f"{md.name}: widgets without state"
            assert "LinkModel" in html or "jslink" in html or "DirectionalLinkModel" in html, \
                f"{md.name}: explorer frames are not linked to their sliders"


def test_landing_page_shows_a_figure_with_alt_text_and_caption(site):
    html = (site / "book" / "intro.html").read_text(encoding="utf-8")
    figures = [f for f in re.findall(r"<figure\b.*?</figure>", html, re.S) if "_images/" in f]
    assert figures, "the landing page shows no figure"
    for figure in figures:
        alt = re.search(r'<img[^>]*\balt="([^"]{40,})"', figure)
        assert alt and "<figcaption" in figure, f"a landing figure without alt text or caption: {figure[:200]}"


def test_student_pages_shared_with_the_instructor_edition_have_no_solution(shared_pages):
    """The student pages the browser checks take from the instructor edition (``conftest.
    same_as_instructor``): never a chapter, whose solutions the student edition removes."""
    chapters = {md.relative_to(nbtools.ROOT).with_suffix(".html").as_posix() for md in CHAPTERS}
    assert not shared_pages & chapters, f"chapters taken as unchanged: {sorted(shared_pages & chapters)}"
    assert "book/reference/relu.html" in shared_pages, "a reference page differs between the editions"
