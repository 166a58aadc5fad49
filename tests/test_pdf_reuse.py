"""The student PDF takes the instructor's printed page only where the browser would print the
same document: the page is the instructor's but for the edition's name, and the site's assets
and the instructor's page are the ones printed (tools/pdf.py; no browser needed here)."""
from __future__ import annotations

import shutil

import pytest

from tools import notebooks as nbtools
from tools import pdf
from tools.sphinx_editions import pdf_name

PAGE = "<html><title>{title}</title><a href='pdf/{pdf}'>PDF</a><link href='_static/s.css?v=0123abcd'>{body}</html>"


def _site(root, edition, bodies):
    suffix = nbtools.STUDENT_TITLE_SUFFIX if edition == "student" else ""
    for folder, name, text in (("_static", "s.css", "p {}"), ("_images", "f.png", "png"), ("vendor", "m.js", "js")):
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / name).write_text(text)
    (root / "index.html").write_text("home")
    for file, body in bodies.items():
        (root / f"{file}.html").parent.mkdir(parents=True, exist_ok=True)
        (root / f"{file}.html").write_text(PAGE.format(title="Book" + suffix, pdf=pdf_name(edition), body=body))
    return root


@pytest.fixture
def printed(tmp_path):
    instructor = _site(tmp_path / "html", "instructor", {"book/intro": "same", "book/ch1": "exercise, solution"})
    student = _site(tmp_path / "student", "student", {"book/intro": "same", "book/ch1": "exercise"})
    out = tmp_path / "pdf"
    pdf._keep_printed(instructor, out, [({"file": "book/intro"}, "Intro", b"%PDF intro"),
                                        ({"file": "book/ch1"}, "Chapter 1", b"%PDF ch1")])
    return instructor, student, out


def test_a_page_without_exercises_is_taken_and_a_chapter_printed_again(printed):
    instructor, student, out = printed
    assert pdf._reusable(student, out) == {"book/intro": ("Intro", b"%PDF intro")}


def test_nothing_is_taken_when_an_asset_differs(printed):
    instructor, student, out = printed
    (student / "_static" / "s.css").write_text("p { color: red }")
    assert pdf._reusable(student, out) == {}


def test_a_page_rebuilt_since_it_was_printed_is_printed_again(printed):
    instructor, student, out = printed
    for site in (instructor, student):
        page = site / "book" / "intro.html"
        page.write_text(page.read_text().replace("same", "changed"))
    assert pdf._reusable(student, out) == {}


def test_nothing_is_taken_without_the_instructors_print(printed):
    instructor, student, out = printed
    shutil.rmtree(out / pdf.PRINTED)
    assert pdf._reusable(student, out) == {}
