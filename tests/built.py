"""pytest plugin: the two tiers, and what `make check` built handed to the tests as options.

``make test`` runs the tests not marked ``slow`` (pyproject.toml's ``addopts``); ``make check``
runs the ``slow`` ones with the paths of what it built::

    pytest -m slow --site _build/html --student-site _build/student --pdf _build/pdf \\
        --homework _build/homework --figure-report _build/figures.jsonl

A test that asks for one of the fixtures below is marked ``slow`` here, so a new check of a
built artefact lands in ``make check`` by naming its fixture. Without its option such a test
is skipped, and says which option it needs.
"""
from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# fixture -> (option, what the folder must hold, the make target that builds it, what it is)
ARTEFACTS = {
    "site": ("--site", "index.html", "book", "the instructor edition (_build/html)"),
    "student_site": ("--student-site", "index.html", "student", "the student edition (_build/student)"),
    "pdf_folder": ("--pdf", "", "pdf", "the folder of both PDFs (_build/pdf)"),
    "built_homework": ("--homework", "", "check", "the problem sets built by otter (_build/homework)"),
    "figure_report": ("--figure-report", "", "check",
                      "the legend checks written while nbval ran the chapters (_build/figures.jsonl)"),
}


def pytest_addoption(parser):
    group = parser.getgroup("built", "what make check built, for the slow tier")
    for option, _, _, what in ARTEFACTS.values():
        group.addoption(option, metavar="PATH", help=what)


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects
def pytest_collection_modifyitems(items):
    for item in items:
        if ARTEFACTS.keys() & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


def _artefact(request, fixture: str) -> Path:
    option, inside, target, _ = ARTEFACTS[fixture]
    given = request.config.getoption(option)
    if not given:
        pytest.skip(f"needs {option} (make check passes it)")
    path = (ROOT / given).resolve()
    if not (path / inside).exists():
        pytest.fail(f"{option} {given}: {path / inside} is missing; run `make {target}` first")
    return path


def _fixture(name: str):
    def artefact(request) -> Path:
        return _artefact(request, name)

    artefact.__doc__ = f"{ARTEFACTS[name][3]}, given as {ARTEFACTS[name][0]}"
    return pytest.fixture(scope="session", name=name)(artefact)


# the fixtures site, student_site, pdf_folder, built_homework, figure_report
globals().update({name: _fixture(name) for name in ARTEFACTS})
