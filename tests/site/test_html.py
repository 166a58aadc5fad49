"""Static checks of the built HTML: pages, launch buttons, widgets, no leftover errors."""
from __future__ import annotations

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
    for marker in ("Traceback (most recent call last)", "AssertionError", "DivergenceError"):
        assert marker not in html, f"{md.name}: {marker!r} in the built page"


def test_internal_links_resolve(site):
    broken = []
    for page in site.rglob("*.html"):
        for href in hrefs(page):
            parsed = urlparse(href)
            if parsed.scheme or href.startswith(("#", "mailto:", "//")) or not parsed.path:
                continue
            target = (page.parent / unquote(parsed.path)).resolve()
            if not target.exists():
                broken.append(f"{page.relative_to(site)} -> {href}")
    assert not broken, "broken internal links:\n" + "\n".join(broken[:50])
