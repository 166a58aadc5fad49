"""Fixtures of the problem-set tests.

The fast checks of the sources (test_sources.py) run everywhere. The grading proofs
(test_grading.py, test_environment.py, test_teaching.py) need the sets built with otter
(``IB_HOMEWORK``, normally _build/homework) and the site checks (test_site.py) the two built
editions (``IB_SITE``, ``IB_STUDENT_SITE``); ``make homework-check`` and ``make homework-grader``
set them. Without them those tests are skipped, with a message saying so.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from tools import homework as hw

SETS = hw.sources()


def pytest_configure(config):
    # otter imports ipylab, whose traits are declared with types (traitlets deprecates it): benign
    config.addinivalue_line("filterwarnings",
                            "ignore:Traits should be given as instances, not types:DeprecationWarning")
    # otter grades in the tests' process (support.otter_run): its own code's deprecation
    # warnings (pandas') are otter's to fix, as when `otter run` printed them to its stderr
    config.addinivalue_line("filterwarnings", r"ignore::Warning:otter(\..*)?")
IDS = [p.stem for p in SETS]


def built_folder(variable: str, marker: str, make_target: str) -> Path:
    folder = os.environ.get(variable)
    if not folder:
        pytest.skip(f"set {variable} to the built folder (`make homework-check` does)")
    path = (hw.ROOT / folder).resolve()
    if not (path / marker).exists():
        pytest.fail(f"{variable}={folder} lacks {marker}; run `make {make_target}` first")
    return path


@pytest.fixture(scope="session")
def built() -> Path:
    """The sets as `make homework` builds them: _build/homework/<set>/{student,autograder}."""
    return built_folder("IB_HOMEWORK", f"{IDS[0]}/autograder/{IDS[0]}-autograder.zip", "homework")


@pytest.fixture(scope="session")
def site() -> Path:
    return built_folder("IB_SITE", "index.html", "site")


@pytest.fixture(scope="session")
def student_site() -> Path:
    return built_folder("IB_STUDENT_SITE", "index.html", "student")
