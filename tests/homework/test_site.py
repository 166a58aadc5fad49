"""The problem sets on the two built editions: the right links, the right files, no leak.

Neither edition publishes a set's instructor material: every file of both sites is searched
for the sets' solution lines, model answers, rubrics and hidden tests (the chapters' own
exercise solutions stay in the default edition, as its pages show them).
"""
from __future__ import annotations

import re
import zipfile
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tools import homework as hw
from tools import notebooks as nbtools
from tools import sphinx_homework as sh

from .conftest import IDS, SETS

PAGE = Path("book") / "teaching.html"
CONFIG = nbtools.load_config()
# what each edition legitimately shows of the chapters (the default one with their solutions);
# nothing of the Teaching page may come from a set's secrets
CHAPTERS = {"instructor": "\n".join(md.read_text(encoding="utf-8") for md in nbtools.chapters()),
            "student": "\n".join(nbtools.strip_solutions(md.read_text(encoding="utf-8")) for md in nbtools.chapters())}
# ... and what students see of every set (a hidden line of one set may be a public line of another)
PUBLIC = hw.public_text([hw.read_set(path) for path in SETS])
# ... and the Library reference of both editions: its pages and ibcore's docstrings (a usage line
# such as `Q, R, T = q.overlaps(W, W_star)` there is no leak of the set that uses it too)
REFERENCE = "\n".join(p.read_text(encoding="utf-8") for p in sorted(
    [*(nbtools.ROOT / "book" / "reference").glob("*.md"), *(nbtools.ROOT / "ibcore").rglob("*.py")]))


class _Hrefs(HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.hrefs += [value for name, value in attrs if tag == "a" and name == "href" and value]


def hrefs(site: Path) -> list[str]:
    parser = _Hrefs()
    parser.feed((site / PAGE).read_text(encoding="utf-8"))
    return parser.hrefs


@pytest.fixture(scope="module", params=["instructor", "student"])
def edition(request, site, student_site):
    return request.param, site if request.param == "instructor" else student_site


@pytest.fixture(scope="module")
def published(edition):
    """Every readable file of an edition, read once for all the sets."""
    return hw.readable_folder(edition[1])


@pytest.mark.parametrize("path", SETS, ids=IDS)
def test_both_editions_link_the_student_files_only(edition, path):
    name, site = edition
    links = hrefs(site)
    student = sh.site_files(path.stem)["student"]
    assert any(h.endswith(student) for h in links) and (site / student).is_file()
    for url in sh.launch_urls(CONFIG, path.stem).values():
        assert url in links
    committed = nbtools.ROOT / hw.STUDENT_COPY / path.stem / f"{path.stem}.ipynb"
    assert committed.is_file(), "Colab and Binder open the committed student notebook"
    assert all(u.endswith(committed.relative_to(nbtools.ROOT).as_posix())
               for u in sh.launch_urls(CONFIG, path.stem).values())
    assert sorted(p.name for p in (site / sh.SITE_DIR / path.stem).iterdir()) == [Path(student).name]
    with zipfile.ZipFile(site / student) as zf:
        names = set(zf.namelist())
    assert names == {f"{path.stem}/{path.stem}.ipynb"} | {
        f"{path.stem}/tests/{q.name}.py" for q in hw.read_set(path).autograded if q.public_tests}


def test_no_instructor_file_in_either_edition(edition):
    name, site = edition
    found = [p.relative_to(site).as_posix() for p in site.rglob("*")
             if re.search(r"-(autograder\.zip|instructor\.ipynb|rubrics\.md|model-answers\.md)$|^written\.json$|^grading",
                           p.name)]
    assert not found, f"instructor files in the {name} edition: {found}"


@pytest.mark.parametrize("path", SETS, ids=IDS)
def test_no_secret_in_any_published_file(edition, published, path):
    name, _ = edition
    leaks = hw.find_leaks(hw.read_set(path), published, allowed=CHAPTERS[name] + PUBLIC + REFERENCE)
    assert not leaks, f"solution or hidden-test lines in the {name} edition:\n" + "\n".join(leaks[:20])


def test_teaching_page_lists_the_sets_in_the_order_of_the_book(edition):
    name, site = edition
    text = (site / PAGE).read_text(encoding="utf-8")
    titles = [hw.read_set(path).title for path in SETS]
    places = [text.find(title) for title in titles]
    assert -1 not in places and places == sorted(places), f"{name} edition: the sets are listed out of order"
    assert [t.split(":")[0] for t in titles] == ["Problem set 0", "Problem set 1", "Problem set 2"]
    for path in SETS:
        pset = hw.read_set(path)
        assert f"{pset.points:g} points, about {pset.minutes / 60:.0f} hours" in text
