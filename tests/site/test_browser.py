"""The built site in headless Chromium: pages load, math is typeset, figures and widgets show,
no script raises or logs an error, no local asset is missing, offline (file://) and over HTTP.
Screenshots go to _build/screenshots.

The pages are those the accessibility audit loads (``conftest.py``: one Chromium for the
session, each page loaded once, in a fresh browser context, until MathJax has typeset it and
its widgets are drawn); their DOM is checked against the built HTML.

Chromium comes from Debian (``make system-deps``).
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tools import browser as br
from tools import notebooks as nbtools

from .conftest import PAGES

CHAPTER_PAGES = {p.relative_to(nbtools.ROOT).with_suffix(".html").as_posix() for p in nbtools.chapters()}


def visible_text(dom: str) -> str:
    dom = re.sub(r"<(script|style|pre|mjx-container)\b.*?</\1>", " ", dom, flags=re.S)
    return re.sub(r"<[^>]+>", " ", dom)


def check_page(page: str, dom: str, static_html: str) -> list[str]:
    problems = []
    if "<main" not in dom or "bd-article" not in dom:
        problems.append("the page did not render its article")
    n_math = len(re.findall(r'class="math[ "]', static_html))
    if n_math:
        if dom.count("<mjx-container") < n_math:
            problems.append(f"{n_math} math elements but {dom.count('<mjx-container')} typeset")
        leftover = re.findall(r"\\\(|\\\[|\\begin\{", visible_text(dom))
        if leftover:
            problems.append(f"raw TeX left on the page: {leftover[:3]}")
    n_views = static_html.count('type="application/vnd.jupyter.widget-view+json"')
    if n_views:
        rendered = dom.count('class="widget-subarea"')
        if rendered < n_views:
            problems.append(f"{n_views} widgets but {rendered} rendered")
        if 'ib-explorer-frame' in static_html and "ib-explorer-frame" not in dom:
            problems.append("explorer frames did not render")
    return problems


def test_pages_render_over_http(site, rendered, servers):
    pages = rendered("instructor")
    problems = {}
    for page in PAGES:
        found = [pages[page].error] if pages[page].error else \
            check_page(page, pages[page].dom, (site / page).read_text(encoding="utf-8"))
        if found:
            problems[page] = found
    assert not problems, problems
    requests = servers.requests["instructor"]
    missing = sorted({path for path, code in requests if code == 404})
    assert not missing, f"local assets returned 404: {missing}"
    loaded_images = {path for path, code in requests if code == 200 and path.endswith((".png", ".svg", ".jpg"))}
    for page in CHAPTER_PAGES:
        figures = re.findall(r'<img[^>]+src="([^"]*_images/[^"]+)"', (site / page).read_text(encoding="utf-8"))
        for src in figures:
            target = "/" + (Path(page).parent / src).as_posix()
            target = os.path.normpath(target)
            assert target in loaded_images, f"{page}: figure {src} was not loaded"


@pytest.mark.parametrize("edition", ["instructor", "student"])
def test_no_page_script_raises_or_logs_an_error(rendered, edition):
    """Every script of every page runs to its end without an error: the theme's, the widget manager's,
    the site's own."""
    found = {name: page.errors for name, page in rendered(edition).items() if page.errors}
    assert not found, f"{edition} edition, script errors: " + "; ".join(
        f"{name}: {sorted(set(errors))}" for name, errors in found.items())


def test_site_works_offline_from_file_urls(site, chromium_browser):
    page = next(iter(sorted(CHAPTER_PAGES)))
    tab = chromium_browser.new_page()
    try:
        br.load(tab, (site / page).as_uri())
        dom = tab.content()
    finally:
        tab.close()
    assert not check_page(page, dom, (site / page).read_text(encoding="utf-8"))


def test_screenshots(site, chromium_browser, servers):
    base = servers["instructor"]
    shots = site.parent / "screenshots"
    shots.mkdir(exist_ok=True)
    chapters = sorted(CHAPTER_PAGES)
    targets = {"landing.png": (PAGES[0], "light"), "chapter.png": (chapters[-1], "light"),
               "chapter-dark.png": (chapters[-1], "dark")}
    for name, (page, scheme) in targets.items():
        path = shots / name
        path.unlink(missing_ok=True)
        tab = chromium_browser.new_page(viewport={"width": 1280, "height": 2200}, color_scheme=scheme)
        try:
            br.load(tab, f"{base}/{page}")
            tab.screenshot(path=str(path))
        finally:
            tab.close()
        assert path.exists() and path.stat().st_size > 20_000, f"screenshot {name} of {page} is missing or blank"
