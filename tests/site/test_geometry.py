"""The pages as a reader sees them, at 1280 px (a laptop) and 390 px (a phone), in both editions.

Every page is measured during the one load that the accessibility audit and the rendering
checks share (``conftest.py``; ``geometry.py`` holds the measurement; a student page that is the
instructor's but for the edition's name is measured once, as the instructor's):

* every figure shows at its image's aspect ratio, within 2%;
* at 1280 px no display equation is wider than its column, nor a code block of lines of at
  most 88 characters; a longer code block or a wider table scrolls inside its box and shows
  that it does (the edge that hides more
  fades: ``ib-layout.js``); at 390 px the same holds for equations too; an equation's
  number never covers it;
* no page is wider than a phone's screen;
* each page's weight (what it loads, as served and gzipped) is recorded in
  ``_build/page-weight-<edition>.txt`` and kept under a budget.
"""
from __future__ import annotations

import gzip
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from .geometry import DESKTOP, PHONE

EDITIONS = ["instructor", "student"]
WIDTHS = [DESKTOP, PHONE]
RATIO_TOLERANCE = 0.02
CODE_COLUMNS = 88  # tools/format_cells.py formats the chapters' code to this width


def _pages(rendered, edition):
    """The pages measured in ``edition`` (a student page that is the instructor's is measured there)."""
    pages = {name: page for name, page in rendered(edition).items() if not page.shared}
    broken = {name: page.error for name, page in pages.items() if page.error}
    assert not broken, f"{edition} edition: pages that could not be measured: {broken}"
    return pages


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("edition", EDITIONS)
def test_figures_keep_their_aspect_ratio(rendered, edition, width):
    squashed, count = [], 0
    for name, page in _pages(rendered, edition).items():
        assert page.layout[width]["viewport"] == width, f"{name}: measured at {page.layout[width]['viewport']} px"
        for fig in page.layout[width]["figures"]:
            count += 1
            if abs(fig["ratio"] - 1) > RATIO_TOLERANCE:
                squashed.append(f"{name} #{fig['where']} {fig['src']}: shown at {fig['ratio']:.2f} of its aspect ratio")
    assert count >= 20, f"only {count} figures measured at {width} px: did the pages render?"
    assert not squashed, f"{len(squashed)} of {count} figures out of shape at {width} px ({edition}):\n" \
        + "\n".join(squashed)


def _too_wide(block: dict, width: int) -> bool:
    """A block wider than its column that the reader cannot see whole or cannot tell scrolls."""
    if block["kind"] == "equation under its number":
        return True
    if block["kind"] == "equation" and width == DESKTOP:
        return True  # wide equations are broken into lines (aligned) in the chapters
    if block["kind"] == "code" and width == DESKTOP and block["longest"] <= CODE_COLUMNS:
        return True  # code formatted to 88 columns fits the column
    return not (block["scrolls"] and block["cue"])


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("edition", EDITIONS)
def test_equations_code_and_tables_fit_or_show_they_scroll(rendered, edition, width):
    bad, scrolling = [], {}
    for name, page in _pages(rendered, edition).items():
        for block in page.layout[width]["wide"]:
            if _too_wide(block, width):
                size = f"{block['content']} px in {block['box']} px, " if "content" in block else ""
                state = "scrolls without a cue" if block["scrolls"] else "clipped or overflowing"
                bad.append(f"{name} {block['kind']} #{block['where']}: {size}{state}")
            else:
                scrolling[block["kind"]] = scrolling.get(block["kind"], 0) + 1
    print(f"\n{edition} at {width} px: blocks that scroll, with a cue: {scrolling or 'none'}")
    assert not bad, f"{len(bad)} blocks at {width} px ({edition}):\n" + "\n".join(bad)


@pytest.mark.parametrize("edition", EDITIONS)
def test_no_page_is_wider_than_a_phone(rendered, edition):
    wide = {name: page.layout[PHONE]["pageWidth"] for name, page in _pages(rendered, edition).items()
            if page.layout[PHONE]["pageWidth"] > page.layout[PHONE]["viewport"]}
    assert not wide, f"pages wider than the {PHONE} px screen ({edition}), in px: {wide}"


# ---------------------------------------------------------------- weight
# What a first visit downloads (no cache), by what the page needs. The libraries are pinned
# (tools/vendor.py, the theme), so their sizes are known; the rest is the page itself.
#   frame     the theme's CSS (0.40 MB) and icon font (0.16 MB), the search index, Bootstrap,
#             the extensions' and the site's own files: 1.0 MB now; Font Awesome's JavaScript
#             (1.49 MB) and brands font (0.12 MB) made it 2.6 MB
#   MathJax   tex-mml-chtml.js (1.17 MB) and the fonts the page's formulas use: 1.2-1.4 MB
#   widgets   require.js, the widget manager (embed-amd.js, 3.63 MB) and its icon fonts: 3.8 MB,
#             on explorer pages only
#   page      the HTML (with the explorers' frames) and its figures: up to 1.9 MB now, room
#             for sharper explorer frames and a figure or two more
BUDGET_MB = {"frame": 1.2, "mathjax": 1.6, "widgets": 4.0, "page": 3.0}


def _kind(path: str, page_path: str) -> str:
    if path == page_path or path.startswith("_images/"):
        return "page"
    if path.startswith("vendor/mathjax/"):
        return "mathjax"
    if path.startswith("vendor/"):
        return "widgets"
    return "frame"


def _weigh(folder: Path, page: str, urls: list[str]) -> dict[str, list[int]]:
    """Bytes as served and gzipped, by kind, of the local files a page loaded."""
    weights: dict[str, list[int]] = {}
    for path in sorted({unquote(urlparse(u).path).lstrip("/") for u in urls if urlparse(u).hostname == "127.0.0.1"}):
        file = folder / path
        if file.is_dir():
            file = file / "index.html"
        if not file.is_file():
            continue
        data = file.read_bytes()
        entry = weights.setdefault(_kind(path, page), [0, 0])
        entry[0] += len(data)
        entry[1] += len(gzip.compress(data, 6))
    return weights


@pytest.mark.parametrize("edition", EDITIONS)
def test_page_weight_is_recorded_and_within_budget(rendered, request, edition):
    folder = request.getfixturevalue("site" if edition == "instructor" else "student_site")
    lines, over = [f"{'page':40s} {'served MB':>9s} {'gzipped':>8s}   by kind (served MB)"], []
    for name, page in _pages(rendered, edition).items():
        weights = _weigh(folder, name, page.resources)
        assert "page" in weights, f"{name}: its own HTML is not among what it loaded"
        served = sum(w[0] for w in weights.values()) / 1e6
        zipped = sum(w[1] for w in weights.values()) / 1e6
        kinds = ", ".join(f"{k} {w[0] / 1e6:.2f}" for k, w in sorted(weights.items()))
        lines.append(f"{name:40s} {served:9.2f} {zipped:8.2f}   {kinds}")
        over += [f"{name}: {kind} {w[0] / 1e6:.2f} MB > {BUDGET_MB[kind]} MB"
                 for kind, w in weights.items() if w[0] / 1e6 > BUDGET_MB[kind]]
    lines += [f"{name:40s} as in the instructor edition" for name, page in rendered(edition).items() if page.shared]
    report = folder.parent / f"page-weight-{edition}.txt"
    report.write_text("\n".join(lines) + "\n")
    print("\n" + "\n".join(lines))
    assert not over, f"over budget ({edition}; see {report}):\n" + "\n".join(over)
