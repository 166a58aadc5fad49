"""The built site in headless Chromium: pages load, math is typeset, figures and widgets show,
no local asset is missing, offline (file://) and over HTTP. Screenshots go to _build/screenshots.

Chromium comes from Debian (``make test`` installs it when it runs as root); set
``IB_SKIP_BROWSER=1`` to skip these tests on a machine without it.
"""
from __future__ import annotations

import concurrent.futures
import functools
import http.server
import os
import re
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

import pytest

from tools import notebooks as nbtools

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
         "--virtual-time-budget=15000"]
PAGES = [p.relative_to(nbtools.ROOT).with_suffix(".html").as_posix() for p in nbtools.toc_files()]
CHAPTER_PAGES = {p.relative_to(nbtools.ROOT).with_suffix(".html").as_posix() for p in nbtools.chapters()}


@pytest.fixture(scope="module")
def chromium() -> str:
    if os.environ.get("IB_SKIP_BROWSER"):
        pytest.skip("IB_SKIP_BROWSER is set")
    exe = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        pytest.fail("chromium is not installed: `apt-get install chromium` (make test does it as root), "
                    "or set IB_SKIP_BROWSER=1")
    return exe


class _Recorder(http.server.SimpleHTTPRequestHandler):
    requests: list[tuple[str, int]]

    def log_message(self, *args):  # keep pytest's output clean
        pass

    def send_response(self, code, message=None):
        self.requests.append((self.path, code))
        super().send_response(code, message)


@pytest.fixture(scope="module")
def server(site):
    handler = type("Handler", (_Recorder,), {"requests": []})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(site)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", handler.requests
    httpd.shutdown()


def run_chromium(exe: str, url: str, *extra: str) -> str:
    with tempfile.TemporaryDirectory() as profile:
        out = subprocess.run([exe, *FLAGS, f"--user-data-dir={profile}", *extra, url],
                             capture_output=True, text=True, timeout=120)
    return out.stdout


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


def test_pages_render_over_http(site, chromium, server):
    base, requests = server
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        doms = dict(zip(PAGES, pool.map(lambda p: run_chromium(chromium, f"{base}/{p}", "--dump-dom"), PAGES)))
    problems = {}
    for page, dom in doms.items():
        found = check_page(page, dom, (site / page).read_text(encoding="utf-8"))
        if found:
            problems[page] = found
    assert not problems, problems
    missing = sorted({path for path, code in requests if code == 404})
    assert not missing, f"local assets returned 404: {missing}"
    loaded_images = {path for path, code in requests if code == 200 and path.endswith((".png", ".svg", ".jpg"))}
    for page in CHAPTER_PAGES:
        figures = re.findall(r'<img[^>]+src="([^"]*_images/[^"]+)"', (site / page).read_text(encoding="utf-8"))
        for src in figures:
            target = "/" + (Path(page).parent / src).as_posix()
            target = os.path.normpath(target)
            assert target in loaded_images, f"{page}: figure {src} was not loaded"


def test_site_works_offline_from_file_urls(site, chromium):
    page = next(iter(sorted(CHAPTER_PAGES)))
    dom = run_chromium(chromium, (site / page).as_uri(), "--dump-dom")
    assert not check_page(page, dom, (site / page).read_text(encoding="utf-8"))


def test_screenshots(site, chromium, server):
    base, _ = server
    shots = site.parent / "screenshots"
    shots.mkdir(exist_ok=True)
    chapters = sorted(CHAPTER_PAGES)
    targets = {"landing.png": (PAGES[0], []), "chapter.png": (chapters[-1], []),
               "chapter-dark.png": (chapters[-1], ["--force-dark-mode", "--blink-settings=preferredColorScheme=0"])}
    for name, (page, extra) in targets.items():
        path = shots / name
        run_chromium(chromium, f"{base}/{page}", f"--screenshot={path}", "--window-size=1280,2200", *extra)
        assert path.exists() and path.stat().st_size > 20_000, f"screenshot {name} of {page} is missing or blank"
