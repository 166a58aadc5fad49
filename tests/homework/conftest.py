"""Fixtures of the problem-set tests.

The fast checks of the sources (test_sources.py) run in ``make test``. The grading proofs
(test_grading.py, test_environment.py, test_teaching.py) need the sets built with otter and
the site checks (test_site.py) the two built editions: ``make check`` passes them as
``--homework``, ``--site`` and ``--student-site`` (tests/built.py).
"""
from __future__ import annotations

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


@pytest.fixture(scope="session")
def built(built_homework) -> Path:
    """The sets as `make check` builds them: _build/homework/<set>/{student,autograder}."""
    zip_ = built_homework / IDS[0] / "autograder" / f"{IDS[0]}-autograder.zip"
    if not zip_.exists():
        pytest.fail(f"{zip_} is missing: run `make check`, which builds the sets")
    return built_homework
