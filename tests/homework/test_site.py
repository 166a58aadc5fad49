"""The problem sets on the two built editions: the right links, the right files, no leak."""
from __future__ import annotations

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


def local(site: Path, href: str) -> Path:
    return (site / PAGE).parent.joinpath(href).resolve()


@pytest.mark.parametrize("path", SETS, ids=IDS)
def test_instructor_edition_links_every_file_of_the_set(site, path):
    links = hrefs(site)
    for rel in sh.site_files(path.stem, "instructor").values():
        href = next((h for h in links if h.endswith(rel)), None)
        assert href, f"the instructor edition must link {rel}"
        assert local(site, href) == (site / rel).resolve() and (site / rel).is_file()
    for url in sh.launch_urls(CONFIG, path.stem).values():
        assert url in links
    committed = nbtools.ROOT / hw.STUDENT_COPY / path.stem / f"{path.stem}.ipynb"
    assert committed.is_file(), "Colab and Binder open the committed student notebook"
    assert all(u.endswith(committed.relative_to(nbtools.ROOT).as_posix())
               for u in sh.launch_urls(CONFIG, path.stem).values())


@pytest.mark.parametrize("path", SETS, ids=IDS)
def test_student_edition_links_only_the_student_files(student_site, path):
    links = hrefs(student_site)
    student = sh.site_files(path.stem, "student")["student"]
    assert any(h.endswith(student) for h in links) and (student_site / student).is_file()
    for url in sh.launch_urls(CONFIG, path.stem).values():
        assert url in links
    instructor_only = set(sh.site_files(path.stem, "instructor").values()) - {student}
    assert not [h for h in links if any(h.endswith(rel) for rel in instructor_only)]
    assert not [rel for rel in instructor_only if (student_site / rel).exists()]
    with zipfile.ZipFile(student_site / student) as zf:
        names = set(zf.namelist())
    assert f"{path.stem}/{path.stem}.ipynb" in names
    assert {f"{path.stem}/tests/{q.name}.py" for q in hw.read_set(path).autograded if q.public_tests} <= names


def test_student_edition_has_no_instructor_file(student_site):
    found = [p.relative_to(student_site).as_posix() for p in student_site.rglob("*")
             if p.name.endswith(("-autograder.zip", "-instructor.ipynb"))]
    assert not found, f"instructor files in the student edition: {found}"


@pytest.mark.parametrize("path", SETS, ids=IDS)
def test_no_secret_on_any_page_of_the_student_edition(student_site, path):
    # what the student edition legitimately shows: its chapters without their solutions (and
    # nothing from this guide, whose examples must not come from a set)
    chapters = "\n".join(nbtools.strip_solutions(md.read_text(encoding="utf-8")) for md in nbtools.chapters())
    leaks = hw.find_leaks(hw.read_set(path), student_site, allowed=chapters)
    assert not leaks, "solution or hidden-test lines in the student edition:\n" + "\n".join(leaks[:20])
