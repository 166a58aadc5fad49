"""Checks of the built website. They run when IB_SITE names the built HTML folder
(``make test`` sets it after the strict build); otherwise they are skipped."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _built(variable: str, make_target: str) -> Path:
    folder = os.environ.get(variable)
    if not folder:
        pytest.skip(f"set {variable} to the built site (make site-check, student-check and pdf-check do)")
    path = (ROOT / folder).resolve()
    if not (path / "index.html").exists():
        pytest.fail(f"{variable}={folder} holds no built site; run `make {make_target}` first")
    return path


@pytest.fixture(scope="session")
def site() -> Path:
    """The instructor edition (``IB_SITE``, normally _build/html)."""
    return _built("IB_SITE", "book")


@pytest.fixture(scope="session")
def student_site() -> Path:
    """The student edition (``IB_STUDENT_SITE``, normally _build/student)."""
    return _built("IB_STUDENT_SITE", "student")
